// **The** rule for control characters in what a request carries (issue 49): PostgreSQL text
// cannot hold U+0000 (`invalid byte sequence … 0x00`, which used to surface as a 500), and no
// field of Signet needs any other C0 control character; a lone UTF-16 surrogate (JSON can
// carry one, `"\ud800"`) cannot be encoded as UTF-8 at all and would be stored as U+FFFD, so
// the text kept would not be the text sent. Tab, line feed and carriage return are text (a
// message, a reason, a CSV cell). Each surface applies it once: /v1 in one preHandler
// (`api/api.ts`: 400 `invalid-id`, `invalid-query` or `invalid-body` with its pointer), the
// pages in one onRequest hook (`app.ts`: a 404 or 400 page) and their form parser
// (`ui/forms.ts`, `ui/uploads.ts`: such characters removed, as U+0000 always was).
import { pointerToken } from './error-handler.ts';

/** A C0 control character other than tab, line feed and carriage return. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
const controlPattern = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
/** Any C0 control character: none belongs in a path segment or a query value. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
const anyControlPattern = /[\u0000-\u001f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
const controlPatternGlobal = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;

/** Whether `text` has a character no text field may hold: a control character (tab and line breaks aside) or a lone surrogate. */
export function isUnstorableText(text: string): boolean {
  return controlPattern.test(text) || !text.isWellFormed();
}

/** Whether a path segment or a query value holds a control character (any, tab included) or a lone surrogate. */
export function isUnfitForAddress(text: string): boolean {
  return anyControlPattern.test(text) || !text.isWellFormed();
}

/** `text` without the control characters no field may hold, lone surrogates made U+FFFD (a form's reading). */
export function withoutControlCharacters(text: string): string {
  return text.replace(controlPatternGlobal, '').toWellFormed();
}

/**
 * The JSON Pointer (RFC 6901) of the first string in `value` (a member's name included)
 * that `isUnstorableText` refuses, or null when there is none. `''` is the value itself.
 */
export function unstorableTextAt(value: unknown, pointer = ''): string | null {
  if (typeof value === 'string') return isUnstorableText(value) ? pointer : null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = unstorableTextAt(item, `${pointer}/${index}`);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    for (const [name, item] of Object.entries(value)) {
      const at = `${pointer}/${pointerToken(name)}`;
      if (isUnstorableText(name)) return at;
      const found = unstorableTextAt(item, at);
      if (found !== null) return found;
    }
  }
  return null;
}

/** Whether any value of a parsed query or of path parameters is unfit for an address. */
export function hasUnfitValue(values: unknown): boolean {
  if (values === null || typeof values !== 'object') return false;
  for (const [name, value] of Object.entries(values)) {
    if (isUnfitForAddress(name)) return true;
    for (const one of [value].flat()) if (typeof one === 'string' && isUnfitForAddress(one)) return true;
  }
  return false;
}

/**
 * A route's own refusal of a body member with a control character, where the spec names one
 * for that member (a webhook `url` that holds one is no valid URL: `invalid-url`). Set as the
 * route's `config.controlCharacterCodes`, keyed by JSON Pointer; every other member is
 * `invalid-body` at its pointer.
 */
export interface ControlCharacterConfig {
  controlCharacterCodes?: Record<string, 'invalid-url'>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    controlCharacterCodes?: Record<string, 'invalid-url'>;
  }
}
