// The background work of `signet serve` (role all or worker). Each queue is declared once
// over the claim-and-lease module (queue/lease.ts: claimed FOR UPDATE SKIP LOCKED with a short
// lease, renewed while the work runs, released on a clean stop) in a `*-queue.ts` beside the
// code that does its work; this file runs a wake loop per queue (wake-loop.ts: one pass at
// a time, surviving its own errors; stop() waits for the pass in flight), woken at once by
// the queue's NOTIFY from any process and on an interval for retries and leases a crashed
// worker left, so its work is taken over within a lease and an interval:
// - expiry and automatic reminders, every 30 s (within a minute of their time; no queue);
// - seals (sealing/seal-queue.ts), woken by the last signature, every 2 s;
// - mail (mail/mail-queue.ts), every 5 s, urgent mail in a lane of its own beside the main
//   pass, so a code never waits for a pass of bulk mail to end;
// - page images drawn ahead of time (files/page-image-queue.ts), woken when a PDF is
//   stored, every 10 s;
// - bulk sends (templates/bulk-queue.ts), woken when one is confirmed, every 10 s;
// - webhook deliveries (webhooks/delivery-queue.ts): the dispatcher's own engine.
// A stop lets the mail, page or transaction of rows in hand finish, starts no other, and
// lets the rest of what was claimed go at once. While the database is unreachable a
// failing pass is not logged (the outage monitor logs the outage once) and waits for its
// next turn; the outage's end wakes every loop at once.
import type { Context } from '../context.ts';
import type { DatabaseHandle } from '../db/connect.ts';
import { drawQueuedPages } from '../files/background-pages.ts';
import { pageImageChannel } from '../files/files.repository.ts';
import { deliverDueMails } from '../mail/mail.service.ts';
import type { MailTransport } from '../mail/mailer.ts';
import { mailChannel } from '../mail/mails.repository.ts';
import { sealChannel } from '../progress/completion.ts';
import { sealDueDocuments } from '../sealing/sealing.service.ts';
import { expireDueDocuments } from '../sending/ending.ts';
import { remindDueSigners } from '../sending/reminders.ts';
import { bulkChannel, sendDueBulkRows } from '../templates/bulk-send.ts';
import { createWakeLoop, type WakeLoop } from '../wake-loop.ts';
import { type Dispatcher, startDispatcher } from '../webhooks/dispatcher.ts';

export interface WorkerOptions {
  transport: MailTransport;
  subscribe: DatabaseHandle['subscribe'];
  expiryIntervalMs?: number;
  mailIntervalMs?: number;
  sealIntervalMs?: number;
  pagesIntervalMs?: number;
  bulkIntervalMs?: number;
}

function startLoop(ctx: Context, name: string, intervalMs: number, pass: () => Promise<unknown>): WakeLoop {
  return createWakeLoop({
    pass,
    intervalMs,
    onError: (error) => {
      if (!ctx.outage.report(error)) ctx.log.error({ err: error, loop: name }, 'background pass failed');
    },
  });
}

export async function startWorker(
  ctx: Context,
  options: WorkerOptions,
): Promise<{ dispatcher: Dispatcher; stop(): Promise<void> }> {
  // Expiry first: a document that has just ended reminds nobody.
  const expiry = startLoop(ctx, 'expiry', options.expiryIntervalMs ?? 30_000, async () => {
    await expireDueDocuments(ctx);
    await remindDueSigners(ctx);
  });
  let stopping = false;
  const isStopping = () => stopping;
  const mail = startLoop(ctx, 'mail', options.mailIntervalMs ?? 5_000, async () => {
    // Drain: keep going while batches come back.
    while (!stopping && (await deliverDueMails(ctx, options.transport, { stopping: isStopping })) > 0) {}
  });
  // What a person waits for (mail/priority.ts), woken by the same NOTIFY: its claim reads
  // only urgent mail (a partial index), and it keeps to the same pace, counted in the table.
  const urgentMail = startLoop(ctx, 'urgent mail', options.mailIntervalMs ?? 5_000, async () => {
    while (
      !stopping &&
      (await deliverDueMails(ctx, options.transport, { lane: 'urgent', stopping: isStopping })) > 0
    ) {}
  });
  const seal = startLoop(ctx, 'seal', options.sealIntervalMs ?? 2_000, async () => {
    while ((await sealDueDocuments(ctx)) > 0) {}
  });
  const pages = startLoop(ctx, 'pages', options.pagesIntervalMs ?? 10_000, () =>
    drawQueuedPages(ctx, { stopping: () => stopping }),
  );
  const bulk = startLoop(ctx, 'bulk', options.bulkIntervalMs ?? 10_000, async () => {
    while (!stopping && (await sendDueBulkRows(ctx, { stopping: () => stopping })) > 0) {}
  });
  const unsubscribeBulk = await options.subscribe(bulkChannel, {
    onNotify: () => bulk.wake(),
    onStateChange: () => {},
  });
  const unsubscribePages = await options.subscribe(pageImageChannel, {
    onNotify: () => pages.wake(),
    onStateChange: () => {},
  });
  const unsubscribe = await options.subscribe(mailChannel, {
    onNotify: () => {
      urgentMail.wake();
      mail.wake();
    },
    onStateChange: () => {},
  });
  const unsubscribeSeal = await options.subscribe(sealChannel, {
    onNotify: () => seal.wake(),
    onStateChange: () => {},
  });
  const dispatcher = await startDispatcher(ctx, { subscribe: options.subscribe });
  const stopHearingRecovery = ctx.outage.onRecovered(() => {
    expiry.wake();
    urgentMail.wake();
    mail.wake();
    seal.wake();
    pages.wake();
    bulk.wake();
  });
  return {
    dispatcher,
    async stop() {
      stopHearingRecovery();
      stopping = true;
      await unsubscribePages();
      await unsubscribe();
      await unsubscribeSeal();
      await unsubscribeBulk();
      await Promise.all([
        expiry.stop(),
        mail.stop(),
        urgentMail.stop(),
        seal.stop(),
        pages.stop(),
        bulk.stop(),
        dispatcher.stop(),
      ]);
    },
  };
}
