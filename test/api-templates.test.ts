// /v1's templates (issue 38): a read key reads and is refused every write; a write key
// creates, replaces and deletes them and makes documents from one, up to 100 in a request,
// each item on its own (a refused item answered with its index and pointer, the others made),
// its PDF stored once for them all; an Idempotency-Key makes a repeat make nothing twice.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApiKey } from '../src/keys/keys.service.ts';
import { renderTextDocument } from '../src/pdf/text-document.ts';
import { callApi, countRows, createTestWorkspace, describeEachDatabase, useHarness } from './harness.ts';

async function contractPdf(): Promise<string> {
  const made = await renderTextDocument({
    title: 'Agreement',
    body: 'The parties agree.',
    workspaceName: 'Northwind',
    pricing: null,
    createdAt: new Date('2026-03-01T00:00:00Z'),
  });
  return Buffer.from(made.data).toString('base64');
}

type Made = {
  documents: Array<{
    index: number;
    document: {
      id: string;
      status: string;
      recipients: Array<{ email: string; fields: Array<{ label: string | null; value: unknown }> }>;
    };
  }>;
  refused: Array<{ index: number; error: string; pointer: string }>;
};

describeEachDatabase('templates through /v1', (kind) => {
  const h = useHarness(kind);

  async function workspace() {
    const ws = await createTestWorkspace(h.ctx);
    const write = await createApiKey(h.ctx, { workspaceId: ws.id, name: 'writer', scope: 'write' });
    return { ...ws, readKey: ws.apiKey, writeKey: write.secret };
  }

  const templateBody = async () => ({
    name: 'Services agreement',
    title: 'Services agreement',
    text: 'Please sign.',
    roles: [
      { name: 'Client', role: 'signer', signingOrder: 1, signingMethod: 'standard' },
      { name: 'Company', role: 'signer', signingOrder: 2, signingMethod: 'standard' },
    ],
    fields: [
      { role: 'Client', type: 'signature', page: 1, x: 72, y: 72, width: 180, height: 40 },
      {
        role: 'Client',
        type: 'text',
        page: 1,
        x: 72,
        y: 140,
        width: 180,
        height: 20,
        label: 'Fee',
        senderFills: true,
      },
      { role: 'Company', type: 'signature', page: 1, x: 320, y: 72, width: 180, height: 40 },
    ],
    file: await contractPdf(),
  });

  test('a read key reads templates and is refused every write with insufficient-scope', async () => {
    const ws = await workspace();
    const created = await callApi(h, 'POST', '/v1/templates', {
      key: ws.writeKey,
      body: await templateBody(),
    });
    assert.equal(created.status, 201, created.text);
    const id = (created.body.data as { id: string }).id;
    const list = await callApi(h, 'GET', '/v1/templates', { key: ws.readKey });
    assert.deepEqual(
      (list.body.data as Array<{ id: string }>).map((t) => t.id),
      [id],
    );
    const one = await callApi(h, 'GET', `/v1/templates/${id}`, { key: ws.readKey });
    assert.equal(one.status, 200);
    assert.deepEqual(
      (one.body.data as { roles: Array<{ name: string; fields: unknown[] }> }).roles.map((r) => [
        r.name,
        r.fields.length,
      ]),
      [
        ['Client', 2],
        ['Company', 1],
      ],
    );
    const writes: Array<[string, 'POST' | 'PUT' | 'DELETE', string, object?]> = [
      ['create', 'POST', '/v1/templates', await templateBody()],
      ['replace', 'PUT', `/v1/templates/${id}`, await templateBody()],
      ['delete', 'DELETE', `/v1/templates/${id}`],
      ['use', 'POST', `/v1/templates/${id}/documents`, { items: [{ recipients: {} }] }],
    ];
    for (const [what, method, path, body] of writes) {
      const res = await callApi(h, method, path, { key: ws.readKey, ...(body ? { body } : {}) });
      assert.equal(res.status, 403, what);
      assert.deepEqual(res.body, { ok: false, error: 'insufficient-scope' }, what);
    }
    assert.equal(await countRows(h.ctx, 'templates', { workspace_id: ws.id }), 1);
    // Another workspace's template is not-found, reading or writing.
    const other = await workspace();
    for (const [method, path] of [
      ['GET', `/v1/templates/${id}`],
      ['DELETE', `/v1/templates/${id}`],
    ] as const) {
      const res = await callApi(h, method, path, { key: other.writeKey });
      assert.deepEqual(res.body, { ok: false, error: 'not-found' });
    }
  });

  test('created, replaced (keeping its PDF), refused with a pointer, deleted', async () => {
    const ws = await workspace();
    const body = await templateBody();
    const bad = await callApi(h, 'POST', '/v1/templates', {
      key: ws.writeKey,
      body: { ...body, roles: [body.roles[0], { ...body.roles[1], name: 'CLIENT' }] },
    });
    assert.deepEqual(bad.body, { ok: false, error: 'invalid-body', pointer: '/roles/1/name' });
    const stranger = await callApi(h, 'POST', '/v1/templates', {
      key: ws.writeKey,
      body: { ...body, fields: [{ ...body.fields[0], role: 'Landlord' }] },
    });
    assert.deepEqual(stranger.body, { ok: false, error: 'invalid-body', pointer: '/fields/0' });
    const notPdf = await callApi(h, 'POST', '/v1/templates', {
      key: ws.writeKey,
      body: { ...body, file: Buffer.from('hello').toString('base64') },
    });
    assert.deepEqual(notPdf.body, { ok: false, error: 'invalid-file', pointer: '/file' });
    assert.equal(await countRows(h.ctx, 'templates', { workspace_id: ws.id }), 0);
    const created = await callApi(h, 'POST', '/v1/templates', { key: ws.writeKey, body });
    const { id, file } = created.body.data as { id: string; file: { sha256: string } };
    const { file: _file, ...withoutFile } = body;
    const replaced = await callApi(h, 'PUT', `/v1/templates/${id}`, {
      key: ws.writeKey,
      body: {
        ...withoutFile,
        name: 'Services agreement 2027',
        roles: [body.roles[0]],
        fields: [body.fields[0]],
      },
    });
    assert.equal(replaced.status, 200, replaced.text);
    const data = replaced.body.data as { name: string; file: { sha256: string }; roles: unknown[] };
    assert.deepEqual(
      [data.name, data.file.sha256, data.roles.length],
      ['Services agreement 2027', file.sha256, 1],
    );
    const deleted = await callApi(h, 'DELETE', `/v1/templates/${id}`, { key: ws.writeKey });
    assert.deepEqual(deleted.body, { ok: true, data: { id, deleted: true } });
    assert.equal(await countRows(h.ctx, 'templates', { workspace_id: ws.id }), 0);
  });

  test('100 items with 3 bad ones: 3 pointers, 97 documents, the template’s PDF stored once', async () => {
    const ws = await workspace();
    const created = await callApi(h, 'POST', '/v1/templates', {
      key: ws.writeKey,
      body: await templateBody(),
    });
    const { id, file } = created.body.data as { id: string; file: { sha256: string } };
    const filesBefore = await countRows(h.ctx, 'files');
    const items = Array.from({ length: 100 }, (_, i) => ({
      recipients: {
        Client: { email: `client${i}@example.com`, fullName: `Client ${i}` },
        Company: { email: 'ceo@northwind.example', fullName: 'Dana Ceo' },
      },
      values: { Fee: `${i + 1}00 EUR` },
      send: true,
    }));
    items[7] = {
      ...items[7],
      recipients: { ...items[7]?.recipients, Client: { email: 'bob@', fullName: 'Bob' } },
    } as (typeof items)[number];
    items[42] = { ...items[42], values: {} } as (typeof items)[number];
    items[99] = {
      ...items[99],
      recipients: { Client: items[99]?.recipients.Client },
    } as (typeof items)[number];
    const res = await callApi(h, 'POST', `/v1/templates/${id}/documents`, {
      key: ws.writeKey,
      body: { items },
    });
    assert.equal(res.status, 200, res.text);
    const made = res.body.data as Made;
    assert.deepEqual(made.refused, [
      { index: 7, error: 'invalid-body', pointer: '/items/7/recipients/Client/email' },
      { index: 42, error: 'invalid-body', pointer: '/items/42/values/Fee' },
      { index: 99, error: 'invalid-body', pointer: '/items/99/recipients/Company' },
    ]);
    assert.equal(made.documents.length, 97);
    assert.deepEqual(
      made.documents.slice(0, 2).map((d) => [d.index, d.document.status, d.document.recipients[0]?.email]),
      [
        [0, 'sent', 'client0@example.com'],
        [1, 'sent', 'client1@example.com'],
      ],
    );
    assert.deepEqual(
      made.documents[0]?.document.recipients[0]?.fields.map((f) => [f.label, f.value]),
      [
        [null, null],
        ['Fee', '100 EUR'],
      ],
    );
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: ws.id }), 97);
    assert.equal(await countRows(h.ctx, 'documents', { template_id: id }), 97);
    assert.equal(await countRows(h.ctx, 'files'), filesBefore, 'the documents share the template’s file');
    const shared = await h.ctx.db
      .selectFrom('documents')
      .select((eb) => eb.fn.count<string>('original_sha256').distinct().as('n'))
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(shared.n), 1);
    assert.equal(file.sha256.length, 64);
    const tooMany = await callApi(h, 'POST', `/v1/templates/${id}/documents`, {
      key: ws.writeKey,
      body: { items: [...items, items[0]] },
    });
    assert.deepEqual(tooMany.body, { ok: false, error: 'invalid-body', pointer: '/items' });
  });

  test('Idempotency-Key: a repeat makes nothing twice, and makes what was refused once it is right', async () => {
    const ws = await workspace();
    const created = await callApi(h, 'POST', `/v1/templates`, {
      key: ws.writeKey,
      body: await templateBody(),
    });
    const { id } = created.body.data as { id: string };
    const item = (n: number) => ({
      recipients: {
        Client: { email: `c${n}@example.com`, fullName: `Client ${n}` },
        Company: { email: 'ceo@northwind.example', fullName: 'Dana Ceo' },
      },
      values: { Fee: '1 EUR' },
    });
    const headers = { 'idempotency-key': 'batch-2027-01' };
    const first = await callApi(h, 'POST', `/v1/templates/${id}/documents`, {
      key: ws.writeKey,
      headers,
      body: { items: [item(1), { ...item(2), values: {} }, item(3)] },
    });
    const firstMade = first.body.data as Made;
    assert.deepEqual(
      [firstMade.documents.map((d) => d.index), firstMade.refused.map((r) => r.index)],
      [[0, 2], [1]],
    );
    const again = await callApi(h, 'POST', `/v1/templates/${id}/documents`, {
      key: ws.writeKey,
      headers,
      body: { items: [item(1), item(2), item(3)] },
    });
    const againMade = again.body.data as Made;
    assert.deepEqual(
      againMade.documents.map((d) => [d.index, d.document.id]),
      [
        [0, firstMade.documents[0]?.document.id],
        [1, againMade.documents[1]?.document.id],
        [2, firstMade.documents[1]?.document.id],
      ],
    );
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: ws.id }), 3);
    // Another body for an item already made: that item is refused, the others replayed.
    const changed = await callApi(h, 'POST', `/v1/templates/${id}/documents`, {
      key: ws.writeKey,
      headers,
      body: { items: [item(9), item(2), item(3)] },
    });
    assert.deepEqual((changed.body.data as Made).refused, [
      { index: 0, error: 'idempotency-key-reused', pointer: '/items/0' },
    ]);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: ws.id }), 3);
  });
});
