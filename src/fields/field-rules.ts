// **The** rules of fields (issue 24), shared by the CLI's JSON, the web editor and signing:
// what a field is, where it may be placed, and what filling it takes. What differs between
// types (which are filled by the service, what a value must be) is field-types.ts's table;
// these rules look it up.
// - Placing: a field belongs to one signer of the document, lies wholly on an existing page
//   of the original PDF (its displayed size: src/pdf/fields.ts defines the coordinates), is
//   at least `minSide` points on each side, and has a label of at most 100 characters; a
//   text field may cap its length. Refusals name the field ("Field 3: …") in one sentence
//   per problem, under the form's `fields` entry, and nothing is stored. The sender may give
//   a text or checkbox field its value (`value`): the field is then prefilled, and its
//   signer sees it filled and cannot change it. A field may not overlap what the upload's
//   own form fields draw (the page's `covered` rectangles, pdf/one-look.ts): readers draw
//   them over the page, and so over the signer's value and signature.
// - Filling: the service fills a field's value where it knows it (the date of signing, the
//   signer's name and email, their adopted signature); the signer fills initials, text and
//   checkboxes. A required field left empty, or a value that breaks its rule, refuses the
//   signature with a sentence on that field's input (`field.<id>`).
import type { PageSize } from '../db/schema.ts';
import { InputError, type InputErrorDetails } from '../input-error.ts';
import { drawableText, drawingProblem } from '../pdf/fonts.ts';
import { type FieldType, fieldTypeSpecs, fieldTypes, isFieldType, maxTextLength } from './field-types.ts';
import type { FieldPlacement } from './fields.schemas.ts';

/** The smallest side of a field, in points (a little over 2 mm): anything smaller is a slip. */
const minSide = 6;
export const maxLabelLength = 100;
const maxFields = 200;

/**
 * A field as the sender describes it: the CLI's JSON and the editor's form alike. Its
 * placement is the API's (fields.schemas.ts); the sender also names the signer by email
 * and may cap a text field's length.
 */
export type FieldInput = FieldPlacement & {
  recipient: string;
  maxLength: number | null;
  /** The sender's value (a text field's text, a checkbox's true or false), or null for none. */
  value: string | boolean | null;
};

/** A field checked against its document: the recipient resolved to their id, a sender's value as stored. */
export interface PlacedField extends Omit<FieldInput, 'recipient' | 'value'> {
  recipientId: string;
  /** Given by the sender (`value` holds it, null for an unticked checkbox). */
  prefilled: boolean;
  value: string | null;
}

interface FieldRecipient {
  id: string;
  email: string;
  role: 'signer' | 'viewer';
}

/** What fields are placed on: its recipients (a template's roles, named in `email`) and pages. */
interface FieldsDocument {
  recipients: FieldRecipient[];
  pages: PageSize[] | null;
  /** What a field's `recipient` must be, in a refusal ("a role of this template"); a recipient of the document by default. */
  who?: string;
}

const round = (n: number) => Math.round(n * 100) / 100;
const points = (n: number) => `${round(n)}`;

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * One field from untrusted JSON (`{recipient, type, page, x, y, width, height, required,
 * label, maxLength}`), or the sentence that says what is wrong with it. Numbers may come as
 * numeric strings (a form's values).
 */
export function readFieldInput(raw: unknown): FieldInput | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return 'must be an object with recipient, type, page, x, y, width and height.';
  const o = raw as Record<string, unknown>;
  const number = (key: string) => {
    const value = typeof o[key] === 'string' && o[key] !== '' ? Number(o[key]) : o[key];
    return isNumber(value) ? value : undefined;
  };
  if (typeof o.recipient !== 'string' || !o.recipient.trim()) return 'recipient must be an email address.';
  if (!isFieldType(o.type)) return `type must be one of ${fieldTypes.join(', ')}.`;
  const [page, x, y, width, height] = ['page', 'x', 'y', 'width', 'height'].map(number);
  if (page === undefined || !Number.isInteger(page) || page < 1)
    return 'page must be a page number (1, 2, …).';
  if (x === undefined || y === undefined || width === undefined || height === undefined)
    return 'x, y, width and height must be numbers (points).';
  const required = o.required ?? true;
  if (typeof required !== 'boolean' && required !== 'yes' && required !== 'no')
    return 'required must be true or false.';
  if (o.label !== undefined && o.label !== null && typeof o.label !== 'string') return 'label must be text.';
  const labelProblem = typeof o.label === 'string' ? drawingProblem('The label', o.label) : null;
  if (labelProblem) return labelProblem;
  const maxLength =
    o.maxLength === undefined || o.maxLength === null || o.maxLength === '' ? null : number('maxLength');
  if (maxLength === undefined) return 'maxLength must be a whole number.';
  const value = o.value ?? null;
  if (value !== null && typeof value !== 'string' && typeof value !== 'boolean')
    return 'value must be text, true or false.';
  return {
    recipient: o.recipient.trim(),
    type: o.type,
    page,
    x,
    y,
    width,
    height,
    required: required === true || required === 'yes',
    label: typeof o.label === 'string' && o.label.trim() ? drawableText(o.label.trim()) : null,
    maxLength,
    value,
  };
}

/** The stored form of a sender's value (field-types.ts `senderValue`), or the sentence refusing it. */
function senderValueOf(field: FieldInput): { value: string | null } | string {
  if (field.value === null) return { value: null };
  const rule = fieldTypeSpecs[field.type].senderValue;
  if (!rule) {
    const takers = fieldTypes.filter((type) => fieldTypeSpecs[type].senderValue).join(' and ');
    return `a ${field.type} field is filled by its signer or by Signet; only ${takers} fields take a value from the sender.`;
  }
  const filled = rule(field.value, {
    name: 'its value',
    required: field.required,
    maxLength: field.maxLength,
  });
  return filled.problem ?? { value: filled.value };
}

type Area = { x: number; y: number; width: number; height: number };

// Whether two rectangles share some area (touching edges do not count).
function overlaps(a: Area, b: Area): boolean {
  const tolerance = 0.01;
  return (
    Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x) > tolerance &&
    Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y) > tolerance
  );
}

/** Why a read field cannot go on this document, or null when it can. */
function problemOf(
  field: FieldInput,
  document: FieldsDocument,
  sameEmail: (a: string, b: string) => boolean,
): string | null {
  const pages = document.pages ?? [];
  const recipient = document.recipients.find((r) => sameEmail(r.email, field.recipient));
  if (!recipient) return `${field.recipient} is not ${document.who ?? 'a recipient of this document'}.`;
  if (recipient.role !== 'signer') return `${recipient.email} is a viewer; only signers fill fields.`;
  const size = pages[field.page - 1];
  if (!size)
    return `page ${field.page} does not exist: the PDF has ${pages.length} ${pages.length === 1 ? 'page' : 'pages'}.`;
  if (field.width < minSide || field.height < minSide)
    return `it is ${points(field.width)} × ${points(field.height)} points; a field is at least ${minSide} × ${minSide}.`;
  const off =
    field.x < 0 ||
    field.y < 0 ||
    field.x + field.width > size.width + 0.01 ||
    field.y + field.height > size.height + 0.01;
  if (off)
    return `it lies off page ${field.page}, which is ${points(size.width)} × ${points(size.height)} points: the field must fit within x 0–${points(size.width)} and y 0–${points(size.height)}.`;
  const under = size.covered?.find((area) => overlaps(field, area));
  if (under)
    return `this spot is under a form field or annotation of the PDF (x ${points(under.x)}–${points(under.x + under.width)}, y ${points(under.y)}–${points(under.y + under.height)}), which would cover what the signer enters; move the field.`;
  if (field.label && field.label.length > maxLabelLength)
    return `its label is over ${maxLabelLength} characters.`;
  if (field.maxLength !== null) {
    if (!fieldTypeSpecs[field.type].hasMaxLength) return 'only a text field takes maxLength.';
    if (!Number.isInteger(field.maxLength) || field.maxLength < 1 || field.maxLength > maxTextLength)
      return `maxLength must be a whole number from 1 to ${maxTextLength}.`;
  }
  return null;
}

/**
 * The fields checked against the document's recipients and pages, or an InputError on
 * `fields` with a sentence per bad field (the first five).
 */
export function checkFields(
  raw: unknown[],
  document: FieldsDocument,
  sameEmail: (a: string, b: string) => boolean,
): PlacedField[] {
  if (raw.length > 0 && !document.pages)
    throw new InputError({ fields: 'Fields go on the pages of an uploaded PDF; this document has none.' });
  if (raw.length > maxFields) throw new InputError({ fields: `A document has at most ${maxFields} fields.` });
  const problems: string[] = [];
  let first: string | null = null;
  const placed: PlacedField[] = [];
  for (const [i, item] of raw.entries()) {
    const read = readFieldInput(item);
    const problem = typeof read === 'string' ? read : problemOf(read, document, sameEmail);
    if (problem) {
      problems.push(`Field ${i + 1}: ${problem}`);
      first ??= `/fields/${i}`;
      continue;
    }
    const field = read as FieldInput;
    const given = senderValueOf(field);
    if (typeof given === 'string') {
      problems.push(`Field ${i + 1}: ${given}`);
      first ??= `/fields/${i}/value`;
      continue;
    }
    const recipient = document.recipients.find((r) => sameEmail(r.email, field.recipient)) as FieldRecipient;
    const { recipient: _email, value: _value, ...rest } = field;
    placed.push({ ...rest, recipientId: recipient.id, prefilled: field.value !== null, value: given.value });
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 5);
    if (problems.length > 5) shown.push(`… and ${problems.length - 5} more.`);
    throw new InputError({ fields: shown.join(' ') }, { pointers: { fields: first as string } });
  }
  return placed;
}

/** Whether the signer fills the field (else the service fills it when they sign). */
export function needsInput(type: FieldType): boolean {
  return fieldTypeSpecs[type].input.by === 'signer';
}

/** A field as filling it needs. */
export type FillableField = Pick<FieldInput, 'type' | 'required' | 'label' | 'maxLength' | 'page'> & {
  id: string;
};

/** "Text “Company” on page 2": how a field is named in a sentence. */
export function describeField(field: Pick<FillableField, 'type' | 'label' | 'page'>): string {
  const name = fieldTypeSpecs[field.type].label;
  return `${field.label ? `${name} “${field.label}”` : name} on page ${field.page}`;
}

/**
 * The values a signer's input gives their fields (`field.<id>` → text), checked by each
 * type's rule (field-types.ts): returns each field's value to store, or throws an
 * InputError with a sentence per bad field. `service` holds the values the service fills
 * (name, email, date); a signature has none.
 */
export function fillFields(
  fields: FillableField[],
  input: Record<string, string | undefined>,
  service: { name: string; email: string; date: string },
): Map<string, string | null> {
  const values = new Map<string, string | null>();
  const errors: Record<string, string> = {};
  const messages: NonNullable<InputErrorDetails['messages']> = {};
  for (const field of fields) {
    const raw = (input[field.id] ?? '').trim();
    const { value, problem, message } = fieldTypeSpecs[field.type].fill(
      raw,
      { name: describeField(field), required: field.required, maxLength: field.maxLength },
      service,
    );
    if (problem) errors[`field.${field.id}`] = problem;
    if (problem && message)
      messages[`field.${field.id}`] = {
        ...message,
        field: { type: field.type, label: field.label ?? null, page: field.page },
      };
    values.set(field.id, value);
  }
  if (Object.keys(errors).length > 0) throw new InputError(errors, { messages });
  return values;
}
