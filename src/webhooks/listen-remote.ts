// `signet listen --api-url URL --api-key KEY`: the events of the key's workspace, read from
// GET /v1/events/stream (webhooks/event-stream.ts) and forwarded to a local URL, signed
// exactly like a delivery (request.ts) with the secret the stream's `ready` event names:
// the same for that key across restarts. No database: only HTTP. When the stream drops it
// reconnects with Last-Event-ID (the server resumes after that event), backing off from
// one second to thirty; 401 and 403 are final.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.ts';
import { type Resolver, systemResolver } from './destination.ts';
import { buildRequest } from './request.ts';
import { type AttemptResult, sendWebhook } from './sender.ts';
import { readServerSentEvents } from './sse.ts';

export interface RemoteListenOptions {
  /** The API's base, ending in /v1 (or the server's root: /v1 is added). */
  apiUrl: string;
  apiKey: string;
  forwardTo: string;
  /** Only these event types; all when empty. */
  events: string[];
  webhooks: Config['webhooks'];
  resolver?: Resolver;
  onReady(ready: { workspaceId: string; secret: string; reconnected: boolean }): void;
  onForward(outcome: { eventId: string; type: string; deliveryId: string; result: AttemptResult }): void;
  /** A dropped stream, and when the next try is. */
  onRetry(reason: string, inMs: number): void;
}

/** Why listening cannot go on: the key or the plan (the CLI prints it and exits 1). */
export class ListenRefused extends Error {}

const refusals: Record<number, string> = {
  401: 'the API key is not valid (401 invalid-api-key): create one in Settings, Integrations, API and Webhook',
  403: 'listen needs a Max workspace (403 plan-required)',
};

/** Silence longer than this (the server sends a keep-alive every 15 s) is a dead connection. */
const silenceMs = 45_000;

export function streamUrl(apiUrl: string, events: string[]): string {
  const base = apiUrl.replace(/\/+$/, '');
  const url = new URL(`${/\/v1$/.test(base) ? base : `${base}/v1`}/events/stream`);
  if (events.length) url.searchParams.set('types', events.join(','));
  return url.toString();
}

/** Runs until `signal` aborts (resolves) or the server refuses the key (rejects with ListenRefused). */
export async function listenRemotely(options: RemoteListenOptions, signal: AbortSignal): Promise<void> {
  const url = streamUrl(options.apiUrl, options.events);
  const policy = { ...options.webhooks, allowUnsafe: true };
  let lastEventId: string | undefined;
  let secret: string | null = null;
  let backoffMs = 1_000;
  let connectedOnce = false;

  while (!signal.aborted) {
    const attempt = new AbortController();
    const stop = () => attempt.abort();
    signal.addEventListener('abort', stop, { once: true });
    let watchdog: NodeJS.Timeout | undefined;
    const alive = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(stop, silenceMs);
    };
    let reason: string;
    let waitMs: number | null = null;
    try {
      alive();
      const response = await fetch(url, {
        headers: {
          authorization: `Bearer ${options.apiKey}`,
          accept: 'text/event-stream',
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
        signal: attempt.signal,
      });
      const refusal = refusals[response.status];
      if (refusal) {
        await response.body?.cancel();
        throw new ListenRefused(refusal);
      }
      if (response.status !== 200 || !response.body) {
        const text = await response.text().catch(() => '');
        const code = /"error":"([a-z-]+)"/.exec(text)?.[1];
        if (response.status === 400) throw new ListenRefused(`the server refused the request (400 ${code})`);
        const retryAfter = Number(response.headers.get('retry-after'));
        if (retryAfter > 0) waitMs = retryAfter * 1000;
        reason = `HTTP ${response.status}${code ? ` ${code}` : ''}`;
      } else {
        for await (const message of readServerSentEvents(response.body, alive)) {
          if (message.event === 'ready') {
            const ready = JSON.parse(message.data) as { workspaceId: string; secret: string };
            secret = ready.secret;
            backoffMs = 1_000;
            options.onReady({ ...ready, reconnected: connectedOnce });
            connectedOnce = true;
            continue;
          }
          if (!message.id || !secret) continue;
          const deliveryId = randomUUID();
          const request = buildRequest(
            {
              id: deliveryId,
              url: options.forwardTo,
              secret,
              event_type: message.event,
              payload: message.data,
            },
            new Date(),
          );
          const result = await sendWebhook(request, {
            timeoutMs: options.webhooks.timeoutMs,
            policy,
            resolver: options.resolver ?? systemResolver,
          });
          lastEventId = message.id;
          options.onForward({ eventId: message.id, type: message.event, deliveryId, result });
        }
        reason = 'the server ended the stream';
      }
    } catch (error) {
      if (error instanceof ListenRefused) throw error;
      if (signal.aborted) break;
      reason = attempt.signal.aborted
        ? `no data for ${silenceMs / 1000} s`
        : ((error as Error & { cause?: Error }).cause?.message ?? (error as Error).message);
    } finally {
      clearTimeout(watchdog);
      signal.removeEventListener('abort', stop);
    }
    if (signal.aborted) break;
    const delay = waitMs ?? backoffMs;
    options.onRetry(reason, delay);
    backoffMs = Math.min(backoffMs * 2, 30_000);
    await sleep(delay, undefined, { signal }).catch(() => {});
  }
}
