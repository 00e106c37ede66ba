// A tiny, safe HTML templating helper for server-rendered pages. `html` is a tagged template
// that escapes every interpolated value unless it is already SafeHtml, so user input cannot
// become markup. SafeHtml can only be made by `html` or `raw` (the class is not exported as a
// value, and a plain object such as `{ __html: '<script>' }` from parsed JSON is not SafeHtml),
// so escaping cannot be skipped by accident. Interpolations are meant for element content and
// double-quoted attribute values; never interpolate into an unquoted attribute, a URL
// attribute that could take a `javascript:` URL, or inside <style>/<script>.
import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { unavailableRetryAfterSeconds } from '../db/availability.ts';

class SafeHtml {
  readonly #html: string;

  constructor(markup: string) {
    this.#html = markup;
  }

  get html(): string {
    return this.#html;
  }
}

export type { SafeHtml };

/** What may be interpolated: booleans, null and undefined render as nothing (so `${cond && html`…`}` works). */
export type HtmlValue =
  | SafeHtml
  | string
  | number
  | bigint
  | boolean
  | null
  | undefined
  | readonly HtmlValue[];

const entities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes `& < > " '`, safe for element content and quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => entities[c] ?? c);
}

function renderValue(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.html;
  if (value === null || value === undefined || typeof value === 'boolean') return '';
  if (Array.isArray(value)) return value.map((v: HtmlValue) => renderValue(v)).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    out += renderValue(values[i]) + (strings[i + 1] ?? '');
  }
  return new SafeHtml(out);
}

/** Marks a string as trusted markup, without escaping. Only for constant, trusted text such as CSS. */
export function raw(s: string): SafeHtml {
  return new SafeHtml(s);
}

export function renderToString(x: SafeHtml): string {
  return x.html;
}

export const baseStyles = `
:root {
  color-scheme: light;
  --bg: #f4f5f7;
  --card: #ffffff;
  --text: #1b1f24;
  --muted: #555e6b;
  --border: #dde1e6;
  --primary: #1d56c8;
  --primary-hover: #1646a6;
  --danger: #b42318;
  --danger-bg: #fdeceb;
  --success: #146c2e;
  --success-bg: #e6f4ea;
  --warning: #7a4500;
  --warning-bg: #fff3dc;
  --info: #1d4f91;
  --info-bg: #e8f0fc;
  --radius: 12px;
  --focus: 0 0 0 3px #ffffff, 0 0 0 5px #1d56c8;
}
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body {
  margin: 0;
  background: var(--bg);
  color: var(--text);
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif;
  font-size: 1rem;
  line-height: 1.6;
}
.container { max-width: 760px; margin: 0 auto; padding: 1.5rem 1rem 4rem; }
@media (min-width: 640px) { .container { padding: 3rem 1.5rem 5rem; } }
h1, h2, h3 { line-height: 1.25; margin: 0 0 0.75rem; }
h1 { font-size: 1.625rem; overflow-wrap: anywhere; }
h2 { font-size: 1.125rem; }
@media (min-width: 640px) { h1 { font-size: 2rem; } }
p { margin: 0 0 1rem; }
p:last-child { margin-bottom: 0; }
a { color: var(--primary); }
.muted { color: var(--muted); }
.small { font-size: 0.875rem; }
.page-header { margin-bottom: 1.5rem; }
.page-header .badge { margin-bottom: 0.75rem; }
.meta { display: flex; flex-wrap: wrap; gap: 0.25rem 1.5rem; margin: 0; color: var(--muted); font-size: 0.9375rem; }
.meta div { display: flex; gap: 0.375rem; }
.meta dt { font-weight: 600; }
.meta dd { margin: 0; }
.card {
  background: var(--card);
  border: 1px solid var(--border);
  border-radius: var(--radius);
  padding: 1.25rem;
  margin: 0 0 1.25rem;
  box-shadow: 0 1px 2px rgba(16, 24, 40, 0.04);
}
@media (min-width: 640px) { .card { padding: 1.75rem 2rem; } }
.document-body { overflow-wrap: anywhere; }
.document-body p { margin-bottom: 1.1rem; }
.document-body p:last-child { margin-bottom: 0; }
.badge {
  display: inline-block;
  padding: 0.125rem 0.625rem;
  border-radius: 999px;
  font-size: 0.8125rem;
  font-weight: 600;
  line-height: 1.6;
  white-space: nowrap;
  background: #eceef1;
  color: #3d4550;
}
.badge-neutral { background: #eceef1; color: #3d4550; }
.badge-pending { background: var(--warning-bg); color: var(--warning); }
.badge-success { background: var(--success-bg); color: var(--success); }
.badge-danger { background: var(--danger-bg); color: var(--danger); }
.notice {
  border-radius: var(--radius);
  border: 1px solid transparent;
  border-left-width: 5px;
  padding: 0.875rem 1rem;
  margin: 0 0 1.25rem;
  font-weight: 500;
  overflow-wrap: anywhere;
}
.notice-success { background: var(--success-bg); border-color: var(--success); color: var(--success); }
.notice-error { background: var(--danger-bg); border-color: var(--danger); color: var(--danger); }
.notice-info { background: var(--info-bg); border-color: var(--info); color: var(--info); }
.table-scroll {
  overflow-x: auto;
  -webkit-overflow-scrolling: touch;
  /* Shadows at an edge with more columns beyond it (they scroll away with the content). */
  background:
    linear-gradient(to right, var(--card) 30%, rgba(255, 255, 255, 0)) left center / 2.5rem 100% no-repeat local,
    linear-gradient(to left, var(--card) 30%, rgba(255, 255, 255, 0)) right center / 2.5rem 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, rgba(16, 24, 40, 0.16), rgba(16, 24, 40, 0)) left center / 0.875rem 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, rgba(16, 24, 40, 0.16), rgba(16, 24, 40, 0)) right center / 0.875rem 100% no-repeat scroll;
}
.table-scroll:focus-visible { outline: none; box-shadow: var(--focus); border-radius: 6px; }
table { width: 100%; border-collapse: collapse; font-size: 0.9375rem; }
/* On a phone each pricing line becomes a small card: name and amount on top, details
   below with their labels, totals as label/figure rows. Nothing needs sideways scrolling. */
@media (max-width: 639px) {
  table.pricing thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  table.pricing tbody tr { display: grid; grid-template-columns: 1fr auto; gap: 0.125rem 1rem; padding: 0.75rem 0; border-bottom: 1px solid var(--border); }
  table.pricing tbody tr:last-child { border-bottom: none; }
  table.pricing tbody td { display: block; padding: 0; border: none; text-align: left; }
  table.pricing tbody td.item { grid-column: 1; grid-row: 1; font-weight: 600; }
  table.pricing tbody td.amount { grid-column: 2; grid-row: 1; text-align: right; font-weight: 600; }
  table.pricing tbody td[data-label] { grid-column: 1 / -1; font-size: 0.875rem; color: var(--muted); white-space: normal; }
  table.pricing tbody td[data-label]::before { content: attr(data-label) ": "; }
  table.pricing tfoot tr { display: flex; justify-content: space-between; gap: 1rem; }
  table.pricing tfoot th, table.pricing tfoot td { display: block; padding-left: 0; padding-right: 0; text-align: left; }
  table.pricing tfoot tr:first-child th, table.pricing tfoot tr:first-child td { border-top: none; }
  table.pricing tfoot tr:first-child { border-top: 2px solid var(--border); margin-top: 0.25rem; padding-top: 0.5rem; }
}
caption { text-align: left; }
th, td { padding: 0.625rem 0.5rem; text-align: left; vertical-align: top; border-bottom: 1px solid var(--border); }
thead th { font-size: 0.8125rem; text-transform: uppercase; letter-spacing: 0.03em; color: var(--muted); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.item { min-width: 9rem; overflow-wrap: anywhere; }
td.billing { white-space: nowrap; }
tfoot th, tfoot td { border-bottom: none; padding-top: 0.375rem; padding-bottom: 0.375rem; }
tfoot tr:first-child th, tfoot tr:first-child td { border-top: 2px solid var(--border); padding-top: 0.75rem; }
tfoot th { text-align: right; font-weight: 500; color: var(--muted); }
@media (max-width: 639px) { tfoot th { text-align: left; } }
tfoot tr.total th, tfoot tr.total td { font-weight: 700; color: var(--text); font-size: 1.0625rem; }
.pricing-note { margin-top: 0.75rem; }
.recipients { list-style: none; margin: 0; padding: 0; }
.recipients li {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  justify-content: space-between;
  gap: 0.25rem 1rem;
  padding: 0.75rem 0;
  border-bottom: 1px solid var(--border);
}
.recipients li:first-child { padding-top: 0; }
.recipients li:last-child { border-bottom: none; padding-bottom: 0; }
.recipient-name { font-weight: 600; overflow-wrap: anywhere; }
.you { font-weight: 400; color: var(--muted); }
.state { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; font-size: 0.875rem; color: var(--muted); }
.field { margin: 0 0 1.25rem; }
label, .label { display: block; font-weight: 600; margin-bottom: 0.375rem; }
input[type="text"], textarea {
  display: block;
  width: 100%;
  min-height: 48px;
  padding: 0.625rem 0.875rem;
  font: inherit;
  font-size: 1.0625rem;
  color: var(--text);
  background: #ffffff;
  border: 1px solid #9aa3af;
  border-radius: 8px;
}
textarea { min-height: 6rem; resize: vertical; }
input.code { max-width: 12rem; letter-spacing: 0.3em; font-variant-numeric: tabular-nums; }
input:focus-visible, textarea:focus-visible, button:focus-visible, summary:focus-visible { outline: none; box-shadow: var(--focus); }
.hint { display: block; font-weight: 400; color: var(--muted); font-size: 0.875rem; margin-top: -0.125rem; margin-bottom: 0.5rem; }
.checkbox { display: flex; gap: 0.75rem; align-items: flex-start; font-weight: 400; min-height: 44px; cursor: pointer; }
.checkbox input { flex: none; width: 1.375rem; height: 1.375rem; margin: 0.125rem 0 0; accent-color: var(--primary); }
.button {
  display: inline-flex;
  align-items: center;
  justify-content: center;
  min-height: 48px;
  min-width: 44px;
  padding: 0.625rem 1.5rem;
  border-radius: 8px;
  border: 1px solid transparent;
  font: inherit;
  font-weight: 600;
  font-size: 1.0625rem;
  cursor: pointer;
  text-decoration: none;
}
.button-primary { background: var(--primary); color: #ffffff; width: 100%; }
.button-primary:hover { background: var(--primary-hover); }
@media (min-width: 640px) { .button-primary { width: auto; min-width: 14rem; } }
.button-secondary { background: #ffffff; color: var(--text); border-color: #9aa3af; }
.button-secondary:hover { background: #f0f2f5; }
.button-danger { background: #ffffff; color: var(--danger); border-color: var(--danger); }
.button-danger:hover { background: var(--danger-bg); }
.code-request { display: flex; flex-wrap: wrap; align-items: center; gap: 0.75rem 1rem; padding: 1rem; margin: 0 0 1.25rem; background: var(--bg); border-radius: 8px; }
.code-request p { flex: 1 1 16rem; margin: 0; }
.signing-as { margin-bottom: 1.25rem; overflow-wrap: anywhere; }
details.decline { margin-top: 1.5rem; border-top: 1px solid var(--border); padding-top: 0.5rem; }
details.decline summary { display: list-item; min-height: 44px; padding: 0.625rem 0; cursor: pointer; color: var(--muted); font-weight: 500; }
details.decline[open] summary { margin-bottom: 0.75rem; }
details.decline form { padding-top: 0.25rem; }
.box { border-radius: 8px; padding: 1rem 1.125rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
.box:last-child { margin-bottom: 0; }
.box-info { background: var(--info-bg); color: var(--info); }
.box-success { background: var(--success-bg); color: var(--success); }
.box-danger { background: var(--danger-bg); color: var(--danger); }
.box-neutral { background: #eef0f3; color: #3d4550; }
.box p { margin: 0; }
.box p + p { margin-top: 0.375rem; }
.box strong { font-weight: 700; }
@media print {
  body { background: #ffffff; }
  .card { border: none; box-shadow: none; padding: 0; }
  form, details.decline, .notice { display: none; }
}
`;

/** The sha256 source of the inline style, for a Content-Security-Policy without 'unsafe-inline'. */
const styleHash = `sha256-${createHash('sha256').update(baseStyles).digest('base64')}`;

/**
 * A Content-Security-Policy that fits pages made by `page()`: no scripts at all, only the one
 * inline style, forms post to this origin only, and the page cannot be framed (clickjacking a
 * Sign button). For the route that serves the page to send as a header.
 */
export const pageContentSecurityPolicy = [
  "default-src 'none'",
  `style-src '${styleHash}'`,
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** A complete HTML5 document: no JavaScript, no external resources, not indexed, no referrer. */
export function page(options: { title: string; body: SafeHtml }): string {
  return renderToString(html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${options.title}</title>
<style>${raw(baseStyles)}</style>
</head>
<body>
<div class="container">
${options.body}
</div>
</body>
</html>
`);
}

/**
 * The plain page every HTML route answers while the database is unreachable: no session,
 * no navigation (neither can be read), nothing that needs the database.
 */
export function sendUnavailablePage(reply: FastifyReply): FastifyReply {
  return reply
    .code(503)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('retry-after', String(unavailableRetryAfterSeconds))
    .header('content-security-policy', pageContentSecurityPolicy)
    .send(unavailablePage);
}

const unavailablePage = page({
  title: 'Temporarily unavailable · Signet',
  body: html`<div class="card"><h1>Temporarily unavailable</h1><p>Signet cannot reach its database right now, so nothing you sent was saved. Please try again in a minute.</p></div>`,
});
