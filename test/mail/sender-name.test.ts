// The name a recipient's mail comes from (issue 52), over real SMTP, on both databases: the
// sender's brand (else its workspace's name) "via Signet", in the recipient's language, at
// SIGNET_MAIL_FROM's address, encoded as mail clients read it when it is not ASCII; an
// account's mail keeps SIGNET_MAIL_FROM as it is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { requestPasswordReset } from '../../src/accounts/password-resets.ts';
import { translator } from '../../src/i18n/messages.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { deliverDueMails } from '../../src/mail/mail.service.ts';
import { addressOf, createMailTransport } from '../../src/mail/mailer.ts';
import { withdrawDocument } from '../../src/sending/ending.ts';
import { setWorkspaceBrand } from '../../src/workspaces/brand.ts';
import { createWorkspace } from '../../src/workspaces/workspaces.service.ts';
import {
  callApi,
  createSentDocument,
  describeEachDatabase,
  recipient,
  useHarness,
} from '../support/harness.ts';
import { headerOf, type SmtpReceiver, startSmtpReceiver } from '../support/smtp-receiver.ts';
import { newDocumentFields, webPeople } from '../support/web-client.ts';

test('the address of SIGNET_MAIL_FROM, written with a name or without', () => {
  assert.equal(addressOf('Signet <no-reply@acme.example>'), 'no-reply@acme.example');
  assert.equal(addressOf('"Signet, Inc." < no-reply@acme.example >'), 'no-reply@acme.example');
  assert.equal(addressOf('no-reply@acme.example'), 'no-reply@acme.example');
});

/** A local SMTP server, and Signet's transport to it from SIGNET_MAIL_FROM's address, for `run`. */
async function withSmtp(
  run: (smtp: SmtpReceiver, transport: ReturnType<typeof createMailTransport>) => Promise<void>,
): Promise<void> {
  const smtp = await startSmtpReceiver();
  const transport = createMailTransport({
    smtpUrl: smtp.url,
    from: 'Signet <no-reply@signet.example>',
    log: pino({ level: 'silent' }),
  });
  try {
    await run(smtp, transport);
  } finally {
    transport.close();
    await smtp.close();
  }
}

describeEachDatabase('the name a recipient’s mail comes from', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const people = webPeople(h, '10.65');

  test('the brand’s name via Signet, in each recipient’s language, at the configured address', async () => {
    await withSmtp(async (smtp, transport) => {
      const workspace = await createWorkspace(h.ctx, { name: 'Mueller Logistik', plan: 'max' });
      const recipients = [
        recipient('ann@client.example', 'Ann Lee'),
        recipient('jonas@client.example', 'Jonas Weber', { language: 'de' }),
        recipient('yuki@client.example', 'Yuki Sato', { language: 'ja' }),
      ];
      await createSentDocument(h.ctx, workspace.id, { title: 'Plain', recipients: recipients.slice(0, 1) });
      await setWorkspaceBrand(h.ctx, workspace.id, {
        displayName: 'Müller & Söhne GmbH',
        accent: '',
        sentWithSignet: true,
      });
      await createSentDocument(h.ctx, workspace.id, { title: 'Branded', recipients });
      while ((await deliverDueMails(h.ctx, transport)) > 0) {}
      // The From header as a mail client shows it, a quoted name unquoted.
      const fromOf = (to: string, subject: RegExp) => {
        const mail = smtp.received.find(
          (m) => m.to.includes(to) && subject.test(headerOf(m.raw, 'Subject') ?? ''),
        );
        assert.ok(mail, `a mail to ${to}`);
        return headerOf(mail.raw, 'From')?.replace(/^"(.*)" </, '$1 <');
      };
      const brand = 'Müller & Söhne GmbH';
      // Before the brand: the workspace's own name.
      assert.equal(
        fromOf('ann@client.example', /Plain/),
        `Mueller Logistik via Signet <no-reply@signet.example>`,
      );
      assert.equal(fromOf('ann@client.example', /Branded/), `${brand} via Signet <no-reply@signet.example>`);
      for (const [to, language] of [
        ['jonas@client.example', 'de'],
        ['yuki@client.example', 'ja'],
      ] as const)
        assert.equal(
          fromOf(to, /./),
          `${translator(language).t('mail.fromName', { sender: brand })} <no-reply@signet.example>`,
          language,
        );
      // Non-ASCII names travel encoded, never as raw 8-bit header bytes.
      const raw = smtp.received.find((m) => m.to.includes('jonas@client.example'))?.raw ?? '';
      assert.match(raw.split(/\r?\n/).find((l) => l.startsWith('From:')) ?? '', /=\?UTF-8\?/i);
      const stored = await h.ctx.db
        .selectFrom('mails')
        .select('from_name')
        .where('to_address', '=', 'jonas@client.example')
        .executeTakeFirstOrThrow();
      assert.equal(stored.from_name, 'Müller & Söhne GmbH über Signet');
    });
  });

  test('a reply reaches the member who made the document, while they are one; an API’s document has no Reply-To', async () => {
    await withSmtp(async (smtp, transport) => {
      const owner = await people.newOwner();
      const member = await people.newMember(owner);
      const client = await people.signedIn(member);
      await client.get('/documents/new');
      const made = await client.post('/documents', {
        ...newDocumentFields('Lease with a reply'),
        r0_email: 'tia@tenant.example',
        r0_name: 'Tia Tenant',
        body: 'The tenant rents the flat.',
      });
      assert.equal(made.status, 303, made.text.slice(0, 300));
      const documentPath = made.location as string;
      await client.get(documentPath);
      assert.equal((await client.post(`${documentPath}/send`)).status, 303);
      const viaApi = await callApi(h, 'POST', '/v1/documents', {
        key: (await createApiKey(h.ctx, { workspaceId: owner.workspaceId, name: 'w', scope: 'write' }))
          .secret,
        body: {
          title: 'Made by an integrator',
          text: 'The parties agree.',
          recipients: [{ email: 'ira@tenant.example', fullName: 'Ira Tenant', role: 'signer' }],
          send: true,
        },
      });
      assert.equal(viaApi.status, 201, JSON.stringify(viaApi.body));
      while ((await deliverDueMails(h.ctx, transport)) > 0) {}
      const mailTo = (to: string) => smtp.received.filter((m) => m.to.includes(to));
      assert.equal(mailTo('tia@tenant.example').length, 1);
      assert.equal(headerOf(mailTo('tia@tenant.example')[0]?.raw ?? '', 'Reply-To'), member.email);
      assert.equal(
        headerOf(mailTo('ira@tenant.example')[0]?.raw ?? '', 'Reply-To'),
        null,
        'nobody to reply to',
      );

      // The member leaves: the document's next mail (its withdrawal) names no one to reply to.
      await h.ctx.db.deleteFrom('memberships').where('user_id', '=', member.userId).execute();
      await withdrawDocument(h.ctx, owner.workspaceId, documentPath.split('/').pop() as string, {
        by: owner.email,
      });
      while ((await deliverDueMails(h.ctx, transport)) > 0) {}
      const [, withdrawn] = mailTo('tia@tenant.example');
      assert.ok(withdrawn, 'the withdrawal mailed');
      assert.equal(headerOf(withdrawn.raw, 'Reply-To'), null);
    });
  });

  test('a member’s mail keeps SIGNET_MAIL_FROM as it is', async () => {
    await withSmtp(async (smtp, transport) => {
      await requestPasswordReset(h.ctx, { email: 'nobody@client.example' });
      while ((await deliverDueMails(h.ctx, transport)) > 0) {}
      const mail = smtp.received.find((m) => m.to.includes('nobody@client.example'));
      assert.ok(mail);
      assert.equal(headerOf(mail.raw, 'From'), 'Signet <no-reply@signet.example>');
    });
  });
});
