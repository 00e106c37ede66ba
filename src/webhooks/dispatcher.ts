// The webhook delivery engine (spec, Webhook delivery; Delivery outcome and retries),
// assembled from its parts:
//   claims (here)  fan-out and claim of new events, then due deliveries (claims.repository.ts)
//   local-queue.ts what was claimed, the slots, per-endpoint caps and pacing
//   request.ts     each attempt's signed request, sent by sender.ts
//   outcomes.ts    success in batches, failure with its retry or pause (schedule.ts)
//   schedule.ts    retry delays, leases, the sweep and the retention prune
//   wake-loop.ts   one claim pass at a time, woken by NOTIFY, completions and the sweep
// First attempts go out as soon as the event commits (NOTIFY wakes every worker); retries
// go out with the sweep. `deliverDue` runs this same engine until nothing is due: tests
// and one-shot tools drive the production path.
import type { Context } from '../context.ts';
import type { DatabaseHandle } from '../db/connect.ts';
import { notifyChannel } from '../db/notify.ts';
import { outboxChannel } from '../documents/outbox.repository.ts';
import { createWakeLoop, type WakeLoop } from '../wake-loop.ts';
import {
  type ClaimCaps,
  type ClaimedDelivery,
  claimDueDeliveries,
  deliveriesChannel,
  dropDeliveries,
  fanOutAndClaim,
  releaseDeliveries,
} from './claims.repository.ts';
import { deliveryQueue } from './delivery-queue.ts';
import { LocalQueue, type QueuedDelivery } from './local-queue.ts';
import { createOutcomeRecorder, type OutcomeRecorder } from './outcomes.ts';
import { sendAttempt } from './request.ts';
import { startSweep } from './schedule.ts';
import { ConnectionPool } from './sender.ts';

export interface Dispatcher {
  /** Fan out pending events and send whatever is due now. */
  wake(): void;
  /** Resolves once nothing is being claimed, sent or recorded, and nothing is queued. */
  idle(): Promise<void>;
  /** Stops claiming, finishes the attempts in flight, records them, hands back the rest. */
  stop(): Promise<void>;
  /** Attempts made since start. */
  readonly attempts: number;
}

/**
 * Moves every pending outbox event into deliveries, claiming none (they wait for a
 * claim); returns how many deliveries were created. For tests of fan-out itself: the
 * engine fans out only what it can send at once, claiming those as it creates them.
 */
export async function fanOutEvents(ctx: Context, batchSize = 200): Promise<number> {
  let created = 0;
  for (;;) {
    const now = ctx.clock.now();
    const { events, unclaimed } = await fanOutAndClaim(ctx.db, {
      now,
      until: now,
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

/**
 * Claims due deliveries; one whose body was pruned (its event waited longer than the
 * retention period) has nothing left to send and is dropped instead.
 */
async function claimDue(
  ctx: Context,
  input: { now: Date; until: Date; limit: number; caps: ClaimCaps },
): Promise<ClaimedDelivery[]> {
  const rows = await claimDueDeliveries(ctx.db, input);
  const bodiless = rows.filter((row) => row.payload === null).map((row) => row.id);
  if (bodiless.length > 0) await dropDeliveries(ctx.db, bodiless);
  return rows.filter((row): row is ClaimedDelivery => row.payload !== null);
}

/** The engine: `startDispatcher` runs it on NOTIFY and the sweep; `deliverDue` runs it once. */
class DeliveryEngine {
  readonly pool: ConnectionPool;
  attempts = 0;
  readonly #ctx: Context;
  /** How long a claimed delivery may wait for a slot and still finish inside its lease. */
  readonly #startWindowMs: number;
  readonly #queue: LocalQueue;
  readonly #recorder: OutcomeRecorder;
  readonly #claims: WakeLoop;
  readonly #running = new Set<Promise<void>>();
  #stopped = false;
  /** Whether new events, or deliveries waiting outside the outbox, may be there to claim. */
  #outboxPending = true;
  #deliveriesPending = true;

  constructor(ctx: Context) {
    const { concurrency, perEndpointConcurrency, timeoutMs } = ctx.config.webhooks;
    this.#ctx = ctx;
    this.pool = new ConnectionPool({ resolver: ctx.resolver, policy: ctx.config.webhooks, timeoutMs });
    this.#startWindowMs = deliveryQueue.leaseMsOf(ctx.config) - timeoutMs - 1000;
    this.#queue = new LocalQueue({ concurrency, perEndpointConcurrency, startWindowMs: this.#startWindowMs });
    this.#recorder = createOutcomeRecorder(ctx, () => this.#stopped);
    this.#claims = createWakeLoop({
      pass: () => this.#claimPass(),
      startNow: false,
      onError: (error) => {
        // An outage is logged once (by the monitor); its end wakes this engine again.
        if (!ctx.outage.report(error)) ctx.log.error({ err: error }, 'webhook dispatch pass failed');
      },
    });
  }

  readonly newEvents = () => {
    this.#outboxPending = true;
    this.#claims.wake();
  };

  readonly deliveriesWaiting = () => {
    this.#deliveriesPending = true;
    this.#claims.wake();
  };

  /** Everything may be waiting: after a missed notification, on the sweep, or when asked. */
  readonly lookEverywhere = () => {
    this.#outboxPending = true;
    this.#deliveriesPending = true;
    this.#claims.wake();
  };

  readonly idle = async () => {
    while (this.#claims.busy() || this.#running.size > 0 || this.#queue.size > 0 || this.#recorder.busy()) {
      await this.#claims.idle();
      if (this.#running.size > 0) await Promise.allSettled([...this.#running]);
      if (this.#recorder.busy()) await this.#recorder.flush(true);
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  /** Stops claiming, finishes the attempts in flight and records them, hands back the rest. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#claims.stop();
    await this.#handBack(this.#queue.takeAll()).catch(() => {});
    await Promise.allSettled([...this.#running]);
    await this.#recorder.flush(true);
    await this.pool.close();
  }

  /**
   * Tops the queue up to its limit once it is half empty: new events first (fanned out
   * and claimed in one statement), then deliveries already waiting (retries that are due,
   * leases of dead workers, deliveries handed back or left unclaimed by a fan-out), which
   * are looked for only when something says there may be some: the sweep, a NOTIFY, a
   * fan-out that left some unclaimed, or a claim cut short by an endpoint's cap.
   */
  async #claimPass(): Promise<void> {
    while (!this.#stopped && this.#queue.wantsMore() && this.#queue.room() > 0) {
      const now = this.#ctx.clock.now();
      const lease = { now, until: deliveryQueue.leaseFrom(now, this.#ctx.config) };
      let want = this.#queue.room();
      let more = false;
      if (this.#outboxPending) {
        const fanned = await this.#claimNewEvents(lease, want);
        more = fanned.more;
        want -= fanned.claimed;
      }
      if (want > 0 && this.#deliveriesPending && !this.#stopped) {
        more = (await this.#claimWaiting(lease, want)) || more;
      }
      if (!more) return;
    }
  }

  /** Fans out up to `want` events, claiming what the caps allow; whether more may wait. */
  async #claimNewEvents(lease: Lease, want: number): Promise<{ claimed: number; more: boolean }> {
    const caps = this.#queue.caps(lease.now.getTime());
    const fanned = await fanOutAndClaim(this.#ctx.db, { ...lease, events: want, claim: want, caps });
    if (fanned.events < want) this.#outboxPending = false;
    if (fanned.unclaimed > 0) {
      this.#deliveriesPending = true;
      await notifyChannel(this.#ctx.db, deliveriesChannel);
    }
    this.#enqueue(lease, fanned.claimed);
    return { claimed: fanned.claimed.length, more: fanned.events >= want };
  }

  /** Claims up to `want` waiting deliveries; whether more may wait. */
  async #claimWaiting(lease: Lease, want: number): Promise<boolean> {
    const caps = this.#queue.caps(lease.now.getTime());
    const claimed = await claimDue(this.#ctx, { ...lease, limit: want, caps });
    this.#enqueue(lease, claimed);
    if (claimed.length === want) return true;
    // Fewer than asked means nothing more is due, unless an endpoint's cap held some back.
    this.#deliveriesPending = LocalQueue.reachedCap(claimed, caps);
    return false;
  }

  #enqueue(lease: Lease, deliveries: ClaimedDelivery[]) {
    const startBy = lease.now.getTime() + this.#startWindowMs;
    this.#queue.add(deliveries.map((delivery) => ({ delivery, until: lease.until, startBy })));
    this.#drain();
  }

  /** Starts what may start; hands back what waited too long for a slot. */
  #drain() {
    if (this.#stopped) return;
    const { start, stale } = this.#queue.takeStartable(this.#ctx.clock.now().getTime());
    for (const delivery of start) this.#send(delivery);
    if (stale.length === 0) return;
    this.#handBack(stale).then(this.#claims.wakeSoon, (error) => {
      if (!this.#ctx.outage.report(error))
        this.#ctx.log.error({ err: error }, 'handing back unsent webhook deliveries failed');
    });
  }

  /** One attempt in a slot; the slot is free once its outcome is recorded (or queued). */
  #send(delivery: ClaimedDelivery) {
    const ctx = this.#ctx;
    this.attempts++;
    ctx.metrics.attemptsInFlight.inc();
    let durationMs: number | null = null;
    const task = sendAttempt(ctx, delivery, this.pool)
      .then(({ startedAt, result }) => {
        durationMs = result.durationMs;
        return this.#recorder.record({ delivery, startedAt, result });
      })
      .catch((error) => {
        if (!ctx.outage.report(error))
          ctx.log.error({ err: error, deliveryId: delivery.id }, 'recording a webhook attempt failed');
      })
      .finally(() => {
        ctx.metrics.attemptsInFlight.dec();
        this.#queue.finished(delivery.endpoint_id, durationMs, ctx.clock.now().getTime());
        this.#running.delete(task);
        this.#drain();
        // The queue is running low, or a slot is left it could not fill: claim more.
        if (this.#queue.wantsMore()) this.#claims.wakeSoon();
      });
    this.#running.add(task);
  }

  /** Gives claimed, unsent deliveries back and tells every worker (this one too) to look. */
  async #handBack(entries: QueuedDelivery[]): Promise<void> {
    if (entries.length === 0) return;
    await releaseDeliveries(
      this.#ctx.db,
      entries.map(({ delivery, until }) => ({ id: delivery.id, until })),
    );
    this.#deliveriesPending = true;
    await notifyChannel(this.#ctx.db, deliveriesChannel);
  }
}

interface Lease {
  now: Date;
  /** The end of the lease the claim takes (delivery-queue.ts). */
  until: Date;
}

/**
 * The running engine of a worker: reacts to NOTIFY (new events, new deliveries), the end
 * of a database outage and the sweep, and keeps at most `concurrency` attempts in flight,
 * at most `perEndpointConcurrency` per endpoint.
 */
export async function startDispatcher(
  ctx: Context,
  options: { subscribe: DatabaseHandle['subscribe'] },
): Promise<Dispatcher> {
  const engine = new DeliveryEngine(ctx);
  const unsubscribers = [
    await options.subscribe(outboxChannel, {
      onNotify: engine.newEvents,
      onStateChange: (listening) => listening && engine.lookEverywhere(),
    }),
    await options.subscribe(deliveriesChannel, {
      onNotify: engine.deliveriesWaiting,
      onStateChange: () => {},
    }),
  ];
  const stopSweep = startSweep(ctx, engine.lookEverywhere, () => engine.pool.prune());
  const stopHearingRecovery = ctx.outage.onRecovered(engine.lookEverywhere);
  engine.lookEverywhere();
  return {
    wake: engine.lookEverywhere,
    idle: engine.idle,
    get attempts() {
      return engine.attempts;
    },
    async stop() {
      stopSweep();
      stopHearingRecovery();
      for (const unsubscribe of unsubscribers) await unsubscribe();
      await engine.stop();
    },
  };
}

/**
 * Sends everything due now through the production engine, records every outcome (the
 * batched successes included) and returns how many attempts it made. For tests (with a
 * test clock) and one-shot tools; servers run startDispatcher.
 */
export async function deliverDue(ctx: Context): Promise<number> {
  const engine = new DeliveryEngine(ctx);
  try {
    engine.lookEverywhere();
    await engine.idle();
    return engine.attempts;
  } finally {
    await engine.stop();
  }
}
