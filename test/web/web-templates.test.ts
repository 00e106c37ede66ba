// The templates' pages (src/web/templates.pages.ts, issue 38) over real HTTP, as a member's
// browser uses them, on both databases: "Save as template" on a document's page, the list,
// a template's page, renaming, "Use template" (a draft whose PDF is the template's stored
// file, its asked values prefilled, then its send confirmation), refusals kept beside their
// inputs and named by role, deleting (documents made from it stay), and another
// workspace's template or document: the same 404 as an id that does not exist.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getDocument } from '../../src/documents/documents.service.ts';
import { pageSizesOf } from '../../src/fields/fields.service.ts';
import { createTemplate, getTemplate } from '../../src/templates/templates.service.ts';
import { createServicesTemplate, templateRole } from '../support/factories.ts';
import {
  countRows,
  createDraftDocument,
  describeEachDatabase,
  pagesPdf,
  recipient,
  useHarness,
} from '../support/harness.ts';
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

/** The value attribute of input `id` as the page renders it. */
function inputValue(text: string, id: string): string | undefined {
  return new RegExp(`<input id="${id}" name="${id}" type="[a-z]+"[^>]* value="([^"]*)"`).exec(text)?.[1];
}

/** The use form filled in: Client, Company and Accountant, the price and the insurance ticked. */
const filledUseForm = (more: Record<string, string> = {}) => ({
  role0_name: 'Ann Client',
  role0_email: 'ann@client.example',
  role1_name: 'Dana Ceo',
  role1_email: 'dana@acme.example',
  role2_name: 'Books Ltd',
  role2_email: 'books@acme.example',
  value0: '1,200 EUR',
  value1: 'true',
  title: 'Services agreement with Ann',
  body: 'Please sign, Ann.',
  ...more,
});

describeEachDatabase('templates on the web', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.38');

  /** The services agreement (factories.ts): roles Client, Company and Accountant; Price and Insured asked of its user. */
  const servicesTemplate = (workspaceId: string, name = 'Services agreement') =>
    createServicesTemplate(h.ctx, workspaceId, { name });

  /** Opens the use form (for its token) and posts it. */
  async function postUse(client: WebClient, id: string, fields: Record<string, string>) {
    assertPage(await client.get(`/templates/${id}/use`), 200);
    return client.post(`/templates/${id}/use`, fields);
  }

  test('a member saves a document as a template from its page; the list and the template’s page show it', async () => {
    const owner = await people.newOwner();
    const member = await people.newMember(owner);
    const client = await people.signedIn(member);
    const { id: documentId } = await createDraftDocument(h.ctx, owner.workspaceId, {
      title: 'Flat lease',
      recipients: [
        recipient('ann@x.example', 'Ann'),
        recipient('val@x.example', 'Val', { role: 'viewer', signingOrder: 2 }),
      ],
      file: await pagesPdf(1),
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
    const page = await client.get(`/documents/${documentId}`);
    assertPage(page, 200);
    assert.match(
      page.text,
      new RegExp(`<form method="post" action="/documents/${documentId}/save-as-template"`),
    );
    assert.match(page.text, /id="template-name" name="name" type="text" maxlength="200" value="Flat lease"/);

    const blank = await client.post(`/documents/${documentId}/save-as-template`, { name: '  ' });
    assertPage(blank, 400);
    assert.equal(
      errorBeside(blank.text, 'template-name'),
      "The template's name must be 1 to 200 characters.",
    );
    assert.equal(await countRows(h.ctx, 'templates', { workspace_id: owner.workspaceId }), 0);

    const filesBefore = await countRows(h.ctx, 'files');
    const saved = await client.post(`/documents/${documentId}/save-as-template`, { name: 'Lease template' });
    assert.equal(saved.status, 303, saved.text.slice(0, 400));
    assert.match(saved.location ?? '', new RegExp(`^/templates/${uuid}\\?done=saved$`));
    assert.equal(await countRows(h.ctx, 'files'), filesBefore, 'the document’s PDF shared, not copied');
    const templatePath = (saved.location ?? '').split('?')[0] as string;

    const shown = await client.get(saved.location ?? '');
    assertPage(shown, 200);
    assert.match(shown.text, /<h1>Lease template<\/h1>/);
    assert.match(shown.text, /Template saved\./);
    assert.match(
      shown.text,
      /<span class="recipient-name">Signer 1<\/span><div class="small muted">signer, order 1, standard signing<\/div>/,
    );
    assert.match(
      shown.text,
      /<span class="recipient-name">Viewer 1<\/span><div class="small muted">viewer \(receives a copy\), order 2, standard signing<\/div>/,
    );
    assert.match(shown.text, /<li>Signature on page 1<\/li>/);
    assert.match(
      shown.text,
      /<li>Text “Rent” on page 1 <span class="badge badge-pending">you fill it in<\/span><\/li>/,
    );
    assert.match(shown.text, /<dt>PDF<\/dt><dd>1 page<\/dd>/);
    assert.match(shown.text, /<dt>Documents made from it<\/dt><dd>0<\/dd>/);
    assert.match(shown.text, new RegExp(`href="${templatePath}/use">Use template</a>`));
    assert.match(shown.text, /<a href="\/templates" aria-current="page">Templates<\/a>/);

    const list = await client.get('/templates');
    assertPage(list, 200);
    assert.match(
      list.text,
      new RegExp(
        `<td class="item"><a href="${templatePath}">Lease template</a><div class="small muted">Documents’ title: Flat lease</div><div class="small muted">Last changed [^<]+</div></td>\\n<td class="num">0</td>`,
      ),
    );
  });

  test('listed newest first, 50 a page, with a next page; an altered page link starts again from the newest', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const first = await servicesTemplate(owner.workspaceId, 'Template 1');
    const file = (await getTemplate(h.ctx, owner.workspaceId, first.id)).file;
    const kept = {
      sha256: file.sha256,
      pages: file.pages,
      pageSizes: await pageSizesOf(h.ctx.db, file.sha256),
    };
    for (let n = 2; n <= 51; n++) {
      h.clock.advance(1000);
      await createTemplate(h.ctx, {
        workspaceId: owner.workspaceId,
        name: `Template ${n}`,
        title: 'Agreement',
        roles: [templateRole('Client')],
        expiresInSeconds: 86_400,
        kept,
      });
    }
    const names = (text: string) =>
      [...text.matchAll(/<a href="\/templates\/[^"]+">(Template \d+)<\/a>/g)].map((m) => m[1]);
    const page1 = await client.get('/templates');
    assertPage(page1, 200);
    assert.deepEqual(
      names(page1.text),
      Array.from({ length: 50 }, (_, i) => `Template ${51 - i}`),
    );
    const next = /<a href="([^"]+)">Next page<\/a>/.exec(page1.text)?.[1]?.replaceAll('&amp;', '&') ?? '';
    assert.match(next, /^\/templates\?cursor=./);
    const page2 = await client.get(next);
    assertPage(page2, 200);
    assert.deepEqual(names(page2.text), ['Template 1']);
    assert.ok(!page2.text.includes('Next page'));
    assert.match(page2.text, /<a href="\/templates">Newest<\/a>/);
    const altered = await client.get(`${next.slice(0, -2)}xx`);
    assertPage(altered, 200);
    assert.match(altered.text, /That page link had expired, so this is the first page again\./);
    assert.equal(names(altered.text)[0], 'Template 51');
  });

  test('a document without a PDF offers no “Save as template”, and a post says why', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const empty = await client.get('/templates');
    assertPage(empty, 200);
    assert.match(empty.text, /No templates yet\./);
    assert.match(
      empty.text,
      /Make one from a PDF, or open a document with its PDF and fields and choose <strong>Save as template<\/strong>/,
    );
    const { id } = await createDraftDocument(h.ctx, owner.workspaceId, { title: 'Text only' });
    const page = await client.get(`/documents/${id}`);
    assertPage(page, 200);
    assert.ok(!page.text.includes('save-as-template'));
    const refused = await client.post(`/documents/${id}/save-as-template`, { name: 'Text only' });
    assertPage(refused, 400);
    assert.match(refused.text, /This document has no PDF yet/);
    assert.equal(await countRows(h.ctx, 'templates', { workspace_id: owner.workspaceId }), 0);
  });

  test('renamed from its page; a blank name is refused beside its input and keeps the old one', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await servicesTemplate(owner.workspaceId);
    assertPage(await client.get(`/templates/${id}`), 200);
    const blank = await client.post(`/templates/${id}/rename`, { name: '' });
    assertPage(blank, 400);
    assert.ok(errorBeside(blank.text, 'name')?.includes('name must be 1 to 200 characters.'));
    assert.match(blank.text, /id="name" name="name" type="text" maxlength="200" value=""/);
    assert.equal((await getTemplate(h.ctx, owner.workspaceId, id)).name, 'Services agreement');
    assertRedirect(
      await client.post(`/templates/${id}/rename`, { name: 'Consulting agreement' }),
      `/templates/${id}?done=renamed`,
    );
    assert.equal((await getTemplate(h.ctx, owner.workspaceId, id)).name, 'Consulting agreement');
    const list = await client.get('/templates');
    assert.match(list.text, new RegExp(`<a href="/templates/${id}">Consulting agreement</a>`));
  });

  test('used: a draft with the values prefilled, recipients in role order and the template’s PDF, then its send confirmation', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await servicesTemplate(owner.workspaceId);
    const template = await getTemplate(h.ctx, owner.workspaceId, id);
    const form = await client.get(`/templates/${id}/use`);
    assertPage(form, 200);
    for (const role of ['Client', 'Company', 'Accountant'])
      assert.ok(form.text.includes(`<legend>${role}</legend>`), role);
    assert.match(form.text, /<label for="value0">Price<\/label><input id="value0" name="value0" type="text"/);
    assert.match(form.text, /<input id="value1" name="value1" type="checkbox" value="true"\s*> Insured/);
    assert.equal(inputValue(form.text, 'title'), 'Services agreement');
    assert.match(form.text, /<textarea id="body"[^>]*>Please sign\.<\/textarea>/);

    const filesBefore = await countRows(h.ctx, 'files');
    const made = await client.post(`/templates/${id}/use`, filledUseForm());
    assert.equal(made.status, 303, made.text.slice(0, 600));
    const documentId = new RegExp(`^/documents/(${uuid})/send$`).exec(made.location ?? '')?.[1];
    assert.ok(documentId, made.location ?? '');
    const confirm = await client.get(made.location ?? '');
    assertPage(confirm, 200);
    assert.match(confirm.text, /Send this document\?/);
    assert.equal(await countRows(h.ctx, 'files'), filesBefore, 'no file stored for the draft');

    const document = await getDocument(h.ctx, owner.workspaceId, documentId);
    assert.equal(document.status, 'draft');
    assert.equal(document.title, 'Services agreement with Ann');
    assert.equal(document.files[0]?.sha256, template.file.sha256);
    assert.deepEqual(
      document.recipients.map((r) => [r.email, r.fullName, r.role, r.signingOrder]),
      [
        ['ann@client.example', 'Ann Client', 'signer', 1],
        ['dana@acme.example', 'Dana Ceo', 'signer', 2],
        ['books@acme.example', 'Books Ltd', 'viewer', 3],
      ],
    );
    assert.deepEqual(
      document.recipients[0]?.fields.map((f) => [f.type, f.label, f.prefilled, f.value]),
      [
        ['signature', null, false, null],
        ['text', 'Price', true, '1,200 EUR'],
        ['checkbox', 'Insured', true, true],
      ],
    );
    assert.deepEqual(
      document.recipients[1]?.fields.map((f) => [f.label, f.value]),
      [
        [null, null],
        ['Price', '1,200 EUR'],
      ],
    );
    const page = await client.get(`/templates/${id}`);
    assert.match(page.text, /<dt>Documents made from it<\/dt><dd>1<\/dd>/);
  });

  test('a refusal keeps every value entered and says each problem beside its input, by role and label', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await servicesTemplate(owner.workspaceId);
    // The template's own refusals: a role left blank, a value it needs.
    const missing = await postUse(
      client,
      id,
      filledUseForm({ role1_name: '', role1_email: '', value0: '', title: 'My own title' }),
    );
    assertPage(missing, 400);
    assert.equal(errorBeside(missing.text, 'role1_email'), 'Give the Company’s email address and full name.');
    assert.equal(errorBeside(missing.text, 'value0'), 'Give “Price”: you fill it in.');
    assert.match(missing.text, /<strong>2 things to fix<\/strong>/);
    assert.equal(inputValue(missing.text, 'role0_email'), 'ann@client.example');
    assert.equal(inputValue(missing.text, 'role2_name'), 'Books Ltd');
    assert.equal(inputValue(missing.text, 'title'), 'My own title');
    assert.match(missing.text, /<input id="value1" name="value1" type="checkbox" value="true" checked/);
    // The document's own refusal, under the role it concerns and naming it.
    const badEmail = await postUse(client, id, filledUseForm({ role0_email: 'ann@' }));
    assertPage(badEmail, 400);
    assert.equal(errorBeside(badEmail.text, 'role0_email'), 'Client: the email address is not valid.');
    assert.match(
      badEmail.text,
      /id="role0_email" name="role0_email" type="email" value="ann@" aria-invalid="true" aria-describedby="role0_email-error"/,
    );
    assert.equal(inputValue(badEmail.text, 'value0'), '1,200 EUR');
    assert.equal(inputValue(badEmail.text, 'role1_name'), 'Dana Ceo');
    assert.ok(!/recipients\[|values\[/.test(badEmail.text), 'no keys of the service’s input');
    // A blank title: beside its input, in the opened "Title and message".
    const untitled = await postUse(client, id, filledUseForm({ title: ' ' }));
    assertPage(untitled, 400);
    assert.equal(errorBeside(untitled.text, 'title'), 'Title must be 1 to 200 characters.');
    assert.match(untitled.text, /<details class="card" open><summary>Title and message<\/summary>/);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: owner.workspaceId }), 0);
  });

  test('another workspace’s template or document is the same 404 on every page and post', async () => {
    const owner = await people.newOwner();
    const stranger = await people.newOwner();
    const client = await people.signedIn(stranger);
    const { id } = await servicesTemplate(owner.workspaceId, 'Private terms');
    const { id: documentId } = await createDraftDocument(h.ctx, owner.workspaceId, {
      file: await pagesPdf(1),
    });
    const routes = [
      { method: 'GET' as const, path: (probe: string) => `/templates/${probe}` },
      { method: 'GET' as const, path: (probe: string) => `/templates/${probe}/use` },
      {
        method: 'POST' as const,
        path: (probe: string) => `/templates/${probe}/use`,
        fields: filledUseForm(),
      },
      {
        method: 'POST' as const,
        path: (probe: string) => `/templates/${probe}/rename`,
        fields: { name: 'Mine' },
      },
      { method: 'GET' as const, path: (probe: string) => `/templates/${probe}/delete` },
      { method: 'POST' as const, path: (probe: string) => `/templates/${probe}/delete` },
    ];
    for (const route of routes) {
      const text = await assertSameNotFound(client, '/templates', route, probeIds(id));
      assert.ok(!text.includes('Private terms'));
    }
    await assertSameNotFound(
      client,
      '/templates',
      { method: 'POST', path: (probe) => `/documents/${probe}/save-as-template`, fields: { name: 'Stolen' } },
      probeIds(documentId),
    );
    assert.equal((await getTemplate(h.ctx, owner.workspaceId, id)).name, 'Private terms');
    assert.equal(await countRows(h.ctx, 'templates', { workspace_id: stranger.workspaceId }), 0);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: stranger.workspaceId }), 0);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: owner.workspaceId }), 1);
    const list = await client.get('/templates');
    assert.ok(!list.text.includes('Private terms'));
  });

  test('deleted after a confirmation: the documents made from it stay as they were', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await servicesTemplate(owner.workspaceId);
    const made = await postUse(client, id, filledUseForm());
    const documentId = made.location?.split('/')[2] as string;
    const before = await getDocument(h.ctx, owner.workspaceId, documentId);
    const confirm = await client.get(`/templates/${id}/delete`);
    assertPage(confirm, 200);
    assert.match(
      confirm.text,
      /The document made from it stays as it is: it keeps its own recipients, fields and PDF\./,
    );
    assert.match(confirm.text, new RegExp(`<form method="post" action="/templates/${id}/delete">`));
    const other = await people.signedIn(owner);
    assertPage(await other.get('/templates'), 200);
    await assertForgeriesRefused(client, `/templates/${id}/delete`, {}, other.csrfToken ?? '');
    assert.equal((await getTemplate(h.ctx, owner.workspaceId, id)).name, 'Services agreement');
    assertRedirect(await client.post(`/templates/${id}/delete`), '/templates?done=deleted');
    const list = await client.get('/templates?done=deleted');
    assert.match(list.text, /Template deleted\. The documents made from it are unchanged\./);
    assert.match(list.text, /No templates yet\./);
    assertPage(await client.get(`/templates/${id}`), 404);
    const after = await getDocument(h.ctx, owner.workspaceId, documentId);
    assert.deepEqual(after.recipients, before.recipients);
    assert.deepEqual(after.files, before.files);
    assertPage(await client.get(`/documents/${documentId}`), 200);
  });
});
