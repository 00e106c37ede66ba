// @signet/client against a live Signet (the harness's real HTTP server): every method, a
// walk across more than 10 pages, 429 waited out with a small burst, a typed error for
// each code the API can answer, verifyWebhook on real deliveries (valid, tampered, wrong
// secret, stale, future, malformed header, unreadable time); the generated types are what
// the generator writes from docs/openapi.json; the package builds to plain JavaScript.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { contractPath, generateTypes, typesPath } from '../packages/client/scripts/generate-types.ts';
import {
  createClient,
  SignetApiError,
  SignetNetworkError,
  verifyWebhook,
  WebhookVerificationError,
} from '../packages/client/src/index.ts';
import { systemClock } from '../src/context.ts';
import { createOutageMonitor } from '../src/db/availability.ts';
import { insertSampleDocuments } from '../src/demo/seed.ts';
import { createEndpoint } from '../src/webhooks/endpoints.service.ts';
import {
  createTestWorkspace,
  describeEachDatabase,
  type TestWorkspace,
  unreachableDatabase,
  useHarness,
  withApp,
} from './harness.ts';
import { type Receiver, receivePing, startReceiver } from './receiver.ts';

test('src/types.ts is what the generator writes from docs/openapi.json (run npm run client:types)', () => {
  const contract = JSON.parse(readFileSync(contractPath, 'utf8'));
  assert.equal(readFileSync(typesPath, 'utf8'), generateTypes(contract));
});

test('the package builds to JavaScript that needs no TypeScript and no Node-only API', () => {
  const dir = join(import.meta.dirname, '..', 'packages', 'client');
  execFileSync(
    process.execPath,
    [
      join(import.meta.dirname, '..', 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      'tsconfig.build.json',
    ],
    {
      cwd: dir,
    },
  );
  const built = readFileSync(join(dir, 'dist', 'index.js'), 'utf8');
  assert.match(built, /export async function verifyWebhook/);
  assert.doesNotMatch(built, /from ['"]node:/);
});

// The machine's own Node is 20 (the project runs on 24): the built package must work there.
const systemNode = '/usr/bin/node';
test('the built package verifies a signature on Node 20', {
  skip: !existsSync(systemNode) && 'no /usr/bin/node here',
}, () => {
  const dist = pathToFileURL(join(import.meta.dirname, '..', 'packages', 'client', 'dist', 'index.js')).href;
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
});

describeEachDatabase('@signet/client against a live Signet', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_WEBHOOK_ALLOW_UNSAFE: '1' } });
  let ws: TestWorkspace;
  let client: ReturnType<typeof createClient>;

  test('setup: a workspace with 31 documents', async () => {
    ws = await createTestWorkspace(h.ctx);
    await insertSampleDocuments(h.ctx, ws.id, 31);
    client = createClient({ apiKey: ws.apiKey, baseUrl: `${h.baseUrl}/v1` });
  });

  test('documents.list() walks every page (16 pages of 2) and yields each document once, newest first', async () => {
    const seen: string[] = [];
    const pages: number[] = [];
    const counting = createClient({
      apiKey: ws.apiKey,
      baseUrl: `${h.baseUrl}/v1`,
      fetch: (input, init) => {
        pages.push(1);
        return fetch(input, init);
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

  async function failure(promise: Promise<unknown>): Promise<SignetApiError> {
    try {
      await promise;
    } catch (error) {
      assert.ok(error instanceof SignetApiError, `expected SignetApiError, got ${error}`);
      return error;
    }
    assert.fail('expected a failure');
  }

  test('each error code the API answers arrives as a SignetApiError with its code and status', async () => {
    const free = await createTestWorkspace(h.ctx, 'free');
    const unknownId = '0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a';
    const cases: Array<[string, number, () => Promise<unknown>]> = [
      [
        'invalid-api-key',
        401,
        () => createClient({ apiKey: 'sgn_nope', baseUrl: `${h.baseUrl}/v1` }).documents.page(),
      ],
      [
        'plan-required',
        403,
        () => createClient({ apiKey: free.apiKey, baseUrl: `${h.baseUrl}/v1` }).documents.page(),
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
    const fullClient = createClient({ apiKey: full.apiKey, baseUrl: `${h.baseUrl}/v1` });
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

  test('a database outage arrives as SignetApiError unavailable (503), after the reads were retried', async () => {
    const broken = unreachableDatabase();
    const outage = createOutageMonitor({ db: broken, log: h.ctx.log, probeIntervalMs: 60_000 });
    try {
      await withApp({ ...h.ctx, db: broken, outage }, { burst: 10, refillPerSecond: 1 }, async (base) => {
        const waits: number[] = [];
        const client = createClient({
          apiKey: `sgn_${'F'.repeat(43)}`,
          baseUrl: `${base}/v1`,
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
        assert.deepEqual(waits, [], 'a write is never repeated');
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
      const impatient = createClient({ apiKey: ws.apiKey, baseUrl: `${base}/v1`, rateLimitRetry: false });
      await impatient.documents.page().catch(() => {});
      await assert.rejects(impatient.documents.page(), (error: unknown) => {
        return (
          error instanceof SignetApiError && error.code === 'rate-limited' && (error.retryAfter ?? 0) >= 1
        );
      });
      const bounded = createClient({
        apiKey: ws.apiKey,
        baseUrl: `${base}/v1`,
        rateLimitRetry: { retries: 3, maxWaitSeconds: 0 },
      });
      await assert.rejects(bounded.documents.page(), (error: unknown) => error instanceof SignetApiError);
    });
  });
}
