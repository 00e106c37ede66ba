// GET /v1/events/stream over real HTTP: a ready event with the key's signing secret (the
// same on every connection of that key, another for another key), then this workspace's
// events only, each with the very body a delivery carries; the types filter; resuming
// after Last-Event-ID; refusals as JSON envelopes before the stream starts (bad key, Free
// plan, unknown type, too many streams); and streams that end when the key is revoked or
// the app closes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { verifyWebhook } from '@signet/client';
import { Agent } from 'undici';
import { buildApp } from '../../src/app.ts';
import { eventStreamDefaults } from '../../src/config.ts';
import { findFullDocument } from '../../src/documents/documents.repository.ts';
import { recordDocumentEvent } from '../../src/documents/events.ts';
import { createMemoryRateLimiter } from '../../src/http/rate-limiter.ts';
import { createApiKey, revokeApiKey } from '../../src/keys/keys.service.ts';
import { batch } from '../../src/webhooks/event-stream.ts';
import { listenRemotely } from '../../src/webhooks/listen-remote.ts';
import { readServerSentEvents, type ServerSentEvent } from '../../src/webhooks/sse.ts';
import {
  callApi,
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  useHarness,
} from '../support/harness.ts';
import { until } from '../support/processes.ts';
import { startReceiver } from '../support/receiver.ts';

interface OpenStream {
  response: Response;
  /** The next message (keep-alives are comments, never messages); null when the stream ended. */
  next(timeoutMs?: number): Promise<ServerSentEvent | null>;
  close(): void;
}

async function openStream(
  baseUrl: string,
  key: string,
  options: { query?: string; lastEventId?: string } = {},
): Promise<OpenStream> {
  const controller = new AbortController();
  // A connection of its own, closed with the stream (never one a later request reuses).
  const agent = new Agent({ pipelining: 0 });
  const response = await fetch(`${baseUrl}/v1/events/stream${options.query ?? ''}`, {
    headers: {
      authorization: `Bearer ${key}`,
      accept: 'text/event-stream',
      ...(options.lastEventId ? { 'last-event-id': options.lastEventId } : {}),
    },
    signal: controller.signal,
    dispatcher: agent,
  } as RequestInit);
  if (response.status !== 200) {
    const text = await response.text();
    await agent.destroy();
    assert.fail(`${response.status}: ${text}`);
  }
  const events = readServerSentEvents(response.body as unknown as AsyncIterable<Uint8Array>);
  return {
    response,
    async next(timeoutMs = 5000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        const result = await Promise.race([events.next(), timeout]);
        return result.done ? null : result.value;
      } catch (error) {
        if ((error as Error).name === 'AbortError') return null;
        throw error;
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => {
      controller.abort();
      void agent.destroy();
    },
  };
}

interface Ready {
  workspaceId: string;
  secret: string;
  resumedAfter: string | null;
}

async function readyOf(stream: OpenStream): Promise<Ready> {
  const first = await stream.next();
  assert.equal(first?.event, 'ready');
  assert.equal(first.retry, 2000);
  return JSON.parse(first.data) as Ready;
}

describeEachDatabase('GET /v1/events/stream', (kind) => {
  const h = useHarness(kind);

  test('a ready event with the key’s secret: the same on every connection, another for another key', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const first = await openStream(h.baseUrl, ws.apiKey);
    assert.match(first.response.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(first.response.headers.get('x-ratelimit-limit'), '100000');
    assert.ok(first.response.headers.get('x-ratelimit-remaining'));
    assert.equal(first.response.headers.get('cache-control'), 'no-store');
    const ready = await readyOf(first);
    first.close();
    assert.equal(ready.workspaceId, ws.id);
    assert.match(ready.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.equal(ready.resumedAfter, null);

    const again = await openStream(h.baseUrl, ws.apiKey);
    assert.equal((await readyOf(again)).secret, ready.secret);
    again.close();

    const other = await createApiKey(h.ctx, { workspaceId: ws.id, name: 'second' });
    const second = await openStream(h.baseUrl, other.secret);
    assert.notEqual((await readyOf(second)).secret, ready.secret);
    second.close();
  });

  test('this workspace’s events only, each with the body its deliveries carry', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const stranger = await createTestWorkspace(h.ctx);
    const stream = await openStream(h.baseUrl, ws.apiKey);
    await readyOf(stream);
    await createSentDocument(h.ctx, stranger.id);
    const document = await createSentDocument(h.ctx, ws.id);
    const event = await stream.next();
    stream.close();
    assert.equal(event?.event, 'document.sent');
    const body = JSON.parse(event.data) as { id: string; type: string; data: { document: { id: string } } };
    assert.equal(body.data.document.id, document.id);
    assert.equal(event.id, body.id);
    const stored = await h.ctx.db
      .selectFrom('webhook_events')
      .select((eb) => eb.cast<string>('payload', 'text').as('payload'))
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    assert.equal(event.data, stored.payload, 'byte for byte the delivery body');

    // The stranger's stream, opened after (the clock moved on): nothing of ws's, and its own next event.
    h.clock.advance(1000);
    const theirs = await openStream(h.baseUrl, stranger.apiKey);
    await readyOf(theirs);
    await createSentDocument(h.ctx, ws.id);
    const own = await createSentDocument(h.ctx, stranger.id);
    const seen = await theirs.next();
    theirs.close();
    assert.equal((JSON.parse(seen?.data ?? '{}') as typeof body).data.document.id, own.id);
  });

  test(`a burst of more events than a read holds (${2 * batch + 200}, one transaction, one instant) arrives whole, each once, in order`, async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createSentDocument(h.ctx, ws.id);
    const document = await findFullDocument(h.ctx.db, ws.id, id);
    assert.ok(document);
    h.clock.advance(1000);
    const stream = await openStream(h.baseUrl, ws.apiKey);
    await readyOf(stream);
    // The test clock stands still: every event has the same created_at, the worst case for
    // a reader that reaches back over a window (it once read the same first batch for ever).
    const committed = await h.ctx.db.transaction().execute(async (trx) => {
      const ids: string[] = [];
      for (let i = 0; i < 2 * batch + 200; i++) {
        const event = await recordDocumentEvent(trx, h.ctx, {
          document,
          type: 'document.opened',
          recipient: null,
          at: h.clock.now(),
        });
        ids.push(event.id);
      }
      return ids;
    });
    const received: string[] = [];
    while (received.length < committed.length) {
      const event = await stream.next(10_000);
      assert.ok(event, `the stream ended after ${received.length} of ${committed.length}`);
      received.push(event.id as string);
    }
    stream.close();
    assert.equal(new Set(received).size, received.length, 'an event came twice');
    assert.deepEqual(received, [...committed].sort(), 'in (created_at, id) order, every one');
  });

  test('?types= filters; an unknown type is invalid-query before any stream', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const stream = await openStream(h.baseUrl, ws.apiKey, {
      query: '?types=document.opened,document.signed',
    });
    await readyOf(stream);
    const document = await createSentDocument(h.ctx, ws.id);
    h.clock.advance(1000);
    const { openDocument } = await import('../../src/signing/signing.service.ts');
    const recipient = await h.ctx.db
      .selectFrom('recipients')
      .select('id')
      .where('document_id', '=', document.id)
      .orderBy('signing_order')
      .executeTakeFirstOrThrow();
    await openDocument(h.ctx, { workspaceId: ws.id, documentId: document.id, recipientId: recipient.id });
    const event = await stream.next();
    stream.close();
    assert.equal(event?.event, 'document.opened', 'document.sent was left out');

    for (const query of ['?types=document.archived', '?types=', '?types=ping', '?other=1']) {
      const res = await callApi(h, 'GET', `/v1/events/stream${query}`, { key: ws.apiKey });
      assert.equal(res.status, 400, query);
      assert.deepEqual(res.body, { ok: false, error: 'invalid-query' });
      assert.ok(res.headers.get('x-ratelimit-remaining'));
    }
  });

  test('Last-Event-ID resumes after that event; an unknown one starts from now', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const stream = await openStream(h.baseUrl, ws.apiKey);
    await readyOf(stream);
    await createSentDocument(h.ctx, ws.id);
    const first = await stream.next();
    stream.close();
    assert.ok(first?.id);
    h.clock.advance(1000);
    const missed = [await createSentDocument(h.ctx, ws.id), await createSentDocument(h.ctx, ws.id)];

    const resumed = await openStream(h.baseUrl, ws.apiKey, { lastEventId: first.id });
    assert.equal((await readyOf(resumed)).resumedAfter, first.id);
    const ids = [];
    for (let i = 0; i < 2; i++) {
      const event = await resumed.next();
      ids.push((JSON.parse(event?.data ?? '{}') as { data: { document: { id: string } } }).data.document.id);
    }
    resumed.close();
    assert.deepEqual(ids.sort(), missed.map((d) => d.id).sort());

    const stranger = await createTestWorkspace(h.ctx);
    const elsewhere = await openStream(h.baseUrl, stranger.apiKey, { lastEventId: first.id });
    assert.equal((await readyOf(elsewhere)).resumedAfter, null, 'another workspace’s event id is unknown');
    elsewhere.close();
  });

  test('a bad key is 401 invalid-api-key, a Free workspace 403 plan-required, as JSON', async () => {
    const free = await createTestWorkspace(h.ctx, 'free');
    for (const [key, status, error] of [
      [null, 401, 'invalid-api-key'],
      [`sgn_${'x'.repeat(43)}`, 401, 'invalid-api-key'],
      [free.apiKey, 403, 'plan-required'],
    ] as const) {
      const res = await callApi(h, 'GET', '/v1/events/stream', { key });
      assert.equal(res.status, status);
      assert.deepEqual(res.body, { ok: false, error });
      assert.ok(res.headers.get('x-ratelimit-limit'));
    }
  });

  test(`at most ${eventStreamDefaults.perWorkspace} streams per workspace: the next is 429 too-many-streams`, async () => {
    // An app of its own: the many connections this test's client opens are its to close.
    const app = await buildApp(h.ctx, { rateLimiter: createMemoryRateLimiter(h.config.rateLimit) });
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const open: OpenStream[] = [];
    try {
      const ws = await createTestWorkspace(h.ctx);
      for (let i = 0; i < eventStreamDefaults.perWorkspace; i++) {
        open.push(await openStream(baseUrl, ws.apiKey));
        await readyOf(open.at(-1) as OpenStream);
      }
      const refused = await callApi({ baseUrl }, 'GET', '/v1/events/stream', { key: ws.apiKey });
      assert.equal(refused.status, 429);
      assert.deepEqual(refused.body, { ok: false, error: 'too-many-streams' });
      assert.equal(refused.headers.get('retry-after'), '2');
      const other = await createTestWorkspace(h.ctx);
      const elsewhere = await openStream(baseUrl, other.apiKey);
      await readyOf(elsewhere);
      elsewhere.close();
      (open.shift() as OpenStream).close();
      let reopened: OpenStream | null = null;
      for (let i = 0; i < 50 && !reopened; i++) {
        try {
          reopened = await openStream(baseUrl, ws.apiKey);
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      assert.ok(reopened, 'a closed stream gives its room back');
      reopened.close();
    } finally {
      for (const stream of open) stream.close();
      app.server.closeAllConnections();
      await app.close();
    }
  });

  test('the operator sets the streams per workspace and in all: past either, 429 too-many-streams', async () => {
    // SIGNET_EVENT_STREAMS_PER_WORKSPACE=2, SIGNET_EVENT_STREAMS_MAX=3, on an app of its own.
    const ctx = { ...h.ctx, config: { ...h.ctx.config, eventStreams: { perWorkspace: 2, max: 3 } } };
    const app = await buildApp(ctx, { rateLimiter: createMemoryRateLimiter(h.config.rateLimit) });
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const open: OpenStream[] = [];
    const opened = async (apiKey: string) => {
      open.push(await openStream(baseUrl, apiKey));
      await readyOf(open.at(-1) as OpenStream);
    };
    const refusal = async (apiKey: string) => {
      const refused = await callApi({ baseUrl }, 'GET', '/v1/events/stream', { key: apiKey });
      return [refused.status, (refused.body as { error?: string }).error, refused.headers.get('retry-after')];
    };
    try {
      const [a, b, c] = await Promise.all([1, 2, 3].map(() => createTestWorkspace(h.ctx)));
      if (!a || !b || !c) throw new Error('three workspaces');
      await opened(a.apiKey);
      await opened(a.apiKey);
      assert.deepEqual(await refusal(a.apiKey), [429, 'too-many-streams', '2'], 'the workspace is full');
      await opened(b.apiKey);
      assert.deepEqual(await refusal(b.apiKey), [429, 'too-many-streams', '2'], 'the process is full');
      assert.deepEqual(await refusal(c.apiKey), [429, 'too-many-streams', '2'], 'for every workspace');
      (open.shift() as OpenStream).close();
      let reopened = false;
      for (let i = 0; i < 50 && !reopened; i++) {
        try {
          await opened(c.apiKey);
          reopened = true;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      assert.ok(reopened, 'a closed stream gives its room back to the process');
    } finally {
      for (const stream of open) stream.close();
      app.server.closeAllConnections();
      await app.close();
    }
  });

  test('HEAD answers the headers and holds no stream open', async () => {
    const ws = await createTestWorkspace(h.ctx);
    for (let i = 0; i <= eventStreamDefaults.perWorkspace; i++) {
      const res = await fetch(`${h.baseUrl}/v1/events/stream`, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${ws.apiKey}` },
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.ok(res.headers.get('x-ratelimit-remaining'));
    }
    const stream = await openStream(h.baseUrl, ws.apiKey);
    await readyOf(stream);
    stream.close();
  });

  test('revoking the key ends its stream at the next poll', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const stream = await openStream(h.baseUrl, ws.apiKey);
    await readyOf(stream);
    await revokeApiKey(h.ctx, ws.keyId);
    assert.equal(await stream.next(3000), null);
  });

  test('closing the app ends its streams at once', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const app = await buildApp(h.ctx, { rateLimiter: createMemoryRateLimiter(h.config.rateLimit) });
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const stream = await openStream(baseUrl, ws.apiKey);
    await readyOf(stream);
    const started = Date.now();
    await app.close();
    assert.ok(Date.now() - started < 2000, `closed in ${Date.now() - started} ms`);
    assert.equal(await stream.next(1000), null);
  });

  test('signet listen’s client loses nothing across a server restart: it resumes after the last event it forwarded', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const receiver = await startReceiver();
    const rateLimiter = createMemoryRateLimiter(h.config.rateLimit);
    let app = await buildApp(h.ctx, { rateLimiter });
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const port = Number(new URL(baseUrl).port);
    const stop = new AbortController();
    const secrets: string[] = [];
    const retries: string[] = [];
    const listening = listenRemotely(
      {
        apiUrl: baseUrl,
        apiKey: ws.apiKey,
        forwardTo: `${receiver.url}/hooks`,
        events: [],
        webhooks: h.config.webhooks,
        onReady: ({ secret }) => void secrets.push(secret),
        onForward: () => {},
        onRetry: (reason) => void retries.push(reason),
      },
      stop.signal,
    );
    const forwarded = () => receiver.requests.map((r) => (JSON.parse(r.body) as { id: string }).id);
    try {
      await until(() => secrets.length === 1, 5000, 'ready');
      await createSentDocument(h.ctx, ws.id);
      await until(() => receiver.requests.length === 1, 5000, 'the first event forwarded');

      await app.close();
      await until(() => retries.length > 0, 5000, 'the drop noticed');
      h.clock.advance(1000);
      await createSentDocument(h.ctx, ws.id);
      await createSentDocument(h.ctx, ws.id);
      const missed = (
        await h.ctx.db.selectFrom('webhook_events').select('id').where('workspace_id', '=', ws.id).execute()
      ).map((row) => row.id);
      app = await buildApp(h.ctx, { rateLimiter });
      await app.listen({ host: '127.0.0.1', port });

      await until(
        () => receiver.requests.length === 3,
        10_000,
        'the missed events forwarded after the restart',
      );
      assert.deepEqual(forwarded().sort(), missed.sort(), 'each event once, none lost');
      assert.deepEqual(secrets.length, 2);
      assert.equal(secrets[0], secrets[1]);
      for (const request of receiver.requests) {
        const event = await verifyWebhook(
          request.body,
          request.headers['x-service-signature'],
          secrets[0] as string,
        );
        assert.equal(event.type, 'document.sent');
      }
    } finally {
      stop.abort();
      await listening;
      await app.close();
      await receiver.close();
    }
  });

  test('a random Last-Event-ID is ignored', async () => {
    const ws = await createTestWorkspace(h.ctx);
    for (const lastEventId of [randomUUID(), 'not-an-id']) {
      const stream = await openStream(h.baseUrl, ws.apiKey, { lastEventId });
      assert.equal((await readyOf(stream)).resumedAfter, null);
      stream.close();
    }
  });
});
