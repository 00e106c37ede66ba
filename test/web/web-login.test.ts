// Logging in, sessions and the password on the web (src/web/auth.pages.ts) over real HTTP:
// a wrong password and an unknown email answered alike, `next` followed on this site only,
// the per-account and per-address limits (429 with Retry-After); a session's ends (log-out,
// 12 hours unused, 7 days), never a session cookie in a redirect URL; changing the password
// (refusals beside their fields, every other session ended). Shared setup:
// web-accounts-setup.ts (each browser its own X-Forwarded-For address behind a "proxy").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml } from '../../src/ui/html.ts';
import { describeEachDatabase } from '../support/harness.ts';
import {
  assertPage,
  assertRedirect,
  createWebClient,
  testPassword as password,
  uniqueEmail,
  withoutCsrf,
} from '../support/web-client.ts';
import {
  assertFieldError,
  assertNoFieldError,
  assertSessionCookie,
  hour,
  loginNext,
  minute,
  newPassword,
  useWebAccounts,
} from './web-accounts-setup.ts';

describeEachDatabase('web application pages over HTTP: log-in, sessions and the password', (kind) => {
  const {
    h,
    browser,
    newOwner,
    logIn,
    signedIn,
    passwordHashOf,
    createKeyOnPage,
    keyIdNamed,
    pendingSignup,
  } = useWebAccounts(kind);

  /**
   * A password change the form refuses: 400 with `message` next to `field` and none at the
   * other field, the stored hash unchanged. Returns the account and its two browsers.
   */
  async function refusedPasswordChange(
    fields: { currentPassword: string; newPassword: string },
    field: 'currentPassword' | 'newPassword',
    message: string,
  ) {
    const account = await newOwner();
    const client = await signedIn(account);
    const other = await signedIn(account);
    const hashBefore = await passwordHashOf(account.userId);
    assertPage(await client.get('/settings/account'), 200);
    const res = await client.post('/settings/account/password', fields);
    assertPage(res, 400);
    assertFieldError(res.text, field, message);
    assertNoFieldError(res.text, field === 'currentPassword' ? 'newPassword' : 'currentPassword');
    assert.equal(await passwordHashOf(account.userId), hashBefore);
    return { account, client, other };
  }

  test('log-in: a wrong password and an unknown email both answer 401 with the same message', async () => {
    const account = await newOwner();
    const unknown = uniqueEmail('nobody');
    const wrongPassword = await logIn(browser(), account.email, 'not the password at all');
    const unknownEmail = await logIn(browser(), unknown, password);
    const message = 'The email or password is not right.';
    for (const res of [wrongPassword, unknownEmail]) {
      assertPage(res, 401);
      assert.ok(res.text.includes(`<div class="notice notice-error" role="alert">${message}</div>`));
      assert.ok(!res.headers.getSetCookie().some((c) => c.startsWith('signet_session=')));
    }
    assert.equal(
      withoutCsrf(wrongPassword.text).replace(escapeHtml(account.email), 'EMAIL'),
      withoutCsrf(unknownEmail.text).replace(escapeHtml(unknown), 'EMAIL'),
    );
  });

  test('log-in: the email is matched case-insensitively and sets an HttpOnly SameSite=Lax session cookie', async () => {
    const account = await newOwner();
    const client = browser();
    const res = await logIn(client, `  ${account.email.toUpperCase()} `, password);
    assertRedirect(res, '/documents');
    assertSessionCookie(res);
    const documents = await client.get('/documents');
    assertPage(documents, 200);
    assert.ok(documents.text.includes(escapeHtml(account.workspaceName)));
  });

  test('log-in: next is followed for a path on this site only; //evil.example and https://evil.example go to /documents', async () => {
    const account = await newOwner();
    const cases: Array<[string, string]> = [
      ['/settings/billing?done=x', '/settings/billing?done=x'],
      ['//evil.example', '/documents'],
      ['https://evil.example', '/documents'],
      ['/\\evil.example', '/documents'],
      ['/"><script>alert(1)</script>', '/"><script>alert(1)</script>'],
    ];
    for (const [next, expected] of cases) {
      const client = browser();
      const form = await client.get(`/login?next=${encodeURIComponent(next)}`);
      assertPage(form, 200);
      const hidden = /<input type="hidden" name="next" value="([^"]*)">/.exec(form.text)?.[1];
      assert.equal(hidden, escapeHtml(expected), `the form carries ${expected} for ${next}`);
      assert.ok(!form.text.includes('<script>alert'), 'next is shown as text');
      const res = await client.post('/login', { email: account.email, password, next });
      assertRedirect(res, expected);
      assert.equal(new URL(expected, h.baseUrl).origin, new URL(h.baseUrl).origin);
    }
  });

  test('log-in: a next with a tab in it never leads off the site', async () => {
    const account = await newOwner();
    for (const next of ['/\t/evil.example', '/\t\t/evil.example/path']) {
      const res = await logIn(browser(), account.email, password, { next });
      assert.equal(res.status, 303, JSON.stringify(next));
      const target = new URL(res.location ?? '', h.baseUrl);
      assert.equal(target.origin, new URL(h.baseUrl).origin, `${JSON.stringify(next)} → ${target.href}`);
    }
  });

  test('log-in: a next a Location header cannot carry as is (line break, non-Latin-1) still logs in and stays on the site', async () => {
    const account = await newOwner();
    for (const next of ['/\n/evil.example', '/\r\n/evil.example', '/documents?q=\u6587']) {
      const client = browser();
      const res = await logIn(client, account.email, password, { next });
      assert.equal(res.status, 303, `${JSON.stringify(next)}: ${res.status}`);
      const target = new URL(res.location ?? '', h.baseUrl);
      assert.equal(target.origin, new URL(h.baseUrl).origin, `${JSON.stringify(next)} → ${target.href}`);
      assert.ok(client.cookies.has('signet_session'), JSON.stringify(next));
    }
  });

  test('log-in: after 10 attempts for one account from one address the 11th is refused with 429 and Retry-After, even with the right password', async () => {
    const account = await newOwner();
    const address = '10.9.0.1';
    for (let i = 0; i < 10; i++) {
      const guesser = createWebClient(h.baseUrl, { address });
      assertPage(await logIn(guesser, account.email, `wrong password ${i}`), 401);
    }
    const client = createWebClient(h.baseUrl, { address });
    const res = await logIn(client, account.email, password);
    assertPage(res, 429);
    assert.equal(res.headers.get('retry-after'), '60');
    assert.ok(res.text.includes('Too many attempts to log in. Try again in 1 minute.'), res.text);
    assert.ok(!client.cookies.has('signet_session'));
    assertRedirect(await client.get('/documents'), loginNext('/documents'));

    h.clock.advance(minute);
    assertRedirect(
      await logIn(createWebClient(h.baseUrl, { address }), account.email, password),
      '/documents',
    );
  });

  test('log-in: after 30 attempts from one address with different emails the 31st is refused with 429 and Retry-After', async () => {
    const account = await newOwner();
    const client = browser();
    for (let i = 0; i < 30; i++) {
      assertPage(await logIn(client, uniqueEmail('guess'), password), 401);
    }
    const res = await logIn(client, account.email, password);
    assertPage(res, 429);
    assert.equal(res.headers.get('retry-after'), '20');
    assert.ok(res.text.includes('Too many attempts to log in. Try again in 1 minute.'), res.text);
    assert.ok(!client.cookies.has('signet_session'));
    // The account itself is not limited: from another address the same log-in works.
    assertRedirect(await logIn(browser(), account.email, password), '/documents');
  });

  test('sessions: log-out ends the session; the old cookie value no longer opens /documents', async () => {
    const account = await newOwner();
    const client = await signedIn(account);
    const old = client.cookies.get('signet_session');
    assert.ok(old);
    assertPage(await client.get('/documents'), 200);
    const res = await client.post('/logout');
    assertRedirect(res, '/login');
    assert.ok(!client.cookies.has('signet_session'), 'the cookie is cleared');
    assertRedirect(await client.get('/documents'), loginNext('/documents'));

    const replay = browser();
    replay.cookies.set('signet_session', old);
    assertRedirect(await replay.get('/documents'), loginNext('/documents'));
  });

  test('sessions: a session unused for 12 hours expires, one used within 12 hours stays', async () => {
    const account = await newOwner();
    const idle = await signedIn(account);
    const active = await signedIn(account);
    h.clock.advance(11 * hour);
    assertPage(await active.get('/documents'), 200);
    h.clock.advance(hour);
    assertRedirect(await idle.get('/documents'), loginNext('/documents'));
    assertPage(await active.get('/documents'), 200);
    h.clock.advance(12 * hour - minute);
    assertPage(await active.get('/documents'), 200);
    h.clock.advance(12 * hour);
    assertRedirect(await active.get('/documents'), loginNext('/documents'));
  });

  test('sessions: 7 days after log-in a session ends however active it is', async () => {
    const account = await newOwner();
    const client = await signedIn(account);
    for (let hours = 11; hours <= 165; hours += 11) {
      h.clock.advance(11 * hour);
      assertPage(await client.get('/documents'), 200);
    }
    h.clock.advance(3 * hour - minute); // 7 days less a minute
    assertPage(await client.get('/documents'), 200);
    h.clock.advance(minute);
    assertRedirect(await client.get('/documents'), loginNext('/documents'));
  });

  test('sessions: no redirect URL ever carries the session cookie', async () => {
    const { client: signup, link } = await pendingSignup();
    assertPage(await signup.get(link), 200);
    assertRedirect(await signup.post(link), '/documents');
    const account = await newOwner();
    const client = browser();
    assertRedirect(await client.get('/settings/billing'), loginNext('/settings/billing'));
    assertRedirect(
      await logIn(client, account.email, password, { next: '/settings/billing' }),
      '/settings/billing',
    );
    assertRedirect(await client.get('/'), '/documents');
    assertRedirect(await client.get('/login'), '/documents');
    assertPage(await client.get('/settings/billing'), 200);
    assertRedirect(
      await client.post('/settings/billing/plan', { plan: 'free', confirm: 'yes' }),
      '/settings/billing?done=plan',
    );
    await createKeyOnPage(client, 'redirects');
    const keyId = await keyIdNamed(account.workspaceId, 'redirects');
    assertPage(await client.get(`/settings/integrations/keys/${keyId}/revoke`), 200);
    assertRedirect(
      await client.post(`/settings/integrations/keys/${keyId}/revoke`),
      '/settings/integrations?done=revoked',
    );
    assertPage(await client.get('/settings/account'), 200);
    assertRedirect(
      await client.post('/settings/account/password', { currentPassword: password, newPassword }),
      '/settings/account?done=password',
    );
    assertPage(await client.get('/documents'), 200);
    assertRedirect(await client.post('/logout'), '/login');

    const tokens = [...signup.setCookies, ...client.setCookies]
      .filter((c) => c.startsWith('signet_session='))
      .map((c) => c.slice('signet_session='.length).split(';')[0] ?? '')
      .filter((token) => token.length > 0);
    assert.ok(tokens.length >= 3, 'sign-up, log-in and password change each set one');
    const locations = [...signup.locations, ...client.locations];
    assert.ok(locations.length >= 8);
    for (const location of locations) {
      for (const token of tokens) {
        assert.ok(!location.includes(token), location);
        assert.ok(!decodeURIComponent(location).includes(token), location);
      }
      assert.ok(!location.includes('signet_session'), location);
    }
  });

  test('change password: a wrong current password is refused with 400 next to its field and changes nothing', async () => {
    const { account, client, other } = await refusedPasswordChange(
      { currentPassword: 'not my password', newPassword },
      'currentPassword',
      'That is not your current password.',
    );
    assertPage(await client.get('/documents'), 200);
    assertPage(await other.get('/documents'), 200);
    assertRedirect(await logIn(browser(), account.email, password), '/documents');
    assertPage(await logIn(browser(), account.email, newPassword), 401);
  });

  test('change password: a new password under 10 characters is refused with 400 next to its field and changes nothing', async () => {
    const { account, other } = await refusedPasswordChange(
      { currentPassword: password, newPassword: 'nine-char' },
      'newPassword',
      'Use at least 10 characters.',
    );
    assertPage(await other.get('/documents'), 200);
    assertRedirect(await logIn(browser(), account.email, password), '/documents');
  });

  test('change password: success ends every other session, keeps this browser signed in, and only the new password logs in', async () => {
    const account = await newOwner();
    const client = await signedIn(account);
    const other = await signedIn(account);
    const before = client.cookies.get('signet_session');
    assert.ok(before);
    assertPage(await client.get('/settings/account'), 200);
    const res = await client.post('/settings/account/password', { currentPassword: password, newPassword });
    assertRedirect(res, '/settings/account?done=password');
    assertSessionCookie(res);
    assert.notEqual(client.cookies.get('signet_session'), before, 'a new session for this browser');

    const done = await client.get('/settings/account?done=password');
    assertPage(done, 200);
    assert.ok(done.text.includes('Your password was changed. Every other browser was signed out.'));
    assertRedirect(await other.get('/documents'), loginNext('/documents'));
    const replay = browser();
    replay.cookies.set('signet_session', before);
    assertRedirect(await replay.get('/documents'), loginNext('/documents'));

    assertRedirect(await logIn(browser(), account.email, newPassword), '/documents');
    assertPage(await logIn(browser(), account.email, password), 401);
  });
});
