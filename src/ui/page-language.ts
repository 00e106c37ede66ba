// **The** language of a page reached without a recipient (issue 51): a public link, and next
// the account pages and /verify. The visitor's own choice first, made with the language switch
// (`?lang=de`, a GET form, so it works without JavaScript and changes nothing but the choice),
// kept in the `signet_language` cookie for their next pages; then that cookie; then their
// browser's `Accept-Language`; then the fallback (a public link's: the workspace's default).
// The switch is on every such page, each language named in itself.
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  defaultLanguage,
  endonym,
  type Language,
  languages,
  matchLanguage,
  parseLanguage,
} from '../i18n/languages.ts';
import { pageTranslator, type Translator } from '../i18n/messages.ts';
import { html, raw, type SafeHtml } from './html.ts';

export const languageCookie = 'signet_language';
const oneYearSeconds = 365 * 24 * 60 * 60;

/** The query's `lang`, when it names one of Signet's languages. */
function askedLanguage(request: FastifyRequest): Language | null {
  const asked = (request.query as Record<string, unknown> | undefined)?.lang;
  return typeof asked === 'string' ? parseLanguage(asked) : null;
}

/**
 * The visitor's language (see the header), the switch's choice kept in the cookie. Needs
 * @fastify/cookie on the scope (the web application's and the signing pages').
 */
export function visitorLanguage(
  request: FastifyRequest,
  reply: FastifyReply,
  fallback: Language = defaultLanguage,
): Language {
  return visitorChoice(request, reply) ?? fallback;
}

/**
 * Keeps `language` as this browser's choice for its next visitor pages (a member's own
 * language, saved or at log-in), or forgets the choice (null): their browser's again.
 */
export function rememberLanguage(reply: FastifyReply, language: Language | null): void {
  if (language === null) {
    reply.clearCookie(languageCookie, { path: '/' });
    return;
  }
  reply.setCookie(languageCookie, language, {
    path: '/',
    sameSite: 'lax',
    httpOnly: true,
    maxAge: oneYearSeconds,
  });
}

/** The language the visitor asked for (the switch, its cookie, their browser), or null for none of Signet's. */
export function visitorChoice(request: FastifyRequest, reply: FastifyReply): Language | null {
  const asked = askedLanguage(request);
  if (asked) {
    rememberLanguage(reply, asked);
    return asked;
  }
  const kept = request.cookies?.[languageCookie];
  const remembered = typeof kept === 'string' ? parseLanguage(kept) : null;
  return remembered ?? matchLanguage(request.headers['accept-language']);
}

const keptLanguage = new RegExp(`(?:^|;\\s*)${languageCookie}=([^;]*)`);

/**
 * The visitor's language read from the request's headers alone, its cookie then its
 * `Accept-Language`, else English: for a page answered before any scope has @fastify/cookie
 * (the root's 404 and 400, an unreachable database's page, an error past the session), so
 * nothing is set on the answer.
 */
export function headerLanguage(request: FastifyRequest): Language {
  const kept = keptLanguage.exec(request.headers.cookie ?? '')?.[1];
  return (
    (kept ? parseLanguage(kept) : null) ??
    matchLanguage(request.headers['accept-language']) ??
    defaultLanguage
  );
}

/** The translator of `visitorLanguage`. */
export function visitorTranslator(
  request: FastifyRequest,
  reply: FastifyReply,
  fallback?: Language,
): Translator {
  return pageTranslator(visitorLanguage(request, reply, fallback));
}

/**
 * The language switch: a GET form to the page itself (`path`, without its query), each
 * language named in itself; its button for the visitor's current language's readers.
 */
export function languageSwitch(tr: Translator, path: string): SafeHtml {
  return html`<form class="language-switch" method="get" action="${path}">
<label for="lang">${tr.t('sign.language')}</label>
<select id="lang" name="lang">${languages.map(
    (language) =>
      html`<option value="${language}" lang="${language}"${language === tr.language ? raw(' selected') : ''}>${endonym(language)}</option>`,
  )}</select>
<button class="button button-secondary" type="submit">${tr.t('sign.languageChange')}</button>
</form>`;
}
