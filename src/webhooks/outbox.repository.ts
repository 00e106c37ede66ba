// Queries of stored webhook bodies (webhook_events): a body stored by itself (a ping), the
// reads of stored bodies (`signet listen`, event streams) and their pruning. A document
// event's body and outbox row are written by documents/outbox.repository.ts, in the change's
// transaction; fan-out takes outbox rows in claims.repository.ts.
import { type Kysely, sql, type Transaction } from 'kysely';
import { pgArray } from '../db/arrays.ts';
import type { Database } from '../db/schema.ts';
import type { WebhookEventRow } from '../documents/outbox.repository.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Stores a webhook body once, for every delivery of it (pings too). */
export async function insertWebhookEvent(db: Db, row: WebhookEventRow): Promise<void> {
  await db.insertInto('webhook_events').values(row).execute();
}

/**
 * The workspace's stored event bodies from `since` on (pings never), oldest first, leaving
 * out `excluding` (the ids a reader already has): so every row it returns is new to the
 * reader, and a window that holds more events than `limit` is read to its end, a batch at a
 * time, instead of the same first batch again.
 */
export async function findWebhookEventsSince(
  db: Db,
  workspaceId: string,
  since: Date,
  limit: number,
  excluding: readonly string[] = [],
) {
  return db
    .selectFrom('webhook_events')
    .select(['id', 'type', 'created_at', sql<string>`payload::text`.as('payload')])
    .where('workspace_id', '=', workspaceId)
    .where('created_at', '>=', since)
    .where('type', '!=', 'ping')
    .$if(excluding.length > 0, (q) => q.where(sql<boolean>`id <> all(${pgArray(excluding)}::uuid[])`))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** One stored event body of the workspace (the `Last-Event-ID` of an event stream), or undefined. */
export async function findWebhookEventOfWorkspace(db: Db, workspaceId: string, id: string) {
  return db
    .selectFrom('webhook_events')
    .select(['id', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('type', '!=', 'ping')
    .executeTakeFirst();
}

/**
 * Deletes webhook bodies stored before `before` (through the BRIN index on created_at),
 * and events that waited that long in the outbox (no worker ran for the whole retention
 * period): they are not delivered any more. A delivery is created when its event is
 * fanned out, normally within milliseconds, and is retried for under three hours, so a
 * body this old has nothing left to send.
 */
export async function pruneWebhookEvents(db: Db, before: Date): Promise<number> {
  await sql`delete from outbox where created_at < ${before}`.execute(db);
  const result = await sql`delete from webhook_events where created_at < ${before}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
