// /healthz and /readyz, outside /v1: alive whenever the process answers; ready only when
// the database answers and has every migration of this version.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.ts';
import {
  createTestDatabase,
  describeEachDatabase,
  unreachableDatabase,
  useHarness,
  withApp,
} from '../support/harness.ts';

describeEachDatabase('health', (kind) => {
  const h = useHarness(kind);

  test('GET /healthz is 200 without a key', async () => {
    const response = await fetch(`${h.baseUrl}/healthz`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: 'ok' });
  });

  test('every kind of answer says nosniff: health, metrics, the API, its errors, pages and 404s', async () => {
    for (const path of [
      '/healthz',
      '/readyz',
      '/metrics',
      '/v1/documents',
      '/v1/nothing',
      '/login',
      '/nothing',
      '/docs',
    ]) {
      const response = await fetch(`${h.baseUrl}${path}`);
      await response.arrayBuffer();
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', `${path} (${response.status})`);
    }
  });

  test('GET /readyz is 200 on a migrated database', async () => {
    const response = await fetch(`${h.baseUrl}/readyz`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: 'ok' });
  });

  async function readyzWith(db: Kysely<Database>) {
    return withApp({ ...h.ctx, db }, { burst: 10, refillPerSecond: 1 }, async (base) => {
      const [ready, alive] = await Promise.all([fetch(`${base}/readyz`), fetch(`${base}/healthz`)]);
      return {
        ready: ready.status,
        body: (await ready.json()) as { status: string; reason?: string },
        alive: alive.status,
      };
    });
  }

  test('GET /readyz is 503 while the database cannot be reached; /healthz stays 200', async () => {
    const broken = unreachableDatabase();
    try {
      assert.deepEqual(await readyzWith(broken), {
        ready: 503,
        body: { status: 'unavailable', reason: 'database unreachable' },
        alive: 200,
      });
    } finally {
      await broken.destroy();
    }
  });

  test('GET /readyz is 503 on a database without this version’s migrations', async () => {
    const empty = await createTestDatabase(kind, { migrated: false });
    try {
      const result = await readyzWith(empty.db);
      assert.equal(result.ready, 503);
      assert.match(result.body.reason ?? '', /^migrations pending: 0001-initial, /);
    } finally {
      await empty.close();
    }
  });
});
