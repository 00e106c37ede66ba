// Deliveries as the rest of Signet sees them: the Test button's ping, a dropped delivery
// resent by hand, and the recent deliveries of an endpoint with their attempts (the web
// application's delivery log, and the API's).
import type { Context } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import {
  claimForResend,
  countAttemptsByHour,
  findAttemptsOf,
  findDeliveryWithBody,
  findRecentDeliveries,
  finishResend,
  insertPingDelivery,
} from './deliveries.repository.ts';
import { deliveryQueue } from './delivery-queue.ts';
import { findEndpointWithSecret } from './endpoints.repository.ts';
import { insertWebhookEvent } from './outbox.repository.ts';
import { insertAttempt, lockEndpoints, settleDelivery } from './outcomes.repository.ts';
import { attemptRow } from './outcomes.ts';
import { buildRequest } from './request.ts';
import { sendWebhook } from './sender.ts';

/** One signed request sent now, outside the dispatcher (a ping, a resend): when it started, how it ended. */
async function sendNow(ctx: Context, delivery: Parameters<typeof buildRequest>[0]) {
  const startedAt = ctx.clock.now();
  const result = await sendWebhook(buildRequest(delivery, startedAt), {
    timeoutMs: ctx.config.webhooks.timeoutMs,
    policy: ctx.config.webhooks,
    resolver: ctx.resolver,
  });
  return { startedAt, result };
}

export interface PingResult {
  deliveryId: string;
  eventId: string;
  ok: boolean;
  statusCode: number | null;
  errorClass: string | null;
  durationMs: number;
  /** For `blocked`: which destination rule refused which address. */
  refusal?: string;
}

/**
 * Sends one `ping` to an endpoint, now, because someone asked (the Test button, or
 * `signet webhook test`). Signed like any delivery; recorded with its one attempt; never
 * retried; it does not touch the endpoint's failure count. Works on a paused endpoint
 * too, so an operator can check a receiver before switching it back on.
 */
export async function sendPing(ctx: Context, workspaceId: string, endpointId: string): Promise<PingResult> {
  const now = ctx.clock.now();
  const deliveryId = ctx.ids.uuid();
  const eventId = ctx.ids.uuid();
  const body = JSON.stringify({
    id: eventId,
    type: 'ping',
    createdAt: now.toISOString(),
    data: { message: 'Test delivery from Signet: this endpoint can receive webhooks.' },
  });
  // Under the endpoint's row lock: its deletion cannot slip between the look-up and the
  // insert (it deletes the deliveries it finds once this commits).
  const endpoint = await ctx.db.transaction().execute(async (trx) => {
    await lockEndpoints(trx, [endpointId]);
    const found = await findEndpointWithSecret(trx, workspaceId, endpointId);
    if (!found) throw new ApiError('not-found');
    await insertWebhookEvent(trx, {
      id: eventId,
      workspace_id: workspaceId,
      type: 'ping',
      payload: body,
      created_at: now,
    });
    await insertPingDelivery(trx, {
      id: deliveryId,
      workspace_id: workspaceId,
      endpoint_id: endpointId,
      event_id: eventId,
      event_type: 'ping',
      next_attempt_at: now,
      ...deliveryQueue.heldOnInsert(deliveryQueue.leaseFrom(now, ctx.config)),
      last_attempt_at: now,
      created_at: now,
    });
    return found;
  });
  // The endpoint's url and secrets (both during a rotation's overlap), this delivery's id.
  const { startedAt, result } = await sendNow(ctx, {
    ...endpoint,
    id: deliveryId,
    event_type: 'ping',
    payload: body,
  });
  await ctx.db.transaction().execute(async (trx) => {
    const at = ctx.clock.now();
    if (await settleDelivery(trx, deliveryId, { status: result.ok ? 'delivered' : 'dropped', at })) {
      const ping = { id: deliveryId, workspace_id: workspaceId, endpoint_id: endpointId, attempts: 1 };
      await insertAttempt(trx, attemptRow(ping, startedAt, result));
    }
  });
  return {
    deliveryId,
    eventId,
    ok: result.ok,
    statusCode: result.statusCode,
    errorClass: result.errorClass,
    durationMs: result.durationMs,
    ...(result.refusal ? { refusal: result.refusal } : {}),
  };
}

export interface ResendResult {
  deliveryId: string;
  /** The attempt this resend was, in the delivery's numbering. */
  attempt: number;
  delivered: boolean;
  statusCode: number | null;
  errorClass: string | null;
  durationMs: number;
}

/**
 * Sends a dropped delivery once more, now, because someone asked (the delivery log's
 * Resend, or the API): the same delivery with the same `X-Service-Delivery-Id` and body,
 * signed anew, recorded as its next attempt; delivered if it succeeds, dropped as before if
 * not. Only a delivery that was dropped (its attempts failed, or its endpoint was paused)
 * and whose body is still kept: one still pending is retried on its own schedule. Not a
 * replay of missed events (events are never created for a paused endpoint), and like a
 * ping it leaves the endpoint's failure count alone.
 */
export async function resendDelivery(
  ctx: Context,
  workspaceId: string,
  endpointId: string,
  deliveryId: string,
): Promise<ResendResult> {
  const now = ctx.clock.now();
  const claimed = await ctx.db.transaction().execute(async (trx) => {
    await lockEndpoints(trx, [endpointId]);
    const endpoint = await findEndpointWithSecret(trx, workspaceId, endpointId);
    const row = endpoint ? await findDeliveryWithBody(trx, workspaceId, endpointId, deliveryId) : undefined;
    if (!endpoint || !row) throw new ApiError('not-found');
    if (row.status !== 'dropped' || row.payload === null) throw new ApiError('delivery-not-resendable');
    const until = deliveryQueue.leaseFrom(now, ctx.config);
    const attempt = await claimForResend(trx, row.id, now, until);
    if (attempt === null) throw new ApiError('delivery-not-resendable');
    return { endpoint, row: { ...row, payload: row.payload }, attempt };
  });
  const { endpoint, row, attempt } = claimed;
  const { startedAt, result } = await sendNow(ctx, {
    ...endpoint,
    id: row.id,
    event_type: row.event_type,
    payload: row.payload,
  });
  await ctx.db.transaction().execute(async (trx) => {
    const delivery = { id: row.id, workspace_id: workspaceId, endpoint_id: endpointId, attempts: attempt };
    await insertAttempt(trx, attemptRow(delivery, startedAt, result));
    await finishResend(trx, row.id, result.ok, ctx.clock.now());
  });
  return {
    deliveryId: row.id,
    attempt,
    delivered: result.ok,
    statusCode: result.statusCode,
    errorClass: result.errorClass,
    durationMs: result.durationMs,
  };
}

export interface DeliveryAttemptView {
  attempt: number;
  startedAt: string;
  durationMs: number;
  address: string | null;
  statusCode: number | null;
  errorClass: string | null;
  responseBody: string | null;
}

export interface DeliveryView {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  createdAt: string;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  attemptLog: DeliveryAttemptView[];
}

/** The most recent deliveries of an endpoint, newest first, each with its attempts. */
export async function listEndpointDeliveries(
  ctx: Context,
  workspaceId: string,
  endpointId: string,
  limit = 50,
  before: { createdAt: Date; id: string } | null = null,
): Promise<DeliveryView[]> {
  const deliveries = await findRecentDeliveries(ctx.db, workspaceId, endpointId, limit, before);
  const attempts = await findAttemptsOf(
    ctx.db,
    deliveries.map((d) => d.id),
  );
  return deliveries.map((d) => toDeliveryView(d, attempts));
}

type DeliveryRow = Awaited<ReturnType<typeof findRecentDeliveries>>[number];

function toDeliveryView(d: DeliveryRow, attempts: Awaited<ReturnType<typeof findAttemptsOf>>): DeliveryView {
  return {
    id: d.id,
    eventId: d.event_id,
    eventType: d.event_type,
    status: d.status,
    attempts: d.attempts,
    createdAt: d.created_at.toISOString(),
    nextAttemptAt: d.status === 'pending' ? d.next_attempt_at.toISOString() : null,
    deliveredAt: d.delivered_at?.toISOString() ?? null,
    attemptLog: attempts
      .filter((a) => a.delivery_id === d.id)
      .map((a) => ({
        attempt: a.attempt,
        startedAt: a.started_at.toISOString(),
        durationMs: a.duration_ms,
        address: a.address,
        statusCode: a.status_code,
        errorClass: a.error_class,
        responseBody: a.response_body,
      })),
  };
}

/** `<createdAt ISO>_<id>` of a page's last delivery: where the next page starts. */
function pageCursor(view: DeliveryView): string {
  return `${view.createdAt}_${view.id}`;
}

function parsePageCursor(cursor: string | null): { createdAt: Date; id: string } | null {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)_([0-9a-f-]{36})$/.exec(cursor ?? '');
  if (!match) return null;
  const createdAt = new Date(match[1] as string);
  return Number.isNaN(createdAt.getTime()) ? null : { createdAt, id: match[2] as string };
}

/** A page of the delivery log (web application), and the cursor of the next one. */
export async function pageEndpointDeliveries(
  ctx: Context,
  workspaceId: string,
  endpointId: string,
  options: { limit: number; cursor: string | null },
): Promise<{ deliveries: DeliveryView[]; nextCursor: string | null }> {
  const before = parsePageCursor(options.cursor);
  if (options.cursor !== null && before === null) throw new ApiError('invalid-cursor');
  const views = await listEndpointDeliveries(ctx, workspaceId, endpointId, options.limit + 1, before);
  const deliveries = views.slice(0, options.limit);
  const last = deliveries.at(-1);
  return { deliveries, nextCursor: views.length > options.limit && last ? pageCursor(last) : null };
}

export interface DeliveryDetail extends DeliveryView {
  /** The body every attempt sent, byte for byte; null once retention pruned it. */
  body: string | null;
  /**
   * The headers each attempt sent, rebuilt from its start time: the signature too, unless
   * the attempt was signed before the endpoint's last rotation (`signedBeforeRotation`),
   * with a secret that is no longer kept whole.
   */
  requests: Array<{ attempt: number; headers: Record<string, string>; signedBeforeRotation: boolean }>;
}

/** One delivery with the exact requests it made, so a receiver can verify by hand. */
export async function getDeliveryDetail(
  ctx: Context,
  workspaceId: string,
  endpointId: string,
  deliveryId: string,
): Promise<DeliveryDetail> {
  const endpoint = await findEndpointWithSecret(ctx.db, workspaceId, endpointId);
  const row = endpoint ? await findDeliveryWithBody(ctx.db, workspaceId, endpointId, deliveryId) : undefined;
  if (!endpoint || !row) throw new ApiError('not-found');
  const view = toDeliveryView(row, await findAttemptsOf(ctx.db, [row.id]));
  const body = row.payload;
  return {
    ...view,
    body,
    requests:
      body === null
        ? []
        : view.attemptLog.map((attempt) => {
            const startedAt = new Date(attempt.startedAt);
            const { headers } = buildRequest(
              { ...endpoint, id: row.id, event_type: row.event_type, payload: body },
              startedAt,
            );
            const rotatedAt = endpoint.secret_rotated_at;
            const signedBeforeRotation = rotatedAt !== null && startedAt.getTime() < rotatedAt.getTime();
            if (!signedBeforeRotation) return { attempt: attempt.attempt, headers, signedBeforeRotation };
            const { 'x-service-signature': _, ...unsigned } = headers;
            return { attempt: attempt.attempt, headers: unsigned, signedBeforeRotation };
          }),
  };
}

export interface HourlyAttempts {
  hour: string;
  delivered: number;
  failed: number;
}

/** Retries come at most about 3 hours after a delivery is created (5 min, 30 min, 2 h and sweeps). */
const retryReachMs = 4 * 60 * 60 * 1000;

/** Delivered and failed attempts per hour over the last 24 hours, oldest first, 24 entries. */
export async function hourlyAttempts(
  ctx: Context,
  workspaceId: string,
  endpointId: string,
): Promise<HourlyAttempts[]> {
  const now = ctx.clock.now();
  const currentHour = Math.floor(now.getTime() / 3_600_000) * 3_600_000;
  const since = new Date(currentHour - 23 * 3_600_000);
  const rows = await countAttemptsByHour(
    ctx.db,
    workspaceId,
    endpointId,
    since,
    new Date(since.getTime() - retryReachMs),
  );
  const byHour = new Map(rows.map((r) => [new Date(r.hour).getTime(), r]));
  return Array.from({ length: 24 }, (_, i) => {
    const hour = since.getTime() + i * 3_600_000;
    const row = byHour.get(hour);
    return { hour: new Date(hour).toISOString(), delivered: row?.delivered ?? 0, failed: row?.failed ?? 0 };
  });
}
