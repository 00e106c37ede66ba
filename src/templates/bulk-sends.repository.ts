// Queries on bulk_sends and bulk_send_rows (migration 0035): storing a confirmed bulk send,
// the worker's claim on one (through its queue, bulk-queue.ts: let go after a batch), each
// row's move from one status to the next, and what progress and the results file read.
import { type Insertable, type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import { pgArray } from '../db/arrays.ts';
import type { Database, RowReason } from '../db/schema.ts';
import { inEnglish } from '../i18n/refusals.ts';
import type { Held } from '../queue/lease.ts';
import { bulkQueue } from './bulk-queue.ts';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Stores a bulk send and its rows, in the caller's transaction: each good row pending with its
 * `input` (JSON), each refused one `refused` with its reason (and no input).
 */
export async function insertBulkSend(
  trx: Transaction<Database>,
  bulkSend: Insertable<Database['bulk_sends']> & { id: string; workspace_id: string },
  rows: Array<{ row: number; input: string } | { row: number; refusal: RowReason }>,
): Promise<void> {
  await trx.insertInto('bulk_sends').values(bulkSend).execute();
  // In slices: one INSERT's parameters are limited (65,535 in PostgreSQL).
  for (let i = 0; i < rows.length; i += 1000) {
    const slice = rows.slice(i, i + 1000).map((r) => ({
      bulk_send_id: bulkSend.id,
      workspace_id: bulkSend.workspace_id,
      row_number: r.row,
      ...('input' in r
        ? { input: r.input, status: 'pending' as const, error: null }
        : { input: 'null', status: 'refused' as const, ...reasonColumns(r.refusal) }),
    }));
    await trx.insertInto('bulk_send_rows').values(slice).execute();
  }
}

export interface BulkClaim {
  id: string;
  workspaceId: string;
  templateId: string | null;
  /** The member who started it: the documents' maker, whom their recipients' replies reach. */
  createdBy: string | null;
  /** The claim's lease (bulk-queue.ts). */
  held: Held;
}

/**
 * Claims, until `until`, the unfinished bulk send no other worker holds that waited longest:
 * one never started by its confirmation, one let go after a batch by when it was let go. So
 * bulk sends take turns a batch at a time, and a workspace's 5,000 rows do not hold back
 * another's 10 until they are all sent.
 */
export async function claimBulkSend(db: Kysely<Database>, now: Date, until: Date): Promise<BulkClaim | null> {
  const letGo = bulkQueue.leaseColumn('q');
  const [claimed] = await bulkQueue.claim<{
    id: string;
    workspace_id: string;
    template_id: string | null;
    created_by: string | null;
  }>(db, {
    now,
    until,
    limit: 1,
    where: sql`q.finished_at is null`,
    // At the same moment, one never started first.
    orderBy: sql`coalesce(${letGo}, q.created_at), ${letGo} is not null, q.created_at`,
    returning: sql`q.workspace_id, q.template_id, q.created_by`,
  });
  if (!claimed) return null;
  const { row, held } = claimed;
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    templateId: row.template_id,
    createdBy: row.created_by,
    held,
  };
}

export type BulkRowChange =
  | { status: 'created'; document_id: string }
  | { status: 'sent' }
  | { status: 'failed'; reason: RowReason };

/**
 * A reason as its row stores it: the sentences (at most 20, for a row refused on every
 * column) as JSON, and their English as `error`, at most 1,000 characters.
 */
function reasonColumns(reason: RowReason): { reason: string; error: string } {
  const kept = reason.slice(0, 20);
  return { reason: JSON.stringify(kept), error: kept.map(inEnglish).join(' ').slice(0, 1000) };
}

/** Moves the row on from `from`; false when its status was no longer `from` (another worker moved it). */
export async function moveBulkRow(
  trx: Transaction<Database>,
  row: { bulkSendId: string; row: number },
  from: 'pending' | 'created',
  set: BulkRowChange,
): Promise<boolean> {
  const moved = await trx
    .updateTable('bulk_send_rows')
    .set(set.status === 'failed' ? { status: 'failed', ...reasonColumns(set.reason) } : set)
    .where('bulk_send_id', '=', row.bulkSendId)
    .where('row_number', '=', row.row)
    .where('status', '=', from)
    .executeTakeFirst();
  return moved.numUpdatedRows > 0n;
}

/**
 * Pending rows sent, each with its document, in one statement; false when one of them was no
 * longer pending (another worker moved it): the caller undoes its transaction.
 */
export async function markBulkRowsSent(
  trx: Transaction<Database>,
  bulkSendId: string,
  rows: Array<{ row: number; documentId: string }>,
): Promise<boolean> {
  const moved = await sql`
    update bulk_send_rows b set status = 'sent', document_id = v.document_id
    from unnest(${pgArray(rows.map((r) => r.row))}::int[], ${pgArray(rows.map((r) => r.documentId))}::uuid[])
      as v(row_number, document_id)
    where b.bulk_send_id = ${bulkSendId} and b.row_number = v.row_number and b.status = 'pending'
  `.execute(trx);
  return moved.numAffectedRows === BigInt(rows.length);
}

export type OpenBulkRow = { row_number: number; status: string; input: unknown; document_id: string | null };

/** The bulk send's rows still pending or created, in row order. */
export function findOpenBulkRows(db: Db, bulkSendId: string, limit: number): Promise<OpenBulkRow[]> {
  return db
    .selectFrom('bulk_send_rows')
    .select(['row_number', 'status', 'input', 'document_id'])
    .where('bulk_send_id', '=', bulkSendId)
    .where('status', 'in', ['pending', 'created'])
    .orderBy('row_number')
    .limit(limit)
    .execute();
}

/**
 * Sets `finished_at` once no row is open; lets the claim go either way (if it is still this
 * worker's), its lease ended now (so it waits behind the bulk sends that waited longer).
 */
export async function finishOrReleaseBulkSend(
  db: Kysely<Database>,
  claim: BulkClaim,
  now: Date,
): Promise<void> {
  await bulkQueue.release(db, [claim.held], {
    now,
    set: sql`finished_at = case when exists (
        select 1 from bulk_send_rows r where r.bulk_send_id = ${claim.id} and r.status in ('pending', 'created')
      ) then null else ${now}::timestamptz end`,
  });
}

/** Bulk sends of the workspace (one by id, or a template's, newest first) with their rows counted. */
export function findBulkSendCounts(
  db: Db,
  workspaceId: string,
  where: { id?: string; templateId?: string; limit?: number },
) {
  return db
    .selectFrom('bulk_sends as b')
    .select([
      'b.id',
      'b.template_id',
      'b.template_name',
      'b.file_name',
      'b.created_at',
      'b.total',
      'b.finished_at',
      countOf(sql`r.status in ('created', 'sent')`).as('created'),
      countOf(sql`r.status = 'sent'`).as('sent'),
      countOf(sql`r.status = 'failed'`).as('failed'),
      countOf(sql`r.status = 'refused'`).as('refused'),
      countOf(mailedSql).as('mailed'),
    ])
    .where('b.workspace_id', '=', workspaceId)
    .$if(where.id !== undefined, (q) => q.where('b.id', '=', where.id as string))
    .$if(where.templateId !== undefined, (q) => q.where('b.template_id', '=', where.templateId as string))
    .orderBy('b.created_at', 'desc')
    .orderBy('b.id', 'desc')
    .limit(where.limit ?? 1)
    .execute();
}

/** A delivered mail of the row's document: its first is the invitation (later ones come after it). */
// mails has no index on document_id (migrations 0002): the workspace's index narrows the scan.
const mailedSql = sql`r.document_id is not null and exists (
  select 1 from mails m
  where m.workspace_id = r.workspace_id and m.document_id = r.document_id and m.status in ('sent', 'logged')
)`;

/** How many of the bulk send's rows (`r`) meet `condition`. */
function countOf(condition: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`(select count(*) from bulk_send_rows r where r.bulk_send_id = b.id and ${condition})`;
}

/** The failed rows of a bulk send, in row order. */
export function findFailedBulkRows(db: Db, workspaceId: string, id: string, limit: number) {
  return db
    .selectFrom('bulk_send_rows')
    .select(['row_number', 'error', 'reason'])
    .where('workspace_id', '=', workspaceId)
    .where('bulk_send_id', '=', id)
    .where('status', '=', 'failed')
    .orderBy('row_number')
    .limit(limit)
    .execute();
}

/** Each row of the bulk send with each of its document's recipients (a row without a document once). */
export function findBulkResultRows(db: Db, workspaceId: string, id: string) {
  return db
    .selectFrom('bulk_send_rows as r')
    .leftJoin('recipients as p', (join) =>
      join.onRef('p.document_id', '=', 'r.document_id').onRef('p.workspace_id', '=', 'r.workspace_id'),
    )
    .select([
      'r.row_number',
      'r.status',
      'r.document_id',
      'r.error',
      'r.reason',
      'p.id as recipient_id',
      'p.full_name',
      'p.email',
    ])
    .where('r.workspace_id', '=', workspaceId)
    .where('r.bulk_send_id', '=', id)
    .orderBy('r.row_number')
    .orderBy('p.signing_order')
    .execute();
}

/**
 * The status of each recipient's first mail (their invitation) in the bulk send's documents,
 * read in one query: mails has no index on recipient_id, so one look-up per recipient would
 * scan it once each.
 */
export async function findFirstMailStatuses(db: Db, workspaceId: string, id: string) {
  const mails = await db
    .selectFrom('mails')
    .select(['recipient_id', 'status'])
    .where('workspace_id', '=', workspaceId)
    .where('document_id', 'in', (eb) =>
      eb
        .selectFrom('bulk_send_rows')
        .select('document_id')
        .where('bulk_send_id', '=', id)
        .where('document_id', 'is not', null),
    )
    .orderBy('created_at', 'desc')
    .execute();
  // Newest first, so the first mail of each recipient is the one left in the map.
  return new Map(mails.map((m) => [m.recipient_id ?? '', m.status]));
}
