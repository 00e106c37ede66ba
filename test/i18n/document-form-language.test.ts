// The new-document form and a draft's edit form in the member's language (issue 51), on both
// databases: a member who chose Polish reads the form, its choices and every refusal in
// Polish, each beside its input with the form's own row numbers (blank rows counted), the
// summary counted in Polish plurals; "Show the value" and the live value say the amount in
// Polish conventions; a draft whose expiry the form's choices do not hold names it in Polish;
// a sender's refused action on a document is said in Polish too. Rendered in the
// pseudo-language, the form (new, edited, with a kept PDF, every refusal a person can cause
// shown) leaves no English word but the values it shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { translator } from '../../src/i18n/messages.ts';
import { problemsOf } from '../../src/i18n/refusals.ts';
import { InputError } from '../../src/input-error.ts';
import { checkDocumentInput } from '../../src/sending/draft-input.ts';
import { sendDocument } from '../../src/sending/send.ts';
import { errorSummary } from '../../src/ui/forms.ts';
import { renderToString } from '../../src/ui/html.ts';
import { formErrors, previewValue, pricingOf } from '../../src/web/document-form.ts';
import { editDocumentView, newDocumentView, sectionAnchors } from '../../src/web/document-form.views.ts';
import { createDraftDocument, describeEachDatabase, recipient, useHarness } from '../support/harness.ts';
import { englishLeft, pseudoTranslator, readableText } from '../support/pseudo-language.ts';
import { assertPage, errorBeside, escaped, webPeople } from '../support/web-client.ts';

/** A form with a problem of every kind a person typing it can cause; row 1 is blank. */
const troubled = {
  title: ' ',
  body: 'Umowa ᱚ',
  recipientRows: '4',
  priceRows: '4',
  r1_email: 'bob@',
  r1_name: 'Bob Ray',
  r2_email: 'carol@client.example',
  r2_name: '',
  r2_order: '0',
  r3_email: 'CAROL@client.example',
  r3_name: 'Carol ᱚᱛ',
  currency: 'eu',
  p0_name: 'Wdrożenie',
  p0_qty: '0',
  p0_price: 'dziesięć',
  p0_vat: '121',
  p2_name: '',
  p2_price: '5',
  p2_billing: 'month',
  p2_periods: '',
};

describeEachDatabase('the document form in the member’s language', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.57');
  const pl = translator('pl');

  const polishMember = () => people.speakingOwner('pl');

  test('a member who chose Polish reads the new-document form and every refusal in Polish, rows numbered as the form numbers them', async () => {
    const { client } = await polishMember();
    const form = await client.get('/documents/new');
    assertPage(form, 200);
    assert.match(form.text, /<html lang="pl" dir="ltr">/);
    for (const text of [
      pl.t('docForm.newTitle'),
      pl.t('docForm.create'),
      pl.t('docForm.recipients.heading', { max: 20 }),
      pl.t('form.expiry.days', { days: 30 }),
      pl.t('form.expiry.days', { days: 7 }),
      pl.t('form.remind.every', { days: 2 }),
      pl.t('form.workspaceDefault'),
      pl.t('form.role', { role: 'viewer' }),
      pl.t('form.signingMethod', { method: 'email-code' }),
      pl.t('docForm.billingChoice', { billing: 'quarter' }),
      pl.t('docForm.cell.email', { row: 3 }),
      pl.t('docForm.showValue'),
    ])
      assert.ok(form.text.includes(escaped(text)), text);
    const res = await client.post('/documents', troubled);
    assertPage(res, 400);
    assert.match(res.text, /<html lang="pl" dir="ltr">/);
    const expected: Record<string, string> = {
      title: pl.t('draft.problem.title', { max: 200 }),
      r1_email: pl.t('draft.problem.email', { who: pl.t('who.recipient', { row: 2 }) }),
      r2_name: pl.t('draft.problem.fullName', { who: pl.t('who.recipient', { row: 3 }), max: 200 }),
      r2_order: pl.t('draft.problem.signingOrder', { who: pl.t('who.recipient', { row: 3 }), max: 100 }),
      r3_email: pl.t('draft.problem.emailTwice', {
        who: pl.t('who.recipient', { row: 4 }),
        email: 'CAROL@client.example',
      }),
      currency: pl.t('pricing.problem.currency'),
      p0_qty: pl.t('pricing.problem.quantityPositive', { line: 1 }),
      p0_price: pl.t('pricing.problem.notANumber', { line: 1, field: 'unitPrice' }),
      p0_vat: pl.t('pricing.problem.vatRange', { line: 1 }),
      p2_name: pl.t('pricing.problem.nameEmpty', { line: 3 }),
      p2_periods: pl.t('pricing.problem.periods', { line: 3, max: 1200 }),
    };
    for (const [id, sentence] of Object.entries(expected))
      assert.equal(errorBeside(res.text, id), sentence, `beside ${id}`);
    // The undrawable characters are named as they are, the sentence around them in Polish.
    const body = errorBeside(res.text, 'body') ?? '';
    assert.ok(
      body.startsWith(
        pl.t('text.undrawable', { subject: 'text', count: 1, characters: '“ᱚ” (U+1C5A)', more: 0 }),
      ),
      body,
    );
    const name = errorBeside(res.text, 'r3_name') ?? '';
    assert.equal(
      name,
      pl.t('text.undrawable', {
        subject: 'fullName',
        who: pl.t('who.recipient', { row: 4 }),
        count: 2,
        characters: '“ᱚ” (U+1C5A), “ᱛ” (U+1C5B)',
        more: 0,
      }),
    );
    assert.ok(name.includes('4'), 'the form’s own row number');
    // Thirteen problems: Polish says "13 rzeczy" in its own plural form, not English.
    const count = Object.keys(expected).length + 2;
    const summary = pl
      .rich<string>('form.toFix', { count, b: (c) => `<strong>${c.join('')}</strong>` })
      .join('');
    assert.ok(res.text.includes(summary), summary);
    assert.ok(!res.text.includes('things to fix'));
    assert.ok(!/must be|is not valid|Recipient \d/.test(res.text), 'no English refusal left');
  });

  test('the value preview, the live value and a kept expiry are said in Polish; a refused action on the document too', async () => {
    const { owner, client } = await polishMember();
    await client.get('/documents/new');
    const priced = {
      title: 'Oferta',
      r0_email: 'ann@client.example',
      r0_name: 'Ann Lee',
      currency: 'PLN',
      p0_name: 'Licencja',
      p0_qty: '2',
      p0_price: '1234.5',
      preview: '1',
    };
    const preview = await client.post('/documents', priced);
    assertPage(preview, 200);
    const amount = new Intl.NumberFormat('pl', { style: 'currency', currency: 'PLN' }).format(2469);
    assert.ok(preview.text.includes(escaped(pl.t('docForm.value.total', { amount }))), amount);
    const live = await client.post('/documents/value', { ...priced, preview: '' });
    assert.equal(live.status, 200);
    assert.deepEqual(JSON.parse(live.text), { text: pl.t('docForm.value.total', { amount }), ok: true });
    const none = await client.post('/documents/value', { title: 'Oferta' });
    assert.deepEqual(JSON.parse(none.text), { text: pl.t('docForm.value.none'), ok: true });

    const { id } = await createDraftDocument(h.ctx, owner.workspaceId, {
      expiresInSeconds: 45 * 86_400,
      recipients: [recipient('ann@client.example', 'Ann Lee')],
    });
    const edit = await client.get(`/documents/${id}/edit`);
    assertPage(edit, 200);
    const asSet = pl.t('form.expiry.asSet', { duration: pl.t('form.duration', { unit: 'day', count: 45 }) });
    assert.ok(edit.text.includes(escaped(asSet)), asSet);
    assert.ok(edit.text.includes(escaped(pl.t('docForm.save'))));
    assert.ok(edit.text.includes(escaped(pl.t('docForm.editHeading'))));
    // Sent meanwhile: saving the edit is refused, in Polish, on the document's page.
    await sendDocument(h.ctx, owner.workspaceId, id);
    const saved = await client.post(`/documents/${id}/edit`, {
      title: 'Oferta',
      r0_email: 'ann@client.example',
      r0_name: 'Ann Lee',
    });
    assertPage(saved, 409);
    assert.ok(saved.text.includes(escaped(pl.t('refusal.not-a-draft'))));
    const again = await client.post(`/documents/${id}/delete`, {});
    assertPage(again, 409);
    assert.ok(again.text.includes(escaped(pl.t('refusal.not-a-draft'))));
    assert.ok(!again.text.includes('can no longer be edited'), 'not the English sentence');
  });

  test('in the pseudo-language the form leaves no English word but the values it shows, every refusal shown', async () => {
    const tr = pseudoTranslator();
    const owner = await people.newOwner();
    const input = {
      title: '',
      body: 'Umowa ᱚ',
      recipients: [
        recipient('bob@', 'Bob Ray', {
          role: 'boss' as never,
          signingMethod: 'smoke' as never,
          language: 'xx',
        }),
        recipient('carol@client.example', ''),
        recipient('CAROL@client.example', 'Carol ᱚᱛᱜᱝ', { role: 'viewer' }),
      ],
      pricing: pricingOf(troubled, 4),
      expiresInSeconds: 5,
      remindEveryDays: 4,
      language: 'xx',
    };
    const error = await checkDocumentInput(h.ctx, owner.workspaceId, input).then(
      () => assert.fail('refused'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof InputError);
    const errors = formErrors(troubled, problemsOf(error), { recipients: 4, prices: 4 }, tr);
    // Every sentence of the rules above, each beside its input.
    for (const input of [
      'title',
      'body',
      'expiresInDays',
      'remindEveryDays',
      'language',
      'r1_email',
      'r1_role',
      'r1_method',
      'r1_language',
      'r2_name',
      'r3_email',
      'r3_name',
      'currency',
      'p0_qty',
      'p0_price',
      'p0_vat',
      'p2_name',
      'p2_periods',
    ])
      assert.ok(errors[input], input);
    const values = [
      'Bob Ray',
      'Carol',
      'client.example',
      'Wdrożenie',
      'dziesięć',
      'Umowa',
      'contract.pdf',
      'Oferta',
      'EUR',
      'ISO',
      'signer',
      'viewer',
      'standard',
      'email-code',
      'delivery none',
    ];
    const options = {
      action: '/documents',
      submit: tr.t('docForm.create'),
      cancel: '/documents',
      maxBytes: 10_000_000,
      errors,
    };
    const message = errorSummary(errors, sectionAnchors, tr);
    const preview = previewValue(pricingOf(troubled, 4), tr).text;
    const pages = [
      newDocumentView('token', troubled, message, null, options, tr),
      newDocumentView('token', {}, null, null, { ...options, errors: {} }, tr),
      editDocumentView(
        'token',
        'Oferta',
        { title: 'Oferta', expiresInDays: 'keep', expiresAsSet: '7200', remindEveryDays: '2' },
        null,
        null,
        {
          ...options,
          errors: {},
          current: { pages: 3 },
          kept: { id: 'k1', fileName: 'contract.pdf', pages: 1 },
        },
        tr,
      ),
    ];
    for (const [i, page] of pages.entries())
      assert.deepEqual(englishLeft(readableText(renderToString(page)), values), [], `page ${i}`);
    assert.deepEqual(englishLeft(preview, values), []);
    assert.deepEqual(englishLeft(previewValue(null, tr).text, values), []);
    const total = previewValue(
      {
        currency: 'EUR',
        pricesIncludeVat: false,
        items: [
          { name: 'Oferta', quantity: '1', unitPrice: '2', vatRate: '0', billing: { type: 'one-off' } },
        ],
      },
      tr,
    );
    assert.deepEqual(englishLeft(total.text, values), []);
  });
});
