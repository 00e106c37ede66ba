// Field values through /v1 (issue 37): each field's value read back once filled (a
// signature: when, not the image) and a decline's reason; values the sender fills in, prefilled,
// shown to their signer, unchangeable and sealed. The suites' shared setup: api-writes-setup.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFile } from '../../src/files/files.service.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { declineDocument, signDocument } from '../../src/signing/signing.service.ts';
import { callApi, describeEachDatabase, linkFor } from '../support/harness.ts';
import { pdftotext } from '../support/pdf-tools.ts';
import { ann, bob, contractPdf, useWriteApi } from './api-writes-setup.ts';

describeEachDatabase('document writes through /v1: field values', (kind) => {
  const { h, workspace, newDocument } = useWriteApi(kind);

  test('reading back: each field’s value once filled (a signature: when, not the image), and a decline’s reason', async () => {
    const ws = await workspace();
    const field = (recipient: string, type: string, y: number, extra: object = {}) => ({
      recipient,
      type,
      page: 1,
      x: 72,
      y,
      width: 160,
      height: 24,
      ...extra,
    });
    const created = await newDocument(ws.writeKey, {
      title: 'Order form',
      file: (await contractPdf(1)).toString('base64'),
      recipients: [ann, bob],
      fields: [
        field(ann.email, 'signature', 100, { height: 40 }),
        field(ann.email, 'text', 200, { label: 'Purchase order' }),
        field(ann.email, 'checkbox', 250, { label: 'Express', width: 12, height: 12, required: false }),
        field(ann.email, 'checkbox', 280, { label: 'Gift wrap', width: 12, height: 12, required: false }),
        field(ann.email, 'initials', 310),
        field(ann.email, 'date', 340),
        field(ann.email, 'text', 370, { label: 'Notes', required: false }),
        field(bob.email, 'signature', 100, { height: 40, x: 300 }),
      ],
      send: true,
    });
    assert.equal(created.status, 201, created.text);
    const id = (created.body.data as { id: string }).id;
    type Field = {
      label: string | null;
      type: string;
      filled: boolean;
      value: unknown;
      filledAt: string | null;
    };
    type Detail = {
      recipients: Array<{
        email: string;
        fields: Field[];
        declinedAt: string | null;
        declineReason: string | null;
      }>;
    };
    const read = async () =>
      (await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.readKey })).body.data as Detail;
    const before = await read();
    assert.deepEqual(
      before.recipients[0]?.fields.map((f) => [f.filled, f.value, f.filledAt]),
      Array.from({ length: 7 }, () => [false, null, null]),
    );
    const ids = await h.ctx.db
      .selectFrom('document_fields')
      .select(['id', 'label', 'type'])
      .where('document_id', '=', id)
      .orderBy('position')
      .execute();
    const idOf = (label: string) => ids.find((f) => f.label === label)?.id as string;
    const initials = ids.find((f) => f.type === 'initials')?.id as string;
    await signDocument(h.ctx, (await linkFor(h.ctx, id, ann.email)).session, {
      fullName: ann.fullName,
      consent: true,
      fields: { [idOf('Purchase order')]: 'PO-0117', [idOf('Express')]: 'yes', [initials]: 'AL' },
    });
    const signedAt = h.clock.now().toISOString();
    const after = await read();
    assert.deepEqual(
      after.recipients[0]?.fields.map((f) => [f.type, f.label, f.value, f.filledAt]),
      [
        ['signature', null, null, signedAt],
        ['text', 'Purchase order', 'PO-0117', signedAt],
        ['checkbox', 'Express', true, signedAt],
        ['checkbox', 'Gift wrap', false, signedAt],
        ['initials', null, 'AL', signedAt],
        ['date', null, signedAt.slice(0, 10), signedAt],
        ['text', 'Notes', null, signedAt],
      ],
    );
    assert.deepEqual([after.recipients[0]?.declinedAt, after.recipients[0]?.declineReason], [null, null]);
    h.clock.advance(60_000);
    await declineDocument(h.ctx, (await linkFor(h.ctx, id, bob.email)).session, {
      reason: 'The price changed since we spoke.',
    });
    const declined = await read();
    assert.deepEqual(
      [declined.recipients[1]?.declinedAt, declined.recipients[1]?.declineReason],
      [h.clock.now().toISOString(), 'The price changed since we spoke.'],
    );
    assert.deepEqual(
      declined.recipients[1]?.fields.map((f) => [f.filled, f.value]),
      [[false, null]],
    );
  });

  test('values the sender fills in: the field is prefilled, its signer sees it and cannot change it, and it is sealed', async () => {
    const ws = await workspace();
    const place = (type: string, y: number, extra: object = {}) => ({
      recipient: ann.email,
      type,
      page: 1,
      x: 72,
      y,
      width: 160,
      height: 24,
      ...extra,
    });
    const created = await newDocument(ws.writeKey, {
      title: 'Quote 2027-014',
      file: (await contractPdf(1)).toString('base64'),
      recipients: [ann],
      fields: [
        place('signature', 100, { height: 40 }),
        place('text', 200, { label: 'Price', value: '1,200 EUR per month' }),
        place('checkbox', 250, { label: 'Insured', width: 12, height: 12, value: true }),
        place('checkbox', 280, { label: 'Rush', width: 12, height: 12, required: false, value: false }),
        place('text', 310, { label: 'PO number' }),
      ],
      send: true,
    });
    assert.equal(created.status, 201, created.text);
    const id = (created.body.data as { id: string }).id;
    type Field = {
      label: string | null;
      filled: boolean;
      value: unknown;
      filledAt: string | null;
      prefilled: boolean;
    };
    const fieldsOf = async () =>
      (
        (await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.readKey })).body.data as {
          recipients: Array<{ fields: Field[] }>;
        }
      ).recipients[0]?.fields.map((f) => [f.label, f.filled, f.value, f.filledAt, f.prefilled]);
    assert.deepEqual(await fieldsOf(), [
      [null, false, null, null, false],
      ['Price', true, '1,200 EUR per month', null, true],
      ['Insured', true, true, null, true],
      ['Rush', true, false, null, true],
      ['PO number', false, null, null, false],
    ]);
    const link = await linkFor(h.ctx, id, ann.email);
    const page = await (await fetch(h.baseUrl + link.path)).text();
    assert.match(page, /Price” on page 1: “1,200 EUR per month”, as [^<]+ filled it in/);
    assert.match(page, /Insured” on page 1: “checked”, as [^<]+ filled it in/);
    assert.match(
      page,
      /<text class="field-value"[^>]*>1,200 EUR per month<\/text>/,
      'the value in its box on the page',
    );
    assert.match(page, /<text class="field-value"[^>]*>✓<\/text>/, 'a ticked box’s check mark');
    const rows = await h.ctx.db
      .selectFrom('document_fields')
      .select(['id', 'label'])
      .where('document_id', '=', id)
      .execute();
    const idOf = (label: string) => rows.find((f) => f.label === label)?.id as string;
    assert.doesNotMatch(
      page,
      new RegExp(`name="field\\.${idOf('Price')}"`),
      'no input for a prefilled field',
    );
    assert.match(
      page,
      new RegExp(`name="field\\.${idOf('PO number')}"`),
      'an input for the one the signer fills',
    );
    // A value posted for a prefilled field changes nothing.
    await signDocument(h.ctx, link.session, {
      fullName: ann.fullName,
      consent: true,
      fields: { [idOf('Price')]: '1 EUR', [idOf('Rush')]: 'yes', [idOf('PO number')]: 'PO-77' },
    });
    const signedAt = h.clock.now().toISOString();
    assert.deepEqual(await fieldsOf(), [
      [null, true, null, signedAt, false],
      ['Price', true, '1,200 EUR per month', signedAt, true],
      ['Insured', true, true, signedAt, true],
      ['Rush', true, false, signedAt, true],
      ['PO number', true, 'PO-77', signedAt, false],
    ]);
    assert.equal(await sealDueDocuments(h.ctx), 1);
    const { sealed_sha256 } = await h.ctx.db
      .selectFrom('documents')
      .select('sealed_sha256')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const text = await pdftotext((await readFile(h.ctx.db, sealed_sha256 as string)) as Buffer);
    assert.ok(text.includes('1,200 EUR per month'), 'the value is drawn on the page');
    assert.ok(text.includes('(filled in by the sender)'), 'the certificate says who filled it in');
    assert.doesNotMatch(text, /(^|\s)1 EUR/, 'the value posted at signing was not taken');
  });
});
