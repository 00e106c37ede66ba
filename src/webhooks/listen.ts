// `signet listen`: a workspace's events forwarded to a local URL while developing, like a
// payment platform's CLI. Nothing is registered: the command reads the bodies Signet
// stores for every event (webhook_events) as they appear and posts each one, signed
// exactly like a delivery (same headers, same signature scheme) with a secret of its own,
// to `forwardTo`. Local and private addresses are allowed here, and only here, because the
// operator runs it against their own machine. Reads are polled, so it works through the
// data folder's owner socket as well as on PostgreSQL; a window reaches back a few seconds
// (a transaction can commit after a later one), each event once (event-window.ts).
import type { Context } from '../context.ts';
import { createEventWindow } from './event-window.ts';
import { buildRequest } from './request.ts';
import { type AttemptResult, sendWebhook } from './sender.ts';

export interface ListenOptions {
  workspaceId: string;
  forwardTo: string;
  /** Only these event types; all when empty. */
  events: string[];
  secret: string;
  pollMs?: number;
  onForward(outcome: { eventId: string; type: string; deliveryId: string; result: AttemptResult }): void;
  onError(error: unknown): void;
}

export function startListening(ctx: Context, options: ListenOptions): { stop(): Promise<void> } {
  const events = createEventWindow(options.workspaceId, ctx.clock.now());
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const policy = { ...ctx.config.webhooks, allowUnsafe: true };

  async function pass(): Promise<void> {
    for (const row of await events.read(ctx.db, 500)) {
      if (stopped) return;
      if (options.events.length && !options.events.includes(row.type)) continue;
      const deliveryId = ctx.ids.uuid();
      const startedAt = ctx.clock.now();
      const request = buildRequest(
        {
          id: deliveryId,
          url: options.forwardTo,
          secret: options.secret,
          event_type: row.type,
          payload: row.payload,
        },
        startedAt,
      );
      const result = await sendWebhook(request, {
        timeoutMs: ctx.config.webhooks.timeoutMs,
        policy,
        resolver: ctx.resolver,
      });
      options.onForward({ eventId: row.id, type: row.type, deliveryId, result });
    }
  }

  const timer = setInterval(() => {
    running = running.then(() => (stopped ? undefined : pass().catch(options.onError)));
  }, options.pollMs ?? 200);

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
