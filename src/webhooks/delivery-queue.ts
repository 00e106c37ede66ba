// Webhook deliveries as a queue, declared over the claim-and-lease module (queue/lease.ts):
// a pending row of `webhook_deliveries` is due at `next_attempt_at`; each claim is an attempt
// (counted then, so a worker that dies mid-send has used it, and a hand-back gives it back),
// and its lease covers that one attempt: it outlives the request's deadline by a wide margin,
// so nothing renews it. Retries follow SIGNET_WEBHOOK_RETRY_DELAYS (schedule.ts). Which due
// deliveries a claim takes (per-endpoint caps, fan-out claiming as it inserts) is the
// engine's own statements' (claims.repository.ts), built with the module's lease pieces.
import { defineQueue } from '../queue/lease.ts';

/** A lease outlives the request's deadline by a wide margin: a shorter one would send duplicates. */
export function deliveryLeaseMs(timeoutMs: number): number {
  return timeoutMs + Math.max(5_000, timeoutMs);
}

export const deliveryQueue = defineQueue({
  name: 'webhook delivery',
  working: 'sending it',
  table: 'webhook_deliveries',
  key: ['id'],
  lease: 'locked_until',
  due: 'next_attempt_at',
  attempts: { column: 'attempts', counted: 'claim' },
  leaseMs: (config) => deliveryLeaseMs(config.webhooks.timeoutMs),
});
