// The mail outbox (src/mail): mails written in the transaction of the change that needs
// them, delivered by deliverDueMails with retries and leases, the development transport that
// logs instead of sending, and the worker woken by NOTIFY; its pace (SIGNET_MAIL_PER_MINUTE,
// and a real SMTP server's "slow down" holding the whole outbox).
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import pino from 'pino';
import { deliverDueMails, mailRetryDelaysMs, mailServerPauseMs } from '../../src/mail/mail.service.ts';
import { mailLeaseMs } from '../../src/mail/mail-queue.ts';
import type { MailTransport, OutgoingMail } from '../../src/mail/mailer.ts';
import { createMailTransport } from '../../src/mail/mailer.ts';
import { claimDueMails } from '../../src/mail/mails.repository.ts';
import type { RecipientInput } from '../../src/sending/draft-input.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { sendDocument } from '../../src/sending/send.ts';
import { startWorker } from '../../src/worker/worker.ts';
import {
  countRows,
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  parallelSigners,
  parallelWithViewer,
  recipient,
  signingLinksOf,
  useHarness,
} from '../support/harness.ts';
import { startSmtpReceiver } from '../support/smtp-receiver.ts';

/** The worker's lease on a claimed mail (mail-queue.ts). */
const leaseMs = mailLeaseMs;

interface FakeTransport extends MailTransport {
  sent: OutgoingMail[];
  /** Calls to send, failed ones included. */
  attempts: number;
  /** While set, send throws this. */
  failWith: Error | null;
}

function fakeTransport(outcome: 'sent' | 'logged' = 'sent'): FakeTransport {
  const transport: FakeTransport = {
    sent: [],
    attempts: 0,
    failWith: null,
    async send(mail) {
      transport.attempts += 1;
      if (transport.failWith) throw transport.failWith;
      transport.sent.push(mail);
      return outcome;
    },
    close() {},
  };
  return transport;
}

const oneSigner: RecipientInput[] = [recipient('ann@client.example', 'Ann Lee')];

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

describeEachDatabase('mail outbox', (kind) => {
  const h = useHarness(kind);

  // Every test sees only its own mails: anything an earlier (failed) test left pending is set aside.
  beforeEach(async () => {
    await h.ctx.db
      .updateTable('mails')
      .set({ status: 'failed', last_error: 'set aside by test setup' })
      .where('status', '=', 'pending')
      .execute();
  });

  async function mailsOf(documentId: string) {
    return h.ctx.db
      .selectFrom('mails')
      .selectAll()
      .where('document_id', '=', documentId)
      .orderBy('to_address')
      .execute();
  }

  test('sending a document writes one pending mail per recipient with their personal link', async () => {
    const ws = await createTestWorkspace(h.ctx);
    // All three of the first signing group: each is mailed at send (a later group, at its turn).
    const recipients = parallelWithViewer;
    const { id } = await createDocument(h.ctx, {
      workspaceId: ws.id,
      title: 'Lease renewal',
      body: 'The parties agree.',
      recipients,
      pricing: null,
    });
    assert.equal((await mailsOf(id)).length, 0, 'a draft has no mail');
    await sendDocument(h.ctx, ws.id, id);

    const mails = await mailsOf(id);
    assert.deepEqual(
      mails.map((m) => m.to_address),
      ['ann@client.example', 'bob@client.example', 'val@client.example'],
    );
    const now = h.clock.now().toISOString();
    const rows = await h.ctx.db
      .selectFrom('recipients')
      .select(['id', 'email'])
      .where('document_id', '=', id)
      .execute();
    const links = await signingLinksOf(h.ctx, id);
    for (const mail of mails) {
      assert.equal(mail.status, 'pending');
      assert.equal(mail.attempts, 0);
      assert.equal(mail.workspace_id, ws.id);
      assert.equal(mail.created_at.toISOString(), now);
      assert.equal(mail.next_attempt_at.toISOString(), now, 'due at once');
      assert.equal(mail.sent_at, null);
      assert.ok(mail.subject.includes('Lease renewal'), mail.subject);
      const recipient = rows.find((r) => r.email === mail.to_address);
      assert.equal(mail.recipient_id, recipient?.id);
      const link = links.get(mail.to_address);
      assert.ok(link, `${mail.to_address}: a working personal link`);
      assert.equal(link.session.recipientId, recipient?.id, 'the link is that recipient’s');
      assert.ok(mail.text_body.includes(`https://sign.example.test${link.path}`), mail.text_body);
      // Nobody's link is in anybody else's mail.
      for (const other of links.values()) {
        if (other.email !== mail.to_address) assert.ok(!mail.text_body.includes(other.path));
      }
    }
    assert.equal(new Set([...links.values()].map((l) => l.path)).size, 3, 'every link is different');
    assert.match(mails.find((m) => m.to_address === 'ann@client.example')?.subject ?? '', /^Please sign: /);
    assert.match(
      mails.find((m) => m.to_address === 'val@client.example')?.subject ?? '',
      /^Document shared with you: /,
    );
  });

  const workspaceNameOf = async (id: string) =>
    (await h.ctx.db.selectFrom('workspaces').select('name').where('id', '=', id).executeTakeFirstOrThrow())
      .name;

  test('deliverDueMails sends each due mail once and marks it sent', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createSentDocument(h.ctx, ws.id, {
      title: 'Supply contract',
      recipients: parallelSigners,
    });
    const transport = fakeTransport();
    h.clock.advance(1_000);
    assert.equal(await deliverDueMails(h.ctx, transport), 2);
    assert.deepEqual(transport.sent.map((m) => m.to).sort(), ['ann@client.example', 'bob@client.example']);
    const mails = await mailsOf(id);
    for (const mail of mails) {
      assert.equal(mail.status, 'sent');
      assert.equal(mail.attempts, 1);
      assert.equal(mail.sent_at?.toISOString(), h.clock.now().toISOString());
      assert.equal(mail.last_error, null);
      assert.equal(mail.locked_until, null);
      const delivered = transport.sent.find((m) => m.to === mail.to_address);
      assert.deepEqual(delivered, {
        id: mail.id,
        to: mail.to_address,
        subject: mail.subject,
        text: mail.text_body,
        // The workspace's name, as it has no brand; made by no member, so no one to reply to.
        fromName: `${await workspaceNameOf(ws.id)} via Signet`,
        replyTo: null,
      });
    }

    assert.equal(await deliverDueMails(h.ctx, transport), 0, 'a second call sends nothing');
    h.clock.advance(24 * 60 * 60_000);
    assert.equal(await deliverDueMails(h.ctx, transport), 0, 'nor a much later one');
    assert.equal(transport.attempts, 2);
  });

  test('a mail the transport only logged is marked logged', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createSentDocument(h.ctx, ws.id, { recipients: oneSigner });
    const transport = fakeTransport('logged');
    assert.equal(await deliverDueMails(h.ctx, transport), 1);
    const [mail] = await mailsOf(id);
    assert.equal(mail?.status, 'logged');
    assert.equal(mail?.attempts, 1);
    assert.ok(mail?.sent_at);
    assert.equal(await deliverDueMails(h.ctx, transport), 0);
  });

  test('a failed delivery is retried after the first retry delay, not before', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createSentDocument(h.ctx, ws.id, { recipients: oneSigner });
    const transport = fakeTransport();
    transport.failWith = new Error('connection refused by smtp.example.test');
    const failedAt = h.clock.now().getTime();
    assert.equal(await deliverDueMails(h.ctx, transport), 1);

    let [mail] = await mailsOf(id);
    assert.equal(mail?.status, 'pending');
    assert.equal(mail?.attempts, 1);
    assert.equal(mail?.last_error, 'connection refused by smtp.example.test');
    assert.equal(mail?.next_attempt_at.getTime(), failedAt + (mailRetryDelaysMs[0] as number));
    assert.equal(mail?.locked_until, null);
    assert.equal(mail?.sent_at, null);

    h.clock.advance((mailRetryDelaysMs[0] as number) - 1);
    assert.equal(await deliverDueMails(h.ctx, transport), 0, 'not due yet');
    assert.equal(transport.attempts, 1);

    transport.failWith = null;
    h.clock.advance(1);
    assert.equal(await deliverDueMails(h.ctx, transport), 1);
    [mail] = await mailsOf(id);
    assert.equal(mail?.status, 'sent');
    assert.equal(mail?.attempts, 2);
    assert.equal(mail?.last_error, null);
    assert.equal(mail?.sent_at?.getTime(), h.clock.now().getTime());
    assert.equal(transport.sent.length, 1);
  });

  test('a mail that keeps failing is retried after each delay and then marked failed', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createSentDocument(h.ctx, ws.id, { recipients: oneSigner });
    const transport = fakeTransport();
    let attempt = 0;
    transport.send = async () => {
      transport.attempts += 1;
      attempt += 1;
      throw new Error(`refused #${attempt}`);
    };
    assert.equal(await deliverDueMails(h.ctx, transport), 1);
    for (const [i, delay] of mailRetryDelaysMs.entries()) {
      const [mail] = await mailsOf(id);
      assert.equal(mail?.status, 'pending', `after attempt ${i + 1}`);
      assert.equal(mail?.attempts, i + 1);
      assert.equal(mail?.next_attempt_at.getTime(), h.clock.now().getTime() + delay);
      h.clock.advance(delay - 1);
      assert.equal(await deliverDueMails(h.ctx, transport), 0, `retry ${i + 1} not before its delay`);
      h.clock.advance(1);
      assert.equal(await deliverDueMails(h.ctx, transport), 1, `retry ${i + 1}`);
    }
    const [mail] = await mailsOf(id);
    assert.equal(mail?.status, 'failed');
    assert.equal(mail?.attempts, mailRetryDelaysMs.length + 1);
    assert.equal(transport.attempts, mailRetryDelaysMs.length + 1);
    assert.equal(mail?.last_error, `refused #${mailRetryDelaysMs.length + 1}`);
    assert.equal(mail?.sent_at, null);

    h.clock.advance(30 * 24 * 60 * 60_000);
    assert.equal(await deliverDueMails(h.ctx, transport), 0, 'a failed mail is never tried again');
  });

  test('a claimed mail whose worker died is left alone until its lease ends, then delivered', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createSentDocument(h.ctx, ws.id, { recipients: oneSigner });
    // The "dead" worker: claims the mail and never marks it.
    const claimed = await claimDueMails(h.ctx.db, h.clock.now(), leaseMs, 20);
    assert.deepEqual(
      claimed.map((m) => m.to_address),
      ['ann@client.example'],
    );
    const [locked] = await mailsOf(id);
    assert.equal(locked?.locked_until?.getTime(), h.clock.now().getTime() + leaseMs);

    const transport = fakeTransport();
    assert.equal(await deliverDueMails(h.ctx, transport), 0, 'leased to the other worker');
    h.clock.advance(leaseMs - 1);
    assert.equal(await deliverDueMails(h.ctx, transport), 0, 'the lease still runs');
    assert.equal(transport.attempts, 0);

    h.clock.advance(2);
    assert.equal(await deliverDueMails(h.ctx, transport), 1, 'delivered once the lease ended');
    const [mail] = await mailsOf(id);
    assert.equal(mail?.status, 'sent');
    assert.equal(mail?.attempts, 1);
    assert.deepEqual(
      transport.sent.map((m) => m.to),
      ['ann@client.example'],
    );
  });

  test('two workers claiming at once never claim the same mail', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const documents = await Promise.all(
      [1, 2, 3].map(() => createSentDocument(h.ctx, ws.id, { recipients: oneSigner })),
    );
    const now = h.clock.now();
    const [a, b] = await Promise.all([
      claimDueMails(h.ctx.db, now, leaseMs, 2),
      claimDueMails(h.ctx.db, now, leaseMs, 2),
    ]);
    const ids = [...(a ?? []), ...(b ?? [])].map((m) => m.id);
    assert.equal(new Set(ids).size, ids.length, 'no mail claimed twice');
    assert.equal(ids.length, 3);
    h.clock.advance(leaseMs);
    assert.equal(await deliverDueMails(h.ctx, fakeTransport()), 3);
    for (const doc of documents) assert.equal((await mailsOf(doc.id))[0]?.status, 'sent');
  });

  test('when the transaction that sends a document fails, no mail for it exists', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const earlier = await createSentDocument(h.ctx, ws.id, { recipients: oneSigner });
    const existingEvent = await h.ctx.db
      .selectFrom('document_events')
      .select('id')
      .where('document_id', '=', earlier.id)
      .executeTakeFirstOrThrow();
    const { id } = await createDocument(h.ctx, {
      workspaceId: ws.id,
      title: 'Doomed',
      body: 'The parties agree.',
      recipients: parallelSigners,
      pricing: null,
    });
    const failing = { ...h.ctx, ids: { ...h.ctx.ids, uuid: () => existingEvent.id } };
    await assert.rejects(sendDocument(failing, ws.id, id));

    const document = await h.ctx.db
      .selectFrom('documents')
      .select(['status', 'sent_at', 'expires_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(document, { status: 'draft', sent_at: null, expires_at: null });
    assert.equal((await mailsOf(id)).length, 0);
    const tokens = await h.ctx.db
      .selectFrom('recipients')
      .select('token_hash')
      .where('document_id', '=', id)
      .execute();
    assert.deepEqual(tokens, [{ token_hash: null }, { token_hash: null }]);

    // The draft can still be sent afterwards, and then has its mails.
    await sendDocument(h.ctx, ws.id, id);
    assert.equal((await mailsOf(id)).length, 2);
  });

  test('a failure after the first mail was written rolls that mail back too', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const earlier = await createSentDocument(h.ctx, ws.id, { recipients: oneSigner });
    const [existingMail] = await mailsOf(earlier.id);
    assert.ok(existingMail);
    const { id } = await createDocument(h.ctx, {
      workspaceId: ws.id,
      title: 'Half sent',
      body: 'The parties agree.',
      recipients: parallelSigners,
      pricing: null,
    });
    // uuid calls in sendDocument: the document.sent event, then one mail per recipient.
    // The second mail's id collides, after the first mail row was inserted.
    let calls = 0;
    const failing = {
      ...h.ctx,
      ids: {
        ...h.ctx.ids,
        uuid: () => {
          calls += 1;
          return calls === 3 ? existingMail.id : h.ctx.ids.uuid();
        },
      },
    };
    await assert.rejects(sendDocument(failing, ws.id, id));
    assert.equal(calls, 3);
    assert.equal((await mailsOf(id)).length, 0);
    assert.equal(
      await countRows(h.ctx, 'document_events', { document_id: id }),
      0,
      'nor its document.sent event',
    );
    const document = await h.ctx.db
      .selectFrom('documents')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(document.status, 'draft');
  });

  test('without SMTP_URL the transport logs the mail’s id and recipient, never its subject or text (links and codes are the addressee’s alone)', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const transport = createMailTransport({
      smtpUrl: null,
      from: 'Signet <no-reply@sign.example.test>',
      log,
    });
    const outcome = await transport.send({
      id: '6f1c2c1e-0000-4000-8000-000000000001',
      to: 'ann@client.example',
      subject: 'Your signing code for Lease renewal: 123456',
      text: 'Hello Ann, sign at https://sign.example.test/sign/d/secret-token',
    });
    assert.equal(outcome, 'logged');
    transport.close();
    assert.equal(lines.length, 1);
    const line = lines[0] as string;
    assert.ok(line.includes('ann@client.example'), line);
    const entry = JSON.parse(line) as { level: number; mail: OutgoingMail };
    assert.deepEqual(entry.mail, { id: '6f1c2c1e-0000-4000-8000-000000000001', to: 'ann@client.example' });
    assert.ok(!line.includes('secret-token'), line);
    assert.ok(!line.includes('123456'), line);
  });

  test('the worker delivers a new mail within 2 s, woken by NOTIFY rather than its interval', async () => {
    const transport = fakeTransport();
    const worker = await startWorker(h.ctx, {
      transport,
      subscribe: h.subscribe,
      mailIntervalMs: 60_000,
      expiryIntervalMs: 60_000,
    });
    let stopped = false;
    try {
      // Let the first pass (run at start) find the outbox empty.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(transport.attempts, 0);
      const ws = await createTestWorkspace(h.ctx);
      const startedAt = Date.now();
      const { id } = await createSentDocument(h.ctx, ws.id, { recipients: parallelSigners });
      const arrived = await until(() => transport.sent.length >= 2, 2_000);
      assert.ok(arrived, `mails delivered after ${Date.now() - startedAt} ms: ${transport.sent.length}`);
      // stop() waits for the pass in flight, which marks the mails.
      await worker.stop();
      stopped = true;
      assert.deepEqual(transport.sent.map((m) => m.to).sort(), ['ann@client.example', 'bob@client.example']);
      assert.deepEqual(
        (await mailsOf(id)).map((m) => m.status),
        ['sent', 'sent'],
      );
    } finally {
      if (!stopped) await worker.stop();
    }
  });
});

describeEachDatabase('the mail outbox’s pace', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_MAIL_PER_MINUTE: '3' } });

  /** One sent document per address: one invitation each, in this order. */
  async function invite(addresses: string[]) {
    const ws = await createTestWorkspace(h.ctx);
    for (const address of addresses) {
      await createSentDocument(h.ctx, ws.id, { recipients: [recipient(address, 'Pat Lee')] });
      h.clock.advance(1);
    }
  }

  test('at most SIGNET_MAIL_PER_MINUTE mails are handed over in any minute; the rest wait their turn', async () => {
    const addresses = ['p0', 'p1', 'p2', 'p3', 'p4'].map((p) => `${p}@pace.example`);
    await invite(addresses);
    const transport = fakeTransport();
    assert.equal(await deliverDueMails(h.ctx, transport), 3);
    assert.equal(await deliverDueMails(h.ctx, transport), 0, 'the minute is full');
    h.clock.advance(59_000);
    assert.equal(await deliverDueMails(h.ctx, transport), 0, 'and still is');
    h.clock.advance(2_000);
    assert.equal(await deliverDueMails(h.ctx, transport), 2);
    assert.deepEqual(
      transport.sent.map((m) => m.to),
      addresses,
      'each once, oldest first',
    );
  });

  test('a real mail server’s “slow down” (451) holds the whole outbox a minute; then each mail goes once', async () => {
    let refusals = 0;
    const smtp = await startSmtpReceiver({
      refuse: (to) =>
        to === 'q1@pace.example' && refusals++ === 0
          ? { code: 451, message: '4.7.1 Too many messages, slow down' }
          : null,
    });
    const transport = createMailTransport({
      smtpUrl: smtp.url,
      from: 'Signet <no-reply@pace.example>',
      log: pino({ level: 'silent' }),
    });
    try {
      h.clock.advance(120_000); // the first test's minute is over
      const addresses = ['q0', 'q1', 'q2'].map((p) => `${p}@pace.example`);
      await invite(addresses);
      assert.equal(
        await deliverDueMails(h.ctx, transport),
        2,
        'the first sent, the second refused, the third not tried',
      );
      assert.deepEqual(
        smtp.received.map((r) => r.to),
        [['q0@pace.example']],
      );
      assert.equal(await deliverDueMails(h.ctx, transport), 0, 'nothing is due while the outbox waits');
      h.clock.advance(mailServerPauseMs - 1);
      assert.equal(await deliverDueMails(h.ctx, transport), 0, 'not before the pause is over');
      h.clock.advance(1);
      assert.equal(await deliverDueMails(h.ctx, transport), 2);
      assert.deepEqual(smtp.received.map((r) => r.to[0]).sort(), addresses, 'every mail delivered once');
      const refused = await h.ctx.db
        .selectFrom('mails')
        .select(['status', 'attempts'])
        .where('to_address', '=', 'q1@pace.example')
        .executeTakeFirstOrThrow();
      assert.deepEqual([refused.status, refused.attempts], ['sent', 2]);
    } finally {
      transport.close();
      await smtp.close();
    }
  });
});
