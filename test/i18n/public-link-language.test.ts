// A template's public link in the visitor's language (issue 51), on both databases: a browser
// asking for French (`Accept-Language`) reads both steps in French with `<html lang="fr">`,
// its refusals too, gets the code mail in French and lands on a French signing page (its
// document's recipient is French); the switch (`?lang=de`, a GET form) turns the pages German
// and the choice sticks in a cookie over the browser's header; with no language asked for, the
// workspace's default. Arabic pages are right to left.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Language, languages } from '../../src/i18n/languages.ts';
import { translator } from '../../src/i18n/messages.ts';
import { listMails } from '../../src/mail/mail.service.ts';
import { setPublicLink } from '../../src/templates/public-links.ts';
import { updateWorkspaceLanguage } from '../../src/workspaces/workspaces.repository.ts';
import { createWaiverTemplate } from '../support/factories.ts';
import { describeEachDatabase, latestCodeFor, useHarness } from '../support/harness.ts';
import { assertPage, errorBeside, escaped, webPeople } from '../support/web-client.ts';

/** The HTML-escaped text of a message, as a page shows it. */ const said = (
  language: Language,
  key: Parameters<ReturnType<typeof translator>['t']>[0],
  values = {},
) => escaped(translator(language).t(key, values));

describeEachDatabase('a public link in the visitor’s language', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const people = webPeople(h, '10.51');

  async function link(defaultLanguage?: Language, roleLanguage: Language | null = null) {
    const owner = await people.newOwner();
    if (defaultLanguage) await updateWorkspaceLanguage(h.ctx.db, owner.workspaceId, defaultLanguage);
    const { id } = await createWaiverTemplate(h.ctx, owner.workspaceId, { language: roleLanguage });
    const token = await setPublicLink(h.ctx, owner.workspaceId, id, { maxUses: null, endsAt: null });
    return `/t/${token}`;
  }

  test('French by Accept-Language: both steps, a refusal, the code mail and the signing page', async () => {
    const path = await link();
    const visitor = people.browser({ acceptLanguage: 'fr-CH, fr;q=0.9, en;q=0.5' });
    const first = await visitor.get(path);
    assertPage(first, 200);
    assert.match(first.text, /<html lang="fr" dir="ltr">/);
    for (const key of ['publicLink.intro', 'publicLink.fullName', 'publicLink.mailCode'] as const)
      assert.ok(first.text.includes(said('fr', key)), key);
    assert.doesNotMatch(first.text, /Mail me a code|Your full name/);
    // The switch names each language in itself, the current one chosen.
    assert.match(first.text, /<option value="fr" lang="fr" selected>Français<\/option>/);
    for (const language of languages) assert.ok(first.text.includes(`<option value="${language}"`), language);

    const refused = await visitor.post(path, { fullName: '', email: 'not an address' });
    assertPage(refused, 400);
    assert.equal(errorBeside(refused.text, 'fullName'), translator('fr').t('publicLink.refusal.fullName'));
    assert.equal(errorBeside(refused.text, 'email'), translator('fr').t('publicLink.refusal.email'));

    const asked = await visitor.post(path, { fullName: 'Élise Martin', email: 'elise@example.fr' });
    assert.equal(asked.status, 303, asked.text.slice(0, 300));
    const codePage = await visitor.get(asked.location as string);
    assertPage(codePage, 200);
    assert.match(codePage.text, /<html lang="fr"/);
    assert.ok(codePage.text.includes(said('fr', 'publicLink.open')));
    const [mail] = await listMails(h.ctx, { to: 'elise@example.fr', limit: 5 });
    assert.ok(mail);
    assert.equal(mail.subject, translator('fr').t('mail.code.subject', { title: 'Climbing waiver' }));

    const wrong = await visitor.post(asked.location as string, { code: '12' });
    assertPage(wrong, 400);
    assert.equal(errorBeside(wrong.text, 'code'), translator('fr').t('publicLink.refusal.codeFormat'));

    const signed = await visitor.post(asked.location as string, {
      code: await latestCodeFor(h.ctx, 'elise@example.fr'),
    });
    assert.equal(signed.status, 303);
    const signing = await visitor.get(signed.location as string);
    assertPage(signing, 200);
    assert.match(signing.text, /<html lang="fr" dir="ltr">/);
    const recipient = await h.ctx.db
      .selectFrom('recipients')
      .select('language')
      .where('email', '=', 'elise@example.fr')
      .executeTakeFirstOrThrow();
    assert.equal(recipient.language, 'fr');
  });

  test('the switch turns the pages German and the cookie keeps it over the browser’s language; Arabic is right to left', async () => {
    const path = await link();
    const visitor = people.browser({ acceptLanguage: 'fr' });
    assertPage(await visitor.get(path), 200);
    const german = await visitor.get(`${path}?lang=de`);
    assertPage(german, 200);
    assert.match(german.text, /<html lang="de" dir="ltr">/);
    assert.ok(german.text.includes(said('de', 'publicLink.mailCode')));
    assert.equal(visitor.cookies.get('signet_language'), 'de');
    const again = await visitor.get(path);
    assert.match(again.text, /<html lang="de"/);
    const arabic = await visitor.get(`${path}?lang=ar`);
    assert.match(arabic.text, /<html lang="ar" dir="rtl">/);
    assert.ok(arabic.text.includes(said('ar', 'publicLink.intro')));
    // A language Signet has none of changes nothing.
    const klingon = await visitor.get(`${path}?lang=tlh`);
    assert.match(klingon.text, /<html lang="ar"/);
  });

  test('a browser asking for none of Signet’s languages reads the workspace’s default', async () => {
    const path = await link('ja');
    const visitor = people.browser({ acceptLanguage: 'tlh, eo;q=0.8' });
    const page = await visitor.get(path);
    assertPage(page, 200);
    assert.match(page.text, /<html lang="ja" dir="ltr">/);
    assert.ok(page.text.includes(said('ja', 'publicLink.intro')));
  });

  test('its role’s language comes before the workspace’s default, and the visitor’s own before both', async () => {
    const path = await link('ja', 'pl');
    const stranger = people.browser({ acceptLanguage: 'tlh' });
    const page = await stranger.get(path);
    assertPage(page, 200);
    assert.match(page.text, /<html lang="pl" dir="ltr">/);
    assert.ok(page.text.includes(said('pl', 'publicLink.intro')));
    const asked = await stranger.post(path, { fullName: 'Jan Kowalski', email: 'jan@example.pl' });
    assert.equal(asked.status, 303, asked.text.slice(0, 300));
    const [mail] = await listMails(h.ctx, { to: 'jan@example.pl', limit: 5 });
    assert.equal(mail?.subject, translator('pl').t('mail.code.subject', { title: 'Climbing waiver' }));
    const signed = await stranger.post(asked.location as string, {
      code: await latestCodeFor(h.ctx, 'jan@example.pl'),
    });
    assert.equal(signed.status, 303);

    const swede = people.browser({ acceptLanguage: 'sv-SE' });
    assert.match((await swede.get(path)).text, /<html lang="sv" dir="ltr">/);
    const fromSweden = await swede.post(path, { fullName: 'Astrid Berg', email: 'astrid@example.se' });
    await swede.post(fromSweden.location as string, {
      code: await latestCodeFor(h.ctx, 'astrid@example.se'),
    });
    const rows = await h.ctx.db
      .selectFrom('recipients')
      .select(['email', 'language'])
      .where('email', 'in', ['jan@example.pl', 'astrid@example.se'])
      .orderBy('email')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.email, r.language]),
      [
        ['astrid@example.se', 'sv'],
        ['jan@example.pl', 'pl'],
      ],
    );
  });
});
