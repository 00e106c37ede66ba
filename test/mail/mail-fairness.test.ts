// Fairness in the mail outbox (issue 49 §2; src/mail/priority.ts, claimDueMails,
// deliverDueMails), on both databases with the test clock: what a person waits for (a
// signing code, a password reset) goes out in the first pass behind another workspace's
// 1,000 bulk invitations; workspaces' bulk mails are interleaved, each taking what the others
// leave; the pace still holds overall, with its reserve for urgent mail; a "slow down" still
// holds everything; the worker's urgent lane sends a code while a bulk pass is still sending;
// and each place that queues a mail gives it its priority.
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { requestPasswordReset } from '../../src/accounts/password-resets.ts';
import {
  deliverDueMails,
  mailServerPauseMs,
  queueMails,
  urgentReserve,
} from '../../src/mail/mail.service.ts';
import type { MailTransport, OutgoingMail } from '../../src/mail/mailer.ts';
import { mailPriorities } from '../../src/mail/priority.ts';
import { remindDueSigners, remindRecipient } from '../../src/sending/reminders.ts';
import { requestSigningCode } from '../../src/signing/codes.ts';
import { signDocument } from '../../src/signing/signing.service.ts';
import { sendDueBulkRows, startBulkSend } from '../../src/templates/bulk-send.ts';
import { createTemplate } from '../../src/templates/templates.service.ts';
import { startWorker } from '../../src/worker/worker.ts';
import { labelledPdf, templateField, templateRole } from '../support/factories.ts';
import {
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  type Harness,
  recipient,
  twoSigners,
  useHarness,
} from '../support/harness.ts';

interface RecordingTransport extends MailTransport {
  sent: OutgoingMail[];
}

/** Records what it is handed; `onSend` runs first (it may throw, as a mail server refusing). */
function recordingTransport(onSend?: (mail: OutgoingMail) => Promise<void> | void): RecordingTransport {
  const transport: RecordingTransport = {
    sent: [],
    async send(mail) {
      await onSend?.(mail);
      transport.sent.push(mail);
      return 'sent';
    },
    close() {},
  };
  return transport;
}

/** `count` invitations queued for `workspaceId` as a bulk send queues them (one statement, bulk). */
async function queueBulk(h: Harness, workspaceId: string, count: number, prefix: string) {
  await h.ctx.db.transaction().execute((trx) =>
    queueMails(
      trx,
      h.ctx,
      Array.from({ length: count }, (_, i) => ({
        workspaceId,
        documentId: null,
        recipientId: null,
        to: `${prefix}${i}@bulk.example`,
        subject: 'Please sign: Services agreement',
        text: 'Your link.',
        priority: 'bulk' as const,
      })),
    ),
  );
  h.clock.advance(1);
}

/** An email-code signer of another workspace, their invitation already delivered. */
async function codeSigner(h: Harness, address: string) {
  const ws = await createTestWorkspace(h.ctx);
  const { links } = await createSentDocument(h.ctx, ws.id, {
    recipients: [recipient(address, 'Vic Tim', { signingMethod: 'email-code' })],
  });
  await deliverDueMails(h.ctx, recordingTransport());
  const link = links.get(address);
  assert.ok(link);
  return { workspaceId: ws.id, session: link.session };
}

/** Every pending mail set aside, and the pace's minute over: each test sees its own mails only. */
async function freshOutbox(h: Harness) {
  await h.ctx.db
    .updateTable('mails')
    .set({ status: 'failed', last_error: 'set aside by test setup' })
    .where('status', '=', 'pending')
    .execute();
  h.clock.advance(120_000);
}

describeEachDatabase('mail fairness', (kind) => {
  const h = useHarness(kind);
  beforeEach(() => freshOutbox(h));

  test('a signing code queued after another workspace’s 1,000 bulk invitations goes out in the first pass', async () => {
    const victim = await codeSigner(h, 'vic@victim.example');
    const bulk = await createTestWorkspace(h.ctx);
    await queueBulk(h, bulk.id, 1000, 'row');
    await requestSigningCode(h.ctx, victim.session);
    const transport = recordingTransport();
    assert.equal(await deliverDueMails(h.ctx, transport), 20);
    assert.equal(transport.sent[0]?.to, 'vic@victim.example', 'the code first');
    assert.match(transport.sent[0]?.subject ?? '', /code/i);
    assert.ok(
      transport.sent.slice(1).every((m) => m.to.endsWith('@bulk.example')),
      'then the bulk send',
    );
  });

  test('a password reset queued after 1,000 bulk invitations goes out in the first pass', async () => {
    const bulk = await createTestWorkspace(h.ctx);
    await queueBulk(h, bulk.id, 1000, 'row');
    await requestPasswordReset(h.ctx, { email: 'forgot@nowhere.example' });
    const transport = recordingTransport();
    await deliverDueMails(h.ctx, transport);
    assert.equal(transport.sent[0]?.to, 'forgot@nowhere.example');
  });

  test('two workspaces’ bulk mails are interleaved, and one with fewer leaves the rest of the pass to the other', async () => {
    const a = await createTestWorkspace(h.ctx);
    const b = await createTestWorkspace(h.ctx);
    const c = await createTestWorkspace(h.ctx);
    await queueBulk(h, a.id, 30, 'a');
    await queueBulk(h, b.id, 30, 'b');
    await queueBulk(h, c.id, 3, 'c');
    const transport = recordingTransport();
    assert.equal(await deliverDueMails(h.ctx, transport), 20);
    const pass = transport.sent.map((m) => m.to.slice(0, 1));
    assert.deepEqual(pass.slice(0, 9), ['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c'], 'each in turn');
    assert.deepEqual(
      pass.slice(9),
      ['a', 'b', 'a', 'b', 'a', 'b', 'a', 'b', 'a', 'b', 'a'],
      'then a and b share what c left',
    );
    // The next pass goes on in turn, the older workspace's first.
    transport.sent.length = 0;
    assert.equal(await deliverDueMails(h.ctx, transport), 20);
    assert.deepEqual(transport.sent.map((m) => m.to.slice(0, 1)).join(''), 'ab'.repeat(10));
  });

  test('two workers claiming at once keep the fair order between them and never claim a mail twice', async () => {
    const a = await createTestWorkspace(h.ctx);
    const b = await createTestWorkspace(h.ctx);
    await queueBulk(h, a.id, 40, 'a');
    await queueBulk(h, b.id, 40, 'b');
    const [one, two] = [recordingTransport(), recordingTransport()];
    await Promise.all([deliverDueMails(h.ctx, one), deliverDueMails(h.ctx, two)]);
    const sent = [...one.sent, ...two.sent].map((m) => m.to);
    assert.equal(new Set(sent).size, sent.length, 'no mail twice');
    assert.equal(sent.length, 40);
    assert.equal(sent.filter((to) => to.startsWith('a')).length, 20, 'half each');
  });

  test('a document sent or a signer reminded by hand mails urgently, its next group, automatic reminders and a bulk send’s rows do not; resets are urgent', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, { recipients: twoSigners });
    await createSentDocument(h.ctx, ws.id, {
      recipients: [recipient('auto@client.example', 'Al Auto')],
      remindEveryDays: 1,
    });
    const ann = links.get('ann@client.example');
    assert.ok(ann);
    h.clock.advance(2 * 3_600_000);
    await remindRecipient(h.ctx, ws.id, id, ann.session.recipientId);
    await signDocument(h.ctx, ann.session, { fullName: 'Ann Lee', consent: true });
    h.clock.advance(86_400_000);
    assert.equal(await remindDueSigners(h.ctx), 1);
    await requestPasswordReset(h.ctx, { email: 'reset@nowhere.example' });
    const priorityOf = async (where: { to: string; subject?: RegExp }) => {
      const rows = await h.ctx.db
        .selectFrom('mails')
        .select(['priority', 'subject'])
        .where('to_address', '=', where.to)
        .orderBy('created_at')
        .execute();
      return rows.filter((r) => !where.subject || where.subject.test(r.subject)).map((r) => r.priority);
    };
    const { urgent, automatic, bulk } = mailPriorities;
    assert.deepEqual(
      await priorityOf({ to: 'ann@client.example' }),
      [urgent, urgent],
      'invitation, reminder by hand',
    );
    assert.deepEqual(
      await priorityOf({ to: 'auto@client.example' }),
      [urgent, automatic],
      'invitation, automatic reminder',
    );
    assert.deepEqual(await priorityOf({ to: 'bob@client.example' }), [automatic], 'the next group');
    assert.deepEqual(await priorityOf({ to: 'reset@nowhere.example' }), [urgent]);

    const template = await createTemplate(h.ctx, {
      workspaceId: ws.id,
      name: 'Services agreement',
      title: 'Services agreement',
      body: 'Please sign.',
      roles: [templateRole('Client')],
      fields: [templateField('Client', 'signature', 100, { height: 40 })],
      expiresInSeconds: 14 * 86_400,
      file: await labelledPdf('Services'),
    });
    await startBulkSend(h.ctx, {
      workspaceId: ws.id,
      templateId: template.id,
      userId: null,
      fileName: 'clients.csv',
      data: Buffer.from('Client email,Client name\r\ncy@rows.example,Cy Row\r\ndi@rows.example,Di Row\r\n'),
    });
    while ((await sendDueBulkRows(h.ctx)) > 0) {}
    assert.deepEqual(await priorityOf({ to: 'cy@rows.example' }), [bulk]);
    assert.deepEqual(await priorityOf({ to: 'di@rows.example' }), [bulk]);
  });

  test('the worker’s urgent lane sends a code while a pass of bulk mail is still sending', async () => {
    const victim = await codeSigner(h, 'lane@victim.example');
    const bulk = await createTestWorkspace(h.ctx);
    await queueBulk(h, bulk.id, 5, 'row');
    // The bulk pass's first send hangs until the code has arrived (no timing: a promise).
    let codeArrived: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      codeArrived = resolve;
    });
    let bulkStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      bulkStarted = resolve;
    });
    const handed: string[] = [];
    const transport = recordingTransport(async (mail) => {
      handed.push(mail.to);
      if (mail.to === 'lane@victim.example') return codeArrived();
      bulkStarted();
      await arrived;
    });
    const worker = await startWorker(h.ctx, {
      transport,
      subscribe: h.subscribe,
      mailIntervalMs: 60_000,
      expiryIntervalMs: 60_000,
    });
    try {
      await started;
      await requestSigningCode(h.ctx, victim.session);
      await arrived;
      assert.equal(handed.length, 2, 'one bulk mail in hand, then the code');
      assert.equal(handed[1], 'lane@victim.example');
      assert.deepEqual(transport.sent, [], 'while the bulk mail was still being sent');
    } finally {
      codeArrived();
      await worker.stop();
    }
  });
});

describeEachDatabase('mail fairness under the pace', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_MAIL_PER_MINUTE: '30' } });
  beforeEach(() => freshOutbox(h));

  test('bulk mail leaves the pace’s reserve to urgent mail, and no minute carries more than the pace', async () => {
    assert.equal(urgentReserve(30), 3);
    const victim = await codeSigner(h, 'pace@victim.example'); // 1 of this minute's 30
    h.clock.advance(1);
    const a = await createTestWorkspace(h.ctx);
    const b = await createTestWorkspace(h.ctx);
    await queueBulk(h, a.id, 100, 'a');
    await queueBulk(h, b.id, 100, 'b');
    const sentAt: Array<{ at: number; bulk: boolean }> = [];
    const transport = recordingTransport((mail) => {
      sentAt.push({ at: h.clock.now().getTime(), bulk: mail.to.endsWith('@bulk.example') });
    });
    while ((await deliverDueMails(h.ctx, transport)) > 0) {}
    assert.equal(transport.sent.length, 26, 'the pace, less the reserve and the invitation');
    assert.equal(transport.sent.filter((m) => m.to.startsWith('a')).length, 13, 'half each');
    // The minute is full for bulk mail, not for a code.
    await requestSigningCode(h.ctx, victim.session);
    assert.equal(await deliverDueMails(h.ctx, transport, { lane: 'urgent' }), 1);
    assert.equal(transport.sent.at(-1)?.to, 'pace@victim.example');
    assert.equal(await deliverDueMails(h.ctx, transport), 0, 'bulk waits for the minute to roll on');
    // Minute after minute: never more than the pace in any 60 s, nor more than the pace
    // less its reserve of bulk mail.
    for (let second = 0; second < 300; second += 5) {
      h.clock.advance(5_000);
      while ((await deliverDueMails(h.ctx, transport)) > 0) {}
    }
    for (const { at } of sentAt) {
      const minute = sentAt.filter((s) => s.at > at - 60_000 && s.at <= at);
      assert.ok(minute.length <= 29, `${minute.length} in the minute to ${at}, with the invitation before`);
      assert.ok(minute.filter((s) => s.bulk).length <= 27, 'bulk keeps out of the reserve');
    }
    assert.ok(sentAt.length >= 27 * 5, `${sentAt.length} sent in six minutes`);
  });

  test('a mail server’s “slow down” holds urgent mail too, the urgent lane included, until the pause is over', async () => {
    const victim = await codeSigner(h, 'held@victim.example');
    const bulk = await createTestWorkspace(h.ctx);
    await queueBulk(h, bulk.id, 3, 'row');
    let refused = false;
    const transport = recordingTransport(async (mail) => {
      if (refused || !mail.to.startsWith('row')) return;
      refused = true;
      // A code asked for while the pass is sending, then the server's 451.
      await requestSigningCode(h.ctx, victim.session);
      throw Object.assign(new Error('451 4.7.1 slow down'), { responseCode: 451 });
    });
    assert.equal(await deliverDueMails(h.ctx, transport), 1, 'the first refused, the rest let go');
    assert.equal(await deliverDueMails(h.ctx, transport, { lane: 'urgent' }), 0, 'the code waits too');
    assert.equal(await deliverDueMails(h.ctx, transport), 0);
    h.clock.advance(mailServerPauseMs);
    await deliverDueMails(h.ctx, transport);
    assert.equal(transport.sent[0]?.to, 'held@victim.example', 'then the code first');
    assert.equal(transport.sent.length, 4);
  });
});
