// Control characters (issue 49, http/control-characters.ts): a NUL, another C0 control
// character or a lone surrogate in a path segment, a query value, a JSON string or a form
// field never reaches the database. PostgreSQL refuses U+0000 in text (`invalid byte
// sequence … 0x00`, a 500 before): these run on PostgreSQL too to prove it. /v1 answers 400 in
// the envelope with the fitting code and pointer; pages answer 404 or 400, and a form's or a
// spreadsheet's text loses them or is named beside its field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { setPublicLink } from '../../src/templates/public-links.ts';
import { blankPdf, createWaiverTemplate, templateRole } from '../support/factories.ts';
import {
  callApi,
  countRows,
  createTestWorkspace,
  describeEachDatabase,
  useHarness,
} from '../support/harness.ts';
import { assertPage, webPeople } from '../support/web-client.ts';

const ann = { email: 'ann@northwind.example', fullName: 'Ann Lee' };

describeEachDatabase('control characters never reach the database', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const people = webPeople(h, '10.49');

  async function workspace() {
    const ws = await createTestWorkspace(h.ctx);
    const write = await createApiKey(h.ctx, { workspaceId: ws.id, name: 'writer', scope: 'write' });
    return { ...ws, writeKey: write.secret };
  }

  test('/v1: in a path id, invalid-id; in a query value, invalid-query', async () => {
    const ws = await workspace();
    const draft = await callApi(h, 'POST', '/v1/documents', {
      key: ws.writeKey,
      body: { title: 'Draft', recipients: [ann] },
    });
    const id = (draft.body.data as { id: string }).id;
    for (const path of [`/v1/documents/${id}%00`, `/v1/documents/${id}%01/send`, `/v1/templates/${id}%00`]) {
      const method = path.endsWith('/send') ? 'POST' : 'GET';
      const res = await callApi(h, method, path, { key: ws.writeKey });
      assert.equal(res.status, 400, path);
      assert.deepEqual(res.body, { ok: false, error: 'invalid-id' }, path);
      assert.ok(res.headers.get('x-ratelimit-remaining'), path);
    }
    for (const query of ['cursor=%00', 'cursor=a%09b', 'limit=1&cursor=%1F']) {
      const res = await callApi(h, 'GET', `/v1/documents?${query}`, { key: ws.apiKey });
      assert.equal(res.status, 400, query);
      assert.deepEqual(res.body, { ok: false, error: 'invalid-query' }, query);
    }
  });

  test('/v1: a JSON string with one is invalid-body at its pointer, and nothing is stored; tab and line breaks are text', async () => {
    const ws = await workspace();
    const cases: Array<[string, string, string, object, string]> = [
      ['create', 'POST', '/v1/documents', { title: 'A\u0000B', recipients: [ann] }, '/title'],
      [
        'create, a recipient',
        'POST',
        '/v1/documents',
        { title: 'A', recipients: [{ ...ann, fullName: 'Ann\u0007Lee' }] },
        '/recipients/0/fullName',
      ],
      [
        'create, a lone surrogate',
        'POST',
        '/v1/documents',
        { title: 'A\ud800', recipients: [ann] },
        '/title',
      ],
      [
        'template create',
        'POST',
        '/v1/templates',
        {
          name: 'N\u001b',
          title: 'T',
          roles: [templateRole('Client')],
          file: (await blankPdf()).toString('base64'),
        },
        '/name',
      ],
      [
        'webhook endpoint',
        'POST',
        '/v1/webhook-endpoints',
        { url: 'https://hooks.example.com/x', events: ['document.sent'], description: 'x\u0000' },
        '/description',
      ],
    ];
    for (const [name, method, path, body, pointer] of cases) {
      const res = await callApi(h, method as 'POST', path, { key: ws.writeKey, body });
      assert.equal(res.status, 400, `${name}: ${res.text}`);
      assert.equal(res.body.error, 'invalid-body', name);
      assert.equal(res.body.pointer, pointer, name);
    }
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: ws.id }), 0);
    assert.equal(await countRows(h.ctx, 'templates', { workspace_id: ws.id }), 0);
    const kept = await callApi(h, 'POST', '/v1/documents', {
      key: ws.writeKey,
      body: { title: 'Tab\tand', text: 'Line one\r\nLine two\n\tindented', recipients: [ann] },
    });
    assert.equal(kept.status, 201, kept.text);
  });

  test('/v1: a withdrawal reason and a multipart document part with one are invalid-body', async () => {
    const ws = await workspace();
    const sent = await callApi(h, 'POST', '/v1/documents', {
      key: ws.writeKey,
      body: { title: 'Sent', text: 'Terms.', recipients: [ann], send: true },
    });
    const id = (sent.body.data as { id: string }).id;
    const withdraw = await callApi(h, 'POST', `/v1/documents/${id}/withdraw`, {
      key: ws.writeKey,
      body: { reason: 'because\u0000' },
    });
    assert.equal(withdraw.status, 400);
    assert.deepEqual(withdraw.body, { ok: false, error: 'invalid-body', pointer: '/reason' });
    const form = new FormData();
    form.set('document', JSON.stringify({ title: 'Multi\u0000part', recipients: [ann] }));
    form.set('file', new Blob([await blankPdf()], { type: 'application/pdf' }), 'a.pdf');
    const res = await fetch(`${h.baseUrl}/v1/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.writeKey}` },
      body: form,
    });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { ok: false, error: 'invalid-body', pointer: '/title' });
    // A body that is not the multipart its header says (the fuzz found it a 500).
    const notMultipart = await callApi(h, 'POST', '/v1/documents', {
      key: ws.writeKey,
      headers: { 'content-type': 'multipart/form-data; boundary=----x' },
      body: JSON.stringify({ title: 'x', recipients: [ann] }),
    });
    assert.deepEqual([notMultipart.status, notMultipart.body], [400, { ok: false, error: 'invalid-body' }]);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: ws.id }), 1);
  });

  test('pages: a public link, a signing link or an id with one is the 404 page; a query value, 400', async () => {
    const owner = await people.newOwner();
    const template = await createWaiverTemplate(h.ctx, owner.workspaceId);
    const token = await setPublicLink(h.ctx, owner.workspaceId, template.id, { maxUses: null, endsAt: null });
    const visitor = people.browser();
    assertPage(await visitor.get(`/t/${token}`), 200);
    for (const path of [
      `/t/${token}%00`,
      `/t/%00${token}`,
      `/t/${token}%00/confirm/00000000-0000-4000-8000-000000000000`,
      `/sign/${template.id}%00`,
      `/sign/${template.id}/abc%00`,
      `/invitations/abc%00`,
    ]) {
      const res = await visitor.get(path);
      assert.equal(res.status, 404, `${path}: ${res.text.slice(0, 200)}`);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    }
    const client = await people.signedIn(owner);
    const search = await client.get('/documents?search=a%00b');
    assert.equal(search.status, 400);
    assert.match(search.text, /That address could not be read/);
    assertPage(await client.get('/documents?search=ab'), 200);
  });

  test('pages: a public link’s form field with one loses it; a spreadsheet cell with one is named', async () => {
    const owner = await people.newOwner();
    const template = await createWaiverTemplate(h.ctx, owner.workspaceId);
    const token = await setPublicLink(h.ctx, owner.workspaceId, template.id, { maxUses: null, endsAt: null });
    const visitor = people.browser();
    assertPage(await visitor.get(`/t/${token}`), 200);
    const asked = await visitor.post(`/t/${token}`, {
      fullName: 'Vera\u0000 Vis\u0001itor',
      email: 'vera@exa\u0000mple.com',
    });
    assert.equal(asked.status, 303, asked.text.slice(0, 300));
    const stored = await h.ctx.db
      .selectFrom('public_link_requests')
      .select(['full_name', 'email'])
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored, { full_name: 'Vera Visitor', email: 'vera@example.com' });

    const client = await people.signedIn(owner);
    assertPage(await client.get(`/templates/${template.id}/bulk`), 200);
    const csv =
      'Customer email,Customer name\r\nann@client.example,Ann\u0000 Client\r\nbob@client.example,Bob Client\r\n';
    const preview = await client.post(`/templates/${template.id}/bulk`, {
      file: new File([csv], 'clients.csv', { type: 'text/csv' }),
    });
    assertPage(preview, 200);
    assert.match(
      preview.text,
      /Row 2: Customer name holds a control character \(U\+0000\), which no one can see or sign/,
    );
    assert.match(preview.text, /1 row of 2 can be sent/);
  });
});
