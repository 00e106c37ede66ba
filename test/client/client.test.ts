// @signet/client against a live Signet (the harness's real HTTP server): every method (the
// delivery log paged and listed, a resend, a create under an Idempotency-Key among them), a
// walk across more than 10 pages, 429 waited out with a small burst, a typed error for
// each code the API can answer, verifyWebhook on real deliveries (valid, tampered, wrong
// secret, stale, future, malformed header, unreadable time); the generated types are what
// the generator writes from docs/openapi.json; the package builds to plain JavaScript.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { buildClient } from '../../packages/client/scripts/build.ts';
import { contractPath, generateTypes, typesPath } from '../../packages/client/scripts/generate-types.ts';
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
import { signatureField, templateRole, textPdf } from '../support/factories.ts';
import {
  createTestWorkspace,
  describeEachDatabase,
  signingLinksOf,
  type TestWorkspace,
  unreachableDatabase,
  useHarness,
  withApp,
} from '../support/harness.ts';
import { type Receiver, receivePing, startReceiver } from '../support/receiver.ts';

test('src/types.ts is what the generator writes from docs/openapi.json (run npm run client:types)', () => {
  const contract = JSON.parse(readFileSync(contractPath, 'utf8'));
  assert.equal(readFileSync(typesPath, 'utf8'), generateTypes(contract));
});

test('the package builds to ES modules and CommonJS that need no TypeScript and no Node-only API', () => {
  buildClient();
  const dist = join(import.meta.dirname, '..', '..', 'packages', 'client', 'dist');
  const esm = readFileSync(join(dist, 'index.js'), 'utf8');
  assert.match(esm, /export async function verifyWebhook/);
  const cjs = readFileSync(join(dist, 'cjs', 'index.js'), 'utf8');
  assert.match(cjs, /exports\.verifyWebhook = verifyWebhook/);
  for (const built of [esm, cjs]) assert.doesNotMatch(built, /from ['"]node:|require\(['"]node:/);
});

// The machine's own Node is 20 (the project runs on 24): the built package must work there.
const systemNode = '/usr/bin/node';
test('the built package, ESM and CommonJS, verifies a signature on Node 20', {
  skip: !existsSync(systemNode) && 'no /usr/bin/node here',
}, () => {
  const dist = pathToFileURL(
    join(import.meta.dirname, '..', '..', 'packages', 'client', 'dist', 'index.js'),
  ).href;
  const script = `
    import { createHmac } from 'node:crypto';
    import { createClient, verifyWebhook } from '${dist}';
    createClient({ apiKey: 'sgn_x', baseUrl: 'http://127.0.0.1:9/v1' });
    const t = new Date().toISOString();
    const body = JSON.stringify({ id: 'e', type: 'ping', createdAt: t, data: { message: 'hi' } });
    const header = 't=' + t + ',v1=' + createHmac('sha256', 'whsec_s').update(t + '.' + body).digest('hex');
    const event = await verifyWebhook(body, header, 'whsec_s');
    console.log(process.versions.node.split('.')[0], event.type);`;
  const out = execFileSync(systemNode, ['--input-type=module', '-e', script]).toString().trim();
  assert.match(out, /^\d+ ping$/);
  // The CommonJS build likewise, required.
  const cjs = join(import.meta.dirname, '..', '..', 'packages', 'client', 'dist', 'cjs', 'index.js');
  const required = `
    const { createHmac } = require('node:crypto');
    const { createClient, verifyWebhook } = require(${JSON.stringify(cjs)});
    createClient({ apiKey: 'sgn_x', baseUrl: 'http://127.0.0.1:9/v1' });
    const t = new Date().toISOString();
    const body = JSON.stringify({ id: 'e', type: 'ping', createdAt: t, data: { message: 'hi' } });
    const header = 't=' + t + ',v1=' + createHmac('sha256', 'whsec_s').update(t + '.' + body).digest('hex');
    verifyWebhook(body, header, 'whsec_s').then((event) =>
      console.log(process.versions.node.split('.')[0], event.type));`;
  const outCjs = execFileSync(systemNode, ['--input-type=commonjs', '-e', required]).toString().trim();
  assert.match(outCjs, /^\d+ ping$/);
});

/** The SignetApiError `promise` rejects with (anything else fails the test). */
async function failure(promise: Promise<unknown>): Promise<SignetApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SignetApiError, `expected SignetApiError, got ${error}`);
    return error;
  }
  assert.fail('expected a failure');
}

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

// documents.download(id, kind) against a live Signet: a completed document's sealed PDF and
// its original, streamed and hashing to the API's sha256; the link fetched on another
// origin (a recording proxy standing in for the public URL) without the API key; the typed
// errors (no such file, a link that answers 404 or 410); verifySha256 against node:crypto;
// Content-Disposition names; and the README's and the webhooks guide's examples, run as
// published. Its imports are here, with it (imports are hoisted).
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { after } from 'node:test';
import {
  dispositionFileName,
  type FileDownload,
  type PdfInput,
  type SignetClient,
  SignetDownloadError,
  SignetFileUnavailableError,
  SignetIntegrityError,
  verifySha256,
  type WebhookEvent,
} from '../../packages/client/src/index.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { signDocument } from '../../src/signing/signing.service.ts';
import { createDraftDocument, createSentDocument, storedEventBody } from '../support/harness.ts';
import type { ReceivedRequest } from '../support/receiver.ts';

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const sha256Hex = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** The first `ts` block under `heading` in a Markdown file, importing the client from its source. */
async function publishedExample<T>(file: string, heading: string, folder: string): Promise<T> {
  const markdown = readFileSync(join(import.meta.dirname, '..', '..', file), 'utf8');
  const section = markdown.slice(markdown.indexOf(heading));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(markdown.includes(heading) && code, `${file} has a ts block under "${heading}"`);
  const source = pathToFileURL(
    join(import.meta.dirname, '..', '..', 'packages', 'client', 'src', 'index.ts'),
  ).href;
  assert.match(code, /from '@signet\/client';/);
  const path = join(folder, `${heading.replace(/\W+/g, '-')}.ts`);
  await writeFile(path, code.replace("from '@signet/client';", `from '${source}';`));
  return (await import(pathToFileURL(path).href)) as T;
}

describeEachDatabase('@signet/client documents.download', (kind) => {
  const h = useHarness(kind);
  const folder = mkdtempSync(join(tmpdir(), 'signet-client-download-'));
  const title = 'Vertrag Müller – “Q3”; 50% (a/b)';
  /** Every request the client made: where to, and with which headers. */
  const sent: Array<{ url: string; headers: Headers; credentials: RequestInit['credentials'] }> = [];
  /** Every request the public URL's stand-in received, as it arrived. */
  let proxy: Receiver;
  /** What the proxy does to a download link before it goes on (tamper, let time pass). */
  let beforeForward: (request: ReceivedRequest) => string = (request) => request.url;
  let ws: TestWorkspace;
  let client: SignetClient;
  let completedId: string;

  after(async () => {
    await proxy?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  test('setup: the public URL served through a recording proxy on another origin; a completed document', async () => {
    proxy = await startReceiver(async (request: ReceivedRequest, response: ServerResponse) => {
      const upstream = await fetch(h.baseUrl + beforeForward(request));
      const headers: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (!['connection', 'keep-alive', 'transfer-encoding'].includes(name)) headers[name] = value;
      });
      response.writeHead(upstream.status, headers);
      if (upstream.body) Readable.fromWeb(upstream.body).pipe(response);
      else response.end();
    });
    ws = await createTestWorkspace(h.ctx);
    client = createClient({
      apiKey: ws.apiKey,
      baseUrl: `${h.baseUrl}/v1`,
      fetch: (input, init) => {
        const url = input instanceof Request ? input.url : String(input);
        sent.push({ url, headers: new Headers(init?.headers), credentials: init?.credentials });
        return contractFetch(url.replace(h.config.publicUrl, proxy.url), init);
      },
    });
    const { id } = await createSentDocument(h.ctx, ws.id, { title });
    for (const email of ['ann@client.example', 'bob@client.example']) {
      // Read after each signature: Bob's group is mailed once Ann has signed.
      const session = (await signingLinksOf(h.ctx, id)).get(email)?.session;
      assert.ok(session, email);
      const fullName = email.startsWith('ann') ? 'Ann Lee' : 'Bob Ray';
      await signDocument(h.ctx, session, {
        fullName,
        consent: true,
        client: { ip: '203.0.113.9', userAgent: 'Test' },
      });
    }
    assert.equal(await sealDueDocuments(h.ctx), 1);
    completedId = id;
  });

  async function downloaded(kind: 'original' | 'sealed'): Promise<{ file: FileDownload; bytes: Buffer }> {
    const file = await client.documents.download(completedId, kind);
    return { file, bytes: await bytesOf(file.stream) };
  }

  test('a completed document downloads as the sealed PDF, hashing to the API’s sha256', async () => {
    const detail = await client.documents.get(completedId);
    const listed = detail.files.find((f) => f.kind === 'sealed');
    assert.ok(listed);
    const { file, bytes } = await downloaded('sealed');
    assert.equal(file.documentId, completedId);
    assert.equal(file.kind, 'sealed');
    assert.deepEqual([file.sha256, file.bytes, file.pages], [listed.sha256, listed.bytes, listed.pages]);
    assert.ok((file.pages ?? 0) >= 2, 'the document and its certificate of completion');
    assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.equal(bytes.byteLength, file.bytes);
    assert.equal(sha256Hex(bytes), file.sha256);
    assert.equal(file.fileName, `${title.replace('/', ' ')} (signed).pdf`, 'the UTF-8 filename*');
  });

  test('the original likewise, a different file: the PDF the signers saw', async () => {
    const { file, bytes } = await downloaded('original');
    const sealed = await downloaded('sealed');
    assert.equal(file.kind, 'original');
    assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.equal(sha256Hex(bytes), file.sha256);
    assert.equal(bytes.byteLength, file.bytes);
    assert.notEqual(file.sha256, sealed.file.sha256);
    assert.deepEqual(sealed.bytes.subarray(0, bytes.byteLength), bytes, 'sealed as an incremental update');
    assert.equal(file.fileName, `${title.replace('/', ' ')}.pdf`);
  });

  test('the download link goes to its own origin without the API key, cookies or referrer', async () => {
    sent.length = 0;
    proxy.requests.length = 0;
    await downloaded('sealed');
    const [detailRequest, download] = sent;
    assert.equal(sent.length, 2);
    assert.ok(detailRequest && download);
    assert.equal(new URL(detailRequest.url).origin, new URL(h.baseUrl).origin);
    assert.equal(detailRequest.headers.get('authorization'), `Bearer ${ws.apiKey}`, 'the API call has it');
    assert.equal(new URL(download.url).origin, h.config.publicUrl, 'the link is on the public URL');
    assert.match(new URL(download.url).pathname, /^\/files\//, 'outside /v1');
    assert.deepEqual([...download.headers.keys()], [], 'the client sets no header on the link');
    assert.equal(download.credentials, 'omit');
    const [arrived] = proxy.requests;
    assert.equal(proxy.requests.length, 1);
    assert.ok(arrived);
    for (const header of ['authorization', 'cookie', 'referer']) {
      assert.equal(arrived.headers[header], undefined, `no ${header} on the wire`);
    }
    assert.ok(!JSON.stringify(arrived).includes(ws.apiKey), 'the key is nowhere in the request');
  });

  test('a draft has no file: SignetFileUnavailableError, and no download is tried', async () => {
    const draft = await createDraftDocument(h.ctx, ws.id);
    proxy.requests.length = 0;
    for (const kind of ['sealed', 'original'] as const) {
      await assert.rejects(client.documents.download(draft.id, kind), (error: unknown) => {
        assert.ok(error instanceof SignetFileUnavailableError, String(error));
        assert.deepEqual([error.documentId, error.kind, error.documentStatus], [draft.id, kind, 'draft']);
        assert.equal(error.name, 'SignetFileUnavailableError');
        assert.match(error.message, new RegExp(`no ${kind} PDF`));
        return true;
      });
    }
    const sentOnly = await createSentDocument(h.ctx, ws.id);
    await assert.rejects(
      client.documents.download(sentOnly.id, 'sealed'),
      (error: unknown) => error instanceof SignetFileUnavailableError && error.documentStatus === 'sent',
    );
    const { bytes } = await (async () => {
      const file = await client.documents.download(sentOnly.id, 'original');
      return { bytes: await bytesOf(file.stream) };
    })();
    assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-', 'a sent document has its original');
    assert.equal(proxy.requests.length, 1, 'only the original was fetched');
    await assert.rejects(
      client.documents.download('0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a', 'sealed'),
      (error: unknown) => error instanceof SignetApiError && error.code === 'not-found',
    );
  });

  test('a link that answers 404 (changed) or 410 (expired) is a SignetDownloadError with the status', async () => {
    try {
      beforeForward = (request) => request.url.replace(/sig=./, (m) => (m.endsWith('A') ? 'sig=B' : 'sig=A'));
      await assert.rejects(client.documents.download(completedId, 'sealed'), (error: unknown) => {
        assert.ok(error instanceof SignetDownloadError, String(error));
        assert.deepEqual([error.status, error.kind, error.documentId], [404, 'sealed', completedId]);
        return true;
      });
      beforeForward = (request) => {
        h.clock.advance(15 * 60_000 + 1_000);
        return request.url;
      };
      await assert.rejects(
        client.documents.download(completedId, 'original'),
        (error: unknown) => error instanceof SignetDownloadError && error.status === 410,
      );
    } finally {
      beforeForward = (request) => request.url;
    }
    const { bytes, file } = await downloaded('sealed');
    assert.equal(sha256Hex(bytes), file.sha256, 'the next call gets a fresh link');
  });

  test('verifySha256 passes the bytes through when they match and errors the stream when not', async () => {
    const file = await client.documents.download(completedId, 'sealed');
    const [a, b] = file.stream.tee();
    const good = await bytesOf(a.pipeThrough(verifySha256(file.sha256.toUpperCase())));
    assert.equal(sha256Hex(good), file.sha256);
    const wrong = '0'.repeat(64);
    await assert.rejects(bytesOf(b.pipeThrough(verifySha256(wrong))), (error: unknown) => {
      assert.ok(error instanceof SignetIntegrityError, String(error));
      assert.deepEqual([error.expected, error.actual, error.bytes], [wrong, file.sha256, file.bytes]);
      return true;
    });
  });

  test('the README’s Node example saves the sealed PDF; the webhooks guide’s handler does on document.completed', async () => {
    const readme = await publishedExample<{
      saveSealedPdf(
        signet: SignetClient,
        id: string,
        folder: string,
      ): Promise<{ path: string; fileName: string }>;
    }>('packages/client/README.md', '### Example: save the sealed PDF to a file in Node', folder);
    const saved = await readme.saveSealedPdf(client, completedId, folder);
    const detail = await client.documents.get(completedId);
    const sealedSha = detail.files.find((f) => f.kind === 'sealed')?.sha256;
    assert.equal(sha256Hex(readFileSync(saved.path)), sealedSha);
    assert.equal(saved.fileName, `${title.replace('/', ' ')} (signed).pdf`);

    const guide = await publishedExample<{
      onEvent(signet: SignetClient, event: WebhookEvent, folder: string): Promise<void>;
    }>('docs/guides/webhooks.md', '## When a document completes: the sealed PDF', folder);
    const event = await storedEventBody<WebhookEvent>(h.ctx, ws.id, 'document.completed');
    assert.equal(event.type, 'document.completed');
    const guideFolder = mkdtempSync(join(folder, 'guide-'));
    await guide.onEvent(client, event, guideFolder);
    assert.equal(sha256Hex(readFileSync(join(guideFolder, `${completedId}.pdf`))), sealedSha);
    // A delivery whose sealed sha256 is not the file's: the handler fails and keeps nothing.
    assert.ok(event.type === 'document.completed');
    const forged = structuredClone(event);
    for (const file of forged.data.document.files ?? []) file.sha256 = '1'.repeat(64);
    const otherFolder = mkdtempSync(join(folder, 'forged-'));
    await assert.rejects(guide.onEvent(client, forged, otherFolder), SignetIntegrityError);
    assert.deepEqual(readdirSync(otherFolder), []);
  });
});

test('verifySha256 agrees with node:crypto on the NIST vectors and on random inputs cut anywhere', async () => {
  const encoder = new TextEncoder();
  const inputs: Uint8Array[] = [
    encoder.encode(''),
    encoder.encode('abc'),
    encoder.encode('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'),
    new Uint8Array(1_000_000).fill(0x61),
  ];
  // Every length around the padding's edges (55/56 and 63/64 bytes mod 64), then random ones.
  for (let length = 0; length <= 200; length++) inputs.push(randomBytes(length));
  for (let i = 0; i < 20; i++) inputs.push(randomBytes(Math.floor(Math.random() * 300_000)));
  for (const input of inputs) {
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < input.length; ) {
      const size = Math.random() < 0.2 ? 0 : Math.floor(Math.random() * 150);
      chunks.push(input.subarray(at, at + size));
      at += size;
    }
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    const out = await bytesOf(stream.pipeThrough(verifySha256(sha256Hex(input))));
    assert.deepEqual(out, Buffer.from(input), `length ${input.length}`);
  }
});

test('dispositionFileName prefers filename*, decodes it, and keeps only a bare name', () => {
  const cases: Array<[string | null, string | null]> = [
    [
      `attachment; filename="Vertrag M_ller.pdf"; filename*=UTF-8''Vertrag%20M%C3%BCller%20(signed).pdf`,
      'Vertrag Müller (signed).pdf',
    ],
    [`attachment; filename*=utf-8'en'%E5%90%88%E5%90%8C.pdf; filename="x.pdf"`, '合同.pdf'],
    [`attachment; filename*=ISO-8859-1''M%FCller.pdf`, 'Müller.pdf'],
    ['attachment; filename="a \\"quoted\\"; name.pdf"', 'a "quoted"; name.pdf'],
    ['attachment; filename=plain.pdf', 'plain.pdf'],
    [`attachment; filename="fallback.pdf"; filename*=UTF-8''%FF%FE.pdf`, 'fallback.pdf'],
    [`attachment; filename*=UTF-8''..%2F..%2Fetc%2Fpasswd`, 'passwd'],
    ['attachment; filename="C:\\\\temp\\\\x.pdf"', 'x.pdf'],
    ['attachment; filename="..\\/"', null],
    ['attachment; filename="tab\tnew\nline.pdf"', 'tabnewline.pdf'],
    ['attachment', null],
    [null, null],
  ];
  for (const [header, expected] of cases) assert.equal(dispositionFileName(header), expected, String(header));
});

test('the built package streams a download and checks its SHA-256 on Node 20, the key kept to /v1', {
  skip: !existsSync(systemNode) && 'no /usr/bin/node here',
}, () => {
  const dist = pathToFileURL(
    join(import.meta.dirname, '..', '..', 'packages', 'client', 'dist', 'index.js'),
  ).href;
  // One stand-in server plays the API and the download link; it records who sent a key.
  const script = `
    import { createHash } from 'node:crypto';
    import { createServer } from 'node:http';
    import { createClient, verifySha256 } from '${dist}';
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\\n'), Buffer.alloc(300000, 7)]);
    const sha256 = createHash('sha256').update(pdf).digest('hex');
    const seen = [];
    const server = createServer((req, res) => {
      seen.push([req.url.split('?')[0], req.headers.authorization ?? null]);
      if (req.url.startsWith('/v1/')) {
        const downloadUrl = 'http://127.0.0.1:' + server.address().port + '/files/d/sealed.pdf?sig=x';
        res.setHeader('content-type', 'application/json');
        const files = [{ kind: 'sealed', sha256, bytes: pdf.length, pages: 1, downloadUrl }];
        res.end(JSON.stringify({ ok: true, data: { id: 'd', status: 'signed', files } }));
      } else {
        res.writeHead(200, {
          'content-type': 'application/pdf',
          'content-disposition': "attachment; filename=\\"M_ller.pdf\\"; filename*=UTF-8''M%C3%BCller.pdf",
        });
        res.end(pdf);
      }
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const signet = createClient({ apiKey: 'sgn_k', baseUrl: 'http://127.0.0.1:' + server.address().port + '/v1' });
    const file = await signet.documents.download('d', 'sealed');
    let bytes = 0;
    const reader = file.stream.pipeThrough(verifySha256(file.sha256)).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.length;
    server.close();
    console.log(JSON.stringify({ node: process.versions.node, whole: bytes === pdf.length, name: file.fileName, seen }));`;
  const out = JSON.parse(execFileSync(systemNode, ['--input-type=module', '-e', script]).toString()) as {
    node: string;
    whole: boolean;
    name: string;
    seen: Array<[string, string | null]>;
  };
  assert.equal(out.whole, true, `on Node ${out.node}`);
  assert.equal(out.name, 'Müller.pdf');
  assert.deepEqual(out.seen, [
    ['/v1/documents/d', 'Bearer sgn_k'],
    ['/files/d/sealed.pdf', null],
  ]);
});

// The document writes through @signet/client against a live Signet with a write key: create
// with the PDF as a path, bytes, a Blob, a web stream and a Node stream (multipart), and
// without one (JSON, its text); send, remind, withdraw, a fresh signing link of a document
// delivered by the integrator, delete, update (PUT, a draft replaced whole); a refusal with its code and pointer; a timeout
// against a server that accepts and stays silent, and a caller's abort (of a request, of a
// wait between retries, of a download's stream). Its imports are here, with it.
import { createServer, type Socket } from 'node:net';
import { createApiKey } from '../../src/keys/keys.service.ts';

/** A TCP server that accepts every connection and never answers; counts the requests that came. */
async function silentServer(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  let requests = 0;
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      requests += chunk.toString('latin1').match(/^[A-Z]+ \/\S* HTTP\/1\.1\r$/gm)?.length ?? 0;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const isAbortError = (error: unknown) => error instanceof DOMException && error.name === 'AbortError';

describeEachDatabase('@signet/client document writes', (kind) => {
  const h = useHarness(kind);
  const folder = mkdtempSync(join(tmpdir(), 'signet-client-writes-'));
  const ann = { email: 'ann@client-writes.example', fullName: 'Ann Lee' };
  const bob = { email: 'bob@client-writes.example', fullName: 'Bob Ray', signingOrder: 2 };
  let writer: SignetClient;
  let writerKey: string;
  let reader: SignetClient;
  let pdf: Buffer;
  /** The Content-Type of every request the writer sent, in order. */
  const contentTypes: string[] = [];

  after(() => rmSync(folder, { recursive: true, force: true }));

  test('setup: a workspace with a write key, and a PDF', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const key = await createApiKey(h.ctx, { workspaceId: ws.id, name: 'client writer', scope: 'write' });
    writerKey = key.secret;
    writer = createClient({
      apiKey: writerKey,
      baseUrl: `${h.baseUrl}/v1`,
      // Download links go to the public URL, which is this server.
      fetch: (input, init) => {
        contentTypes.push(new Headers(init?.headers).get('content-type') ?? '');
        return contractFetch(String(input).replace(h.config.publicUrl, h.baseUrl), init);
      },
    });
    reader = createClient({ apiKey: ws.apiKey, baseUrl: `${h.baseUrl}/v1`, fetch: contractFetch });
    pdf = await textPdf({
      title: 'Service level agreement',
      body: 'The supplier answers within four hours.\n'.repeat(60),
      workspaceName: 'Acme',
      createdAt: new Date('2026-11-01T00:00:00Z'),
    });
  });

  test('documents.create sends the PDF as multipart from a path, bytes, a Blob, a web stream and a Node stream', async () => {
    const path = join(folder, 'sla.pdf');
    writeFileSync(path, pdf);
    const half = pdf.byteLength >> 1;
    const forms: Array<[string, PdfInput]> = [
      ['a path', path],
      ['a Buffer', pdf],
      ['a Uint8Array', new Uint8Array(pdf)],
      ['a Blob', new Blob([new Uint8Array(pdf)])],
      ['a web ReadableStream', Readable.toWeb(Readable.from([pdf.subarray(0, half), pdf.subarray(half)]))],
      ['a Node Readable', Readable.from([pdf.subarray(0, half), pdf.subarray(half)])],
    ];
    for (const [form, file] of forms) {
      contentTypes.length = 0;
      const created = await writer.documents.create({ title: `From ${form}`, recipients: [ann], file });
      assert.equal(created.status, 'draft', form);
      assert.equal(created.title, `From ${form}`);
      assert.deepEqual(created.signingUrls, []);
      const [original] = created.files;
      assert.deepEqual(
        [original?.kind, original?.sha256, original?.bytes],
        ['original', sha256Hex(pdf), pdf.byteLength],
        form,
      );
      assert.match(contentTypes[0] ?? '', /^multipart\/form-data; boundary=signet-[\w-]+$/, form);
    }
    await assert.rejects(
      writer.documents.create({ title: 'Nowhere', recipients: [ann], file: join(folder, 'missing.pdf') }),
      (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT',
      'a path that is not there fails before anything is sent',
    );
  });

  test('documents.create without a file is JSON; send, remind and withdraw follow it through', async () => {
    contentTypes.length = 0;
    const draft = await writer.documents.create({
      title: 'Terms of service',
      text: 'Terms.',
      recipients: [ann, bob],
    });
    assert.deepEqual([draft.status, draft.files], ['draft', []]);
    assert.equal(contentTypes[0], 'application/json');
    const idempotencyKey = randomUUID();
    const sent = await writer.documents.send(draft.id, { idempotencyKey });
    assert.equal(sent.status, 'sent');
    assert.deepEqual(sent.signingUrls, [], 'a mailed document hands out no links');
    assert.equal((await writer.documents.send(draft.id, { idempotencyKey })).id, draft.id, 'a keyed repeat');
    const [first, second] = sent.recipients;
    assert.ok(first && second);
    const reminded = await writer.documents.remind(draft.id, first.id);
    assert.deepEqual([reminded.id, reminded.status], [draft.id, 'sent']);
    const again = await failure(writer.documents.remind(draft.id, first.id));
    assert.deepEqual([again.code, again.status, again.pointer], ['reminded-recently', 429, null]);
    assert.ok((again.retryAfter ?? 0) > 0);
    const notYet = await failure(writer.documents.remind(draft.id, second.id));
    assert.deepEqual([notYet.code, notYet.status], ['recipient-not-remindable', 409]);
    const withdrawn = await writer.documents.withdraw(draft.id, { reason: 'Superseded by v2' });
    assert.equal(withdrawn.status, 'expired');
    const twice = await failure(writer.documents.withdraw(draft.id));
    assert.deepEqual([twice.code, twice.status], ['document-not-active', 409]);
  });

  test('templates: list, get, create, update, delete, and documents made and sent from one', async () => {
    const created = await writer.templates.create({
      name: 'Client agreement',
      title: 'Client agreement',
      roles: [templateRole('Client')],
      fields: [signatureField({ role: 'Client' })],
      file: pdf,
    });
    assert.equal(created.name, 'Client agreement');
    assert.equal(created.file.sha256, sha256Hex(pdf));
    assert.deepEqual(
      (await reader.templates.get(created.id)).roles.map((r) => r.name),
      ['Client'],
    );
    const updated = await writer.templates.update(created.id, {
      name: 'Client agreement v2',
      title: 'Client agreement',
      roles: [templateRole('Client')],
      fields: [signatureField({ role: 'Client' })],
    });
    assert.deepEqual([updated.name, updated.file.sha256], ['Client agreement v2', sha256Hex(pdf)]);
    const listed = [];
    for await (const template of reader.templates.list({ limit: 1 })) listed.push(template.id);
    assert.ok(listed.includes(created.id));
    assert.equal((await reader.templates.page({ limit: 1 })).data.length, 1);
    const items = { items: [{ recipients: { Client: ann }, send: true }] };
    const idempotencyKey = randomUUID();
    const made = await writer.templates.documents(created.id, items, { idempotencyKey });
    assert.deepEqual(
      made.documents.map((d) => [d.index, d.document.status]),
      [[0, 'sent']],
    );
    const again = await writer.templates.documents(created.id, items, { idempotencyKey });
    assert.equal(again.documents[0]?.document.id, made.documents[0]?.document.id, 'a keyed repeat');
    const reused = await failure(
      writer.templates.documents(
        created.id,
        { items: [{ recipients: { Client: { email: bob.email, fullName: bob.fullName } } }] },
        { idempotencyKey },
      ),
    );
    assert.deepEqual([reused.code, reused.status, reused.pointer], ['idempotency-key-reused', 409, null]);
    const readOnly = await failure(reader.templates.delete(created.id));
    assert.deepEqual([readOnly.code, readOnly.status], ['insufficient-scope', 403]);
    assert.deepEqual(await writer.templates.delete(created.id), { id: created.id, deleted: true });
    const gone = await failure(reader.templates.get(created.id));
    assert.deepEqual([gone.code, gone.status], ['not-found', 404]);
  });

  test('events.stream yields the events as a webhook carries them, and resumes after lastEventId', async () => {
    // The stream is read with plain fetch: the contract check reads answers whole.
    const streamer = createClient({ apiKey: writerKey, baseUrl: `${h.baseUrl}/v1` });
    const send = async (title: string) => {
      // Each send a moment later than the one before: events are ordered by their time.
      h.clock.advance(1000);
      const draft = await writer.documents.create({ title, text: 'Terms.', recipients: [ann] });
      await writer.documents.send(draft.id);
      return draft.id;
    };
    const first = new AbortController();
    const ready: Array<{ workspaceId: string }> = [];
    const events = streamer.events.stream({
      types: ['document.sent'],
      signal: first.signal,
      onReady: (message) => ready.push(message),
    });
    const firstId = await send('Streamed once');
    const documentOf = (event: WebhookEvent) => (event.data as { document: { id: string } }).document.id;
    // The stream reaches back a few seconds (late commits): earlier tests' sends may come first.
    let seen: WebhookEvent;
    do seen = (await events.next()).value as WebhookEvent;
    while (documentOf(seen) !== firstId);
    assert.equal(seen.type, 'document.sent');
    assert.equal(ready.length, 1);
    first.abort();
    assert.equal((await events.next()).done, true, 'an abort ends the iterator');

    const secondId = await send('Streamed after');
    const resumed = new AbortController();
    const after = streamer.events.stream({
      types: ['document.sent'],
      lastEventId: seen.id,
      signal: resumed.signal,
    });
    const next = (await after.next()).value as WebhookEvent;
    assert.equal(documentOf(next), secondId);
    resumed.abort();
    await after.return(undefined);

    const refused = await failure(
      (async () => {
        for await (const _ of createClient({
          apiKey: 'sgn_nobody',
          baseUrl: `${h.baseUrl}/v1`,
        }).events.stream())
          break;
      })(),
    );
    assert.deepEqual([refused.code, refused.status], ['invalid-api-key', 401]);
  });

  test('delivery none: the send answers the first link; signingUrl makes a fresh one, a keyed repeat the same', async () => {
    const created = await writer.documents.create({
      title: 'Own channel',
      text: 'Terms.',
      recipients: [ann, bob],
      delivery: 'none',
      send: true,
    });
    const [first, second] = created.recipients;
    assert.ok(first && second);
    assert.deepEqual(
      created.signingUrls.map((l) => [l.recipientId, l.email]),
      [[first.id, ann.email]],
    );
    const idempotencyKey = randomUUID();
    const fresh = await writer.documents.signingUrl(created.id, first.id, { idempotencyKey });
    assert.deepEqual([fresh.recipientId, fresh.email], [first.id, ann.email]);
    assert.notEqual(fresh.url, created.signingUrls[0]?.url, 'a new link replaces the one before');
    assert.deepEqual(await writer.documents.signingUrl(created.id, first.id, { idempotencyKey }), fresh);
    const early = await failure(writer.documents.signingUrl(created.id, second.id));
    assert.deepEqual([early.code, early.status], ['recipient-not-invited', 409]);
  });

  test('documents.delete removes a draft; a sent one is document-not-draft', async () => {
    const draft = await writer.documents.create({ title: 'To delete', text: 'x', recipients: [ann] });
    assert.deepEqual(await writer.documents.delete(draft.id), { id: draft.id, deleted: true });
    const gone = await failure(writer.documents.get(draft.id));
    assert.deepEqual([gone.code, gone.status], ['not-found', 404]);
    const sent = await writer.documents.create({ title: 'Sent', text: 'x', recipients: [ann], send: true });
    const kept = await failure(writer.documents.delete(sent.id));
    assert.deepEqual([kept.code, kept.status], ['document-not-draft', 409]);
  });

  test('a refusal is a SignetApiError with its code, status and pointer (null when the answer has none)', async () => {
    const refused = await failure(
      writer.documents.create({
        title: 'Own',
        text: 'x',
        recipients: [ann],
        delivery: 'none',
        remindEveryDays: 3,
      }),
    );
    assert.deepEqual(
      [refused.code, refused.status, refused.pointer],
      ['invalid-body', 400, '/remindEveryDays'],
    );
    assert.match(refused.message, /invalid-body at \/remindEveryDays/);
    const badEmail = await failure(
      writer.documents.create({
        title: 'Bad',
        recipients: [ann, { email: 'nope', fullName: 'X' }],
        file: pdf,
      }),
    );
    assert.deepEqual(
      [badEmail.code, badEmail.pointer],
      ['invalid-body', '/recipients/1/email'],
      'in multipart too',
    );
    const notPdf = await failure(
      writer.documents.create({ title: 'Not a PDF', recipients: [ann], file: new Blob(['hello']) }),
    );
    assert.deepEqual([notPdf.code, notPdf.status, notPdf.pointer], ['invalid-file', 400, '/file']);
    const readKey = await failure(
      reader.documents.create({ title: 'Read key', text: 'x', recipients: [ann] }),
    );
    assert.deepEqual([readKey.code, readKey.status, readKey.pointer], ['insufficient-scope', 403, null]);
  });

  test('documents.update replaces a draft whole, JSON or multipart, under a key too (PUT /documents/{id})', async () => {
    const draft = await writer.documents.create({ title: 'First', text: 'x', recipients: [ann] });
    contentTypes.length = 0;
    const json = await writer.documents.update(draft.id, {
      title: 'Second',
      text: 'y',
      recipients: [ann, bob],
    });
    assert.equal(contentTypes[0], 'application/json');
    assert.deepEqual([json.id, json.title, json.status, json.files], [draft.id, 'Second', 'draft', []]);
    assert.equal(json.recipients[0]?.id, draft.recipients[0]?.id, 'a recipient who stays keeps their id');
    assert.deepEqual(
      json.recipients.map((r) => r.email),
      [ann.email, bob.email],
    );
    const idempotencyKey = randomUUID();
    const input = { title: 'Third', recipients: [bob], file: pdf };
    const withPdf = await writer.documents.update(draft.id, input, { idempotencyKey });
    assert.match(contentTypes.at(-1) ?? '', /^multipart\/form-data; boundary=/);
    assert.deepEqual(
      [withPdf.title, withPdf.recipients.length, withPdf.files[0]?.sha256],
      ['Third', 1, sha256Hex(pdf)],
    );
    const repeated = await writer.documents.update(draft.id, input, { idempotencyKey });
    assert.deepEqual([repeated.id, repeated.title], [draft.id, 'Third'], 'a keyed repeat answers it again');
    const keptPdf = await writer.documents.update(draft.id, {
      title: 'Fourth',
      recipients: [bob],
      send: true,
    });
    assert.deepEqual(
      [keptPdf.status, keptPdf.files[0]?.sha256],
      ['sent', sha256Hex(pdf)],
      'kept its PDF, sent',
    );
    const refused = await failure(writer.documents.update(draft.id, { title: 'Late', recipients: [ann] }));
    assert.deepEqual([refused.code, refused.status], ['document-not-draft', 409]);
    const unknown = await failure(
      writer.documents.update('0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a', { title: 'X', recipients: [ann] }),
    );
    assert.deepEqual([unknown.code, unknown.status], ['not-found', 404]);
  });

  test('a server that never answers: the call fails as SignetNetworkError within its timeout, once, unretried', async () => {
    const silent = await silentServer();
    try {
      const client = createClient({ apiKey: 'sgn_x', baseUrl: silent.url, timeoutMs: 300 });
      let started = Date.now();
      await assert.rejects(client.documents.page(), (error: unknown) => {
        assert.ok(error instanceof SignetNetworkError, String(error));
        assert.match(error.message, /^GET \/v1\/documents: no answer within 300 ms/);
        return true;
      });
      assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
      assert.equal(silent.requests(), 1, 'a read timed out is not repeated');
      started = Date.now();
      await assert.rejects(
        client.documents.create(
          { title: 'T', text: 'x', recipients: [ann] },
          { idempotencyKey: 'k', timeoutMs: 150 },
        ),
        (error: unknown) => error instanceof SignetNetworkError && /within 150 ms/.test(error.message),
      );
      assert.ok(Date.now() - started < 2_000);
      assert.equal(silent.requests(), 2, 'nor a write, keyed or not');
      // The default is 30 seconds: a call's own timeoutMs is what bounds it here.
      const byDefault = createClient({ apiKey: 'sgn_x', baseUrl: silent.url });
      await assert.rejects(
        byDefault.documents.get('d', { timeoutMs: 100 }),
        (error: unknown) => error instanceof SignetNetworkError && /within 100 ms/.test(error.message),
      );
    } finally {
      await silent.close();
    }
  });

  test('an abort rejects with the caller’s reason at once: a request under way, a signal aborted before, a wait between retries', async () => {
    const silent = await silentServer();
    try {
      const client = createClient({ apiKey: 'sgn_x', baseUrl: silent.url });
      const started = Date.now();
      await assert.rejects(client.documents.send('d', { signal: abortAfter(100) }), isAbortError);
      assert.ok(Date.now() - started < 2_000);
      const reason = new Error('the user went away');
      const controller = new AbortController();
      controller.abort(reason);
      const requests = silent.requests();
      await assert.rejects(
        client.documents.list({}, { signal: controller.signal }).next(),
        (error) => error === reason,
      );
      assert.equal(silent.requests(), requests, 'nothing is sent under an aborted signal');
    } finally {
      await silent.close();
    }
    // A real Signet whose bucket refills slowly: the 429 asks for a wait of 20 s, the abort ends it.
    await withApp({ ...h.ctx, clock: systemClock }, { burst: 1, refillPerSecond: 0.05 }, async (base) => {
      const ws = await createTestWorkspace(h.ctx);
      let requests = 0;
      const patient = createClient({
        apiKey: ws.apiKey,
        baseUrl: `${base}/v1`,
        rateLimitRetry: { retries: 3, maxWaitSeconds: 600 },
        fetch: (input, init) => {
          requests++;
          return contractFetch(input, init);
        },
      });
      await patient.documents.page();
      const started = Date.now();
      await assert.rejects(patient.documents.page({}, { signal: abortAfter(300) }), isAbortError);
      assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
      assert.equal(requests, 2, 'the 429 was not retried after the abort');
    });
  });

  test('documents.download takes the signal: aborted mid-stream, the stream stops with its reason', async () => {
    const sent = await writer.documents.create({
      title: 'To download',
      recipients: [ann],
      file: pdf,
      send: true,
    });
    // The public URL through a slow line: Signet's answer, its headers and first bytes, then nothing.
    const slow = await startReceiver(async (request: ReceivedRequest, response: ServerResponse) => {
      const upstream = await fetch(h.baseUrl + request.url);
      const body = Buffer.from(await upstream.arrayBuffer());
      response.writeHead(upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? '',
        'content-length': String(body.byteLength),
      });
      response.write(body.subarray(0, 100));
    });
    try {
      const slowly = createClient({
        apiKey: writerKey,
        baseUrl: `${h.baseUrl}/v1`,
        fetch: (input, init) => fetch(String(input).replace(h.config.publicUrl, slow.url), init),
      });
      const controller = new AbortController();
      const file = await slowly.documents.download(sent.id, 'original', { signal: controller.signal });
      const reader = file.stream.getReader();
      assert.equal((await reader.read()).value?.byteLength, 100, 'the first bytes came');
      const pending = reader.read();
      controller.abort();
      await assert.rejects(pending, isAbortError);
      await assert.rejects(
        slowly.documents.download(sent.id, 'original', { signal: AbortSignal.abort() }),
        isAbortError,
      );
      // The headers never come: the timeout bounds the link as it bounds the API.
      const stalled = await startReceiver(() => {});
      try {
        const waiting = createClient({
          apiKey: writerKey,
          baseUrl: `${h.baseUrl}/v1`,
          fetch: (input, init) => fetch(String(input).replace(h.config.publicUrl, stalled.url), init),
        });
        await assert.rejects(
          waiting.documents.download(sent.id, 'original', { timeoutMs: 200 }),
          (error: unknown) =>
            error instanceof SignetNetworkError &&
            /^download of original\.pdf: no answer within 200 ms/.test(error.message),
        );
      } finally {
        await stalled.close();
      }
    } finally {
      await slow.close();
    }
    const whole = await writer.documents.download(sent.id, 'original', {
      signal: new AbortController().signal,
    });
    assert.equal(sha256Hex(await bytesOf(whole.stream)), sha256Hex(pdf));
  });
});

/** A signal that aborts (with an AbortError) after `ms`. */
function abortAfter(ms: number): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), ms).unref();
  return controller.signal;
}

test('the built package, ESM and CommonJS, sends a PDF from a path on Node 20 (node:fs loaded then) and times out', {
  skip: !existsSync(systemNode) && 'no /usr/bin/node here',
}, () => {
  const dist = join(import.meta.dirname, '..', '..', 'packages', 'client', 'dist');
  const folder = mkdtempSync(join(tmpdir(), 'signet-client-node20-'));
  const pdfPath = join(folder, 'sla.pdf');
  writeFileSync(pdfPath, '%PDF-1.7 from a path');
  // A stand-in server that says what arrived, and stays silent on /slow.
  const body = (load: string) => `
    const { createServer } = require('node:http');
    (async () => {
      const { createClient } = await ${load};
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          if (req.url.endsWith('/slow')) return;
          res.setHeader('content-type', 'application/json');
          const type = req.headers['content-type'].split(';')[0];
          res.end(JSON.stringify({ ok: true, data: { type, pdf: body.includes('%PDF-1.7 from a path') } }));
        });
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const signet = createClient({ apiKey: 'sgn_k', baseUrl: 'http://127.0.0.1:' + server.address().port + '/v1' });
      const sent = await signet.documents.create({ title: 'T', recipients: [], file: ${JSON.stringify(pdfPath)} });
      const late = await signet.documents.get('slow', { timeoutMs: 100 }).catch((e) => e.name);
      server.closeAllConnections();
      server.close();
      console.log(JSON.stringify({ ...sent, late }));
    })();`;
  try {
    const esm = pathToFileURL(join(dist, 'index.js')).href;
    for (const [flavour, load] of [
      ['ESM', `import(${JSON.stringify(esm)})`],
      ['CommonJS', `Promise.resolve(require(${JSON.stringify(join(dist, 'cjs', 'index.js'))}))`],
    ] as const) {
      const out = execFileSync(systemNode, ['--input-type=commonjs', '-e', body(load)]).toString();
      assert.deepEqual(
        JSON.parse(out),
        { type: 'multipart/form-data', pdf: true, late: 'SignetNetworkError' },
        flavour,
      );
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
