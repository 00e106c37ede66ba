// @signet/client against a live Signet (the harness's real HTTP server): every method of
// its reads and of the webhook endpoints (the delivery log paged and listed, a resend, a create
// under an Idempotency-Key among them), a walk across more than 10 pages, 429 waited out with a
// small burst, a typed error for each code the API can answer, an outage and no answer at all,
// verifyWebhook on real deliveries (valid, tampered, wrong secret, stale, future, malformed
// header, unreadable time). The package as built: client-build.test.ts; downloads and writes:
// client-download.test.ts and client-writes.test.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import {
  createClient,
  SignetApiError,
  SignetNetworkError,
  verifyWebhook,
  WebhookVerificationError,
} from '../../packages/client/src/index.ts';
import { systemClock } from '../../src/context.ts';
import { createOutageMonitor } from '../../src/db/availability.ts';
import { insertSampleDocuments } from '../../src/demo/seed.ts';
import { sendPing } from '../../src/webhooks/deliveries.service.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.service.ts';
import { contractFetch } from '../support/contract.ts';
import {
  createTestWorkspace,
  describeEachDatabase,
  type TestWorkspace,
  unreachableDatabase,
  useHarness,
  withApp,
} from '../support/harness.ts';
import { type Receiver, receivePing, startReceiver } from '../support/receiver.ts';
import { failure } from './client-setup.ts';

describeEachDatabase('@signet/client against a live Signet', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_WEBHOOK_ALLOW_UNSAFE: '1' } });
  let ws: TestWorkspace;
  let client: ReturnType<typeof createClient>;

  test('setup: a workspace with 31 documents', async () => {
    ws = await createTestWorkspace(h.ctx);
    await insertSampleDocuments(h.ctx, ws.id, 31);
    client = createClient({ apiKey: ws.apiKey, baseUrl: `${h.baseUrl}/v1`, fetch: contractFetch });
  });

  test('documents.list() walks every page (16 pages of 2) and yields each document once, newest first', async () => {
    const seen: string[] = [];
    const pages: number[] = [];
    const counting = createClient({
      apiKey: ws.apiKey,
      baseUrl: `${h.baseUrl}/v1`,
      fetch: (input, init) => {
        pages.push(1);
        return contractFetch(input, init);
      },
    });
    for await (const document of counting.documents.list({ limit: 2 })) seen.push(document.id);
    assert.equal(seen.length, 31);
    assert.equal(new Set(seen).size, 31);
    assert.equal(pages.length, 16);
    const first = await client.documents.page({ limit: 31 });
    assert.deepEqual(
      seen,
      first.data.map((d) => d.id),
    );
    assert.equal(first.nextCursor, null);
  });

  test('documents.get() returns the detail; the status filter is passed on', async () => {
    const [one] = (await client.documents.page({ limit: 1 })).data;
    assert.ok(one);
    const detail = await client.documents.get(one.id);
    assert.equal(detail.id, one.id);
    assert.ok(Array.isArray(detail.recipients));
    for await (const document of client.documents.list({ status: 'signed' }))
      assert.equal(document.status, 'signed');
  });

  test('webhookEndpoints: create (with its secret), list, get, update, delete', async () => {
    const created = await client.webhookEndpoints.create({
      url: 'https://hooks.example.com/client',
      events: ['document.sent'],
      description: 'from the client',
    });
    assert.match(created.secret, /^whsec_/);
    assert.deepEqual(
      (await client.webhookEndpoints.list()).map((e) => e.id),
      [created.id],
    );
    assert.equal((await client.webhookEndpoints.get(created.id)).description, 'from the client');
    const updated = await client.webhookEndpoints.update(created.id, {
      events: ['document.sent', 'document.signed'],
    });
    assert.deepEqual(updated.events, ['document.sent', 'document.signed']);
    assert.deepEqual(await client.webhookEndpoints.delete(created.id), { id: created.id, deleted: true });
  });

  test('webhookEndpoints.create with an idempotencyKey: the retry answers the first endpoint, secret and all', async () => {
    const own = await createTestWorkspace(h.ctx);
    const keyed = createClient({ apiKey: own.apiKey, baseUrl: `${h.baseUrl}/v1` });
    const body = { url: 'https://hooks.example.com/keyed', events: ['document.sent' as const] };
    const idempotencyKey = randomUUID();
    const first = await keyed.webhookEndpoints.create(body, { idempotencyKey });
    const again = await keyed.webhookEndpoints.create(
      { events: ['document.sent'], url: 'https://hooks.example.com/keyed' },
      { idempotencyKey },
    );
    assert.deepEqual(again, first, 'the same body in another key order is the same create');
    assert.deepEqual(
      (await keyed.webhookEndpoints.list()).map((e) => e.id),
      [first.id],
    );
    const reused = await failure(
      keyed.webhookEndpoints.create({ ...body, description: 'another body' }, { idempotencyKey }),
    );
    assert.deepEqual([reused.code, reused.status, reused.pointer], ['idempotency-key-reused', 409, null]);
    const shapeless = await failure(keyed.webhookEndpoints.create(body, { idempotencyKey: 'two words' }));
    assert.deepEqual([shapeless.code, shapeless.status], ['invalid-idempotency-key', 400]);
    const second = await keyed.webhookEndpoints.create(body);
    assert.notEqual(second.id, first.id, 'without a key, every create makes an endpoint');
  });

  test('webhookEndpoints.deliveries: page and list walk the log newest first; resend sends a dropped delivery again', async () => {
    const own = await createTestWorkspace(h.ctx);
    const keyed = createClient({ apiKey: own.apiKey, baseUrl: `${h.baseUrl}/v1` });
    const receiver = await startReceiver((_request, response) => {
      response.statusCode = 500;
      response.end('down');
    });
    try {
      const endpoint = await createEndpoint(h.ctx, own.id, {
        url: `${receiver.url}/hooks`,
        events: ['document.sent'],
      });
      const sent: string[] = [];
      for (let i = 0; i < 5; i++) {
        const ping = await sendPing(h.ctx, own.id, endpoint.id); // fails: dropped, as a ping is
        assert.equal(ping.ok, false);
        sent.unshift(ping.deliveryId);
        h.clock.advance(1000);
      }
      const first = await keyed.webhookEndpoints.deliveries.page(endpoint.id, { limit: 2 });
      assert.deepEqual(
        first.data.map((d) => d.id),
        sent.slice(0, 2),
      );
      assert.ok(first.nextCursor);
      const second = await keyed.webhookEndpoints.deliveries.page(endpoint.id, {
        limit: 2,
        cursor: first.nextCursor,
      });
      assert.deepEqual(
        second.data.map((d) => d.id),
        sent.slice(2, 4),
      );
      const listed: string[] = [];
      for await (const delivery of keyed.webhookEndpoints.deliveries.list(endpoint.id, { limit: 2 })) {
        assert.equal(delivery.status, 'dropped');
        assert.deepEqual(
          delivery.attemptLog.map((a) => [a.attempt, a.statusCode, a.errorClass]),
          [[1, 500, 'http-status']],
        );
        listed.push(delivery.id);
      }
      assert.deepEqual(listed, sent, 'every delivery once, newest first, across 3 pages');

      receiver.setHandler((_request, response) => response.end('ok'));
      const [newest] = sent as [string];
      const resent = await keyed.webhookEndpoints.deliveries.resend(endpoint.id, newest);
      assert.deepEqual(resent, {
        deliveryId: newest,
        attempt: 2,
        delivered: true,
        statusCode: 200,
        errorClass: null,
        durationMs: resent.durationMs,
      });
      const [original, again] = receiver.requests.filter(
        (r) => r.headers['x-service-delivery-id'] === newest,
      );
      assert.equal(again?.body, original?.body, 'the same body, sent again');
      const [after] = (await keyed.webhookEndpoints.deliveries.page(endpoint.id, { limit: 1 })).data;
      assert.deepEqual([after?.id, after?.status, after?.attempts], [newest, 'delivered', 2]);

      const twice = await failure(keyed.webhookEndpoints.deliveries.resend(endpoint.id, newest));
      assert.deepEqual([twice.code, twice.status], ['delivery-not-resendable', 409]);
      // Another workspace's key sees neither the log nor the delivery.
      const stranger = await failure(client.webhookEndpoints.deliveries.page(endpoint.id));
      assert.deepEqual([stranger.code, stranger.status], ['not-found', 404]);
      const resendOther = await failure(
        client.webhookEndpoints.deliveries.resend(endpoint.id, sent[1] as string),
      );
      assert.deepEqual([resendOther.code, resendOther.status], ['not-found', 404]);
      const badCursor = await failure(
        keyed.webhookEndpoints.deliveries.page(endpoint.id, { cursor: 'nope' }),
      );
      assert.deepEqual([badCursor.code, badCursor.status], ['invalid-cursor', 400]);
    } finally {
      await receiver.close();
    }
  });

  test('webhookEndpoints.rotateSecret: a new secret with the overlap asked for; during it a ping verifies with either secret', async () => {
    const own = await createTestWorkspace(h.ctx);
    const keyed = createClient({ apiKey: own.apiKey, baseUrl: `${h.baseUrl}/v1` });
    const receiver = await startReceiver();
    try {
      const created = await keyed.webhookEndpoints.create({
        url: `${receiver.url}/hooks`,
        events: ['document.sent'],
      });
      const rotated = await keyed.webhookEndpoints.rotateSecret(created.id, { overlapHours: 2 });
      assert.equal(rotated.id, created.id);
      assert.notEqual(rotated.secret, created.secret);
      assert.equal(
        rotated.previousSecretExpiresAt,
        new Date(h.clock.now().getTime() + 2 * 3_600_000).toISOString(),
      );
      assert.equal((await sendPing(h.ctx, own.id, created.id)).ok, true);
      const ping = receiver.requests.at(-1);
      assert.ok(ping);
      for (const secret of [created.secret, rotated.secret]) {
        const event = await verifyWebhook(ping.body, ping.headers['x-service-signature'], secret, {
          now: h.clock.now(),
        });
        assert.equal(event.type, 'ping');
      }
      const byDefault = await keyed.webhookEndpoints.rotateSecret(created.id);
      assert.equal(
        byDefault.previousSecretExpiresAt,
        new Date(h.clock.now().getTime() + 24 * 3_600_000).toISOString(),
      );
      const outOfRange = await failure(
        keyed.webhookEndpoints.rotateSecret(created.id, { overlapHours: 169 }),
      );
      assert.deepEqual([outOfRange.code, outOfRange.status], ['invalid-body', 400]);
      const stranger = await failure(client.webhookEndpoints.rotateSecret(created.id));
      assert.deepEqual([stranger.code, stranger.status], ['not-found', 404]);
    } finally {
      await receiver.close();
    }
  });

  test('each error code the API answers arrives as a SignetApiError with its code and status', async () => {
    const free = await createTestWorkspace(h.ctx, 'free');
    const unknownId = '0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a';
    const cases: Array<[string, number, () => Promise<unknown>]> = [
      [
        'invalid-api-key',
        401,
        () =>
          createClient({
            apiKey: 'sgn_nope',
            baseUrl: `${h.baseUrl}/v1`,
            fetch: contractFetch,
          }).documents.page(),
      ],
      [
        'plan-required',
        403,
        () =>
          createClient({
            apiKey: free.apiKey,
            baseUrl: `${h.baseUrl}/v1`,
            fetch: contractFetch,
          }).documents.page(),
      ],
      ['invalid-query', 400, () => client.documents.page({ limit: 0 })],
      ['invalid-cursor', 400, () => client.documents.page({ cursor: 'abc' })],
      ['invalid-id', 400, () => client.documents.get('nope')],
      ['not-found', 404, () => client.documents.get(unknownId)],
      [
        'invalid-body',
        400,
        () => client.webhookEndpoints.create({ url: 'https://hooks.example.com/x', events: [] as never }),
      ],
      ['invalid-url', 400, () => client.webhookEndpoints.create({ url: 'nope', events: ['document.sent'] })],
      [
        'unsafe-url',
        400,
        () =>
          client.webhookEndpoints.create({
            url: 'https://user:pw@hooks.example.com/x',
            events: ['document.sent'],
          }),
      ],
      ['not-found', 404, () => client.webhookEndpoints.delete(unknownId)],
      [
        'payload-too-large',
        413,
        () =>
          client.webhookEndpoints.create({
            url: 'https://hooks.example.com/x',
            events: ['document.sent'],
            description: 'x'.repeat(1_100_000),
          }),
      ],
    ];
    for (const [code, status, call] of cases) {
      const error = await failure(call());
      assert.deepEqual([error.code, error.status], [code, status], `${code}`);
    }
    const full = await createTestWorkspace(h.ctx);
    const fullClient = createClient({
      apiKey: full.apiKey,
      baseUrl: `${h.baseUrl}/v1`,
      fetch: contractFetch,
    });
    for (let i = 0; i < 10; i++) {
      await createEndpoint(h.ctx, full.id, {
        url: `https://hooks.example.com/${i}`,
        events: ['document.sent'],
      });
    }
    const limit = await failure(
      fullClient.webhookEndpoints.create({ url: 'https://hooks.example.com/x', events: ['document.sent'] }),
    );
    assert.deepEqual([limit.code, limit.status], ['limit-reached', 409]);
  });

  test('a database outage arrives as SignetApiError unavailable (503), after the reads and keyed writes (webhook endpoints, documents) were retried', async () => {
    const broken = unreachableDatabase();
    const outage = createOutageMonitor({ db: broken, log: h.ctx.log, probeIntervalMs: 60_000 });
    try {
      await withApp({ ...h.ctx, db: broken, outage }, { burst: 10, refillPerSecond: 1 }, async (base) => {
        const waits: number[] = [];
        const client = createClient({
          apiKey: `sgn_${'F'.repeat(43)}`,
          baseUrl: `${base}/v1`,
          fetch: contractFetch,
          rateLimitRetry: { retries: 2, maxWaitSeconds: 60 },
          sleep: async (ms) => {
            waits.push(ms);
          },
        });
        const error = await failure(client.documents.page());
        assert.deepEqual([error.code, error.status, error.retryAfter], ['unavailable', 503, 5]);
        assert.deepEqual(waits, [5000, 5000], 'a read is retried after Retry-After, within the bounds');
        waits.length = 0;
        const write = await failure(
          client.webhookEndpoints.create({ url: 'https://example.com/hooks', events: ['document.sent'] }),
        );
        assert.deepEqual([write.code, write.status], ['unavailable', 503]);
        assert.deepEqual(waits, [], 'a write is not repeated');
        const keyed = await failure(
          client.webhookEndpoints.create(
            { url: 'https://example.com/hooks', events: ['document.sent'] },
            { idempotencyKey: randomUUID() },
          ),
        );
        assert.deepEqual([keyed.code, keyed.status], ['unavailable', 503]);
        assert.deepEqual(waits, [5000, 5000], 'under an Idempotency-Key it is, like a read');
        // The document writes likewise: JSON or multipart, a create or a send.
        const recipients = [{ email: 'ann@outage.example', fullName: 'Ann Lee' }];
        const unknownId = '0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a';
        const writes: Array<[string, (idempotencyKey?: string) => Promise<unknown>]> = [
          [
            'create',
            (idempotencyKey) =>
              client.documents.create({ title: 'T', text: 'x', recipients }, { idempotencyKey }),
          ],
          [
            'create with a file',
            (idempotencyKey) =>
              client.documents.create(
                { title: 'T', recipients, file: new Uint8Array(8) },
                { idempotencyKey },
              ),
          ],
          ['send', (idempotencyKey) => client.documents.send(unknownId, { idempotencyKey })],
          [
            'update',
            (idempotencyKey) =>
              client.documents.update(unknownId, { title: 'T', text: 'x', recipients }, { idempotencyKey }),
          ],
        ];
        for (const [name, write] of writes) {
          waits.length = 0;
          assert.equal((await failure(write())).code, 'unavailable', name);
          assert.deepEqual(waits, [], `${name}: not repeated without a key`);
          assert.equal((await failure(write(randomUUID()))).code, 'unavailable', name);
          assert.deepEqual(waits, [5000, 5000], `${name}: repeated under a key`);
        }
      });
    } finally {
      outage.close();
      await broken.destroy();
    }
  });

  test('no answer at all is a SignetNetworkError, kept apart from API errors', async () => {
    const offline = createClient({ apiKey: ws.apiKey, baseUrl: 'http://127.0.0.1:9/v1' });
    await assert.rejects(offline.documents.page(), (error: unknown) => error instanceof SignetNetworkError);
  });

  describe429(h);

  test('verifyWebhook accepts a real delivery and refuses every forgery with a typed reason', async () => {
    const receiver: Receiver = await startReceiver();
    try {
      const { endpoint, delivery, header } = await receivePing(h.ctx, ws.id, receiver);
      const sentAt = new Date(/^t=([^,]+)/.exec(header)?.[1] ?? '');
      const at = { now: sentAt };
      const event = await verifyWebhook(delivery.body, header, endpoint.secret, at);
      assert.equal(event.type, 'ping');
      const bytes = await verifyWebhook(new TextEncoder().encode(delivery.body), header, endpoint.secret, at);
      assert.equal(bytes.id, event.id);
      const refused = async (reason: string, ...args: Parameters<typeof verifyWebhook>) => {
        await assert.rejects(
          verifyWebhook(...args),
          (error: unknown) => error instanceof WebhookVerificationError && error.reason === reason,
          reason,
        );
      };
      await refused('wrong-signature', delivery.body.replace('ping', 'pong'), header, endpoint.secret, at);
      await refused('wrong-signature', delivery.body, header, 'whsec_another', at);
      await refused('outside-tolerance', delivery.body, header, endpoint.secret, {
        now: new Date(sentAt.getTime() + 301_000),
      });
      await refused('outside-tolerance', delivery.body, header, endpoint.secret, {
        now: new Date(sentAt.getTime() - 301_000),
      });
      await refused('malformed-header', delivery.body, 'v1=abc', endpoint.secret, at);
      await refused('malformed-header', delivery.body, undefined, endpoint.secret, at);
      await refused(
        'unreadable-time',
        delivery.body,
        header.replace(/^t=[^,]+/, 't=2026-13-45T99:00:00.000Z'),
        endpoint.secret,
        at,
      );
      await refused(
        'unreadable-time',
        delivery.body,
        header.replace(/^t=[^,]+/, 't=yesterday'),
        endpoint.secret,
        at,
      );
      // As node:http gives it (string | string[]): one value is taken, a header sent twice is
      // not. The call exactly as docs/api.md writes it must also type-check (npm run check).
      const documented = (request: IncomingMessage, rawBody: string, endpointSecret: string) =>
        verifyWebhook(rawBody, request.headers['x-service-signature'], endpointSecret);
      const asNode = { headers: { 'x-service-signature': header } } as unknown as IncomingMessage;
      assert.equal(
        (await documented(asNode, delivery.body, endpoint.secret).catch((e: Error) => e)) instanceof
          WebhookVerificationError,
        true,
        'real time: outside tolerance',
      );
      assert.equal((await verifyWebhook(delivery.body, [header], endpoint.secret, at)).id, event.id);
      await refused('malformed-header', delivery.body, [header, header], endpoint.secret, at);
      // Several v1= (a secret being rotated): any one valid signature is enough, none is not.
      const signature = /,v1=([0-9a-f]{64})$/.exec(header)?.[1] as string;
      const other = signature.replace(/^./, (c) => (c === '0' ? '1' : '0'));
      const [t] = header.split(',');
      assert.equal(
        (await verifyWebhook(delivery.body, `${t},v1=${other},v1=${signature}`, endpoint.secret, at)).id,
        event.id,
      );
      await refused('wrong-signature', delivery.body, `${t},v1=${other},v1=${other}`, endpoint.secret, at);
      await refused('malformed-header', delivery.body, `${t},v1=${signature},`, endpoint.secret, at);
      // Exactly at the tolerance is accepted, both ways.
      await verifyWebhook(delivery.body, header, endpoint.secret, {
        now: new Date(sentAt.getTime() + 300_000),
      });
      await verifyWebhook(delivery.body, header, endpoint.secret, {
        now: new Date(sentAt.getTime() - 300_000),
      });
    } finally {
      await receiver.close();
    }
  });
});

/** 429 with a small burst: waited out (Retry-After) and retried, or thrown when opted out. */
function describe429(h: ReturnType<typeof useHarness>): void {
  test('429 is waited out for Retry-After seconds and retried; with rateLimitRetry false it is thrown', async () => {
    // Real time: the bucket must refill while the client waits (the harness clock stands still).
    await withApp({ ...h.ctx, clock: systemClock }, { burst: 2, refillPerSecond: 1 }, async (base) => {
      const ws = await createTestWorkspace(h.ctx);
      const waits: number[] = [];
      const patient = createClient({
        apiKey: ws.apiKey,
        baseUrl: `${base}/v1`,
        fetch: contractFetch,
        sleep: (ms) => {
          waits.push(ms);
          return new Promise((resolve) => setTimeout(resolve, ms));
        },
      });
      for (let i = 0; i < 4; i++) await patient.documents.page();
      assert.ok(waits.length >= 1, 'it waited at least once');
      assert.ok(
        waits.every((ms) => ms >= 1000),
        'each wait is Retry-After, in whole seconds',
      );
      const impatient = createClient({
        apiKey: ws.apiKey,
        baseUrl: `${base}/v1`,
        fetch: contractFetch,
        rateLimitRetry: false,
      });
      await impatient.documents.page().catch(() => {});
      await assert.rejects(impatient.documents.page(), (error: unknown) => {
        return (
          error instanceof SignetApiError && error.code === 'rate-limited' && (error.retryAfter ?? 0) >= 1
        );
      });
      const bounded = createClient({
        apiKey: ws.apiKey,
        baseUrl: `${base}/v1`,
        fetch: contractFetch,
        rateLimitRetry: { retries: 3, maxWaitSeconds: 0 },
      });
      await assert.rejects(bounded.documents.page(), (error: unknown) => error instanceof SignetApiError);
    });
  });
}
