// An owner's settings pages in their language (issue 51), on both databases: the workspace's
// time zone and its recipients' default language, with their notices and refusals, read in
// Polish by an owner who chose it; in the pseudo-language neither page leaves an English word
// but the values it shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionUser } from '../../src/accounts/accounts.service.ts';
import { translator } from '../../src/i18n/messages.ts';
import { renderToString } from '../../src/ui/html.ts';
import { languageView } from '../../src/web/language.pages.ts';
import { timeZoneView } from '../../src/web/time-zone.pages.ts';
import { timeZones } from '../../src/workspaces/workspaces.service.ts';
import { describeEachDatabase, useHarness } from '../support/harness.ts';
import { englishLeft, pseudoTranslator, readableText } from '../support/pseudo-language.ts';
import { assertPage, assertRedirect, errorBeside, escaped, webPeople } from '../support/web-client.ts';

describeEachDatabase('an owner’s settings in their language', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.60');
  const pl = translator('pl');

  test('an owner who chose Polish sets the time zone and the recipients’ language in Polish', async () => {
    const { owner, client } = await people.speakingOwner('pl');
    const zone = await client.get('/settings/time-zone');
    assertPage(zone, 200);
    assert.match(zone.text, /<html lang="pl" dir="ltr">/);
    assert.ok(zone.text.includes(escaped(pl.t('settings.timeZone.title'))));
    const refusedZone = await client.post('/settings/time-zone', { timeZone: 'Mars/Olympus' });
    assertPage(refusedZone, 400);
    assert.equal(errorBeside(refusedZone.text, 'timeZone'), pl.t('settings.timeZone.refusal'));
    assertRedirect(
      await client.post('/settings/time-zone', { timeZone: 'Europe/Warsaw' }),
      '/settings/time-zone?done=saved',
    );
    const saved = await client.get('/settings/time-zone?done=saved');
    assert.ok(saved.text.includes(escaped(pl.t('settings.timeZone.done', { zone: 'Europe/Warsaw' }))));

    const language = await client.get('/settings/language');
    assertPage(language, 200);
    assert.ok(language.text.includes(escaped(pl.t('settings.language.label'))));
    const refused = await client.post('/settings/language', { language: 'tlh' });
    assertPage(refused, 400);
    assert.equal(errorBeside(refused.text, 'language'), pl.t('settings.language.refusal'));
    assertRedirect(
      await client.post('/settings/language', { language: 'cs' }),
      '/settings/language?done=saved',
    );
    const chosen = await client.get('/settings/language?done=saved');
    const workspace = owner.workspaceName;
    assert.ok(
      chosen.text.includes(escaped(pl.t('settings.language.done', { workspace, language: 'Čeština' }))),
    );
    assert.ok(!/Choose a|from now on/.test(refused.text + refusedZone.text + chosen.text), 'no English left');
  });

  test('in the pseudo-language the settings pages leave no English word but the values they show', () => {
    const tr = pseudoTranslator();
    const member = { workspaceName: 'Kowalski i Syn', timeZone: 'Europe/Warsaw' } as SessionUser;
    // The zones are offered by their IANA names, the languages by their own.
    const values = ['Kowalski i Syn', 'Čeština', ...timeZones];
    const now = new Date('2026-12-04T12:00:00Z');
    for (const page of [
      timeZoneView(member, 'token', now, tr, true, tr.t('settings.timeZone.refusal')),
      languageView(member, 'token', 'cs', tr, true, tr.t('settings.language.refusal')),
    ])
      assert.deepEqual(englishLeft(readableText(renderToString(page)), values), []);
  });
});
