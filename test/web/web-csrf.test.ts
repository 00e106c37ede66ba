// CSRF on every form of the web application over real HTTP: sign-up and its confirmation,
// log-in, log-out, the password, creating and revoking a key, switching the plan, each refused
// with 403 without a token or with another session's, and nothing changed; a token from before
// log-in refused after it. Shared setup: web-accounts-setup.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApiKey, listApiKeys } from '../../src/keys/keys.service.ts';
import { describeEachDatabase } from '../support/harness.ts';
import {
  assertForgeriesRefused,
  assertPage,
  assertRedirect,
  mailsTo,
  testPassword as password,
  uniqueEmail,
} from '../support/web-client.ts';
import { formExpired, loginNext, newPassword, useWebAccounts } from './web-accounts-setup.ts';

describeEachDatabase('web application pages over HTTP: CSRF', (kind) => {
  const {
    h,
    browser,
    newOwner,
    logIn,
    signedIn,
    signUp,
    apiAnswer,
    planOf,
    mailCount,
    usersWithEmail,
    signupRequestsFor,
    passwordHashOf,
    pendingSignup,
    tokenOfAnotherSession,
  } = useWebAccounts(kind);

  test('CSRF: a sign-up without a token or with another session’s token is refused with 403 and queues nothing', async () => {
    const client = browser();
    assertPage(await client.get('/signup'), 200);
    const email = uniqueEmail('csrf');
    const mailsBefore = await mailCount();
    await assertForgeriesRefused(
      client,
      '/signup',
      { email, password, workspaceName: 'Acme' },
      await tokenOfAnotherSession(),
    );
    assert.equal(await mailCount(), mailsBefore);
    assert.equal(await signupRequestsFor(email), 0);
    assertPage(await signUp(client, { email, password, workspaceName: 'Acme' }), 200);
    assert.equal((await mailsTo(h.ctx, email)).length, 1, 'the form itself works');
  });

  test('CSRF: confirming a sign-up without a token or with another session’s token is refused with 403 and creates no account', async () => {
    const { email, link } = await pendingSignup();
    const client = browser();
    assertPage(await client.get(link), 200);
    await assertForgeriesRefused(client, link, {}, await tokenOfAnotherSession());
    assert.equal(await usersWithEmail(email), 0);
    assert.ok(!client.cookies.has('signet_session'));
    assertPage(await client.get(link), 200);
    assertRedirect(await client.post(link), '/documents');
  });

  test('CSRF: a log-in without a token or with another session’s token is refused with 403 and signs nobody in', async () => {
    const account = await newOwner();
    const client = browser();
    assertPage(await client.get('/login'), 200);
    await assertForgeriesRefused(
      client,
      '/login',
      { email: account.email, password },
      await tokenOfAnotherSession(),
    );
    assert.ok(!client.cookies.has('signet_session'));
    assertRedirect(await client.get('/documents'), loginNext('/documents'));
    assertRedirect(await logIn(client, account.email, password), '/documents');
  });

  test('CSRF: a log-out without a token or with another session’s token is refused with 403 and the session stays', async () => {
    const account = await newOwner();
    const client = await signedIn(account);
    assertPage(await client.get('/documents'), 200);
    await assertForgeriesRefused(client, '/logout', {}, await tokenOfAnotherSession(await newOwner()));
    assert.ok(client.cookies.has('signet_session'));
    assertPage(await client.get('/documents'), 200);
  });

  test('CSRF: a password change without a token or with another session’s token is refused with 403 and the password stays', async () => {
    const account = await newOwner();
    const client = await signedIn(account);
    const other = await signedIn(account);
    const hashBefore = await passwordHashOf(account.userId);
    assertPage(await client.get('/settings/account'), 200);
    await assertForgeriesRefused(
      client,
      '/settings/account/password',
      { currentPassword: password, newPassword },
      await tokenOfAnotherSession(await newOwner()),
    );
    assert.equal(await passwordHashOf(account.userId), hashBefore);
    assertPage(await client.get('/documents'), 200);
    assertPage(await other.get('/documents'), 200);
    assertRedirect(await logIn(browser(), account.email, password), '/documents');
  });

  test('CSRF: creating a key without a token or with another session’s token is refused with 403 and creates no key', async () => {
    const account = await newOwner();
    const client = await signedIn(account);
    assertPage(await client.get('/settings/integrations'), 200);
    await assertForgeriesRefused(
      client,
      '/settings/integrations/keys',
      { name: 'forged' },
      await tokenOfAnotherSession(await newOwner()),
    );
    assert.deepEqual(await listApiKeys(h.ctx, account.workspaceId), []);
    const page = await client.get('/settings/integrations');
    assert.ok(page.text.includes('No API keys yet.'));
  });

  test('CSRF: revoking a key without a token or with another session’s token is refused with 403 and the key keeps working', async () => {
    const account = await newOwner();
    const key = await createApiKey(h.ctx, { workspaceId: account.workspaceId, name: 'kept' });
    const client = await signedIn(account);
    const path = `/settings/integrations/keys/${key.id}/revoke`;
    assertPage(await client.get(path), 200);
    await assertForgeriesRefused(client, path, {}, await tokenOfAnotherSession(await newOwner()));
    assert.deepEqual(await apiAnswer(key.secret), [200, null]);
    const [listed] = await listApiKeys(h.ctx, account.workspaceId);
    assert.equal(listed?.revokedAt, null);
  });

  test('CSRF: switching the plan without a token or with another session’s token is refused with 403 and the plan stays', async () => {
    const account = await newOwner('free');
    const key = await createApiKey(h.ctx, { workspaceId: account.workspaceId, name: 'plan' });
    const client = await signedIn(account);
    assertPage(await client.get('/settings/billing'), 200);
    await assertForgeriesRefused(
      client,
      '/settings/billing/plan',
      { plan: 'max' },
      await tokenOfAnotherSession(await newOwner('free')),
    );
    assert.equal(await planOf(account.workspaceId), 'free');
    assert.deepEqual(await apiAnswer(key.secret), [403, 'plan-required']);
    assert.ok((await client.get('/settings/billing')).text.includes('<h2>Plan: Free</h2>'));
  });

  test('CSRF: a token the browser got before logging in is refused after it', async () => {
    const account = await newOwner();
    const client = browser();
    assertPage(await client.get('/login'), 200);
    const visitorToken = client.csrfToken;
    assert.ok(visitorToken);
    assertRedirect(await client.post('/login', { email: account.email, password }), '/documents');
    const res = await client.post('/settings/integrations/keys', { name: 'stale' }, { csrf: visitorToken });
    assertPage(res, 403);
    assert.ok(res.text.includes(formExpired));
    assert.deepEqual(await listApiKeys(h.ctx, account.workspaceId), []);
  });
});
