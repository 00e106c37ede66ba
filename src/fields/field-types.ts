// **The** field types (issue 35): the list, and for each type everything that differs
// between types, in one record the compiler checks is complete. A type added to
// `fieldTypes` does not compile until it says how it is named, how it is filled on the
// signing page, how its value is checked, how it is drawn on the sealed PDF, and how it
// reads in the certificate and the API. Nothing elsewhere branches on a field's type: it
// looks the type up here (field-rules.ts for placing and filling, signing/signing-view.ts
// for the page, sealing/sealing.service.ts for the drawing and the certificate,
// documents/documents.schemas.ts for the API's wording).
//
// The page without JavaScript is the contract: each input the signer fills is a plain
// form control (`control`), posted as `field.<id>`. sign.js needs nothing per type: its
// guide reads a checkbox's `checked` and any other control's value from the page itself.
import type { MessageKey, MessageValues, Translator } from '../i18n/messages.ts';
import type { StampContent } from '../pdf/fields.ts';
import { drawableText, drawingProblem, undrawableValues } from '../pdf/fonts.ts';

export const fieldTypes = ['signature', 'initials', 'date', 'name', 'email', 'text', 'checkbox'] as const;
export type FieldType = (typeof fieldTypes)[number];

export function isFieldType(value: unknown): value is FieldType {
  return fieldTypes.includes(value as FieldType);
}

/** The longest value of a text field without its own maxLength. */
export const maxTextLength = 500;
/** Initials are a few letters; room for a hyphenated or doubled name's. */
export const maxInitialsLength = 12;

/** What the service knows of a signer when their fields are filled (fillFields). */
export interface Signer {
  name: string;
  email: string;
  /** The date of signing, as a date field shows it (YYYY-MM-DD, UTC). */
  date: string;
}

/** A signer's adopted signature, as the sealed PDF and the certificate show it. */
export type AdoptedSignature = { kind: 'typed'; name: string } | { kind: 'drawn'; png: Uint8Array };

/** A field being filled: its sentence name ("Text “Company” on page 2"), and the sender's settings. */
export interface FieldToFill {
  name: string;
  required: boolean;
  maxLength: number | null;
}

/** A value to store, or the sentence that refuses the signature on the field's input. */
/**
 * A value as a type's rule takes it, or its problem: the English sentence (the API's), and
 * the same as a key of the catalogues, `{field}` the field (a page in another language).
 */
export type Filled =
  | { value: string | null; problem: null }
  | { value: string | null; problem: string; message: { key: MessageKey; values?: MessageValues } };

/** The form control a signer fills on the signing page (the server renders it; sign.js reads it). */
export type FieldControl = 'text' | 'checkbox';

export type FieldInputSpec =
  /** Filled by the service when the signer signs: the page lists it with `filledWith`. */
  | { by: 'service'; filledWith: string }
  | {
      by: 'signer';
      control: 'text';
      /** The input's maxlength attribute, null for none. */
      maxLength: (sendersMaxLength: number | null) => number | null;
      /** What the input holds before the signer types. */
      prefill: (fullName: string) => string;
    }
  | { by: 'signer'; control: 'checkbox' };

export interface FieldTypeSpec {
  /** How the type is named to people: the pages, the editor, refusals and the certificate. */
  label: string;
  /** How the type reads in the API's description of `type`. */
  api: string;
  /** Whether the sender may cap its length (`maxLength`). */
  hasMaxLength: boolean;
  /** Its input on the signing page. */
  input: FieldInputSpec;
  /** The value stored for what the signer entered (`raw`, trimmed), checked. */
  fill: (raw: string, field: FieldToFill, signer: Signer) => Filled;
  /**
   * The value stored for one the sender gives when the document is made (the API's and a
   * template's `value`), checked; null for a type only its signer or Signet fills.
   */
  senderValue: ((raw: string | boolean, field: FieldToFill) => Filled) | null;
  /** What the sealed PDF shows in its rectangle (a primitive of pdf/fields.ts), or null for nothing. */
  draw: (value: string | null, signature: AdoptedSignature) => StampContent | null;
  /** The value as the certificate (and the signing page's list) reads it in `tr`'s language after the type's label, or null for none. */
  certificateValue: (value: string | null, tr: Translator) => string | null;
  /** The filled value as the API's document detail reads it (`value`): text, a checkbox's boolean, or null. */
  apiValue: (value: string | null) => string | boolean | null;
}

/** "ZŁ" for "Zoë Łukasiewicz": the first letter of each name, upper-cased, at most four. */
export function initialsOf(fullName: string): string {
  return fullName
    .trim()
    .split(/[\s-]+/)
    .filter(Boolean)
    .map((part) => [...part][0]?.toLocaleUpperCase() ?? '')
    .join('')
    .slice(0, 4);
}

const filledWith = (value: string | null): Filled => ({ value, problem: null });

/** Typed text: required, at most `limit` characters, and drawable. */
function typed(raw: string, field: FieldToFill, limit: number): Filled {
  const value = drawableText(raw);
  const drawing = drawingProblem(field.name, value);
  if (field.required && !value)
    return { value: null, problem: `Fill in ${field.name}.`, message: { key: 'field.problem.fillIn' } };
  if ([...value].length > limit)
    return {
      value,
      problem: `${field.name} takes at most ${limit} characters.`,
      message: { key: 'field.problem.tooLong', values: { limit } },
    };
  if (!drawing) return filledWith(value || null);
  // The rule's values, said of the field (`{field}`) rather than of a named text.
  const values = undrawableValues(value) ?? {};
  return { value: value || null, problem: drawing, message: { key: 'editor.problem.undrawable', values } };
}

const plainText = (value: string | null): StampContent | null =>
  value ? { kind: 'text', text: value, style: 'text' } : null;
const asIs = (value: string | null) => value;
const none = () => null;

/** A type Signet fills when the signer signs, from what it knows of them, drawn as plain text. */
function filledAtSigning(label: string, api: string, sentence: string, from: keyof Signer): FieldTypeSpec {
  return {
    label,
    api,
    hasMaxLength: false,
    input: { by: 'service', filledWith: sentence },
    fill: (_raw, _field, signer) => filledWith(signer[from]),
    senderValue: null,
    draw: plainText,
    certificateValue: asIs,
    apiValue: asIs,
  };
}

export const fieldTypeSpecs: Record<FieldType, FieldTypeSpec> = {
  signature: {
    label: 'Signature',
    api: 'signature',
    hasMaxLength: false,
    input: { by: 'service', filledWith: 'your signature, as you adopt it below' },
    fill: () => filledWith(null),
    senderValue: null,
    draw: (_value, signature) =>
      signature.kind === 'drawn'
        ? { kind: 'image', png: signature.png }
        : { kind: 'text', text: signature.name, style: 'handwriting' },
    certificateValue: none,
    // Signed and when (the field's filledAt), never the image: that is in the sealed PDF.
    apiValue: () => null,
  },
  initials: {
    label: 'Initials',
    api: 'initials',
    hasMaxLength: false,
    input: { by: 'signer', control: 'text', maxLength: () => maxInitialsLength, prefill: initialsOf },
    fill: (raw, field) => typed(raw, field, maxInitialsLength),
    senderValue: null,
    draw: (value) => (value ? { kind: 'text', text: value, style: 'handwriting' } : null),
    certificateValue: asIs,
    apiValue: asIs,
  },
  date: filledAtSigning(
    'Date signed',
    'date (the date signed, filled by Signet)',
    "today's date (UTC), when you sign",
    'date',
  ),
  name: filledAtSigning('Full name', 'name', 'your full name', 'name'),
  email: filledAtSigning('Email', 'email', 'your email address', 'email'),
  text: {
    label: 'Text',
    api: 'text',
    hasMaxLength: true,
    input: {
      by: 'signer',
      control: 'text',
      maxLength: (sendersMaxLength) => sendersMaxLength,
      prefill: () => '',
    },
    fill: (raw, field) => typed(raw, field, field.maxLength ?? maxTextLength),
    senderValue: (raw, field) =>
      typeof raw === 'string'
        ? typed(raw.trim(), field, field.maxLength ?? maxTextLength)
        : {
            value: null,
            problem: `${field.name} takes text as its value.`,
            message: { key: 'editor.problem.takesText' },
          },
    draw: plainText,
    certificateValue: asIs,
    apiValue: asIs,
  },
  checkbox: {
    label: 'Checkbox',
    api: 'checkbox',
    hasMaxLength: false,
    input: { by: 'signer', control: 'checkbox' },
    fill: (raw, field) =>
      field.required && raw !== 'yes'
        ? { value: null, problem: `Tick ${field.name}.`, message: { key: 'field.problem.tick' } }
        : filledWith(raw === 'yes' ? 'yes' : null),
    senderValue: (raw, field) =>
      typeof raw === 'boolean'
        ? { value: raw ? 'yes' : null, problem: null }
        : {
            value: null,
            problem: `${field.name} takes true or false as its value.`,
            message: { key: 'editor.problem.takesTrueFalse' },
          },
    draw: (value) => (value === 'yes' ? { kind: 'check' } : null),
    certificateValue: (value, tr) => tr.t(value === 'yes' ? 'certificate.checked' : 'certificate.notChecked'),
    apiValue: (value) => value === 'yes',
  },
};

/** "signature, initials, …, text or checkbox": the API's description of a field's `type`. */
export const fieldTypesInApi = ((words: string[]) => `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`)(
  fieldTypes.map((type) => fieldTypeSpecs[type].api),
);
