// Deliveries as the rest of Signet sees them: the Test button's ping, and the recent
// deliveries of an endpoint with their attempts (the web application's delivery log).
import type { Context } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import {
  findAttemptsOf,
  findRecentDeliveries,
  insertAttempt,
  insertPingDelivery,
  insertWebhookEvent,
  lockEndpoints,
  settleDelivery,
} from './deliveries.repository.ts';
import { attemptRow, buildRequest, leaseMs } from './dispatcher.ts';
import { findEndpointWithSecret } from './endpoints.repository.ts';
import { sendWebhook } from './sender.ts';

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
      attempts: 1,
      next_attempt_at: now,
      locked_until: new Date(now.getTime() + leaseMs(ctx.config.webhooks.timeoutMs)),
      last_attempt_at: now,
      created_at: now,
    });
    return found;
  });
  const startedAt = ctx.clock.now();
  const result = await sendWebhook(
    buildRequest(ctx, {
      id: deliveryId,
      url: endpoint.url,
      secret: endpoint.secret,
      event_type: 'ping',
      payload: body,
    }),
    { timeoutMs: ctx.config.webhooks.timeoutMs, policy: ctx.config.webhooks, resolver: ctx.resolver },
  );
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
): Promise<DeliveryView[]> {
  const deliveries = await findRecentDeliveries(ctx.db, workspaceId, endpointId, limit);
  const attempts = await findAttemptsOf(
    ctx.db,
    deliveries.map((d) => d.id),
  );
  return deliveries.map((d) => ({
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
  }));
}
