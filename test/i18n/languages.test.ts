// The languages (issue 51): a tag read into one of Signet's, a browser's Accept-Language
// negotiated, each language's direction and name, and plural forms as Polish and Arabic
// count (Polish one, few, many; Arabic zero, one, two, few, many, other), each written in
// the catalogue and chosen by the number.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  direction,
  endonym,
  firstLanguage,
  languages,
  negotiateLanguage,
  parseLanguage,
} from '../../src/i18n/languages.ts';
import { translator } from '../../src/i18n/messages.ts';

test('a tag is read into one of Signet’s languages, or refused', () => {
  const cases: Array<[string, string | null]> = [
    ['de', 'de'],
    ['DE', 'de'],
    ['de-AT', 'de'],
    ['de-CH', 'de'],
    ['pt-br', 'pt-BR'],
    ['pt', 'pt-BR'],
    ['pt-PT', 'pt-BR'],
    ['zh', 'zh-CN'],
    ['zh-Hans', 'zh-CN'],
    ['zh-Hans-CN', 'zh-CN'],
    ['ar-EG', 'ar'],
    ['he-IL', 'he'],
    ['iw', 'he'],
    ['en-US', 'en'],
    ['zh-TW', null],
    ['tlh', null],
    ['xx', null],
    ['not a tag!', null],
    ['', null],
  ];
  for (const [tag, expected] of cases) assert.equal(parseLanguage(tag), expected, tag);
  for (const language of languages) assert.equal(parseLanguage(language), language);
});

test('Accept-Language: by weight, the first among equals, q=0 refused, else the fallback', () => {
  assert.equal(negotiateLanguage('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5'), 'fr');
  assert.equal(negotiateLanguage('tlh, ja;q=0.5, ko;q=0.9'), 'ko');
  assert.equal(negotiateLanguage('de;q=0, pl'), 'pl');
  assert.equal(negotiateLanguage('tlh', 'es'), 'es');
  assert.equal(negotiateLanguage(undefined, 'it'), 'it');
  assert.equal(negotiateLanguage('*'), 'en');
  assert.equal(negotiateLanguage(';;;,,,q=2'), 'en');
  assert.equal(negotiateLanguage(`${'xx,'.repeat(50)}ja`), 'en', 'only the first 20 entries are read');
});

test('the recipient’s own language first, then the workspace’s, then English', () => {
  assert.equal(firstLanguage('ja', 'de'), 'ja');
  assert.equal(firstLanguage(null, 'de'), 'de');
  assert.equal(firstLanguage('tlh', undefined), 'en');
});

test('Arabic and Hebrew are written right to left, each language named in itself', () => {
  assert.deepEqual(
    languages.filter((language) => direction(language) === 'rtl'),
    ['ar', 'he'],
  );
  assert.equal(endonym('de'), 'Deutsch');
  assert.equal(endonym('ja'), '日本語');
  assert.equal(endonym('ar'), 'العربية');
  assert.equal(endonym('pt-BR'), 'Português (Brasil)');
  assert.equal(new Set(languages.map(endonym)).size, languages.length);
});

test('Polish plural forms: 1 minutę, 2 minuty, 5 minut, 22 minuty, 1,5 minuty', () => {
  const pl = translator('pl');
  const forms = [1, 2, 5, 22, 25, 1.5].map((minutes) => pl.t('mail.code.validity', { minutes }));
  const said = (form: string | undefined, words: string) => assert.ok(form?.includes(` ${words}.`), form);
  said(forms[0], '1 minutę');
  said(forms[1], '2 minuty');
  said(forms[2], '5 minut');
  said(forms[3], '22 minuty');
  said(forms[4], '25 minut');
  said(forms[5], '1,5 minuty');
  assert.equal(
    new Set(forms.map((form) => form.replace(/[\d,]+/g, '#'))).size,
    3,
    'one, few and many differ',
  );
});

test('Arabic plural forms: each of zero, one, two, few, many and other is its own', () => {
  const ar = translator('ar');
  const categories = new Intl.PluralRules('ar').resolvedOptions().pluralCategories;
  assert.deepEqual([...categories].sort(), ['few', 'many', 'one', 'other', 'two', 'zero']);
  const byCount = { zero: 0, one: 1, two: 2, few: 3, many: 11, other: 100 };
  const pages = Object.entries(byCount).map(([category, count]) => {
    assert.equal(new Intl.PluralRules('ar').select(count), category);
    return ar.t('sign.pageCount', { count }).replace(/[\d٠-٩]+/g, '#');
  });
  assert.ok(new Set(pages).size >= 4, `Arabic counts pages in at least four forms: ${pages.join(' | ')}`);
  assert.match(ar.t('mail.code.validity', { minutes: 2 }), /دقيقتين|دقيقتان/);
});
