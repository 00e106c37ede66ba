// The sentences that refuse an uploaded PDF in the uploader's language (issue 51): every rule
// of the upload (inspect.ts, the decode budget, the one-look and text rules, active content,
// the thread's limits, the day's allowance) refuses with a key of the catalogues, so the
// new-document form says it in the member's language. Over HTTP on both databases, a member
// who chose Polish uploads files that break each kind of rule and reads each refusal in
// Polish, as the same file inspected here says it; in the pseudo-language no refusal leaves an
// English word but the names of what it found.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type MessageKey, translator } from '../../src/i18n/messages.ts';
import { problemsOf, sentenceIn } from '../../src/i18n/refusals.ts';
import { InputError } from '../../src/input-error.ts';
import { activeContentRefusal } from '../../src/pdf/active-content.ts';
import { inspectPdf } from '../../src/pdf/inspect.ts';
import { describeEachDatabase, useHarness } from '../support/harness.ts';
import {
  activeContentPdfs,
  ambiguousPdfs,
  annotationPdfs,
  fieldValuePdfs,
  nestedPdf,
  optionalContentPdfs,
} from '../support/hostile-pdfs.ts';
import { englishLeft, pseudoTranslator } from '../support/pseudo-language.ts';
import { assertPage, errorBeside, pdfFile, webPeople } from '../support/web-client.ts';

/** A file of each kind of refusal, with the key it must be refused by. */
async function refusedFiles(): Promise<Array<[string, Uint8Array, MessageKey]>> {
  const [script] = activeContentPdfs();
  const [layers] = optionalContentPdfs();
  const [field] = fieldValuePdfs();
  const [ambiguous] = ambiguousPdfs();
  const [markup] = annotationPdfs();
  assert.ok(script && layers && field && ambiguous && markup);
  return [
    ['not a PDF', new TextEncoder().encode('Zapłata w terminie 14 dni.'), 'upload.notPdf'],
    ['an empty file', new Uint8Array(0), 'upload.empty'],
    ['JavaScript', await script[1], 'upload.activeContent'],
    ['layers', layers[1], 'upload.layers'],
    ['a field whose value differs', await field[1], 'upload.valueDiffers'],
    ['an ambiguous file', ambiguous[1], 'upload.ambiguous'],
    ['an annotation shown otherwise in print', await markup[1], 'upload.screenAndPrint'],
    ['nesting past the budget', nestedPdf(100_000), 'upload.budget.nesting'],
  ];
}

/** The refusal of `data` as inspectPdf gives it: its keyed sentence on `file`. */
async function refusalOf(data: Uint8Array) {
  const error = await inspectPdf(data, { maxBytes: 10_000_000 }).then(
    () => assert.fail('refused'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof InputError);
  const problem = problemsOf(error).file;
  assert.ok(problem && typeof problem !== 'string', `keyed: ${error.message}`);
  return problem;
}

describeEachDatabase('an upload’s refusals in the member’s language', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.58');
  const pl = translator('pl');
  const en = translator('en');

  test('a member who chose Polish reads why each file is refused in Polish, beside the file field', async () => {
    const { client } = await people.speakingOwner('pl');
    assertPage(await client.get('/documents/new'), 200);
    const form = { title: 'Umowa', r0_email: 'jan@kowalski.test', r0_name: 'Jan Kowalski' };
    for (const [what, data, key] of await refusedFiles()) {
      const problem = await refusalOf(data);
      assert.equal(problem.key, key, what);
      const res = await client.post('/documents', { ...form, file: pdfFile(data) });
      assertPage(res, 400, what);
      const beside = errorBeside(res.text, 'file');
      assert.equal(beside, sentenceIn(problem, pl), what);
      assert.notEqual(beside, sentenceIn(problem, en), `${what}: not English`);
    }
  });

  test('in the pseudo-language every refusal is a sentence of the catalogues, the list of what a file holds included', async () => {
    const tr = pseudoTranslator();
    // The names of what was found, as they are: a field's, formats and functions.
    const values = ['customer', 'JavaScript', 'XFA', 'RichMedia', 'Flash', 'NeedAppearances'];
    for (const [what, data] of await refusedFiles())
      assert.deepEqual(englishLeft(sentenceIn(await refusalOf(data), tr), values), [], what);
    // Several kinds of active content are each named in the language, joined as it joins a list.
    const many = activeContentRefusal(['embeddedFiles', 'javascript', 'xfa']);
    assert.deepEqual(englishLeft(sentenceIn(many, tr), values), []);
    const polish = sentenceIn(many, pl);
    const kinds = (['embeddedFiles', 'javascript', 'xfa'] as const).map((kind) =>
      pl.t('upload.activeKind', { kind }),
    );
    assert.ok(polish.includes(pl.list(kinds)), polish);
  });
});
