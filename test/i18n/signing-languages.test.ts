// The signing page in the recipient's language over HTTP (issue 51), on both databases: a
// German, a Japanese and an Arabic signer each get `<html lang dir>` and their catalogue's
// sentences, sign without JavaScript and land on the done page in their language; a refusal
// is in it too; the language switch (a plain form) sticks for the recipient, their next
// mail follows it, and a tag Signet has no catalogue of changes nothing; a page without a
// working link follows Accept-Language.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Language } from '../../src/i18n/languages.ts';
import { pageTranslator, translator } from '../../src/i18n/messages.ts';
import { listMails } from '../../src/mail/mail.service.ts';
import { drawingRefusal } from '../../src/pdf/fonts.ts';
import { remindRecipient } from '../../src/sending/reminders.ts';
import { escapeHtml } from '../../src/ui/html.ts';
import {
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  recipient,
  recipientRow,
  useHarness,
} from '../support/harness.ts';

interface Page {
  status: number;
  headers: Headers;
  text: string;
}

const said = (language: Language, key: Parameters<ReturnType<typeof translator>['t']>[0], values = {}) =>
  escapeHtml(translator(language).t(key, values));

describeEachDatabase('the signing page in the recipient’s language', (kind) => {
  const h = useHarness(kind);

  async function get(path: string, headers: Record<string, string> = {}): Promise<Page> {
    const response = await fetch(h.baseUrl + path, { headers, redirect: 'manual' });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  async function post(path: string, fields: Record<string, string>): Promise<Page> {
    const response = await fetch(h.baseUrl + path, {
      method: 'POST',
      body: new URLSearchParams(fields),
      redirect: 'manual',
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  test('German, Japanese and Arabic signers read, sign and see the done page in their language', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const people = [
      { email: 'anna@kunde.example', name: 'Anna Schmidt', language: 'de' as const, dir: 'ltr' },
      { email: 'kenji@client.example', name: '山田 健司', language: 'ja' as const, dir: 'ltr' },
      { email: 'layla@client.example', name: 'ليلى حداد', language: 'ar' as const, dir: 'rtl' },
    ];
    const { links } = await createSentDocument(h.ctx, ws.id, {
      title: 'Rahmenvertrag',
      recipients: people.map((p) => recipient(p.email, p.name, { language: p.language })),
    });
    for (const person of people) {
      const path = links.get(person.email)?.path;
      assert.ok(path, person.email);
      const page = await get(path, { 'accept-language': 'en' });
      assert.equal(page.status, 200);
      assert.match(page.text, new RegExp(`<html lang="${person.language}" dir="${person.dir}">`));
      for (const key of ['sign.heading', 'sign.submit', 'sign.consent', 'sign.decline.summary'] as const)
        assert.ok(page.text.includes(said(person.language, key)), `${person.language} ${key}`);
      assert.ok(!page.text.includes('Sign this document'), 'no English heading');

      // A refusal (no consent) comes back in their language, with what they typed kept.
      const refused = await post(`${path}/sign`, { fullName: person.name });
      assert.equal(refused.status, 400);
      assert.ok(refused.text.includes(said(person.language, 'refusal.consent-required')));
      assert.match(refused.text, new RegExp(`<html lang="${person.language}"`));
      // A typed name with a letter no face draws: the drawing rule's sentence, in their language.
      const undrawable = `${person.name} \u1c5a`;
      const unsigned = await post(`${path}/sign`, { fullName: undrawable, consent: 'yes' });
      assert.equal(unsigned.status, 400);
      const rule = drawingRefusal('yourName', undrawable);
      // The page's translator: in Arabic the characters are isolated from the sentence's direction.
      const sentence = rule && pageTranslator(person.language).t(rule.key, rule.values);
      assert.ok(sentence && unsigned.text.includes(escapeHtml(sentence)), person.language);

      const signed = await post(`${path}/sign`, { fullName: person.name, consent: 'yes' });
      assert.equal(signed.status, 303);
      const done = await get(signed.headers.get('location') as string);
      assert.match(done.text, new RegExp(`<html lang="${person.language}" dir="${person.dir}">`));
      assert.ok(done.text.includes(said(person.language, 'sign.notice.signed')));
    }
  });

  test('the language switch sticks for the recipient and their next mail; an unknown tag changes nothing', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, {
      title: 'Lease',
      recipients: [recipient('ann@client.example', 'Ann Lee')],
    });
    const path = links.get('ann@client.example')?.path as string;
    const english = await get(path);
    assert.match(english.text, /<html lang="en" dir="ltr">/);
    assert.ok(english.text.includes(`action="${path}/language"`), 'the switch is a plain form');
    assert.ok(english.text.includes('<option value="he" lang="he">עברית</option>'));

    const switched = await post(`${path}/language`, { language: 'he' });
    assert.equal(switched.status, 303);
    assert.equal(switched.headers.get('location'), `${path}?done=language`);
    const hebrew = await get(switched.headers.get('location') as string);
    assert.match(hebrew.text, /<html lang="he" dir="rtl">/);
    assert.ok(hebrew.text.includes(said('he', 'sign.notice.language')));
    assert.ok(hebrew.text.includes('<option value="he" lang="he" selected>'));
    assert.equal((await recipientRow(h.ctx, id, 'ann@client.example')).language, 'he');

    h.clock.advance(2 * 60 * 60 * 1000);
    const ann = await recipientRow(h.ctx, id, 'ann@client.example');
    await remindRecipient(h.ctx, ws.id, id, ann.id);
    const reminder = (await listMails(h.ctx, { documentId: id, limit: 10 }))[0];
    assert.equal(reminder?.subject, translator('he').t('mail.reminder.subject', { title: 'Lease' }));

    const unknown = await post(`${path}/language`, { language: 'tlh' });
    assert.equal(unknown.status, 303);
    assert.equal(unknown.headers.get('location'), path);
    assert.equal((await recipientRow(h.ctx, id, 'ann@client.example')).language, 'he');
  });

  test('a signing link that does not work answers in the browser’s language', async () => {
    const page = await get('/sign/6f1c2c1e-0000-4000-8000-000000000001/not-a-token', {
      'accept-language': 'fr-CH, fr;q=0.9, en;q=0.8',
    });
    assert.equal(page.status, 404);
    assert.match(page.text, /<html lang="fr" dir="ltr">/);
    assert.ok(page.text.includes(said('fr', 'sign.notFound.heading')));
    const ask = await get('/sign/6f1c2c1e-0000-4000-8000-000000000001', { 'accept-language': 'ja' });
    assert.ok(ask.text.includes(said('ja', 'sign.askLink.heading')));
  });
});
