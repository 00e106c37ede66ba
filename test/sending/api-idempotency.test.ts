// Idempotency-Key on /v1's document writes (issue 37): a repeat answers the same document,
// another body is refused, concurrent repeats make one; the key is bound to the whole request;
// remind and withdraw answered once and acted on once; keys past their 24 hours dropped as
// the next is claimed. The suites' shared setup: api-writes-setup.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ApiResponse, callApi, countRows, describeEachDatabase } from '../support/harness.ts';
import { ann, useWriteApi } from './api-writes-setup.ts';

describeEachDatabase('document writes through /v1: Idempotency-Key', (kind) => {
  const { h, workspace, newDocument } = useWriteApi(kind);

  test('Idempotency-Key: a repeat answers the same document, another body is refused, concurrent repeats make one', async () => {
    const ws = await workspace();
    const body = { title: 'Once', text: 'Only once.', recipients: [ann], send: true };
    const key = { 'idempotency-key': 'order-1042' };
    const first = await newDocument(ws.writeKey, body, key);
    const second = await newDocument(ws.writeKey, body, key);
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const id = (first.body.data as { id: string }).id;
    assert.equal((second.body.data as { id: string }).id, id);
    assert.equal((second.body.data as { status: string }).status, 'sent');
    const other = await newDocument(ws.writeKey, { ...body, title: 'Twice' }, key);
    assert.deepEqual([other.status, other.body], [409, { ok: false, error: 'idempotency-key-reused' }]);
    const elsewhere = await callApi(h, 'POST', `/v1/documents/${id}/send`, {
      key: ws.writeKey,
      headers: key,
    });
    assert.deepEqual(
      [elsewhere.status, elsewhere.body],
      [409, { ok: false, error: 'idempotency-key-reused' }],
    );

    const together = { 'idempotency-key': 'order-1043' };
    const answers: ApiResponse[] = await Promise.all(
      Array.from({ length: 4 }, () => newDocument(ws.writeKey, { ...body, title: 'Together' }, together)),
    );
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([201]));
    assert.equal(new Set(answers.map((a) => (a.body.data as { id: string }).id)).size, 1);
    assert.equal(answers.filter((a) => a.headers.get('idempotent-replayed') === null).length, 1);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: ws.id }), 2);

    const draft = await newDocument(ws.writeKey, { title: 'Later', text: 'Later.', recipients: [ann] });
    const draftId = (draft.body.data as { id: string }).id;
    const sendKey = { 'idempotency-key': 'send-7' };
    const sent = await callApi(h, 'POST', `/v1/documents/${draftId}/send`, {
      key: ws.writeKey,
      headers: sendKey,
    });
    const resent = await callApi(h, 'POST', `/v1/documents/${draftId}/send`, {
      key: ws.writeKey,
      headers: sendKey,
    });
    assert.deepEqual([sent.status, resent.status], [200, 200]);
    assert.equal(resent.headers.get('idempotent-replayed'), 'true');
    assert.equal(
      await countRows(h.ctx, 'document_events', { document_id: draftId, type: 'document.sent' }),
      1,
    );
  });

  test('Idempotency-Key: keys past their 24 hours are dropped when the next one is claimed, so the table does not grow', async () => {
    const ws = await workspace();
    const body = { title: 'Kept a day', text: 'Terms.', recipients: [ann] };
    await newDocument(ws.writeKey, body, { 'idempotency-key': 'day-1' });
    h.clock.advance(25 * 60 * 60 * 1000);
    await newDocument(ws.writeKey, { ...body, title: 'Next day' }, { 'idempotency-key': 'day-2' });
    const keys = await h.ctx.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('workspace_id', '=', ws.id)
      .execute();
    assert.deepEqual(
      keys.map((k) => k.key),
      ['day-2'],
    );
  });

  test('Idempotency-Key is bound to the whole request: a repeat that only adds `send: true` is 409 and sends nothing', async () => {
    const ws = await workspace();
    const body = { title: 'Draft first', text: 'Terms.', recipients: [ann] };
    const key = { 'idempotency-key': 'create-then-send' };
    const draft = await newDocument(ws.writeKey, body, key);
    assert.equal(draft.status, 201);
    const id = (draft.body.data as { id: string }).id;
    const withSend = await newDocument(ws.writeKey, { ...body, send: true }, key);
    assert.deepEqual([withSend.status, withSend.body], [409, { ok: false, error: 'idempotency-key-reused' }]);
    const detail = await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.readKey });
    assert.equal((detail.body.data as { status: string }).status, 'draft');
    assert.equal(await countRows(h.ctx, 'mails', { document_id: id }), 0);
    // `send: false` written out is the same request as leaving it out.
    const same = await newDocument(ws.writeKey, { ...body, send: false }, key);
    assert.deepEqual([same.status, same.headers.get('idempotent-replayed')], [201, 'true']);
    // A replacement's `send` too.
    const putKey = { 'idempotency-key': 'replace-1' };
    const replaced = await callApi(h, 'PUT', `/v1/documents/${id}`, {
      key: ws.writeKey,
      headers: putKey,
      body,
    });
    assert.equal(replaced.status, 200, replaced.text);
  });

  test('Idempotency-Key on remind and withdraw: a repeat answers the first answer and acts once; another body is 409', async () => {
    const ws = await workspace();
    const created = await newDocument(ws.writeKey, {
      title: 'Terms',
      text: 'We agree.',
      recipients: [ann],
      send: true,
    });
    const doc = created.body.data as { id: string; recipients: Array<{ id: string }> };
    const remindPath = `/v1/documents/${doc.id}/recipients/${doc.recipients[0]?.id}/remind`;
    const remindKey = { 'idempotency-key': 'remind-ann-1' };
    const reminded = await callApi(h, 'POST', remindPath, { key: ws.writeKey, headers: remindKey });
    assert.equal(reminded.status, 200, reminded.text);
    assert.equal(reminded.headers.get('idempotent-replayed'), null);
    const again = await callApi(h, 'POST', remindPath, { key: ws.writeKey, headers: remindKey });
    assert.deepEqual([again.status, again.headers.get('idempotent-replayed')], [200, 'true']);
    assert.equal((again.body.data as { id: string }).id, doc.id);
    // One invitation and one reminder, not two.
    assert.equal(await countRows(h.ctx, 'mails', { document_id: doc.id, to_address: ann.email }), 2);
    assert.equal(
      await countRows(h.ctx, 'document_events', { document_id: doc.id, type: 'reminder.sent' }),
      1,
    );
    // The key is the remind's: on the withdrawal it is another request.
    const reused = await callApi(h, 'POST', `/v1/documents/${doc.id}/withdraw`, {
      key: ws.writeKey,
      headers: remindKey,
    });
    assert.deepEqual([reused.status, reused.body], [409, { ok: false, error: 'idempotency-key-reused' }]);

    const withdrawKey = { 'idempotency-key': 'withdraw-1' };
    const reason = { reason: 'The client chose another supplier.' };
    const withdrawn = await callApi(h, 'POST', `/v1/documents/${doc.id}/withdraw`, {
      key: ws.writeKey,
      headers: withdrawKey,
      body: reason,
    });
    assert.equal(withdrawn.status, 200, withdrawn.text);
    const repeat = await callApi(h, 'POST', `/v1/documents/${doc.id}/withdraw`, {
      key: ws.writeKey,
      headers: withdrawKey,
      body: reason,
    });
    assert.deepEqual([repeat.status, repeat.headers.get('idempotent-replayed')], [200, 'true']);
    assert.equal((repeat.body.data as { status: string }).status, 'expired');
    assert.equal(
      await countRows(h.ctx, 'document_events', { document_id: doc.id, type: 'document.expired' }),
      1,
    );
    const otherReason = await callApi(h, 'POST', `/v1/documents/${doc.id}/withdraw`, {
      key: ws.writeKey,
      headers: withdrawKey,
      body: { reason: 'Another reason.' },
    });
    assert.deepEqual(
      [otherReason.status, otherReason.body],
      [409, { ok: false, error: 'idempotency-key-reused' }],
    );
    // Without a key, a second withdrawal is still refused.
    const plain = await callApi(h, 'POST', `/v1/documents/${doc.id}/withdraw`, { key: ws.writeKey });
    assert.deepEqual([plain.status, plain.body], [409, { ok: false, error: 'document-not-active' }]);
  });
});
