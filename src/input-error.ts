// **The** shape of bad input, wherever a rule refuses it: a sentence per form field, keyed by
// the field's name, raised by the service that owns the rule. Pages show each sentence next
// to its field (ui/forms.ts), the CLI prints them as one line, the API answers a code and a
// JSON Pointer (sending/api-input.ts reads the key, or `pointers` where the key alone does not
// say, such as which of the fields). So a rule lives in one service, and the pages, the CLI
// and the API cannot disagree.
import type { KeyedSentence } from './i18n/messages.ts';

export type FieldErrors = Record<string, string>;

export interface InputErrorDetails {
  /** Where in a JSON body a problem lies when its key does not say it all (`fields` → `/fields/3`). */
  pointers?: Record<string, string>;
  /** The problem is the workspace's allowance (today's uploads) running out, not the input; it starts again then. */
  overAllowance?: { retryAfterSeconds: number };
  /**
   * A field's sentence as a key of the catalogues (i18n/), for a page in another language
   * than the English of `fields` (the signing page); a field without one shows `fields`'s.
   */
  messages?: Record<
    string,
    KeyedSentence & {
      /** The field the sentence names as `{field}`, described in the page's language. */
      field?: { type: string; label: string | null; page: number };
    }
  >;
}

export class InputError extends Error {
  readonly fields: FieldErrors;
  readonly details: InputErrorDetails;
  constructor(fields: FieldErrors, details: InputErrorDetails = {}) {
    super(Object.values(fields).join(' '));
    // Names the fields, so a log line or a stack says at once which input was refused.
    this.name = `InputError(${Object.keys(fields).join(', ')})`;
    this.fields = fields;
    this.details = details;
  }
}
