// The webhook delivery engine (spec, Webhook delivery, Delivery outcome and retries,
// Webhook endpoint enablement):
// - fan-out: each outbox event becomes one delivery per enabled, subscribed endpoint of
//   its workspace, once (unique (event, endpoint), outbox rows locked SKIP LOCKED);
// - dispatch: due deliveries are claimed with a lease and sent with bounded concurrency,
//   overall and per endpoint, so one slow receiver cannot starve the others;
// - outcome: success resets the endpoint's consecutive failures; a failure counts one,
//   schedules the next retry (5 min, 30 min, 2 h minimum) or drops the delivery after
//   the 4th attempt, and the 20th consecutive failure switches the endpoint off and
//   drops its pending deliveries.
// First attempts go out as soon as the event commits (NOTIFY wakes every worker);
// retries go out with the sweep, every 10 minutes.
import type { Context } from '../context.ts';
import type { DatabaseHandle } from '../db/connect.ts';
import {
  addEndpointFailure,
  type ClaimedDelivery,
  claimDueDeliveries,
  deliveriesChannel,
  disableEndpointForFailures,
  dropPendingDeliveries,
  findEnabledEndpointsOf,
  insertAttempt,
  insertDeliveries,
  lockPendingOutbox,
  markOutboxProcessed,
  notifyChannel,
  outboxChannel,
  pruneDeliveries,
  resetEndpointFailures,
  settleDelivery,
} from './deliveries.repository.ts';
import { type AttemptResult, sendWebhook } from './sender.ts';
import { signatureHeader } from './signature.ts';

export const failuresBeforePause = 20;
export const userAgent = 'Service-Webhooks/1.0';

/** A lease outlives the request's deadline by a wide margin: a shorter one would send duplicates. */
export function leaseMs(timeoutMs: number): number {
  return timeoutMs + Math.max(5_000, timeoutMs);
}

/** Moves pending outbox events into deliveries; returns how many deliveries were created. */
export async function fanOutEvents(ctx: Context, batchSize = 200): Promise<number> {
  let created = 0;
  for (;;) {
    const { events, deliveries } = await ctx.db.transaction().execute(async (trx) => {
      const events = await lockPendingOutbox(trx, batchSize);
      if (events.length === 0) return { events: 0, deliveries: 0 };
      const now = ctx.clock.now();
      const endpoints = await findEnabledEndpointsOf(trx, [...new Set(events.map((e) => e.workspace_id))]);
      const rows = events.flatMap((event) =>
        endpoints
          .filter(
            (endpoint) =>
              endpoint.workspace_id === event.workspace_id && endpoint.events.includes(event.type),
          )
          .map((endpoint) => ({
            id: ctx.ids.uuid(),
            workspace_id: event.workspace_id,
            endpoint_id: endpoint.id,
            event_id: event.event_id,
            event_type: event.type,
            payload: JSON.stringify(event.payload),
            next_attempt_at: now,
            created_at: now,
          })),
      );
      const inserted = await insertDeliveries(trx, rows);
      await markOutboxProcessed(
        trx,
        events.map((e) => e.seq),
        now,
      );
      if (inserted > 0) await notifyChannel(trx, deliveriesChannel);
      return { events: events.length, deliveries: inserted };
    });
    created += deliveries;
    if (events < batchSize) return created;
  }
}

function buildRequest(
  ctx: Context,
  delivery: Pick<ClaimedDelivery, 'id' | 'url' | 'secret' | 'event_type' | 'payload'>,
) {
  const body = JSON.stringify(delivery.payload);
  const timestamp = ctx.clock.now().toISOString();
  return {
    url: delivery.url,
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': userAgent,
      'x-service-event': delivery.event_type,
      'x-service-delivery-id': delivery.id,
      'x-service-signature': signatureHeader(delivery.secret, timestamp, body),
    },
  };
}

async function attempt(
  ctx: Context,
  delivery: ClaimedDelivery,
): Promise<{ startedAt: Date; result: AttemptResult }> {
  const startedAt = ctx.clock.now();
  const result = await sendWebhook(buildRequest(ctx, delivery), {
    timeoutMs: ctx.config.webhooks.timeoutMs,
    policy: ctx.config.webhooks,
    resolver: ctx.resolver,
  });
  return { startedAt, result };
}

function attemptRow(ctx: Context, delivery: ClaimedDelivery, startedAt: Date, result: AttemptResult) {
  return {
    id: ctx.ids.uuid(),
    delivery_id: delivery.id,
    workspace_id: delivery.workspace_id,
    endpoint_id: delivery.endpoint_id,
    attempt: delivery.attempts,
    started_at: startedAt,
    duration_ms: result.durationMs,
    address: result.address,
    status_code: result.statusCode,
    error_class: result.errorClass,
    response_body: result.responseBody,
  };
}

/** Records one attempt of a document-event delivery and everything that follows from it. */
export async function recordOutcome(
  ctx: Context,
  delivery: ClaimedDelivery,
  startedAt: Date,
  result: AttemptResult,
): Promise<void> {
  const delays = ctx.config.webhooks.retryDelaysMs;
  await ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now();
    let settled: boolean;
    if (result.ok) {
      settled = await settleDelivery(trx, delivery.id, { status: 'delivered', at: now });
      if (settled) await resetEndpointFailures(trx, delivery.endpoint_id);
    } else {
      const delay = delays[delivery.attempts - 1];
      settled = await settleDelivery(
        trx,
        delivery.id,
        delay === undefined
          ? { status: 'dropped', at: now }
          : { status: 'pending', at: now, nextAttemptAt: new Date(now.getTime() + delay) },
      );
      if (settled) {
        const endpoint = await addEndpointFailure(trx, delivery.endpoint_id);
        if (endpoint?.enabled && endpoint.failure_count >= failuresBeforePause) {
          await disableEndpointForFailures(trx, delivery.endpoint_id, now);
          await dropPendingDeliveries(trx, delivery.endpoint_id);
          ctx.log.warn(
            { endpointId: delivery.endpoint_id },
            'webhook endpoint paused after consecutive failures',
          );
        }
      }
    }
    // A delivery whose endpoint was deleted meanwhile is gone: nothing to record.
    if (settled) await insertAttempt(trx, attemptRow(ctx, delivery, startedAt, result));
  });
}

export interface Dispatcher {
  /** Fan out pending events and send whatever is due now. */
  wake(): void;
  /** Wait until nothing is running or queued (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The in-process engine: reacts to NOTIFY (new events, new deliveries), runs the sweep
 * every `sweepIntervalMs`, and keeps at most `concurrency` attempts in flight, at most
 * `perEndpointConcurrency` per endpoint.
 */
export async function startDispatcher(
  ctx: Context,
  options: { subscribe: DatabaseHandle['subscribe'] },
): Promise<Dispatcher> {
  const { concurrency, perEndpointConcurrency, sweepIntervalMs, timeoutMs, retentionMs } =
    ctx.config.webhooks;
  const inFlight = new Map<string, number>();
  let total = 0;
  let stopped = false;
  let pumping: Promise<void> | null = null;
  let pumpAgain = false;
  const running = new Set<Promise<void>>();

  async function pumpOnce(): Promise<void> {
    await fanOutEvents(ctx);
    for (;;) {
      const capacity = concurrency - total;
      if (stopped || capacity <= 0) return;
      const now = ctx.clock.now();
      const claimed = await claimDueDeliveries(ctx.db, {
        now,
        leaseUntil: new Date(now.getTime() + leaseMs(timeoutMs)),
        limit: capacity,
        perEndpoint: perEndpointConcurrency,
        reduced: [...inFlight].map(([endpointId, n]) => ({
          endpointId,
          remaining: Math.max(0, perEndpointConcurrency - n),
        })),
      });
      for (const delivery of claimed) start(delivery);
      if (claimed.length < capacity) return;
    }
  }

  function start(delivery: ClaimedDelivery) {
    total++;
    inFlight.set(delivery.endpoint_id, (inFlight.get(delivery.endpoint_id) ?? 0) + 1);
    const task = attempt(ctx, delivery)
      .then(({ startedAt, result }) => recordOutcome(ctx, delivery, startedAt, result))
      .catch((error) =>
        ctx.log.error({ err: error, deliveryId: delivery.id }, 'recording a webhook attempt failed'),
      )
      .finally(() => {
        total--;
        const left = (inFlight.get(delivery.endpoint_id) ?? 1) - 1;
        if (left === 0) inFlight.delete(delivery.endpoint_id);
        else inFlight.set(delivery.endpoint_id, left);
        running.delete(task);
        wake();
      });
    running.add(task);
  }

  function wake() {
    if (stopped) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = pumpOnce()
      .catch((error) => ctx.log.error({ err: error }, 'webhook dispatch pass failed'))
      .finally(() => {
        pumping = null;
        if (pumpAgain) {
          pumpAgain = false;
          wake();
        }
      });
  }

  async function sweep() {
    wake();
    try {
      await pruneDeliveries(ctx.db, new Date(ctx.clock.now().getTime() - retentionMs));
    } catch (error) {
      ctx.log.error({ err: error }, 'pruning old webhook deliveries failed');
    }
  }

  const unsubscribers = [
    await options.subscribe(outboxChannel, { onNotify: wake, onStateChange: (on) => on && wake() }),
    await options.subscribe(deliveriesChannel, { onNotify: wake, onStateChange: () => {} }),
  ];
  const sweeper = setInterval(() => void sweep(), sweepIntervalMs);
  wake();

  return {
    wake,
    async idle() {
      for (;;) {
        if (pumping) await pumping;
        if (running.size > 0) await Promise.allSettled([...running]);
        if (!pumping && running.size === 0 && !pumpAgain) return;
      }
    },
    async stop() {
      stopped = true;
      clearInterval(sweeper);
      for (const unsubscribe of unsubscribers) await unsubscribe();
      if (pumping) await pumping;
      await Promise.allSettled([...running]);
    },
  };
}

/**
 * One synchronous pass: fan out, claim everything due (up to `limit`), send it and record
 * the outcomes. For tests (with a test clock) and one-shot tools; servers run startDispatcher.
 */
export async function deliverDue(ctx: Context, limit = 100): Promise<number> {
  await fanOutEvents(ctx);
  const now = ctx.clock.now();
  const claimed = await claimDueDeliveries(ctx.db, {
    now,
    leaseUntil: new Date(now.getTime() + leaseMs(ctx.config.webhooks.timeoutMs)),
    limit,
    perEndpoint: limit,
    reduced: [],
  });
  await Promise.all(
    claimed.map(async (delivery) => {
      const { startedAt, result } = await attempt(ctx, delivery);
      await recordOutcome(ctx, delivery, startedAt, result);
    }),
  );
  return claimed.length;
}
