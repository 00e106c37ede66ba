// Queries of the delivery engine's claims: fan-out (outbox rows to deliveries, the first
// attempts claimed in the same statement), claims of due deliveries, hand-backs and drops.
// Workers claim rows with FOR UPDATE SKIP LOCKED and a lease (the delivery queue's,
// delivery-queue.ts, whose lease pieces these statements are built with), so any number of
// processes share the work and a dead worker's rows come back when its lease ends. Times come
// from the caller (ctx.clock), never from now(), so tests can move time. What becomes of a
// claimed delivery is written by outcomes.repository.ts.
import { type Kysely, sql, type Transaction } from 'kysely';
import { pgArray } from '../db/arrays.ts';
import type { Database } from '../db/schema.ts';
import { deliveryQueue } from './delivery-queue.ts';

type Db = Kysely<Database> | Transaction<Database>;

export const deliveriesChannel = 'signet_deliveries';

/**
 * A CTE body that lets the statement's transaction commit without waiting for its WAL to
 * reach the disk (synchronous_commit = off, this transaction only); the statement must
 * select from it, or it does not run. Only for writes that at-least-once
 * delivery absorbs if a PostgreSQL crash loses the last moments of them: a fan-out (its
 * events come back to the outbox and are fanned out again, under the same delivery ids)
 * and recorded successes (those deliveries are sent again, under the same ids). Failures,
 * retry schedules and pauses commit durably, and any durable commit flushes what came
 * before it. What it is worth is measured in docs/performance.md.
 */
export const relaxedCommit = sql<string>`select set_config('synchronous_commit', 'off', true) as setting`;

/** Per-endpoint room of a claim. */
export interface ClaimCaps {
  /** How many deliveries a claim may take of an endpoint not listed in `endpoints`. */
  perEndpoint: number;
  /**
   * Endpoints with a room of their own (deliveries already held here, or a pace the worker
   * has measured), and how many more each may take.
   */
  endpoints: Array<{ endpointId: string; remaining: number }>;
}

/**
 * Fan-out, in one statement: takes up to `events` outbox events (SKIP LOCKED, so
 * concurrent workers take different ones), deletes them and inserts one delivery
 * per (event, enabled endpoint of its workspace subscribed to its type), once ever (a
 * second fan-out of the same event inserts nothing). Up to `claim` of the new deliveries,
 * within the per-endpoint caps, are inserted already claimed by the caller (lease, attempt
 * 1) and returned ready to send, with their body (webhook_events): the first attempt
 * costs no claim query. The others are inserted unclaimed, for
 * `claimDueDeliveries`. A delivery's id is derived from its endpoint and event
 * (webhook_delivery_id, migration 0006), so the primary key makes fan-out happen once.
 */
export async function fanOutAndClaim(
  db: Kysely<Database>,
  input: { now: Date; until: Date; events: number; claim: number; caps: ClaimCaps },
): Promise<{ events: number; unclaimed: number; claimed: ClaimedDelivery[] }> {
  const { now, until, caps } = input;
  const lease = deliveryQueue.takenOnInsert(sql`claimed`, until);
  const result = await sql<{ events: number; unclaimed: number; relaxed: string } & Partial<ClaimedDelivery>>`
    with relaxed as (${relaxedCommit}),
    events as (
      select seq, event_id, workspace_id, type
      from outbox
      order by seq
      limit ${input.events}
      for update skip locked
    ),
    taken as (
      -- = any(array(...)): through the primary key; "in" was a hash join over the whole outbox.
      delete from outbox where seq = any(array(select seq from events))
      returning seq
    ),
    endpoints as (
      -- Each endpoint fanned out to, locked once (FOR KEY SHARE, as a foreign key would for
      -- every row): deleting it waits for this statement, then deletes what it wrote.
      select id, workspace_id, events
      from webhook_endpoints
      where enabled and workspace_id in (select workspace_id from events)
      for key share
    ),
    pairs as (
      select ev.seq, ev.event_id, ev.workspace_id, ev.type, e.id as endpoint_id,
             row_number() over (order by ev.seq, e.id) <= ${input.claim}
               and row_number() over (partition by e.id order by ev.seq)
                   <= coalesce(cap.remaining, ${caps.perEndpoint}) as claimed
      from events ev
      join endpoints e on e.workspace_id = ev.workspace_id and ev.type = any(e.events)
      left join unnest(
        ${pgArray(caps.endpoints.map((r) => r.endpointId))}::uuid[],
        ${pgArray(caps.endpoints.map((r) => r.remaining))}::int[]
      ) as cap(endpoint_id, remaining) on cap.endpoint_id = e.id
    ),
    inserted as (
      insert into webhook_deliveries
        (id, workspace_id, endpoint_id, event_id, event_type, next_attempt_at, created_at,
         ${lease.columns}, last_attempt_at)
      select webhook_delivery_id(endpoint_id, event_id), workspace_id, endpoint_id, event_id, type,
             ${now}::timestamptz, ${now}::timestamptz,
             ${lease.values},
             case when claimed then ${now}::timestamptz end
      from pairs
      order by seq, endpoint_id
      on conflict (id) do nothing
      returning id, workspace_id, endpoint_id, event_id, event_type, attempts, ${deliveryQueue.isHeld()} as held
    ),
    summary as (
      select (select count(*) from taken)::int as events,
             (select count(*) from inserted where not held)::int as unclaimed,
             (select setting from relaxed) as relaxed
    )
    select s.events, s.unclaimed, s.relaxed, i.id, i.workspace_id, i.endpoint_id, i.event_id, i.event_type,
           -- A subquery per row (a primary-key probe), never flattened into a join that stale
           -- statistics could turn into a scan of every body.
           (select b.payload::text from webhook_events b where b.id = i.event_id) as payload,
           i.attempts, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at
    from summary s
    left join (inserted i join webhook_endpoints e on e.id = i.endpoint_id) on i.held
  `.execute(db);
  const first = result.rows[0];
  return {
    events: first?.events ?? 0,
    unclaimed: first?.unclaimed ?? 0,
    claimed: result.rows
      .filter((row) => row.id)
      .map(({ events: _, unclaimed: __, relaxed: ___, ...delivery }) => delivery as ClaimedDelivery),
  };
}

/**
 * "Still pending" for statements that find their rows by id: written so that it does not
 * match the due index's predicate (status is one of three values, by its check), so the
 * planner cannot pair the primary key with a scan of the whole due index, whose dead
 * entries pile up under load. It did, and each batch of outcomes cost the whole backlog.
 */
export const stillPending = sql<boolean>`status not in ('delivered', 'dropped')`;

export interface ClaimedDelivery {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  /** The body exactly as stored (JSON text): sent as is, never parsed and re-serialised. */
  payload: string;
  attempts: number;
  url: string;
  secret: string;
  /** The endpoint's previous secret and its end: it signs too until then (signature.ts). */
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/**
 * Claims up to `limit` due deliveries of enabled endpoints for a lease, within the
 * per-endpoint caps, oldest first, skipping rows other workers hold. The attempt number is
 * counted at claim time, so a worker that dies mid-send has still used that attempt. A
 * row's payload is null when its body was pruned; what that means is the caller's to decide.
 */
export async function claimDueDeliveries(
  db: Kysely<Database>,
  input: {
    now: Date;
    until: Date;
    limit: number;
    caps: ClaimCaps;
  },
): Promise<ClaimedRow[]> {
  const { endpoints, perEndpoint } = input.caps;
  const ids = endpoints.map((r) => r.endpointId);
  const remaining = endpoints.map((r) => r.remaining);
  const saturated = endpoints.filter((r) => r.remaining <= 0).map((r) => r.endpointId);
  const result = await sql<ClaimedRow>`
    with due as (
      -- A window of the earliest pending rows, walked in the order of the partial index
      -- and cut by the limit, before any per-endpoint ranking. Due rows come first in that
      -- order, so the due test is applied to the window, outside the scan: as an index
      -- condition it let the planner read and sort every due row of a backlog instead.
      select d.id, d.endpoint_id, d.next_attempt_at
      from webhook_deliveries d
      where d.status = 'pending'
        and ${deliveryQueue.free(input.now, 'd')}
        -- Endpoints with no room left here stay out, or their backlog would fill this window.
        and not (d.endpoint_id = any(${pgArray(saturated)}::uuid[]))
      order by d.next_attempt_at
      limit ${input.limit * 20}
    ),
    candidates as (
      select due.id,
             row_number() over (partition by due.endpoint_id order by due.next_attempt_at, due.id) as rank,
             coalesce(cap.remaining, ${perEndpoint}) as allowed
      from due
      join webhook_endpoints e on e.id = due.endpoint_id and e.enabled
        and due.next_attempt_at <= ${input.now}
      left join unnest(${pgArray(ids)}::uuid[], ${pgArray(remaining)}::int[]) as cap(endpoint_id, remaining)
        on cap.endpoint_id = due.endpoint_id
    ),
    picked as (
      select d.id
      from webhook_deliveries d
      where d.id in (select id from candidates where rank <= allowed)
        and ${stillPending}
        and ${deliveryQueue.free(input.now, 'd')}
      order by d.next_attempt_at, d.id
      limit ${input.limit}
      for update of d skip locked
    )
    update webhook_deliveries d
    set ${deliveryQueue.taking(input.until, 'd')}, last_attempt_at = ${input.now}
    from picked, webhook_endpoints e
    where d.id = picked.id and e.id = d.endpoint_id
    returning d.id, d.workspace_id, d.endpoint_id, d.event_id, d.event_type,
              (select b.payload::text from webhook_events b where b.id = d.event_id) as payload, d.attempts,
              e.url, e.secret, e.previous_secret, e.previous_secret_expires_at
  `.execute(db);
  return result.rows;
}

/** A claimed row as the claim returns it: the body may have been pruned. */
export type ClaimedRow = Omit<ClaimedDelivery, 'payload'> & { payload: string | null };

/** Drops deliveries that will never be sent (their lease ends with them). */
export async function dropDeliveries(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'dropped', ...deliveryQueue.leaseEnded() })
    .where('id', 'in', ids)
    .execute();
}

/**
 * Gives claimed, unsent deliveries back (a worker stopping, or one that waited too long for
 * a slot), undoing their attempt count: only those still held under the lease this worker
 * took (`until`), so a hand-back that comes after the lease ran out and another worker
 * claimed the delivery leaves that claim alone.
 */
export async function releaseDeliveries(
  db: Db,
  deliveries: Array<{ id: string; until: Date }>,
): Promise<void> {
  await deliveryQueue.release(
    db,
    deliveries.map(({ id, until }) => deliveryQueue.hold([id], until)),
    { undoAttempt: true, where: stillPending },
  );
}
