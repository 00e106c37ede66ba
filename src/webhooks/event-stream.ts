// GET /v1/events/stream: a workspace's events as server-sent events, for `signet listen
// --api-url` (and any SSE client) holding an API key of a Max workspace. The stream opens
// with `event: ready` (the key's signing secret), then sends each event as `id:` (the
// event id), `event:` (its type) and `data:` (the very body a webhook delivery carries,
// from webhook_events), a `: keep-alive` comment every 15 s in between.
//
// Events are read from the database per stream, polled once a second and at once when
// the outbox NOTIFY says an event committed (any process on the database), reaching back a
// few seconds for transactions that commit after a later one, each event once
// (event-window.ts, shared with `signet listen --workspace`).
// Each poll also checks that the key is still active on a Max workspace, and ends the
// stream when not. `Last-Event-ID` resumes after that event while its body is stored.
//
// The signing secret is derived, never stored: HMAC-SHA256 of the key's id under a server
// secret every process shares (server_secrets), so it stays the same across restarts and
// processes for that key, and a new key has a new one.
import { createHmac } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { Context } from '../context.ts';
import type { DatabaseHandle } from '../db/handle.ts';
import { loadServerSecret } from '../db/server-secrets.ts';
import { outboxChannel } from '../documents/outbox.repository.ts';
import { isActiveMaxKey } from '../keys/keys.repository.ts';
import { createEventWindow } from './event-window.ts';
import { findWebhookEventOfWorkspace } from './outbox.repository.ts';

export const heartbeatMs = 15_000;
/** The reconnection delay the stream suggests to clients (`retry:`). */
export const reconnectMs = 2_000;
const pollMs = 1_000;
/** Events read per query; a pass reads again at once after a full batch. */
export const batch = 500;

/** `whsec_` + base64url(HMAC-SHA256(server secret, "listen:" + key id)). */
export function listenSecret(serverSecret: Buffer, apiKeyId: string): string {
  return `whsec_${createHmac('sha256', serverSecret).update(`listen:${apiKeyId}`).digest('base64url')}`;
}

export interface StreamStart {
  workspaceId: string;
  keyId: string;
  /** Only these event types; all when empty. */
  types: string[];
  /** The Last-Event-ID the client sent, if any. */
  lastEventId: string | undefined;
}

/** One SSE message; a multi-line value becomes several `data:` lines, as the format requires. */
function message(fields: { id?: string; event: string; data: string }): string {
  const data = fields.data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('');
  return `${fields.id ? `id: ${fields.id}\n` : ''}event: ${fields.event}\n${data}\n`;
}

/**
 * The streams of one app: their count per workspace, the secret they derive from, the
 * outbox NOTIFY that wakes them (heard once per app, from the first stream on), and
 * closing them all when the app closes.
 */
export function createEventStreams(ctx: Context, subscribe: DatabaseHandle['subscribe'] | undefined) {
  const open = new Map<string, number>();
  const streams = new Set<{ end(): void; wake(): void }>();
  let secretKey: Promise<Buffer> | null = null;
  let hearing: Promise<() => Promise<void>> | null = null;
  let closed = false;

  function hear() {
    if (!subscribe || hearing) return;
    hearing = subscribe(outboxChannel, {
      onNotify: () => {
        for (const stream of streams) stream.wake();
      },
      onStateChange: () => {},
    });
    hearing.catch((error: unknown) => {
      ctx.log.warn({ err: error }, 'event streams: cannot LISTEN for new events; polling only');
      hearing = null;
    });
  }

  return {
    /** Whether the workspace may open one more stream here: its own limit, and the process's. */
    hasRoom(workspaceId: string): boolean {
      const limits = ctx.config.eventStreams;
      return !closed && (open.get(workspaceId) ?? 0) < limits.perWorkspace && streams.size < limits.max;
    },

    async secretFor(keyId: string): Promise<string> {
      secretKey ??= loadServerSecret(ctx.db, 'listen-hmac', ctx).catch((error: unknown) => {
        secretKey = null;
        throw error;
      });
      return listenSecret(await secretKey, keyId);
    },

    /** Where the stream starts: after the Last-Event-ID's event when it is stored, else now. */
    async startingPoint(start: StreamStart): Promise<{ at: Date; after: string | null }> {
      const id = start.lastEventId?.trim();
      const found =
        id && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)
          ? await findWebhookEventOfWorkspace(ctx.db, start.workspaceId, id.toLowerCase())
          : undefined;
      return found ? { at: found.created_at, after: found.id } : { at: ctx.clock.now(), after: null };
    },

    /**
     * Counts the stream at once (call right after hasRoom, before any await), and returns
     * the body to send: `ready` first, then events until the client goes, the key stops
     * being valid, or the app closes.
     */
    open(start: StreamStart, from: { at: Date; after: string | null }, secret: string): PassThrough {
      open.set(start.workspaceId, (open.get(start.workspaceId) ?? 0) + 1);
      hear();
      const body = new PassThrough();
      const events = createEventWindow(start.workspaceId, from.at, from.after ? [from.after] : []);
      let ended = false;
      let timer: NodeJS.Timeout | undefined;
      let passing = false;
      let again = false;

      const write = (text: string) => {
        if (!ended) body.write(text);
      };

      async function pass(): Promise<void> {
        if (!(await isActiveMaxKey(ctx.db, start.keyId))) {
          end();
          return;
        }
        const rows = await events.read(ctx.db, batch);
        for (const row of rows) {
          if (ended) return;
          if (start.types.length && !start.types.includes(row.type)) continue;
          write(message({ id: row.id, event: row.type, data: row.payload }));
        }
        // A full batch: more are waiting.
        if (rows.length === batch) again = true;
      }

      function schedule(ms: number) {
        clearTimeout(timer);
        if (!ended) timer = setTimeout(run, ms);
      }

      function run() {
        if (ended) return;
        if (passing) {
          again = true;
          return;
        }
        passing = true;
        again = false;
        // A slow reader: wait until it has taken what was written.
        const ready = body.writableNeedDrain
          ? new Promise<void>((resolve) => body.once('drain', resolve))
          : Promise.resolve();
        ready
          .then(pass)
          .catch((error: unknown) => {
            // An outage is logged once (ctx.outage), not once a second per stream; the stream stays.
            if (!ctx.outage.report(error))
              ctx.log.warn({ err: error }, 'event stream: reading events failed');
          })
          .finally(() => {
            passing = false;
            schedule(again ? 0 : pollMs);
          });
      }

      const heartbeat = setInterval(() => write(': keep-alive\n\n'), heartbeatMs);
      const stream = { end, wake: () => schedule(0) };

      function end() {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        clearInterval(heartbeat);
        streams.delete(stream);
        const left = (open.get(start.workspaceId) ?? 1) - 1;
        if (left > 0) open.set(start.workspaceId, left);
        else open.delete(start.workspaceId);
        body.end();
      }

      streams.add(stream);
      // The client went away (Fastify destroys the body when the response closes early).
      body.on('close', end);
      write(`retry: ${reconnectMs}\n`);
      write(
        message({
          event: 'ready',
          data: JSON.stringify({ workspaceId: start.workspaceId, secret, resumedAfter: from.after }),
        }),
      );
      run();
      return body;
    },

    /** Ends every stream and stops hearing NOTIFY: the app is closing. */
    async close(): Promise<void> {
      closed = true;
      for (const stream of [...streams]) stream.end();
      const unsubscribe = await hearing?.catch(() => null);
      await unsubscribe?.();
    },
  };
}
