// Settings › Integrations and Billing on the web (src/web/integrations.pages.ts,
// billing.pages.ts) over real HTTP: the empty state, a new key's secret shown once (no-store),
// names refused with a sentence, keys that write chosen by an owner, the limit of active
// keys, revoking through a confirmation page (the API then answers 401); the plan switched
// Free ⇄ Max by an owner (the API answers at once), seen but not switched by a member. Shared
// setup: web-accounts-setup.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApiKey, listApiKeys } from '../../src/keys/keys.service.ts';
import { escapeHtml } from '../../src/ui/html.ts';
import { callApi, describeEachDatabase } from '../support/harness.ts';
import { assertPage, assertRedirect, testPassword as password } from '../support/web-client.ts';
import { assertFieldError, publicUrl, useWebAccounts } from './web-accounts-setup.ts';

describeEachDatabase('web application pages over HTTP: integrations and billing', (kind) => {
  const { h, browser, newOwner, newMember, logIn, signedIn, apiAnswer, planOf, createKeyOnPage, keyIdNamed } =
    useWebAccounts(kind);

  test('integrations: a workspace without keys shows the empty state with a curl line', async () => {
    const client = await signedIn(await newOwner());
    const page = await client.get('/settings/integrations');
    assertPage(page, 200);
    assert.ok(page.text.includes('<strong>No API keys yet.</strong>'));
    assert.ok(
      page.text.includes(
        `<pre class="shell" id="curl-line" dir="ltr">curl -H "Authorization: Bearer sgn_…" "${publicUrl}/v1/documents?limit=3"</pre>`,
      ),
      page.text,
    );
    assert.ok(page.text.includes('0 of 10 active'));
    assert.ok(!page.text.includes('id="new-key"'));
  });

  test('integrations: a new key’s form redirects to a page that shows its secret once (no-store, never in a Location or a cookie in clear); a reload shows it no more; it reads the API on Max', async () => {
    const account = await newOwner('max');
    const client = await signedIn(account);
    const { res, secret } = await createKeyOnPage(client, 'CRM sync');
    assert.match(secret, /^sgn_/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.location, null);
    assert.ok(res.text.includes('Your new API key “CRM sync”'));
    assert.ok(
      res.text.includes(`curl -H "Authorization: Bearer ${secret}" "${publicUrl}/v1/documents?limit=3"`),
    );
    assert.deepEqual(await apiAnswer(secret), [200, null]);

    // A reload is a GET of the same page: no second key, and the secret is not shown again.
    const reload = await client.get('/settings/integrations?done=key-created');
    assertPage(reload, 200);
    assert.ok(!reload.text.includes(secret));
    assert.ok(
      reload.text.includes('Its secret was shown once, when it was made, and cannot be shown again.'),
    );
    // The sealed cookie that carried it is bound to its session: another session's page ignores it.
    const sealed = client.setCookies.find(
      (c) => c.startsWith('signet_reveal=') && !c.startsWith('signet_reveal=;'),
    );
    assert.ok(sealed, 'the secret crossed the redirect in a cookie');
    const other = await signedIn(account);
    const stolen = await other.get('/settings/integrations', {
      cookies: { signet_reveal: sealed.slice('signet_reveal='.length).split(';')[0] as string },
    });
    assert.ok(!stolen.text.includes(secret), 'another session cannot open it');

    const later = await client.get('/settings/integrations');
    assertPage(later, 200);
    assert.ok(!later.text.includes(secret), 'the secret is not shown again');
    assert.ok(!later.text.includes('id="new-key"'));
    const [key] = await listApiKeys(h.ctx, account.workspaceId);
    assert.ok(key);
    assert.ok(later.text.includes(`<code>sgn_…${key.hint}</code>`));
    assert.ok(later.text.includes('1 of 10 active'));
    assertRedirect(await client.get('/'), '/documents');
    for (const location of client.locations) assert.ok(!location.includes(secret), location);
    for (const cookie of client.setCookies) assert.ok(!cookie.includes(secret), cookie);
  });

  test('integrations: on Free a key is created but the API answers 403 plan-required, and the page says so', async () => {
    const account = await newOwner('free');
    const client = await signedIn(account);
    const { res, secret } = await createKeyOnPage(client, 'Free key');
    assert.ok(res.text.includes('This workspace is on the Free plan'));
    assert.ok(res.text.includes('<code>403 plan-required</code>'));
    assert.ok(res.text.includes('<a href="/settings/billing">Switch to Max</a>'));
    assert.deepEqual(await apiAnswer(secret), [403, 'plan-required']);
  });

  test('integrations: an empty name and a name over 100 characters are refused with 400 and a message', async () => {
    const account = await newOwner();
    const client = await signedIn(account);
    const cases: Array<[string, string]> = [
      ['', 'Give the key a name.'],
      ['   ', 'Give the key a name.'],
      ['x'.repeat(101), 'Use at most 100 characters.'],
    ];
    for (const [name, message] of cases) {
      assertPage(await client.get('/settings/integrations'), 200);
      const res = await client.post('/settings/integrations/keys', { name });
      assertPage(res, 400);
      assertFieldError(res.text, 'key-name', message);
      assert.ok(!res.text.includes('id="new-key"'));
    }
    assert.deepEqual(await listApiKeys(h.ctx, account.workspaceId), []);
    await createKeyOnPage(client, 'y'.repeat(100));
    assert.equal((await listApiKeys(h.ctx, account.workspaceId)).length, 1, '100 characters are fine');
  });

  test('integrations: an owner chooses a key that writes; the list shows each key’s access; a member cannot make one', async () => {
    const owner = await newOwner();
    const client = await signedIn(owner);
    const page = await client.get('/settings/integrations');
    assertPage(page, 200);
    assert.match(
      page.text,
      /<input type="radio" name="scope" value="read" checked> <span><strong>Read only<\/strong>/,
    );
    assert.match(page.text, /<strong>Read and write<\/strong>: <span class="muted">[^<]*sends? documents/);
    assertRedirect(
      await client.post('/settings/integrations/keys', { name: 'CRM', scope: 'write' }),
      '/settings/integrations?done=key-created',
    );
    const shown = await client.get('/settings/integrations?done=key-created');
    const secret = /<code id="new-key">([^<]+)<\/code>/.exec(shown.text)?.[1] ?? '';
    await createKeyOnPage(client, 'Reports');
    const keys = await listApiKeys(h.ctx, owner.workspaceId);
    assert.deepEqual(keys.map((k) => [k.name, k.scope]).sort(), [
      ['CRM', 'write'],
      ['Reports', 'read'],
    ]);
    const list = (await client.get('/settings/integrations')).text;
    assert.match(list, /<td>CRM<\/td>\n<td><code>sgn_…\w{4}<\/code><\/td>\n<td>Read and write<\/td>/);
    assert.match(list, /<td>Reports<\/td>\n<td><code>sgn_…\w{4}<\/code><\/td>\n<td>Read only<\/td>/);
    // The write key writes through the API.
    const created = await callApi(h, 'POST', '/v1/documents', {
      key: secret,
      body: { title: 'From the CRM', recipients: [{ email: 'ann@x.example', fullName: 'Ann' }] },
    });
    assert.equal(created.status, 201, created.text);

    const member = await newMember(owner);
    const memberClient = await signedIn(member);
    const memberPage = await memberClient.get('/settings/integrations');
    assert.ok(!memberPage.text.includes('name="scope"'), 'a member is not offered the choice');
    const refused = await memberClient.post('/settings/integrations/keys', {
      name: 'Sneaky',
      scope: 'write',
    });
    assertPage(refused, 400);
    assert.ok(refused.text.includes('Only an owner can create a key that writes.'), refused.text);
    const forged = await memberClient.post('/settings/integrations/keys', { name: 'Odd', scope: 'admin' });
    assertPage(forged, 400);
    assert.equal((await listApiKeys(h.ctx, owner.workspaceId)).length, 2, 'nothing created');
    await createKeyOnPage(memberClient, 'Member key');
    assert.equal(
      (await listApiKeys(h.ctx, owner.workspaceId)).find((k) => k.name === 'Member key')?.scope,
      'read',
    );
  });

  test('integrations: the 11th active key is refused with 409 and a sentence saying the limit', async () => {
    const account = await newOwner();
    const client = await signedIn(account);
    for (let i = 1; i <= 10; i++) await createKeyOnPage(client, `key ${i}`);
    assertPage(await client.get('/settings/integrations'), 200);
    const res = await client.post('/settings/integrations/keys', { name: 'key 11' });
    assertPage(res, 409);
    assert.ok(
      res.text.includes(
        'This workspace already has 10 active keys, the most it can have. Revoke one you no longer use, then create the new one.',
      ),
      res.text,
    );
    assert.ok(!res.text.includes('id="new-key"'));
    assert.equal((await listApiKeys(h.ctx, account.workspaceId)).length, 10);

    const first = await keyIdNamed(account.workspaceId, 'key 1');
    assertPage(await client.get(`/settings/integrations/keys/${first}/revoke`), 200);
    assertRedirect(
      await client.post(`/settings/integrations/keys/${first}/revoke`),
      '/settings/integrations?done=revoked',
    );
    await createKeyOnPage(client, 'key 11');
  });

  test('integrations: revoking goes through a confirmation page and its POST makes the API answer 401 for that key', async () => {
    const account = await newOwner();
    const client = await signedIn(account);
    const { secret } = await createKeyOnPage(client, 'Old sync');
    const list = await client.get('/settings/integrations');
    const id = await keyIdNamed(account.workspaceId, 'Old sync');
    const path = `/settings/integrations/keys/${id}/revoke`;
    assert.ok(list.text.includes(`<a href="${path}">`), 'the list links to the confirmation');

    const confirm = await client.get(path);
    assertPage(confirm, 200);
    assert.ok(confirm.text.includes('<h1>Revoke “Old sync”?</h1>'));
    assert.ok(confirm.text.includes(`<form method="post" action="${path}">`));
    assert.deepEqual(await apiAnswer(secret), [200, null], 'the confirmation page revokes nothing');

    assertRedirect(await client.post(path), '/settings/integrations?done=revoked');
    assert.deepEqual(await apiAnswer(secret), [401, 'invalid-api-key']);
    const after = await client.get('/settings/integrations?done=revoked');
    assert.ok(after.text.includes('The key was revoked. Requests with it are refused from now on.'));
    assert.ok(!after.text.includes(`<a href="${path}">`));
    assert.ok(after.text.includes('Revoked '));
    const again = await client.get(path);
    assertPage(again, 200);
    assert.ok(again.text.includes('This key was revoked on'));
    assert.ok(!again.text.includes(`action="${path}"`));
  });

  test('billing: an owner switches Free → Max and back, and the API answers for the workspace’s key at once', async () => {
    const account = await newOwner('free');
    const key = await createApiKey(h.ctx, { workspaceId: account.workspaceId, name: 'billing' });
    const client = await signedIn(account);
    assert.deepEqual(await apiAnswer(key.secret), [403, 'plan-required']);

    const free = await client.get('/settings/billing');
    assertPage(free, 200);
    assert.ok(free.text.includes('<h2>Plan: Free</h2>'));
    assert.ok(free.text.includes('Switch to Max</button>'));
    assertRedirect(
      await client.post('/settings/billing/plan', { plan: 'max' }),
      '/settings/billing?done=plan',
    );
    assert.deepEqual(await apiAnswer(key.secret), [200, null]);
    assert.equal(await planOf(account.workspaceId), 'max');

    const max = await client.get('/settings/billing?done=plan');
    assertPage(max, 200);
    assert.ok(max.text.includes('<h2>Plan: Max</h2>'));
    assert.ok(max.text.includes(`${escapeHtml(account.workspaceName)} is now on the Max plan.`));
    // Max to Free is asked first: the billing page links to the question, and a post
    // without the answer goes there and changes nothing.
    assert.ok(
      max.text.includes(
        '<a class="button button-secondary" href="/settings/billing/free">Switch to Free…</a>',
      ),
    );
    assertRedirect(await client.post('/settings/billing/plan', { plan: 'free' }), '/settings/billing/free');
    assert.equal(await planOf(account.workspaceId), 'max');
    const question = await client.get('/settings/billing/free');
    assertPage(question, 200);
    assert.match(question.text, /answers <code>403 plan-required<\/code> to every API key of this workspace/);
    assert.match(question.text, /<input type="hidden" name="confirm" value="yes">/);
    assertRedirect(
      await client.post('/settings/billing/plan', { plan: 'free', confirm: 'yes' }),
      '/settings/billing?done=plan',
    );
    assert.deepEqual(await apiAnswer(key.secret), [403, 'plan-required']);
    assert.equal(await planOf(account.workspaceId), 'free');
  });

  test('billing: a member sees the plan on Integrations but no way to switch it; Billing and a POST to switch are refused with 403', async () => {
    // Billing is for owners only (since the members pages): a member is told the plan on
    // the Integrations page, and the Billing page and its form answer 403.
    const owner = await newOwner('free');
    const key = await createApiKey(h.ctx, { workspaceId: owner.workspaceId, name: 'billing' });
    const member = await newMember(owner);
    const client = browser();
    assertRedirect(await logIn(client, member.email, password), '/documents');

    const integrations = await client.get('/settings/integrations');
    assertPage(integrations, 200);
    assert.ok(integrations.text.includes('This workspace is on the Free plan'));
    assert.ok(integrations.text.includes('An owner can switch it in Billing.'));
    assert.ok(!integrations.text.includes('href="/settings/billing"'), 'no link to Billing for a member');
    assert.ok(!integrations.text.includes('action="/settings/billing/plan"'));

    const billing = await client.get('/settings/billing');
    assertPage(billing, 403);
    assert.ok(billing.text.includes('Only owners can do this'));
    assert.ok(!billing.text.includes('action="/settings/billing/plan"'));
    assert.ok(!billing.text.includes('Switch to'));

    assertPage(await client.get('/settings/account'), 200);
    const res = await client.post('/settings/billing/plan', { plan: 'max' });
    assertPage(res, 403);
    assert.ok(res.text.includes('Only owners can do this'));
    assert.equal(await planOf(owner.workspaceId), 'free');
    assert.deepEqual(await apiAnswer(key.secret), [403, 'plan-required']);
  });
});
