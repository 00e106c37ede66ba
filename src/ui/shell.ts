// The page shell every HTML page shares (`/`, `/sign`, and the root's own pages), the plain
// page and its message variant, and the one way an HTML answer is sent.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { unavailableRetryAfterSeconds } from '../db/availability.ts';
import { pageTranslator, type Translator, translator } from '../i18n/messages.ts';
import { baseStyles } from './assets.ts';
import { html, raw, renderToString, type SafeHtml } from './html.ts';
import { headerLanguage } from './page-language.ts';
import { plainPagePolicy } from './security.ts';

/** The language a page is written in: `<html lang dir>` (English, left to right, by default). */
export type PageLanguage = Pick<Translator, 'language' | 'dir'>;

/** A complete HTML5 document: not indexed; `head` adds what the kind of page needs. */
export function htmlDocument(options: {
  title: string;
  head: SafeHtml;
  body: SafeHtml;
  language?: PageLanguage;
}): string {
  const language = options.language ?? { language: 'en', dir: 'ltr' };
  return renderToString(html`<!doctype html>
<html lang="${language.language}" dir="${language.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${options.title}</title>
${options.head}
</head>
<body>
${options.body}
</body>
</html>
`);
}

/**
 * The icon of the signing pages and the application's (ui/assets.ts serves it; images from
 * this origin are in both policies). Plain pages link nothing: the browser's own request
 * for /favicon.ico is answered too.
 */
export const faviconLink = html`<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">`;

/**
 * A plain page: no external resources, the base styles inline (hashed in its CSP), and no
 * JavaScript unless `script` is given (the signing page's script and `styles`, hashed in
 * its own CSP, and its `favicon`).
 */
export function page(options: {
  title: string;
  body: SafeHtml;
  script?: string;
  styles?: string;
  favicon?: boolean;
  language?: PageLanguage;
  /** A stylesheet of this origin after the page's own (a workspace's brand). */
  stylesheet?: string | null;
}): string {
  return htmlDocument({
    title: options.title,
    ...(options.language ? { language: options.language } : {}),
    head: html`${options.favicon ? faviconLink : ''}<style>${raw(baseStyles)}</style>${options.styles ? html`<style>${raw(options.styles)}</style>` : ''}${options.stylesheet ? html`<link rel="stylesheet" href="${options.stylesheet}">` : ''}`,
    // After the content, so the script finds what it enhances.
    body: html`<div class="container">
${options.body}
</div>${options.script ? html`<script>${raw(options.script)}</script>` : ''}`,
  });
}

/** The look of a recipient's page that its sender's brand sets (workspaces/brand.ts). */
export interface PageBrand {
  /** `#rrggbb`, or null for Signet's blue. */
  accent: string | null;
  sentWithSignet: boolean;
}

/** "Sent with Signet" at the foot of a recipient's page, unless the sender's brand leaves it out. */
export function sentWithSignetFooter(brand: PageBrand, tr: Translator): SafeHtml | null {
  return brand.sentWithSignet
    ? html`<footer class="page-footer small muted">${tr.t('sign.sentWith')}</footer>`
    : null;
}

export interface Message {
  title: string;
  heading: string;
  message: string;
  /** Shown small under the message for an error status. */
  status?: number;
  /** The way back (the page the refused form was on), when there is one. */
  back?: string | null;
}

/** A plain page that says one thing (a link that does not work, an error), in `tr`'s language. */
export function messagePage(view: Message, tr: Translator = translator('en')): string {
  return page({
    title: view.title,
    language: tr,
    body: html`<main>
<section class="card" aria-labelledby="message-heading">
<h1 id="message-heading">${view.heading}</h1>
<p>${view.message}</p>
${view.back ? html`<p><a href="${view.back}">${tr.t('page.backToForm')}</a></p>` : null}
${view.status !== undefined && view.status >= 400 && html`<p class="small muted">${tr.t('page.errorStatus', { status: view.status })}</p>`}
</section>
</main>`,
  });
}

/** Sends a rendered page: HTML, never cached (pages show private data or carry secrets). */
export function sendHtml(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(body);
}

/** A plain page sent where no helmet scope set the headers (the root's 400 and 404). */
export function sendPlainPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return sendHtml(reply.header('content-security-policy', plainPagePolicy), status, body);
}

/**
 * The plain page every HTML route answers while the database is unreachable: no session,
 * no navigation (neither can be read), nothing that needs the database; in the language the
 * request's headers ask for (ui/page-language.ts headerLanguage).
 */
export function sendUnavailablePage(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const tr = pageTranslator(headerLanguage(request));
  return sendPlainPage(
    reply.header('retry-after', String(unavailableRetryAfterSeconds)),
    503,
    messagePage(
      {
        title: `${tr.t('page.unavailable.title')} · Signet`,
        heading: tr.t('page.unavailable.heading'),
        message: tr.t('page.unavailable.message'),
      },
      tr,
    ),
  );
}
