// Creating and replacing documents through /v1 (issue 37): POST /v1/documents as JSON with
// the PDF in base64 and as multipart/form-data (a document part and a file part; the JSON
// part as a Blob, within the same limits), sent at once or kept a draft; every bad input
// refused with a pointer to the member at fault and nothing stored; PUT replacing a draft
// whole. The suites' shared setup: api-writes-setup.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertContract } from '../support/contract.ts';
import { callApi, countRows, describeEachDatabase, postDocumentMultipart } from '../support/harness.ts';
import { ann, bob, contractPdf, encryptedLikePdf, sha256, useWriteApi } from './api-writes-setup.ts';

describeEachDatabase('document writes through /v1: creating and replacing drafts', (kind) => {
  const { h, workspace, newDocument } = useWriteApi(kind);

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
