// The pages that say something went wrong speak the visitor's language too (issue 51): the
// root's "not found" and "that address could not be read" (answered before any scope, by the
// request's headers alone: the language cookie a member's browser keeps, else
// Accept-Language), the page every HTML route answers while the database is unreachable, and
// the web app's and the plain scopes' error pages (a form sent without its token, one too
// large to take). English stays the answer to a browser that asks for nothing else.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createOutageMonitor } from '../../src/db/availability.ts';
import { translator } from '../../src/i18n/messages.ts';
import { languageCookie } from '../../src/ui/page-language.ts';
import {
  createSentDocument,
  createTestWorkspace,
  databaseKinds,
  describeEachDatabase,
  linkFor,
  unreachableDatabase,
  useHarness,
  withApp,
} from '../support/harness.ts';
import { assertSays, webPeople } from '../support/web-client.ts';

const ja = translator('ja');
const de = translator('de');
const ar = translator('ar');

describeEachDatabase('the error pages in the visitor’s language', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const people = webPeople(h, '10.63');

  test('the root’s 404 and 400 follow Accept-Language, and the cookie before it', async () => {
    const notFound = await fetch(`${h.baseUrl}/nothing/here`, {
      headers: { 'accept-language': 'de-DE,de;q=0.9' },
    });
    assert.equal(notFound.status, 404);
    const notFoundText = await notFound.text();
    assert.match(notFoundText, /<html lang="de" dir="ltr">/);
    assertSays(
      notFoundText,
      de.t('page.notFound.title'),
      de.t('page.notFound.message'),
      de.t('app.notFound.start'),
    );
    const kept = await fetch(`${h.baseUrl}/nothing/here`, {
      headers: { 'accept-language': 'de', cookie: `other=1; ${languageCookie}=ar` },
    });
    const keptText = await kept.text();
    assert.match(keptText, /<html lang="ar" dir="rtl">/);
    assertSays(keptText, ar.t('page.notFound.message'));
    // A control character in a page's query: the address cannot be read.
    const bad = await fetch(`${h.baseUrl}/documents?search=%00`, { headers: { 'accept-language': 'ja' } });
    assert.equal(bad.status, 400);
    const badText = await bad.text();
    assert.match(badText, /<html lang="ja" dir="ltr">/);
    assertSays(badText, ja.t('page.badRequest.heading'), ja.t('page.badRequest.message'));
    const english = await (await fetch(`${h.baseUrl}/nothing/here`)).text();
    assert.match(english, /<html lang="en" dir="ltr">/);
    assertSays(english, 'There is nothing at this address.');
  });

  test('an expired form and a form too large, in the member’s language and in the visitor’s', async () => {
    const { client } = await people.speakingOwner('ja');
    await client.get('/settings/time-zone');
    const expired = await client.post('/settings/time-zone', { timeZone: 'Asia/Tokyo' }, { csrf: false });
    assert.equal(expired.status, 403);
    assert.match(expired.text, /<html lang="ja" dir="ltr">/);
    assertSays(expired.text, ja.t('page.formExpired.heading'), ja.t('page.formExpired.message'));
    await client.get('/documents/new');
    const large = await client.post(
      '/documents',
      { title: 'x'.repeat(100 * 1024) },
      { headers: { referer: `${h.baseUrl}/documents/new` } },
    );
    assert.equal(large.status, 413);
    assertSays(
      large.text,
      ja.t('page.tooLarge.heading'),
      ja.t('page.tooLarge.message', { kilobytes: 64 }),
      ja.t('page.backToForm'),
    );
    const visitor = people.browser({ acceptLanguage: 'ar' });
    await visitor.get('/login');
    const visitorExpired = await visitor.post(
      '/login',
      { email: 'a@b.example', password: 'x' },
      { csrf: false },
    );
    assert.equal(visitorExpired.status, 403);
    assert.match(visitorExpired.text, /<html lang="ar" dir="rtl">/);
    assertSays(visitorExpired.text, ar.t('page.formExpired.heading'));
    const verify = await fetch(`${h.baseUrl}/verify/nothing`, { headers: { 'accept-language': 'de' } });
    assert.equal(verify.status, 404);
    assertSays(await verify.text(), de.t('page.notFound.message'));
  });
});

describe('while the database is unreachable', () => {
  const h = useHarness(databaseKinds[0] ?? 'pglite');
  test('every page says so in the language the browser asks for', async () => {
    // A signing link that works, opened once the database is gone.
    const { id } = await createSentDocument(h.ctx, (await createTestWorkspace(h.ctx)).id);
    const { path: signing } = await linkFor(h.ctx, id, 'ann@client.example');
    const broken = unreachableDatabase();
    const outage = createOutageMonitor({ db: broken, log: h.ctx.log, probeIntervalMs: 60_000 });
    const ctx = { ...h.ctx, db: broken, outage };
    const pages: Array<[string, string, string]> = [];
    await withApp(ctx, { burst: 10, refillPerSecond: 1 }, async (base) => {
      for (const [path, language] of [
        ['/t/a-public-link-token', 'ja'],
        [signing, 'ar'],
        ['/password-reset/a-reset-token', 'de'],
      ] as Array<[string, 'ja' | 'ar' | 'de']>) {
        const res = await fetch(`${base}${path}`, { headers: { 'accept-language': language } });
        assert.equal(res.status, 503, path);
        assert.equal(res.headers.get('retry-after'), '5');
        pages.push([path, language, await res.text()]);
      }
    });
    outage.close();
    await broken.destroy();
    for (const [path, language, text] of pages) {
      const tr = translator(language as 'ja' | 'ar' | 'de');
      assert.match(text, new RegExp(`<html lang="${language}" dir="${tr.dir}">`), path);
      assertSays(text, tr.t('page.unavailable.heading'), tr.t('page.unavailable.message'));
    }
  });
});
