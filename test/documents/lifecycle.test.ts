// The document lifecycle through its domain functions: every transition, every refused
// one, signing order, parallel last signers, expiry, the one-time code, and atomicity
// (a failed transaction leaves neither the change nor its event).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DocumentStatus } from '../../src/db/schema.ts';
import {
  type DocumentAction,
  DocumentActionError,
  nextStatus,
  type Refusal,
} from '../../src/documents/lifecycle.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import type { CreateDocumentInput } from '../../src/sending/draft-input.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { expireDueDocuments } from '../../src/sending/ending.ts';
import { sendDocument } from '../../src/sending/send.ts';
import {
  codeResendIntervalMs,
  codeValidityMs,
  maxCodeAttempts,
  requestSigningCode,
} from '../../src/signing/codes.ts';
import { declineDocument, openDocument, signDocument } from '../../src/signing/signing.service.ts';
import {
  callApi,
  countRows,
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  type Harness,
  issueLinkOutOfTurn,
  latestCodeFor,
  linkFor,
  parallelSigners,
  recipient,
  recipientRow,
  type TestWorkspace,
  useHarness,
} from '../support/harness.ts';

interface Detail {
  status: DocumentStatus;
  sentAt: string | null;
  signedAt: string | null;
  expiresAt: string | null;
  recipients: Array<{ email: string; signedAt: string | null }>;
  events: Array<{ id: string; type: string; recipientEmail: string | null; createdAt: string }>;
}

async function detail(h: Harness, ws: TestWorkspace, id: string): Promise<Detail> {
  const res = await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.apiKey });
  assert.equal(res.status, 200);
  return res.body.data as Detail;
}

const eventTypes = (d: Detail) =>
  d.events.map((e) => `${e.type}${e.recipientEmail ? ` ${e.recipientEmail}` : ''}`);

async function refused(promise: Promise<unknown>, refusal: Refusal) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof DocumentActionError, `expected a refusal, got ${error}`);
    assert.equal(error.refusal, refusal);
    return true;
  });
}

const statuses: DocumentStatus[] = ['draft', 'sent', 'viewed', 'signed', 'declined', 'expired'];
const actions: DocumentAction[] = ['send', 'open', 'sign', 'complete', 'decline', 'expire'];
const allowed: Record<string, DocumentStatus> = {
  'draft send': 'sent',
  'sent open': 'viewed',
  'sent sign': 'viewed',
  'sent complete': 'signed',
  'sent decline': 'declined',
  'sent expire': 'expired',
  'viewed open': 'viewed',
  'viewed sign': 'viewed',
  'viewed complete': 'signed',
  'viewed decline': 'declined',
  'viewed expire': 'expired',
};
for (const status of statuses) {
  for (const action of actions) {
    const expected = allowed[`${status} ${action}`];
    test(`state machine: ${action} on ${status} ${expected ? `-> ${expected}` : 'is refused'}`, () => {
      if (expected) assert.equal(nextStatus(status, action), expected);
      else assert.throws(() => nextStatus(status, action), { refusal: 'not-allowed' });
    });
  }
}

describeEachDatabase('document lifecycle', (kind) => {
  const h = useHarness(kind);

  /** A draft with one signer, A A, and no pricing, unless `more` says otherwise. */
  const createDraft = (workspaceId: string, title: string, more: Partial<CreateDocumentInput> = {}) =>
    createDocument(h.ctx, {
      workspaceId,
      title,
      recipients: [recipient('a@x.example', 'A A')],
      pricing: null,
      body: 'The parties agree.',
      ...more,
    });

  /**
   * A new workspace's document sent to Ann and then Bob (the two signers), and Ann's link:
   * Bob's is mailed once Ann has signed (`linkFor`).
   */
  async function sentToAnnThenBob() {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id);
    const ann = links.get('ann@client.example');
    assert.ok(ann);
    assert.ok(!links.has('bob@client.example'), 'Bob is mailed at his turn, not at send');
    return { ws, id, ann };
  }

  test('a new document is a draft with no sentAt, no expiry and no events', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createDraft(ws.id, 'Draft');
    const d = await detail(h, ws, id);
    assert.equal(d.status, 'draft');
    assert.equal(d.sentAt, null);
    assert.equal(d.expiresAt, null);
    assert.deepEqual(d.events, []);
  });

  test('send: draft -> sent, sentAt now, expiresAt 30 days later, document.sent, an outbox row and one mail per recipient', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const now = h.clock.now();
    const { id, links } = await createSentDocument(h.ctx, ws.id, {
      recipients: [recipient('a@x.example', 'A A'), recipient('v@x.example', 'V V', { role: 'viewer' })],
    });
    const d = await detail(h, ws, id);
    assert.equal(d.status, 'sent');
    assert.equal(d.sentAt, now.toISOString());
    assert.equal(d.expiresAt, new Date(now.getTime() + 30 * 24 * 3600_000).toISOString());
    assert.deepEqual(eventTypes(d), ['document.sent']);
    assert.deepEqual([...links.keys()].sort(), ['a@x.example', 'v@x.example']);
    const outbox = await h.ctx.db
      .selectFrom('outbox')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .execute();
    assert.equal(outbox.length, 1);
    assert.equal(outbox[0]?.event_id, d.events[0]?.id);
    // The webhook body is stored once, beside the outbox row, in the same transaction.
    const body = await h.ctx.db
      .selectFrom('webhook_events')
      .selectAll()
      .where('id', '=', outbox[0]?.event_id ?? '')
      .executeTakeFirstOrThrow();
    assert.equal(body.type, 'document.sent');
    const payload = body.payload as {
      id: string;
      type: string;
      data: { document: { status: string }; recipient: null };
    };
    assert.equal(payload.id, d.events[0]?.id);
    assert.equal(payload.type, 'document.sent');
    assert.equal(payload.data.document.status, 'sent');
    assert.equal(payload.data.recipient, null);
  });

  test('open: the first open per recipient records document.opened and moves sent to viewed', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, { recipients: parallelSigners });
    const [ann, bob] = [links.get('ann@client.example'), links.get('bob@client.example')];
    assert.ok(ann && bob);
    await openDocument(h.ctx, ann.session);
    await openDocument(h.ctx, ann.session);
    let d = await detail(h, ws, id);
    assert.equal(d.status, 'viewed');
    assert.deepEqual(eventTypes(d), ['document.sent', 'document.opened ann@client.example']);
    await openDocument(h.ctx, bob.session);
    d = await detail(h, ws, id);
    assert.equal(d.status, 'viewed');
    assert.deepEqual(eventTypes(d).slice(1), [
      'document.opened ann@client.example',
      'document.opened bob@client.example',
    ]);
  });

  test('sign: a signer signs, the last signer completes the document', async () => {
    const { ws, id, ann } = await sentToAnnThenBob();
    const first = await signDocument(h.ctx, ann.session, { fullName: ' ann  LEE ', consent: true });
    assert.equal(first.completed, false);
    let d = await detail(h, ws, id);
    assert.equal(d.status, 'viewed');
    assert.equal(d.signedAt, null);
    assert.equal(d.recipients[0]?.signedAt, h.clock.now().toISOString());
    h.clock.advance(60_000);
    const bob = await linkFor(h.ctx, id, 'bob@client.example');
    const second = await signDocument(h.ctx, bob.session, { fullName: 'Bob Ray', consent: true });
    assert.equal(second.completed, true);
    d = await detail(h, ws, id);
    assert.equal(d.status, 'signed');
    assert.equal(d.signedAt, h.clock.now().toISOString());
    assert.equal(d.events.at(-1)?.id, second.eventId, 'the last signature is the last event until sealed');
    // The worker seals it, and records document.completed with the sealed PDF.
    const signedAt = d.signedAt;
    h.clock.advance(2_000);
    await sealDueDocuments(h.ctx);
    d = await detail(h, ws, id);
    assert.equal(d.signedAt, signedAt, 'signedAt stays the time of the last signature');
    assert.deepEqual(eventTypes(d), [
      'document.sent',
      'document.opened ann@client.example',
      'document.signed ann@client.example',
      'document.opened bob@client.example',
      'document.signed bob@client.example',
      'document.completed',
    ]);
    assert.equal(d.events.at(-1)?.createdAt, h.clock.now().toISOString());
    const signature = await h.ctx.db
      .selectFrom('recipients')
      .select('signature_name')
      .where('document_id', '=', id)
      .execute();
    assert.deepEqual(signature.map((r) => r.signature_name).sort(), ['Bob Ray', 'ann  LEE']);
  });

  test('viewers never sign: one signer is enough to complete', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, {
      recipients: [
        recipient('v@x.example', 'V V', { role: 'viewer' }),
        recipient('s@x.example', 'S S', { signingOrder: 2 }),
      ],
    });
    const viewer = links.get('v@x.example');
    const signer = links.get('s@x.example');
    assert.ok(viewer && signer);
    await refused(signDocument(h.ctx, viewer.session, { fullName: 'V V', consent: true }), 'not-a-signer');
    await refused(declineDocument(h.ctx, viewer.session, {}), 'not-a-signer');
    await signDocument(h.ctx, signer.session, { fullName: 'S S', consent: true });
    assert.equal((await detail(h, ws, id)).status, 'signed');
  });

  test('decline: any signer declines for everyone, with an optional reason', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, { recipients: parallelSigners });
    const bob = links.get('bob@client.example');
    assert.ok(bob);
    await declineDocument(h.ctx, bob.session, { reason: '  Wrong price  ' });
    const d = await detail(h, ws, id);
    assert.equal(d.status, 'declined');
    assert.deepEqual(eventTypes(d).slice(-1), ['document.declined bob@client.example']);
    const row = await recipientRow(h.ctx, id, 'bob@client.example');
    assert.equal(row.decline_reason, 'Wrong price');
  });

  test('refused transitions change nothing and record nothing', async () => {
    const { ws, id, ann } = await sentToAnnThenBob();
    await refused(sendDocument(h.ctx, ws.id, id), 'not-allowed');
    await refused(
      signDocument(h.ctx, ann.session, { fullName: 'Ann Lee', consent: false }),
      'consent-required',
    );
    await refused(signDocument(h.ctx, ann.session, { fullName: 'Anne Lee', consent: true }), 'name-mismatch');
    await refused(signDocument(h.ctx, ann.session, { fullName: '', consent: true }), 'name-mismatch');
    const before = await detail(h, ws, id);
    assert.equal(before.status, 'sent');
    assert.deepEqual(eventTypes(before), ['document.sent']);
    assert.equal(
      await countRows(h.ctx, 'mails', { document_id: id }),
      1,
      'Ann’s invitation only: the refusals mailed nobody',
    );

    await signDocument(h.ctx, ann.session, { fullName: 'Ann Lee', consent: true });
    await refused(signDocument(h.ctx, ann.session, { fullName: 'Ann Lee', consent: true }), 'already-signed');
    await refused(declineDocument(h.ctx, ann.session, {}), 'already-signed');
    const bob = await linkFor(h.ctx, id, 'bob@client.example');
    await signDocument(h.ctx, bob.session, { fullName: 'Bob Ray', consent: true });
    // A finished document refuses everything.
    await refused(declineDocument(h.ctx, bob.session, {}), 'not-allowed');
    await refused(sendDocument(h.ctx, ws.id, id), 'not-allowed');
    const events = (await detail(h, ws, id)).events.length;
    await openDocument(h.ctx, bob.session);
    assert.equal(
      (await detail(h, ws, id)).events.length,
      events,
      'opening a finished document records nothing',
    );
  });

  test('a declined document refuses signing; an expired one refuses everything', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const declined = await createSentDocument(h.ctx, ws.id, { recipients: parallelSigners });
    const [ann, bob] = [declined.links.get('ann@client.example'), declined.links.get('bob@client.example')];
    assert.ok(ann && bob);
    await declineDocument(h.ctx, ann.session, {});
    await refused(signDocument(h.ctx, ann.session, { fullName: 'Ann Lee', consent: true }), 'not-allowed');
    await refused(declineDocument(h.ctx, bob.session, {}), 'not-allowed');

    const expiring = await createSentDocument(h.ctx, ws.id, { expiresInSeconds: 3600 });
    const carol = expiring.links.get('ann@client.example');
    assert.ok(carol);
    h.clock.advance(3600_000);
    // The job has not run yet: acting on an overdue document expires it on the spot.
    await refused(signDocument(h.ctx, carol.session, { fullName: 'Ann Lee', consent: true }), 'expired');
    const d = await detail(h, ws, expiring.id);
    assert.equal(d.status, 'expired');
    assert.deepEqual(eventTypes(d), ['document.sent', 'document.expired']);
    await refused(signDocument(h.ctx, carol.session, { fullName: 'Ann Lee', consent: true }), 'not-allowed');
    await refused(sendDocument(h.ctx, ws.id, expiring.id), 'not-allowed');
  });

  test('a document needs a signer to be created', async () => {
    const ws = await createTestWorkspace(h.ctx);
    await assert.rejects(
      createDraft(ws.id, 'Only viewers', { recipients: [recipient('v@x.example', 'V', { role: 'viewer' })] }),
      /at least one signer/,
    );
  });

  test('signing order: a later signer waits for their mail until every earlier signer has signed; equal orders sign in parallel in any order; a viewer is mailed with its order', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const recipients = [
      recipient('a@x.example', 'A A'),
      recipient('b@x.example', 'B B'),
      recipient('c@x.example', 'C C', { signingOrder: 3 }),
      recipient('v@x.example', 'V V', { role: 'viewer', signingOrder: 2 }),
    ] as const;
    const { id, links } = await createSentDocument(h.ctx, ws.id, { recipients: [...recipients] });
    /** Who has been mailed a link so far, and how many mails each got. */
    const mailed = async () => {
      const mails = await h.ctx.db
        .selectFrom('mails')
        .select('to_address')
        .where('document_id', '=', id)
        .execute();
      const counts = new Map<string, number>();
      for (const m of mails) counts.set(m.to_address, (counts.get(m.to_address) ?? 0) + 1);
      return Object.fromEntries([...counts].sort(([x], [y]) => x.localeCompare(y)));
    };
    assert.deepEqual([...links.keys()].sort(), ['a@x.example', 'b@x.example'], 'at send: order 1 only');
    assert.deepEqual(await mailed(), { 'a@x.example': 1, 'b@x.example': 1 });
    const session = (email: string) => {
      const link = links.get(email);
      assert.ok(link);
      return link.session;
    };
    // B signs before A: equal orders in any order. A has not signed yet: nobody more is mailed.
    await signDocument(h.ctx, session('b@x.example'), { fullName: 'B B', consent: true });
    assert.deepEqual(await mailed(), { 'a@x.example': 1, 'b@x.example': 1 }, 'A still to sign');
    assert.equal((await recipientRow(h.ctx, id, 'c@x.example')).token_hash, null, 'C has no link at all');
    await signDocument(h.ctx, session('a@x.example'), { fullName: 'A A', consent: true });
    // The viewer of order 2 comes with its group; its lower order never holds C back.
    assert.deepEqual(
      await mailed(),
      { 'a@x.example': 1, 'b@x.example': 1, 'c@x.example': 1, 'v@x.example': 1 },
      'order 1 done: the viewer of order 2 and C of order 3 are mailed, once each',
    );
    await linkFor(h.ctx, id, 'v@x.example');
    const c = await linkFor(h.ctx, id, 'c@x.example');
    const last = await signDocument(h.ctx, c.session, { fullName: 'C C', consent: true });
    assert.equal(last.completed, true);
    assert.equal((await detail(h, ws, id)).status, 'signed');
  });

  test('the last two signers signing at the same moment complete the document exactly once', async () => {
    for (let round = 0; round < 5; round++) {
      const ws = await createTestWorkspace(h.ctx);
      const { id, links } = await createSentDocument(h.ctx, ws.id, {
        recipients: [recipient('a@x.example', 'A A'), recipient('b@x.example', 'B B')],
      });
      const [a, b] = [links.get('a@x.example'), links.get('b@x.example')];
      assert.ok(a && b);
      const results = await Promise.all([
        signDocument(h.ctx, a.session, { fullName: 'A A', consent: true }),
        signDocument(h.ctx, b.session, { fullName: 'B B', consent: true }),
      ]);
      assert.equal(results.filter((r) => r.completed).length, 1);
      await sealDueDocuments(h.ctx);
      const d = await detail(h, ws, id);
      assert.equal(d.status, 'signed');
      assert.equal(d.events.filter((e) => e.type === 'document.completed').length, 1);
      assert.equal(d.events.filter((e) => e.type === 'document.signed').length, 2);
      assert.ok(d.recipients.every((r) => r.signedAt !== null));
    }
  });

  test('expiry: the job expires documents once their expiry has passed, not before', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const soon = await createSentDocument(h.ctx, ws.id, { expiresInSeconds: 120 });
    const later = await createSentDocument(h.ctx, ws.id, { expiresInSeconds: 7200 });
    const viewed = await createSentDocument(h.ctx, ws.id, { expiresInSeconds: 120 });
    const viewer = viewed.links.get('ann@client.example');
    assert.ok(viewer);
    await openDocument(h.ctx, viewer.session);
    h.clock.advance(119_999);
    assert.equal(await expireDueDocuments(h.ctx), 0);
    h.clock.advance(1);
    assert.equal(await expireDueDocuments(h.ctx), 2);
    assert.equal(await expireDueDocuments(h.ctx), 0, 'each document expires once');
    for (const id of [soon.id, viewed.id]) {
      const d = await detail(h, ws, id);
      assert.equal(d.status, 'expired');
      assert.equal(d.events.at(-1)?.type, 'document.expired');
      assert.equal(d.events.at(-1)?.createdAt, h.clock.now().toISOString());
    }
    assert.equal((await detail(h, ws, later.id)).status, 'sent');
    assert.equal(await countRows(h.ctx, 'outbox', { workspace_id: ws.id, type: 'document.expired' }), 2);
  });

  test('email-code signers need a fresh six-digit code from their mail', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, {
      recipients: [recipient('c@x.example', 'C Code', { signingMethod: 'email-code' })],
    });
    const c = links.get('c@x.example');
    assert.ok(c);
    const sign = (code?: string) =>
      signDocument(h.ctx, c.session, { fullName: 'C Code', consent: true, code });
    await refused(sign('123456'), 'code-required');
    await requestSigningCode(h.ctx, c.session);
    const code = await latestCodeFor(h.ctx, 'c@x.example');
    assert.match(code, /^\d{6}$/);
    await refused(requestSigningCode(h.ctx, c.session), 'code-too-soon');
    await refused(sign(), 'code-required');
    const wrong = code === '000000' ? '111111' : '000000';
    await refused(sign(wrong), 'code-invalid');
    const attempts = await recipientRow(h.ctx, id, 'c@x.example');
    assert.equal(attempts.code_attempts, 1, 'a wrong code counts even though the signature is refused');
    await sign(code);
    assert.equal((await detail(h, ws, id)).status, 'signed');
  });

  test('a code expires after 10 minutes, and five wrong tries void it', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { links } = await createSentDocument(h.ctx, ws.id, {
      recipients: [recipient('d@x.example', 'D Code', { signingMethod: 'email-code' })],
    });
    const d = links.get('d@x.example');
    assert.ok(d);
    const sign = (code: string) =>
      signDocument(h.ctx, d.session, { fullName: 'D Code', consent: true, code });
    await requestSigningCode(h.ctx, d.session);
    const first = await latestCodeFor(h.ctx, 'd@x.example');
    h.clock.advance(codeValidityMs);
    await refused(sign(first), 'code-expired');

    h.clock.advance(codeResendIntervalMs);
    await requestSigningCode(h.ctx, d.session);
    const second = await latestCodeFor(h.ctx, 'd@x.example');
    const wrong = second === '000000' ? '111111' : '000000';
    for (let i = 1; i < maxCodeAttempts; i++) await refused(sign(wrong), 'code-invalid');
    await refused(sign(wrong), 'code-attempts-exceeded');
    await refused(sign(second), 'code-attempts-exceeded');

    h.clock.advance(codeResendIntervalMs);
    await requestSigningCode(h.ctx, d.session);
    await sign(await latestCodeFor(h.ctx, 'd@x.example'));
  });

  test('a standard signer cannot ask for a code; a signer whose turn it is not has no link, and one issued out of turn is refused until their turn', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, {
      recipients: [
        recipient('a@x.example', 'A A'),
        recipient('b@x.example', 'B B', { signingMethod: 'email-code', signingOrder: 2 }),
      ],
    });
    const a = links.get('a@x.example');
    assert.ok(a);
    assert.ok(!links.has('b@x.example'), 'B is mailed at their turn');
    await refused(requestSigningCode(h.ctx, a.session), 'not-email-code');
    // Defence in depth: a link B holds before their turn (as a document sent before signing
    // order was honoured by mail gave every recipient) asks for a code or signs in vain.
    const b = await issueLinkOutOfTurn(h.ctx, id, 'b@x.example');
    await refused(requestSigningCode(h.ctx, b.session), 'not-your-turn');
    await refused(
      signDocument(h.ctx, b.session, { fullName: 'B B', consent: true, code: '123456' }),
      'not-your-turn',
    );
    assert.equal(
      await countRows(h.ctx, 'mails', { document_id: id, to_address: 'b@x.example' }),
      0,
      'no code was mailed',
    );
    const row = await recipientRow(h.ctx, id, 'b@x.example');
    assert.equal(row.signed_at, null);
    assert.equal(row.code_attempts, 0, 'a refusal before the code is judged uses no attempt');
    // Once A has signed it is B's turn: the link they hold works (it already was theirs, so
    // nothing more is mailed but the code).
    await signDocument(h.ctx, a.session, { fullName: 'A A', consent: true });
    await requestSigningCode(h.ctx, b.session);
    const code = await latestCodeFor(h.ctx, 'b@x.example');
    assert.equal(
      (await signDocument(h.ctx, b.session, { fullName: 'B B', consent: true, code })).completed,
      true,
    );
    assert.equal(
      await countRows(h.ctx, 'mails', { document_id: id, to_address: 'b@x.example' }),
      1,
      'the code, and no second link',
    );
  });

  test('a failed transaction leaves neither the change nor its event', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id);
    const ann = links.get('ann@client.example');
    assert.ok(ann);
    const existingEventId = (await detail(h, ws, id)).events[0]?.id as string;
    // Every new id collides with an existing event: the event insert fails inside the transaction.
    const failing = { ...h.ctx, ids: { ...h.ctx.ids, uuid: () => existingEventId } };
    await assert.rejects(signDocument(failing, ann.session, { fullName: 'Ann Lee', consent: true }));
    const d = await detail(h, ws, id);
    assert.equal(d.status, 'sent');
    assert.equal(d.recipients[0]?.signedAt, null);
    assert.deepEqual(eventTypes(d), ['document.sent']);
    const outbox = await h.ctx.db
      .selectFrom('outbox')
      .select('type')
      .where('workspace_id', '=', ws.id)
      .execute();
    assert.deepEqual(
      outbox.map((o) => o.type),
      ['document.sent'],
    );

    const draft = await createDraft(ws.id, 'Never sent');
    await assert.rejects(sendDocument(failing, ws.id, draft.id));
    const afterSend = await detail(h, ws, draft.id);
    assert.equal(afterSend.status, 'draft');
    assert.equal(afterSend.sentAt, null);
    assert.deepEqual(afterSend.events, []);
  });

  test('documents of another workspace cannot be sent', async () => {
    const owner = await createTestWorkspace(h.ctx);
    const other = await createTestWorkspace(h.ctx);
    const { id } = await createDraft(owner.id, 'Mine');
    await assert.rejects(sendDocument(h.ctx, other.id, id), { code: 'not-found' });
    assert.equal((await detail(h, owner, id)).status, 'draft');
  });

  test('value comes from the validated pricing block', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createSentDocument(h.ctx, ws.id, {
      pricing: {
        currency: 'JPY',
        pricesIncludeVat: true,
        items: [
          {
            name: 'Licence',
            quantity: '3',
            unitPrice: '1100',
            vatRate: '10',
            billing: { type: 'recurring', interval: 'year', periods: 2 },
          },
        ],
      },
    });
    // 3 x 1100 x 2 = 6600 incl. 10% VAT -> 6000 net
    const res = await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.apiKey });
    assert.deepEqual((res.body.data as { value: unknown }).value, { amount: 6000, currency: 'JPY' });
    await assert.rejects(
      createDraft(ws.id, 'Bad price', { pricing: { currency: 'JPY', pricesIncludeVat: true, items: [] } }),
      /pricing/,
    );
  });
});
