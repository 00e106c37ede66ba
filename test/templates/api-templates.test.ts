// /v1's templates (issue 38): a read key reads and is refused every write; a write key
// creates, replaces and deletes them and makes documents from one, up to 100 in a request,
// each item on its own (a refused item answered with its index and pointer, the others made),
// its PDF stored once for them all, sent at once with `send` (the contract's own example); an
// Idempotency-Key makes a repeat make nothing twice, and another body under it is refused whole.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { senderFeeField, signatureField, templateRole, textPdf } from '../support/factories.ts';
import {
  callApi,
  countRows,
  createTestWorkspace,
  describeEachDatabase,
  useHarness,
} from '../support/harness.ts';

/** Northwind's Agreement, `pages` pages of it (as Signet draws a text), in base64 as a JSON body carries it. */
async function contractPdf(pages = 1): Promise<string> {
  const pdf = await textPdf({ body: 'The parties agree.\n'.repeat(pages === 1 ? 1 : 60 * pages) });
  return pdf.toString('base64');
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
    roles: [templateRole('Client'), templateRole('Company', { signingOrder: 2 })],
    fields: [
      signatureField({ role: 'Client' }),
      senderFeeField(),
      signatureField({ role: 'Company' }, { x: 320 }),
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

  test('Idempotency-Key: a repeat makes nothing twice; the same key with another body is refused whole', async () => {
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
    const body = { items: [item(1), { ...item(2), values: {} }, item(3)] };
    const first = await callApi(h, 'POST', `/v1/templates/${id}/documents`, {
      key: ws.writeKey,
      headers,
      body,
    });
    const firstMade = first.body.data as Made;
    assert.deepEqual(
      [firstMade.documents.map((d) => d.index), firstMade.refused.map((r) => r.index)],
      [[0, 2], [1]],
    );
    const again = await callApi(h, 'POST', `/v1/templates/${id}/documents`, {
      key: ws.writeKey,
      headers,
      body,
    });
    const againMade = again.body.data as Made;
    assert.deepEqual(
      againMade.documents.map((d) => [d.index, d.document.id]),
      firstMade.documents.map((d) => [d.index, d.document.id]),
    );
    assert.deepEqual(againMade.refused, firstMade.refused);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: ws.id }), 2);
    // Another body under the key (an item fixed, an item given `send`, an item added): 409, nothing made.
    for (const other of [
      { items: [item(1), item(2), item(3)] },
      { items: [{ ...item(1), send: true }, { ...item(2), values: {} }, item(3)] },
      { items: [...body.items, item(4)] },
    ]) {
      const refused = await callApi(h, 'POST', `/v1/templates/${id}/documents`, {
        key: ws.writeKey,
        headers,
        body: other,
      });
      assert.deepEqual([refused.status, refused.body], [409, { ok: false, error: 'idempotency-key-reused' }]);
    }
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: ws.id }), 2);
    assert.equal(
      await countRows(h.ctx, 'document_events', { workspace_id: ws.id, type: 'document.sent' }),
      0,
    );
    // The refused item, fixed, goes in a request of its own (a new key).
    const fixed = await callApi(h, 'POST', `/v1/templates/${id}/documents`, {
      key: ws.writeKey,
      headers: { 'idempotency-key': 'batch-2027-01-fix' },
      body: { items: [item(2)] },
    });
    assert.equal((fixed.body.data as Made).documents.length, 1);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: ws.id }), 3);
  });

  test('the contract’s own examples: a template made, then its documents sent at once with `send: true`', async () => {
    const ws = await workspace();
    const contract = JSON.parse(await readFile(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    const exampleOf = (path: string) =>
      Object.values(
        contract.paths[path].post.requestBody.content['application/json'].examples as Record<
          string,
          { value: unknown }
        >,
      )[0]?.value as Record<string, unknown>;
    const templateExample = exampleOf('/templates');
    const useExample = exampleOf('/templates/{id}/documents') as { items: Array<{ send?: boolean }> };
    assert.ok(
      useExample.items.some((i) => i.send === true),
      'the example sends',
    );
    const sentItems = useExample.items.map((item, index) => ({ ...item, index })).filter((i) => i.send);
    // As the example, and without its text: the PDF to send is the template's stored one.
    const { text: _text, ...withoutText } = templateExample;
    for (const template of [templateExample, withoutText]) {
      const created = await callApi(h, 'POST', '/v1/templates', {
        key: ws.writeKey,
        body: { ...template, file: await contractPdf(2) },
      });
      assert.equal(created.status, 201, created.text);
      const { id } = created.body.data as { id: string };
      const used = await callApi(h, 'POST', `/v1/templates/${id}/documents`, {
        key: ws.writeKey,
        body: useExample,
      });
      assert.equal(used.status, 200, used.text);
      const made = used.body.data as Made;
      const madeSent = made.documents.filter((d) => sentItems.some((i) => i.index === d.index));
      // Every item asking to be sent is sent, but the one the example shows refused (its email).
      assert.deepEqual(
        made.refused.map((r) => r.error),
        ['invalid-body'],
        used.text,
      );
      assert.equal(madeSent.length, sentItems.length - made.refused.length, used.text);
      assert.ok(madeSent.length > 0);
      for (const { document } of madeSent) {
        assert.equal(document.status, 'sent');
        const first = document.recipients[0]?.email as string;
        assert.equal(await countRows(h.ctx, 'mails', { document_id: document.id, to_address: first }), 1);
        assert.equal(
          await countRows(h.ctx, 'document_events', { document_id: document.id, type: 'document.sent' }),
          1,
        );
      }
    }
  });
});
