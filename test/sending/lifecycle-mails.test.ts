// What a sender can do and who is told after Send (issue 25), on both databases: signing
// groups are mailed in order; a decline mails the owners with the reason; a completed document's mail reaches every
// recipient and owner; a withdrawn document ends
// as expired and those who had it are told; a draft can be deleted; a signer is reminded
// with their own link, at most once an hour.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { DocumentActionError } from '../../src/documents/lifecycle.ts';
import { listMails } from '../../src/mail/mail.service.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { deleteDraft } from '../../src/sending/drafts.ts';
import { expireDueDocuments, withdrawDocument } from '../../src/sending/ending.ts';
import { remindDueSigners, remindRecipient } from '../../src/sending/reminders.ts';
import { declineDocument, signDocument } from '../../src/signing/signing.service.ts';
import {
  callApi,
  countRows,
  createDraftDocument,
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  recipient,
  recipientRow,
  signingLinksOf,
  useHarness,
} from '../support/harness.ts';
import { testPassword } from '../support/web-client.ts';

describeEachDatabase('who is told what after Send', (kind) => {
  const h = useHarness(kind);

  async function workspaceWithOwner() {
    const ws = await createTestWorkspace(h.ctx);
    const owner = `owner-${ws.id.slice(0, 8)}@acme.example`;
    await createAccount(h.ctx, { email: owner, password: testPassword, workspaceId: ws.id, role: 'owner' });
    return { ws, owner };
  }

  /** Each address's mails of the document, as subjects, oldest first. */
  async function mailbox(documentId: string): Promise<Map<string, string[]>> {
    const mails = await listMails(h.ctx, { documentId, limit: 100 });
    const byAddress = new Map<string, string[]>();
    for (const mail of mails.reverse())
      byAddress.set(mail.to, [...(byAddress.get(mail.to) ?? []), mail.subject]);
    return byAddress;
  }

  const sign = async (documentId: string, email: string, fullName: string) => {
    h.clock.advance(1000); // mails of different steps never share a millisecond
    const session = (await signingLinksOf(h.ctx, documentId)).get(email)?.session;
    assert.ok(session, `${email} has their link`);
    return signDocument(h.ctx, session, { fullName, consent: true });
  };

  test('a completed document’s mail reaches every recipient and the owners', async () => {
    const { ws, owner } = await workspaceWithOwner();
    const { id } = await createSentDocument(h.ctx, ws.id, {
      title: 'Supply contract',
      recipients: [
        recipient('ann@client.example', 'Ann Lee', { signingOrder: 1 }),
        recipient('bob@client.example', 'Bob Ray', { signingOrder: 2 }),
        recipient('val@client.example', 'Val Kim', { role: 'viewer', signingOrder: 2 }),
      ],
    });
    await sign(id, 'ann@client.example', 'Ann Lee');
    const last = await sign(id, 'bob@client.example', 'Bob Ray');
    assert.equal(last.completed, true);
    h.clock.advance(1000);
    assert.equal(await sealDueDocuments(h.ctx), 1);
    const mails = await mailbox(id);
    assert.deepEqual(mails.get('ann@client.example'), [
      'Please sign: Supply contract',
      'Completed: Supply contract',
    ]);
    assert.deepEqual(mails.get('val@client.example'), [
      'Document shared with you: Supply contract',
      'Completed: Supply contract',
    ]);
    assert.deepEqual(
      mails.get(owner),
      ['Completed: Supply contract'],
      'the owner gets the completed document',
    );
  });

  test('signing order is honoured by mail: the first group at send, each next one when the one before has all signed', async () => {
    const { ws } = await workspaceWithOwner();
    const { id } = await createSentDocument(h.ctx, ws.id, {
      title: 'Partnership',
      recipients: [
        recipient('ann@client.example', 'Ann Lee', { signingOrder: 1 }),
        recipient('bea@client.example', 'Bea Ott', { signingOrder: 1 }),
        recipient('cat@client.example', 'Cat Ng', { signingOrder: 2 }),
        recipient('val@client.example', 'Val Kim', { role: 'viewer', signingOrder: 2 }),
        recipient('dan@client.example', 'Dan Oh', { signingOrder: 3 }),
      ],
    });
    const mailed = async () => [...(await mailbox(id)).keys()].sort();
    assert.deepEqual(await mailed(), ['ann@client.example', 'bea@client.example'], 'at send: order 1 only');
    assert.equal((await recipientRow(h.ctx, id, 'cat@client.example')).token_hash, null, 'no link yet');
    await sign(id, 'bea@client.example', 'Bea Ott');
    assert.deepEqual(await mailed(), ['ann@client.example', 'bea@client.example'], 'order 1 not done yet');
    await sign(id, 'ann@client.example', 'Ann Lee');
    assert.deepEqual(
      await mailed(),
      ['ann@client.example', 'bea@client.example', 'cat@client.example', 'val@client.example'],
      'order 1 done: order 2 (its viewer too) is mailed',
    );
    const mails = await mailbox(id);
    assert.deepEqual(mails.get('cat@client.example'), ['Please sign: Partnership']);
    assert.deepEqual(mails.get('val@client.example'), ['Document shared with you: Partnership']);
    await sign(id, 'cat@client.example', 'Cat Ng');
    assert.deepEqual((await mailbox(id)).get('dan@client.example'), ['Please sign: Partnership']);
    assert.deepEqual(
      (await mailbox(id)).get('ann@client.example'),
      ['Please sign: Partnership'],
      'once each',
    );
    const last = await sign(id, 'dan@client.example', 'Dan Oh');
    assert.equal(last.completed, true);
  });

  test('automatic reminders: every N days from each signer’s first mail, their own link, until they sign or it expires', async () => {
    const { ws } = await workspaceWithOwner();
    const day = 86_400_000;
    const { id, links } = await createSentDocument(h.ctx, ws.id, {
      title: 'Lease',
      recipients: [
        recipient('ann@client.example', 'Ann Lee', { signingOrder: 1 }),
        recipient('bob@client.example', 'Bob Ray', { signingOrder: 2 }),
      ],
      remindEveryDays: 3,
      expiresInSeconds: 9 * 86_400,
    });
    const reminders = async (to: string) =>
      (await listMails(h.ctx, { documentId: id, to, limit: 20 })).filter((m) =>
        m.subject.startsWith('Reminder'),
      );
    h.clock.advance(3 * day - 1000);
    assert.equal(await remindDueSigners(h.ctx), 0, 'not yet');
    h.clock.advance(1000);
    assert.equal(await remindDueSigners(h.ctx), 1, 'Ann, three days after her mail; Bob has no link yet');
    assert.equal(await remindDueSigners(h.ctx), 0, 'once');
    const [first] = await reminders('ann@client.example');
    assert.equal(first?.subject, 'Reminder: please sign Lease');
    assert.ok(first?.text.includes(links.get('ann@client.example')?.path as string), 'her first link');

    // The sender's own reminder counts: the next automatic one is three days after it.
    h.clock.advance(day);
    await remindRecipient(h.ctx, ws.id, id, (await recipientRow(h.ctx, id, 'ann@client.example')).id);
    h.clock.advance(3 * day - 1000);
    assert.equal(await remindDueSigners(h.ctx), 0);
    await sign(id, 'ann@client.example', 'Ann Lee'); // day 7: Bob is mailed now
    h.clock.advance(day);
    assert.equal(await remindDueSigners(h.ctx), 0, 'Ann has signed; Bob was mailed a day ago');
    assert.equal((await reminders('ann@client.example')).length, 2);
    h.clock.advance(2 * day);
    // Day 10: the document expired on day 9, so nobody is reminded.
    assert.equal(await expireDueDocuments(h.ctx), 1);
    assert.equal(await remindDueSigners(h.ctx), 0);
    assert.deepEqual(await reminders('bob@client.example'), []);

    const quiet = await createSentDocument(h.ctx, ws.id, { title: 'No reminders' });
    h.clock.advance(20 * day);
    assert.equal(await remindDueSigners(h.ctx), 0, 'a document without reminders never sends one');
    assert.equal((await listMails(h.ctx, { documentId: quiet.id, limit: 10 })).length, 1);
  });

  test('a decline ends the signing and tells the owners why', async () => {
    const { ws, owner } = await workspaceWithOwner();
    const { id } = await createSentDocument(h.ctx, ws.id, {
      title: 'Lease',
      recipients: [recipient('ann@client.example', 'Ann Lee', { signingOrder: 1 })],
    });
    const session = (await signingLinksOf(h.ctx, id)).get('ann@client.example')?.session;
    assert.ok(session);
    await declineDocument(h.ctx, session, {
      reason:
        'The rent is wrong.\nPlease send a corrected lease. Urgent: log in at https://evil.example/login or www.evil.example, or mail boss@evil.example',
    });
    const [mail] = await listMails(h.ctx, { documentId: id, to: owner, limit: 5 });
    assert.equal(mail?.subject, 'Declined: Lease');
    assert.match(mail?.text ?? '', /Ann Lee \(ann@client\.example\) declined to sign “Lease”\./);
    assert.match(mail?.text ?? '', /from the recipient, not from Signet; links in it are not made clickable/);
    assert.match(mail?.text ?? '', /> The rent is wrong\.\n> Please send a corrected lease\. Urgent:/);
    // Nothing a mail program would make a link of: no scheme, no host name, no address.
    assert.ok(
      mail?.text.includes(
        'log in at https[:]//evil[.]example/login or www[.]evil[.]example, or mail boss[@]evil[.]example',
      ),
      mail?.text,
    );
    assert.doesNotMatch(mail?.text ?? '', /evil\.example/);
    assert.ok(mail?.text.includes(`${h.config.publicUrl}/documents/${id}`), 'a link to the document');
    assert.deepEqual([...(await mailbox(id)).keys()].sort(), ['ann@client.example', owner].sort());
  });

  test('a withdrawn document ends as expired at once: its links say so, and those who had it are told', async () => {
    const { ws } = await workspaceWithOwner();
    const { id, links } = await createSentDocument(h.ctx, ws.id, {
      title: 'Offer',
      recipients: [
        recipient('ann@client.example', 'Ann Lee', { signingOrder: 1 }),
        recipient('bob@client.example', 'Bob Ray', { signingOrder: 2 }),
      ],
    });
    h.clock.advance(60_000);
    const { eventId } = await withdrawDocument(h.ctx, ws.id, id);
    const detail = await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.apiKey });
    const document = (
      detail.body as {
        data: { status: string; expiresAt: string; events: Array<{ id: string; type: string }> };
      }
    ).data;
    assert.equal(document.status, 'expired');
    assert.equal(document.expiresAt, h.clock.now().toISOString(), 'expired when withdrawn');
    assert.deepEqual(document.events.at(-1), {
      ...document.events.at(-1),
      id: eventId,
      type: 'document.expired',
    });
    assert.equal(
      await countRows(h.ctx, 'webhook_events', { id: eventId, type: 'document.expired' }),
      1,
      'the webhook event of expiry',
    );
    const mails = await mailbox(id);
    assert.deepEqual(mails.get('ann@client.example'), ['Please sign: Offer', 'Withdrawn: Offer']);
    assert.equal(mails.get('bob@client.example'), undefined, 'Bob’s turn never came: he never had it');

    const page = await (await fetch(h.baseUrl + (links.get('ann@client.example')?.path as string))).text();
    assert.match(page, /The sender withdrew this document on/);
    assert.ok(!page.includes('name="consent"'), 'nothing to sign');
    await assert.rejects(
      signDocument(h.ctx, links.get('ann@client.example')?.session as never, {
        fullName: 'Ann Lee',
        consent: true,
      }),
      (error) => error instanceof DocumentActionError && error.refusal === 'not-allowed',
    );
    await assert.rejects(withdrawDocument(h.ctx, ws.id, id), (error) => error instanceof DocumentActionError);
  });

  test('a draft can be deleted, with its recipients and fields; a sent document cannot', async () => {
    const { ws } = await workspaceWithOwner();
    const { id } = await createDraftDocument(h.ctx, ws.id);
    await deleteDraft(h.ctx, ws.id, id);
    assert.equal(await countRows(h.ctx, 'documents', { id }), 0);
    assert.equal(await countRows(h.ctx, 'recipients', { document_id: id }), 0);
    const sent = await createSentDocument(h.ctx, ws.id);
    await assert.rejects(
      deleteDraft(h.ctx, ws.id, sent.id),
      (error) => error instanceof DocumentActionError && error.refusal === 'not-a-draft',
    );
    const other = await createTestWorkspace(h.ctx);
    await assert.rejects(deleteDraft(h.ctx, other.id, sent.id), /not-found|Not found/i);
  });

  test('a signer is reminded with their own link, at most once an hour; nobody else can be', async () => {
    const { ws } = await workspaceWithOwner();
    const { id, links } = await createSentDocument(h.ctx, ws.id, {
      title: 'Order',
      recipients: [
        recipient('ann@client.example', 'Ann Lee', { signingOrder: 1 }),
        recipient('bob@client.example', 'Bob Ray', { signingOrder: 2 }),
        recipient('val@client.example', 'Val Kim', { role: 'viewer', signingOrder: 1 }),
      ],
    });
    const row = (email: string) => recipientRow(h.ctx, id, email);
    const ann = await row('ann@client.example');
    h.clock.advance(2 * 86_400_000);
    await remindRecipient(h.ctx, ws.id, id, ann.id);
    const [reminder] = await listMails(h.ctx, { documentId: id, to: 'ann@client.example', limit: 1 });
    assert.equal(reminder?.subject, 'Reminder: please sign Order');
    const link = links.get('ann@client.example')?.path as string;
    assert.ok(reminder?.text.includes(link), 'the link she was first mailed, which still works');
    assert.equal((await fetch(h.baseUrl + link)).status, 200);

    const refusal = (refusal: string) => (error: unknown) =>
      error instanceof DocumentActionError && error.refusal === refusal;
    await assert.rejects(remindRecipient(h.ctx, ws.id, id, ann.id), refusal('reminded-recently'));
    h.clock.advance(61 * 60_000);
    await remindRecipient(h.ctx, ws.id, id, ann.id);
    await assert.rejects(
      remindRecipient(h.ctx, ws.id, id, (await row('bob@client.example')).id),
      refusal('not-remindable'),
      'not his turn yet',
    );
    await assert.rejects(
      remindRecipient(h.ctx, ws.id, id, (await row('val@client.example')).id),
      refusal('not-remindable'),
      'a viewer',
    );
    await signDocument(h.ctx, links.get('ann@client.example')?.session as never, {
      fullName: 'Ann Lee',
      consent: true,
    });
    h.clock.advance(61 * 60_000);
    await assert.rejects(
      remindRecipient(h.ctx, ws.id, id, ann.id),
      refusal('not-remindable'),
      'signed already',
    );
  });
});
