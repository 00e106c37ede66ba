// Authentication and plans (spec, Authentication): every way a key can be wrong is
// 401 invalid-api-key; a workspace not on Max is 403 plan-required.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashApiKey } from '../../src/keys/api-key-secret.ts';
import {
  createApiKey,
  listApiKeys,
  maxActiveKeysPerWorkspace,
  revokeApiKey,
} from '../../src/keys/keys.service.ts';
import { setWorkspacePlan } from '../../src/workspaces/workspaces.service.ts';
import { callApi, createTestWorkspace, describeEachDatabase, useHarness } from '../support/harness.ts';

describeEachDatabase('API keys and plans', (kind) => {
  const h = useHarness(kind);
  const paths = ['/v1/documents', '/v1/documents/0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a', '/v1/nothing-here'];

  const badAuthorization: Array<[string, (key: string) => Record<string, string>]> = [
    ['no Authorization header', () => ({})],
    ['an empty Authorization header', () => ({ authorization: '' })],
    ['Bearer without a key', () => ({ authorization: 'Bearer ' })],
    ['the key without the Bearer scheme', (key) => ({ authorization: key })],
    ['Basic scheme', (key) => ({ authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` })],
    ['two keys', (key) => ({ authorization: `Bearer ${key} ${key}` })],
    ['a key with a character missing', (key) => ({ authorization: `Bearer ${key.slice(0, -1)}` })],
    [
      'a key with a character changed',
      (key) => ({ authorization: `Bearer ${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}` }),
    ],
    ['a well-formed key that was never issued', () => ({ authorization: `Bearer sgn_${'A'.repeat(43)}` })],
    ['the key hash instead of the key', (key) => ({ authorization: `Bearer ${hashApiKey(key)}` })],
  ];

  for (const [name, headers] of badAuthorization) {
    test(`invalid-api-key: ${name}`, async () => {
      const ws = await createTestWorkspace(h.ctx);
      for (const path of paths) {
        const res = await callApi(h, 'GET', path, { headers: headers(ws.apiKey) });
        assert.equal(res.status, 401, path);
        assert.deepEqual(res.body, { ok: false, error: 'invalid-api-key' });
      }
    });
  }

  test('a key in the query string instead of the header is invalid-api-key', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const res = await callApi(h, 'GET', `/v1/documents?api_key=${ws.apiKey}`);
    assert.deepEqual([res.status, res.body], [401, { ok: false, error: 'invalid-api-key' }]);
  });

  test('the scheme name is case-insensitive', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const res = await callApi(h, 'GET', '/v1/documents', {
      headers: { authorization: `bearer ${ws.apiKey}` },
    });
    assert.equal(res.status, 200);
  });

  test('a revoked key is refused on the very next request', async () => {
    const ws = await createTestWorkspace(h.ctx);
    assert.equal((await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey })).status, 200);
    await revokeApiKey(h.ctx, ws.keyId);
    const res = await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey });
    assert.deepEqual([res.status, res.body], [401, { ok: false, error: 'invalid-api-key' }]);
  });

  test('revoking one key leaves the workspace’s other keys working', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const second = await createApiKey(h.ctx, { workspaceId: ws.id, name: 'second' });
    await revokeApiKey(h.ctx, ws.keyId);
    assert.equal((await callApi(h, 'GET', '/v1/documents', { key: second.secret })).status, 200);
  });

  test('a workspace on the free plan gets plan-required, and Max opens the API at once', async () => {
    const ws = await createTestWorkspace(h.ctx, 'free');
    for (const path of paths) {
      const res = await callApi(h, 'GET', path, { key: ws.apiKey });
      assert.deepEqual([res.status, res.body], [403, { ok: false, error: 'plan-required' }], path);
    }
    await setWorkspacePlan(h.ctx, ws.id, 'max');
    assert.equal((await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey })).status, 200);
    await setWorkspacePlan(h.ctx, ws.id, 'free');
    assert.equal((await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey })).status, 403);
  });

  test('authentication comes before validation: a bad key with a bad query is still 401', async () => {
    const res = await callApi(h, 'GET', '/v1/documents?limit=0', { key: `sgn_${'B'.repeat(43)}` });
    assert.deepEqual([res.status, res.body], [401, { ok: false, error: 'invalid-api-key' }]);
    const free = await createTestWorkspace(h.ctx, 'free');
    const res2 = await callApi(h, 'GET', '/v1/documents?limit=0', { key: free.apiKey });
    assert.deepEqual([res2.status, res2.body], [403, { ok: false, error: 'plan-required' }]);
  });

  test('keys look like sgn_ plus 43 base62 characters and only their hash is stored', async () => {
    const ws = await createTestWorkspace(h.ctx);
    assert.match(ws.apiKey, /^sgn_[0-9A-Za-z]{43}$/);
    const rows = await h.ctx.db
      .selectFrom('api_keys')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.secret_hash, hashApiKey(ws.apiKey));
    assert.equal(rows[0]?.hint, ws.apiKey.slice(-4));
    assert.ok(!JSON.stringify(rows).includes(ws.apiKey.slice(4)));
    const listed = await listApiKeys(h.ctx, ws.id);
    assert.ok(!JSON.stringify(listed).includes(ws.apiKey.slice(4)));
  });

  test('two keys are never alike', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const more = await createApiKey(h.ctx, { workspaceId: ws.id, name: 'two' });
    assert.notEqual(ws.apiKey, more.secret);
  });

  test('a workspace may hold 10 active keys; the 11th is refused until one is revoked', async () => {
    const ws = await createTestWorkspace(h.ctx);
    for (let i = 1; i < maxActiveKeysPerWorkspace; i++)
      await createApiKey(h.ctx, { workspaceId: ws.id, name: `k${i}` });
    await assert.rejects(createApiKey(h.ctx, { workspaceId: ws.id, name: 'eleventh' }), {
      code: 'limit-reached',
    });
    await revokeApiKey(h.ctx, ws.keyId);
    const replacement = await createApiKey(h.ctx, { workspaceId: ws.id, name: 'replacement' });
    assert.equal((await callApi(h, 'GET', '/v1/documents', { key: replacement.secret })).status, 200);
    await assert.rejects(createApiKey(h.ctx, { workspaceId: ws.id, name: 'twelfth' }), {
      code: 'limit-reached',
    });
  });

  test('keys created at the same moment cannot exceed the limit', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const results = await Promise.allSettled(
      Array.from({ length: 15 }, (_, i) => createApiKey(h.ctx, { workspaceId: ws.id, name: `p${i}` })),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, maxActiveKeysPerWorkspace - 1);
    const active = (await listApiKeys(h.ctx, ws.id)).filter((k) => k.revokedAt === null);
    assert.equal(active.length, maxActiveKeysPerWorkspace);
  });

  test('a key for an unknown workspace is refused', async () => {
    await assert.rejects(
      createApiKey(h.ctx, { workspaceId: '0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a', name: 'x' }),
      { code: 'not-found' },
    );
  });
});
