// One worker's claimed deliveries and its slots (spec, Webhook delivery: bounded
// concurrency, so one slow receiver cannot starve the others):
// - at most `concurrency` attempts in flight, at most `perEndpointConcurrency` per endpoint;
// - claims reach ahead of the slots (up to `prefetchLimit`), so slots never wait for a
//   claim query, but per endpoint only as far as can start within the lease: 8 rounds of
//   its slots until its pace (recent attempt duration) is known, then as many rounds as
//   start within half the waiting time (`roundsAhead`, 1 to 32);
// - a claimed delivery that could not start in time (`startBy`) is handed back, so no
//   other worker can claim it while this one would still send it.
// Pure bookkeeping: no database, no network; the dispatcher acts on what it returns.
import type { ClaimCaps, ClaimedDelivery } from './claims.repository.ts';

/** How much the latest attempt weighs in an endpoint's pace (an exponential moving average). */
const paceWeight = 0.2;
/** A pace not measured again for this long is forgotten (the endpoint starts over at 8 rounds). */
const paceMemoryMs = 60_000;

/** Claimed deliveries a worker holds: 2 rounds of its slots at least, 32 at most, ≤ 4,096. */
export function prefetchLimit(concurrency: number): number {
  return Math.max(2 * concurrency, Math.min(32 * concurrency, 4096));
}

/** Rounds of an endpoint's slots a claim may reach ahead, by its pace (null: not measured). */
export function roundsAhead(paceMs: number | null, startWindowMs: number): number {
  if (paceMs === null) return 8;
  return Math.min(32, Math.max(1, Math.floor(startWindowMs / 2 / Math.max(paceMs, 1))));
}

export interface QueuedDelivery {
  delivery: ClaimedDelivery;
  /** The end of its lease: a hand-back releases it only while it is still this one. */
  until: Date;
  /** The attempt must start by then to finish inside its lease. */
  startBy: number;
}

export class LocalQueue {
  readonly limit: number;
  readonly #concurrency: number;
  readonly #perEndpoint: number;
  readonly #startWindowMs: number;
  readonly #entries: QueuedDelivery[] = [];
  readonly #inFlight = new Map<string, number>();
  readonly #pace = new Map<string, { ms: number; at: number }>();
  #total = 0;

  constructor(options: { concurrency: number; perEndpointConcurrency: number; startWindowMs: number }) {
    this.#concurrency = options.concurrency;
    this.#perEndpoint = options.perEndpointConcurrency;
    this.#startWindowMs = options.startWindowMs;
    this.limit = prefetchLimit(options.concurrency);
  }

  get size(): number {
    return this.#entries.length;
  }

  get inFlight(): number {
    return this.#total;
  }

  /** How many more deliveries a claim should take now. */
  room(): number {
    return this.limit - this.#total - this.#entries.length;
  }

  /** Whether a claim is worth making: the queue is at most half full, or a slot idles. */
  wantsMore(): boolean {
    return this.#entries.length < this.limit / 2 || this.slotsIdle();
  }

  add(entries: QueuedDelivery[]): void {
    for (const entry of entries) this.#entries.push(entry);
  }

  /**
   * Takes what may start now, oldest first, within the caps, marking each in flight; and
   * takes out the entries that waited past their `startBy`, to be handed back.
   */
  takeStartable(now: number): { start: ClaimedDelivery[]; stale: QueuedDelivery[] } {
    const start: ClaimedDelivery[] = [];
    const stale: QueuedDelivery[] = [];
    for (let i = 0; i < this.#entries.length && this.#total < this.#concurrency; ) {
      const entry = this.#entries[i] as QueuedDelivery;
      if (entry.startBy < now) {
        this.#takeAt(i);
        stale.push(entry);
      } else if ((this.#inFlight.get(entry.delivery.endpoint_id) ?? 0) >= this.#perEndpoint) {
        i++;
      } else {
        this.#takeAt(i);
        this.#started(entry.delivery.endpoint_id);
        start.push(entry.delivery);
      }
    }
    return { start, stale };
  }

  /** Everything still queued (the worker is stopping: it is handed back). */
  takeAll(): QueuedDelivery[] {
    return this.#entries.splice(0);
  }

  /** An attempt ended after `durationMs`: its slot is free, and its endpoint's pace updated. */
  finished(endpointId: string, durationMs: number | null, now: number): void {
    this.#total--;
    const left = (this.#inFlight.get(endpointId) ?? 1) - 1;
    if (left === 0) this.#inFlight.delete(endpointId);
    else this.#inFlight.set(endpointId, left);
    if (durationMs === null) return;
    const previous = this.#pace.get(endpointId);
    const ms = previous ? previous.ms + paceWeight * (durationMs - previous.ms) : durationMs;
    this.#pace.set(endpointId, { ms, at: now });
  }

  /**
   * Per-endpoint room for a claim, by pace, less what is in flight or queued here. Only
   * endpoints whose room is not the default are listed: those held here, and those whose
   * recent pace gives them more or fewer rounds.
   */
  caps(now: number): ClaimCaps {
    const perEndpoint = this.#perEndpoint * roundsAhead(null, this.#startWindowMs);
    const rooms = new Map<string, number>();
    for (const [endpointId, measured] of this.#pace) {
      if (measured.at < now - paceMemoryMs) this.#pace.delete(endpointId);
      else rooms.set(endpointId, this.#perEndpoint * roundsAhead(measured.ms, this.#startWindowMs));
    }
    const held = new Map(this.#inFlight);
    for (const { delivery } of this.#entries)
      held.set(delivery.endpoint_id, (held.get(delivery.endpoint_id) ?? 0) + 1);
    for (const [endpointId, n] of held)
      rooms.set(endpointId, Math.max(0, (rooms.get(endpointId) ?? perEndpoint) - n));
    const endpoints = [...rooms]
      .filter(([endpointId, remaining]) => held.has(endpointId) || remaining !== perEndpoint)
      .map(([endpointId, remaining]) => ({ endpointId, remaining }));
    return { perEndpoint, endpoints };
  }

  /** Whether a claim took as many deliveries of some endpoint as its caps allowed. */
  static reachedCap(claimed: ClaimedDelivery[], caps: ClaimCaps): boolean {
    if (caps.endpoints.some((r) => r.remaining === 0)) return true;
    const taken = new Map<string, number>();
    for (const d of claimed) taken.set(d.endpoint_id, (taken.get(d.endpoint_id) ?? 0) + 1);
    const allowed = new Map(caps.endpoints.map((r) => [r.endpointId, r.remaining]));
    for (const [endpointId, n] of taken) if (n >= (allowed.get(endpointId) ?? caps.perEndpoint)) return true;
    return false;
  }

  /** Whether some slot is free that no queued delivery can take (their endpoints are at their limit). */
  slotsIdle(): boolean {
    if (this.#total >= this.#concurrency) return false;
    return this.#entries.every(
      ({ delivery }) => (this.#inFlight.get(delivery.endpoint_id) ?? 0) >= this.#perEndpoint,
    );
  }

  #started(endpointId: string): void {
    this.#total++;
    this.#inFlight.set(endpointId, (this.#inFlight.get(endpointId) ?? 0) + 1);
  }

  /** The head, by far the most common, is shifted off: cheaper than splice (docs/performance.md). */
  #takeAt(i: number): void {
    if (i === 0) this.#entries.shift();
    else this.#entries.splice(i, 1);
  }
}
