// **The** rules of fields (issue 24), shared by the CLI's JSON, the web editor and signing:
// what a field is, where it may be placed, and what filling it takes. What differs between
// types (which are filled by the service, what a value must be) is field-types.ts's table;
// these rules look it up.
// - Placing: a field belongs to one signer of the document, lies wholly on an existing page
//   of the original PDF (its displayed size: src/pdf/fields.ts defines the coordinates), is
//   at least `minSide` points on each side, and has a label of at most 100 characters; a
//   text field may cap its length. Refusals name the field ("Field 3: …") in one sentence
//   per problem, under the form's `fields` entry, and nothing is stored; each sentence is a
//   key of the catalogues (editor.problem.*), so the editor says it in its member's language
//   while the API and the CLI keep the English. The sender may give
//   a text or checkbox field its value (`value`): the field is then prefilled, and its
//   signer sees it filled and cannot change it. A field may not overlap what the upload's
//   own form fields draw (the page's `covered` rectangles, pdf/one-look.ts): readers draw
//   them over the page, and so over the signer's value and signature.
// - Filling: the service fills a field's value where it knows it (the date of signing, the
//   signer's name and email, their adopted signature); the signer fills initials, text and
//   checkboxes. A required field left empty, or a value that breaks its rule, refuses the
//   signature with a sentence on that field's input (`field.<id>`).
import type { PageSize } from '../db/schema.ts';
import type { KeyedSentence } from '../i18n/messages.ts';
import { inEnglish, refusalOf } from '../i18n/refusals.ts';
import { InputError, type InputErrorDetails } from '../input-error.ts';
import { drawableText, drawingRefusal } from '../pdf/fonts.ts';
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
  /** What a field's `recipient` must be, in a refusal: a role of a template, else a recipient of the document. */
  of?: 'document' | 'template';
}

/** Points as a refusal shows them: to the hundredth (the catalogues print them without grouping). */
const points = (n: number) => Math.round(n * 100) / 100;

/** A field's type as a word of a sentence ("a signature field"): the API's name, in the reader's language. */
export const typeWord = (type: FieldType): KeyedSentence => ({ key: `editor.typeWord.${type}` });

/** The types whose value the sender (or whoever uses a template) may give: "text and checkbox". */
export const valueTakers = (): KeyedSentence[] =>
  fieldTypes.filter((type) => fieldTypeSpecs[type].senderValue).map(typeWord);

/** "Field 3: …": a problem of one field, numbered as the fields are (from 1). */
export function numberedProblem(index: number, problem: KeyedSentence): KeyedSentence {
  return { key: 'editor.problem.field', values: { n: index + 1 }, parts: { problem } };
}

/** One field's problem as the refusal of the `fields` input (the editor's change of one field). */
export function fieldRefusal(index: number, problem: KeyedSentence): InputError {
  return refusalOf({ fields: numberedProblem(index, problem) });
}

/** Several problems as one sentence of the `fields` input: each said after the one before. */
export function fieldsProblem(problems: KeyedSentence[]): KeyedSentence {
  const [first, ...rest] = problems as [KeyedSentence, ...KeyedSentence[]];
  return rest.length > 0 ? { ...first, and: [...(first.and ?? []), ...rest] } : first;
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * One field from untrusted JSON (`{recipient, type, page, x, y, width, height, required,
 * label, maxLength}`), or the sentence that says what is wrong with it. Numbers may come as
 * numeric strings (a form's values).
 */
export function readField(raw: unknown): { field: FieldInput } | { problem: KeyedSentence } {
  const problem = (key: KeyedSentence['key'], values?: KeyedSentence['values']) => ({
    problem: values ? { key, values } : { key },
  });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return problem('editor.problem.notObject');
  const o = raw as Record<string, unknown>;
  const number = (key: string) => {
    const value = typeof o[key] === 'string' && o[key] !== '' ? Number(o[key]) : o[key];
    return isNumber(value) ? value : undefined;
  };
  if (typeof o.recipient !== 'string' || !o.recipient.trim()) return problem('editor.problem.recipient');
  if (!isFieldType(o.type)) return problem('editor.problem.type', { types: fieldTypes.join(', ') });
  const [page, x, y, width, height] = ['page', 'x', 'y', 'width', 'height'].map(number);
  if (page === undefined || !Number.isInteger(page) || page < 1) return problem('editor.problem.page');
  if (x === undefined || y === undefined || width === undefined || height === undefined)
    return problem('editor.problem.numbers');
  const required = o.required ?? true;
  if (typeof required !== 'boolean' && required !== 'yes' && required !== 'no')
    return problem('editor.problem.required');
  if (o.label !== undefined && o.label !== null && typeof o.label !== 'string')
    return problem('editor.problem.labelText');
  const labelProblem = typeof o.label === 'string' ? drawingRefusal('label', o.label) : null;
  if (labelProblem) return { problem: labelProblem };
  const maxLength =
    o.maxLength === undefined || o.maxLength === null || o.maxLength === '' ? null : number('maxLength');
  if (maxLength === undefined) return problem('editor.problem.maxLengthNumber');
  const value = o.value ?? null;
  if (value !== null && typeof value !== 'string' && typeof value !== 'boolean')
    return problem('editor.problem.valueKind');
  return {
    field: {
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
    },
  };
}

/** readField with its problem in English (the CLI's and the API's sentence). */
export function readFieldInput(raw: unknown): FieldInput | string {
  const read = readField(raw);
  return 'problem' in read ? inEnglish(read.problem) : read.field;
}

/** The stored form of a sender's value (field-types.ts `senderValue`), or the sentence refusing it. */
function senderValueOf(field: FieldInput): { value: string | null } | { problem: KeyedSentence } {
  if (field.value === null) return { value: null };
  const rule = fieldTypeSpecs[field.type].senderValue;
  if (!rule)
    return {
      problem: {
        key: 'editor.problem.notSenderValue',
        parts: { type: typeWord(field.type) },
        lists: { takers: valueTakers() },
      },
    };
  const filled = rule(field.value, {
    name: 'its value',
    required: field.required,
    maxLength: field.maxLength,
  });
  if (filled.problem === null) return { value: filled.value };
  // The type's rule names the field as `{field}`: here, "its value".
  return { problem: { ...filled.message, parts: { field: { key: 'editor.problem.itsValue' } } } };
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
): KeyedSentence | null {
  const pages = document.pages ?? [];
  const recipient = document.recipients.find((r) => sameEmail(r.email, field.recipient));
  if (!recipient)
    return {
      key: document.of === 'template' ? 'editor.problem.notRole' : 'editor.problem.notRecipient',
      values: { recipient: field.recipient },
    };
  if (recipient.role !== 'signer')
    return { key: 'editor.problem.viewer', values: { email: recipient.email } };
  const size = pages[field.page - 1];
  if (!size) return { key: 'editor.problem.noPage', values: { page: field.page, pages: pages.length } };
  if (field.width < minSide || field.height < minSide)
    return {
      key: 'editor.problem.tooSmall',
      values: { width: points(field.width), height: points(field.height), min: minSide },
    };
  const off =
    field.x < 0 ||
    field.y < 0 ||
    field.x + field.width > size.width + 0.01 ||
    field.y + field.height > size.height + 0.01;
  if (off)
    return {
      key: 'editor.problem.offPage',
      values: { page: field.page, width: points(size.width), height: points(size.height) },
    };
  const under = size.covered?.find((area) => overlaps(field, area));
  if (under)
    return {
      key: 'editor.problem.covered',
      values: {
        left: points(under.x),
        right: points(under.x + under.width),
        bottom: points(under.y),
        top: points(under.y + under.height),
      },
    };
  if (field.label && field.label.length > maxLabelLength)
    return { key: 'editor.problem.labelTooLong', values: { max: maxLabelLength } };
  if (field.maxLength !== null) {
    if (!fieldTypeSpecs[field.type].hasMaxLength) return { key: 'editor.problem.maxLengthText' };
    if (!Number.isInteger(field.maxLength) || field.maxLength < 1 || field.maxLength > maxTextLength)
      return { key: 'editor.problem.maxLengthRange', values: { max: maxTextLength } };
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
  if (raw.length > 0 && !document.pages) throw refusalOf({ fields: { key: 'editor.problem.noPdf' } });
  if (raw.length > maxFields)
    throw refusalOf({ fields: { key: 'editor.problem.tooMany', values: { max: maxFields } } });
  const problems: KeyedSentence[] = [];
  const pointers: string[] = [];
  const refuse = (i: number, problem: KeyedSentence, pointer: string) => {
    problems.push(numberedProblem(i, problem));
    pointers.push(pointer);
  };
  const placed: PlacedField[] = [];
  for (const [i, item] of raw.entries()) {
    const read = readField(item);
    if ('problem' in read) {
      refuse(i, read.problem, `/fields/${i}`);
      continue;
    }
    const { field } = read;
    const problem = problemOf(field, document, sameEmail);
    if (problem) {
      refuse(i, problem, `/fields/${i}`);
      continue;
    }
    const given = senderValueOf(field);
    if ('problem' in given) {
      refuse(i, given.problem, `/fields/${i}/value`);
      continue;
    }
    const recipient = document.recipients.find((r) => sameEmail(r.email, field.recipient)) as FieldRecipient;
    const { recipient: _email, value: _value, ...rest } = field;
    placed.push({ ...rest, recipientId: recipient.id, prefilled: field.value !== null, value: given.value });
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 5);
    if (problems.length > 5)
      shown.push({ key: 'editor.problem.more', values: { count: problems.length - 5 } });
    throw refusalOf({ fields: fieldsProblem(shown) }, { pointers: { fields: pointers[0] as string } });
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
    const filled = fieldTypeSpecs[field.type].fill(
      raw,
      { name: describeField(field), required: field.required, maxLength: field.maxLength },
      service,
    );
    if (filled.problem !== null) {
      errors[`field.${field.id}`] = filled.problem;
      messages[`field.${field.id}`] = {
        ...filled.message,
        field: { type: field.type, label: field.label ?? null, page: field.page },
      };
    }
    values.set(field.id, filled.value);
  }
  if (Object.keys(errors).length > 0) throw new InputError(errors, { messages });
  return values;
}
