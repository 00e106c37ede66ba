// The field editor (src/web/fields.pages.ts) over real HTTP, as a sender's browser uses it
// without JavaScript (the keyboard path): add a field with the form, move, resize,
// reassign and delete it, each a form post that redirects back; a field that does not fit
// comes back with its sentence and what was typed; once sent, nothing changes; another
// workspace's member gets the same 404 for every route; CSRF. On both databases.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { PDFDocument } from '@cantoo/pdf-lib';
import { listFields } from '../src/fields/fields.service.ts';
import { sendDocument } from '../src/sending/send.ts';
import { createDraftDocument, describeEachDatabase, recipient, useHarness } from './harness.ts';
import {
  assertForgeriesRefused,
  assertPage,
  assertRedirect,
  assertSameNotFound,
  probeIds,
  type WebClient,
  webPeople,
} from './web-client.ts';

async function twoPagePdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setSubject(randomUUID());
  pdf.addPage([595, 842]).drawText('Page one', { x: 72, y: 760, size: 18 });
  pdf.addPage([842, 595]).drawText('Page two, landscape', { x: 72, y: 500, size: 18 });
  return pdf.save();
}

const ann = 'ann@client.example';
const bob = 'bob@client.example';

describeEachDatabase('the field editor', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.24');

  async function draftOf(workspaceId: string) {
    return createDraftDocument(h.ctx, workspaceId, {
      recipients: [
        recipient(ann, 'Ann Lee'),
        recipient(bob, 'Bob Ray'),
        recipient('val@client.example', 'Val Kim', { role: 'viewer' }),
      ],
      file: await twoPagePdf(),
    });
  }

  const fieldForm = (more: Record<string, string> = {}) => ({
    recipient: ann,
    type: 'signature',
    page: '1',
    x: '72',
    y: '90',
    width: '180',
    height: '40',
    required: 'yes',
    label: '',
    maxLength: '',
    ...more,
  });

  async function editor(client: WebClient, id: string) {
    const page = await client.get(`/documents/${id}/fields`);
    assertPage(page, 200);
    return page.text;
  }

  test('a field is added, moved, resized, reassigned and deleted with the forms alone', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await draftOf(owner.workspaceId);
    const detail = await client.get(`/documents/${id}`);
    assert.match(
      detail.text,
      new RegExp(`<a class="button button-secondary" href="/documents/${id}/fields">Place fields</a>`),
    );

    let page = await editor(client, id);
    assert.match(page, /page 1 is 595 × 842 points/);
    assert.match(page, /<option value="bob@client\.example">Bob Ray &lt;bob@client\.example&gt;<\/option>/);
    assert.ok(!page.includes('val@client.example'), 'a viewer is no choice');
    assert.match(page, /viewBox="0 0 842 595"/, 'the landscape page in its own size');

    assertRedirect(await client.post(`/documents/${id}/fields`, fieldForm()), `/documents/${id}/fields`);
    let [field] = await listFields(h.ctx.db, owner.workspaceId, id);
    assert.ok(field);
    assert.deepEqual(
      [field.type, field.page, field.x, field.y, field.width, field.height],
      ['signature', 1, 72, 90, 180, 40],
    );

    page = await editor(client, id);
    assert.match(page, new RegExp(`<form method="post" action="/documents/${id}/fields/${field.id}"`));
    const moved = fieldForm({
      recipient: bob,
      type: 'text',
      page: '2',
      x: '400.5',
      y: '100',
      width: '220',
      height: '30',
      label: 'Company',
      maxLength: '40',
      required: 'no',
    });
    assertRedirect(
      await client.post(`/documents/${id}/fields/${field.id}`, moved),
      `/documents/${id}/fields#field-${field.id}`,
    );
    [field] = await listFields(h.ctx.db, owner.workspaceId, id);
    assert.ok(field);
    assert.deepEqual(
      [
        field.type,
        field.page,
        field.x,
        field.y,
        field.width,
        field.height,
        field.label,
        field.max_length,
        field.required,
      ],
      ['text', 2, 400.5, 100, 220, 30, 'Company', 40, false],
      'moved to page 2, resized, retyped and reassigned, the same field',
    );

    // Off the landscape page: refused beside its form, what was typed kept, nothing changed.
    const refused = await client.post(`/documents/${id}/fields/${field.id}`, { ...moved, x: '700' });
    assertPage(refused, 400);
    assert.match(refused.text, /Field 1: it lies off page 2, which is 842 × 595 points/);
    const [same] = await listFields(h.ctx.db, owner.workspaceId, id);
    assert.equal(same?.x, 400.5);

    const bad = await client.post(`/documents/${id}/fields`, fieldForm({ page: '1', x: 'left' }));
    assertPage(bad, 400);
    assert.match(bad.text, /x, y, width and height must be numbers/);
    assert.match(
      bad.text,
      /id="add-x" name="x" type="number"[^>]*value="left"/,
      'the add form keeps what was typed',
    );

    assertRedirect(
      await client.post(`/documents/${id}/fields/${field.id}/delete`, {}),
      `/documents/${id}/fields#field-${field.id}`,
    );
    assert.deepEqual(await listFields(h.ctx.db, owner.workspaceId, id), []);
  });

  test('once sent, the editor only shows the fields and every change is refused', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await draftOf(owner.workspaceId);
    await editor(client, id);
    assertRedirect(await client.post(`/documents/${id}/fields`, fieldForm()), `/documents/${id}/fields`);
    const [field] = await listFields(h.ctx.db, owner.workspaceId, id);
    assert.ok(field);
    await sendDocument(h.ctx, owner.workspaceId, id);
    const page = await editor(client, id);
    assert.match(page, /This document has been sent: its fields can no longer change\./);
    assert.ok(!page.includes('Add field'));
    for (const [path, fields] of [
      [`/documents/${id}/fields`, fieldForm()],
      [`/documents/${id}/fields/${field.id}`, fieldForm({ x: '10' })],
      [`/documents/${id}/fields/${field.id}/delete`, {}],
    ] as const) {
      await editor(client, id);
      const res = await client.post(path, fields);
      assertPage(res, 409);
      assert.match(res.text, /This document has been sent, so it can no longer be edited\./);
    }
    assert.deepEqual(
      (await listFields(h.ctx.db, owner.workspaceId, id)).map((f) => f.x),
      [72],
    );
  });

  test('another workspace gets the same 404 everywhere; forms need their token', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await draftOf(owner.workspaceId);
    await editor(client, id);
    assertRedirect(await client.post(`/documents/${id}/fields`, fieldForm()), `/documents/${id}/fields`);
    const [field] = await listFields(h.ctx.db, owner.workspaceId, id);
    assert.ok(field);

    const stranger = await people.signedIn(await people.newOwner());
    for (const route of [
      { method: 'GET' as const, path: (doc: string) => `/documents/${doc}/fields` },
      { method: 'POST' as const, path: (doc: string) => `/documents/${doc}/fields`, fields: fieldForm() },
      {
        method: 'POST' as const,
        path: (doc: string) => `/documents/${doc}/fields/${field.id}`,
        fields: fieldForm(),
      },
      { method: 'POST' as const, path: (doc: string) => `/documents/${doc}/fields/${field.id}/delete` },
    ]) {
      await assertSameNotFound(stranger, '/documents', route, probeIds(id));
    }
    // The owner's own document with a field id that is not its: the same 404 as well.
    await editor(client, id);
    assertPage(await client.post(`/documents/${id}/fields/${randomUUID()}`, fieldForm()), 404);
    await editor(client, id);
    assertPage(await client.post(`/documents/${id}/fields/not-a-field/delete`, {}), 404);
    assert.equal((await listFields(h.ctx.db, owner.workspaceId, id)).length, 1, 'nothing changed');

    assertPage(await stranger.get('/documents'), 200);
    await editor(client, id);
    await assertForgeriesRefused(client, `/documents/${id}/fields`, fieldForm(), stranger.csrfToken ?? 'x');
  });
});
