// The background work of `signet serve` (role all or worker): expiring overdue documents
// (every 30 s, so within a minute of their expiry), delivering mail (woken at once by
// NOTIFY from any process, and every 5 s regardless) and webhooks (dispatcher.ts). Each loop runs one pass at a time
// and survives its own errors; stop() waits for the pass in flight. While the database
// is unreachable a failing pass is not logged (the outage monitor logs the outage once)
// and waits for its next turn; the outage's end wakes every loop at once.
import type { Context } from '../context.ts';
import type { DatabaseHandle } from '../db/connect.ts';
import { expireDueDocuments } from '../documents/signing.service.ts';
import { deliverDueMails } from '../mail/mail.service.ts';
import type { MailTransport } from '../mail/mailer.ts';
import { mailChannel } from '../mail/mails.repository.ts';
import { type Dispatcher, startDispatcher } from '../webhooks/dispatcher.ts';

export interface WorkerOptions {
  transport: MailTransport;
  subscribe: DatabaseHandle['subscribe'];
  expiryIntervalMs?: number;
  mailIntervalMs?: number;
}

interface Loop {
  wake(): void;
  stop(): Promise<void>;
}

function startLoop(ctx: Context, name: string, intervalMs: number, pass: () => Promise<unknown>): Loop {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  function schedule(delay: number) {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(run, delay);
  }

  function run() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .then(
        () => {},
        (error) => {
          if (!ctx.outage.report(error)) ctx.log.error({ err: error, loop: name }, 'background pass failed');
        },
      )
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          schedule(0);
        } else schedule(intervalMs);
      });
  }

  schedule(0);
  return {
    wake: () => schedule(0),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

export async function startWorker(
  ctx: Context,
  options: WorkerOptions,
): Promise<{ dispatcher: Dispatcher; stop(): Promise<void> }> {
  const expiry = startLoop(ctx, 'expiry', options.expiryIntervalMs ?? 30_000, () => expireDueDocuments(ctx));
  const mail = startLoop(ctx, 'mail', options.mailIntervalMs ?? 5_000, async () => {
    // Drain: keep going while full batches come back.
    while ((await deliverDueMails(ctx, options.transport)) > 0) {}
  });
  const unsubscribe = await options.subscribe(mailChannel, {
    onNotify: () => mail.wake(),
    onStateChange: () => {},
  });
  const dispatcher = await startDispatcher(ctx, { subscribe: options.subscribe });
  const stopHearingRecovery = ctx.outage.onRecovered(() => {
    expiry.wake();
    mail.wake();
  });
  return {
    dispatcher,
    async stop() {
      stopHearingRecovery();
      await unsubscribe();
      await Promise.all([expiry.stop(), mail.stop(), dispatcher.stop()]);
    },
  };
}
