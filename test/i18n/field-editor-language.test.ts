// The field editor in the member's language (issue 51), on both databases: a member who chose
// Polish places a draft's fields and a template's in Polish: the page, its title, the type
// names, the yes and no a checkbox's value is typed with, the refusals of the placement rules
// beside the form that caused them (in the page and in the script's JSON), and the refusal
// once the document is sent. Rendered in the pseudo-language, the editor and every refusal of
// the placement rules leave no English word but the values they show.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkFields } from '../../src/fields/field-rules.ts';
import { listFields } from '../../src/fields/fields.service.ts';
import { type KeyedSentence, translator } from '../../src/i18n/messages.ts';
import { say, sentencesIn } from '../../src/i18n/refusals.ts';
import { InputError } from '../../src/input-error.ts';
import { sendDocument } from '../../src/sending/send.ts';
import { checkTemplateInput } from '../../src/templates/template-input.ts';
import { createTemplate } from '../../src/templates/templates.service.ts';
import { renderToString } from '../../src/ui/html.ts';
import {
  type FieldEditorView,
  fieldEditorView,
  fieldListSection,
  fieldShapes,
} from '../../src/web/fields.views.ts';
import { templateRole } from '../support/factories.ts';
import {
  createDraftDocument,
  describeEachDatabase,
  pagesPdf,
  recipient,
  useHarness,
} from '../support/harness.ts';
import { englishLeft, pseudoTranslator, readableText } from '../support/pseudo-language.ts';
import {
  assertPage,
  assertRedirect,
  assertSays,
  errorBeside,
  escaped,
  fieldEditorForm,
  webPeople,
} from '../support/web-client.ts';

const ann = 'ann@client.example';

/** "Field n: …" as the rules say it. */
const numbered = (n: number, problem: KeyedSentence): KeyedSentence => ({
  key: 'editor.problem.field',
  values: { n },
  parts: { problem },
});

/** English sentences of the editor that must be gone once Polish has its keys. */
const english =
  /Add a field|Add field|Filled in by you|No fields yet|Place the fields|lies off page|is filled by its signer|Asked when used|has been sent: its fields/;

describeEachDatabase('the field editor in the member’s language', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.77');
  const pl = translator('pl');

  const polishMember = () => people.speakingOwner('pl');

  test('a member who chose Polish places a draft’s fields in Polish, refusals and all', async () => {
    const { owner, client } = await polishMember();
    const { id } = await createDraftDocument(h.ctx, owner.workspaceId, {
      title: 'Umowa najmu',
      recipients: [recipient(ann, 'Anna Lis')],
      file: await pagesPdf(1),
    });
    const path = `/documents/${id}/fields`;
    const empty = await client.get(path);
    assertPage(empty, 200);
    assert.match(empty.text, /<html lang="pl" dir="ltr">/);
    assert.ok(empty.text.includes(`<title>${escaped(pl.t('editor.title', { title: 'Umowa najmu' }))}`));
    assertSays(
      empty.text,
      pl.t('editor.heading'),
      pl.t('editor.intro.document'),
      pl.t('editor.add.title'),
      pl.t('editor.add.positionsSized', { width: 595, height: 842 }),
      pl.t('editor.input.signer'),
      pl.t('editor.input.value'),
      pl.t('editor.list.none'),
      pl.t('editor.pages.page', { page: 1, count: 1 }),
      pl.t('field.type.date'),
    );

    // Refused: off the page, beside the add form, what was typed kept.
    const refused = await client.post(path, fieldEditorForm(ann, { x: '500' }));
    assertPage(refused, 400);
    const offPage = say(
      numbered(1, { key: 'editor.problem.offPage', values: { page: 1, width: 595, height: 842 } }),
      pl,
    );
    assert.equal(errorBeside(refused.text, 'add'), offPage);
    assert.match(refused.text, /id="add-x" name="x"[^>]*value="500"/);

    // A checkbox's value typed in Polish is its yes; the list says the new field in Polish.
    const yes = pl.t('editor.yes');
    assertPage(await client.get(path), 200);
    const added = await client.post(
      path,
      fieldEditorForm(ann, { type: 'checkbox', width: '20', height: '20', value: yes }),
    );
    assertRedirect(added, `${path}?${new URLSearchParams({ recipient: ann, type: 'checkbox', page: '1' })}`);
    const [field] = await listFields(h.ctx.db, owner.workspaceId, id);
    assert.deepEqual([field?.type, field?.prefilled, field?.value], ['checkbox', true, 'yes']);
    const one = await client.get(path);
    assertSays(
      one.text,
      pl.t('editor.list.title', { count: 1 }),
      pl.t('field.type.checkbox'),
      pl.t('form.save'),
    );
    assert.match(
      one.text,
      new RegExp(`id="f-${field?.id}-value" name="value" type="text"[^>]*value="${escaped(yes)}"`),
    );

    // The field's own form refused: too small, beside that form; a word that is no yes or no.
    const small = await client.post(
      `${path}/${field?.id}`,
      fieldEditorForm(ann, { type: 'checkbox', width: '3', height: '3' }),
    );
    assertPage(small, 400);
    assert.equal(
      errorBeside(small.text, `f-${field?.id}`),
      say(numbered(1, { key: 'editor.problem.tooSmall', values: { width: 3, height: 3, min: 6 } }), pl),
    );
    assertPage(await client.get(path), 200);
    const maybe = await client.post(
      path,
      fieldEditorForm(ann, { type: 'checkbox', x: '300', value: 'może' }),
    );
    assertPage(maybe, 400);
    assert.equal(
      errorBeside(maybe.text, 'add'),
      say(
        numbered(2, {
          key: 'editor.problem.takesTrueFalse',
          parts: { field: { key: 'editor.problem.itsValue' } },
        }),
        pl,
      ),
    );

    // The script's JSON: its refusal in Polish too.
    assertPage(await client.get(path), 200);
    const json = await client.post(path, fieldEditorForm(ann, { x: '500' }), {
      headers: { accept: 'application/json' },
    });
    assert.equal(json.status, 400);
    assert.equal(
      JSON.parse(json.text).error,
      say(numbered(2, { key: 'editor.problem.offPage', values: { page: 1, width: 595, height: 842 } }), pl),
    );

    // Sent: the editor says so, and a post is refused, in Polish.
    await sendDocument(h.ctx, owner.workspaceId, id);
    const sent = await client.get(path);
    assertSays(sent.text, pl.t('editor.sent'));
    const late = await client.post(path, fieldEditorForm(ann));
    assertPage(late, 409);
    assertSays(late.text, pl.t('refusal.not-a-draft'));
    const lateJson = await client.post(path, fieldEditorForm(ann), {
      headers: { accept: 'application/json' },
    });
    assert.equal(JSON.parse(lateJson.text).error, pl.t('refusal.not-a-draft'));

    for (const page of [empty, refused, one, small, maybe, sent])
      assert.ok(!english.test(page.text), `no English left: ${english.exec(page.text)?.[0]}`);
  });

  test('a member who chose Polish places a template’s fields in Polish, refusals and all', async () => {
    const { owner, client } = await polishMember();
    const { id } = await createTemplate(h.ctx, {
      workspaceId: owner.workspaceId,
      name: 'Najem',
      title: 'Najem',
      roles: [templateRole('Najemca')],
      fields: [{ role: 'Najemca', type: 'signature', page: 1, x: 72, y: 100, width: 160, height: 36 }],
      expiresInSeconds: 30 * 86_400,
      file: await pagesPdf(1),
    });
    const path = `/templates/${id}/fields`;
    const editor = await client.get(path);
    assertPage(editor, 200);
    assert.match(editor.text, /<html lang="pl" dir="ltr">/);
    assert.ok(editor.text.includes(`<title>${escaped(pl.t('editor.title', { title: 'Najem' }))}`));
    assertSays(
      editor.text,
      pl.t('editor.intro.template', { asked: pl.t('editor.input.asked') }),
      pl.t('editor.input.role'),
      pl.t('editor.input.asked'),
      pl.t('editor.list.title', { count: 1 }),
      pl.t('editor.field.deleteLabel', { name: pl.t('field.type.signature'), page: 1 }),
    );

    const asked = await client.post(
      path,
      fieldEditorForm('Najemca', { senderFills: 'yes', label: 'Podpis', y: '300' }),
    );
    assertPage(asked, 400);
    const notAskable = numbered(2, {
      key: 'editor.problem.notAskable',
      parts: { type: { key: 'editor.typeWord.signature' } },
      lists: { takers: [{ key: 'editor.typeWord.text' }, { key: 'editor.typeWord.checkbox' }] },
    });
    assert.equal(errorBeside(asked.text, 'add'), say(notAskable, pl));
    assertPage(await client.get(path), 200);
    const stranger = await client.post(path, fieldEditorForm('Kupujący', { y: '300' }));
    assertPage(stranger, 400);
    assert.equal(
      errorBeside(stranger.text, 'add'),
      say(numbered(2, { key: 'editor.problem.notRole', values: { recipient: 'Kupujący' } }), pl),
    );
    for (const page of [editor, asked, stranger])
      assert.ok(!english.test(page.text), `no English left: ${english.exec(page.text)?.[0]}`);
  });

  test('the placement rules keep their English for the API while their keys say it in Polish', () => {
    const document = {
      recipients: [{ id: 'r', email: ann, role: 'signer' as const }],
      pages: [{ width: 595, height: 842 }],
    };
    try {
      checkFields(
        [{ recipient: ann, type: 'text', page: 1, x: 500, y: 10, width: 200, height: 20 }],
        document,
        (a, b) => a === b,
      );
      assert.fail('refused');
    } catch (error) {
      assert.ok(error instanceof InputError);
      assert.equal(
        error.fields.fields,
        'Field 1: it lies off page 1, which is 595 × 842 points: the field must fit within x 0–595 and y 0–842.',
      );
      assert.deepEqual(error.details.pointers, { fields: '/fields/0' });
      assert.equal(
        sentencesIn(error, pl).fields,
        say(numbered(1, { key: 'editor.problem.offPage', values: { page: 1, width: 595, height: 842 } }), pl),
      );
    }
  });

  test('in the pseudo-language the editor and the placement rules’ refusals leave no English but the values', async () => {
    const tr = pseudoTranslator();
    const pages = [
      { number: 1, src: '/documents/d/pages/1', width: 595, height: 842 },
      { number: 2, src: '/documents/d/pages/2', width: 842, height: 595 },
    ];
    const field = (id: string, more: Partial<FieldEditorView['fields'][number]>) => ({
      id,
      tone: 0,
      recipient: ann,
      type: 'signature' as const,
      page: 1,
      x: 72,
      y: 90,
      width: 180,
      height: 40,
      required: true,
      label: null,
      maxLength: null,
      value: null,
      ...more,
    });
    const documentView: FieldEditorView = {
      subject: { kind: 'document', base: '/documents/d', title: 'Umowa najmu', editable: true },
      pages,
      signers: [{ value: ann, label: `Anna Lis <${ann}>` }],
      fields: [
        field('a', {}),
        field('b', { type: 'text', label: 'Firma', maxLength: 40, value: 'Kowalski i Syn', page: 2 }),
        field('c', { type: 'checkbox', value: true, required: false }),
      ],
      add: {},
      errors: { add: 'BŁĄD', a: 'BŁĄD' },
    };
    const templateView: FieldEditorView = {
      ...documentView,
      subject: { kind: 'template', base: '/templates/t', title: 'Najem', editable: true },
      signers: [{ value: 'Najemca', label: 'Najemca' }],
      fields: [field('d', { recipient: 'Najemca', type: 'text', label: 'Czynsz', senderFills: true })],
    };
    const values = [
      'Umowa najmu',
      'Najem',
      'Anna Lis',
      ann,
      'Firma',
      'Kowalski i Syn',
      'Najemca',
      'Czynsz',
      'BŁĄD',
    ];
    const sent: FieldEditorView = { ...documentView, subject: { ...documentView.subject, editable: false } };
    for (const page of [
      fieldEditorView(documentView, 'token', null, tr),
      fieldEditorView(templateView, 'token', null, tr),
      fieldEditorView(sent, 'token', null, tr),
      fieldEditorView({ ...documentView, pages: [], fields: [] }, 'token', null, tr),
      fieldListSection({ ...documentView, fields: [] }, 'token', tr),
      fieldShapes(documentView, { number: 1, height: 842 }, tr),
    ])
      assert.deepEqual(englishLeft(readableText(renderToString(page)), values), []);

    // Every refusal of the placement rules, said in the pseudo-language.
    const document = {
      recipients: [
        { id: 'r', email: ann, role: 'signer' as const },
        { id: 'v', email: 'val@client.example', role: 'viewer' as const },
      ],
      pages: [{ width: 595, height: 842, covered: [{ x: 300, y: 300, width: 50, height: 20 }] }],
    };
    const ok = { recipient: ann, type: 'text', page: 1, x: 10, y: 10, width: 60, height: 20 };
    const refused: unknown[][] = [
      [null],
      [{ ...ok, recipient: '' }],
      [{ ...ok, type: 'stamp' }],
      [{ ...ok, page: 0 }],
      [{ ...ok, x: 'left' }],
      [{ ...ok, required: 'maybe' }],
      [{ ...ok, label: 3 }],
      [{ ...ok, label: 'ᱚ' }],
      [{ ...ok, maxLength: 'x' }],
      [{ ...ok, value: 3 }],
      [{ ...ok, type: 'initials', value: 'x' }],
      [{ ...ok, recipient: 'eve@else.example' }],
      [{ ...ok, recipient: 'val@client.example' }],
      [{ ...ok, page: 4 }],
      [{ ...ok, width: 2 }],
      [{ ...ok, x: 580 }],
      [{ ...ok, x: 310, y: 305 }],
      [{ ...ok, label: 'x'.repeat(101) }],
      [{ ...ok, type: 'date', maxLength: 3 }],
      [{ ...ok, maxLength: 600 }],
      [{ ...ok, value: true }],
      [{ ...ok, type: 'checkbox', value: 'x' }],
      [{ ...ok, value: 'ᱚ' }],
      [{ ...ok, maxLength: 2, value: 'abc' }],
      [{ ...ok, value: ' ' }],
      Array.from({ length: 7 }, () => ({ ...ok, page: 9 })),
    ];
    const sentences: string[] = [];
    const said = (run: () => unknown) => {
      try {
        run();
        assert.fail('refused');
      } catch (error) {
        assert.ok(error instanceof InputError, String(error));
        sentences.push(...Object.values(sentencesIn(error, tr)));
      }
    };
    for (const fields of refused) said(() => checkFields(fields, document, (a, b) => a === b));
    said(() => checkFields([ok], { ...document, pages: null }, (a, b) => a === b));
    said(() => checkFields(Array(201).fill(ok), document, (a, b) => a === b));
    const template = {
      workspaceId: 'w',
      name: 'Najem',
      title: 'Najem',
      roles: [templateRole('Najemca')],
      expiresInSeconds: 86_400,
      kept: { sha256: 'x', pages: 1, pageSizes: [{ width: 595, height: 842 }] },
    };
    const base = { role: 'Najemca', type: 'text', page: 1, x: 10, y: 10, width: 60, height: 20 };
    for (const fields of [
      [{ ...base, senderFills: 'yes' }],
      [{ ...base, type: 'signature', senderFills: true, label: 'Podpis' }],
      [{ ...base, senderFills: true }],
      [{ ...base, value: 'x' }],
      [{ ...base, role: 'Kupujący' }],
    ]) {
      try {
        await checkTemplateInput(h.ctx, { ...template, fields });
        assert.fail('refused');
      } catch (error) {
        assert.ok(error instanceof InputError, String(error));
        sentences.push(...Object.values(sentencesIn(error, tr)));
      }
    }
    assert.equal(sentences.length, refused.length + 2 + 5);
    // The values a refusal shows: what was typed, and the API's type names it lists as they are.
    const shown = [
      ann,
      'val@client.example',
      'eve@else.example',
      'Kupujący',
      'signature, initials, date, name, email, text, checkbox',
    ];
    for (const sentence of sentences) assert.deepEqual(englishLeft(sentence, shown), [], sentence);
  });
});
