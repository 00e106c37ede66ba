// SQL of fields (migration 0014): every statement names the workspace, so a field is only
// ever reached through a document of the caller's workspace.
import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { Database, DocumentFieldsTable } from '../db/schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

export type FieldRow = Selectable<DocumentFieldsTable>;
type NewFieldRow = Insertable<DocumentFieldsTable>;

export async function findFields(db: Db, workspaceId: string, documentId: string): Promise<FieldRow[]> {
  return db
    .selectFrom('document_fields')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('document_id', '=', documentId)
    .orderBy('position')
    .execute();
}

/** One signer's fields, in order (the signing page, the sign action). */
export async function findRecipientFields(
  db: Db,
  workspaceId: string,
  recipientId: string,
): Promise<FieldRow[]> {
  return db
    .selectFrom('document_fields')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('recipient_id', '=', recipientId)
    .orderBy('position')
    .execute();
}

/** The fields of new documents (none stored yet), in one statement. */
export async function insertFields(trx: Transaction<Database>, rows: NewFieldRow[]): Promise<void> {
  if (rows.length > 0) await trx.insertInto('document_fields').values(rows).execute();
}

/** Replaces a document's fields with `rows` (in the caller's transaction). */
export async function replaceFields(
  trx: Transaction<Database>,
  workspaceId: string,
  documentId: string,
  rows: NewFieldRow[],
): Promise<void> {
  await trx
    .deleteFrom('document_fields')
    .where('workspace_id', '=', workspaceId)
    .where('document_id', '=', documentId)
    .execute();
  await insertFields(trx, rows);
}

export async function fillField(
  trx: Transaction<Database>,
  workspaceId: string,
  id: string,
  value: string | null,
  at: Date,
): Promise<void> {
  await trx
    .updateTable('document_fields')
    .set({ value, filled_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}
