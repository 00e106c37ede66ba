// **The** shape of bad input, wherever a rule refuses it: a sentence per form field, keyed by
// the field's name, raised by the service that owns the rule. Pages show each sentence next
// to its field (ui/forms.ts), the CLI prints them as one line, the API keeps its own codes.
// So a rule lives in one service, and the pages, the CLI and the API cannot disagree.
export type FieldErrors = Record<string, string>;

export class InputError extends Error {
  readonly fields: FieldErrors;
  constructor(fields: FieldErrors) {
    super(Object.values(fields).join(' '));
    // Names the fields, so a log line or a stack says at once which input was refused.
    this.name = `InputError(${Object.keys(fields).join(', ')})`;
    this.fields = fields;
  }
}
