// Queries on the mails table: the mail outbox, and its fair claim (claimDueMails).
import { type Insertable, type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { notifyChannel } from '../db/notify.ts';
import type { Database } from '../db/schema.ts';
import type { Held } from '../queue/lease.ts';
import { mailQueue } from './mail-queue.ts';
import { mailPriorityRank } from './priority.ts';

type Db = Kysely<Database> | Transaction<Database>;

export const mailChannel = 'signet_mail';

/** Queues mails (one statement), and wakes mail workers in every process once the transaction commits. */
export async function insertMails(db: Db, rows: Array<Insertable<Database['mails']>>): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('mails').values(rows).execute();
  await notifyChannel(db, mailChannel);
}

/**
 * Which due mails a claim takes: `urgent` only (the urgent lane, mail.service.ts), every
 * `other` one, or `any` (urgent first, then the others).
 */
export type MailLane = 'urgent' | 'other' | 'any';

/**
 * Claims up to `limit` due mails for `leaseMs` (mail-queue.ts): another worker skips them
 * until the lease runs out. Fair between workspaces: each due mail is ranked within its workspace (by
 * priority, then due time), and the claim takes every workspace's first before anyone's
 * second, so one workspace's thousands take their share and another's one mail goes in the
 * same pass; what a workspace leaves unused goes to the others. Mails of no workspace (a
 * sign-up, a password reset) share one rank as if they were a workspace's. In `any`, urgent
 * mail comes before all the rest. The ranking is SQL over the due rows, so several workers
 * claiming at once keep it together; SKIP LOCKED makes each take the next ones in rank order.
 */
export async function claimDueMails(
  db: Kysely<Database>,
  now: Date,
  leaseMs: number,
  limit: number,
  lane: MailLane = 'any',
): Promise<ClaimedMail[]> {
  const urgent = mailPriorityRank('urgent');
  const until = new Date(now.getTime() + leaseMs);
  const due = sql`status = 'pending' and next_attempt_at <= ${now}
    and ${mailQueue.free(now)}
    ${lane === 'urgent' ? sql`and priority = ${urgent}` : lane === 'other' ? sql`and priority <> ${urgent}` : sql``}`;
  // One statement: the ranking (twice the limit, so a worker claiming at the same moment as
  // another finds the next ones in rank when the first ones are locked), then the rows
  // locked by id in rank order (FOR UPDATE cannot share a query level with a window, and
  // joined back to the table the planner may loop over the due rows once per due row: 8 s
  // for 1,000 on PGlite), checked again as locked (another worker may have leased one
  // meanwhile), then leased.
  const { rows } = await sql<Omit<ClaimedMail, 'held'> & { rank: number }>`
    with ranked as (
      select id from (
        select id, priority, next_attempt_at,
          row_number() over (partition by workspace_id order by priority, next_attempt_at, id) as share
        from mails where ${due}
      ) as shares
      order by priority <> ${urgent}, share, priority, next_attempt_at, id
      limit ${limit * 2}
    ),
    picked as (
      select id, array_position(array(select id from ranked), id) as rank
      from mails
      where id = any(array(select id from ranked)) and ${due}
      order by rank
      limit ${limit}
      for update skip locked
    )
    update mails set ${mailQueue.taking(until)}
    from picked where mails.id = picked.id
    returning mails.id, mails.to_address, mails.subject, mails.text_body, mails.attempts,
      mails.attachment_sha256, mails.attachment_name, mails.from_name, mails.reply_to, picked.rank`.execute(
    db,
  );
  return rows
    .sort((a, b) => a.rank - b.rank)
    .map(({ rank: _rank, ...mail }) => ({ ...mail, held: mailQueue.hold([mail.id], until) }));
}

/** A mail claimed for sending: what the mail server is handed, its attempts so far, its lease. */
export type ClaimedMail = Pick<
  Selectable<Database['mails']>,
  | 'id'
  | 'to_address'
  | 'subject'
  | 'text_body'
  | 'attempts'
  | 'attachment_sha256'
  | 'attachment_name'
  | 'from_name'
  | 'reply_to'
> & { held: Held };

export async function markMailDelivered(
  db: Db,
  id: string,
  status: 'sent' | 'logged',
  at: Date,
): Promise<void> {
  await db
    .updateTable('mails')
    .set({ status, sent_at: at, ...mailQueue.ending(), last_error: null })
    .where('id', '=', id)
    .execute();
}

export async function markMailFailed(db: Db, id: string, error: string, retryAt: Date | null): Promise<void> {
  await db
    .updateTable('mails')
    .set({
      status: retryAt ? 'pending' : 'failed',
      ...mailQueue.retrying(retryAt),
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
 * down), and `released`, claimed by the caller but not tried, are let go (those still its).
 * Returns how many mails wait.
 */
export async function holdDueMails(db: Db, until: Date, released: Held[], now: Date): Promise<number> {
  const held = await db
    .updateTable('mails')
    .set({ next_attempt_at: until })
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<', until)
    .executeTakeFirst();
  if (released.length > 0) await mailQueue.release(db, released, { now });
  return Number(held.numUpdatedRows);
}
