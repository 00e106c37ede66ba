// Queries of what becomes of a claimed delivery (outcomes.ts decides which): successes
// recorded in batches, a failure's attempt and retry or drop, the endpoint row locks taken
// first, the consecutive failure count and the pause that drops an endpoint's pending
// deliveries. Only the worker holding a delivery's lease settles it (stillPending).
import { type Insertable, type Kysely, sql, type Transaction } from 'kysely';
import { pgArray } from '../db/arrays.ts';
import type { Database } from '../db/schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

import { relaxedCommit, stillPending } from './claims.repository.ts';
import { deliveryQueue } from './delivery-queue.ts';

/**
 * Attempts are numbered by the claims that made them, so (delivery, attempt) never repeats;
 * if it ever did, the first record stands rather than the outcome's transaction failing.
 */
export async function insertAttempt(db: Db, row: Insertable<Database['webhook_attempts']>): Promise<void> {
  await db
    .insertInto('webhook_attempts')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/**
 * Settles a claimed delivery that is still pending: false when it is gone (its endpoint
 * was deleted) or was dropped meanwhile (its endpoint was paused): that stays as it is.
 */
export async function settleDelivery(
  db: Db,
  id: string,
  outcome: { status: 'delivered' | 'dropped' | 'pending'; at: Date; nextAttemptAt?: Date },
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({
      status: outcome.status,
      ...deliveryQueue.leaseEnded(),
      ...(outcome.status === 'delivered' ? { delivered_at: outcome.at } : {}),
      ...(outcome.nextAttemptAt ? { next_attempt_at: outcome.nextAttemptAt } : {}),
    })
    .where('id', '=', id)
    .where(stillPending)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Which of these deliveries still exist (an attempt is kept for each of them). */
export async function existingDeliveries(db: Db, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const result = await sql<{ id: string }>`
    select id from webhook_deliveries where id = any(${pgArray(ids)}::uuid[])
  `.execute(db);
  return new Set(result.rows.map((r) => r.id));
}

export type AttemptRow = Insertable<Database['webhook_attempts']>;

/**
 * Records many successful attempts in one statement, inside the caller's transaction
 * (which holds their endpoints' row locks): marks the deliveries that are still pending
 * delivered, keeps an attempt for every delivery that still exists (one dropped meanwhile
 * keeps its history; one whose endpoint was deleted is gone), and resets the failure count
 * of the endpoints of the deliveries it settled. The transaction commits without waiting
 * for the WAL flush (relaxedCommit). Each attempt's workspace and endpoint come from
 * its delivery, so only the attempt's own fields travel.
 */
export async function recordDelivered(
  db: Db,
  attempts: Array<Omit<AttemptRow, 'workspace_id' | 'endpoint_id'>>,
  at: Date,
): Promise<void> {
  if (attempts.length === 0) return;
  const column = (pick: (row: (typeof attempts)[number]) => string | number | null | undefined) =>
    pgArray(attempts.map((row) => pick(row) ?? null));
  await sql`
    with relaxed as (${relaxedCommit}),
    input as (
      select * from unnest(
        ${column((r) => r.delivery_id)}::uuid[], ${column((r) => r.attempt)}::int[],
        ${column((r) => (r.started_at as Date).toISOString())}::timestamptz[], ${column((r) => r.duration_ms)}::int[],
        ${column((r) => r.address)}::text[], ${column((r) => r.status_code)}::int[],
        ${column((r) => r.error_class)}::text[], ${column((r) => r.response_body)}::text[]
      ) as a(delivery_id, attempt, started_at, duration_ms, address, status_code, error_class, response_body)
    ),
    settled as (
      -- = any(array(...)) is a primary-key lookup whatever the statistics say; a join let the
      -- planner scan the whole table when they were stale, as a queue table's often are.
      update webhook_deliveries set status = 'delivered', delivered_at = ${at}, ${deliveryQueue.endingSql()}
      where id = any(array(select delivery_id from input)) and ${stillPending}
      returning id, workspace_id, endpoint_id
    ),
    unsettled as (
      -- Deliveries the update did not settle: dropped meanwhile (the attempt stays as
      -- history) or gone with their endpoint (not found, nothing kept). Under load there are
      -- none, and the deliveries are looked up once, by the update.
      select id, workspace_id, endpoint_id from webhook_deliveries
      where id = any(array(select delivery_id from input except select id from settled))
    ),
    attempts as (
      insert into webhook_attempts
        (delivery_id, workspace_id, endpoint_id, attempt, started_at, duration_ms, address, status_code, error_class, response_body)
      select a.delivery_id, d.workspace_id, d.endpoint_id, a.attempt, a.started_at, a.duration_ms, a.address,
             a.status_code, a.error_class, a.response_body
      from input a
      join (select * from settled union all select * from unsettled) d on d.id = a.delivery_id
      on conflict do nothing
    ),
    reset as (
      update webhook_endpoints set failure_count = 0
      where id in (select endpoint_id from settled) and failure_count <> 0
    )
    select setting from relaxed
  `.execute(db);
}

/**
 * Row locks on endpoints, always in id order (no two transactions wait on each other).
 * FOR NO KEY UPDATE, the lock an UPDATE of the row takes anyway: it serialises outcomes
 * of one endpoint but lets fan-out go on, which holds FOR KEY SHARE on the endpoints it
 * fans out to (FOR UPDATE made every fan-out wait for the outcomes being written).
 */
export async function lockEndpoints(trx: Transaction<Database>, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    select id from webhook_endpoints where id = any(${pgArray(ids)}::uuid[]) order by id for no key update
  `.execute(trx);
}

/** Adds one consecutive failure; returns the new count and whether the endpoint is still on. */
export async function addEndpointFailure(db: Db, endpointId: string) {
  return db
    .updateTable('webhook_endpoints')
    .set({ failure_count: sql`failure_count + 1` })
    .where('id', '=', endpointId)
    .returning(['failure_count', 'enabled'])
    .executeTakeFirst();
}

/** Pauses the endpoint; returns its workspace and URL (for the owners' mail). */
export async function disableEndpointForFailures(db: Db, endpointId: string, at: Date) {
  return db
    .updateTable('webhook_endpoints')
    .set({ enabled: false, disabled_reason: 'failures', paused_at: at, updated_at: at })
    .where('id', '=', endpointId)
    .returning(['workspace_id', 'url'])
    .executeTakeFirst();
}

/** A paused endpoint's pending deliveries are dropped: nothing is replayed later. */
export async function dropPendingDeliveries(db: Db, endpointId: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'dropped', ...deliveryQueue.leaseEnded() })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
}
