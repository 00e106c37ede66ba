// Templates (issue 38), the services: made from an upload or saved from a document, read,
// replaced, renamed, deleted (documents made from it keep everything), and used: an ordinary
// document whose PDF is the template's own stored file (one file for many documents), its
// fields at the template's positions, the values its user fills in prefilled.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getDocument } from '../../src/documents/documents.service.ts';
import { InputError } from '../../src/input-error.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import {
  deleteTemplate,
  getTemplate,
  listTemplates,
  renameTemplate,
  templateFromDocument,
  updateTemplate,
} from '../../src/templates/templates.service.ts';
import { asTemplateUseError, documentInputOf } from '../../src/templates/use-template.ts';
import {
  blankPdf,
  createServicesTemplate,
  servicesFields,
  servicesRoles,
  templateField,
  templateRole,
} from '../support/factories.ts';
import {
  countRows,
  createTestWorkspace,
  describeEachDatabase,
  recipient,
  useHarness,
} from '../support/harness.ts';

/** The services agreement, with the Client's Start date asked as well. */
const fields = servicesFields({ startDate: true });

describeEachDatabase('templates', (kind) => {
  const h = useHarness(kind);

  async function newTemplate(workspaceId: string, extra: object = {}) {
    return createServicesTemplate(h.ctx, workspaceId, {
      title: 'Services agreement with {client}',
      fields,
      remindEveryDays: 3,
      file: await blankPdf(2),
      ...extra,
    });
  }

  test('made from an upload: read back with its roles, their fields, and who fills each', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await newTemplate(ws.id);
    const template = await getTemplate(h.ctx, ws.id, id);
    assert.equal(template.name, 'Services agreement');
    assert.equal(template.file.pages, 2);
    assert.deepEqual(
      template.roles.map((r) => [r.name, r.role, r.signingOrder, r.fields.length]),
      [
        ['Client', 'signer', 1, 4],
        ['Company', 'signer', 2, 2],
        ['Accountant', 'viewer', 3, 0],
      ],
    );
    assert.deepEqual(
      template.roles[0]?.fields.map((f) => [f.type, f.label, f.senderFills]),
      [
        ['signature', null, false],
        ['text', 'Price', true],
        ['text', 'Start date', true],
        ['checkbox', 'Insured', true],
      ],
    );
    const other = await createTestWorkspace(h.ctx);
    await assert.rejects(getTemplate(h.ctx, other.id, id), /not-found/);
    assert.deepEqual(
      (await listTemplates(h.ctx, { workspaceId: other.id, limit: 10, cursor: null })).data,
      [],
    );
  });

  test('every problem at once, each under its key, and nothing stored', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const before = await countRows(h.ctx, 'templates');
    const refused = async (extra: object): Promise<InputError> => {
      try {
        await newTemplate(ws.id, extra);
      } catch (error) {
        if (error instanceof InputError) return error;
        throw error;
      }
      assert.fail('accepted');
    };
    const bad = await refused({
      name: ' ',
      roles: [
        servicesRoles[0],
        { ...servicesRoles[1], name: 'client' },
        { ...servicesRoles[2], signingOrder: 0 },
      ],
    });
    assert.deepEqual(Object.keys(bad.fields).sort(), ['name', 'roles[1].name', 'roles[2].signingOrder']);
    const noSigner = await refused({ roles: [{ ...servicesRoles[2] }], fields: [] });
    assert.match(noSigner.fields.roles ?? '', /at least one signing role/);
    const stranger = await refused({ fields: [templateField('Landlord', 'signature', 100)] });
    assert.match(stranger.fields.fields ?? '', /Landlord is not a role of this template/);
    const unlabelled = await refused({
      fields: [templateField('Client', 'text', 100, { senderFills: true })],
    });
    assert.match(unlabelled.fields.fields ?? '', /needs a label/);
    assert.equal(unlabelled.details.pointers?.fields, '/fields/0');
    const signatureBySender = await refused({
      fields: [templateField('Client', 'signature', 100, { senderFills: true, label: 'Sig' })],
    });
    assert.match(signatureBySender.fields.fields ?? '', /only text and checkbox fields/);
    const notPdf = await refused({ file: Buffer.from('not a pdf') });
    assert.match(notPdf.fields.file ?? '', /not a PDF/);
    const noFile = await refused({ file: null });
    assert.match(noFile.fields.file ?? '', /choose the PDF/);
    assert.equal(await countRows(h.ctx, 'templates'), before);
  });

  test('used: an ordinary document with the template’s PDF (one file for many), its fields and the sender’s values', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await newTemplate(ws.id);
    const template = await getTemplate(h.ctx, ws.id, id);
    const filesBefore = await countRows(h.ctx, 'files');
    const made: string[] = [];
    for (const n of [1, 2, 3]) {
      const input = await documentInputOf(h.ctx, ws.id, template, {
        recipients: {
          client: { email: `client${n}@example.com`, fullName: `Client ${n}` },
          Company: { email: 'ceo@acme.example', fullName: 'Dana Ceo' },
          Accountant: { email: 'books@acme.example', fullName: 'Books' },
        },
        values: { price: `${n},000 EUR`, Insured: true },
      });
      made.push((await createDocument(h.ctx, input)).id);
    }
    assert.equal(await countRows(h.ctx, 'files'), filesBefore, 'no file stored for the documents');
    assert.equal(
      await countRows(h.ctx, 'upload_usage', { workspace_id: ws.id }),
      1,
      'the template’s upload alone',
    );
    const document = await getDocument(h.ctx, ws.id, made[1] as string);
    assert.equal(document.files[0]?.sha256, template.file.sha256);
    assert.deepEqual(
      document.recipients.map((r) => [r.email, r.role, r.signingOrder]),
      [
        ['client2@example.com', 'signer', 1],
        ['ceo@acme.example', 'signer', 2],
        ['books@acme.example', 'viewer', 3],
      ],
    );
    assert.deepEqual(
      document.recipients[0]?.fields.map((f) => [f.type, f.label, f.y, f.prefilled, f.value]),
      [
        ['signature', null, 100, false, null],
        ['text', 'Price', 200, true, '2,000 EUR'],
        ['text', 'Start date', 240, true, null],
        ['checkbox', 'Insured', 280, true, true],
      ],
    );
    assert.deepEqual(
      document.recipients[1]?.fields.map((f) => [f.label, f.x, f.value]),
      [
        [null, 320, null],
        ['Price', 320, '2,000 EUR'],
      ],
    );
    assert.equal((await getTemplate(h.ctx, ws.id, id)).documents, 3);
    // Deleted: the documents keep their recipients, fields and file.
    await deleteTemplate(h.ctx, ws.id, id);
    await assert.rejects(getTemplate(h.ctx, ws.id, id), /not-found/);
    const after = await getDocument(h.ctx, ws.id, made[1] as string);
    assert.deepEqual(after.recipients, document.recipients);
    assert.deepEqual(after.files, document.files);
    await assert.rejects(deleteTemplate(h.ctx, ws.id, id), /not-found/);
  });

  test('used wrongly: a role left out or unknown, a value missing or unknown, each named as the user wrote it', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const template = await getTemplate(h.ctx, ws.id, (await newTemplate(ws.id)).id);
    await assert.rejects(
      documentInputOf(h.ctx, ws.id, template, {
        recipients: {
          Client: { email: 'a@x.example', fullName: 'A' },
          Landlord: { email: 'l@x.example', fullName: 'L' },
        },
        values: { Colour: 'red' },
      }),
      (error: unknown) => {
        assert.ok(error instanceof InputError);
        assert.deepEqual(
          Object.keys(error.fields).sort(),
          [
            'recipients["Company"]',
            'recipients["Accountant"]',
            'recipients["Landlord"]',
            'values["Colour"]',
            'values["Price"]',
          ].sort(),
        );
        return true;
      },
    );
    // A recipient's problem found by the document's own checks, under its role.
    const input = await documentInputOf(h.ctx, ws.id, template, {
      recipients: {
        Client: { email: 'bob@', fullName: 'Bob' },
        Company: { email: 'ceo@acme.example', fullName: 'Dana' },
        Accountant: { email: 'books@acme.example', fullName: 'Books' },
      },
      values: { Price: 'x'.repeat(501) },
    });
    try {
      await createDocument(h.ctx, input);
      assert.fail('accepted');
    } catch (error) {
      assert.ok(error instanceof InputError);
      const named = asTemplateUseError(error, template);
      assert.equal(named.fields['recipients["Client"].email'], 'Client: the email address is not valid.');
    }
    const priced = await documentInputOf(h.ctx, ws.id, template, {
      recipients: {
        Client: { email: 'ann@x.example', fullName: 'Ann' },
        Company: { email: 'ceo@acme.example', fullName: 'Dana' },
        Accountant: { email: 'books@acme.example', fullName: 'Books' },
      },
      values: { Price: 'x'.repeat(501) },
    });
    try {
      await createDocument(h.ctx, priced);
      assert.fail('accepted');
    } catch (error) {
      assert.ok(error instanceof InputError);
      assert.deepEqual(Object.keys(asTemplateUseError(error, template).fields), ['values["Price"]']);
    }
  });

  test('saved from a document: its PDF shared, its recipients as roles, its prefilled fields asked of the user; renamed, replaced whole', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const pdf = await blankPdf(1);
    const { id: documentId } = await createDocument(h.ctx, {
      workspaceId: ws.id,
      title: 'Lease',
      body: 'Sign please.',
      recipients: [
        recipient('ann@x.example', 'Ann'),
        recipient('val@x.example', 'Val', { role: 'viewer', signingOrder: 2 }),
      ],
      pricing: null,
      file: pdf,
      fields: [
        { recipient: 'ann@x.example', type: 'signature', page: 1, x: 10, y: 10, width: 120, height: 40 },
        {
          recipient: 'ann@x.example',
          type: 'text',
          page: 1,
          x: 10,
          y: 80,
          width: 120,
          height: 20,
          label: 'Rent',
          value: '900',
        },
      ],
    });
    const filesBefore = await countRows(h.ctx, 'files');
    const { id } = await templateFromDocument(h.ctx, ws.id, documentId, 'Lease template');
    assert.equal(await countRows(h.ctx, 'files'), filesBefore);
    const template = await getTemplate(h.ctx, ws.id, id);
    assert.deepEqual(
      template.roles.map((r) => [r.name, r.role, r.fields.map((f) => [f.type, f.label, f.senderFills])]),
      [
        [
          'Signer 1',
          'signer',
          [
            ['signature', null, false],
            ['text', 'Rent', true],
          ],
        ],
        ['Viewer 1', 'viewer', []],
      ],
    );
    assert.equal(template.title, 'Lease');
    await renameTemplate(h.ctx, ws.id, id, 'Flat lease');
    assert.equal((await getTemplate(h.ctx, ws.id, id)).name, 'Flat lease');
    await updateTemplate(h.ctx, id, {
      workspaceId: ws.id,
      name: 'Flat lease',
      title: 'Lease',
      roles: [templateRole('Tenant', { signingMethod: 'email-code' })],
      fields: [templateField('Tenant', 'signature', 100)],
      expiresInSeconds: 3600,
    });
    const replaced = await getTemplate(h.ctx, ws.id, id);
    assert.deepEqual(
      replaced.roles.map((r) => [r.name, r.signingMethod, r.fields.length]),
      [['Tenant', 'email-code', 1]],
    );
    assert.equal(replaced.file.sha256, template.file.sha256, 'the PDF kept without a new one');
    const other = await createTestWorkspace(h.ctx);
    await assert.rejects(templateFromDocument(h.ctx, other.id, documentId, 'Stolen'), /not-found/);
    await assert.rejects(renameTemplate(h.ctx, other.id, id, 'Mine'), /not-found/);
  });

  test('listed newest first, a page at a time', async () => {
    const ws = await createTestWorkspace(h.ctx);
    for (const name of ['A', 'B', 'C']) {
      await newTemplate(ws.id, { name });
      h.clock.advance(1000);
    }
    const first = await listTemplates(h.ctx, { workspaceId: ws.id, limit: 2, cursor: null });
    assert.deepEqual(
      first.data.map((t) => t.name),
      ['C', 'B'],
    );
    assert.ok(first.nextCursor);
    const second = await listTemplates(h.ctx, { workspaceId: ws.id, limit: 2, cursor: first.nextCursor });
    assert.deepEqual(
      second.data.map((t) => t.name),
      ['A'],
    );
    assert.equal(second.nextCursor, null);
  });
});
