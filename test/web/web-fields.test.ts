// The field editor (src/web/fields.pages.ts) over real HTTP, as a sender's browser uses it
// without JavaScript (the keyboard path): add a field with the form, move, resize,
// reassign and delete it, each a form post that redirects back; a field that does not fit
// comes back with its sentence and what was typed; once sent, nothing changes; another
// workspace's member gets the same 404 for every route; CSRF. On both databases.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { PDFDocument } from '@cantoo/pdf-lib';
import { listFields } from '../../src/fields/fields.service.ts';
import { sendDocument } from '../../src/sending/send.ts';
import { createDraftDocument, describeEachDatabase, recipient, useHarness } from '../support/harness.ts';
import {
  assertForgeriesRefused,
  assertPage,
  assertRedirect,
  assertSameNotFound,
  fieldEditorForm,
  probeIds,
  type WebClient,
  webPeople,
} from '../support/web-client.ts';

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

  const fieldForm = (more: Record<string, string> = {}) => fieldEditorForm(ann, more);

  /** Where an added field's post sends the browser: the editor, its choices kept. */
  const keptChoices = (id: string, recipient = ann, type = 'signature', page = '1') =>
    `/documents/${id}/fields?${new URLSearchParams({ recipient, type, page })}`;

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

    assertRedirect(await client.post(`/documents/${id}/fields`, fieldForm()), keptChoices(id));
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

  test('a value filled in by the sender: a text’s text or a checkbox’s yes or no, shown again, refused on other types', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await draftOf(owner.workspaceId);
    await editor(client, id);
    const form = { type: 'text', label: 'Monthly fee', height: '20', value: '1,200 EUR' };
    assertRedirect(
      await client.post(`/documents/${id}/fields`, fieldForm(form)),
      keptChoices(id, ann, 'text'),
    );
    const box = { type: 'checkbox', label: 'Insured', width: '12', height: '12', y: '300', value: 'yes' };
    assertRedirect(
      await client.post(`/documents/${id}/fields`, fieldForm(box)),
      keptChoices(id, ann, 'checkbox'),
    );
    const rows = await listFields(h.ctx.db, owner.workspaceId, id);
    assert.deepEqual(
      rows.map((f) => [f.type, f.label, f.prefilled, f.value]),
      [
        ['text', 'Monthly fee', true, '1,200 EUR'],
        ['checkbox', 'Insured', true, 'yes'],
      ],
    );
    const page = await editor(client, id);
    assert.match(
      page,
      new RegExp(`id="f-${rows[0]?.id}-value" name="value" type="text"[^>]*value="1,200 EUR"`),
    );
    assert.match(page, new RegExp(`id="f-${rows[1]?.id}-value" name="value" type="text"[^>]*value="yes"`));
    // Cleared: the signer fills it again.
    assertRedirect(
      await client.post(`/documents/${id}/fields/${rows[0]?.id}`, fieldForm({ ...form, value: '' })),
      `/documents/${id}/fields#field-${rows[0]?.id}`,
    );
    assert.deepEqual(
      (await listFields(h.ctx.db, owner.workspaceId, id)).map((f) => [f.prefilled, f.value]),
      [
        [false, null],
        [true, 'yes'],
      ],
    );
    const refused = await client.post(`/documents/${id}/fields`, fieldForm({ value: 'Ann Lee' }));
    assertPage(refused, 400);
    assert.match(
      refused.text,
      /a signature field is filled by its signer or by Signet; only text and checkbox fields take a value from the sender/,
    );
  });

  test('the signer, type and page chosen stay chosen for the next field, without JavaScript', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await draftOf(owner.workspaceId);
    let page = await editor(client, id);
    assert.match(page, /<option value="ann@client\.example" selected>/, 'the first signer at first');
    for (const x of ['72', '300', '72']) {
      const res = await client.post(
        `/documents/${id}/fields`,
        fieldForm({ recipient: bob, type: 'date', page: '2', x, y: x === '300' ? '90' : '200' }),
      );
      assertRedirect(res, keptChoices(id, bob, 'date', '2'));
      page = (await client.get(res.location ?? '')).text;
      assert.match(
        page,
        /<select id="add-recipient" name="recipient"><option value="ann@client\.example">[\s\S]*?<option value="bob@client\.example" selected>/,
      );
      assert.match(page, /<select id="add-type" name="type">[\s\S]*?<option value="date" selected>/);
      assert.match(
        page,
        /<select id="add-page" name="page" data-coordinate="page"><option value="1">1<\/option><option value="2" selected>/,
      );
    }
    const fields = await listFields(h.ctx.db, owner.workspaceId, id);
    assert.equal(fields.length, 3);
    // A choice the form does not offer is no choice (the browser shows the first option).
    page = (await client.get(`/documents/${id}/fields?recipient=val%40client.example&type=nonsense`)).text;
    assert.match(
      page,
      /<select id="add-recipient" name="recipient">(<option value="[^"]+">[^<]*<\/option>)+<\/select>/,
    );
    assert.ok(!page.includes('value="val@client.example"') && !page.includes('nonsense'));
  });

  test('with JSON asked for, adding, moving and deleting answer the changed parts, not a page', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await draftOf(owner.workspaceId);
    const opened = await editor(client, id);
    const json = { headers: { accept: 'application/json' } };
    const added = await client.post(
      `/documents/${id}/fields`,
      fieldForm({ recipient: bob, page: '2' }),
      json,
    );
    assert.equal(added.status, 200, added.text);
    assert.match(added.headers.get('content-type') ?? '', /^application\/json/);
    const parts = JSON.parse(added.text) as { count: number; list: string; layers: Record<string, string> };
    const [field] = await listFields(h.ctx.db, owner.workspaceId, id);
    assert.ok(field);
    assert.equal(parts.count, 1);
    assert.deepEqual(Object.keys(parts.layers), ['1', '2']);
    assert.equal(parts.layers['1'], '', 'nothing on page 1');
    assert.match(
      parts.layers['2'] ?? '',
      new RegExp(
        `<g class="field-shape tone-1" data-field="${field.id}"><rect class="field-box" x="72" y="465"`,
      ),
    );
    assert.match(parts.list, /^<section class="card" aria-labelledby="list-title" data-field-list>/);
    assert.match(parts.list, new RegExp(`<form method="post" action="/documents/${id}/fields/${field.id}"`));
    // The new forms carry the token the post was accepted with, which keeps working.
    const token = /name="_csrf" value="([^"]+)"/.exec(parts.list)?.[1];
    assert.equal(token, /name="_csrf" value="([^"]+)"/.exec(opened)?.[1]);

    const moved = await client.post(
      `/documents/${id}/fields/${field.id}`,
      fieldForm({ recipient: bob, page: '1', x: '100' }),
      json,
    );
    assert.equal(moved.status, 200, moved.text);
    const after = JSON.parse(moved.text) as typeof parts;
    assert.match(
      after.layers['1'] ?? '',
      new RegExp(`data-field="${field.id}"><rect class="field-box" x="100"`),
    );
    assert.equal(after.layers['2'], '');
    assert.equal((await listFields(h.ctx.db, owner.workspaceId, id))[0]?.x, 100);

    // A refusal: its sentence and the form it belongs to, nothing changed.
    const refused = await client.post(
      `/documents/${id}/fields/${field.id}`,
      fieldForm({ recipient: bob, x: '590' }),
      json,
    );
    assert.equal(refused.status, 400);
    const refusal = JSON.parse(refused.text) as { error: string; form: string };
    assert.equal(refusal.form, field.id);
    assert.match(refusal.error, /it lies off page 1/);
    const badAdd = await client.post(`/documents/${id}/fields`, fieldForm({ x: 'left' }), json);
    assert.equal(badAdd.status, 400);
    assert.deepEqual(JSON.parse(badAdd.text).form, 'add');
    assert.equal((await listFields(h.ctx.db, owner.workspaceId, id))[0]?.x, 100);

    const deleted = await client.post(`/documents/${id}/fields/${field.id}/delete`, {}, json);
    assert.equal(deleted.status, 200, deleted.text);
    const none = JSON.parse(deleted.text) as typeof parts;
    assert.equal(none.count, 0);
    assert.match(none.list, /No fields yet\./);
    assert.deepEqual(await listFields(h.ctx.db, owner.workspaceId, id), []);

    // Sent: the refusal in JSON too; without a token: the ordinary refusal page, not JSON.
    await client.post(`/documents/${id}/fields`, fieldForm(), json);
    await sendDocument(h.ctx, owner.workspaceId, id);
    const late = await client.post(`/documents/${id}/fields`, fieldForm(), json);
    assert.equal(late.status, 409);
    assert.match(JSON.parse(late.text).error, /This document has been sent/);
    const forged = await client.post(`/documents/${id}/fields`, fieldForm(), { ...json, csrf: false });
    assert.equal(forged.status, 403);
    assert.match(forged.headers.get('content-type') ?? '', /^text\/html/);
  });

  test('the editor loads its pages lazily, each in its place before its image arrives', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await draftOf(owner.workspaceId);
    const page = await editor(client, id);
    assert.match(
      page,
      new RegExp(
        `<img src="/documents/${id}/pages/1" alt="Page 1 of 2" draggable="false" width="1200" height="1698" loading="eager">`,
      ),
    );
    assert.match(
      page,
      new RegExp(
        `<img src="/documents/${id}/pages/2" alt="Page 2 of 2" draggable="false" width="1200" height="848" loading="eager">`,
      ),
    );
  });

  test('once sent, the editor only shows the fields and every change is refused', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await draftOf(owner.workspaceId);
    await editor(client, id);
    assertRedirect(await client.post(`/documents/${id}/fields`, fieldForm()), keptChoices(id));
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
    assertRedirect(await client.post(`/documents/${id}/fields`, fieldForm()), keptChoices(id));
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
