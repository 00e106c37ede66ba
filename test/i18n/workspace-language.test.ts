// The workspace's default language (issue 51), on both databases: English until an owner
// chooses another in Settings › Language; then a recipient without a language of their own
// is mailed in it, while one with a language keeps theirs. Members cannot change it; a
// language Signet has no catalogue of is refused and nothing changes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { translator } from '../../src/i18n/messages.ts';
import { listMails } from '../../src/mail/mail.service.ts';
import { createSentDocument, describeEachDatabase, recipient, useHarness } from '../support/harness.ts';
import {
  assertPage,
  assertRedirect,
  type TestAccount,
  type WebClient,
  webPeople,
} from '../support/web-client.ts';

describeEachDatabase('the workspace’s default language', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.51');
  let owner: TestAccount;
  let client: WebClient;

  test('setup: an owner; English is the default, linked from the account page', async () => {
    owner = await people.newOwner();
    client = await people.signedIn(owner);
    const account = await client.get('/settings/account');
    assert.ok(account.text.includes('href="/settings/language"'));
    const page = await client.get('/settings/language');
    assertPage(page, 200);
    assert.ok(page.text.includes('<option value="en" lang="en" selected>English</option>'));
    assert.ok(page.text.includes('<option value="pl" lang="pl">Polski</option>'));
  });

  test('an owner chooses Polish: a recipient without a language is mailed in Polish, one with Japanese in Japanese', async () => {
    assertRedirect(
      await client.post('/settings/language', { language: 'pl' }),
      '/settings/language?done=saved',
    );
    const saved = await client.get('/settings/language?done=saved');
    assert.ok(saved.text.includes('<option value="pl" lang="pl" selected>Polski</option>'));
    const { id } = await createSentDocument(h.ctx, owner.workspaceId, {
      title: 'Umowa najmu',
      recipients: [
        recipient('jan@klient.example', 'Jan Kowalski'),
        recipient('kenji@client.example', '山田 健司', { language: 'ja' }),
      ],
    });
    const mails = await listMails(h.ctx, { documentId: id });
    const subject = (to: string) => mails.find((m) => m.to === to)?.subject;
    assert.equal(
      subject('jan@klient.example'),
      translator('pl').t('mail.signingRequest.subjectSigner', { title: 'Umowa najmu' }),
    );
    assert.equal(
      subject('kenji@client.example'),
      translator('ja').t('mail.signingRequest.subjectSigner', { title: 'Umowa najmu' }),
    );
  });

  test('a member cannot change it; a language without a catalogue is refused and nothing changes', async () => {
    const member = await people.newMember(owner);
    const memberClient = await people.signedIn(member);
    assertPage(await memberClient.get('/settings/language'), 403);
    await memberClient.get('/settings/account');
    assertPage(await memberClient.post('/settings/language', { language: 'de' }), 403);
    await client.get('/settings/language');
    const refused = await client.post('/settings/language', { language: 'tlh' });
    assertPage(refused, 400);
    assert.ok(refused.text.includes('Choose a language from the list.'));
    const row = await h.ctx.db
      .selectFrom('workspaces')
      .select('default_language')
      .where('id', '=', owner.workspaceId)
      .executeTakeFirstOrThrow();
    assert.equal(row.default_language, 'pl');
  });
});
