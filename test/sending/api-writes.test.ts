// The document writes of /v1 (issue 37): keys with a scope, POST /v1/documents (JSON with the
// PDF in base64, and multipart), sending and deleting a draft, refusals with a pointer to the
// member at fault and nothing stored, another workspace's ids, and Idempotency-Key replays.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { PDFDocument } from '@cantoo/pdf-lib';
import { readFile } from '../../src/files/files.service.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { expireDueDocuments } from '../../src/sending/ending.ts';
import { findSigningSession } from '../../src/signing/session.ts';
import { declineDocument, signDocument } from '../../src/signing/signing.service.ts';
import { assertContract } from '../support/contract.ts';
import { textPdf } from '../support/factories.ts';
import {
  type ApiResponse,
  callApi,
  countRows,
  createTestWorkspace,
  describeEachDatabase,
  linkFor,
  postDocumentMultipart,
  storedEventBody,
  useHarness,
} from '../support/harness.ts';
import { pdftotext } from '../support/pdf-tools.ts';

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** Acme's service level agreement, about `pages` pages of it, as Signet draws a text. */
const contractPdf = (pages = 2) =>
  textPdf({
    title: 'Service level agreement',
    body: 'The supplier answers within four hours.\n'.repeat(pages * 40),
    workspaceName: 'Acme',
    createdAt: new Date('2026-11-01T00:00:00Z'),
  });

async function encryptedLikePdf(): Promise<Buffer> {
  // A PDF whose trailer names an encryption dictionary: refused like any encrypted file.
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  const bytes = Buffer.from(await doc.save({ useObjectStreams: false }));
  return Buffer.from(bytes.toString('latin1').replace('/Root', '/Encrypt 1 0 R /Root'), 'latin1');
}

const ann = { email: 'ann@northwind.example', fullName: 'Ann Lee' };
const bob = { email: 'bob@northwind.example', fullName: 'Bob Ray', signingOrder: 2 };

describeEachDatabase('document writes through /v1', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_MAX_UPLOAD_BYTES: String(400 * 1024) } });

  async function workspace() {
    const ws = await createTestWorkspace(h.ctx);
    const write = await createApiKey(h.ctx, { workspaceId: ws.id, name: 'writer', scope: 'write' });
    return { ...ws, readKey: ws.apiKey, writeKey: write.secret };
  }

  async function newDocument(key: string, body: object, headers: Record<string, string> = {}) {
    return callApi(h, 'POST', '/v1/documents', { key, body, headers });
  }

  test('a read key is refused every write with insufficient-scope, before its body is read', async () => {
    const ws = await workspace();
    const draft = await newDocument(ws.writeKey, { title: 'Draft', recipients: [ann] });
    assert.equal(draft.status, 201);
    const id = (draft.body.data as { id: string }).id;
    const recipientId = (draft.body.data as { recipients: Array<{ id: string }> }).recipients[0]?.id;
    const writes: Array<[string, 'POST' | 'PUT' | 'DELETE', string, object | string | undefined]> = [
      ['create', 'POST', '/v1/documents', { title: 'X', recipients: [ann] }],
      ['create, a malformed body', 'POST', '/v1/documents', '{"title": '],
      ['send', 'POST', `/v1/documents/${id}/send`, undefined],
      ['remind', 'POST', `/v1/documents/${id}/recipients/${recipientId}/remind`, undefined],
      ['withdraw', 'POST', `/v1/documents/${id}/withdraw`, { reason: 'x' }],
      [
        'a fresh signing link',
        'POST',
        `/v1/documents/${id}/recipients/${recipientId}/signing-url`,
        undefined,
      ],
      ['replace', 'PUT', `/v1/documents/${id}`, { title: 'X', recipients: [ann] }],
      ['delete', 'DELETE', `/v1/documents/${id}`, undefined],
    ];
    for (const [name, method, path, body] of writes) {
      const res = await callApi(h, method, path, {
        key: ws.readKey,
        ...(body === undefined ? {} : { body }),
      });
      assert.equal(res.status, 403, name);
      assert.deepEqual(res.body, { ok: false, error: 'insufficient-scope' }, name);
      assert.ok(res.headers.get('x-ratelimit-remaining'), name);
    }
    // Reading stays the read key's.
    assert.equal((await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.readKey })).status, 200);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: ws.id }), 1);
  });

  test('creates a document from JSON with its PDF in base64 and its fields, and sends it at once', async () => {
    const ws = await workspace();
    const pdf = await contractPdf();
    const res = await newDocument(ws.writeKey, {
      title: 'Service level agreement',
      file: pdf.toString('base64'),
      recipients: [
        ann,
        bob,
        { email: 'legal@northwind.example', fullName: 'Val Kim', role: 'viewer', signingOrder: 3 },
      ],
      fields: [
        { recipient: ann.email, type: 'signature', page: 1, x: 72, y: 100, width: 180, height: 48 },
        {
          recipient: bob.email,
          type: 'text',
          page: 2,
          x: 72,
          y: 100,
          width: 180,
          height: 24,
          label: 'Company',
          required: false,
        },
      ],
      remindEveryDays: 3,
      send: true,
    });
    assert.equal(res.status, 201, res.text);
    const doc = res.body.data as {
      id: string;
      status: string;
      recipients: Array<{
        email: string;
        fields: Array<{ type: string; label: string | null; required: boolean }>;
      }>;
      files: Array<{ kind: string; sha256: string; pages: number }>;
      events: Array<{ type: string }>;
    };
    assert.equal(doc.status, 'sent');
    assert.deepEqual(
      doc.recipients.map((r) => [r.email, r.fields.map((f) => f.type)]),
      [
        [ann.email, ['signature']],
        [bob.email, ['text']],
        ['legal@northwind.example', []],
      ],
    );
    assert.deepEqual(doc.recipients[1]?.fields[0], {
      ...doc.recipients[1]?.fields[0],
      label: 'Company',
      required: false,
    });
    assert.deepEqual(
      doc.files.map((f) => [f.kind, f.sha256, f.pages]),
      [['original', sha256(pdf), 2]],
    );
    assert.deepEqual(
      doc.events.map((e) => e.type),
      ['document.sent'],
    );
    // Sent as from the web app: the first signing group only is mailed its link.
    const mails = await h.ctx.db
      .selectFrom('mails')
      .select('to_address')
      .where('document_id', '=', doc.id)
      .execute();
    assert.deepEqual(
      mails.map((m) => m.to_address),
      [ann.email],
    );
  });

  test('creates a draft from multipart/form-data: a document part and a file part', async () => {
    const ws = await workspace();
    const pdf = await contractPdf(1);
    const res = await postDocumentMultipart(
      h,
      ws.writeKey,
      { title: 'Multipart draft', recipients: [ann] },
      pdf,
      'sla.pdf',
    );
    assert.equal(res.status, 201, res.text);
    const doc = res.body.data as { status: string; files: Array<{ sha256: string }> };
    assert.equal(doc.status, 'draft');
    assert.equal(doc.files[0]?.sha256, sha256(pdf));
  });

  test('every bad input is refused with a pointer to the member at fault, and nothing is stored', async () => {
    const ws = await workspace();
    const pdf = (await contractPdf(1)).toString('base64');
    const base = { title: 'Lease', file: pdf, recipients: [ann] };
    const cases: Array<[string, object, string, string]> = [
      ['no title', { recipients: [ann] }, 'invalid-body', '/title'],
      ['an unknown member', { ...base, colour: 'red' }, 'invalid-body', '/colour'],
      [
        'a number for a name',
        { ...base, recipients: [{ ...ann, fullName: 7 }] },
        'invalid-body',
        '/recipients/0/fullName',
      ],
      [
        'an unknown role',
        { ...base, recipients: [{ ...ann, role: 'boss' }] },
        'invalid-body',
        '/recipients/0/role',
      ],
      ['a blank title', { ...base, title: '   ' }, 'invalid-body', '/title'],
      [
        'a bad address',
        { ...base, recipients: [ann, { ...bob, email: 'bob@' }] },
        'invalid-body',
        '/recipients/1/email',
      ],
      [
        'an address twice',
        { ...base, recipients: [ann, { ...bob, email: 'ANN@northwind.example' }] },
        'invalid-body',
        '/recipients/1/email',
      ],
      ['no signer', { ...base, recipients: [{ ...ann, role: 'viewer' }] }, 'invalid-body', '/recipients'],
      ['no recipient', { ...base, recipients: [] }, 'invalid-body', '/recipients'],
      [
        'a blank name',
        { ...base, recipients: [{ ...ann, fullName: ' ' }] },
        'invalid-body',
        '/recipients/0/fullName',
      ],
      [
        'a name no font draws',
        { ...base, recipients: [{ ...ann, fullName: 'Ann \u{1D400}\u{E000}' }] },
        'invalid-body',
        '/recipients/0/fullName',
      ],
      ['an expiry too short', { ...base, expiresInSeconds: 5 }, 'invalid-body', '/expiresInSeconds'],
      ['reminders every 4 days', { ...base, remindEveryDays: 4 }, 'invalid-body', '/remindEveryDays'],
      [
        'a pricing line without a quantity',
        {
          ...base,
          file: undefined,
          pricing: {
            currency: 'EUR',
            pricesIncludeVat: false,
            items: [{ name: 'Audit', unitPrice: '10', vatRate: '20', billing: { type: 'one-off' } }],
          },
        },
        'invalid-body',
        '/pricing/items/0/quantity',
      ],
      [
        'a pricing quantity as a number',
        {
          ...base,
          file: undefined,
          pricing: {
            currency: 'EUR',
            pricesIncludeVat: false,
            items: [
              { name: 'Audit', quantity: 2, unitPrice: '10', vatRate: '20', billing: { type: 'one-off' } },
            ],
          },
        },
        'invalid-body',
        '/pricing/items/0/quantity',
      ],
      [
        'a field off its page',
        {
          ...base,
          fields: [
            { recipient: ann.email, type: 'signature', page: 1, x: 900, y: 10, width: 100, height: 40 },
          ],
        },
        'invalid-body',
        '/fields/0',
      ],
      [
        'a field on a missing page',
        {
          ...base,
          fields: [
            { recipient: ann.email, type: 'signature', page: 1, x: 10, y: 10, width: 100, height: 40 },
            { recipient: ann.email, type: 'text', page: 9, x: 10, y: 10, width: 100, height: 40 },
          ],
        },
        'invalid-body',
        '/fields/1',
      ],
      [
        'a field for a stranger',
        {
          ...base,
          fields: [
            { recipient: 'eve@x.example', type: 'signature', page: 1, x: 10, y: 10, width: 100, height: 40 },
          ],
        },
        'invalid-body',
        '/fields/0',
      ],
      [
        'fields without a PDF',
        {
          ...base,
          file: undefined,
          text: 'Terms',
          fields: [
            { recipient: ann.email, type: 'signature', page: 1, x: 10, y: 10, width: 100, height: 40 },
          ],
        },
        'invalid-body',
        '/fields',
      ],
      [
        'a value for a signature field',
        {
          ...base,
          fields: [
            {
              recipient: ann.email,
              type: 'signature',
              page: 1,
              x: 10,
              y: 10,
              width: 100,
              height: 40,
              value: 'Ann',
            },
          ],
        },
        'invalid-body',
        '/fields/0/value',
      ],
      [
        'a checkbox valued as text',
        {
          ...base,
          fields: [
            { recipient: ann.email, type: 'signature', page: 1, x: 10, y: 10, width: 100, height: 40 },
            {
              recipient: ann.email,
              type: 'checkbox',
              page: 1,
              x: 10,
              y: 60,
              width: 12,
              height: 12,
              value: 'yes',
            },
          ],
        },
        'invalid-body',
        '/fields/1/value',
      ],
      [
        'a value longer than its field takes',
        {
          ...base,
          fields: [
            {
              recipient: ann.email,
              type: 'text',
              page: 1,
              x: 10,
              y: 10,
              width: 100,
              height: 40,
              maxLength: 5,
              value: '1,200 EUR',
            },
          ],
        },
        'invalid-body',
        '/fields/0/value',
      ],
      ['a file that is not base64', { ...base, file: 'not base64!' }, 'invalid-body', '/file'],
      [
        'a file that is not a PDF',
        { ...base, file: Buffer.from('hello, world').toString('base64') },
        'invalid-file',
        '/file',
      ],
      [
        'an encrypted PDF',
        { ...base, file: (await encryptedLikePdf()).toString('base64') },
        'invalid-file',
        '/file',
      ],
      [
        'a PDF cut off',
        { ...base, file: Buffer.from(pdf, 'base64').subarray(0, 900).toString('base64') },
        'invalid-file',
        '/file',
      ],
    ];
    for (const [name, body, code, pointer] of cases) {
      const res = await newDocument(ws.writeKey, body);
      assert.equal(res.status, 400, `${name}: ${res.text}`);
      assert.deepEqual(res.body, { ok: false, error: code, pointer }, name);
    }
    const nothingToSend = await newDocument(ws.writeKey, { title: 'Empty', recipients: [ann], send: true });
    assert.equal(nothingToSend.status, 409);
    assert.deepEqual(nothingToSend.body, { ok: false, error: 'document-not-sendable' });
    const tooLarge = await newDocument(ws.writeKey, {
      ...base,
      file: Buffer.alloc(500 * 1024).toString('base64'),
    });
    assert.equal(tooLarge.status, 413);
    const broken = await callApi(h, 'POST', '/v1/documents', { key: ws.writeKey, body: '{"title": ' });
    assert.deepEqual(broken.body, { ok: false, error: 'invalid-json' });
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: ws.id }), 0);
    assert.equal(await countRows(h.ctx, 'upload_usage', { workspace_id: ws.id }), 0);
  });

  test('sends and deletes drafts; a sent document is not a draft; another workspace’s ids are not-found', async () => {
    const ws = await workspace();
    const other = await workspace();
    const created = await newDocument(ws.writeKey, {
      title: 'Terms',
      text: 'We agree.',
      recipients: [ann, bob],
    });
    const id = (created.body.data as { id: string }).id;
    for (const [method, path] of [
      ['POST', `/v1/documents/${id}/send`],
      ['DELETE', `/v1/documents/${id}`],
    ] as const) {
      const res = await callApi(h, method, path, { key: other.writeKey });
      assert.deepEqual([res.status, res.body], [404, { ok: false, error: 'not-found' }], path);
    }
    const sent = await callApi(h, 'POST', `/v1/documents/${id}/send`, { key: ws.writeKey });
    assert.equal(sent.status, 200, sent.text);
    assert.equal((sent.body.data as { status: string }).status, 'sent');
    // Made from its text at sending: the original is there now.
    assert.equal((sent.body.data as { files: unknown[] }).files.length, 1);
    const again = await callApi(h, 'POST', `/v1/documents/${id}/send`, { key: ws.writeKey });
    assert.deepEqual([again.status, again.body], [409, { ok: false, error: 'document-not-draft' }]);
    const deleteSent = await callApi(h, 'DELETE', `/v1/documents/${id}`, { key: ws.writeKey });
    assert.deepEqual([deleteSent.status, deleteSent.body], [409, { ok: false, error: 'document-not-draft' }]);

    const draft = await newDocument(ws.writeKey, { title: 'Scrap', recipients: [ann] });
    const draftId = (draft.body.data as { id: string }).id;
    const noSigner = await newDocument(ws.writeKey, { title: 'Nothing', recipients: [ann] });
    const nothing = await callApi(
      h,
      'POST',
      `/v1/documents/${(noSigner.body.data as { id: string }).id}/send`,
      {
        key: ws.writeKey,
      },
    );
    assert.deepEqual([nothing.status, nothing.body], [409, { ok: false, error: 'document-not-sendable' }]);
    const deleted = await callApi(h, 'DELETE', `/v1/documents/${draftId}`, { key: ws.writeKey });
    assert.deepEqual(
      [deleted.status, deleted.body],
      [200, { ok: true, data: { id: draftId, deleted: true } }],
    );
    assert.equal((await callApi(h, 'GET', `/v1/documents/${draftId}`, { key: ws.readKey })).status, 404);
  });

  test('Idempotency-Key: a repeat answers the same document, another body is refused, concurrent repeats make one', async () => {
    const ws = await workspace();
    const body = { title: 'Once', text: 'Only once.', recipients: [ann], send: true };
    const key = { 'idempotency-key': 'order-1042' };
    const first = await newDocument(ws.writeKey, body, key);
    const second = await newDocument(ws.writeKey, body, key);
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const id = (first.body.data as { id: string }).id;
    assert.equal((second.body.data as { id: string }).id, id);
    assert.equal((second.body.data as { status: string }).status, 'sent');
    const other = await newDocument(ws.writeKey, { ...body, title: 'Twice' }, key);
    assert.deepEqual([other.status, other.body], [409, { ok: false, error: 'idempotency-key-reused' }]);
    const elsewhere = await callApi(h, 'POST', `/v1/documents/${id}/send`, {
      key: ws.writeKey,
      headers: key,
    });
    assert.deepEqual(
      [elsewhere.status, elsewhere.body],
      [409, { ok: false, error: 'idempotency-key-reused' }],
    );

    const together = { 'idempotency-key': 'order-1043' };
    const answers: ApiResponse[] = await Promise.all(
      Array.from({ length: 4 }, () => newDocument(ws.writeKey, { ...body, title: 'Together' }, together)),
    );
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([201]));
    assert.equal(new Set(answers.map((a) => (a.body.data as { id: string }).id)).size, 1);
    assert.equal(answers.filter((a) => a.headers.get('idempotent-replayed') === null).length, 1);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: ws.id }), 2);

    const draft = await newDocument(ws.writeKey, { title: 'Later', text: 'Later.', recipients: [ann] });
    const draftId = (draft.body.data as { id: string }).id;
    const sendKey = { 'idempotency-key': 'send-7' };
    const sent = await callApi(h, 'POST', `/v1/documents/${draftId}/send`, {
      key: ws.writeKey,
      headers: sendKey,
    });
    const resent = await callApi(h, 'POST', `/v1/documents/${draftId}/send`, {
      key: ws.writeKey,
      headers: sendKey,
    });
    assert.deepEqual([sent.status, resent.status], [200, 200]);
    assert.equal(resent.headers.get('idempotent-replayed'), 'true');
    assert.equal(
      await countRows(h.ctx, 'document_events', { document_id: draftId, type: 'document.sent' }),
      1,
    );
  });
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

  test('remind and withdraw: the web app’s rules, each refusal with its code', async () => {
    const ws = await workspace();
    const created = await newDocument(ws.writeKey, {
      title: 'Terms',
      text: 'We agree.',
      recipients: [ann, bob],
      send: true,
    });
    const doc = created.body.data as { id: string; recipients: Array<{ id: string; email: string }> };
    const [first, second] = doc.recipients;
    const remind = (id: string) =>
      callApi(h, 'POST', `/v1/documents/${doc.id}/recipients/${id}/remind`, { key: ws.writeKey });
    const reminded = await remind(first?.id as string);
    assert.equal(reminded.status, 200, reminded.text);
    assert.equal(await countRows(h.ctx, 'mails', { document_id: doc.id, to_address: ann.email }), 2);
    const again = await remind(first?.id as string);
    assert.deepEqual([again.status, again.body], [429, { ok: false, error: 'reminded-recently' }]);
    assert.equal(again.headers.get('retry-after'), '3600');
    h.clock.advance(20 * 60_000);
    assert.equal((await remind(first?.id as string)).headers.get('retry-after'), '2400');
    const notYet = await remind(second?.id as string);
    assert.deepEqual([notYet.status, notYet.body], [409, { ok: false, error: 'recipient-not-remindable' }]);
    const stranger = await remind('0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a');
    assert.deepEqual([stranger.status, stranger.body], [404, { ok: false, error: 'not-found' }]);
    const readOnly = await callApi(h, 'POST', `/v1/documents/${doc.id}/withdraw`, { key: ws.readKey });
    assert.deepEqual([readOnly.status, readOnly.body], [403, { ok: false, error: 'insufficient-scope' }]);

    const withdrawn = await callApi(h, 'POST', `/v1/documents/${doc.id}/withdraw`, {
      key: ws.writeKey,
      body: { reason: 'The client chose another supplier.' },
    });
    assert.equal(withdrawn.status, 200, withdrawn.text);
    assert.equal((withdrawn.body.data as { status: string }).status, 'expired');
    // Webhooks fire for API-made changes as for the web app's: the same stored event bodies.
    for (const type of ['document.sent', 'document.expired']) {
      const event = await storedEventBody<{ type: string; data: { document: { id: string } } }>(
        h.ctx,
        ws.id,
        type,
      );
      assert.deepEqual([event.type, event.data.document.id], [type, doc.id]);
    }
    const history = await h.ctx.db
      .selectFrom('document_events')
      .select(['type', 'detail'])
      .where('document_id', '=', doc.id)
      .where('type', '=', 'document.withdrawn')
      .execute();
    assert.deepEqual(history, [
      { type: 'document.withdrawn', detail: 'by API key “writer”: The client chose another supplier.' },
    ]);
    // Only the one mailed so far is told.
    assert.equal(await countRows(h.ctx, 'mails', { document_id: doc.id, to_address: bob.email }), 0);
    for (const res of [
      await callApi(h, 'POST', `/v1/documents/${doc.id}/withdraw`, { key: ws.writeKey }),
      await remind(first?.id as string),
    ])
      assert.deepEqual([res.status, res.body], [409, { ok: false, error: 'document-not-active' }]);
    const draft = await newDocument(ws.writeKey, { title: 'Draft', recipients: [ann] });
    const notSent = await callApi(
      h,
      'POST',
      `/v1/documents/${(draft.body.data as { id: string }).id}/withdraw`,
      {
        key: ws.writeKey,
        body: {},
      },
    );
    assert.deepEqual([notSent.status, notSent.body], [409, { ok: false, error: 'document-not-active' }]);
  });

  test('delivery none: nobody is mailed, the send answers the links, they sign, and fresh ones replace them', async () => {
    const ws = await workspace();
    const refused = await newDocument(ws.writeKey, {
      title: 'Own channel',
      text: 'Terms.',
      recipients: [ann, bob],
      delivery: 'none',
      remindEveryDays: 3,
    });
    assert.deepEqual(refused.body, { ok: false, error: 'invalid-body', pointer: '/remindEveryDays' });
    const key = { 'idempotency-key': 'portal-77' };
    const body = {
      title: 'Own channel',
      text: 'Terms.',
      recipients: [ann, bob],
      delivery: 'none',
      send: true,
    };
    const created = await newDocument(ws.writeKey, body, key);
    assert.equal(created.status, 201, created.text);
    const doc = created.body.data as {
      id: string;
      recipients: Array<{ id: string; email: string }>;
      signingUrls: Array<{ recipientId: string; email: string; url: string }>;
    };
    assert.deepEqual(
      doc.signingUrls.map((l) => [l.recipientId, l.email]),
      [[doc.recipients[0]?.id, ann.email]],
    );
    const link = doc.signingUrls[0]?.url as string;
    assert.match(link, new RegExp(`^https://sign\\.example\\.test/sign/${doc.id}/[\\w-]{43}$`));
    assert.equal(await countRows(h.ctx, 'mails', { document_id: doc.id }), 0);
    // A repeat answers the same link; nothing new is made or mailed.
    const repeat = await newDocument(ws.writeKey, body, key);
    assert.deepEqual((repeat.body.data as typeof doc).signingUrls, doc.signingUrls);
    // The link opens the signing page, as a mailed one would.
    const page = await fetch(`${h.baseUrl}${new URL(link).pathname}`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Own channel/);
    // Reminders are the integrator's to send.
    const remind = await callApi(
      h,
      'POST',
      `/v1/documents/${doc.id}/recipients/${doc.recipients[0]?.id}/remind`,
      {
        key: ws.writeKey,
      },
    );
    assert.deepEqual([remind.status, remind.body], [409, { ok: false, error: 'recipient-not-remindable' }]);
    // A later signer has no link before their turn.
    const fresh = (id: string) =>
      callApi(h, 'POST', `/v1/documents/${doc.id}/recipients/${id}/signing-url`, { key: ws.writeKey });
    const early = await fresh(doc.recipients[1]?.id as string);
    assert.deepEqual([early.status, early.body], [409, { ok: false, error: 'recipient-not-invited' }]);
    const renewed = await fresh(doc.recipients[0]?.id as string);
    assert.equal(renewed.status, 200, renewed.text);
    const newLink = (renewed.body.data as { url: string }).url;
    assert.notEqual(newLink, link);
    assert.equal(
      (await fetch(`${h.baseUrl}${new URL(link).pathname}`)).status,
      404,
      'the old link stops working',
    );
    const session = await findSigningSession(h.ctx, doc.id, newLink.split('/').pop() as string);
    assert.ok(session, 'the new link is a session');
    await signDocument(h.ctx, session, { fullName: ann.fullName, consent: true });
    // Bob's turn: his link is the integrator's to ask for; still nothing mailed to anyone.
    const bobs = await fresh(doc.recipients[1]?.id as string);
    assert.equal(bobs.status, 200, bobs.text);
    const bobSession = await findSigningSession(
      h.ctx,
      doc.id,
      (bobs.body.data as { url: string }).url.split('/').pop() as string,
    );
    assert.ok(bobSession);
    await signDocument(h.ctx, bobSession, { fullName: bob.fullName, consent: true });
    assert.equal(await countRows(h.ctx, 'mails', { document_id: doc.id }), 0);
    const finished = await fresh(doc.recipients[1]?.id as string);
    assert.deepEqual([finished.status, finished.body], [409, { ok: false, error: 'document-not-active' }]);

    const mailed = await newDocument(ws.writeKey, {
      title: 'Mailed',
      text: 'Terms.',
      recipients: [ann],
      send: true,
    });
    const mailedDoc = mailed.body.data as typeof doc;
    assert.deepEqual(mailedDoc.signingUrls, []);
    const byMail = await callApi(
      h,
      'POST',
      `/v1/documents/${mailedDoc.id}/recipients/${mailedDoc.recipients[0]?.id}/signing-url`,
      {
        key: ws.writeKey,
      },
    );
    assert.deepEqual([byMail.status, byMail.body], [409, { ok: false, error: 'document-delivered-by-mail' }]);
  });
  test('PUT replaces a draft whole: recipients by email keep their ids, fields are the body’s, a refusal changes nothing', async () => {
    const ws = await workspace();
    const pdf = (await contractPdf(2)).toString('base64');
    const field = (recipient: string, page: number) => ({
      recipient,
      type: 'signature',
      page,
      x: 72,
      y: 100,
      width: 160,
      height: 40,
    });
    const created = await newDocument(ws.writeKey, {
      title: 'First',
      file: pdf,
      recipients: [ann, bob],
      fields: [field(ann.email, 1)],
    });
    const before = created.body.data as {
      id: string;
      recipients: Array<{ id: string; email: string }>;
      files: Array<{ sha256: string }>;
    };
    const put = (body: object, key = ws.writeKey) =>
      callApi(h, 'PUT', `/v1/documents/${before.id}`, { key, body });
    const carol = { email: 'carol@northwind.example', fullName: 'Carol Diaz' };
    const replaced = await put({
      title: 'Second',
      recipients: [carol, ann],
      fields: [field(carol.email, 2), field(ann.email, 1)],
    });
    assert.equal(replaced.status, 200, replaced.text);
    type Replaced = {
      id: string;
      title: string;
      files: Array<{ sha256: string }>;
      recipients: Array<{ id: string; email: string; fields: Array<{ page: number }> }>;
    };
    const after = replaced.body.data as Replaced;
    assert.equal(after.title, 'Second');
    assert.deepEqual(
      after.recipients.map((r) => r.email),
      [carol.email, ann.email],
    );
    assert.equal(
      after.recipients.find((r) => r.email === ann.email)?.id,
      before.recipients[0]?.id,
      'Ann keeps her id',
    );
    assert.deepEqual(
      after.recipients.map((r) => r.fields.map((f) => f.page)),
      [[2], [1]],
    );
    assert.equal(after.files[0]?.sha256, before.files[0]?.sha256, 'no file: the PDF stays');
    // A refusal (a field on a page the PDF lacks) changes nothing.
    const refused = await put({ title: 'Third', recipients: [ann], fields: [field(ann.email, 9)] });
    assert.deepEqual(refused.body, { ok: false, error: 'invalid-body', pointer: '/fields/0' });
    const still = (await callApi(h, 'GET', `/v1/documents/${before.id}`, { key: ws.readKey })).body
      .data as typeof after;
    assert.deepEqual([still.title, still.recipients.length], ['Second', 2]);
    const readOnly = await put({ title: 'X', recipients: [ann] }, ws.readKey);
    assert.deepEqual([readOnly.status, readOnly.body], [403, { ok: false, error: 'insufficient-scope' }]);
    const sent = await put({ title: 'Final', recipients: [ann], fields: [field(ann.email, 1)], send: true });
    assert.equal((sent.body.data as { status: string }).status, 'sent', sent.text);
    const late = await put({ title: 'Too late', recipients: [ann] });
    assert.deepEqual([late.status, late.body], [409, { ok: false, error: 'document-not-draft' }]);
    const other = await workspace();
    const foreign = await put({ title: 'Theirs', recipients: [ann] }, other.writeKey);
    assert.deepEqual([foreign.status, foreign.body], [404, { ok: false, error: 'not-found' }]);
  });
  test('another workspace’s document or recipient is not-found for every write, byte for byte as a missing one', async () => {
    const ws = await workspace();
    const other = await workspace();
    const created = await newDocument(ws.writeKey, {
      title: 'Ours',
      text: 'Terms.',
      recipients: [ann, bob],
      send: true,
      delivery: 'none',
    });
    const doc = created.body.data as { id: string; recipients: Array<{ id: string }> };
    const recipientId = doc.recipients[0]?.id as string;
    const missing = '0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a';
    const writes = (
      id: string,
      rid: string,
    ): Array<['POST' | 'PUT' | 'DELETE', string, object | undefined]> => [
      ['PUT', `/v1/documents/${id}`, { title: 'Theirs', recipients: [ann] }],
      ['POST', `/v1/documents/${id}/send`, undefined],
      ['DELETE', `/v1/documents/${id}`, undefined],
      ['POST', `/v1/documents/${id}/withdraw`, {}],
      ['POST', `/v1/documents/${id}/recipients/${rid}/remind`, undefined],
      ['POST', `/v1/documents/${id}/recipients/${rid}/signing-url`, undefined],
    ];
    const foreign = writes(doc.id, recipientId);
    const absent = writes(missing, missing);
    for (const [index, [method, path, body]] of foreign.entries()) {
      const theirs = await callApi(h, method, path, { key: other.writeKey, ...(body ? { body } : {}) });
      const [, missingPath, missingBody] = absent[index] as (typeof absent)[number];
      const none = await callApi(h, method, missingPath, {
        key: other.writeKey,
        ...(missingBody ? { body: missingBody } : {}),
      });
      assert.deepEqual([theirs.status, theirs.text], [404, '{"ok":false,"error":"not-found"}'], path);
      assert.equal(theirs.text, none.text, path);
    }
    // Our own document with another document's recipient is not-found too.
    const mine = await newDocument(other.writeKey, {
      title: 'Mine',
      text: 'Terms.',
      recipients: [ann],
      send: true,
      delivery: 'none',
    });
    const mineId = (mine.body.data as { id: string }).id;
    for (const action of ['remind', 'signing-url']) {
      const res = await callApi(h, 'POST', `/v1/documents/${mineId}/recipients/${recipientId}/${action}`, {
        key: other.writeKey,
      });
      assert.deepEqual([res.status, res.body], [404, { ok: false, error: 'not-found' }], action);
    }
    const still = (await callApi(h, 'GET', `/v1/documents/${doc.id}`, { key: ws.readKey })).body.data as {
      status: string;
      title: string;
    };
    assert.deepEqual([still.status, still.title], ['sent', 'Ours']);
  });
  test('Idempotency-Key: keys past their 24 hours are dropped when the next one is claimed, so the table does not grow', async () => {
    const ws = await workspace();
    const body = { title: 'Kept a day', text: 'Terms.', recipients: [ann] };
    await newDocument(ws.writeKey, body, { 'idempotency-key': 'day-1' });
    h.clock.advance(25 * 60 * 60 * 1000);
    await newDocument(ws.writeKey, { ...body, title: 'Next day' }, { 'idempotency-key': 'day-2' });
    const keys = await h.ctx.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('workspace_id', '=', ws.id)
      .execute();
    assert.deepEqual(
      keys.map((k) => k.key),
      ['day-2'],
    );
  });

  test('Idempotency-Key is bound to the whole request: a repeat that only adds `send: true` is 409 and sends nothing', async () => {
    const ws = await workspace();
    const body = { title: 'Draft first', text: 'Terms.', recipients: [ann] };
    const key = { 'idempotency-key': 'create-then-send' };
    const draft = await newDocument(ws.writeKey, body, key);
    assert.equal(draft.status, 201);
    const id = (draft.body.data as { id: string }).id;
    const withSend = await newDocument(ws.writeKey, { ...body, send: true }, key);
    assert.deepEqual([withSend.status, withSend.body], [409, { ok: false, error: 'idempotency-key-reused' }]);
    const detail = await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.readKey });
    assert.equal((detail.body.data as { status: string }).status, 'draft');
    assert.equal(await countRows(h.ctx, 'mails', { document_id: id }), 0);
    // `send: false` written out is the same request as leaving it out.
    const same = await newDocument(ws.writeKey, { ...body, send: false }, key);
    assert.deepEqual([same.status, same.headers.get('idempotent-replayed')], [201, 'true']);
    // A replacement's `send` too.
    const putKey = { 'idempotency-key': 'replace-1' };
    const replaced = await callApi(h, 'PUT', `/v1/documents/${id}`, {
      key: ws.writeKey,
      headers: putKey,
      body,
    });
    assert.equal(replaced.status, 200, replaced.text);
  });

  test('Idempotency-Key on remind and withdraw: a repeat answers the first answer and acts once; another body is 409', async () => {
    const ws = await workspace();
    const created = await newDocument(ws.writeKey, {
      title: 'Terms',
      text: 'We agree.',
      recipients: [ann],
      send: true,
    });
    const doc = created.body.data as { id: string; recipients: Array<{ id: string }> };
    const remindPath = `/v1/documents/${doc.id}/recipients/${doc.recipients[0]?.id}/remind`;
    const remindKey = { 'idempotency-key': 'remind-ann-1' };
    const reminded = await callApi(h, 'POST', remindPath, { key: ws.writeKey, headers: remindKey });
    assert.equal(reminded.status, 200, reminded.text);
    assert.equal(reminded.headers.get('idempotent-replayed'), null);
    const again = await callApi(h, 'POST', remindPath, { key: ws.writeKey, headers: remindKey });
    assert.deepEqual([again.status, again.headers.get('idempotent-replayed')], [200, 'true']);
    assert.equal((again.body.data as { id: string }).id, doc.id);
    // One invitation and one reminder, not two.
    assert.equal(await countRows(h.ctx, 'mails', { document_id: doc.id, to_address: ann.email }), 2);
    assert.equal(
      await countRows(h.ctx, 'document_events', { document_id: doc.id, type: 'reminder.sent' }),
      1,
    );
    // The key is the remind's: on the withdrawal it is another request.
    const reused = await callApi(h, 'POST', `/v1/documents/${doc.id}/withdraw`, {
      key: ws.writeKey,
      headers: remindKey,
    });
    assert.deepEqual([reused.status, reused.body], [409, { ok: false, error: 'idempotency-key-reused' }]);

    const withdrawKey = { 'idempotency-key': 'withdraw-1' };
    const reason = { reason: 'The client chose another supplier.' };
    const withdrawn = await callApi(h, 'POST', `/v1/documents/${doc.id}/withdraw`, {
      key: ws.writeKey,
      headers: withdrawKey,
      body: reason,
    });
    assert.equal(withdrawn.status, 200, withdrawn.text);
    const repeat = await callApi(h, 'POST', `/v1/documents/${doc.id}/withdraw`, {
      key: ws.writeKey,
      headers: withdrawKey,
      body: reason,
    });
    assert.deepEqual([repeat.status, repeat.headers.get('idempotent-replayed')], [200, 'true']);
    assert.equal((repeat.body.data as { status: string }).status, 'expired');
    assert.equal(
      await countRows(h.ctx, 'document_events', { document_id: doc.id, type: 'document.expired' }),
      1,
    );
    const otherReason = await callApi(h, 'POST', `/v1/documents/${doc.id}/withdraw`, {
      key: ws.writeKey,
      headers: withdrawKey,
      body: { reason: 'Another reason.' },
    });
    assert.deepEqual(
      [otherReason.status, otherReason.body],
      [409, { ok: false, error: 'idempotency-key-reused' }],
    );
    // Without a key, a second withdrawal is still refused.
    const plain = await callApi(h, 'POST', `/v1/documents/${doc.id}/withdraw`, { key: ws.writeKey });
    assert.deepEqual([plain.status, plain.body], [409, { ok: false, error: 'document-not-active' }]);
  });

  test('a withdrawal is told from a lapse: withdrawnAt and expiredReason in the detail, the list and document.expired', async () => {
    const ws = await workspace();
    const make = async (title: string) =>
      (
        (
          await newDocument(ws.writeKey, {
            title,
            text: 'Terms.',
            recipients: [ann],
            send: true,
            expiresInSeconds: 3600,
          })
        ).body.data as { id: string }
      ).id;
    const withdrawnId = await make('Withdrawn');
    const lapsedId = await make('Lapsed');
    const openId = await make('Open');
    await callApi(h, 'POST', `/v1/documents/${withdrawnId}/withdraw`, { key: ws.writeKey });
    const withdrawnAt = h.clock.now().toISOString();
    h.clock.advance(2 * 3600_000);
    await expireDueDocuments(h.ctx);
    const detail = async (id: string) =>
      (await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.readKey })).body.data as Record<
        string,
        unknown
      >;
    const pick = (d: Record<string, unknown>) => [d.status, d.withdrawnAt, d.expiredReason];
    assert.deepEqual(pick(await detail(withdrawnId)), ['expired', withdrawnAt, 'withdrawn']);
    assert.deepEqual(pick(await detail(lapsedId)), ['expired', null, 'lapsed']);
    const list = await callApi(h, 'GET', '/v1/documents', { key: ws.readKey });
    const listed = new Map((list.body.data as Array<Record<string, unknown>>).map((d) => [d.id, pick(d)]));
    assert.deepEqual(listed.get(withdrawnId), ['expired', withdrawnAt, 'withdrawn']);
    assert.deepEqual(listed.get(lapsedId), ['expired', null, 'lapsed']);
    assert.deepEqual(listed.get(openId), ['expired', null, 'lapsed']);
    const bodies = await h.ctx.db
      .selectFrom('webhook_events')
      .select('payload')
      .where('workspace_id', '=', ws.id)
      .where('type', '=', 'document.expired')
      .execute();
    const byId = new Map(
      bodies.map(({ payload }) => {
        const body = (typeof payload === 'string' ? JSON.parse(payload) : payload) as {
          data: { document: Record<string, unknown> };
        };
        return [body.data.document.id, pick(body.data.document)];
      }),
    );
    assert.deepEqual(byId.get(withdrawnId), ['expired', withdrawnAt, 'withdrawn']);
    assert.deepEqual(byId.get(lapsedId), ['expired', null, 'lapsed']);
    assert.deepEqual(pick(await detail(openId)), ['expired', null, 'lapsed']);
    const draft = await newDocument(ws.writeKey, { title: 'Draft', recipients: [ann] });
    assert.deepEqual(pick(draft.body.data as Record<string, unknown>), ['draft', null, null]);
  });

  test('multipart with the JSON part as a Blob (as JavaScript sends it) is taken like a plain field, within the same limits', async () => {
    const ws = await workspace();
    const pdf = await contractPdf(4);
    const document = { title: 'From JavaScript', text: 'x'.repeat(2000), recipients: [ann], send: true };
    const post = async (json: string) => {
      const form = new FormData();
      form.append('document', new Blob([json], { type: 'application/json' }));
      form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'sla.pdf');
      const res = await fetch(`${h.baseUrl}/v1/documents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.writeKey}` },
        body: form,
      });
      const text = await res.text();
      await assertContract('POST', '/v1/documents', { status: res.status, headers: res.headers, text });
      return {
        status: res.status,
        body: JSON.parse(text) as { ok: boolean; error?: string; data?: unknown },
      };
    };
    const made = await post(JSON.stringify(document));
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const doc = made.body.data as { status: string; files: Array<{ sha256: string }> };
    assert.deepEqual([doc.status, doc.files[0]?.sha256], ['sent', sha256(pdf)]);
    // Past the field limit (1 MiB), as a plain field is.
    const huge = await post(JSON.stringify({ ...document, text: 'x'.repeat(1024 * 1024 + 10) }));
    assert.deepEqual([huge.status, huge.body.error], [413, 'payload-too-large']);
    // Not JSON, though declared so: invalid-json, as a plain field.
    const broken = await post('{"title": ');
    assert.deepEqual([broken.status, broken.body.error], [400, 'invalid-json']);
    // A second file beside the PDF is still refused.
    const form = new FormData();
    form.append('document', new Blob([JSON.stringify(document)], { type: 'application/json' }));
    form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'a.pdf');
    form.append('other', new Blob([pdf], { type: 'application/pdf' }), 'b.pdf');
    const two = await fetch(`${h.baseUrl}/v1/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.writeKey}` },
      body: form,
    });
    assert.equal(two.status, 413);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: ws.id }), 1);
  });
});
