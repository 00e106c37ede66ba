// What an attempt's outcome does (spec, Delivery outcome and retries; Webhook endpoint
// enablement), defined once for the running dispatcher and for deliverDue:
// - success: the delivery is delivered, its attempt kept, and its endpoint's consecutive
//   failures reset; written in batches (one transaction for many, relaxedCommit);
// - failure: the attempt is kept, the endpoint counts one more consecutive failure, the
//   delivery is scheduled for its next retry or dropped after the last (schedule.ts), and
//   the 20th consecutive failure pauses the endpoint and drops its pending deliveries.
// A delivery dropped meanwhile keeps its attempt as history; one whose endpoint was
// deleted is gone, with nothing to record. Until its outcome is written a delivery stays
// leased, so a crash before that means a resend under the same id, never a loss.
import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import { retryWhileUnavailable } from '../db/availability.ts';
import type { Database } from '../db/schema.ts';
import { translator } from '../i18n/messages.ts';
import { queueMail } from '../mail/mail.service.ts';
import { endpointPausedMail } from '../mail/templates.ts';
import { findOwners } from '../workspaces/workspaces.repository.ts';
import type { ClaimedDelivery } from './claims.repository.ts';
import {
  addEndpointFailure,
  disableEndpointForFailures,
  dropPendingDeliveries,
  existingDeliveries,
  insertAttempt,
  lockEndpoints,
  recordDelivered,
  settleDelivery,
} from './outcomes.repository.ts';
import { afterFailure, failuresBeforePause } from './schedule.ts';
import type { AttemptResult } from './sender.ts';

export interface Outcome {
  delivery: ClaimedDelivery;
  startedAt: Date;
  result: AttemptResult;
}

/**
 * Successes are written in batches of at least `flushBatch`, or once the oldest has
 * waited `flushDelayMs` (the delivery stays leased meanwhile, so waiting costs no slot).
 * At most `maxFlushBatch` a statement.
 */
const flushBatch = 256;
const maxFlushBatch = 512;
const flushDelayMs = 20;

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
    // A blocked attempt got no answer: what stopped it is kept instead, for the log to say.
    response_body: result.responseBody ?? result.refusal ?? null,
  };
}

/** Records successful attempts, many in one transaction: the one definition of success. */
export async function recordSuccesses(ctx: Context, outcomes: Outcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await ctx.db.transaction().execute(async (trx) => {
    // Endpoint rows first, then deliveries, in every path: the same order everywhere is
    // what keeps concurrent outcomes (and a pause dropping deliveries) free of deadlocks.
    await lockEndpoints(trx, [...new Set(outcomes.map((o) => o.delivery.endpoint_id))]);
    await recordDelivered(
      trx,
      outcomes.map((o) => attemptRow(o.delivery, o.startedAt, o.result)),
      ctx.clock.now(),
    );
  });
}

async function queuePausedMails(
  trx: Transaction<Database>,
  ctx: Context,
  endpoint: { workspace_id: string; url: string; endpointId: string },
): Promise<void> {
  const paused = {
    url: endpoint.url,
    failures: failuresBeforePause,
    link: `${ctx.config.publicUrl}/settings/integrations/endpoints/${endpoint.endpointId}`,
  };
  // Each owner in their own language.
  for (const owner of await findOwners(trx, endpoint.workspace_id)) {
    await queueMail(trx, ctx, {
      workspaceId: endpoint.workspace_id,
      documentId: null,
      recipientId: null,
      to: owner.email,
      priority: 'automatic',
      ...endpointPausedMail(translator(owner.language), paused),
    });
  }
}

/** Records one failed attempt and everything that follows from it: the one definition of failure. */
export async function recordFailure(ctx: Context, outcome: Outcome): Promise<void> {
  const { delivery } = outcome;
  await ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now();
    await lockEndpoints(trx, [delivery.endpoint_id]);
    const next = afterFailure(delivery.attempts, ctx.config.webhooks.retryDelaysMs, now);
    const settled = await settleDelivery(trx, delivery.id, { ...next, at: now });
    if (settled) {
      const endpoint = await addEndpointFailure(trx, delivery.endpoint_id);
      if (endpoint?.enabled && endpoint.failure_count >= failuresBeforePause) {
        const paused = await disableEndpointForFailures(trx, delivery.endpoint_id, now);
        await dropPendingDeliveries(trx, delivery.endpoint_id);
        // The owners are told once, in the transaction that pauses it (the mail outbox).
        if (paused) await queuePausedMails(trx, ctx, { ...paused, endpointId: delivery.endpoint_id });
        ctx.log.warn(
          { endpointId: delivery.endpoint_id },
          'webhook endpoint paused after consecutive failures',
        );
      }
    }
    if (settled || (await existingDeliveries(trx, [delivery.id])).size > 0) {
      await insertAttempt(trx, attemptRow(delivery, outcome.startedAt, outcome.result));
    }
  });
}

export interface OutcomeRecorder {
  /**
   * Takes an attempt's outcome: a failure is written before this resolves; a success joins
   * the next batch (resolves at once). Through a database outage both wait for the server.
   */
  record(outcome: Outcome): Promise<void>;
  /** Writes the successes waiting for their batch: full batches only, or all of them. */
  flush(all?: boolean): Promise<void>;
  /** Whether successes wait to be written, or a flush runs. */
  busy(): boolean;
}

export function createOutcomeRecorder(ctx: Context, stopped: () => boolean): OutcomeRecorder {
  const successes: Outcome[] = [];
  let flushing: Promise<void> | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;

  function writeBatches(all: boolean): Promise<void> {
    return (async () => {
      while (successes.length >= (all ? 1 : flushBatch)) {
        const batch = successes.splice(0, maxFlushBatch);
        // Through an outage the batch waits and is written when the server is back, so
        // answered deliveries are not sent again (unless this process stops meanwhile).
        await retryWhileUnavailable(ctx.outage, () => recordSuccesses(ctx, batch), stopped).catch((error) => {
          if (!ctx.outage.report(error))
            ctx.log.error({ err: error, deliveries: batch.length }, 'recording webhook attempts failed');
        });
      }
    })();
  }

  function flush(all = false): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    if (flushing) return all ? flushing.then(() => flush(true)) : flushing;
    flushing = writeBatches(all).finally(() => {
      flushing = null;
      if (successes.length > 0) scheduleFlush();
    });
    return flushing;
  }

  function scheduleFlush() {
    if (successes.length >= flushBatch) void flush();
    else if (!timer && !flushing && !stopped()) timer = setTimeout(() => void flush(true), flushDelayMs);
  }

  return {
    async record(outcome) {
      const { result } = outcome;
      ctx.metrics.deliveries.inc({
        outcome: result.ok ? 'delivered' : 'failed',
        error_class: result.errorClass ?? '',
      });
      if (result.ok) {
        successes.push(outcome);
        scheduleFlush();
        return;
      }
      await retryWhileUnavailable(ctx.outage, () => recordFailure(ctx, outcome), stopped);
    },
    flush,
    busy: () => successes.length > 0 || flushing !== null,
  };
}
