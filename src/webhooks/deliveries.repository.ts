// Queries of an endpoint's deliveries as its owner sees them: the delivery log (paged,
// newest first), one delivery with its body and attempts, the hourly counts, a ping's
// delivery, a dropped delivery taken and finished for a resend by hand, and deleting
// deliveries with their attempts (retention, an endpoint deleted). Claims and outcomes of the
// engine: claims.repository.ts, outcomes.repository.ts.
import { type Insertable, type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { deliveryQueue } from './delivery-queue.ts';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Takes a dropped delivery for a resend: its next attempt counted, leased until `until` so a
 * second resend cannot run beside it. False when it is not dropped, or already being resent.
 */
export async function claimForResend(db: Db, id: string, now: Date, until: Date): Promise<number | null> {
  const taken = await deliveryQueue.takeRow<{ attempts: number }>(db, [id], {
    now,
    until,
    where: sql`q.status = 'dropped'`,
    set: sql`last_attempt_at = ${now}`,
    returning: sql`q.attempts`,
  });
  return taken?.row.attempts ?? null;
}

/** A resend's end: delivered if it succeeded, dropped as before if not; the lease released. */
export async function finishResend(db: Db, id: string, delivered: boolean, at: Date): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ ...deliveryQueue.leaseEnded(), ...(delivered ? { status: 'delivered', delivered_at: at } : {}) })
    .where('id', '=', id)
    .execute();
}

export async function insertPingDelivery(
  db: Db,
  row: Insertable<Database['webhook_deliveries']>,
): Promise<void> {
  await db.insertInto('webhook_deliveries').values(row).execute();
}

/**
 * Deletes deliveries created before `before`, and their attempts. Endpoint by endpoint,
 * through the (endpoint_id, created_at) index (migration 0006 dropped the one on
 * created_at alone): every delivery has an endpoint, deleting one deletes its deliveries.
 */
export function pruneDeliveries(db: Db, before: Date): Promise<number> {
  return deleteWithAttempts(
    db,
    sql`delete from webhook_deliveries d using webhook_endpoints e
        where d.endpoint_id = e.id and d.created_at < ${before} returning d.id`,
  );
}

/** Deletes every delivery of an endpoint and their attempts (the endpoint is being deleted). */
export async function deleteDeliveriesOf(db: Db, endpointId: string): Promise<void> {
  await deleteWithAttempts(
    db,
    sql`delete from webhook_deliveries where endpoint_id = ${endpointId} returning id`,
  );
}

/**
 * Runs `deleteDeliveries` (a DELETE of deliveries returning their ids) and deletes their
 * attempts in the same statement: what the dropped foreign key's cascade did (migration
 * 0008). Returns how many deliveries went.
 */
async function deleteWithAttempts(db: Db, deleteDeliveries: RawBuilder<unknown>): Promise<number> {
  const result = await sql<{ deliveries: number }>`
    with gone as (${deleteDeliveries}),
    attempts as (delete from webhook_attempts where delivery_id in (select id from gone))
    select count(*)::int as deliveries from gone
  `.execute(db);
  return result.rows[0]?.deliveries ?? 0;
}

/** Newest first; `before` continues after the last delivery of the previous page. */
export async function findRecentDeliveries(
  db: Db,
  workspaceId: string,
  endpointId: string,
  limit: number,
  before: { createdAt: Date; id: string } | null = null,
) {
  let query = db
    .selectFrom('webhook_deliveries')
    .select([
      'id',
      'event_id',
      'event_type',
      'status',
      'attempts',
      'created_at',
      'next_attempt_at',
      'delivered_at',
    ])
    .where('workspace_id', '=', workspaceId)
    .where('endpoint_id', '=', endpointId);
  if (before) {
    query = query.where(({ eb, refTuple, tuple }) =>
      eb(refTuple('created_at', 'id'), '<', tuple(before.createdAt, before.id)),
    );
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** One delivery of an endpoint with the body it sends (stored once per event). */
export async function findDeliveryWithBody(db: Db, workspaceId: string, endpointId: string, id: string) {
  return db
    .selectFrom('webhook_deliveries')
    .leftJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
    .select([
      'webhook_deliveries.id',
      'webhook_deliveries.event_id',
      'webhook_deliveries.event_type',
      'webhook_deliveries.status',
      'webhook_deliveries.attempts',
      'webhook_deliveries.created_at',
      'webhook_deliveries.next_attempt_at',
      'webhook_deliveries.delivered_at',
      // As text: the exact bytes that were sent (json keeps them; parsing would not).
      sql<string | null>`webhook_events.payload::text`.as('payload'),
    ])
    .where('webhook_deliveries.workspace_id', '=', workspaceId)
    .where('webhook_deliveries.endpoint_id', '=', endpointId)
    .where('webhook_deliveries.id', '=', id)
    .executeTakeFirst();
}

/**
 * Attempts of an endpoint since `since`, counted per hour and by outcome. Read through
 * the deliveries created since `createdSince` (their index), which must reach back far
 * enough to hold every delivery that can still have been attempted after `since`.
 */
export async function countAttemptsByHour(
  db: Db,
  workspaceId: string,
  endpointId: string,
  since: Date,
  createdSince: Date,
) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_attempts as a', 'a.delivery_id', 'd.id')
    .select([
      sql<Date>`date_trunc('hour', a.started_at)`.as('hour'),
      sql<number>`count(*) filter (where a.status_code between 200 and 299)::int`.as('delivered'),
      sql<number>`count(*) filter (where a.status_code is null or a.status_code not between 200 and 299)::int`.as(
        'failed',
      ),
    ])
    .where('d.workspace_id', '=', workspaceId)
    .where('d.endpoint_id', '=', endpointId)
    .where('d.created_at', '>=', createdSince)
    .where('a.started_at', '>=', since)
    .groupBy(sql`date_trunc('hour', a.started_at)`)
    .execute();
}

export async function findAttemptsOf(db: Db, deliveryIds: string[]) {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom('webhook_attempts')
    .select([
      'delivery_id',
      'attempt',
      'started_at',
      'duration_ms',
      'address',
      'status_code',
      'error_class',
      'response_body',
    ])
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('delivery_id')
    .orderBy('attempt')
    .execute();
}
