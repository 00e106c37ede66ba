// The new-document form's refusals and a draft's edit form, in the web application over HTTP
// (issue 25), on both databases:
// - every problem at once, each beside its input (blank rows do not shift the numbers), in
//   plain words, with a summary of links at the top; nothing is stored;
// - a total below zero is refused (a discount only takes from priced lines);
// - a body over the form's limit gets a page that says the limit and links back to the form;
// - a draft is edited as a whole: recipients matched by email keep their fields, a removed
//   one's go; a new PDF replaces the old and removes the fields; refused once sent; another
//   workspace's member gets the same 404 as for an id that does not exist.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findFullDocument } from '../../src/documents/documents.repository.ts';
import { listFields } from '../../src/fields/fields.service.ts';
import { sendDocument } from '../../src/sending/send.ts';
import {
  countRows,
  createDraftDocument,
  describeEachDatabase,
  pagesPdf,
  recipient,
  recipientRow,
  useHarness,
} from '../support/harness.ts';
import {
  assertPage,
  assertRedirect,
  assertSameNotFound,
  errorBeside,
  pdfFile,
  probeIds,
  webPeople,
} from '../support/web-client.ts';

describeEachDatabase('a draft’s form on the web', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1', SIGNET_MAX_UPLOAD_BYTES: '100000' } });
  const people = webPeople(h, '10.26');

  test('the new-document form names every problem at once, beside its input, in plain words, and stores nothing', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    await client.get('/documents/new');
    const res = await client.post('/documents', {
      title: ' ',
      recipientRows: '3',
      priceRows: '3',
      // Row 1 is blank: the numbers shown are the rows' own.
      r1_email: 'bob@',
      r1_name: 'Bob Ray',
      r2_email: 'carol@client.example',
      r2_name: '',
      r2_order: '0',
      currency: 'eu',
      p0_name: 'Setup',
      p0_qty: '0',
      p0_price: 'ten',
      p0_vat: '21',
      p2_name: '',
      p2_price: '5',
      p2_billing: 'month',
      p2_periods: '',
    });
    assertPage(res, 400);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: owner.workspaceId }), 0);
    const expected: Record<string, string> = {
      title: 'Title must be 1 to 200 characters.',
      r1_email: 'Recipient 2: the email address is not valid.',
      r2_name: 'Recipient 3: full name must be 1 to 200 characters.',
      r2_order: 'Recipient 3: signing order must be a whole number from 1 to 100.',
      currency: 'Currency must be an ISO 4217 currency code in capitals, such as "EUR".',
      p0_qty: 'Line 1: quantity must be greater than 0.',
      p0_price:
        'Line 1: unit price must be a number such as 2, 19.99 or 0.0125 (up to 15 digits before the point and 6 after).',
      p2_name: 'Line 3: item must not be empty.',
      p2_periods: 'Line 3: periods must be a whole number from 1 to 1,200.',
    };
    for (const [id, sentence] of Object.entries(expected)) {
      assert.equal(errorBeside(res.text, id), sentence, `beside ${id}`);
      assert.match(res.text, new RegExp(`id="${id}"[^>]*aria-invalid="true" aria-describedby="${id}-error"`));
      assert.ok(res.text.includes(`<li><a href="#${id}">`), `${id} is in the summary`);
    }
    assert.match(res.text, /<strong>9 things to fix<\/strong>/);
    assert.ok(!/items\[|recipients\[|unitPrice/.test(res.text), 'no paths of the JSON input');
    // What was typed stays.
    assert.match(res.text, /id="r1_name" name="r1_name" type="text" value="Bob Ray"/);
    assert.match(res.text, /id="p0_price" name="p0_price" type="text" inputmode="decimal" value="ten"/);
  });

  test('a total below zero is refused in the pricing section; a discount within the total is not', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    await client.get('/documents/new');
    const base = { title: 'Offer', r0_email: 'ann@client.example', r0_name: 'Ann Lee' };
    const negative = await client.post('/documents', { ...base, p0_name: 'Refund', p0_price: '-5' });
    assertPage(negative, 400);
    assert.match(
      negative.text,
      /<p class="field-error" id="pricing-error" role="alert">Pricing: the total net value -5.00 must not be below 0 \(discounts may only reduce it\)\.<\/p>/,
    );
    assert.ok(negative.text.includes('<li><a href="#pricing-title">'));
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: owner.workspaceId }), 0);
    const discounted = await client.post('/documents', {
      ...base,
      priceRows: '2',
      p0_name: 'Licence',
      p0_price: '100',
      p1_name: 'Discount',
      p1_price: '-15',
    });
    assert.equal(discounted.status, 303);
    const id = discounted.location?.split('/').at(-1) as string;
    const row = await findFullDocument(h.ctx.db, owner.workspaceId, id);
    assert.equal(row?.value_amount, '85.00');
  });

  test('a file over the limit is refused with the rest of the form’s problems', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    await client.get('/documents/new');
    const res = await client.post('/documents', {
      title: '',
      r0_email: 'ann@client.example',
      r0_name: 'Ann Lee',
      file: pdfFile(new Uint8Array(150_000)),
    });
    assertPage(res, 400);
    assert.equal(errorBeside(res.text, 'title'), 'Title must be 1 to 200 characters.');
    assert.equal(errorBeside(res.text, 'file'), 'The file is larger than 98 KB; upload a smaller PDF.');
    assert.match(res.text, /<strong>2 things to fix<\/strong>/);
  });

  test('a body over the form’s limit gets a page that says the limit and links back to the form', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const id = (await createDraftDocument(h.ctx, owner.workspaceId)).id;
    await client.get(`/documents/${id}/fields`);
    const res = await client.post(
      `/documents/${id}/fields`,
      { label: 'x'.repeat(70 * 1024) },
      { headers: { referer: `${h.baseUrl}/documents/${id}/fields` } },
    );
    assertPage(res, 413);
    assert.match(res.text, /A form here can send at most 64 KB of text\. Nothing was saved\./);
    assert.ok(res.text.includes(`<a href="/documents/${id}/fields">← Back to the form</a>`));
    // A referrer elsewhere is no way back.
    const foreign = await client.post(
      `/documents/${id}/fields`,
      { label: 'x'.repeat(70 * 1024) },
      { headers: { referer: 'https://elsewhere.example/documents' } },
    );
    assertPage(foreign, 413);
    assert.ok(!foreign.text.includes('Back to the form'));
  });

  test('a draft is edited as a whole: kept recipients keep their fields, a removed one’s go', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await createDraftDocument(h.ctx, owner.workspaceId, {
      title: 'Maintenance contract',
      recipients: [recipient('ann@client.example', 'Ann Lee'), recipient('bob@client.example', 'Bob Ray')],
      pricing: {
        currency: 'EUR',
        pricesIncludeVat: false,
        items: [
          { name: 'Support', quantity: '1', unitPrice: '100', vatRate: '21', billing: { type: 'one-off' } },
        ],
      },
      expiresInSeconds: 3600,
      file: await pagesPdf(2),
      fields: [
        { recipient: 'ann@client.example', type: 'signature', page: 1, x: 72, y: 90, width: 180, height: 40 },
        { recipient: 'bob@client.example', type: 'signature', page: 2, x: 72, y: 90, width: 180, height: 40 },
      ],
    });
    const detail = await client.get(`/documents/${id}`);
    assert.ok(detail.text.includes(`href="/documents/${id}/edit">Edit draft</a>`));
    const form = await client.get(`/documents/${id}/edit`);
    assertPage(form, 200);
    assert.match(form.text, /<h1>Edit draft<\/h1>/);
    assert.match(
      form.text,
      /id="title" name="title" type="text" maxlength="200" value="Maintenance contract"/,
    );
    assert.match(form.text, /id="r1_email" name="r1_email" type="email" value="bob@client.example"/);
    assert.match(form.text, /id="p0_price" name="p0_price" type="text" inputmode="decimal" value="100"/);
    assert.match(form.text, /<option value="keep" selected>as set \(1 hour\)<\/option>/);
    assert.match(form.text, /The draft has a PDF of 2 pages\./);

    const saved = await client.post(`/documents/${id}/edit`, {
      title: 'Maintenance contract 2027',
      expiresInDays: 'keep',
      remindEveryDays: '3',
      recipientRows: '3',
      r0_email: 'ann@client.example',
      r0_name: 'Ann Lee-Park',
      r1_email: 'carol@client.example',
      r1_name: 'Carol Diaz',
      r1_order: '2',
      priceRows: '1',
      p0_name: 'Support',
      p0_price: '120',
      p0_vat: '21',
    });
    assertRedirect(saved, `/documents/${id}?done=saved-fields-removed`);
    const after = await client.get(saved.location as string);
    assert.match(after.text, /Draft saved\. Fields placed for recipients who no longer sign/);
    const row = await findFullDocument(h.ctx.db, owner.workspaceId, id);
    assert.equal(row?.title, 'Maintenance contract 2027');
    assert.equal(row?.value_amount, '120.00');
    assert.equal(row?.expires_in_seconds, 3600, 'the expiry as set is kept');
    assert.equal(row?.remind_every_days, 3);
    assert.match(after.text, /<dt>Automatic reminders<\/dt><dd>every 3 days<\/dd>/);
    assert.match(
      (await client.get(`/documents/${id}/edit`)).text,
      /<option value="3" selected>Every 3 days<\/option>/,
    );
    const ann = await recipientRow(h.ctx, id, 'ann@client.example');
    assert.equal(ann.full_name, 'Ann Lee-Park');
    const fields = await listFields(h.ctx.db, owner.workspaceId, id);
    assert.deepEqual(
      fields.map((f) => [f.recipient_id, f.page]),
      [[ann.id, 1]],
      'Ann keeps her field; Bob’s went with him',
    );

    // A new PDF replaces the old, and the fields placed on it go.
    await client.get(`/documents/${id}/edit`);
    const replaced = await client.post(`/documents/${id}/edit`, {
      title: 'Maintenance contract 2027',
      expiresInDays: '14',
      r0_email: 'ann@client.example',
      r0_name: 'Ann Lee-Park',
      file: pdfFile(await pagesPdf(3)),
    });
    assertRedirect(replaced, `/documents/${id}?done=saved-fields-removed`);
    const replacedRow = await findFullDocument(h.ctx.db, owner.workspaceId, id);
    assert.notEqual(replacedRow?.original_sha256, row?.original_sha256);
    assert.equal(replacedRow?.expires_in_seconds, 14 * 86_400);
    assert.equal(replacedRow?.value_amount, null, 'no pricing rows: no pricing');
    assert.equal(replacedRow?.remind_every_days, null, 'Never');
    assert.deepEqual(await listFields(h.ctx.db, owner.workspaceId, id), []);
  });

  test('an edit with problems shows them all and changes nothing; a sent document is no longer editable', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await createDraftDocument(h.ctx, owner.workspaceId, { title: 'Offer' });
    await client.get(`/documents/${id}/edit`);
    const refused = await client.post(`/documents/${id}/edit`, {
      title: '',
      r0_email: 'ann@client.example',
      r0_name: 'Ann Lee',
      r0_role: 'viewer',
    });
    assertPage(refused, 400);
    assert.match(refused.text, /<h1>Edit draft<\/h1>/);
    assert.match(refused.text, /action="\/documents\/[^"]+\/edit"/);
    assert.equal(errorBeside(refused.text, 'title'), 'Title must be 1 to 200 characters.');
    assert.match(refused.text, /A document needs at least one signer\./);
    assert.equal((await findFullDocument(h.ctx.db, owner.workspaceId, id))?.title, 'Offer');

    await sendDocument(h.ctx, owner.workspaceId, id);
    assertRedirect(await client.get(`/documents/${id}/edit`), `/documents/${id}`);
    const late = await client.post(`/documents/${id}/edit`, {
      title: 'Changed',
      r0_email: 'ann@client.example',
      r0_name: 'Ann Lee',
    });
    assertPage(late, 409);
    assert.match(late.text, /This document has been sent, so it can no longer be edited\./);
    assert.equal((await findFullDocument(h.ctx.db, owner.workspaceId, id))?.title, 'Offer');
  });

  test('another workspace’s draft cannot be read or edited', async () => {
    const owner = await people.newOwner();
    const stranger = await people.newOwner();
    const client = await people.signedIn(stranger);
    const { id } = await createDraftDocument(h.ctx, owner.workspaceId, { title: 'Private offer' });
    await assertSameNotFound(
      client,
      '/documents/new',
      { method: 'GET', path: (probe) => `/documents/${probe}/edit` },
      probeIds(id),
    );
    await assertSameNotFound(
      client,
      '/documents/new',
      { method: 'POST', path: (probe) => `/documents/${probe}/edit`, fields: { title: 'Taken over' } },
      probeIds(id),
    );
    await client.get('/documents/new');
    const res = await client.post(`/documents/${id}/edit`, {
      title: 'Taken over',
      r0_email: 'eve@x.example',
      r0_name: 'Eve',
    });
    assertPage(res, 404);
    assert.equal((await findFullDocument(h.ctx.db, owner.workspaceId, id))?.title, 'Private offer');
  });
});
