// A page's translator (i18n/messages.ts pageTranslator): in a right-to-left language each text
// a sentence shows is isolated from the sentence's direction (FSI … PDI), the values that
// choose a case are not, and numbers are formatted as before; in a left-to-right language it
// is the translator itself. Mails and the certificate keep `translator`, without isolates.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { languages } from '../../src/i18n/languages.ts';
import { pageTranslator, translator } from '../../src/i18n/messages.ts';
import { say } from '../../src/i18n/refusals.ts';

const fsi = '\u2068';
const pdi = '\u2069';

test('in Arabic and Hebrew a sentence’s texts are isolated; its select and plural values still choose', () => {
  for (const language of ['ar', 'he'] as const) {
    const page = pageTranslator(language);
    const plain = translator(language);
    const values = { email: 'ann@client.example', first: 'Company email', row: 5, column: 'Client email' };
    const said = page.t('bulk.problem.samePerson', values);
    assert.ok(said.includes(`${fsi}ann@client.example${pdi}`), said);
    assert.ok(said.includes(`${fsi}Client email${pdi}`), said);
    assert.equal(said.replaceAll(fsi, '').replaceAll(pdi, ''), plain.t('bulk.problem.samePerson', values));
    // `role` chooses the select's case: isolated, it would be "other" (a member) for an owner.
    const owner = page.t('account.workspaces.other', { name: 'Acme', role: 'owner' });
    assert.equal(owner, plain.t('account.workspaces.other', { name: `${fsi}Acme${pdi}`, role: 'owner' }));
    assert.notEqual(owner, page.t('account.workspaces.other', { name: 'Acme', role: 'member' }));
    // A plural's count and a keyed sentence's parts and lists.
    const warning = say(
      {
        key: 'bulk.warning.repeated',
        values: { count: 2, column: 'Client email', email: 'ann@client.example', first: 2, documents: 3 },
        lists: {
          rows: [
            { key: 'bulk.row', values: { row: 3 } },
            { key: 'bulk.row', values: { row: 4 } },
          ],
        },
      },
      page,
    );
    assert.ok(warning.includes(`${fsi}ann@client.example${pdi}`), warning);
    assert.notEqual(page.dir, 'ltr');
  }
});

test('in a left-to-right language the page’s translator is the translator: nothing is added', () => {
  for (const language of languages.filter((l) => translator(l).dir === 'ltr'))
    assert.equal(pageTranslator(language), translator(language), language);
  // The mails' and the certificate's Arabic has no isolates.
  assert.ok(!translator('ar').t('bulk.problem.columnMissing', { column: 'Client email' }).includes(fsi));
});
