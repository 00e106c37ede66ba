// The reader of `npm run bench:stream`, in its own process (as bench/receiver.ts is for
// the webhook benches): it does not share an event loop with the process committing the
// events. Told over IPC to start one of two readers, it remembers when each event arrived
// (epoch ms to a fraction of one, the clock of webhook-setup.ts's epochMs()):
//  - stream: GET /v1/events/stream with the API key, read with the client's SSE parser
//    (src/webhooks/sse.ts, what `signet listen --api-url` reads with);
//  - bare: the ceiling. LISTEN on the outbox channel, and on each NOTIFY (and once a
//    second) the stream's own query, findWebhookEventsSince, on a pool of its own, reading
//    from the newest event it has seen (ties skipped by id): the database's notify-and-read,
//    with no HTTP, no key check, no SSE, no overlap window read again.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createPgPool } from '../src/db/connect.ts';
import type { Database } from '../src/db/schema.ts';
import { outboxChannel } from '../src/documents/outbox.repository.ts';
import { findWebhookEventsSince } from '../src/webhooks/outbox.repository.ts';
import { readServerSentEvents } from '../src/webhooks/sse.ts';

const epochMs = () => performance.timeOrigin + performance.now();

type Start =
  | { type: 'start'; mode: 'stream'; url: string; apiKey: string }
  | { type: 'start'; mode: 'bare'; databaseUrl: string; workspaceId: string };
type Message = Start | { type: 'stop' } | { type: 'count' } | { type: 'arrivals' } | { type: 'exit' };

let arrivals: Array<[string, number]> = [];
let stopCurrent: (() => Promise<void>) | null = null;

async function startStream(url: string, apiKey: string) {
  const abort = new AbortController();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${apiKey}`, accept: 'text/event-stream' },
    signal: abort.signal,
  });
  if (response.status !== 200 || !response.body) throw new Error(`stream: HTTP ${response.status}`);
  const body = response.body;
  let ready: () => void = () => {};
  const isReady = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const reading = (async () => {
    for await (const message of readServerSentEvents(body)) {
      if (message.event === 'ready') ready();
      else if (message.id) arrivals.push([message.id, epochMs()]);
    }
  })().catch(() => {});
  await isReady;
  return async () => {
    abort.abort();
    await reading;
  };
}

async function startBare(databaseUrl: string, workspaceId: string) {
  const pool = createPgPool(databaseUrl, 2);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  let since = new Date();
  let seen = new Set<string>();
  let stopped = false;
  let passing = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  async function pass() {
    const rows = await findWebhookEventsSince(db, workspaceId, since, 500);
    for (const row of rows) {
      if (seen.has(row.id)) continue;
      seen.add(row.id);
      arrivals.push([row.id, epochMs()]);
    }
    const newest = rows.at(-1)?.created_at;
    if (newest && newest.getTime() > since.getTime()) {
      // Read again from the newest: only the ids of that instant need skipping next time.
      seen = new Set(
        rows.filter((row) => row.created_at.getTime() === newest.getTime()).map((row) => row.id),
      );
      since = newest;
    }
    if (rows.length === 500) again = true;
  }
  function run() {
    if (stopped) return;
    if (passing) {
      again = true;
      return;
    }
    passing = true;
    again = false;
    clearTimeout(timer);
    pass()
      .catch((error: unknown) => process.stderr.write(`bare reader: ${(error as Error).message}\n`))
      .finally(() => {
        passing = false;
        if (!stopped) timer = setTimeout(run, again ? 0 : 1000);
      });
  }

  const listener = new pg.Client({ connectionString: databaseUrl });
  listener.on('notification', (message) => {
    if (message.channel === outboxChannel) run();
  });
  await listener.connect();
  await listener.query(`listen ${outboxChannel}`);
  run();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await listener.end();
    await db.destroy();
  };
}

process.on('message', (message: Message) => {
  const answer = (reply: object) => process.send?.(reply);
  if (message.type === 'start') {
    arrivals = [];
    const starting =
      message.mode === 'stream'
        ? startStream(message.url, message.apiKey)
        : startBare(message.databaseUrl, message.workspaceId);
    starting.then(
      (stop) => {
        stopCurrent = stop;
        answer({ started: true });
      },
      (error: unknown) => answer({ error: (error as Error).message }),
    );
  }
  if (message.type === 'stop') {
    const stop = stopCurrent;
    stopCurrent = null;
    (stop?.() ?? Promise.resolve()).then(() => answer({ stopped: true }));
  }
  if (message.type === 'count') answer({ count: arrivals.length });
  if (message.type === 'arrivals') answer({ arrivals: arrivals.splice(0) });
  if (message.type === 'exit') process.exit(0);
});
process.send?.({ up: true });
