// What every page of the web application does, over real HTTP: names people type shown as
// text, never markup; another workspace's id, a random UUID and a non-UUID the same 404 page on
// every route with an id; visitors sent to log in and back; a field sent twice refused as
// input; the start page; the security headers (a Content-Security-Policy without
// unsafe-inline, frame-ancestors none, nosniff, no-referrer) and the assets' content types.
// Shared setup: web-accounts-setup.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { createApiKey, listApiKeys } from '../../src/keys/keys.service.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { escapeHtml } from '../../src/ui/html.ts';
import { createEndpoint, getEndpoint } from '../../src/webhooks/endpoints.service.ts';
import { callApi, countRows, describeEachDatabase, twoSigners } from '../support/harness.ts';
import {
  assertPage,
  assertRedirect,
  assertSameNotFound,
  type ForeignRoute,
  testPassword as password,
  uniqueEmail,
  type WebResponse,
} from '../support/web-client.ts';
import { loginNext, memberPages, useWebAccounts } from './web-accounts-setup.ts';

describeEachDatabase('web application pages over HTTP: what every page does', (kind) => {
  const { h, browser, newOwner, signedIn, apiAnswer, createKeyOnPage, pendingSignup } = useWebAccounts(kind);

  test('names people type (workspace, key) are shown as text, never as markup', async () => {
    const workspaceName = '<script>alert(1)</script> & Co';
    const { link } = await pendingSignup(workspaceName);
    const client = browser();
    const confirm = await client.get(link);
    assertPage(confirm, 200);
    assert.ok(confirm.text.includes(`<strong>${escapeHtml(workspaceName)}</strong>`));
    assertRedirect(await client.post(link), '/documents');
    const keyName = '<img src=x onerror=alert(1)>';
    const { res } = await createKeyOnPage(client, keyName);
    const list = await client.get('/settings/integrations');
    const [key] = await h.ctx.db.selectFrom('api_keys').select('id').where('name', '=', keyName).execute();
    assert.ok(key);
    const revoke = await client.get(`/settings/integrations/keys/${key.id}/revoke`);
    for (const page of [confirm, res, list, revoke]) {
      assert.ok(!page.text.includes('<script>alert'), 'no script from a name');
      assert.ok(!page.text.includes('<img src=x'), 'no element from a name');
    }
    for (const page of [res, list, revoke]) {
      assert.ok(
        page.text.includes(escapeHtml(workspaceName)),
        'the workspace name, escaped, in the navigation',
      );
      assert.ok(page.text.includes(escapeHtml(keyName)), 'the key name, escaped');
    }
  });

  test('isolation: another workspace’s id, a random UUID and a non-UUID get the same 404 page on every route with an id, and nothing of the other workspace changes', async () => {
    const mine = await newOwner('max');
    const theirs = await newOwner('max');
    const myKey = await createApiKey(h.ctx, { workspaceId: mine.workspaceId, name: 'mine' });
    const theirKey = await createApiKey(h.ctx, { workspaceId: theirs.workspaceId, name: 'theirs' });
    const theirEndpoint = await createEndpoint(h.ctx, theirs.workspaceId, {
      url: 'https://hooks.example.com/theirs',
      events: ['document.sent'],
    });
    const theirClient = await signedIn(theirs);
    assertPage(await theirClient.get('/settings/members'), 200);
    const invited = uniqueEmail('invited');
    assertRedirect(
      await theirClient.post('/settings/members/invitations', { email: invited, role: 'member' }),
      '/settings/members?done=invited',
    );
    const theirInvitation = await h.ctx.db
      .selectFrom('invitations')
      .select('id')
      .where('workspace_id', '=', theirs.workspaceId)
      .executeTakeFirstOrThrow();
    const theirDocument = await createDocument(h.ctx, {
      workspaceId: theirs.workspaceId,
      title: 'Theirs',
      body: 'Their agreement.',
      recipients: twoSigners,
      pricing: null,
    });
    const client = await signedIn(mine);

    const key = (id: string) => `/settings/integrations/keys/${id}`;
    const endpoint = (id: string) => `/settings/integrations/endpoints/${id}`;
    const edit = { url: 'https://hooks.example.com/stolen', events: 'document.signed', description: 'x' };
    const withdraw = (id: string) => `/settings/members/invitations/${id}/withdraw`;
    const role = (id: string) => `/settings/members/${id}/role`;
    const remove = (id: string) => `/settings/members/${id}/remove`;
    const routes: ForeignRoute[] = [
      { method: 'GET', path: (id) => `/documents/${id}`, foreignId: theirDocument.id },
      { method: 'POST', path: (id) => `/documents/${id}/send`, foreignId: theirDocument.id },
      { method: 'GET', path: (id) => `${key(id)}/revoke`, foreignId: theirKey.id },
      { method: 'POST', path: (id) => `${key(id)}/revoke`, foreignId: theirKey.id },
      { method: 'GET', path: endpoint, foreignId: theirEndpoint.id },
      { method: 'POST', path: endpoint, foreignId: theirEndpoint.id, fields: edit },
      {
        method: 'POST',
        path: (id) => `${endpoint(id)}/enabled`,
        foreignId: theirEndpoint.id,
        fields: { enabled: 'false' },
      },
      { method: 'POST', path: (id) => `${endpoint(id)}/test`, foreignId: theirEndpoint.id },
      { method: 'GET', path: (id) => `${endpoint(id)}/delete`, foreignId: theirEndpoint.id },
      { method: 'POST', path: (id) => `${endpoint(id)}/delete`, foreignId: theirEndpoint.id },
      {
        method: 'GET',
        path: (id) => `${endpoint(id)}/deliveries/${randomUUID()}`,
        foreignId: theirEndpoint.id,
      },
      { method: 'POST', path: withdraw, foreignId: theirInvitation.id },
      { method: 'POST', path: role, foreignId: theirs.userId, fields: { role: 'member' } },
      { method: 'GET', path: remove, foreignId: theirs.userId },
      { method: 'POST', path: remove, foreignId: theirs.userId },
    ];
    for (const route of routes) {
      const ids: Record<string, string> = {
        'an id of the other workspace': route.foreignId,
        'a random UUID': randomUUID(),
        'a string that is not a UUID': 'not-a-uuid',
      };
      const name = `${route.method} ${route.path('{id}')}`;
      const page = await assertSameNotFound(client, '/documents', route, ids);
      assert.ok(!page.includes('theirs'), name);
    }
    const theirDocumentNow = await callApi(h, 'GET', `/v1/documents/${theirDocument.id}`, {
      key: theirKey.secret,
    });
    assert.equal((theirDocumentNow.body.data as { status: string }).status, 'draft', 'not sent');
    assert.deepEqual(await apiAnswer(theirKey.secret), [200, null]);
    const [theirListed] = await listApiKeys(h.ctx, theirs.workspaceId);
    assert.equal(theirListed?.revokedAt, null);
    const theirNow = await getEndpoint(h.ctx, theirs.workspaceId, theirEndpoint.id);
    assert.equal(theirNow.url, 'https://hooks.example.com/theirs');
    assert.deepEqual(theirNow.events, ['document.sent']);
    assert.equal(theirNow.enabled, true);
    const theirMembers = await theirClient.get('/settings/members');
    assertPage(theirMembers, 200);
    assert.ok(
      theirMembers.text.includes(`action="/settings/members/invitations/${theirInvitation.id}/withdraw"`),
    );
    assert.ok(theirMembers.text.includes('<option value="owner" selected>'), 'still an owner');
    // The same routes with this workspace's own key do work.
    assertPage(await client.get(`/settings/integrations/keys/${myKey.id}/revoke`), 200);
  });

  test('visitors: every member page redirects 303 to /login?next=<the page>, and logging in returns there', async () => {
    for (const path of [...memberPages, '/documents?status=signed']) {
      const client = browser();
      const res = await client.get(path);
      assertRedirect(res, loginNext(path));
      assert.ok(!client.cookies.has('signet_session'));
    }
    const account = await newOwner();
    const client = browser();
    const redirect = await client.get('/settings/billing');
    const form = await client.get(redirect.location ?? '');
    assertPage(form, 200);
    const next = /<input type="hidden" name="next" value="([^"]*)">/.exec(form.text)?.[1];
    assert.equal(next, '/settings/billing');
    assertRedirect(
      await client.post('/login', { next: next ?? '', email: account.email, password }),
      '/settings/billing',
    );
    // A visitor's form posts to member actions go to /login too.
    const visitor = browser();
    assertPage(await visitor.get('/login'), 200);
    assertRedirect(await visitor.post('/settings/integrations/keys', { name: 'x' }), '/login');
  });

  test('a field sent twice (never by these forms) is refused as input, never a 500', async () => {
    const owner = await newOwner();
    const client = await signedIn(owner);
    const forms: Array<[string, string, Record<string, string | string[]>]> = [
      ['/settings/integrations', '/settings/integrations/keys', { name: ['a', 'b'] }],
      ['/settings/members', '/settings/members/invitations', { email: ['a@example.com', 'b@example.com'] }],
      ['/documents/new', '/documents', { title: ['a', 'b'], r0_email: ['a@example.com', 'b@example.com'] }],
      [
        '/settings/integrations',
        '/settings/integrations/endpoints',
        { url: ['https://a.example', 'https://b.example'] },
      ],
      [
        '/settings/account',
        '/settings/account/password',
        { currentPassword: [password, password], newPassword: ['x', 'y'] },
      ],
    ];
    for (const [page, action, fields] of forms) {
      assertPage(await client.get(page), 200);
      const res = await client.post(action, fields);
      assertPage(res, 400);
    }
    assert.equal(await countRows(h.ctx, 'api_keys', { workspace_id: owner.workspaceId }), 0);
  });

  test('the start page sends a visitor to /login and a member to /documents', async () => {
    assertRedirect(await browser().get('/'), '/login');
    const client = await signedIn(await newOwner());
    assertRedirect(await client.get('/'), '/documents');
  });

  test('pages carry a Content-Security-Policy without unsafe-inline and with frame-ancestors none, nosniff and no-referrer', async () => {
    const client = await signedIn(await newOwner());
    const pages: Array<[string, WebResponse]> = [];
    for (const path of [...memberPages, '/settings/integrations/keys/not-a-uuid/revoke']) {
      pages.push([path, await client.get(path)]);
    }
    pages.push(['403 form expired', await client.post('/logout', {}, { csrf: false })]);
    const visitor = browser();
    for (const path of ['/login', '/signup', '/signup/confirm/unknown']) {
      pages.push([path, await visitor.get(path)]);
    }
    for (const [name, page] of pages) {
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/, name);
      const csp = page.headers.get('content-security-policy') ?? '';
      const directives = csp.split(';').map((d) => d.trim());
      assert.ok(!csp.includes('unsafe-inline'), `${name}: ${csp}`);
      assert.ok(!csp.includes('unsafe-eval'), `${name}: ${csp}`);
      assert.ok(directives.includes("frame-ancestors 'none'"), `${name}: ${csp}`);
      assert.ok(directives.includes("default-src 'none'"), `${name}: ${csp}`);
      assert.equal(page.headers.get('x-content-type-options'), 'nosniff', name);
      assert.equal(page.headers.get('referrer-policy'), 'no-referrer', name);
      assert.equal(page.headers.get('cache-control'), 'no-store', name);
      // Nothing inline that such a policy would block.
      assert.ok(!/<script(?![^>]*\bsrc=)/.test(page.text), `${name}: inline script`);
      assert.ok(!/<style|\sstyle="/.test(page.text), `${name}: inline style`);
    }
  });

  test('/assets/app.css and /assets/app.js are served with their content types', async () => {
    const client = browser();
    const css = await client.get('/assets/app.css');
    assert.equal(css.status, 200);
    assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.ok(css.text.includes('.site-nav'));
    const js = await client.get('/assets/app.js');
    assert.equal(js.status, 200);
    assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.ok(js.text.includes('data-copy'));
    for (const res of [css, js]) assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  });
});
