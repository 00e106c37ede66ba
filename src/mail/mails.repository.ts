// Queries on the mails table: the mail outbox.
import { type Insertable, type Kysely, sql, type Transaction } from 'kysely';
import { notifyChannel } from '../db/notify.ts';
import type { Database } from '../db/schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

export const mailChannel = 'signet_mail';

/** Queues mails (one statement), and wakes mail workers in every process once the transaction commits. */
export async function insertMails(db: Db, rows: Array<Insertable<Database['mails']>>): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('mails').values(rows).execute();
  await notifyChannel(db, mailChannel);
}

/** Claims due mails for `leaseMs`: another worker skips them until the lease runs out. */
export async function claimDueMails(db: Kysely<Database>, now: Date, leaseMs: number, limit: number) {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('mails')
      .select([
        'id',
        'to_address',
        'subject',
        'text_body',
        'attempts',
        'attachment_sha256',
        'attachment_name',
      ])
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .orderBy('next_attempt_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (rows.length > 0) {
      await trx
        .updateTable('mails')
        .set({ locked_until: new Date(now.getTime() + leaseMs) })
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .execute();
    }
    return rows;
  });
}

export type ClaimedMail = Awaited<ReturnType<typeof claimDueMails>>[number];

export async function markMailDelivered(
  db: Db,
  id: string,
  status: 'sent' | 'logged',
  at: Date,
): Promise<void> {
  await db
    .updateTable('mails')
    .set({ status, sent_at: at, locked_until: null, attempts: sql`attempts + 1`, last_error: null })
    .where('id', '=', id)
    .execute();
}

export async function markMailFailed(db: Db, id: string, error: string, retryAt: Date | null): Promise<void> {
  await db
    .updateTable('mails')
    .set({
      status: retryAt ? 'pending' : 'failed',
      next_attempt_at: retryAt ?? sql`next_attempt_at`,
      locked_until: null,
      attempts: sql`attempts + 1`,
      last_error: error.slice(0, 500),
    })
    .where('id', '=', id)
    .execute();
}

export async function findMails(
  db: Db,
  filter: { workspaceId?: string; documentId?: string; to?: string; toKey?: string; limit: number },
) {
  let q = db
    .selectFrom('mails')
    .select([
      'id',
      'workspace_id',
      'document_id',
      'to_address',
      'subject',
      'text_body',
      'status',
      'attempts',
      'created_at',
      'sent_at',
      'last_error',
    ]);
  if (filter.workspaceId) q = q.where('workspace_id', '=', filter.workspaceId);
  if (filter.documentId) q = q.where('document_id', '=', filter.documentId);
  if (filter.to) q = q.where('to_address', '=', filter.to);
  // An address compared as accounts compare them (lower-cased; stored addresses are normalised).
  if (filter.toKey) q = q.where(sql<string>`lower(to_address)`, '=', filter.toKey);
  return q.orderBy('created_at', 'desc').orderBy('id').limit(filter.limit).execute();
}

/** How many mails were handed to the mail server (or kept, without one) since `since`. */
export async function countMailsSentSince(db: Db, since: Date): Promise<number> {
  const row = await db
    .selectFrom('mails')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('sent_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Every pending mail due before `until` waits until then (the mail server asked to slow
 * down), and `released`, claimed by the caller but not tried, are let go. Returns how many
 * mails wait.
 */
export async function holdDueMails(db: Db, until: Date, released: string[]): Promise<number> {
  const held = await db
    .updateTable('mails')
    .set({ next_attempt_at: until })
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<', until)
    .executeTakeFirst();
  if (released.length > 0)
    await db.updateTable('mails').set({ locked_until: null }).where('id', 'in', released).execute();
  return Number(held.numUpdatedRows);
}
