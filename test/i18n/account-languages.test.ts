// The account pages and a member's own language (issue 51), on both databases, over HTTP:
// log-in, sign-up and the password reset follow the visitor's language (Accept-Language, the
// switch's ?lang=, its cookie), their refusals too (Polish plurals), and so do the mails they
// send; a sign-up's language becomes the new account's own. A member chooses their language
// on the account page (kept for this browser's log-in pages), a tag Signet has none of is
// refused; Signet's mails to owners (a decline, a completion) are in each owner's language,
// else the workspace's default.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionUser } from '../../src/accounts/accounts.service.ts';
import { minPasswordLength } from '../../src/accounts/passwords.ts';
import { endonym, languages } from '../../src/i18n/languages.ts';
import { translator } from '../../src/i18n/messages.ts';
import { listMails } from '../../src/mail/mail.service.ts';
import { declineDocument } from '../../src/signing/signing.service.ts';
import { renderToString } from '../../src/ui/html.ts';
import { accountView } from '../../src/web/auth.views.ts';
import { updateWorkspaceLanguage } from '../../src/workspaces/workspaces.repository.ts';
import {
  createSentDocument,
  describeEachDatabase,
  recipient,
  signingLinksOf,
  useHarness,
} from '../support/harness.ts';
import { englishLeft, pseudoTranslator, readableText } from '../support/pseudo-language.ts';
import {
  assertPage,
  assertRedirect,
  confirmationLinkFor,
  errorBeside,
  escaped,
  mailsTo,
  testPassword,
  uniqueEmail,
  webPeople,
} from '../support/web-client.ts';

describeEachDatabase('the account pages and a member’s language', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const people = webPeople(h, '10.53');
  const pl = translator('pl');

  async function userLanguage(email: string) {
    const row = await h.ctx.db
      .selectFrom('users')
      .select('language')
      .where('email', '=', email)
      .executeTakeFirst();
    return row?.language;
  }

  test('log-in in Polish by Accept-Language, its refusal too; the switch turns it German and the cookie keeps it', async () => {
    const visitor = people.browser({ acceptLanguage: 'pl-PL,pl;q=0.9,en;q=0.5' });
    const page = await visitor.get('/login');
    assertPage(page, 200);
    assert.match(page.text, /<html lang="pl" dir="ltr">/);
    assert.match(page.text, new RegExp(`<title>${escaped(pl.t('auth.title.login'))} · Signet</title>`));
    for (const key of ['auth.login.heading', 'auth.email', 'auth.password', 'auth.login.forgot'] as const)
      assert.ok(page.text.includes(escaped(pl.t(key))), key);
    assert.match(page.text, /<option value="pl" lang="pl" selected>Polski<\/option>/);

    const refused = await visitor.post('/login', {
      email: 'nobody@example.pl',
      password: 'not the password',
    });
    assertPage(refused, 401);
    assert.ok(refused.text.includes(escaped(pl.t('auth.refusal.wrongPassword'))));

    const german = await visitor.get('/login?lang=de');
    assert.match(german.text, /<html lang="de" dir="ltr">/);
    assert.ok(german.text.includes(escaped(translator('de').t('auth.login.heading'))));
    const kept = await visitor.get('/password-reset');
    assert.match(kept.text, /<html lang="de"/);
    assert.ok(kept.text.includes(escaped(translator('de').t('auth.resetRequest.intro'))));
  });

  test('a sign-up in Polish: its refusals (a plural), its mail, and the account made in Polish', async () => {
    const visitor = people.browser({ acceptLanguage: 'pl' });
    assertPage(await visitor.get('/signup'), 200);
    const short = await visitor.post('/signup', {
      email: 'zly adres',
      password: 'krótkie',
      workspaceName: '',
    });
    assertPage(short, 400);
    assert.equal(errorBeside(short.text, 'email'), pl.t('auth.refusal.emailInvalid'));
    // Polish counts 10 as "many": "10 znaków".
    assert.equal(errorBeside(short.text, 'password'), pl.t('auth.refusal.passwordShort', { count: 10 }));
    assert.match(pl.t('auth.refusal.passwordShort', { count: 10 }), /10 znaków/);
    assert.match(pl.t('auth.refusal.passwordShort', { count: 2 }), /2 znaki/);
    assert.equal(errorBeside(short.text, 'workspaceName'), pl.t('auth.refusal.workspaceNameMissing'));

    const email = uniqueEmail('kasia');
    const sent = await visitor.post('/signup', {
      email,
      password: testPassword,
      workspaceName: 'Kowalski sp. z o.o.',
    });
    assert.equal(sent.status, 303, sent.text.slice(0, 300));
    const inbox = await visitor.get(sent.location as string);
    assert.match(inbox.text, /<html lang="pl"/);
    const [mail] = await mailsTo(h.ctx, email);
    assert.equal(mail?.subject, pl.t('mail.signup.subject'));
    assert.ok(mail?.text.includes(pl.t('mail.signup.validity', { hours: 24 })), mail?.text);

    const link = await confirmationLinkFor(h.ctx, email);
    assertPage(await visitor.get(link), 200);
    assertRedirect(await visitor.post(link, {}), '/documents');
    assert.equal(await userLanguage(email), 'pl');
  });

  test('a password reset mails the account’s own language, else the page’s; a refusal in the page’s', async () => {
    const owner = await people.newOwner();
    const visitor = people.browser({ acceptLanguage: 'ja' });
    assertPage(await visitor.get('/password-reset'), 200);
    const refused = await visitor.post('/password-reset', { email: 'kenji@example.jp.' });
    assertPage(refused, 400);
    assert.match(refused.text, /<html lang="ja"/);
    assert.equal(errorBeside(refused.text, 'email'), translator('ja').t('auth.refusal.emailTrailingDot'));

    assert.equal((await visitor.post('/password-reset', { email: owner.email })).status, 303);
    assert.equal((await mailsTo(h.ctx, owner.email))[0]?.subject, translator('ja').t('mail.reset.subject'));
    const stranger = uniqueEmail('nobody');
    await visitor.post('/password-reset', { email: stranger });
    assert.ok(
      (await mailsTo(h.ctx, stranger))[0]?.text.includes(translator('ja').t('mail.resetNoAccount.body')),
    );

    await h.ctx.db.updateTable('users').set({ language: 'de' }).where('id', '=', owner.userId).execute();
    h.clock.advance(60_000);
    const later = people.browser({ acceptLanguage: 'ja' });
    assertPage(await later.get('/password-reset'), 200);
    assert.equal((await later.post('/password-reset', { email: owner.email })).status, 303);
    const [newest] = await mailsTo(h.ctx, owner.email);
    assert.equal(newest?.subject, translator('de').t('mail.reset.subject'));
  });

  test('a member chooses their language on the account page; a tag Signet has none of is refused', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const page = await client.get('/settings/account');
    assertPage(page, 200);
    assert.match(page.text, /<option value="" selected>The workspace’s default \(English\)<\/option>/);

    const refused = await client.post('/settings/account/language', { language: 'tlh' });
    assertPage(refused, 400);
    assert.equal(errorBeside(refused.text, 'language'), translator('en').t('account.language.refusal'));
    assert.equal(await userLanguage(owner.email), null);

    const saved = await client.post('/settings/account/language', { language: 'pl' });
    assertRedirect(saved, '/settings/account?done=language');
    assert.equal(await userLanguage(owner.email), 'pl');
    // The page itself is in the language chosen from then on.
    const done = await client.get('/settings/account?done=language');
    assert.match(done.text, /<html lang="pl" dir="ltr">/);
    assert.ok(done.text.includes(escaped(pl.t('account.language.done', { language: 'Polski' }))));
    assert.match(done.text, /<option value="pl" lang="pl" selected>Polski<\/option>/);
    // This browser's log-in page follows it once logged out.
    assertRedirect(await client.post('/logout', {}), '/login');
    assert.match((await client.get('/login')).text, /<html lang="pl"/);

    // Another browser (English) logs in: from then on its log-in pages are Polish too.
    const elsewhere = people.browser({ acceptLanguage: 'en' });
    assertRedirect(await people.logIn(elsewhere, owner.email), '/documents');
    assertPage(await elsewhere.get('/documents'), 200);
    assertRedirect(await elsewhere.post('/logout', {}), '/login');
    assert.match((await elsewhere.get('/login')).text, /<html lang="pl"/);

    // None: the workspace's default again, and this browser's own language for its log-in pages.
    const again = await people.signedIn(owner);
    assertPage(await again.get('/settings/account'), 200);
    assertRedirect(
      await again.post('/settings/account/language', { language: '' }),
      '/settings/account?done=language',
    );
    assert.ok(
      again.setCookies.some((c) => /^signet_language=;/.test(c)),
      again.setCookies.join('\n'),
    );
    assert.equal(await userLanguage(owner.email), null);
  });

  test('the account page in the member’s language: its facts and a refused password change', async () => {
    const { client } = await people.speakingOwner('pl');
    const page = await client.get('/settings/account');
    assertPage(page, 200);
    assert.match(page.text, /<html lang="pl" dir="ltr">/);
    for (const sentence of [
      pl.t('account.heading'),
      pl.t('account.password.heading'),
      pl.t('account.password.current'),
      pl.t('auth.passwordHint', { count: minPasswordLength }),
      pl.t('account.language.intro'),
    ])
      assert.ok(page.text.includes(escaped(sentence)), sentence);
    const refused = await client.post('/settings/account/password', {
      currentPassword: 'not the password',
      newPassword: 'short',
    });
    assertPage(refused, 400);
    assert.equal(errorBeside(refused.text, 'currentPassword'), pl.t('auth.refusal.notCurrentPassword'));
    assert.doesNotMatch(
      page.text + refused.text,
      /Your account|Signed in as|Times are shown|Change password|for now/,
      'no English sentence left',
    );
  });

  test('in the pseudo-language the account page leaves no English word but the values it shows', () => {
    const tr = pseudoTranslator();
    const member = {
      email: 'ola@firma.example',
      role: 'owner',
      workspaceName: 'Kowalski i Syn',
      workspaceId: 'w1',
      timeZone: 'Europe/Warsaw',
    } as SessionUser;
    const workspaces = [
      { id: 'w1', name: 'Kowalski i Syn', role: 'owner' },
      { id: 'w2', name: 'Nowak', role: 'member' },
    ];
    const values = [
      'ola@firma.example',
      'Kowalski i Syn',
      'Nowak',
      'Europe/Warsaw',
      ...languages.map(endonym),
    ];
    for (const done of ['password', 'reset', 'language', null] as const) {
      const view = accountView(
        'token',
        {
          member,
          workspaces,
          errors: { newPassword: tr.t('auth.refusal.passwordShort', { count: 12 }) },
          done,
          language: 'pl',
          workspaceLanguage: 'de',
        },
        tr,
      );
      assert.deepEqual(englishLeft(readableText(renderToString(view)), values), [], String(done));
    }
  });

  test('owners are told of a decline and a completion in their own language, else the workspace’s default', async () => {
    const owner = await people.newOwner();
    const second = await people.newMember(owner, 'owner');
    await updateWorkspaceLanguage(h.ctx.db, owner.workspaceId, 'de');
    await h.ctx.db.updateTable('users').set({ language: 'pl' }).where('id', '=', owner.userId).execute();
    const { id } = await createSentDocument(h.ctx, owner.workspaceId, {
      title: 'Umowa najmu',
      recipients: [recipient('ann@client.example', 'Ann Lee')],
    });
    const session = (await signingLinksOf(h.ctx, id)).get('ann@client.example')?.session;
    assert.ok(session);
    await declineDocument(h.ctx, session, { reason: 'Zła kwota.' });
    const [polish] = await listMails(h.ctx, { documentId: id, to: owner.email, limit: 5 });
    assert.equal(polish?.subject, pl.t('mail.declined.subject', { title: 'Umowa najmu' }));
    assert.ok(
      polish?.text.includes(
        pl.t('mail.declined.body', { name: 'Ann Lee', email: 'ann@client.example', title: 'Umowa najmu' }),
      ),
      polish?.text,
    );
    assert.ok(polish?.text.includes('> Zła kwota.'));
    const [german] = await listMails(h.ctx, { documentId: id, to: second.email, limit: 5 });
    assert.equal(german?.subject, translator('de').t('mail.declined.subject', { title: 'Umowa najmu' }));
  });
});
