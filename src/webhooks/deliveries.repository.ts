// Queries of the delivery engine: the outbox, deliveries and attempts. Workers claim
// rows with FOR UPDATE SKIP LOCKED and a lease, so any number of processes share the
// work and a dead worker's rows come back when its lease ends. Times come from the
// caller (ctx.clock), never from now(), so tests can move time.
import { type Insertable, type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import { pgArray } from '../db/arrays.ts';
import type { Database } from '../db/schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

export const outboxChannel = 'signet_outbox';
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
const relaxedCommit = sql<string>`select set_config('synchronous_commit', 'off', true) as setting`;

export type WebhookEventRow = Insertable<Database['webhook_events']>;

/** Stores a webhook body once, for every delivery of it (pings too). */
export async function insertWebhookEvent(db: Db, row: WebhookEventRow): Promise<void> {
  await db.insertInto('webhook_events').values(row).execute();
}

/** Stores an event's webhook body and queues the event for fan-out, in one statement. */
export async function queueWebhookEvent(db: Db, row: WebhookEventRow): Promise<void> {
  await sql`
    with body as (
      insert into webhook_events (id, workspace_id, type, payload, created_at)
      values (${row.id}, ${row.workspace_id}, ${row.type}, ${row.payload}, ${row.created_at})
    )
    insert into outbox (event_id, workspace_id, type, created_at)
    values (${row.id}, ${row.workspace_id}, ${row.type}, ${row.created_at})
  `.execute(db);
}

/** A workspace's event bodies stored since `since`, oldest first (`signet listen`). */
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
  input: { now: Date; leaseUntil: Date; events: number; claim: number; caps: ClaimCaps },
): Promise<{ events: number; unclaimed: number; claimed: ClaimedDelivery[] }> {
  const { now, leaseUntil, caps } = input;
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
         locked_until, attempts, last_attempt_at)
      select webhook_delivery_id(endpoint_id, event_id), workspace_id, endpoint_id, event_id, type,
             ${now}::timestamptz, ${now}::timestamptz,
             case when claimed then ${leaseUntil}::timestamptz end,
             case when claimed then 1 else 0 end,
             case when claimed then ${now}::timestamptz end
      from pairs
      order by seq, endpoint_id
      on conflict (id) do nothing
      returning id, workspace_id, endpoint_id, event_id, event_type, attempts, locked_until
    ),
    summary as (
      select (select count(*) from taken)::int as events,
             (select count(*) from inserted where locked_until is null)::int as unclaimed,
             (select setting from relaxed) as relaxed
    )
    select s.events, s.unclaimed, s.relaxed, i.id, i.workspace_id, i.endpoint_id, i.event_id, i.event_type,
           -- A subquery per row (a primary-key probe), never flattened into a join that stale
           -- statistics could turn into a scan of every body.
           (select b.payload::text from webhook_events b where b.id = i.event_id) as payload,
           i.attempts, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at
    from summary s
    left join (inserted i join webhook_endpoints e on e.id = i.endpoint_id) on i.locked_until is not null
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
const stillPending = sql<boolean>`status not in ('delivered', 'dropped')`;

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
    leaseUntil: Date;
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
        and (d.locked_until is null or d.locked_until <= ${input.now})
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
        and (d.locked_until is null or d.locked_until <= ${input.now})
      order by d.next_attempt_at, d.id
      limit ${input.limit}
      for update of d skip locked
    )
    update webhook_deliveries d
    set locked_until = ${input.leaseUntil}, attempts = d.attempts + 1, last_attempt_at = ${input.now}
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
    .set({ status: 'dropped', locked_until: null })
    .where('id', 'in', ids)
    .execute();
}

/**
 * Gives claimed, unsent deliveries back (a worker stopping, or one that waited too long for
 * a slot), undoing their attempt count: only those still held under the lease this worker
 * took (`leaseUntil`), so a hand-back that comes after the lease ran out and another
 * worker claimed the delivery leaves that claim alone.
 */
export async function releaseDeliveries(
  db: Db,
  deliveries: Array<{ id: string; leaseUntil: Date }>,
): Promise<void> {
  const byLease = new Map<number, string[]>();
  for (const { id, leaseUntil } of deliveries) {
    const ids = byLease.get(leaseUntil.getTime()) ?? [];
    ids.push(id);
    byLease.set(leaseUntil.getTime(), ids);
  }
  for (const [lease, ids] of byLease) {
    await db
      .updateTable('webhook_deliveries')
      .set({ locked_until: null, attempts: sql`attempts - 1` })
      .where('id', 'in', ids)
      .where('locked_until', '=', new Date(lease))
      .where(stillPending)
      .execute();
  }
}

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
      locked_until: null,
      ...(outcome.status === 'delivered' ? { delivered_at: outcome.at } : {}),
      ...(outcome.nextAttemptAt ? { next_attempt_at: outcome.nextAttemptAt } : {}),
    })
    .where('id', '=', id)
    .where(stillPending)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Takes a dropped delivery for a resend: its next attempt counted, leased until `until` so a
 * second resend cannot run beside it. False when it is not dropped, or already being resent.
 */
export async function claimForResend(db: Db, id: string, now: Date, until: Date): Promise<number | null> {
  const row = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), last_attempt_at: now, locked_until: until }))
    .where('id', '=', id)
    .where('status', '=', 'dropped')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .returning('attempts')
    .executeTakeFirst();
  return row?.attempts ?? null;
}

/** A resend's end: delivered if it succeeded, dropped as before if not; the lease released. */
export async function finishResend(db: Db, id: string, delivered: boolean, at: Date): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ locked_until: null, ...(delivered ? { status: 'delivered', delivered_at: at } : {}) })
    .where('id', '=', id)
    .execute();
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
      update webhook_deliveries set status = 'delivered', delivered_at = ${at}, locked_until = null
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
    .set({ status: 'dropped', locked_until: null })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
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
