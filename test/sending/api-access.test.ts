// Who may use /v1's document writes (issue 37): a read key is refused every write with
// insufficient-scope before its body is read, and another workspace's document or recipient is
// not-found for every write, byte for byte as a missing one. The suites' shared setup:
// api-writes-setup.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callApi, countRows, describeEachDatabase } from '../support/harness.ts';
import { ann, bob, useWriteApi } from './api-writes-setup.ts';

describeEachDatabase('document writes through /v1: who may write', (kind) => {
  const { h, workspace, newDocument } = useWriteApi(kind);

  test('a read key is refused every write with insufficient-scope, before its body is read', async () => {
    const ws = await workspace();
    const draft = await newDocument(ws.writeKey, { title: 'Draft', recipients: [ann] });
    assert.equal(draft.status, 201);
    const id = (draft.body.data as { id: string }).id;
    const recipientId = (draft.body.data as { recipients: Array<{ id: string }> }).recipients[0]?.id;
    const writes: Array<[string, 'POST' | 'PUT' | 'DELETE', string, object | string | undefined]> = [
      ['create', 'POST', '/v1/documents', { title: 'X', recipients: [ann] }],
      ['create, a malformed body', 'POST', '/v1/documents', '{"title": '],
      ['send', 'POST', `/v1/documents/${id}/send`, undefined],
      ['remind', 'POST', `/v1/documents/${id}/recipients/${recipientId}/remind`, undefined],
      ['withdraw', 'POST', `/v1/documents/${id}/withdraw`, { reason: 'x' }],
      [
        'a fresh signing link',
        'POST',
        `/v1/documents/${id}/recipients/${recipientId}/signing-url`,
        undefined,
      ],
      ['replace', 'PUT', `/v1/documents/${id}`, { title: 'X', recipients: [ann] }],
      ['delete', 'DELETE', `/v1/documents/${id}`, undefined],
    ];
    for (const [name, method, path, body] of writes) {
      const res = await callApi(h, method, path, {
        key: ws.readKey,
        ...(body === undefined ? {} : { body }),
      });
      assert.equal(res.status, 403, name);
      assert.deepEqual(res.body, { ok: false, error: 'insufficient-scope' }, name);
      assert.ok(res.headers.get('x-ratelimit-remaining'), name);
    }
    // Reading stays the read key's.
    assert.equal((await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.readKey })).status, 200);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: ws.id }), 1);
  });

  test('another workspace’s document or recipient is not-found for every write, byte for byte as a missing one', async () => {
    const ws = await workspace();
    const other = await workspace();
    const created = await newDocument(ws.writeKey, {
      title: 'Ours',
      text: 'Terms.',
      recipients: [ann, bob],
      send: true,
      delivery: 'none',
    });
    const doc = created.body.data as { id: string; recipients: Array<{ id: string }> };
    const recipientId = doc.recipients[0]?.id as string;
    const missing = '0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a';
    const writes = (
      id: string,
      rid: string,
    ): Array<['POST' | 'PUT' | 'DELETE', string, object | undefined]> => [
      ['PUT', `/v1/documents/${id}`, { title: 'Theirs', recipients: [ann] }],
      ['POST', `/v1/documents/${id}/send`, undefined],
      ['DELETE', `/v1/documents/${id}`, undefined],
      ['POST', `/v1/documents/${id}/withdraw`, {}],
      ['POST', `/v1/documents/${id}/recipients/${rid}/remind`, undefined],
      ['POST', `/v1/documents/${id}/recipients/${rid}/signing-url`, undefined],
    ];
    const foreign = writes(doc.id, recipientId);
    const absent = writes(missing, missing);
    for (const [index, [method, path, body]] of foreign.entries()) {
      const theirs = await callApi(h, method, path, { key: other.writeKey, ...(body ? { body } : {}) });
      const [, missingPath, missingBody] = absent[index] as (typeof absent)[number];
      const none = await callApi(h, method, missingPath, {
        key: other.writeKey,
        ...(missingBody ? { body: missingBody } : {}),
      });
      assert.deepEqual([theirs.status, theirs.text], [404, '{"ok":false,"error":"not-found"}'], path);
      assert.equal(theirs.text, none.text, path);
    }
    // Our own document with another document's recipient is not-found too.
    const mine = await newDocument(other.writeKey, {
      title: 'Mine',
      text: 'Terms.',
      recipients: [ann],
      send: true,
      delivery: 'none',
    });
    const mineId = (mine.body.data as { id: string }).id;
    for (const action of ['remind', 'signing-url']) {
      const res = await callApi(h, 'POST', `/v1/documents/${mineId}/recipients/${recipientId}/${action}`, {
        key: other.writeKey,
      });
      assert.deepEqual([res.status, res.body], [404, { ok: false, error: 'not-found' }], action);
    }
    const still = (await callApi(h, 'GET', `/v1/documents/${doc.id}`, { key: ws.readKey })).body.data as {
      status: string;
      title: string;
    };
    assert.deepEqual([still.status, still.title], ['sent', 'Ours']);
  });
});
