// GET /v1/documents/{id}: the detail view, and the errors it can return.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import {
  callApi,
  createTestDocument,
  createTestWorkspace,
  describeEachDatabase,
  recipient,
  useHarness,
} from '../support/harness.ts';

interface Detail {
  id: string;
  status: string;
  signedAt: string | null;
  recipients: Array<
    Record<string, unknown> & { email: string; signingOrder: number; signedAt: string | null }
  >;
  events: Array<{ id: string; type: string; recipientEmail: string | null; createdAt: string }>;
}

describeEachDatabase('GET /v1/documents/{id}', (kind) => {
  const h = useHarness(kind);

  test('answers the document with recipients by signing order and events oldest first', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const graph = await createTestDocument(h.ctx, {
      workspaceId: ws.id,
      status: 'signed',
      title: 'Lease renewal',
      recipients: [
        recipient('c@x.example', 'Carol', { signingOrder: 2 }),
        recipient('a@x.example', 'Alice', { signingMethod: 'email-code' }),
        recipient('v@x.example', 'Vic', { role: 'viewer', signingOrder: 3 }),
        recipient('b@x.example', 'Bob'),
      ],
    });
    const res = await callApi(h, 'GET', `/v1/documents/${graph.document.id}`, { key: ws.apiKey });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'ok']);
    const doc = res.body.data as Detail;
    assert.equal(doc.id, graph.document.id);
    assert.equal(doc.status, 'signed');
    assert.deepEqual(
      doc.recipients.map((r) => r.email),
      ['a@x.example', 'b@x.example', 'c@x.example', 'v@x.example'],
    );
    assert.deepEqual(Object.keys(doc.recipients[0] ?? {}).sort(), [
      'declineReason',
      'declinedAt',
      'email',
      'fields',
      'fullName',
      'id',
      'language',
      'role',
      'signedAt',
      'signingMethod',
      'signingOrder',
    ]);
    assert.deepEqual(doc.recipients[0], {
      id: graph.recipients[1]?.id,
      email: 'a@x.example',
      fullName: 'Alice',
      role: 'signer',
      signingMethod: 'email-code',
      signingOrder: 1,
      signedAt: (graph.recipients[1]?.signed_at as Date | undefined)?.toISOString(),
      language: null,
      declinedAt: null,
      declineReason: null,
      fields: [],
    });
    assert.equal(doc.recipients.find((r) => r.email === 'v@x.example')?.signedAt, null);
    assert.deepEqual(
      doc.events.map((e) => e.type),
      [
        'document.sent',
        'document.opened',
        'document.signed',
        'document.signed',
        'document.signed',
        'document.completed',
      ],
    );
    for (let i = 1; i < doc.events.length; i++) {
      assert.ok((doc.events[i - 1]?.createdAt ?? '') <= (doc.events[i]?.createdAt ?? ''));
    }
    assert.equal(doc.events[0]?.recipientEmail, null);
    assert.equal(doc.events[1]?.recipientEmail, 'c@x.example');
    assert.deepEqual(Object.keys(doc.events[0] ?? {}).sort(), ['createdAt', 'id', 'recipientEmail', 'type']);
    assert.equal(doc.signedAt, doc.events.at(-1)?.createdAt);
  });

  test('events in the same millisecond keep the order they happened in', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const graph = await createTestDocument(h.ctx, { workspaceId: ws.id, status: 'draft' });
    const at = new Date('2026-03-02T00:00:00.000Z');
    const types = ['document.sent', 'document.opened', 'document.signed', 'document.completed'];
    for (const type of types) {
      await h.ctx.db
        .insertInto('document_events')
        .values({
          id: randomUUID(),
          workspace_id: ws.id,
          document_id: graph.document.id as string,
          type,
          recipient_id: null,
          recipient_email: null,
          created_at: at,
        })
        .execute();
    }
    const res = await callApi(h, 'GET', `/v1/documents/${graph.document.id}`, { key: ws.apiKey });
    assert.deepEqual(
      (res.body.data as Detail).events.map((e) => e.type),
      types,
    );
  });

  test('an upper-case UUID finds the same document', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const graph = await createTestDocument(h.ctx, { workspaceId: ws.id });
    const res = await callApi(h, 'GET', `/v1/documents/${String(graph.document.id).toUpperCase()}`, {
      key: ws.apiKey,
    });
    assert.equal(res.status, 200);
    assert.equal((res.body.data as Detail).id, graph.document.id);
  });

  const notUuids = [
    'abc',
    '123',
    'not-a-uuid-at-all-but-36-characters!',
    '0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6',
    '0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a7',
    '0b8e9c527c1f4e1d9a6b3f1e2d4c5b6a',
    '{0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a}',
    'urn:uuid:0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a',
    'g0000000-0000-0000-0000-000000000000',
    '0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a%20',
    "1' or '1'='1",
    'x'.repeat(900),
  ];
  for (const id of notUuids) {
    test(`invalid-id: ${id.length > 50 ? `${id.slice(0, 20)}… (${id.length} chars)` : id}`, async () => {
      const ws = await createTestWorkspace(h.ctx);
      const res = await callApi(h, 'GET', `/v1/documents/${encodeURIComponent(id)}`, { key: ws.apiKey });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { ok: false, error: 'invalid-id' });
    });
  }

  test('a document of another workspace is not-found, exactly like a missing one', async () => {
    const owner = await createTestWorkspace(h.ctx);
    const intruder = await createTestWorkspace(h.ctx);
    const graph = await createTestDocument(h.ctx, { workspaceId: owner.id });
    const foreign = await callApi(h, 'GET', `/v1/documents/${graph.document.id}`, { key: intruder.apiKey });
    const missing = await callApi(h, 'GET', `/v1/documents/${randomUUID()}`, { key: intruder.apiKey });
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body, { ok: false, error: 'not-found' });
    assert.equal(foreign.text, missing.text);
    assert.equal(foreign.status, missing.status);
    assert.equal(foreign.headers.get('content-length'), missing.headers.get('content-length'));
  });

  test('the nil UUID and the max UUID are well-formed ids that find nothing', async () => {
    const ws = await createTestWorkspace(h.ctx);
    for (const id of ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff']) {
      const res = await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.apiKey });
      assert.deepEqual([res.status, res.body], [404, { ok: false, error: 'not-found' }]);
    }
  });

  test('a query string on the detail route is refused as invalid-query', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const graph = await createTestDocument(h.ctx, { workspaceId: ws.id });
    const res = await callApi(h, 'GET', `/v1/documents/${graph.document.id}?expand=all`, { key: ws.apiKey });
    assert.deepEqual([res.status, res.body], [400, { ok: false, error: 'invalid-query' }]);
  });
});
