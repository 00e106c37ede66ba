// Fields placed on a draft's PDF (field-rules.ts has the rules): set all at once (the CLI's
// JSON), or added, changed and removed one at a time (the web editor), each under the
// document's row lock and only while it is a draft; read for the API, the pages and sealing.

import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database, PageSize } from '../db/schema.ts';
import { findFullRecipients, lockDocument } from '../documents/documents.repository.ts';
import { canTransition, DocumentActionError } from '../documents/lifecycle.ts';
import { findPageSizes, storePageSizes } from '../files/files.repository.ts';
import { readFile } from '../files/files.service.ts';
import { ApiError } from '../http/errors.ts';
import { InputError } from '../input-error.ts';
import { emailKey } from '../mail/address.ts';
import { pageViews } from '../pdf/fields.ts';
import { loadPdf } from '../pdf/load.ts';
import { checkFields, type FieldInput, type PlacedField, readFieldInput } from './field-rules.ts';
import { type FieldRow, findFields, replaceFields } from './fields.repository.ts';

export const sameEmail = (a: string, b: string) => emailKey(a) === emailKey(b);

/**
 * Each page's displayed size, from the file's row, or worked out once from the PDF and kept
 * (files stored before fields existed). `db` is the caller's transaction when it holds one.
 */
export async function pageSizesOf(db: Kysely<Database>, sha256: string): Promise<PageSize[]> {
  const stored = await findPageSizes(db, sha256);
  if (stored) return stored;
  const data = await readFile(db, sha256);
  if (!data) throw new Error(`file ${sha256} is missing`);
  const pdf = await loadPdf(data);
  const sizes = pageViews(pdf).map(({ width, height }) => ({ width, height }));
  await storePageSizes(db, sha256, sizes);
  return sizes;
}

/** The rows of `fields` for a document, numbered in order; a field keeps its id when it has one. */
export function fieldRows(
  ctx: Context,
  document: { workspaceId: string; documentId: string },
  fields: PlacedField[],
  ids: Array<string | null> = [],
) {
  return fields.map((field, position) => ({
    id: ids[position] ?? ctx.ids.uuid(),
    workspace_id: document.workspaceId,
    document_id: document.documentId,
    recipient_id: field.recipientId,
    position,
    type: field.type,
    page: field.page,
    x: field.x,
    y: field.y,
    width: field.width,
    height: field.height,
    required: field.required,
    label: field.label,
    max_length: field.maxLength,
  }));
}

/** A stored field as the sender's JSON describes it (the editor's form, `--fields`). */
export function fieldInputOf(row: FieldRow, recipients: Array<{ id: string; email: string }>): FieldInput {
  return {
    recipient: recipients.find((r) => r.id === row.recipient_id)?.email ?? '',
    type: row.type,
    page: row.page,
    x: row.x,
    y: row.y,
    width: row.width,
    height: row.height,
    required: row.required,
    label: row.label,
    maxLength: row.max_length,
  };
}

type Current = Array<{ id: string; field: FieldInput }>;
/** The fields to store: each with its id when it is one already stored. */
type Next = Array<{ id: string | null; field: unknown }>;

/**
 * Runs `change` on the draft's current fields and stores what it returns, checked as a
 * whole: the document must be a draft with an uploaded PDF.
 */
async function editFields(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  change: (current: Current) => Next,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const document = await lockDocument(trx, workspaceId, documentId);
    if (!document) throw new ApiError('not-found');
    if (!canTransition(document.status, 'edit')) throw new DocumentActionError('not-a-draft');
    const recipients = await findFullRecipients(trx, workspaceId, documentId);
    const rows = await findFields(trx, workspaceId, documentId);
    const pages =
      document.original_sha256 && !document.original_from_text
        ? await pageSizesOf(trx, document.original_sha256)
        : null;
    const current = rows.map((row) => ({ id: row.id, field: fieldInputOf(row, recipients) }));
    const next = change(current);
    const placed = checkFields(
      next.map((n) => n.field),
      { recipients, pages },
      sameEmail,
    );
    const rowsToStore = fieldRows(
      ctx,
      { workspaceId, documentId },
      placed,
      next.map((n) => n.id),
    );
    await replaceFields(trx, workspaceId, documentId, rowsToStore);
  });
}

/** Replaces every field of a draft (the CLI's JSON file). */
export function setFields(ctx: Context, workspaceId: string, documentId: string, fields: unknown[]) {
  return editFields(ctx, workspaceId, documentId, () => fields.map((field) => ({ id: null, field })));
}

/** Adds one field to a draft (the editor). */
export function addField(ctx: Context, workspaceId: string, documentId: string, field: unknown) {
  return editFields(ctx, workspaceId, documentId, (current) => [...current, { id: null, field }]);
}

function indexOf(current: Current, id: string): number {
  const index = current.findIndex((c) => c.id === id);
  if (index < 0) throw new ApiError('not-found');
  return index;
}

/** Changes one field of a draft: moved, resized, reassigned, retyped (the editor). */
export function updateField(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  fieldId: string,
  field: unknown,
) {
  return editFields(ctx, workspaceId, documentId, (current) => {
    const index = indexOf(current, fieldId);
    const read = readFieldInput(field);
    if (typeof read === 'string') throw new InputError({ fields: `Field ${index + 1}: ${read}` });
    return current.map((c, i) => (i === index ? { id: c.id, field: read } : c));
  });
}

/** Removes one field of a draft (the editor). */
export function deleteField(ctx: Context, workspaceId: string, documentId: string, fieldId: string) {
  return editFields(ctx, workspaceId, documentId, (current) => {
    const index = indexOf(current, fieldId);
    return current.filter((_, i) => i !== index);
  });
}

export { findFields as listFields };
