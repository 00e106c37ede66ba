// The retry schedule and the sweep (spec, Delivery outcome and retries; Webhook endpoint
// enablement; Limits):
// - a failed attempt is retried after the configured delays (spec: about 5 minutes,
//   30 minutes, 2 hours; SIGNET_WEBHOOK_RETRY_DELAYS), and dropped after the last;
// - the 20th consecutive failure of an endpoint pauses it;
// - a claim holds a delivery for a lease that outlives the attempt's deadline
//   (delivery-queue.ts);
// - the sweep, every SIGNET_WEBHOOK_SWEEP_INTERVAL (spec: 10 minutes), sends the retries
//   that are due and deliveries whose worker died, and prunes what is older than the
//   retention period.
import type { Context } from '../context.ts';
import { nextAttemptAt } from '../queue/lease.ts';
import { pruneDeliveries } from './deliveries.repository.ts';
import { pruneWebhookEvents } from './outbox.repository.ts';

export const failuresBeforePause = 20;

export type NextStep = { status: 'pending'; nextAttemptAt: Date } | { status: 'dropped' };

/** What follows failed attempt number `attempt`: the next retry, or dropped after the last. */
export function afterFailure(attempt: number, retryDelaysMs: number[], now: Date): NextStep {
  const next = nextAttemptAt(retryDelaysMs, attempt, now);
  return next === null ? { status: 'dropped' } : { status: 'pending', nextAttemptAt: next };
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

/**
 * Every `sweepIntervalMs`: `lookEverywhere` (due retries, dead workers' leases), then
 * `tidy` and the retention prune. Returns the function that stops it.
 */
export function startSweep(ctx: Context, lookEverywhere: () => void, tidy: () => void): () => void {
  const sweep = async () => {
    lookEverywhere();
    tidy();
    try {
      await pruneOldDeliveries(ctx);
    } catch (error) {
      if (!ctx.outage.report(error)) ctx.log.error({ err: error }, 'pruning old webhook deliveries failed');
    }
  };
  const timer = setInterval(() => void sweep(), ctx.config.webhooks.sweepIntervalMs);
  return () => clearInterval(timer);
}
