// Rate limits (spec, Limits): a token bucket per key, burst 120, refilled continuously at
// 1 per second; headers on every response; 429 rate-limited with Retry-After when empty.
// Requests without a valid key are limited per client address with the same shape.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { createLogger } from '../../src/context.ts';
import {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  type RateLimiter,
} from '../../src/http/rate-limiter.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import {
  type ApiResponse,
  callApi,
  createTestWorkspace,
  databaseKinds,
  describeEachDatabase,
  useHarness,
} from '../support/harness.ts';

const redisUrl = process.env.SIGNET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function assertLimited(res: ApiResponse, retryAfter: string) {
  assert.equal(res.status, 429);
  assert.deepEqual(res.body, { ok: false, error: 'rate-limited' });
  assert.equal(res.headers.get('retry-after'), retryAfter);
  assert.equal(res.headers.get('x-ratelimit-limit'), '120');
  assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
}

async function drain(h: { baseUrl: string }, key: string | null, count: number): Promise<ApiResponse[]> {
  const responses: ApiResponse[] = [];
  for (let i = 0; i < count; i++) responses.push(await callApi(h, 'GET', '/v1/documents?limit=1', { key }));
  return responses;
}

describeEachDatabase('rate limits', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_RATE_LIMIT_BURST: '120' } });

  test('a key gets 120 requests at once, counting down, then 429 with Retry-After', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const responses = await drain(h, ws.apiKey, 120);
    responses.forEach((res, i) => {
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-ratelimit-limit'), '120');
      assert.equal(res.headers.get('x-ratelimit-remaining'), String(119 - i));
    });
    assertLimited(await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey }), '1');
  });

  test('the bucket refills continuously at one request per second', async () => {
    const ws = await createTestWorkspace(h.ctx);
    await drain(h, ws.apiKey, 120);
    h.clock.advance(500);
    assertLimited(await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey }), '1');
    h.clock.advance(500);
    const one = await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey });
    assert.equal(one.status, 200);
    assert.equal(one.headers.get('x-ratelimit-remaining'), '0');
    assertLimited(await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey }), '1');
    h.clock.advance(2500);
    assert.deepEqual(
      (await drain(h, ws.apiKey, 3)).map((r) => r.status),
      [200, 200, 429],
    );
    h.clock.advance(10 * 60_000);
    const full = await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey });
    assert.equal(full.headers.get('x-ratelimit-remaining'), '119', 'never more than the burst');
  });

  test('each key has its own bucket, even within one workspace', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const second = await createApiKey(h.ctx, { workspaceId: ws.id, name: 'second' });
    await drain(h, ws.apiKey, 121);
    const res = await callApi(h, 'GET', '/v1/documents', { key: second.secret });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-ratelimit-remaining'), '119');
  });

  test('requests without a valid key draw from their address’s bucket, and 401s carry the headers', async () => {
    h.clock.advance(10 * 60_000); // a full bucket for this address
    const responses = await drain(h, null, 120);
    responses.forEach((res, i) => {
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('x-ratelimit-remaining'), String(119 - i));
    });
    assertLimited(await callApi(h, 'GET', '/v1/documents', { key: `sgn_${'C'.repeat(43)}` }), '1');
    // A valid key from the same address is not held back by the bad ones.
    const ws = await createTestWorkspace(h.ctx);
    assert.equal((await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey })).status, 200);
    h.clock.advance(10 * 60_000);
  });

  test('every kind of response carries the rate-limit headers', async () => {
    const ws = await createTestWorkspace(h.ctx, 'max');
    const free = await createTestWorkspace(h.ctx, 'free');
    const cases: Array<[number, string, string | null]> = [
      [200, '/v1/documents', ws.apiKey],
      [400, '/v1/documents?limit=0', ws.apiKey],
      [400, '/v1/documents?cursor=nope', ws.apiKey],
      [400, '/v1/documents/nope', ws.apiKey],
      [404, `/v1/documents/${randomUUID()}`, ws.apiKey],
      [404, '/v1/unknown', ws.apiKey],
      [404, '/v1/documents/%E0%A4%A', ws.apiKey],
      [403, '/v1/documents', free.apiKey],
      [401, '/v1/documents', null],
    ];
    for (const [status, path, key] of cases) {
      const res = await callApi(h, 'GET', path, { key });
      assert.equal(res.status, status, path);
      assert.equal(res.headers.get('x-ratelimit-limit'), '120', path);
      assert.match(res.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/, path);
    }
    const wrongMethod = await callApi(h, 'DELETE', '/v1/documents', { key: ws.apiKey });
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.get('x-ratelimit-limit'), '120');
    h.clock.advance(10 * 60_000);
  });

  test('a rate-limited request with a bad query is still 429', async () => {
    const ws = await createTestWorkspace(h.ctx);
    await drain(h, ws.apiKey, 120);
    assertLimited(await callApi(h, 'GET', '/v1/documents?limit=0', { key: ws.apiKey }), '1');
  });
});

describeEachDatabase('rate limits with another shape', (kind) => {
  const h = useHarness(kind, {
    env: { SIGNET_RATE_LIMIT_BURST: '3', SIGNET_RATE_LIMIT_REFILL_PER_SECOND: '0.1' },
  });

  test('burst and refill are configurable, and Retry-After follows the refill rate', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const statuses = (await drain(h, ws.apiKey, 4)).map((r) => r.status);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    const res = await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey });
    assert.equal(res.headers.get('x-ratelimit-limit'), '3');
    assert.equal(res.headers.get('retry-after'), '10');
    h.clock.advance(4000);
    assert.equal(
      (await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey })).headers.get('retry-after'),
      '6',
    );
  });
});

describe('the memory rate limiter', () => {
  test('forgets buckets that have refilled, so memory follows active clients', async () => {
    const limiter = createMemoryRateLimiter({ burst: 2, refillPerSecond: 1 });
    for (let i = 0; i < 20_000; i++) await limiter.take(`ip:${i}`, 0);
    // Long after every bucket refilled: the next prune drops them all, and a fresh take is full.
    const res = await limiter.take('ip:1', 60_000);
    assert.deepEqual(res, { allowed: true, remaining: 1, retryAfterSeconds: 1 });
  });
});

const sharedKind = databaseKinds[0];
if (sharedKind) {
  describe(`rate limits shared through Redis [${sharedKind}]`, () => {
    const prefix = `signet:test:${randomUUID()}:`;
    const limiters: RateLimiter[] = [];
    const h = useHarness(sharedKind, {
      env: { SIGNET_RATE_LIMIT_BURST: '120' },
      rateLimiter: async (config) => {
        const limiter = await createRedisRateLimiter(config.rateLimit, redisUrl, createLogger('silent'), {
          prefix,
        });
        limiters.push(limiter);
        return limiter;
      },
    });
    let second: FastifyInstance;
    let secondUrl: string;

    before(async () => {
      const limiter = await createRedisRateLimiter(h.config.rateLimit, redisUrl, createLogger('silent'), {
        prefix,
      });
      limiters.push(limiter);
      second = await buildApp(h.ctx, { rateLimiter: limiter });
      secondUrl = await second.listen({ host: '127.0.0.1', port: 0 });
    });
    after(async () => {
      await second?.close();
      for (const limiter of limiters) await limiter.close();
    });

    test('two processes draw from one bucket per key', async () => {
      const ws = await createTestWorkspace(h.ctx);
      const fromFirst = await drain(h, ws.apiKey, 60);
      const fromSecond = await drain({ baseUrl: secondUrl }, ws.apiKey, 60);
      assert.ok([...fromFirst, ...fromSecond].every((r) => r.status === 200));
      assert.equal(fromSecond.at(-1)?.headers.get('x-ratelimit-remaining'), '0');
      assertLimited(await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey }), '1');
      assertLimited(await callApi({ baseUrl: secondUrl }, 'GET', '/v1/documents', { key: ws.apiKey }), '1');
      h.clock.advance(1000);
      assert.equal(
        (await callApi({ baseUrl: secondUrl }, 'GET', '/v1/documents', { key: ws.apiKey })).status,
        200,
      );
      assert.equal((await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey })).status, 429);
    });

    test('concurrent requests never take more than the burst', async () => {
      const ws = await createTestWorkspace(h.ctx);
      const responses = await Promise.all(
        Array.from({ length: 150 }, (_, i) =>
          callApi(i % 2 ? h : { baseUrl: secondUrl }, 'GET', '/v1/documents?limit=1', { key: ws.apiKey }),
        ),
      );
      assert.equal(responses.filter((r) => r.status === 200).length, 120);
      assert.equal(responses.filter((r) => r.status === 429).length, 30);
    });

    test('an unreachable Redis is reported at start-up', async () => {
      await assert.rejects(
        createRedisRateLimiter(
          { burst: 1, refillPerSecond: 1 },
          'redis://127.0.0.1:1',
          createLogger('silent'),
        ),
        /cannot reach Redis/,
      );
    });
  });
}
