// The web application's page shell: one stylesheet (the signing pages' base styles plus
// the application's own, served at /assets/app.css), a navigation bar for members, and
// the small pieces every page uses (flash notice, field errors, CSRF field). Pages run no
// inline script and load nothing from elsewhere (see the Content-Security-Policy in
// web.plugin.ts); a little JavaScript for copy buttons comes from /assets/app.js.
import type { SessionUser } from '../accounts/accounts.service.ts';
import { baseStyles, html, raw, renderToString, type SafeHtml } from './html.ts';

const appStyles = `
.container { max-width: 1040px; }
.site-nav { background: #ffffff; border-bottom: 1px solid var(--border); }
.site-nav .inner { max-width: 1040px; margin: 0 auto; padding: 0.5rem 1rem; display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 1rem; }
.site-nav .brand { font-weight: 700; margin-right: auto; color: var(--text); text-decoration: none; padding: 0.5rem 0; overflow-wrap: anywhere; }
.site-nav .brand span { font-weight: 400; color: var(--muted); margin-left: 0.375rem; }
.site-nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 0 0.25rem; }
.site-nav a, .site-nav button.link { display: inline-flex; align-items: center; min-height: 44px; padding: 0 0.625rem; border-radius: 6px; color: var(--text); text-decoration: none; font: inherit; font-weight: 500; background: none; border: none; cursor: pointer; }
.site-nav a[aria-current="page"] { color: var(--primary); text-decoration: underline; text-underline-offset: 0.3em; }
.site-nav a:hover, .site-nav button.link:hover { background: #f0f2f5; }
.site-nav form { margin: 0; }
.narrow { max-width: 460px; margin: 0 auto; }
input[type="email"], input[type="password"], input[type="url"], input[type="number"], select {
  display: block; width: 100%; min-height: 48px; padding: 0.625rem 0.875rem; font: inherit; font-size: 1.0625rem;
  color: var(--text); background: #ffffff; border: 1px solid #9aa3af; border-radius: 8px;
}
select:focus-visible, a:focus-visible { outline: none; box-shadow: var(--focus); }
[aria-invalid="true"] { border-color: var(--danger) !important; }
.field-error { display: block; color: var(--danger); font-weight: 500; font-size: 0.9375rem; margin-top: 0.375rem; }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: center; margin-top: 1.25rem; }
.actions .button-primary { width: auto; }
.button-small { min-height: 40px; padding: 0.375rem 1rem; font-size: 0.9375rem; }
.secret { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
.secret code { flex: 1 1 20rem; padding: 0.75rem; background: var(--bg); border-radius: 8px; overflow-wrap: anywhere; font-size: 0.9375rem; }
pre.shell { background: #1b1f24; color: #f4f5f7; padding: 1rem; border-radius: 8px; overflow-x: auto; font-size: 0.875rem; }
.empty { text-align: center; padding: 2rem 1rem; }
.section-title { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: baseline; gap: 0.5rem 1rem; }
.pager { display: flex; gap: 1rem; justify-content: flex-end; margin-top: 1rem; }
.filters { display: flex; flex-wrap: wrap; gap: 0.5rem; margin: 0 0 1rem; padding: 0; list-style: none; }
.filters a { display: inline-flex; align-items: center; min-height: 40px; padding: 0 0.875rem; border: 1px solid var(--border); border-radius: 999px; background: #ffffff; text-decoration: none; color: var(--text); }
.filters a[aria-current="page"] { background: var(--primary); border-color: var(--primary); color: #ffffff; }
.table-scroll { position: relative; }
fieldset { border: none; padding: 0; min-width: 0; }
legend { padding: 0; }
.checkbox code { font-size: 0.9375rem; }
form.inline { display: inline-flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin: 0; }
form.inline select { width: auto; min-height: 40px; padding: 0.25rem 0.5rem; }
table.form-rows td { padding: 0.375rem 0.25rem; }
table.form-rows input, table.form-rows select { min-height: 44px; font-size: 1rem; padding: 0.375rem 0.5rem; }
table.form-rows input[type="email"], table.form-rows td:first-child input { min-width: 12rem; }
table.form-rows input[type="text"] { min-width: 6rem; }
table.form-rows input[type="number"] { min-width: 4.5rem; }
@media (max-width: 639px) {
  table.form-rows thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.form-rows tr { display: grid; grid-template-columns: 1fr 1fr; gap: 0.25rem 0.75rem; padding: 0.75rem 0; border-bottom: 1px solid var(--border); }
  table.form-rows td { display: block; border: none; padding: 0; }
  table.form-rows td:first-child { grid-column: 1 / -1; }
  table.form-rows td::before { content: attr(data-label); display: block; font-size: 0.8125rem; font-weight: 600; color: var(--muted); }
  table.form-rows input, table.form-rows select, table.form-rows input[type="email"], table.form-rows td:first-child input { min-width: 0; width: 100%; }
}
ul.plain, ol.plain { list-style: none; margin: 0; padding: 0; }
ul.plain li, ol.plain li { margin-bottom: 0.25rem; overflow-wrap: anywhere; }
.chart { margin: 0 0 1rem; }
.chart svg { display: block; background: var(--bg); border-radius: 8px; }
.url-title { font-size: 1.375rem; overflow-wrap: anywhere; }
pre.shell { white-space: pre-wrap; overflow-wrap: anywhere; }
.notice p { margin: 0 0 0.5rem; }
.notice .actions { margin-top: 0.5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

/** The stylesheet every application page links: /assets/app.css. */
export const appStylesheet = `${baseStyles}${appStyles}`;

/**
 * Progressive enhancement only; every page works without it. Copy buttons (the text stays
 * selectable without them), and the live value of a document's pricing: the form is posted
 * to the server as it is typed, which computes it exactly as the API will.
 */
export const appScript = `document.addEventListener('click', function (event) {
  var button = event.target.closest && event.target.closest('[data-copy]');
  if (!button || !navigator.clipboard) return;
  var source = document.getElementById(button.getAttribute('data-copy'));
  if (!source) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(function () {
    var label = button.textContent;
    button.textContent = 'Copied';
    setTimeout(function () { button.textContent = label; }, 1500);
  });
});
var valueForm = document.querySelector('form[data-live-value]');
var valueOutput = document.getElementById('live-value');
if (valueForm && valueOutput && window.fetch) {
  var valueTimer;
  valueForm.addEventListener('input', function (event) {
    if (!event.target.name || !/^(p\\d+_|currency$|vatMode$)/.test(event.target.name)) return;
    clearTimeout(valueTimer);
    valueTimer = setTimeout(function () {
      fetch(valueForm.getAttribute('data-live-value'), {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(new FormData(valueForm)),
      })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (result) { if (result) valueOutput.textContent = result.text; })
        .catch(function () {});
    }, 300);
  });
}
`;

export type NavArea = 'documents' | 'integrations' | 'billing' | 'members' | 'account' | null;

export interface PageOptions {
  title: string;
  body: SafeHtml;
  /** The signed-in member, for the navigation bar; null on sign-in and sign-up pages. */
  session: SessionUser | null;
  csrfToken: string;
  current?: NavArea;
}

/** An API timestamp for people: "2026-11-25 14:03 UTC" (with seconds where they matter). */
export function formatTime(iso: string, withSeconds = false): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, withSeconds ? 19 : 16)} UTC`;
}

/** A hidden field carrying the form's CSRF token. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

export function fieldError(id: string, message: string | undefined): SafeHtml {
  return message ? html`<span class="field-error" id="${id}-error">${message}</span>` : html``;
}

/** aria attributes that tie an input to its error message. */
export function invalidAttrs(id: string, message: string | undefined): SafeHtml {
  return message ? html`aria-invalid="true" aria-describedby="${id}-error"` : html``;
}

export function notice(kind: 'success' | 'error' | 'info', text: string | SafeHtml): SafeHtml {
  return html`<div class="notice notice-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</div>`;
}

function navLink(href: string, label: string, area: NavArea, current: NavArea | undefined): SafeHtml {
  return html`<li><a href="${href}"${area === current ? raw(' aria-current="page"') : ''}>${label}</a></li>`;
}

function navigation(session: SessionUser, csrfToken: string, current: NavArea | undefined): SafeHtml {
  return html`<nav class="site-nav" aria-label="Main">
<div class="inner">
<a class="brand" href="/documents">Signet <span>&middot; ${session.workspaceName}</span></a>
<ul>
${navLink('/documents', 'Documents', 'documents', current)}
${navLink('/settings/integrations', 'Integrations', 'integrations', current)}
${session.role === 'owner' ? navLink('/settings/billing', 'Billing', 'billing', current) : ''}
${navLink('/settings/members', 'Members', 'members', current)}
${navLink('/settings/account', 'Account', 'account', current)}
<li><form method="post" action="/logout">${csrfField(csrfToken)}<button class="link" type="submit">Log out</button></form></li>
</ul>
</div>
</nav>`;
}

export function appPage(options: PageOptions): string {
  return renderToString(html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${options.title} · Signet</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/app.css">
<script src="/assets/app.js" defer></script>
</head>
<body>
${options.session ? navigation(options.session, options.csrfToken, options.current) : ''}
<main class="container" id="main">
${options.body}
</main>
</body>
</html>
`);
}
