// Queries of the delivery engine: the outbox, deliveries and attempts. Workers claim
// rows with FOR UPDATE SKIP LOCKED and a lease, so any number of processes share the
// work and a dead worker's rows come back when its lease ends. Times come from the
// caller (ctx.clock), never from now(), so tests can move time.
import { type Insertable, type Kysely, sql, type Transaction } from 'kysely';
import { pgArray } from '../db/arrays.ts';
import type { Database } from '../db/schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

export const outboxChannel = 'signet_outbox';
export const deliveriesChannel = 'signet_deliveries';

export async function lockPendingOutbox(trx: Transaction<Database>, limit: number) {
  return trx
    .selectFrom('outbox')
    .select(['seq', 'event_id', 'workspace_id', 'type', sql<string>`payload::text`.as('payload')])
    .where('processed_at', 'is', null)
    .orderBy('seq')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

export async function findEnabledEndpointsOf(db: Db, workspaceIds: string[]) {
  if (workspaceIds.length === 0) return [];
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'workspace_id', 'events'])
    .where('workspace_id', 'in', workspaceIds)
    .where('enabled', '=', true)
    .execute();
}

/** One delivery per (event, endpoint), ever: a second fan-out of the same event inserts nothing. */
export async function insertDeliveries(
  db: Db,
  rows: Array<{
    id: string;
    workspace_id: string;
    endpoint_id: string;
    event_id: string;
    event_type: string;
    payload: string;
    next_attempt_at: Date;
    created_at: Date;
  }>,
): Promise<number> {
  if (rows.length === 0) return 0;
  const column = <K extends keyof (typeof rows)[number]>(key: K) =>
    pgArray(rows.map((r) => r[key] as string));
  const result = await sql<{ id: string }>`
    insert into webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, payload, next_attempt_at, created_at)
    select * from unnest(
      ${column('id')}::uuid[], ${column('workspace_id')}::uuid[], ${column('endpoint_id')}::uuid[],
      ${column('event_id')}::uuid[], ${column('event_type')}::text[], ${column('payload')}::json[],
      ${pgArray(rows.map((r) => r.next_attempt_at.toISOString()))}::timestamptz[],
      ${pgArray(rows.map((r) => r.created_at.toISOString()))}::timestamptz[]
    )
    on conflict (event_id, endpoint_id) do nothing
    returning id
  `.execute(db);
  return result.rows.length;
}

export async function markOutboxProcessed(db: Db, seqs: number[], at: Date): Promise<void> {
  if (seqs.length > 0)
    await db.updateTable('outbox').set({ processed_at: at }).where('seq', 'in', seqs).execute();
}

export interface ClaimedDelivery {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string | null;
  event_type: string;
  /** The body exactly as stored (JSON text): sent as is, never parsed and re-serialised. */
  payload: string;
  attempts: number;
  url: string;
  secret: string;
}

/**
 * Claims up to `limit` due deliveries of enabled endpoints for a lease, at most
 * `capacity(endpoint)` per endpoint, oldest first, skipping rows other workers hold.
 * The attempt number is counted at claim time, so a worker that dies mid-send has
 * still used that attempt.
 */
export async function claimDueDeliveries(
  db: Kysely<Database>,
  input: {
    now: Date;
    leaseUntil: Date;
    limit: number;
    perEndpoint: number;
    /** Endpoints with attempts already in flight here, and how many more each may take. */
    reduced: Array<{ endpointId: string; remaining: number }>;
  },
): Promise<ClaimedDelivery[]> {
  const ids = input.reduced.map((r) => r.endpointId);
  const remaining = input.reduced.map((r) => r.remaining);
  const saturated = input.reduced.filter((r) => r.remaining <= 0).map((r) => r.endpointId);
  const result = await sql<ClaimedDelivery>`
    with due as (
      -- The oldest due rows first, through the partial index, before any per-endpoint
      -- ranking: ranking every pending row made each claim cost the whole backlog.
      select d.id, d.endpoint_id, d.next_attempt_at
      from webhook_deliveries d
      where d.status = 'pending'
        and d.next_attempt_at <= ${input.now}
        and (d.locked_until is null or d.locked_until <= ${input.now})
        -- Endpoints with no room left here stay out, or their backlog would fill this window.
        and not (d.endpoint_id = any(${pgArray(saturated)}::uuid[]))
      order by d.next_attempt_at, d.id
      limit ${input.limit * 20}
    ),
    candidates as (
      select due.id,
             row_number() over (partition by due.endpoint_id order by due.next_attempt_at, due.id) as rank,
             coalesce(cap.remaining, ${input.perEndpoint}) as allowed
      from due
      join webhook_endpoints e on e.id = due.endpoint_id and e.enabled
      left join unnest(${pgArray(ids)}::uuid[], ${pgArray(remaining)}::int[]) as cap(endpoint_id, remaining)
        on cap.endpoint_id = due.endpoint_id
    ),
    picked as (
      select d.id
      from webhook_deliveries d
      where d.id in (select id from candidates where rank <= allowed)
        and d.status = 'pending'
        and (d.locked_until is null or d.locked_until <= ${input.now})
      order by d.next_attempt_at, d.id
      limit ${input.limit}
      for update of d skip locked
    )
    update webhook_deliveries d
    set locked_until = ${input.leaseUntil}, attempts = d.attempts + 1, last_attempt_at = ${input.now}
    from picked, webhook_endpoints e
    where d.id = picked.id and e.id = d.endpoint_id
    returning d.id, d.workspace_id, d.endpoint_id, d.event_id, d.event_type, d.payload::text as payload, d.attempts,
              e.url, e.secret
  `.execute(db);
  return result.rows;
}

/** Gives claimed, unsent deliveries back (a worker stopping), undoing their attempt count. */
export async function releaseDeliveries(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ locked_until: null, attempts: sql`attempts - 1` })
    .where('id', 'in', ids)
    .where('status', '=', 'pending')
    .execute();
}

export async function insertAttempt(db: Db, row: Insertable<Database['webhook_attempts']>): Promise<void> {
  await db.insertInto('webhook_attempts').values(row).execute();
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
    .where('status', '=', 'pending')
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

/** Marks many claimed, still pending deliveries delivered; returns the ids it settled. */
export async function settleDeliveries(db: Db, ids: string[], at: Date): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const result = await sql<{ id: string }>`
    update webhook_deliveries set status = 'delivered', delivered_at = ${at}, locked_until = null
    where id = any(${pgArray(ids)}::uuid[]) and status = 'pending'
    returning id
  `.execute(db);
  return new Set(result.rows.map((r) => r.id));
}

export type AttemptRow = Insertable<Database['webhook_attempts']>;

export async function insertAttempts(db: Db, rows: AttemptRow[]): Promise<void> {
  if (rows.length === 0) return;
  const column = (pick: (row: AttemptRow) => string | number | null | undefined) =>
    pgArray(rows.map((row) => pick(row) ?? null));
  await sql`
    insert into webhook_attempts
      (id, delivery_id, workspace_id, endpoint_id, attempt, started_at, duration_ms, address, status_code, error_class, response_body)
    select * from unnest(
      ${column((r) => r.id)}::uuid[], ${column((r) => r.delivery_id)}::uuid[], ${column((r) => r.workspace_id)}::uuid[],
      ${column((r) => r.endpoint_id)}::uuid[], ${column((r) => r.attempt)}::int[],
      ${column((r) => (r.started_at as Date).toISOString())}::timestamptz[], ${column((r) => r.duration_ms)}::int[],
      ${column((r) => r.address)}::text[], ${column((r) => r.status_code)}::int[], ${column((r) => r.error_class)}::text[],
      ${column((r) => r.response_body)}::text[]
    )
  `.execute(db);
}

/** A success resets the consecutive-failure count of its endpoint. */
export async function resetFailuresOf(db: Db, endpointIds: string[]): Promise<void> {
  if (endpointIds.length === 0) return;
  await sql`
    update webhook_endpoints set failure_count = 0
    where id = any(${pgArray(endpointIds)}::uuid[]) and failure_count <> 0
  `.execute(db);
}

/** Row locks on endpoints, always in id order (no two transactions wait on each other). */
export async function lockEndpoints(trx: Transaction<Database>, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    select id from webhook_endpoints where id = any(${pgArray(ids)}::uuid[]) order by id for update
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

export async function disableEndpointForFailures(db: Db, endpointId: string, at: Date): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ enabled: false, disabled_reason: 'failures', updated_at: at })
    .where('id', '=', endpointId)
    .execute();
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

/** Deletes deliveries (their attempts go with them) and processed outbox rows older than `before`. */
export async function pruneDeliveries(db: Db, before: Date): Promise<{ deliveries: number; outbox: number }> {
  const deliveries = await db
    .deleteFrom('webhook_deliveries')
    .where('created_at', '<', before)
    .executeTakeFirst();
  const outbox = await db.deleteFrom('outbox').where('processed_at', '<', before).executeTakeFirst();
  return { deliveries: Number(deliveries.numDeletedRows), outbox: Number(outbox.numDeletedRows) };
}

export async function findRecentDeliveries(db: Db, workspaceId: string, endpointId: string, limit: number) {
  return db
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
    .where('endpoint_id', '=', endpointId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
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
