// A document's life through /v1's writes (issue 37): sending and deleting drafts (a sent
// document is not a draft), remind and withdraw with the web app's rules and each refusal's
// code, `delivery: none` (nobody mailed, the links in the answer, fresh ones replacing them),
// and a withdrawal told from a lapse in the detail, the list and document.expired. The
// suites' shared setup: api-writes-setup.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expireDueDocuments } from '../../src/sending/ending.ts';
import { findSigningSession } from '../../src/signing/session.ts';
import { signDocument } from '../../src/signing/signing.service.ts';
import { callApi, countRows, describeEachDatabase, storedEventBody } from '../support/harness.ts';
import { ann, bob, useWriteApi } from './api-writes-setup.ts';

describeEachDatabase('document writes through /v1: send, delete, remind, withdraw', (kind) => {
  const { h, workspace, newDocument } = useWriteApi(kind);

  test('sends and deletes drafts; a sent document is not a draft; another workspace’s ids are not-found', async () => {
    const ws = await workspace();
    const other = await workspace();
    const created = await newDocument(ws.writeKey, {
      title: 'Terms',
      text: 'We agree.',
      recipients: [ann, bob],
    });
    const id = (created.body.data as { id: string }).id;
    for (const [method, path] of [
      ['POST', `/v1/documents/${id}/send`],
      ['DELETE', `/v1/documents/${id}`],
    ] as const) {
      const res = await callApi(h, method, path, { key: other.writeKey });
      assert.deepEqual([res.status, res.body], [404, { ok: false, error: 'not-found' }], path);
    }
    const sent = await callApi(h, 'POST', `/v1/documents/${id}/send`, { key: ws.writeKey });
    assert.equal(sent.status, 200, sent.text);
    assert.equal((sent.body.data as { status: string }).status, 'sent');
    // Made from its text at sending: the original is there now.
    assert.equal((sent.body.data as { files: unknown[] }).files.length, 1);
    const again = await callApi(h, 'POST', `/v1/documents/${id}/send`, { key: ws.writeKey });
    assert.deepEqual([again.status, again.body], [409, { ok: false, error: 'document-not-draft' }]);
    const deleteSent = await callApi(h, 'DELETE', `/v1/documents/${id}`, { key: ws.writeKey });
    assert.deepEqual([deleteSent.status, deleteSent.body], [409, { ok: false, error: 'document-not-draft' }]);

    const draft = await newDocument(ws.writeKey, { title: 'Scrap', recipients: [ann] });
    const draftId = (draft.body.data as { id: string }).id;
    const noSigner = await newDocument(ws.writeKey, { title: 'Nothing', recipients: [ann] });
    const nothing = await callApi(
      h,
      'POST',
      `/v1/documents/${(noSigner.body.data as { id: string }).id}/send`,
      {
        key: ws.writeKey,
      },
    );
    assert.deepEqual([nothing.status, nothing.body], [409, { ok: false, error: 'document-not-sendable' }]);
    const deleted = await callApi(h, 'DELETE', `/v1/documents/${draftId}`, { key: ws.writeKey });
    assert.deepEqual(
      [deleted.status, deleted.body],
      [200, { ok: true, data: { id: draftId, deleted: true } }],
    );
    assert.equal((await callApi(h, 'GET', `/v1/documents/${draftId}`, { key: ws.readKey })).status, 404);
  });

  test('remind and withdraw: the web app’s rules, each refusal with its code', async () => {
    const ws = await workspace();
    const created = await newDocument(ws.writeKey, {
      title: 'Terms',
      text: 'We agree.',
      recipients: [ann, bob],
      send: true,
    });
    const doc = created.body.data as { id: string; recipients: Array<{ id: string; email: string }> };
    const [first, second] = doc.recipients;
    const remind = (id: string) =>
      callApi(h, 'POST', `/v1/documents/${doc.id}/recipients/${id}/remind`, { key: ws.writeKey });
    const reminded = await remind(first?.id as string);
    assert.equal(reminded.status, 200, reminded.text);
    assert.equal(await countRows(h.ctx, 'mails', { document_id: doc.id, to_address: ann.email }), 2);
    const again = await remind(first?.id as string);
    assert.deepEqual([again.status, again.body], [429, { ok: false, error: 'reminded-recently' }]);
    assert.equal(again.headers.get('retry-after'), '3600');
    h.clock.advance(20 * 60_000);
    assert.equal((await remind(first?.id as string)).headers.get('retry-after'), '2400');
    const notYet = await remind(second?.id as string);
    assert.deepEqual([notYet.status, notYet.body], [409, { ok: false, error: 'recipient-not-remindable' }]);
    const stranger = await remind('0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a');
    assert.deepEqual([stranger.status, stranger.body], [404, { ok: false, error: 'not-found' }]);
    const readOnly = await callApi(h, 'POST', `/v1/documents/${doc.id}/withdraw`, { key: ws.readKey });
    assert.deepEqual([readOnly.status, readOnly.body], [403, { ok: false, error: 'insufficient-scope' }]);

    const withdrawn = await callApi(h, 'POST', `/v1/documents/${doc.id}/withdraw`, {
      key: ws.writeKey,
      body: { reason: 'The client chose another supplier.' },
    });
    assert.equal(withdrawn.status, 200, withdrawn.text);
    assert.equal((withdrawn.body.data as { status: string }).status, 'expired');
    // Webhooks fire for API-made changes as for the web app's: the same stored event bodies.
    for (const type of ['document.sent', 'document.expired']) {
      const event = await storedEventBody<{ type: string; data: { document: { id: string } } }>(
        h.ctx,
        ws.id,
        type,
      );
      assert.deepEqual([event.type, event.data.document.id], [type, doc.id]);
    }
    const history = await h.ctx.db
      .selectFrom('document_events')
      .select(['type', 'detail'])
      .where('document_id', '=', doc.id)
      .where('type', '=', 'document.withdrawn')
      .execute();
    assert.deepEqual(history, [
      { type: 'document.withdrawn', detail: 'by API key “writer”: The client chose another supplier.' },
    ]);
    // Only the one mailed so far is told.
    assert.equal(await countRows(h.ctx, 'mails', { document_id: doc.id, to_address: bob.email }), 0);
    for (const res of [
      await callApi(h, 'POST', `/v1/documents/${doc.id}/withdraw`, { key: ws.writeKey }),
      await remind(first?.id as string),
    ])
      assert.deepEqual([res.status, res.body], [409, { ok: false, error: 'document-not-active' }]);
    const draft = await newDocument(ws.writeKey, { title: 'Draft', recipients: [ann] });
    const notSent = await callApi(
      h,
      'POST',
      `/v1/documents/${(draft.body.data as { id: string }).id}/withdraw`,
      {
        key: ws.writeKey,
        body: {},
      },
    );
    assert.deepEqual([notSent.status, notSent.body], [409, { ok: false, error: 'document-not-active' }]);
  });

  test('delivery none: nobody is mailed, the send answers the links, they sign, and fresh ones replace them', async () => {
    const ws = await workspace();
    const refused = await newDocument(ws.writeKey, {
      title: 'Own channel',
      text: 'Terms.',
      recipients: [ann, bob],
      delivery: 'none',
      remindEveryDays: 3,
    });
    assert.deepEqual(refused.body, { ok: false, error: 'invalid-body', pointer: '/remindEveryDays' });
    const key = { 'idempotency-key': 'portal-77' };
    const body = {
      title: 'Own channel',
      text: 'Terms.',
      recipients: [ann, bob],
      delivery: 'none',
      send: true,
    };
    const created = await newDocument(ws.writeKey, body, key);
    assert.equal(created.status, 201, created.text);
    const doc = created.body.data as {
      id: string;
      recipients: Array<{ id: string; email: string }>;
      signingUrls: Array<{ recipientId: string; email: string; url: string }>;
    };
    assert.deepEqual(
      doc.signingUrls.map((l) => [l.recipientId, l.email]),
      [[doc.recipients[0]?.id, ann.email]],
    );
    const link = doc.signingUrls[0]?.url as string;
    assert.match(link, new RegExp(`^https://sign\\.example\\.test/sign/${doc.id}/[\\w-]{43}$`));
    assert.equal(await countRows(h.ctx, 'mails', { document_id: doc.id }), 0);
    // A repeat answers the same link; nothing new is made or mailed.
    const repeat = await newDocument(ws.writeKey, body, key);
    assert.deepEqual((repeat.body.data as typeof doc).signingUrls, doc.signingUrls);
    // The link opens the signing page, as a mailed one would.
    const page = await fetch(`${h.baseUrl}${new URL(link).pathname}`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Own channel/);
    // Reminders are the integrator's to send.
    const remind = await callApi(
      h,
      'POST',
      `/v1/documents/${doc.id}/recipients/${doc.recipients[0]?.id}/remind`,
      {
        key: ws.writeKey,
      },
    );
    assert.deepEqual([remind.status, remind.body], [409, { ok: false, error: 'recipient-not-remindable' }]);
    // A later signer has no link before their turn.
    const fresh = (id: string) =>
      callApi(h, 'POST', `/v1/documents/${doc.id}/recipients/${id}/signing-url`, { key: ws.writeKey });
    const early = await fresh(doc.recipients[1]?.id as string);
    assert.deepEqual([early.status, early.body], [409, { ok: false, error: 'recipient-not-invited' }]);
    const renewed = await fresh(doc.recipients[0]?.id as string);
    assert.equal(renewed.status, 200, renewed.text);
    const newLink = (renewed.body.data as { url: string }).url;
    assert.notEqual(newLink, link);
    assert.equal(
      (await fetch(`${h.baseUrl}${new URL(link).pathname}`)).status,
      404,
      'the old link stops working',
    );
    const session = await findSigningSession(h.ctx, doc.id, newLink.split('/').pop() as string);
    assert.ok(session, 'the new link is a session');
    await signDocument(h.ctx, session, { fullName: ann.fullName, consent: true });
    // Bob's turn: his link is the integrator's to ask for; still nothing mailed to anyone.
    const bobs = await fresh(doc.recipients[1]?.id as string);
    assert.equal(bobs.status, 200, bobs.text);
    const bobSession = await findSigningSession(
      h.ctx,
      doc.id,
      (bobs.body.data as { url: string }).url.split('/').pop() as string,
    );
    assert.ok(bobSession);
    await signDocument(h.ctx, bobSession, { fullName: bob.fullName, consent: true });
    assert.equal(await countRows(h.ctx, 'mails', { document_id: doc.id }), 0);
    const finished = await fresh(doc.recipients[1]?.id as string);
    assert.deepEqual([finished.status, finished.body], [409, { ok: false, error: 'document-not-active' }]);

    const mailed = await newDocument(ws.writeKey, {
      title: 'Mailed',
      text: 'Terms.',
      recipients: [ann],
      send: true,
    });
    const mailedDoc = mailed.body.data as typeof doc;
    assert.deepEqual(mailedDoc.signingUrls, []);
    const byMail = await callApi(
      h,
      'POST',
      `/v1/documents/${mailedDoc.id}/recipients/${mailedDoc.recipients[0]?.id}/signing-url`,
      {
        key: ws.writeKey,
      },
    );
    assert.deepEqual([byMail.status, byMail.body], [409, { ok: false, error: 'document-delivered-by-mail' }]);
  });

  test('a withdrawal is told from a lapse: withdrawnAt and expiredReason in the detail, the list and document.expired', async () => {
    const ws = await workspace();
    const make = async (title: string) =>
      (
        (
          await newDocument(ws.writeKey, {
            title,
            text: 'Terms.',
            recipients: [ann],
            send: true,
            expiresInSeconds: 3600,
          })
        ).body.data as { id: string }
      ).id;
    const withdrawnId = await make('Withdrawn');
    const lapsedId = await make('Lapsed');
    const openId = await make('Open');
    await callApi(h, 'POST', `/v1/documents/${withdrawnId}/withdraw`, { key: ws.writeKey });
    const withdrawnAt = h.clock.now().toISOString();
    h.clock.advance(2 * 3600_000);
    await expireDueDocuments(h.ctx);
    const detail = async (id: string) =>
      (await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.readKey })).body.data as Record<
        string,
        unknown
      >;
    const pick = (d: Record<string, unknown>) => [d.status, d.withdrawnAt, d.expiredReason];
    assert.deepEqual(pick(await detail(withdrawnId)), ['expired', withdrawnAt, 'withdrawn']);
    assert.deepEqual(pick(await detail(lapsedId)), ['expired', null, 'lapsed']);
    const list = await callApi(h, 'GET', '/v1/documents', { key: ws.readKey });
    const listed = new Map((list.body.data as Array<Record<string, unknown>>).map((d) => [d.id, pick(d)]));
    assert.deepEqual(listed.get(withdrawnId), ['expired', withdrawnAt, 'withdrawn']);
    assert.deepEqual(listed.get(lapsedId), ['expired', null, 'lapsed']);
    assert.deepEqual(listed.get(openId), ['expired', null, 'lapsed']);
    const bodies = await h.ctx.db
      .selectFrom('webhook_events')
      .select('payload')
      .where('workspace_id', '=', ws.id)
      .where('type', '=', 'document.expired')
      .execute();
    const byId = new Map(
      bodies.map(({ payload }) => {
        const body = (typeof payload === 'string' ? JSON.parse(payload) : payload) as {
          data: { document: Record<string, unknown> };
        };
        return [body.data.document.id, pick(body.data.document)];
      }),
    );
    assert.deepEqual(byId.get(withdrawnId), ['expired', withdrawnAt, 'withdrawn']);
    assert.deepEqual(byId.get(lapsedId), ['expired', null, 'lapsed']);
    assert.deepEqual(pick(await detail(openId)), ['expired', null, 'lapsed']);
    const draft = await newDocument(ws.writeKey, { title: 'Draft', recipients: [ann] });
    assert.deepEqual(pick(draft.body.data as Record<string, unknown>), ['draft', null, null]);
  });
});
