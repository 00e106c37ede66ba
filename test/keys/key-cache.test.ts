// The API key cache trades no correctness for speed: it answers only while change
// notifications are heard, forgets everything on any change, refuses to store a lookup
// that raced with a change, and keeps entries for a bounded time and number.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { createContext, createLogger } from '../../src/context.ts';
import { createMemoryRateLimiter } from '../../src/http/rate-limiter.ts';
import { createKeyCache } from '../../src/keys/key-cache.ts';
import { revokeApiKey } from '../../src/keys/keys.service.ts';
import { setWorkspacePlan } from '../../src/workspaces/workspaces.service.ts';
import {
  callApi,
  createTestClock,
  createTestWorkspace,
  describeEachDatabase,
  useHarness,
} from '../support/harness.ts';

const identity = { keyId: 'k', workspaceId: 'w', plan: 'max' as const, scope: 'read' as const };

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
    // Another process on the same database: its own context, cache and listener. `heard`
    // resolves when its listener has handled the next auth-change notification, so a test
    // can ask for what happens right after, by the order of events rather than a stopwatch.
    let onHeard: () => void = () => {};
    const ctx = await createContext(h.config, h.ctx.db, {
      clock: h.clock,
      log: createLogger('silent'),
      subscribe: (channel, subscription) =>
        h.subscribe(channel, {
          onNotify: (payload) => {
            subscription.onNotify(payload);
            onHeard();
          },
          onStateChange: (isListening) => subscription.onStateChange(isListening),
        }),
    });
    const app = await buildApp(ctx, { rateLimiter: createMemoryRateLimiter(h.config.rateLimit) });
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const nextNotification = () =>
      new Promise<void>((resolve) => {
        onHeard = resolve;
      });
    const close = async () => {
      await app.close();
      await ctx.close();
    };
    return { baseUrl, nextNotification, close };
  }

  async function statusOf(baseUrl: string, key: string): Promise<number> {
    return (await callApi({ baseUrl }, 'GET', '/v1/documents?limit=1', { key })).status;
  }

  test('a key revoked in one process is refused by another as soon as it hears the commit', async () => {
    const other = await secondProcess();
    try {
      const ws = await createTestWorkspace(h.ctx);
      for (let i = 0; i < 3; i++) assert.equal(await statusOf(other.baseUrl, ws.apiKey), 200);
      const heard = other.nextNotification();
      await revokeApiKey(h.ctx, ws.keyId);
      await heard;
      assert.equal(await statusOf(other.baseUrl, ws.apiKey), 401, 'the first request after is refused');
    } finally {
      await other.close();
    }
  });

  test('a plan change in one process applies in another as soon as it hears the commit', async () => {
    const other = await secondProcess();
    try {
      const ws = await createTestWorkspace(h.ctx);
      assert.equal(await statusOf(other.baseUrl, ws.apiKey), 200);
      let heard = other.nextNotification();
      await setWorkspacePlan(h.ctx, ws.id, 'free');
      await heard;
      assert.equal(await statusOf(other.baseUrl, ws.apiKey), 403);
      heard = other.nextNotification();
      await setWorkspacePlan(h.ctx, ws.id, 'max');
      await heard;
      assert.equal(await statusOf(other.baseUrl, ws.apiKey), 200);
    } finally {
      await other.close();
    }
  });
});
