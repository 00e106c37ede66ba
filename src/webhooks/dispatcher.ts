// The webhook delivery engine (spec, Webhook delivery, Delivery outcome and retries,
// Webhook endpoint enablement):
// - fan-out: each outbox event becomes one delivery per enabled, subscribed endpoint of
//   its workspace, once (its id is named after the pair; outbox rows locked SKIP LOCKED);
// - dispatch: due deliveries are claimed with a lease and sent with bounded concurrency,
//   overall and per endpoint, so one slow receiver cannot starve the others;
// - outcome: success resets the endpoint's consecutive failures; a failure counts one,
//   schedules the next retry (5 min, 30 min, 2 h minimum) or drops the delivery after
//   the 4th attempt, and the 20th consecutive failure switches the endpoint off and
//   drops its pending deliveries.
// First attempts go out as soon as the event commits (NOTIFY wakes every worker);
// retries go out with the sweep, every 10 minutes.
import type { Context } from '../context.ts';
import { retryWhileUnavailable } from '../db/availability.ts';
import type { DatabaseHandle } from '../db/connect.ts';
import { notifyChannel } from '../db/notify.ts';
import {
  addEndpointFailure,
  type ClaimCaps,
  type ClaimedDelivery,
  claimDueDeliveries,
  deliveriesChannel,
  disableEndpointForFailures,
  dropPendingDeliveries,
  existingDeliveries,
  fanOutAndClaim,
  insertAttempt,
  lockEndpoints,
  outboxChannel,
  pruneDeliveries,
  pruneWebhookEvents,
  recordDelivered,
  releaseDeliveries,
  resetFailuresOf,
  settleDelivery,
} from './deliveries.repository.ts';
import { type AttemptResult, ConnectionPool, sendWebhook } from './sender.ts';
import { signatureHeader } from './signature.ts';

export const failuresBeforePause = 20;
export const userAgent = 'Service-Webhooks/1.0';
/**
 * Claims reach ahead of the slots, so slots never wait for a claim query, and under load
 * claims are few and large: a statement's cost is mostly fixed (PostgreSQL spent 50 us a
 * delivery on claims and records of 64, 30 us on claims of 512 and records of 256;
 * docs/performance.md). The queue holds up to `prefetchLimit` claimed deliveries and is
 * topped up once it is half empty (or a slot is free that no queued delivery can take).
 */
export function prefetchLimit(concurrency: number): number {
  return Math.max(2 * concurrency, Math.min(32 * concurrency, 4096));
}
/**
 * How many rounds of an endpoint's slots a claim may reach ahead: 8 until its pace (the
 * recent duration of its attempts) is known, then as many rounds as start within half the
 * time a claimed delivery may wait for a slot, from 1 to 32. A slow endpoint gets few
 * (a delivery that still cannot start in time is handed back: startBy), a fast one many.
 */
export function roundsAhead(paceMs: number | null, startWindowMs: number): number {
  if (paceMs === null) return 8;
  return Math.min(32, Math.max(1, Math.floor(startWindowMs / 2 / Math.max(paceMs, 1))));
}
/**
 * Successes are written in batches of at least this many, or once the oldest has waited
 * `flushDelayMs` (a delivery stays leased until its batch is written, so waiting costs no
 * slot, and a crash meanwhile means a resend, never a loss). At most `maxFlushBatch` a
 * statement.
 */
const flushBatch = 256;
const maxFlushBatch = 512;
const flushDelayMs = 20;
/** How much the latest attempt weighs in an endpoint's pace (an exponential moving average). */
const paceWeight = 0.2;
/** A pace not measured again for this long is forgotten (the endpoint starts over at 8 rounds). */
const paceMemoryMs = 60_000;

/** A lease outlives the request's deadline by a wide margin: a shorter one would send duplicates. */
export function leaseMs(timeoutMs: number): number {
  return timeoutMs + Math.max(5_000, timeoutMs);
}

/**
 * Moves every pending outbox event into deliveries, claiming none (they wait for
 * `claimDueDeliveries`); returns how many deliveries were created. The dispatcher instead
 * fans out only what it can send at once, and claims those deliveries as it creates them.
 */
export async function fanOutEvents(ctx: Context, batchSize = 200): Promise<number> {
  let created = 0;
  for (;;) {
    const now = ctx.clock.now();
    const { events, unclaimed } = await fanOutAndClaim(ctx.db, {
      now,
      leaseUntil: now,
      events: batchSize,
      claim: 0,
      caps: { perEndpoint: 0, endpoints: [] },
    });
    created += unclaimed;
    if (events < batchSize) break;
  }
  if (created > 0) await notifyChannel(ctx.db, deliveriesChannel);
  return created;
}

/** The request of one attempt (spec, Delivery request), signed at the time it is made. */
/**
 * The request of one attempt, signed with the attempt's start time: the same instant is
 * recorded as the attempt's `started_at`, so its exact headers can be shown again later.
 */
export function buildRequest(
  delivery: Pick<ClaimedDelivery, 'id' | 'url' | 'secret' | 'event_type' | 'payload'>,
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
      'x-service-signature': signatureHeader(delivery.secret, timestamp, body),
    },
  };
}

async function attempt(
  ctx: Context,
  delivery: ClaimedDelivery,
  pool?: ConnectionPool,
): Promise<{ startedAt: Date; result: AttemptResult }> {
  const startedAt = ctx.clock.now();
  const result = await sendWebhook(buildRequest(delivery, startedAt), {
    timeoutMs: ctx.config.webhooks.timeoutMs,
    policy: ctx.config.webhooks,
    resolver: ctx.resolver,
    pool,
  });
  return { startedAt, result };
}

interface Outcome {
  delivery: ClaimedDelivery;
  startedAt: Date;
  result: AttemptResult;
}

/**
 * Records many successful attempts in one transaction: under load most attempts succeed,
 * and one round of statements for a batch instead of one per attempt is what lets the
 * engine keep up. Failures go through recordOutcome one by one.
 */
export async function recordSuccesses(ctx: Context, outcomes: Outcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await ctx.db.transaction().execute(async (trx) => {
    await lockEndpoints(trx, [...new Set(outcomes.map((o) => o.delivery.endpoint_id))]);
    await recordDelivered(
      trx,
      outcomes.map((o) => attemptRow(o.delivery, o.startedAt, o.result)),
      ctx.clock.now(),
    );
  });
}

/** The attempts row of one attempt of `delivery` (its number is the claim's count). */
export function attemptRow(
  delivery: Pick<ClaimedDelivery, 'id' | 'workspace_id' | 'endpoint_id' | 'attempts'>,
  startedAt: Date,
  result: AttemptResult,
) {
  return {
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
    // Endpoint row first, then deliveries, in every path: the same order everywhere is
    // what keeps concurrent outcomes (and a pause dropping deliveries) free of deadlocks.
    await lockEndpoints(trx, [delivery.endpoint_id]);
    let settled: boolean;
    if (result.ok) {
      settled = await settleDelivery(trx, delivery.id, { status: 'delivered', at: now });
      if (settled) await resetFailuresOf(trx, [delivery.endpoint_id]);
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
    // The attempt is history even when the delivery was dropped meanwhile; only a delivery
    // whose endpoint was deleted is gone with nothing to record.
    if (settled || (await existingDeliveries(trx, [delivery.id])).size > 0) {
      await insertAttempt(trx, attemptRow(delivery, startedAt, result));
    }
  });
}

/**
 * Deletes deliveries (and their attempts) and webhook bodies older than the retention
 * period (30 days); returns how many deliveries went.
 */
export async function pruneOldDeliveries(ctx: Context): Promise<number> {
  const before = new Date(ctx.clock.now().getTime() - ctx.config.webhooks.retentionMs);
  const deliveries = await pruneDeliveries(ctx.db, before);
  await pruneWebhookEvents(ctx.db, before);
  return deliveries;
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
  const { concurrency, perEndpointConcurrency, sweepIntervalMs, timeoutMs } = ctx.config.webhooks;
  const pool = new ConnectionPool({ resolver: ctx.resolver, policy: ctx.config.webhooks, timeoutMs });
  const queueLimit = prefetchLimit(concurrency);
  // How long a claimed delivery may wait for a slot and still finish inside its lease.
  const startWindowMs = leaseMs(timeoutMs) - timeoutMs - 1000;
  const inFlight = new Map<string, number>();
  /** Each endpoint's recent attempt duration (ms), and when it was last measured. */
  const pace = new Map<string, { ms: number; at: number }>();
  let total = 0;
  let stopped = false;
  let outboxPending = true;
  let deliveriesPending = true;
  let pumping: Promise<void> | null = null;
  let pumpAgain = false;
  let wakeQueued = false;
  const running = new Set<Promise<void>>();
  const successes: Outcome[] = [];
  let flushing: Promise<void> | null = null;
  let flushTimer: ReturnType<typeof setTimeout> | null = null;

  // Claimed but not yet started: one claim covers the next round of sends too, so the
  // slots do not sit idle while the next claim query runs. An entry must start early
  // enough to finish inside its lease; one that waited too long (its endpoint is slow) is
  // handed back instead, so no other worker can claim it while this one still sends it.
  const queue: Array<{ delivery: ClaimedDelivery; leaseUntil: Date; startBy: number }> = [];

  /**
   * Takes the entry at `i` out of the queue. The head, by far the most common, is shifted
   * off: V8 then moves the array's start instead of the entries behind it, which
   * `splice(0, 1)` copies one by one (measured per take: 1.0-1.3 us against 0.1 at 768
   * entries, the default queue's average; 7 us against 0.16 at 4,096, its largest).
   */
  const takeAt = (i: number) => (i === 0 ? queue.shift() : queue.splice(i, 1));

  function drain() {
    const stale: typeof queue = [];
    const now = ctx.clock.now().getTime();
    for (let i = 0; i < queue.length && !stopped && total < concurrency; ) {
      const entry = queue[i] as (typeof queue)[number];
      if (entry.startBy < now) {
        takeAt(i);
        stale.push(entry);
        continue;
      }
      if ((inFlight.get(entry.delivery.endpoint_id) ?? 0) >= perEndpointConcurrency) {
        i++;
        continue;
      }
      takeAt(i);
      start(entry.delivery);
    }
    if (stale.length > 0) {
      handBack(stale).then(queueWake, (error) => {
        if (!ctx.outage.report(error))
          ctx.log.error({ err: error }, 'handing back unsent webhook deliveries failed');
      });
    }
  }

  /** Whether a claim took as many deliveries of some endpoint as its caps allowed. */
  function reachedCap(claimed: ClaimedDelivery[], caps: ClaimCaps): boolean {
    const taken = new Map<string, number>();
    for (const d of claimed) taken.set(d.endpoint_id, (taken.get(d.endpoint_id) ?? 0) + 1);
    const allowed = new Map(caps.endpoints.map((r) => [r.endpointId, r.remaining]));
    if (caps.endpoints.some((r) => r.remaining === 0)) return true;
    for (const [endpointId, n] of taken) if (n >= (allowed.get(endpointId) ?? caps.perEndpoint)) return true;
    return false;
  }

  function notePace(endpointId: string, durationMs: number) {
    const previous = pace.get(endpointId);
    const ms = previous ? previous.ms + paceWeight * (durationMs - previous.ms) : durationMs;
    pace.set(endpointId, { ms, at: ctx.clock.now().getTime() });
  }

  /**
   * Per-endpoint room for a claim, by pace, less what is in flight or queued here. Only
   * endpoints whose room is not the default are listed: those held here, and those whose
   * recent pace gives them more or fewer rounds.
   */
  function capsNow(): ClaimCaps {
    const perEndpoint = perEndpointConcurrency * roundsAhead(null, startWindowMs);
    const rooms = new Map<string, number>();
    const forgetBefore = ctx.clock.now().getTime() - paceMemoryMs;
    for (const [endpointId, measured] of pace) {
      if (measured.at < forgetBefore) pace.delete(endpointId);
      else rooms.set(endpointId, perEndpointConcurrency * roundsAhead(measured.ms, startWindowMs));
    }
    const held = new Map(inFlight);
    for (const { delivery } of queue)
      held.set(delivery.endpoint_id, (held.get(delivery.endpoint_id) ?? 0) + 1);
    for (const [endpointId, n] of held)
      rooms.set(endpointId, Math.max(0, (rooms.get(endpointId) ?? perEndpoint) - n));
    const endpoints = [...rooms]
      .filter(([endpointId, remaining]) => held.has(endpointId) || remaining !== perEndpoint)
      .map(([endpointId, remaining]) => ({ endpointId, remaining }));
    return { perEndpoint, endpoints };
  }

  /** Gives claimed, unsent deliveries back and tells every worker (this one too) to look. */
  async function handBack(entries: typeof queue): Promise<void> {
    if (entries.length === 0) return;
    await releaseDeliveries(
      ctx.db,
      entries.map(({ delivery, leaseUntil }) => ({ id: delivery.id, leaseUntil })),
    );
    deliveriesPending = true;
    await notifyChannel(ctx.db, deliveriesChannel);
  }

  /** Whether some slot is free that no queued delivery can take (their endpoints are at their limit). */
  function slotsIdle(): boolean {
    if (total >= concurrency) return false;
    return queue.every(({ delivery }) => (inFlight.get(delivery.endpoint_id) ?? 0) >= perEndpointConcurrency);
  }

  /**
   * Tops the queue up to `queueLimit` once it is half empty: new events first
   * (fanned out and claimed in one statement), then deliveries already waiting (retries
   * that are due, leases of dead workers, deliveries handed back or left unclaimed by a
   * fan-out), which are looked for only when something says there may be some: the sweep,
   * a NOTIFY, a fan-out that left some unclaimed, or a claim cut short by an endpoint's cap.
   */
  async function pumpOnce(): Promise<void> {
    for (;;) {
      if (stopped || (queue.length >= queueLimit / 2 && !slotsIdle())) return;
      let want = queueLimit - total - queue.length;
      if (want <= 0) return;
      const now = ctx.clock.now();
      const leaseUntil = new Date(now.getTime() + leaseMs(timeoutMs));
      const startBy = now.getTime() + startWindowMs;
      let more = false;
      if (outboxPending) {
        const fanned = await fanOutAndClaim(ctx.db, {
          now,
          leaseUntil,
          events: want,
          claim: want,
          caps: capsNow(),
        });
        if (fanned.events < want) outboxPending = false;
        else more = true;
        if (fanned.unclaimed > 0) {
          deliveriesPending = true;
          await notifyChannel(ctx.db, deliveriesChannel);
        }
        for (const delivery of fanned.claimed) queue.push({ delivery, leaseUntil, startBy });
        want -= fanned.claimed.length;
        drain();
      }
      if (want > 0 && deliveriesPending && !stopped) {
        const caps = capsNow();
        const claimed = await claimDueDeliveries(ctx.db, { now, leaseUntil, limit: want, caps });
        for (const delivery of claimed) queue.push({ delivery, leaseUntil, startBy });
        // Fewer than asked means nothing more is due, unless an endpoint's cap held some back.
        if (claimed.length === want) more = true;
        else deliveriesPending = reachedCap(claimed, caps);
        drain();
      }
      if (!more) return;
    }
  }

  /**
   * Writes queued successes, one flush at a time: full batches as they fill, and the rest
   * `flushDelayMs` after it queued, or at once when `all` (idle, stop).
   */
  function flush(all = false): Promise<void> {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
    if (flushing) return all ? flushing.then(() => flush(true)) : flushing;
    flushing = (async () => {
      while (successes.length >= (all ? 1 : flushBatch)) {
        const batch = successes.splice(0, maxFlushBatch);
        // Through a database outage the batch waits and is written when the server is back,
        // so answered deliveries are not sent again (unless this process stops meanwhile).
        await retryWhileUnavailable(
          ctx.outage,
          () => recordSuccesses(ctx, batch),
          () => stopped,
        ).catch((error) => {
          if (!ctx.outage.report(error))
            ctx.log.error({ err: error, deliveries: batch.length }, 'recording webhook attempts failed');
        });
      }
    })().finally(() => {
      flushing = null;
      if (successes.length > 0) scheduleFlush();
    });
    return flushing;
  }

  function scheduleFlush() {
    if (successes.length >= flushBatch) void flush();
    else if (!flushTimer && !flushing && !stopped)
      flushTimer = setTimeout(() => void flush(true), flushDelayMs);
  }

  function start(delivery: ClaimedDelivery) {
    total++;
    ctx.metrics.attemptsInFlight.inc();
    inFlight.set(delivery.endpoint_id, (inFlight.get(delivery.endpoint_id) ?? 0) + 1);
    const task = attempt(ctx, delivery, pool)
      .then(async ({ startedAt, result }) => {
        notePace(delivery.endpoint_id, result.durationMs);
        ctx.metrics.deliveries.inc({
          outcome: result.ok ? 'delivered' : 'failed',
          error_class: result.errorClass ?? '',
        });
        if (result.ok) {
          // The slot is free as soon as the receiver answered; the delivery stays leased
          // until its batch is written, so a crash before that means a resend, not a loss.
          successes.push({ delivery, startedAt, result });
          scheduleFlush();
        } else {
          await retryWhileUnavailable(
            ctx.outage,
            () => recordOutcome(ctx, delivery, startedAt, result),
            () => stopped,
          );
        }
      })
      .catch((error) => {
        if (!ctx.outage.report(error))
          ctx.log.error({ err: error, deliveryId: delivery.id }, 'recording a webhook attempt failed');
      })
      .finally(() => {
        total--;
        ctx.metrics.attemptsInFlight.dec();
        const left = (inFlight.get(delivery.endpoint_id) ?? 1) - 1;
        if (left === 0) inFlight.delete(delivery.endpoint_id);
        else inFlight.set(delivery.endpoint_id, left);
        running.delete(task);
        drain();
        // The queue is running low, or a slot is left it could not fill: claim more.
        if (total < concurrency || queue.length < queueLimit / 2) queueWake();
      });
    running.add(task);
  }

  /** Completions in the same tick share one pass. */
  function queueWake() {
    if (wakeQueued) return;
    wakeQueued = true;
    setImmediate(() => {
      wakeQueued = false;
      wake();
    });
  }

  function wake() {
    if (stopped) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = pumpOnce()
      .catch((error) => {
        // An outage is logged once (by the monitor); its end wakes this engine again.
        if (!ctx.outage.report(error)) ctx.log.error({ err: error }, 'webhook dispatch pass failed');
      })
      .finally(() => {
        pumping = null;
        if (pumpAgain) {
          pumpAgain = false;
          wake();
        }
      });
  }

  function newEvents() {
    outboxPending = true;
    wake();
  }

  function deliveriesWaiting() {
    deliveriesPending = true;
    wake();
  }

  /** Everything may be waiting: after a missed notification, on the sweep, or when asked. */
  function lookEverywhere() {
    outboxPending = true;
    deliveriesWaiting();
  }

  async function sweep() {
    lookEverywhere();
    pool.prune();
    try {
      await pruneOldDeliveries(ctx);
    } catch (error) {
      ctx.log.error({ err: error }, 'pruning old webhook deliveries failed');
    }
  }

  const unsubscribers = [
    await options.subscribe(outboxChannel, {
      onNotify: newEvents,
      onStateChange: (on) => on && lookEverywhere(),
    }),
    await options.subscribe(deliveriesChannel, { onNotify: deliveriesWaiting, onStateChange: () => {} }),
  ];
  const sweeper = setInterval(() => void sweep(), sweepIntervalMs);
  const stopHearingRecovery = ctx.outage.onRecovered(lookEverywhere);
  lookEverywhere();

  return {
    wake: lookEverywhere,
    async idle() {
      for (;;) {
        if (pumping) await pumping;
        if (running.size > 0) await Promise.allSettled([...running]);
        if (flushing || successes.length > 0) await flush(true);
        if (
          !pumping &&
          running.size === 0 &&
          queue.length === 0 &&
          !pumpAgain &&
          !wakeQueued &&
          !flushing &&
          successes.length === 0
        )
          return;
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    async stop() {
      stopped = true;
      clearInterval(sweeper);
      stopHearingRecovery();
      for (const unsubscribe of unsubscribers) await unsubscribe();
      if (pumping) await pumping;
      // Claimed but never started: handed back, with the attempt they did not make.
      await handBack(queue.splice(0)).catch(() => {});
      await Promise.allSettled([...running]);
      await flush(true);
      await pool.close();
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
    caps: { perEndpoint: limit, endpoints: [] },
  });
  await Promise.all(
    claimed.map(async (delivery) => {
      const { startedAt, result } = await attempt(ctx, delivery);
      await recordOutcome(ctx, delivery, startedAt, result);
    }),
  );
  return claimed.length;
}
