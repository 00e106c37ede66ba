// Queries on documents, recipients and document events. Every query is scoped by
// workspace id; nothing here decides what the API shows.
import { type Insertable, type Kysely, sql, type Transaction, type Updateable } from 'kysely';
import { pgArray } from '../db/arrays.ts';
import type { Database, Delivery, DocumentStatus } from '../db/schema.ts';
import type { CursorPosition } from './cursor.ts';
import { documentEventTypes } from './event-types.ts';
import { activeStatuses } from './lifecycle.ts';

type Db = Kysely<Database> | Transaction<Database>;

const documentColumns = [
  'id',
  'title',
  'status',
  'created_at',
  'sent_at',
  'signed_at',
  'expires_at',
  'withdrawn_at',
  'value_amount',
  'value_currency',
] as const;

export interface DocumentRow {
  id: string;
  title: string;
  status: DocumentStatus;
  created_at: Date;
  sent_at: Date | null;
  signed_at: Date | null;
  expires_at: Date | null;
  /** When the sender withdrew it (then expired), or null. */
  withdrawn_at: Date | null;
  value_amount: string | null;
  value_currency: string | null;
}

export interface DocumentsPageQuery {
  workspaceId: string;
  status: DocumentStatus | null;
  /** A part of the title or of a recipient's name or address (any case); null or '': all. */
  search?: string | null;
  after: CursorPosition | null;
  limit: number;
}

/** `text` as a LIKE pattern matching itself anywhere: %, _ and \ stand for themselves. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Newest first by (created_at, id); a keyset seek, so any page costs what the first costs. */
export function selectDocumentsPage(db: Db, query: DocumentsPageQuery) {
  let q = db.selectFrom('documents').select(documentColumns).where('workspace_id', '=', query.workspaceId);
  if (query.status) q = q.where('status', '=', query.status);
  // search_text is lower-cased by the database (migration 0027): the pattern is too, by the
  // same lower(), and the trigram index documents_search finds the candidates.
  if (query.search) q = q.where('search_text', 'like', sql<string>`lower(${containsPattern(query.search)})`);
  const after = query.after;
  if (after) {
    q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
  }
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit);
}

export async function findDocumentsPage(db: Db, query: DocumentsPageQuery): Promise<DocumentRow[]> {
  return selectDocumentsPage(db, query).execute();
}

export async function findDocument(
  db: Db,
  workspaceId: string,
  id: string,
): Promise<(DocumentRow & { language: string | null }) | undefined> {
  return db
    .selectFrom('documents')
    .select([...documentColumns, 'language'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findRecipients(db: Db, workspaceId: string, documentId: string) {
  return db
    .selectFrom('recipients')
    .select([
      'id',
      'email',
      'full_name',
      'role',
      'signing_method',
      'signing_order',
      'signed_at',
      'language',
      'declined_at',
      'decline_reason',
    ])
    .where('workspace_id', '=', workspaceId)
    .where('document_id', '=', documentId)
    .orderBy('signing_order')
    .orderBy('position')
    .execute();
}

export type RecipientRow = Awaited<ReturnType<typeof findRecipients>>[number];

/** A document's webhook events, as the API lists them (history-only kinds left out: event-types.ts). */
export async function findEvents(db: Db, workspaceId: string, documentId: string) {
  return db
    .selectFrom('document_events')
    .select(['id', 'type', 'recipient_email', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .where('document_id', '=', documentId)
    .where('type', 'in', documentEventTypes)
    .orderBy('created_at')
    .orderBy('seq')
    .execute();
}

export type EventRow = Awaited<ReturnType<typeof findEvents>>[number];

/** A document's whole history, both kinds, with each event's detail: the owner's timeline. */
export async function findHistory(db: Db, workspaceId: string, documentId: string) {
  return db
    .selectFrom('document_events')
    .select(['id', 'type', 'recipient_email', 'created_at', 'detail'])
    .where('workspace_id', '=', workspaceId)
    .where('document_id', '=', documentId)
    .orderBy('created_at')
    .orderBy('seq')
    .execute();
}

export type NewDocumentRow = Insertable<Database['documents']>;
export type NewRecipientRow = Insertable<Database['recipients']>;
export type NewEventRow = Insertable<Database['document_events']>;

export async function insertDocuments(db: Db, rows: NewDocumentRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('documents').values(rows).execute();
}

export async function insertRecipients(db: Db, rows: NewRecipientRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('recipients').values(rows).execute();
}

export async function insertEvents(db: Db, rows: NewEventRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('document_events').values(rows).execute();
}

const fullDocumentColumns = [
  ...documentColumns,
  'workspace_id',
  'body',
  'pricing',
  'expires_in_seconds',
  'original_sha256',
  'original_from_text',
  'sealed_sha256',
  'remind_every_days',
  'delivery',
  'language',
  'created_by',
] as const;

export type FullDocumentRow = DocumentRow & {
  workspace_id: string;
  body: string;
  pricing: unknown;
  expires_in_seconds: number;
  /** The PDF the signers see (uploaded, or made from the text when sent). */
  original_sha256: string | null;
  /** The original was made from `body` when the document was sent. */
  original_from_text: boolean;
  /** Automatic reminders every this many days, or null. */
  remind_every_days: number | null;
  /** `none`: no recipient is mailed; the integrator delivers the links. */
  delivery: Delivery;
  /** The sealed PDF, once made. */
  sealed_sha256: string | null;
  /** The certificate's language (i18n/languages.ts); null: the workspace's default. */
  language: string | null;
  /** The member who made it; null for the API, a public link, the CLI. */
  created_by: string | null;
};

/** Deletes a document; its recipients, fields and history go with it (foreign keys cascade). */
export async function deleteDocument(
  trx: Transaction<Database>,
  workspaceId: string,
  id: string,
): Promise<void> {
  await trx.deleteFrom('documents').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

/** The document with its row lock: every state change of one document is serialised here. */
export async function lockDocument(
  trx: Transaction<Database>,
  workspaceId: string,
  id: string,
): Promise<FullDocumentRow | undefined> {
  return trx
    .selectFrom('documents')
    .select(fullDocumentColumns)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** lockDocument for several documents of a workspace (in no particular order). */
export async function lockDocuments(
  trx: Transaction<Database>,
  workspaceId: string,
  ids: string[],
): Promise<FullDocumentRow[]> {
  return trx
    .selectFrom('documents')
    .select(fullDocumentColumns)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', sql<string>`any(${pgArray(ids)}::uuid[])`)
    .forUpdate()
    .execute();
}

export async function findFullDocument(
  db: Db,
  workspaceId: string,
  id: string,
): Promise<FullDocumentRow | undefined> {
  return db
    .selectFrom('documents')
    .select(fullDocumentColumns)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Every write names the workspace as well as the id: no path can reach another's row. */
export async function updateDocument(
  db: Db,
  workspaceId: string,
  id: string,
  patch: Updateable<Database['documents']>,
): Promise<void> {
  await db
    .updateTable('documents')
    .set(patch)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

/** Documents sent (sending/send.ts): each one's status, times and PDF, in one statement. */
export async function setDocumentsSent(
  db: Db,
  rows: Array<{
    workspace_id: string;
    id: string;
    status: DocumentStatus;
    sent_at: Date;
    expires_at: Date;
    original_sha256: string;
    original_from_text: boolean;
  }>,
): Promise<void> {
  if (rows.length === 0) return;
  const column = (pick: (row: (typeof rows)[number]) => string | boolean) => pgArray(rows.map(pick));
  await sql`
    update documents d set status = v.status, sent_at = v.sent_at, expires_at = v.expires_at,
      original_sha256 = v.original_sha256, original_from_text = v.original_from_text
    from unnest(
      ${column((r) => r.workspace_id)}::uuid[], ${column((r) => r.id)}::uuid[], ${column((r) => r.status)}::text[],
      ${column((r) => r.sent_at.toISOString())}::timestamptz[], ${column((r) => r.expires_at.toISOString())}::timestamptz[],
      ${column((r) => r.original_sha256)}::text[], ${column((r) => r.original_from_text)}::boolean[]
    ) as v(workspace_id, id, status, sent_at, expires_at, original_sha256, original_from_text)
    where d.workspace_id = v.workspace_id and d.id = v.id
  `.execute(db);
}

/** A draft's recipients, before its edited list replaces them (their fields go with them). */
export async function deleteRecipients(trx: Transaction<Database>, workspaceId: string, documentId: string) {
  await trx
    .deleteFrom('recipients')
    .where('workspace_id', '=', workspaceId)
    .where('document_id', '=', documentId)
    .execute();
}

export async function findFullRecipients(db: Db, workspaceId: string, documentId: string) {
  return db
    .selectFrom('recipients')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('document_id', '=', documentId)
    .orderBy('signing_order')
    .orderBy('position')
    .execute();
}

/** findFullRecipients for several documents of a workspace, each document's in the same order. */
export async function findRecipientsOfDocuments(db: Db, workspaceId: string, documentIds: string[]) {
  return db
    .selectFrom('recipients')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('document_id', '=', sql<string>`any(${pgArray(documentIds)}::uuid[])`)
    .orderBy('document_id')
    .orderBy('signing_order')
    .orderBy('position')
    .execute();
}

export type FullRecipientRow = Awaited<ReturnType<typeof findFullRecipients>>[number];

export async function updateRecipient(
  db: Db,
  workspaceId: string,
  id: string,
  patch: Updateable<Database['recipients']>,
): Promise<void> {
  await db
    .updateTable('recipients')
    .set(patch)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

/** Recipients' new signing links (the tokens' hashes) and when they were invited, in one statement. */
export async function setInvitations(
  db: Db,
  rows: Array<{ workspace_id: string; id: string; token_hash: string; invited_at: Date }>,
): Promise<void> {
  if (rows.length === 0) return;
  const column = (pick: (row: (typeof rows)[number]) => string) => pgArray(rows.map(pick));
  await sql`
    update recipients r set token_hash = v.token_hash, invited_at = v.invited_at
    from unnest(
      ${column((r) => r.workspace_id)}::uuid[], ${column((r) => r.id)}::uuid[],
      ${column((r) => r.token_hash)}::text[], ${column((r) => r.invited_at.toISOString())}::timestamptz[]
    ) as v(workspace_id, id, token_hash, invited_at)
    where r.workspace_id = v.workspace_id and r.id = v.id
  `.execute(db);
}

/** The recipient a signing link belongs to, found by the hash of its token. */
export async function findRecipientByTokenHash(db: Db, documentId: string, tokenHash: string) {
  return db
    .selectFrom('recipients')
    .select(['id', 'workspace_id', 'document_id'])
    .where('document_id', '=', documentId)
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** When a recipient first viewed the document (their first document.opened), or null: read without a lock. */
export async function findRecipientOpenedAt(db: Db, workspaceId: string, id: string) {
  const row = await db
    .selectFrom('recipients')
    .select('opened_at')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.opened_at ?? null;
}

/** Active documents whose expiry has passed, locked for this caller and skipped by others. */
export async function lockDueDocuments(trx: Transaction<Database>, now: Date, limit: number) {
  return (
    trx
      .selectFrom('documents')
      .select(['id', 'workspace_id'])
      // Literals, not parameters: the partial index documents_due is on exactly these
      // statuses, and only a literal list lets the planner prove a cached plan may use it.
      .where(
        'status',
        'in',
        activeStatuses.map((status) => sql.lit(status)),
      )
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute()
  );
}

/**
 * **The** rule of when an automatic reminder is due, stated here only: on a document being
 * signed with reminders on, a signer whose link was mailed, who has not signed, and for whom
 * the reminder interval has passed since the later of their first mail and their last
 * reminder. `only` narrows it to one signer: the worker's pass (sending/reminders.ts) runs
 * the same query again under their document's lock.
 */
export async function findDueReminders(
  db: Db,
  now: Date,
  limit: number,
  only?: { documentId: string; recipientId: string },
) {
  let query = db
    .selectFrom('documents')
    .innerJoin('recipients', 'recipients.document_id', 'documents.id')
    .select([
      'documents.id as documentId',
      'documents.workspace_id as workspaceId',
      'recipients.id as recipientId',
    ])
    // Literals: the partial index documents_auto_remind is on exactly these statuses.
    .where(
      'documents.status',
      'in',
      activeStatuses.map((status) => sql.lit(status)),
    )
    .where('documents.remind_every_days', 'is not', null)
    // Reminders are mails: a document its integrator delivers (delivery none) has none.
    .where('documents.delivery', '=', 'email')
    .where('recipients.role', '=', 'signer')
    .where('recipients.signed_at', 'is', null)
    .where('recipients.token_hash', 'is not', null)
    .where(
      sql<Date>`coalesce(recipients.reminded_at, recipients.invited_at, documents.sent_at) + make_interval(days => documents.remind_every_days::int)`,
      '<=',
      now,
    );
  if (only)
    query = query.where('documents.id', '=', only.documentId).where('recipients.id', '=', only.recipientId);
  return query.orderBy('documents.id').limit(limit).execute();
}

/** Which workspace a document belongs to: for operators' commands, which are not scoped. */
/** The id of the latest event of `type` in a document's history. */
export async function findLatestEventId(db: Db, workspaceId: string, documentId: string, type: string) {
  const row = await db
    .selectFrom('document_events')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('document_id', '=', documentId)
    .where('type', '=', type)
    .orderBy('seq', 'desc')
    .executeTakeFirst();
  return row?.id;
}

export async function findDocumentWorkspaceId(db: Db, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('documents').select('workspace_id').where('id', '=', id).executeTakeFirst();
  return row?.workspace_id;
}

/** Which of `ids` were made through a template's public link (the web list marks them). */
export async function findMadeThroughPublicLink(
  db: Db,
  workspaceId: string,
  ids: string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('documents')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', ids)
    .where('made_via', '=', 'public-link')
    .execute();
  return new Set(rows.map((r) => r.id));
}
