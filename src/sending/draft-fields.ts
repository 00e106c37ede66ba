// The sender's changes to a draft's fields: set all at once (the CLI's JSON), or added,
// changed and removed one at a time (the web editor), each under the document's row lock,
// only while it is a draft, the whole set checked by fields/field-rules.ts; and the rows a
// new draft's fields are stored as (drafts.ts).

import type { Context } from '../context.ts';
import { findFullRecipients, lockDocument } from '../documents/documents.repository.ts';
import { canTransition, DocumentActionError } from '../documents/lifecycle.ts';
import {
  checkFields,
  type FieldInput,
  fieldRefusal,
  type PlacedField,
  readField,
} from '../fields/field-rules.ts';
import { findFields, replaceFields } from '../fields/fields.repository.ts';
import { fieldInputOf, pageSizesOf, sameEmail } from '../fields/fields.service.ts';
import { ApiError } from '../http/errors.ts';

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
    value: field.value,
    prefilled: field.prefilled,
  }));
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
    const read = readField(field);
    if ('problem' in read) throw fieldRefusal(index, read.problem);
    return current.map((c, i) => (i === index ? { id: c.id, field: read.field } : c));
  });
}

/** Removes one field of a draft (the editor). */
export function deleteField(ctx: Context, workspaceId: string, documentId: string, fieldId: string) {
  return editFields(ctx, workspaceId, documentId, (current) => {
    const index = indexOf(current, fieldId);
    return current.filter((_, i) => i !== index);
  });
}
