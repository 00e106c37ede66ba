// The API key cache trades no correctness for speed: it answers only while change
// notifications are heard, forgets everything on any change, refuses to store a lookup
// that raced with a change, and keeps entries for a bounded time and number.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApp } from '../src/app.ts';
import { createContext, createLogger } from '../src/context.ts';
import { createMemoryRateLimiter } from '../src/http/rate-limiter.ts';
import { createKeyCache } from '../src/keys/key-cache.ts';
import { revokeApiKey } from '../src/keys/keys.service.ts';
import { setWorkspacePlan } from '../src/workspaces/workspaces.service.ts';
import {
  callApi,
  createTestClock,
  createTestWorkspace,
  describeEachDatabase,
  useHarness,
} from './harness.ts';

const identity = { keyId: 'k', workspaceId: 'w', plan: 'max' as const };

test('nothing is cached while change notifications are not heard', () => {
  const cache = createKeyCache(createTestClock());
  cache.begin()('h', identity);
  assert.equal(cache.get('h'), undefined);
  cache.setListening(true);
  cache.begin()('h', identity);
  assert.deepEqual(cache.get('h'), identity);
  cache.setListening(false);
  assert.equal(cache.get('h'), undefined, 'losing the listener forgets everything');
});

test('a lookup that started before a change is not stored', () => {
  const cache = createKeyCache(createTestClock());
  cache.setListening(true);
  const remember = cache.begin();
  cache.clear();
  remember('h', identity);
  assert.equal(cache.get('h'), undefined);
});

test('invalid keys are cached too, and entries expire', () => {
  const clock = createTestClock();
  const cache = createKeyCache(clock, { ttlMs: 1000 });
  cache.setListening(true);
  cache.begin()('bad', null);
  assert.equal(cache.get('bad'), null);
  clock.advance(1000);
  assert.equal(cache.get('bad'), undefined);
});

test('the cache holds at most maxEntries, dropping the oldest', () => {
  const cache = createKeyCache(createTestClock(), { maxEntries: 3 });
  cache.setListening(true);
  for (const hash of ['a', 'b', 'c', 'd']) cache.begin()(hash, null);
  assert.equal(cache.get('a'), undefined);
  assert.equal(cache.get('d'), null);
});

describeEachDatabase('auth changes across processes', (kind) => {
  const h = useHarness(kind);

  async function secondProcess() {
    // Another process on the same database: its own context, cache and listener.
    const ctx = await createContext(h.config, h.ctx.db, {
      clock: h.clock,
      log: createLogger('silent'),
      subscribe: h.subscribe,
    });
    const app = await buildApp(ctx, { rateLimiter: createMemoryRateLimiter(h.config.rateLimit) });
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const close = async () => {
      await app.close();
      await ctx.close();
    };
    return { baseUrl, close };
  }

  async function statusWithin(baseUrl: string, key: string, expected: number, ms = 2000): Promise<number> {
    const started = Date.now();
    let status = 0;
    while (Date.now() - started < ms) {
      status = (await callApi({ baseUrl }, 'GET', '/v1/documents?limit=1', { key })).status;
      if (status === expected) return Date.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.fail(`still ${status} after ${ms} ms`);
  }

  test('a key revoked in one process is refused by another as soon as the change commits', async () => {
    const other = await secondProcess();
    try {
      const ws = await createTestWorkspace(h.ctx);
      for (let i = 0; i < 3; i++)
        await callApi({ baseUrl: other.baseUrl }, 'GET', '/v1/documents', { key: ws.apiKey });
      await revokeApiKey(h.ctx, ws.keyId);
      const ms = await statusWithin(other.baseUrl, ws.apiKey, 401);
      assert.ok(ms < 1000, `took ${ms} ms`);
    } finally {
      await other.close();
    }
  });

  test('a plan change in one process applies in another as soon as it commits', async () => {
    const other = await secondProcess();
    try {
      const ws = await createTestWorkspace(h.ctx);
      await callApi({ baseUrl: other.baseUrl }, 'GET', '/v1/documents', { key: ws.apiKey });
      await setWorkspacePlan(h.ctx, ws.id, 'free');
      await statusWithin(other.baseUrl, ws.apiKey, 403);
      await setWorkspacePlan(h.ctx, ws.id, 'max');
      await statusWithin(other.baseUrl, ws.apiKey, 200);
    } finally {
      await other.close();
    }
  });
});
