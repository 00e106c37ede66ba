// One attempt's request (spec, Delivery request): the stored body as is, the headers and
// the signature made at the attempt's start, and the attempt itself through sender.ts.
// Deliveries, pings and `signet listen` all build their requests here.
import type { Context } from '../context.ts';
import type { ClaimedDelivery } from './claims.repository.ts';
import { type AttemptResult, type ConnectionPool, sendWebhook } from './sender.ts';
import { type EndpointSecrets, signatureHeader, signingSecrets } from './signature.ts';

export const userAgent = 'Service-Webhooks/1.0';

/**
 * The request of one attempt, signed with the attempt's start time: the same instant is
 * recorded as the attempt's `started_at`, so its exact headers can be shown again later.
 * It is signed with every secret valid at that instant (two during a rotation's overlap).
 */
export function buildRequest(
  delivery: Pick<ClaimedDelivery, 'id' | 'url' | 'event_type' | 'payload'> & EndpointSecrets,
  startedAt: Date,
) {
  const body = delivery.payload;
  const timestamp = startedAt.toISOString();
  return {
    url: delivery.url,
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': userAgent,
      'x-service-event': delivery.event_type,
      'x-service-delivery-id': delivery.id,
      'x-service-signature': signatureHeader(signingSecrets(delivery, startedAt), timestamp, body),
    },
  };
}

/** Sends one attempt of a claimed delivery; never throws (sender.ts classifies failures). */
export async function sendAttempt(
  ctx: Context,
  delivery: ClaimedDelivery,
  pool?: ConnectionPool,
): Promise<{ startedAt: Date; result: AttemptResult }> {
  const startedAt = ctx.clock.now();
  const result = await sendWebhook(buildRequest(delivery, startedAt), {
    timeoutMs: ctx.config.webhooks.timeoutMs,
    policy: ctx.config.webhooks,
    resolver: ctx.resolver,
    ...(pool ? { pool } : {}),
  });
  return { startedAt, result };
}
