// Fields on the page (issue 24), end to end on both databases: placed with the document
// (the CLI's JSON shape) or changed one at a time while it is a draft, refused with a
// sentence when they do not fit, listed in the API without their values, filled through
// the signing page without JavaScript, and drawn in the sealed PDF inside their
// rectangles, as `pdftotext -bbox` (poppler) reads them: rotated and cropped pages and the
// real-world PDFs of the seal tests included.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { degrees, PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { createCanvas } from '@napi-rs/canvas';
import { findFullDocument } from '../../src/documents/documents.repository.ts';
import { DocumentActionError } from '../../src/documents/lifecycle.ts';
import { readFile } from '../../src/files/files.service.ts';
import { InputError } from '../../src/input-error.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { addField, deleteField, setFields, updateField } from '../../src/sending/draft-fields.ts';
import { sendDocument } from '../../src/sending/send.ts';
import { dateSigned, signDocument } from '../../src/signing/signing.service.ts';
import {
  callApi,
  countRows,
  createDraftDocument,
  createTestWorkspace,
  describeEachDatabase,
  recipient,
  signingLinksOf,
  useHarness,
} from '../support/harness.ts';
import {
  assertWordsInside,
  pdfImageList,
  pdfsig,
  pdftotext,
  pdftotextBbox,
  qpdfCheck,
} from '../support/pdf-tools.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'pdf');

/**
 * Four pages as a scanner or an office suite may leave them: A4 upright; A4 turned a
 * quarter (/Rotate 90); Letter with a crop box inside its media box; A4 turned three
 * quarters with a crop box.
 */
async function awkwardPdf(): Promise<{ data: Uint8Array }> {
  const pdf = await PDFDocument.create();
  pdf.setSubject(randomUUID());
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const upright = pdf.addPage([595, 842]);
  upright.drawText('Upright page', { x: 72, y: 760, size: 14, font });
  const quarter = pdf.addPage([595, 842]);
  quarter.setRotation(degrees(90));
  quarter.drawText('Turned page', { x: 72, y: 760, size: 14, font });
  const cropped = pdf.addPage([612, 792]);
  cropped.setCropBox(50, 100, 500, 600);
  cropped.drawText('Cropped page', { x: 80, y: 650, size: 14, font });
  const both = pdf.addPage([595, 842]);
  both.setRotation(degrees(270));
  both.setCropBox(40, 60, 500, 700);
  both.drawText('Turned and cropped', { x: 80, y: 700, size: 14, font });
  return { data: await pdf.save() };
}

const signer = 'zoe@client.example';
const second = 'ivan@client.example';
const viewer = 'val@client.example';
const people = [
  recipient(signer, 'Zoë Łukasiewicz'),
  recipient(second, 'Ivan Petrov'),
  recipient(viewer, 'Val Kim', { role: 'viewer' }),
];

type Field = {
  recipient: string;
  type: string;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required?: boolean;
  label?: string | null;
  maxLength?: number | null;
};

/** A text field for `who` with its value's marker in its label (the test fills it with it). */
const textField = (who: string, page: number, x: number, y: number, label: string): Field => ({
  recipient: who,
  type: 'text',
  page,
  x,
  y,
  width: 200,
  height: 24,
  required: true,
  label,
});

/** Asserts that `value`'s words all lie inside `field`'s rectangle on its page (±1 pt). */
async function assertInside(pdf: Uint8Array, field: Field, value: string) {
  assertWordsInside(await pdftotextBbox(pdf), field, value);
}

type ApiField = {
  id: string;
  type: string;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: boolean;
  label: string | null;
  filled: boolean;
  value: string | boolean | null;
  filledAt: string | null;
};
type ApiRecipient = { email: string; fields: ApiField[] };

describeEachDatabase('fields', (kind) => {
  const h = useHarness(kind);

  /** The document's recipients with their fields, as GET /v1/documents/{id} lists them. */
  async function recipientsOf(ws: { apiKey: string }, id: string): Promise<ApiRecipient[]> {
    const detail = await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.apiKey });
    assert.equal(detail.status, 200);
    return (detail.body as { data: { recipients: ApiRecipient[] } }).data.recipients;
  }
  const fieldsOf = async (ws: { apiKey: string }, id: string) =>
    (await recipientsOf(ws, id)).flatMap((r) => r.fields.map((f) => ({ ...f, email: r.email })));

  async function draft(fields: Field[], file?: Uint8Array) {
    const ws = await createTestWorkspace(h.ctx);
    const data = file ?? (await awkwardPdf()).data;
    const { id } = await createDraftDocument(h.ctx, ws.id, { recipients: people, file: data, fields });
    return { ws, id };
  }

  test('placed with the document (the CLI’s JSON), listed per recipient in the API, without values until signed', async () => {
    const fields: Field[] = [
      { recipient: signer, type: 'signature', page: 1, x: 72, y: 90, width: 180, height: 40 },
      { ...textField(second, 2, 400, 300, 'Company'), maxLength: 40 },
      {
        recipient: 'ZOE@Client.Example',
        type: 'checkbox',
        page: 3,
        x: 10,
        y: 10,
        width: 12,
        height: 12,
        required: false,
      },
    ];
    const { ws, id } = await draft(fields);
    const recipients = await recipientsOf(ws, id);
    const of = (email: string) => recipients.find((r) => r.email === email)?.fields ?? [];
    assert.deepEqual(
      of(signer).map(({ id: _id, ...rest }) => rest),
      [
        {
          type: 'signature',
          page: 1,
          x: 72,
          y: 90,
          width: 180,
          height: 40,
          required: true,
          label: null,
          filled: false,
          value: null,
          filledAt: null,
          prefilled: false,
        },
        {
          type: 'checkbox',
          page: 3,
          x: 10,
          y: 10,
          width: 12,
          height: 12,
          required: false,
          label: null,
          filled: false,
          value: null,
          filledAt: null,
          prefilled: false,
        },
      ],
    );
    assert.deepEqual(
      of(second).map((f) => [f.type, f.page, f.label, f.filled]),
      [['text', 2, 'Company', false]],
    );
    assert.deepEqual(of(viewer), []);
    assert.ok(
      recipients.every((r) => r.fields.every((f) => f.value === null && f.filledAt === null)),
      'no values in the API before signing',
    );
  });

  test('a field that does not fit is refused with its sentence, and nothing is stored', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { data } = await awkwardPdf();
    const before = await countRows(h.ctx, 'documents');
    const cases: Array<[Field, RegExp]> = [
      [
        { ...textField(signer, 1, 500, 100, 'Wide'), width: 200 },
        /Field 1: it lies off page 1, which is 595 × 842 points/,
      ],
      [textField(signer, 5, 10, 10, 'Nowhere'), /Field 1: page 5 does not exist: the PDF has 4 pages\./],
      [
        textField(viewer, 1, 10, 10, 'Viewer'),
        /Field 1: val@client\.example is a viewer; only signers fill fields\./,
      ],
      [textField('eve@else.example', 1, 10, 10, 'Stranger'), /Field 1: eve@else\.example is not a recipient/],
      [
        { ...textField(signer, 1, 10, 10, 'Dot'), width: 2, height: 2 },
        /Field 1: it is 2 × 2 points; a field is at least 6 × 6\./,
      ],
      // The displayed size of a turned page is its media box turned: 842 wide, 595 high.
      [textField(signer, 2, 10, 600, 'High'), /Field 1: it lies off page 2, which is 842 × 595 points/],
      [
        { ...textField(signer, 1, 10, 10, 'Type'), type: 'stamp' },
        /Field 1: type must be one of signature, initials/,
      ],
    ];
    for (const [field, sentence] of cases) {
      await assert.rejects(
        createDraftDocument(h.ctx, ws.id, { recipients: people, file: data, fields: [field] }),
        (error) => error instanceof InputError && sentence.test(error.fields.fields ?? ''),
        String(sentence),
      );
    }
    await assert.rejects(
      createDraftDocument(h.ctx, ws.id, { recipients: people, fields: [textField(signer, 1, 10, 10, 'x')] }),
      (error) => error instanceof InputError && /uploaded PDF/.test(error.fields.fields ?? ''),
      'no PDF, no fields',
    );
    assert.equal(await countRows(h.ctx, 'documents'), before, 'nothing stored');
  });

  test('a draft’s fields are added, moved, reassigned and removed; once sent, never', async () => {
    const { ws, id } = await draft([textField(signer, 1, 72, 72, 'First')]);
    const listed = () => fieldsOf(ws, id);
    await addField(h.ctx, ws.id, id, { ...textField(second, 3, 20, 20, 'Second'), x: '30', required: 'no' });
    let fields = await listed();
    assert.deepEqual(
      fields.map((f) => [f.label, f.email, f.page, f.x]),
      [
        ['First', signer, 1, 72],
        ['Second', second, 3, 30],
      ],
    );
    const [first] = fields;
    assert.ok(first);
    await updateField(h.ctx, ws.id, id, first.id, { ...textField(second, 4, 100, 100, 'First') });
    fields = await listed();
    const moved = fields.find((f) => f.id === first.id);
    assert.deepEqual(
      [moved?.email, moved?.page, moved?.x],
      [second, 4, 100],
      'moved and reassigned, same id',
    );
    await assert.rejects(
      updateField(h.ctx, ws.id, id, first.id, { ...textField(second, 4, 650, 100, 'First') }),
      (error) =>
        error instanceof InputError &&
        /Field 1: it lies off page 4, which is 700 × 500 points/.test(error.message),
    );
    await deleteField(h.ctx, ws.id, id, first.id);
    assert.deepEqual(
      (await listed()).map((f) => f.label),
      ['Second'],
    );

    const other = await createTestWorkspace(h.ctx);
    await assert.rejects(
      deleteField(h.ctx, other.id, id, first.id),
      /not-found|Not found/i,
      'another workspace',
    );

    await sendDocument(h.ctx, ws.id, id);
    for (const attempt of [
      () => setFields(h.ctx, ws.id, id, []),
      () => addField(h.ctx, ws.id, id, textField(signer, 1, 10, 10, 'Late')),
    ]) {
      await assert.rejects(
        attempt(),
        (error) => error instanceof DocumentActionError && error.refusal === 'not-a-draft',
      );
    }
    assert.deepEqual(
      (await listed()).map((f) => f.label),
      ['Second'],
    );
  });

  test('signing is refused while a required field is empty, with a sentence per field, on the page without JavaScript', async () => {
    const { ws, id } = await draft([
      { recipient: signer, type: 'signature', page: 1, x: 72, y: 90, width: 180, height: 40 },
      { recipient: signer, type: 'initials', page: 2, x: 700, y: 40, width: 60, height: 30 },
      { ...textField(signer, 1, 72, 200, 'Company'), maxLength: 12 },
      { recipient: signer, type: 'checkbox', page: 3, x: 20, y: 20, width: 14, height: 14, label: 'I agree' },
      { ...textField(signer, 4, 20, 20, 'Notes'), required: false },
      { recipient: second, type: 'signature', page: 1, x: 300, y: 90, width: 180, height: 40 },
    ]);
    await sendDocument(h.ctx, ws.id, id);
    const links = await signingLinksOf(h.ctx, id);
    const zoe = links.get(signer);
    assert.ok(zoe);
    const page = await (await fetch(h.baseUrl + zoe.path)).text();
    const inputs = [
      ...page.matchAll(/<input type="(text|checkbox)" id="field-([0-9a-f-]{36})" name="field\.\2"([^>]*)>/g),
    ];
    assert.equal(
      inputs.length,
      4,
      'initials, the text, the checkbox and the notes: the rest is filled for her',
    );
    assert.match(page, /Initials on page 2/);
    assert.match(page, /value="ZŁ"/, 'initials proposed from her name');
    assert.match(page, /Signature on page 1: your signature/);
    assert.match(page, /<svg class="field-layer" viewBox="0 0 842 595"/, 'fields drawn over the turned page');
    const stored = await h.ctx.db
      .selectFrom('document_fields')
      .select(['id', 'type', 'label'])
      .where('document_id', '=', id)
      .execute();
    const ids = new Map(stored.map((f) => [f.label ?? f.type, f.id]));
    assert.deepEqual(
      inputs.map((m) => m[2]).sort(),
      ['initials', 'Company', 'I agree', 'Notes'].map((k) => ids.get(k)).sort(),
    );

    const post = (fields: Record<string, string>) =>
      fetch(`${h.baseUrl}${zoe.path}/sign`, {
        method: 'POST',
        body: new URLSearchParams({ fullName: 'Zoë Łukasiewicz', consent: 'yes', ...fields }),
        redirect: 'manual',
      });
    const refused = await post({
      [`field.${ids.get('initials')}`]: '',
      [`field.${ids.get('Company')}`]: 'A'.repeat(13),
    });
    assert.equal(refused.status, 400);
    const again = await refused.text();
    assert.match(again, /Fill in Initials on page 2\./);
    assert.match(again, /Text “Company” on page 1 takes at most 12 characters\./);
    assert.match(again, /Tick Checkbox “I agree” on page 3\./);
    assert.match(again, new RegExp(`value="${'A'.repeat(13)}"`), 'what she typed is kept');
    assert.equal((await findFullDocument(h.ctx.db, ws.id, id))?.status, 'viewed', 'not signed');
    const filled = await h.ctx.db
      .selectFrom('document_fields')
      .select('id')
      .where('document_id', '=', id)
      .where('filled_at', 'is not', null)
      .execute();
    assert.equal(filled.length, 0, 'no field filled');

    const signed = await post({
      [`field.${ids.get('initials')}`]: 'ZŁ',
      [`field.${ids.get('Company')}`]: 'Acme Ltd',
      [`field.${ids.get('I agree')}`]: 'yes',
    });
    assert.equal(signed.status, 303);
    const mine = (await recipientsOf(ws, id)).find((r) => r.email === signer);
    assert.deepEqual(
      mine?.fields.map((f) => f.filled),
      [true, true, true, true, true],
      'every field of hers is filled (the optional notes, empty)',
    );
  });

  test('the sealed PDF has each value inside its field’s rectangle, turned and cropped pages included', async () => {
    const { data } = await awkwardPdf();
    const placed: Array<[Field, string]> = [
      [textField(signer, 1, 72, 700, 'Company'), 'Acme Ltd'],
      [
        { recipient: signer, type: 'name', page: 2, x: 500, y: 400, width: 250, height: 30 },
        'Zoë Łukasiewicz',
      ],
      [{ recipient: signer, type: 'email', page: 3, x: 60, y: 500, width: 200, height: 20 }, signer],
      [textField(second, 4, 400, 300, 'Reference'), 'PO 4711'],
      [{ recipient: second, type: 'date', page: 4, x: 30, y: 30, width: 120, height: 24 }, 'the day'],
      [{ recipient: second, type: 'signature', page: 2, x: 100, y: 100, width: 240, height: 60 }, ''],
    ];
    const { ws, id } = await draft(
      placed.map(([field]) => field),
      data,
    );
    await sendDocument(h.ctx, ws.id, id);
    const links = await signingLinksOf(h.ctx, id);
    const fieldIds = await fieldsOf(ws, id);
    const idOf = (label: string) => fieldIds.find((f) => f.label === label)?.id as string;
    await signDocument(h.ctx, links.get(signer)?.session as never, {
      fullName: 'Zoë Łukasiewicz',
      consent: true,
      fields: { [idOf('Company')]: 'Acme Ltd' },
    });
    h.clock.advance(86_400_000);
    const day = dateSigned(h.ctx.clock.now());
    await signDocument(h.ctx, links.get(second)?.session as never, {
      fullName: 'Ivan Petrov',
      consent: true,
      signature: { kind: 'drawn', png: signaturePng() },
      fields: { [idOf('Reference')]: 'PO 4711' },
    });
    assert.equal(await sealDueDocuments(h.ctx), 1);
    const document = await findFullDocument(h.ctx.db, ws.id, id);
    const sealed = (await readFile(h.ctx.db, document?.sealed_sha256 as string)) as Buffer;
    for (const [field, value] of placed) {
      if (value) await assertInside(sealed, field, value === 'the day' ? day : value);
    }
    assert.match(await pdfImageList(sealed), /^\s*2\s+\d+\s+image\s/m, 'the drawn signature on page 2');
    const [seal] = (await pdfsig(sealed)).signatures;
    assert.equal(seal?.validation, 'Signature is Valid.');
    const check = await qpdfCheck(sealed);
    assert.ok(!check.errors && !check.warnings, check.output);
    const text = await pdftotext(sealed);
    assert.match(text, /Text “Company”: Acme Ltd/, 'the certificate lists the fields filled');
    assert.ok(text.includes(`Date signed: ${day}`), 'the date signed, in UTC');
  });

  test('real-world PDFs: values on their first and last page land inside their rectangles', async () => {
    for (const name of [
      'latex-xref-table',
      'latex-object-streams',
      'chromium-print',
      'latex-form-appearances',
    ]) {
      const data = readFileSync(join(fixtures, `${name}.pdf`));
      const pdf = await PDFDocument.load(data, { updateMetadata: false });
      const last = pdf.getPageCount();
      const top = textField(signer, 1, 60, 740, 'Top');
      const bottom = textField(signer, last, 300, 40, 'Bottom');
      const { ws, id } = await draft([top, bottom], data);
      await sendDocument(h.ctx, ws.id, id);
      const links = await signingLinksOf(h.ctx, id);
      const fields = await fieldsOf(ws, id);
      await signDocument(h.ctx, links.get(signer)?.session as never, {
        fullName: 'Zoë Łukasiewicz',
        consent: true,
        fields: Object.fromEntries(fields.map((f) => [f.id, `${f.label} ${name}`])),
      });
      await signDocument(h.ctx, links.get(second)?.session as never, {
        fullName: 'Ivan Petrov',
        consent: true,
      });
      assert.equal(await sealDueDocuments(h.ctx), 1, name);
      const document = await findFullDocument(h.ctx.db, ws.id, id);
      const sealed = (await readFile(h.ctx.db, document?.sealed_sha256 as string)) as Buffer;
      await assertInside(sealed, top, `Top ${name}`);
      await assertInside(sealed, bottom, `Bottom ${name}`);
      const check = await qpdfCheck(sealed);
      assert.ok(!check.errors, `${name}: ${check.output}`);
      assert.equal((await pdfsig(sealed)).signatures.at(-1)?.validation, 'Signature is Valid.', name);
    }
  });
});

/** A drawn signature as the pad sends it: a PNG of one stroke on transparency. */
function signaturePng(): Buffer {
  const canvas = createCanvas(600, 200);
  const context = canvas.getContext('2d');
  context.strokeStyle = '#1a2f73';
  context.lineWidth = 6;
  context.beginPath();
  context.moveTo(40, 150);
  context.bezierCurveTo(160, 20, 260, 190, 560, 60);
  context.stroke();
  return canvas.toBuffer('image/png');
}
