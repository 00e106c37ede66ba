// Making and changing a template in the web application (src/web/template-edit.pages.ts, the
// template side of src/web/fields.pages.ts; issue 38) over real HTTP, as a member's browser
// uses them, on both databases: a template from an upload (refusals beside their inputs, a
// good PDF kept for the next submit), its fields placed, moved, marked as asked and deleted
// in the field editor (a field keeps its id), its roles renamed (keeping their fields),
// removed (losing theirs) and refused, its documents' defaults changed, and another
// workspace's template: the same 404 on every page and post.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTemplate, getTemplate } from '../../src/templates/templates.service.ts';
import { templateRole } from '../support/factories.ts';
import { countRows, describeEachDatabase, pagesPdf, useHarness } from '../support/harness.ts';
import {
  assertForgeriesRefused,
  assertPage,
  assertRedirect,
  assertSameNotFound,
  errorBeside,
  probeIds,
  type WebClient,
  webPeople,
} from '../support/web-client.ts';

const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** An editor form's fields: a field on `role` at (x, y), as the add form and each field's form post them. */
const fieldForm = (role: string, type: string, extra: Record<string, string> = {}) => ({
  recipient: role,
  type,
  page: '1',
  x: '72',
  y: '100',
  width: '160',
  height: '36',
  required: 'yes',
  label: '',
  maxLength: '',
  senderFills: 'no',
  ...extra,
});

/** The roles table posted: each row [name, kind, order, was]; `was` empty for a new row. */
function rolesForm(rows: Array<[string, string, string, string]>, more: Record<string, string> = {}) {
  const form: Record<string, string> = { roleRows: String(rows.length) };
  rows.forEach(([name, role, order, was], i) => {
    Object.assign(form, {
      [`t${i}_name`]: name,
      [`t${i}_role`]: role,
      [`t${i}_method`]: 'standard',
      [`t${i}_order`]: order,
      [`t${i}_was`]: was,
    });
  });
  return { ...form, ...more };
}

describeEachDatabase('templates made and changed on the web', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.39');

  async function twoRoleTemplate(workspaceId: string, name = 'Lease') {
    return createTemplate(h.ctx, {
      workspaceId,
      name,
      title: name,
      roles: [templateRole('Tenant'), templateRole('Landlord', { signingOrder: 2 })],
      fields: [
        { role: 'Tenant', type: 'signature', page: 1, x: 72, y: 100, width: 160, height: 36 },
        { role: 'Landlord', type: 'signature', page: 2, x: 320, y: 100, width: 160, height: 36 },
        { role: 'Landlord', type: 'date', page: 2, x: 320, y: 60, width: 100, height: 20 },
      ],
      expiresInSeconds: 30 * 86_400,
      file: await pagesPdf(2),
    });
  }

  async function openThenPost(
    client: WebClient,
    page: string,
    path: string,
    fields: Record<string, string | File>,
  ) {
    assertPage(await client.get(page), 200);
    return client.post(path, fields);
  }

  test('made from an upload: refusals beside their inputs, the PDF kept, then the field editor', async () => {
    const owner = await people.newOwner();
    const member = await people.newMember(owner);
    const client = await people.signedIn(member);
    const list = await client.get('/templates');
    assert.match(
      list.text,
      /<a class="button button-primary button-small" href="\/templates\/new">New template<\/a>/,
    );
    const form = await client.get('/templates/new');
    assertPage(form, 200);
    assert.match(form.text, /<form method="post" action="\/templates" enctype="multipart\/form-data"/);
    assert.match(form.text, /<input type="hidden" name="roleRows" value="3">/);

    // No PDF and two roles of one name: every problem at once, nothing stored.
    const twice = await client.post(
      '/templates',
      rolesForm([
        ['Client', 'signer', '1', ''],
        ['client', 'signer', '2', ''],
        ['', 'signer', '1', ''],
      ]),
    );
    assertPage(twice, 400);
    assert.equal(errorBeside(twice.text, 'name'), "The template's name must be 1 to 200 characters.");
    assert.equal(errorBeside(twice.text, 't1_name'), 'Role 2: “client” is the name of another role.');
    assert.equal(errorBeside(twice.text, 'file'), 'A template is a PDF with its fields: choose the PDF.');
    assert.match(
      twice.text,
      /id="t0_name" name="t0_name" type="text" maxlength="60" placeholder="Client" value="Client"/,
    );

    // A good PDF with a refused role: the PDF is kept (named, its id carried), counted once.
    const consulting = await pagesPdf(2);
    const kept = await client.post('/templates', {
      name: 'Consulting',
      file: new File([consulting], 'consulting.pdf', { type: 'application/pdf' }),
      ...rolesForm([
        ['Client', 'signer', '1', ''],
        ['Company', 'signer', '0', ''],
      ]),
    });
    assertPage(kept, 400);
    assert.equal(
      errorBeside(kept.text, 't1_order'),
      'Role 2: signing order must be a whole number from 1 to 100.',
    );
    const keptId = /<input type="hidden" name="keptFile" value="([A-Za-z0-9_-]{32})">/.exec(kept.text)?.[1];
    assert.ok(keptId, 'the PDF is kept');
    assert.match(kept.text, /<strong>consulting\.pdf<\/strong>, 2 pages, kept/);
    assert.equal(await countRows(h.ctx, 'templates', { workspace_id: owner.workspaceId }), 0);

    const made = await client.post('/templates', {
      name: 'Consulting',
      keptFile: keptId,
      body: 'Please sign.',
      expiresInDays: '14',
      remindEveryDays: '3',
      ...rolesForm([
        ['Client', 'signer', '1', ''],
        ['Company', 'signer', '2', ''],
        ['Accountant', 'viewer', '3', ''],
      ]),
    });
    assert.equal(made.status, 303, made.text.slice(0, 800));
    const id = new RegExp(`^/templates/(${uuid})/fields$`).exec(made.location ?? '')?.[1] as string;
    assert.ok(id, made.location ?? '');
    const template = await getTemplate(h.ctx, owner.workspaceId, id);
    assert.equal(template.name, 'Consulting');
    assert.equal(template.title, 'Consulting', 'a blank title is the name');
    assert.equal(template.text, 'Please sign.');
    assert.equal(template.expiresInSeconds, 14 * 86_400);
    assert.equal(template.remindEveryDays, 3);
    assert.equal(template.file.pages, 2);
    assert.deepEqual(
      template.roles.map((r) => [r.name, r.role, r.signingOrder]),
      [
        ['Client', 'signer', 1],
        ['Company', 'signer', 2],
        ['Accountant', 'viewer', 3],
      ],
    );
    const usage = await h.ctx.db
      .selectFrom('upload_usage')
      .select('bytes')
      .where('workspace_id', '=', owner.workspaceId)
      .execute();
    assert.equal(
      usage.reduce((n, row) => n + Number(row.bytes), 0),
      consulting.byteLength,
      'the kept PDF counted once',
    );

    // The editor: the template's pages, its signing roles (not the viewer) to choose from.
    const editor = await client.get(made.location ?? '');
    assertPage(editor, 200);
    assert.match(editor.text, new RegExp(`<img src="/templates/${id}/pages/1" alt="Page 1 of 2"`));
    assert.match(
      editor.text,
      /<label for="add-recipient">Role<\/label><select id="add-recipient" name="recipient"><option value="Client" selected>Client<\/option><option value="Company">Company<\/option><\/select>/,
    );
    assert.ok(!editor.text.includes('<option value="Accountant"'));
    const image = await client.get(`/templates/${id}/pages/1`);
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('content-type'), 'image/png');
    assert.equal((await client.get(`/templates/${id}/pages/3`)).status, 404);
  });

  test('fields placed, marked as asked, moved (keeping their id), refused and deleted in the editor', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await twoRoleTemplate(owner.workspaceId);
    const editorPath = `/templates/${id}/fields`;

    const added = await openThenPost(
      client,
      editorPath,
      editorPath,
      fieldForm('Tenant', 'text', { label: 'Rent', senderFills: 'yes', y: '300' }),
    );
    assertRedirect(added, `${editorPath}?recipient=Tenant&type=text&page=1`);
    let template = await getTemplate(h.ctx, owner.workspaceId, id);
    const rent = template.roles[0]?.fields.find((f) => f.label === 'Rent');
    assert.ok(rent?.senderFills, 'asked of whoever uses it');
    assert.equal(rent?.y, 300);

    // Moved through its own form: the same id, the new place; the other fields untouched.
    const otherIds = template.roles
      .flatMap((r) => r.fields.map((f) => f.id))
      .filter((fid) => fid !== rent?.id);
    assertRedirect(
      await openThenPost(
        client,
        editorPath,
        `${editorPath}/${rent?.id}`,
        fieldForm('Tenant', 'text', { label: 'Rent', senderFills: 'yes', x: '200', y: '320' }),
      ),
      `${editorPath}#field-${rent?.id}`,
    );
    template = await getTemplate(h.ctx, owner.workspaceId, id);
    const moved = template.roles[0]?.fields.find((f) => f.id === rent?.id);
    assert.deepEqual([moved?.x, moved?.y, moved?.senderFills], [200, 320, true]);
    assert.deepEqual(
      template.roles.flatMap((r) => r.fields.map((f) => f.id)).filter((fid) => fid !== rent?.id),
      otherIds,
    );

    // The script's way: JSON back, the new list and the pages' shapes.
    assertPage(await client.get(editorPath), 200);
    const json = await client.post(
      editorPath,
      fieldForm('Landlord', 'initials', { page: '2', y: '200', width: '60' }),
      {
        headers: { accept: 'application/json' },
      },
    );
    assert.equal(json.status, 200, json.text.slice(0, 400));
    const parts = JSON.parse(json.text) as { count: number; list: string; layers: Record<string, string> };
    assert.equal(parts.count, 5);
    assert.match(parts.layers['2'] ?? '', /Initials/);

    // Refused: a signature cannot be asked of the template's user; another role's name; off the page.
    const asked = await openThenPost(
      client,
      editorPath,
      editorPath,
      fieldForm('Tenant', 'signature', { senderFills: 'yes', label: 'Sig' }),
    );
    assertPage(asked, 400);
    assert.match(
      asked.text,
      /Field 6: a signature field is filled by its signer or by Signet; only text and checkbox fields are filled in by whoever uses the template\./,
    );
    assert.match(asked.text, /id="add-type" name="type"><option value="signature" selected>/);
    const stranger = await openThenPost(client, editorPath, editorPath, fieldForm('Buyer', 'signature'));
    assertPage(stranger, 400);
    assert.match(stranger.text, /Field 6: .*a role of this template/);
    const outside = await openThenPost(
      client,
      editorPath,
      `${editorPath}/${rent?.id}`,
      fieldForm('Tenant', 'text', { x: '580', label: 'Rent', senderFills: 'yes' }),
    );
    assertPage(outside, 400);
    assert.equal(
      (await getTemplate(h.ctx, owner.workspaceId, id)).roles[0]?.fields.find((f) => f.id === rent?.id)?.x,
      200,
    );

    // Deleted; a field id that is not on the template changes nothing.
    assertRedirect(
      await openThenPost(client, editorPath, `${editorPath}/${rent?.id}/delete`, {}),
      `${editorPath}#field-${rent?.id}`,
    );
    template = await getTemplate(h.ctx, owner.workspaceId, id);
    assert.equal(template.roles.flatMap((r) => r.fields).length, 4);
    const gone = await openThenPost(
      client,
      editorPath,
      `${editorPath}/${rent?.id}`,
      fieldForm('Tenant', 'text'),
    );
    assertPage(gone, 400);
    assert.match(gone.text, /That field is no longer on the template\./);
    const other = await people.signedIn(owner);
    assertPage(await other.get('/templates'), 200);
    await assertForgeriesRefused(client, editorPath, fieldForm('Tenant', 'text'), other.csrfToken ?? '');
    assert.equal((await getTemplate(h.ctx, owner.workspaceId, id)).roles.flatMap((r) => r.fields).length, 4);
  });

  test('roles renamed keep their fields, a removed role loses them, and refusals change nothing', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await twoRoleTemplate(owner.workspaceId);
    const page = `/templates/${id}`;
    const shown = await client.get(page);
    assertPage(shown, 200);
    assert.match(
      shown.text,
      new RegExp(`<a class="button button-secondary" href="/templates/${id}/fields">Edit fields</a>`),
    );
    assert.match(
      shown.text,
      /<input type="hidden" name="t1_was" value="1"><label class="visually-hidden" for="t1_name">Role 2 name<\/label><input id="t1_name" name="t1_name" type="text" maxlength="60" placeholder="" value="Landlord"/,
    );
    const before = await getTemplate(h.ctx, owner.workspaceId, id);

    // A signer with fields made a viewer: refused, the table as typed, its sentence shown.
    const viewer = await client.post(
      `${page}/roles`,
      rolesForm([
        ['Tenant', 'signer', '1', '0'],
        ['Landlord', 'viewer', '2', '1'],
      ]),
    );
    assertPage(viewer, 400);
    assert.match(viewer.text, /<details class="card" id="change-roles" open>/);
    assert.match(viewer.text, /Field 2: .*signer/);
    assert.match(viewer.text, /<option value="viewer" selected>Viewer<\/option>/);
    assert.deepEqual(await getTemplate(h.ctx, owner.workspaceId, id), before);

    // Renamed and swapped in order: each keeps its own fields.
    const renamed = await openThenPost(
      client,
      page,
      `${page}/roles`,
      rolesForm([
        ['Landlord', 'signer', '1', '1'],
        ['Resident', 'signer', '2', '0'],
        ['Agent', 'viewer', '3', ''],
      ]),
    );
    assertRedirect(renamed, `${page}?done=roles`);
    let template = await getTemplate(h.ctx, owner.workspaceId, id);
    assert.deepEqual(
      template.roles.map((r) => [r.name, r.role, r.signingOrder, r.fields.map((f) => f.type)]),
      [
        ['Landlord', 'signer', 1, ['signature', 'date']],
        ['Resident', 'signer', 2, ['signature']],
        ['Agent', 'viewer', 3, []],
      ],
    );
    assert.deepEqual(
      template.roles.flatMap((r) => r.fields.map((f) => f.id)).sort(),
      before.roles.flatMap((r) => r.fields.map((f) => f.id)).sort(),
      'the fields keep their ids',
    );

    // A removed role's fields go with it; a blank kept name is refused beside it.
    const blank = await openThenPost(
      client,
      page,
      `${page}/roles`,
      rolesForm([
        ['', 'signer', '1', '0'],
        ['Resident', 'signer', '2', '1'],
      ]),
    );
    assertPage(blank, 400);
    assert.equal(
      errorBeside(blank.text, 't0_name'),
      'Role 1: its name must be 1 to 60 characters (e.g. Client).',
    );
    const removed = await openThenPost(
      client,
      page,
      `${page}/roles`,
      rolesForm(
        [
          ['Landlord', 'signer', '1', '0'],
          ['Resident', 'signer', '2', '1'],
          ['Agent', 'viewer', '3', '2'],
        ],
        { t1_remove: 'yes' },
      ),
    );
    assertRedirect(removed, `${page}?done=roles`);
    template = await getTemplate(h.ctx, owner.workspaceId, id);
    assert.deepEqual(
      template.roles.map((r) => [r.name, r.fields.length]),
      [
        ['Landlord', 2],
        ['Agent', 0],
      ],
    );

    // "More role rows": the table again with three more, nothing saved.
    const more = await openThenPost(
      client,
      page,
      `${page}/roles`,
      rolesForm([['Landlord', 'signer', '1', '0']], { more: 'roles' }),
    );
    assertPage(more, 200);
    assert.match(more.text, /<input type="hidden" name="roleRows" value="4">/);
    assert.equal((await getTemplate(h.ctx, owner.workspaceId, id)).roles.length, 2);
  });

  test('the documents’ defaults changed from the template’s page; a blank title refused beside it', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await twoRoleTemplate(owner.workspaceId);
    const page = `/templates/${id}`;
    const blank = await openThenPost(client, page, `${page}/defaults`, {
      title: ' ',
      body: '',
      expiresInDays: '30',
      remindEveryDays: '',
    });
    assertPage(blank, 400);
    assert.equal(errorBeside(blank.text, 'title'), 'Title must be 1 to 200 characters.');
    assert.match(blank.text, /<details class="card" id="change-defaults" open>/);
    const saved = await openThenPost(client, page, `${page}/defaults`, {
      title: 'Lease of the flat',
      body: 'Welcome home.',
      expiresInDays: '60',
      remindEveryDays: '2',
    });
    assertRedirect(saved, `${page}?done=defaults`);
    const template = await getTemplate(h.ctx, owner.workspaceId, id);
    assert.deepEqual(
      [template.title, template.text, template.expiresInSeconds, template.remindEveryDays, template.name],
      ['Lease of the flat', 'Welcome home.', 60 * 86_400, 2, 'Lease'],
    );
    assert.equal(template.roles.flatMap((r) => r.fields).length, 3, 'fields untouched');
  });

  test('another workspace’s template: the same 404 on the editor, its pages and every post', async () => {
    const owner = await people.newOwner();
    const stranger = await people.newOwner();
    const client = await people.signedIn(stranger);
    const { id } = await twoRoleTemplate(owner.workspaceId, 'Private lease');
    const fieldId = (await getTemplate(h.ctx, owner.workspaceId, id)).roles[0]?.fields[0]?.id as string;
    const routes = [
      { method: 'GET' as const, path: (probe: string) => `/templates/${probe}/fields` },
      { method: 'GET' as const, path: (probe: string) => `/templates/${probe}/pages/1` },
      {
        method: 'POST' as const,
        path: (probe: string) => `/templates/${probe}/fields`,
        fields: fieldForm('Tenant', 'text'),
      },
      {
        method: 'POST' as const,
        path: (probe: string) => `/templates/${probe}/fields/${fieldId}`,
        fields: fieldForm('Tenant', 'text'),
      },
      { method: 'POST' as const, path: (probe: string) => `/templates/${probe}/fields/${fieldId}/delete` },
      {
        method: 'POST' as const,
        path: (probe: string) => `/templates/${probe}/roles`,
        fields: rolesForm([['Mine', 'signer', '1', '0']]),
      },
      {
        method: 'POST' as const,
        path: (probe: string) => `/templates/${probe}/defaults`,
        fields: { title: 'Mine', expiresInDays: '30' },
      },
    ];
    for (const route of routes) {
      const text = await assertSameNotFound(client, '/templates', route, probeIds(id));
      assert.ok(!text.includes('Private lease'));
    }
    const template = await getTemplate(h.ctx, owner.workspaceId, id);
    assert.deepEqual(
      [template.title, template.roles.map((r) => r.name), template.roles.flatMap((r) => r.fields).length],
      ['Private lease', ['Tenant', 'Landlord'], 3],
    );
  });
});
