// Who is told what after Send (issue 25), on both databases: signing groups are mailed in
// their order (the next group once every signer before it has signed, viewers with their
// order's group), a decline mails the workspace's owners with the reason, and a completed
// document's mail reaches every recipient and owner, those never invited included.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAccount } from '../src/accounts/accounts.service.ts';
import { listMails } from '../src/mail/mail.service.ts';
import { sealDueDocuments } from '../src/sealing/sealing.service.ts';
import { declineDocument, signDocument } from '../src/signing/signing.service.ts';
import {
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  recipient,
  signingLinksOf,
  useHarness,
} from './harness.ts';
import { testPassword } from './web-client.ts';

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
    const session = (await signingLinksOf(h.ctx, documentId)).get(email)?.session;
    assert.ok(session, `${email} has their link`);
    return signDocument(h.ctx, session, { fullName, consent: true });
  };

  test('signing groups are mailed in their order, each once the signers before it have signed', async () => {
    const { ws, owner } = await workspaceWithOwner();
    const { id } = await createSentDocument(h.ctx, ws.id, {
      title: 'Supply contract',
      recipients: [
        recipient('ann@client.example', 'Ann Lee', { signingOrder: 1 }),
        recipient('amy@client.example', 'Amy Roe', { signingOrder: 1 }),
        recipient('bob@client.example', 'Bob Ray', { signingOrder: 2 }),
        recipient('val@client.example', 'Val Kim', { role: 'viewer', signingOrder: 2 }),
        recipient('cal@client.example', 'Cal Poe', { signingOrder: 3 }),
      ],
    });
    const invited = async () => [...(await signingLinksOf(h.ctx, id)).keys()].sort();
    assert.deepEqual(
      await invited(),
      ['amy@client.example', 'ann@client.example'],
      'only the first group at send',
    );

    await sign(id, 'ann@client.example', 'Ann Lee');
    assert.deepEqual(await invited(), ['amy@client.example', 'ann@client.example'], 'Amy has not signed yet');
    await sign(id, 'amy@client.example', 'Amy Roe');
    assert.deepEqual(
      await invited(),
      ['amy@client.example', 'ann@client.example', 'bob@client.example', 'val@client.example'],
      'the second group, its viewer with it',
    );
    await sign(id, 'bob@client.example', 'Bob Ray');
    assert.equal((await invited()).length, 5, 'the third group');
    const last = await sign(id, 'cal@client.example', 'Cal Poe');
    assert.equal(last.completed, true);
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

  test('a decline ends the signing, tells the owners why, and the next group is never mailed', async () => {
    const { ws, owner } = await workspaceWithOwner();
    const { id } = await createSentDocument(h.ctx, ws.id, {
      title: 'Lease',
      recipients: [
        recipient('ann@client.example', 'Ann Lee', { signingOrder: 1 }),
        recipient('bob@client.example', 'Bob Ray', { signingOrder: 2 }),
      ],
    });
    const session = (await signingLinksOf(h.ctx, id)).get('ann@client.example')?.session;
    assert.ok(session);
    await declineDocument(h.ctx, session, { reason: 'The rent is wrong.\nPlease send a corrected lease.' });
    const [mail] = await listMails(h.ctx, { documentId: id, to: owner, limit: 5 });
    assert.equal(mail?.subject, 'Declined: Lease');
    assert.match(mail?.text ?? '', /Ann Lee \(ann@client\.example\) declined to sign "Lease"\./);
    assert.match(mail?.text ?? '', /> The rent is wrong\.\n> Please send a corrected lease\./);
    assert.ok(mail?.text.includes(`${h.config.publicUrl}/documents/${id}`), 'a link to the document');
    assert.deepEqual([...(await mailbox(id)).keys()].sort(), ['ann@client.example', owner].sort());
  });
});
