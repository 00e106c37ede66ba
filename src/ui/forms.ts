// Forms, the same way on every HTML page (`/` and `/sign`):
// - One body parser: application/x-www-form-urlencoded only (anything else is 415, so a
//   cross-site text/plain or JSON post never reaches a handler), control characters removed
//   (http/control-characters.ts: PostgreSQL text cannot hold U+0000 and no form field needs
//   any but tab and line breaks), a repeated field kept as a list.
// - Reading fields: `formText` (one value, '' when absent or repeated), `formList`.
// - Showing input errors (InputError's sentences) next to their fields, and notices.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { withoutControlCharacters } from '../http/control-characters.ts';
import type { Translator } from '../i18n/messages.ts';
import type { FieldErrors } from '../input-error.ts';
import { html, type SafeHtml } from './html.ts';
import { richText } from './rich-text.ts';

export type Form = Record<string, string | string[] | undefined>;

export function parseForm(body: string): Form {
  // No prototype: a field named `__proto__` or `constructor` is a field like any other.
  const form: Form = Object.create(null);
  for (const [rawName, raw] of new URLSearchParams(body)) {
    const name = withoutControlCharacters(rawName);
    const value = withoutControlCharacters(raw);
    const previous = form[name];
    form[name] =
      previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  return form;
}

/**
 * Makes the scope read HTML forms and nothing else, up to `bodyLimit` bytes. Any other
 * body is read to its end and refused with 415: answering before it is read would leave
 * its bytes on a kept-alive connection, where they would be taken for the next request.
 */
export function useFormBodies(app: FastifyInstance, bodyLimit: number): void {
  // The error page names the limit of the scope that refused a body (a nested scope's wins).
  app.addHook('onRequest', async (request) => {
    formLimits.set(request, bodyLimit);
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit },
    (_request, body, done) => done(null, parseForm(body as string)),
  );
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, _body, done) =>
    done(Object.assign(new Error('only HTML forms are read here'), { statusCode: 415 }), undefined),
  );
}

const formLimits = new WeakMap<FastifyRequest, number>();

/** How large a form the request's scope reads (useFormBodies), for the page that refuses one. */
export function formLimitOf(request: FastifyRequest): number | undefined {
  return formLimits.get(request);
}

/**
 * A form field as text; '' when it is absent or repeated (the forms this site renders send
 * each such field once, and a repeated one arrives as a list).
 */
export function formText(form: unknown, name: string): string {
  const value = (form as Form | null | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** A field that may be sent several times (checkboxes), as a list. */
export function formList(form: unknown, name: string): string[] {
  const value = (form as Form | null | undefined)?.[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** A hidden field carrying the form's CSRF token. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

/** The sentence of `errors[field]` right after its input, tied to it by `invalidAttrs`. */
export function fieldError(id: string, message: string | undefined): SafeHtml {
  return message ? html`<span class="field-error" id="${id}-error">${message}</span>` : html``;
}

/** aria attributes that tie an input to its error message. */
export function invalidAttrs(id: string, message: string | undefined): SafeHtml {
  return message ? html`aria-invalid="true" aria-describedby="${id}-error"` : html``;
}

/**
 * Every refusal of a form at the top of it, each a link to its field (`#id`; a section's own
 * sentence links to `anchors[key]`), so a long form's problems are found without scrolling.
 */
export function errorSummary(
  errors: FieldErrors,
  anchors: Record<string, string>,
  tr: Translator,
): SafeHtml | null {
  const entries = Object.entries(errors);
  if (entries.length === 0) return null;
  return notice(
    'error',
    html`<p>${richText(tr, 'form.toFix', { count: entries.length })}</p>
<ul class="error-list">${entries.map(([key, sentence]) => html`<li><a href="#${anchors[key] ?? key}">${sentence}</a></li>`)}</ul>`,
  );
}

export function notice(kind: 'success' | 'error' | 'info', text: string | SafeHtml): SafeHtml {
  return html`<div class="notice notice-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</div>`;
}
