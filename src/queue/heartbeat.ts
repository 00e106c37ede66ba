// The heartbeat of a claim (lease.ts): while the work runs, its leases are renewed every
// `heartbeatMs`, so a lease can be short (a worker that crashed or lost its database leaves
// its rows to another within one lease, seconds) and still cover work of any length (a
// 500-page seal, a slow mail server). A renewal that finds a row taken over marks it `lost`,
// for work that goes a step at a time to stop at the next (a bulk send's next rows); one
// that fails (the database unreachable) is logged, and the work goes on: each queue's
// outcome is written so that a second holder's cannot be undone (a seal stored once, a
// row's status moved once).
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Held, Queue } from './lease.ts';

type HeartbeatContext<DB> = Pick<Context, 'clock' | 'config' | 'log' | 'outage'> & { db: Kysely<DB> };

/**
 * Runs `work` while renewing the leases `held()` returns (read at each beat, so rows settled
 * meanwhile drop out) every `queue.heartbeatMs`; without a heartbeat, runs `work` alone.
 * `fields` go on the log lines (which row).
 */
export async function whileLeased<DB, T>(
  ctx: HeartbeatContext<DB>,
  queue: Pick<Queue<DB, keyof DB & string>, 'name' | 'working' | 'heartbeatMs' | 'renew' | 'leaseFrom'>,
  held: () => readonly Held[],
  work: () => Promise<T>,
  fields: Record<string, unknown> = {},
): Promise<T> {
  if (queue.heartbeatMs === undefined) return work();
  let renewing: Promise<void> = Promise.resolve();
  const heartbeat = setInterval(() => {
    renewing = renewing.then(async () => {
      const live = held().filter((h) => !h.lost);
      if (live.length === 0) return;
      try {
        await queue.renew(ctx.db, live, queue.leaseFrom(ctx.clock.now(), ctx.config));
        if (live.some((h) => h.lost))
          ctx.log.warn(fields, `the ${queue.name} lease was taken over while ${queue.working}`);
      } catch (error) {
        if (!ctx.outage.report(error))
          ctx.log.warn({ err: error, ...fields }, `renewing the ${queue.name} lease failed`);
      }
    });
  }, queue.heartbeatMs);
  try {
    return await work();
  } finally {
    clearInterval(heartbeat);
    await renewing;
  }
}
