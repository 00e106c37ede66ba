// The web application's pages (src/web/*) over real HTTP, as a browser uses them: sign-up
// confirmed by mail, log-in and its limits, sessions and their ends, changing the password,
// CSRF on every form, API keys in Settings › Integrations, the plan in Billing, what one
// workspace can reach of another's, what a visitor gets, and the security headers.
//
// Every client of this file talks from 127.0.0.1. The app runs behind a "proxy" here
// (SIGNET_TRUST_PROXY=1) and each browser() sends its own X-Forwarded-For address, so the
// per-address sign-in limit counts one browser's attempts, not the whole file's.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { findUser } from '../../src/accounts/accounts.repository.ts';
import { emailKey } from '../../src/accounts/accounts.service.ts';
import type { Plan } from '../../src/db/schema.ts';
import { createApiKey, listApiKeys } from '../../src/keys/keys.service.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { escapeHtml } from '../../src/ui/html.ts';
import { createEndpoint, getEndpoint } from '../../src/webhooks/endpoints.service.ts';
import { callApi, countRows, describeEachDatabase, twoSigners, useHarness } from '../support/harness.ts';
import {
  assertForgeriesRefused,
  assertPage,
  assertRedirect,
  assertSameNotFound,
  confirmationLinkFor,
  confirmationLinkIn,
  createWebClient,
  type ForeignRoute,
  followSignup,
  mailsTo,
  testPassword as password,
  type TestAccount,
  uniqueEmail,
  type WebClient,
  type WebResponse,
  webPeople,
  withoutCsrf,
} from '../support/web-client.ts';

const newPassword = 'a different long passphrase';
const minute = 60_000;
const hour = 60 * minute;
const publicUrl = 'https://sign.example.test';
const formExpired = 'This form has expired';
const memberPages = [
  '/documents',
  '/documents/new',
  '/mails',
  '/settings/integrations',
  '/settings/billing',
  '/settings/members',
  '/settings/account',
];

type Account = TestAccount;

function inputTag(text: string, id: string): string {
  const tag = new RegExp(`<input id="${id}"[^>]*>`).exec(text)?.[0];
  assert.ok(tag, `no input #${id} on the page`);
  return tag;
}

/** The input is marked invalid, described by its message, and the message follows it directly. */
function assertFieldError(text: string, id: string, message: string): void {
  const tag = inputTag(text, id);
  assert.ok(tag.includes('aria-invalid="true"'), tag);
  assert.ok(tag.includes(`aria-describedby="${id}-error"`), tag);
  const after = text.slice(text.indexOf(tag) + tag.length).trimStart();
  const error = `<span class="field-error" id="${id}-error">${escapeHtml(message)}</span>`;
  assert.ok(after.startsWith(error), `expected ${error} after ${tag}, got ${after.slice(0, 200)}`);
}

function assertNoFieldError(text: string, id: string): void {
  assert.ok(!inputTag(text, id).includes('aria-invalid'), `#${id} is marked invalid`);
  assert.ok(!text.includes(`id="${id}-error"`), `#${id} has an error message`);
}

/** The Set-Cookie header of `name` in a response, its attributes by lower-case name. */
function setCookieOf(res: WebResponse, name: string): { value: string; attributes: Map<string, string> } {
  const header = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  assert.ok(header, `no Set-Cookie for ${name}`);
  const [pair = '', ...rest] = header.split(';');
  const attributes = new Map<string, string>();
  for (const part of rest) {
    const [key = '', value = ''] = part.split('=');
    attributes.set(key.trim().toLowerCase(), value.trim());
  }
  return { value: pair.slice(name.length + 1), attributes };
}

function assertSessionCookie(res: WebResponse): void {
  const { value, attributes } = setCookieOf(res, 'signet_session');
  assert.ok(value.length >= 40, 'a session token');
  assert.ok(attributes.has('httponly'), 'HttpOnly');
  assert.equal(attributes.get('samesite')?.toLowerCase(), 'lax');
  assert.equal(attributes.get('path'), '/');
}

function loginNext(path: string): string {
  return `/login?next=${encodeURIComponent(path)}`;
}

describeEachDatabase('web application pages over HTTP', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });

  const { browser, newOwner, newMember, logIn, signedIn } = webPeople(h, '10.0');

  async function signUp(
    client: WebClient,
    form: { email: string; password: string; workspaceName: string },
  ): Promise<WebResponse> {
    assertPage(await client.get('/signup'), 200);
    return followSignup(client, await client.post('/signup', form));
  }

  /** What GET /v1/documents answers for a key: [status, error code or null]. */
  async function apiAnswer(key: string): Promise<[number, unknown]> {
    const res = await callApi(h, 'GET', '/v1/documents', { key });
    return [res.status, res.body.error ?? null];
  }

  async function planOf(workspaceId: string): Promise<Plan> {
    const row = await h.ctx.db
      .selectFrom('workspaces')
      .select('plan')
      .where('id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    return row.plan;
  }

  const mailCount = () => countRows(h.ctx, 'mails');
  const usersWithEmail = (email: string) => countRows(h.ctx, 'users', { email_key: emailKey(email) });
  const signupRequestsFor = (email: string) => countRows(h.ctx, 'signup_requests', { email });

  async function passwordHashOf(userId: string): Promise<string | undefined> {
    return (await findUser(h.ctx.db, userId))?.password_hash;
  }

  /** Creates a key on the Integrations page: the answer and the secret it shows. */
  async function createKeyOnPage(
    client: WebClient,
    name: string,
  ): Promise<{ res: WebResponse; secret: string }> {
    assertPage(await client.get('/settings/integrations'), 200);
    assertRedirect(
      await client.post('/settings/integrations/keys', { name }),
      '/settings/integrations?done=key-created',
    );
    const res = await client.get('/settings/integrations?done=key-created');
    assertPage(res, 200);
    const secret = /<code id="new-key">([^<]+)<\/code>/.exec(res.text)?.[1];
    assert.ok(secret, 'the new key is shown');
    return { res, secret };
  }

  async function keyIdNamed(workspaceId: string, name: string): Promise<string> {
    const key = (await listApiKeys(h.ctx, workspaceId)).find((k) => k.name === name);
    assert.ok(key, `no key named ${name}`);
    return key.id;
  }

  /** A sign-up waiting for its link: the browser that asked, the address and the link's path. */
  async function pendingSignup(workspaceName = 'Acme Ltd') {
    const client = browser();
    const email = uniqueEmail('new');
    assertPage(await signUp(client, { email, password, workspaceName }), 200);
    return { client, email, workspaceName, link: await confirmationLinkFor(h.ctx, email) };
  }

  /** A valid CSRF token of another browser: a visitor's, or a session of `account`. */
  async function tokenOfAnotherSession(account?: Account): Promise<string> {
    const other = account ? await signedIn(account) : browser();
    assertPage(await other.get(account ? '/settings/account' : '/login'), 200);
    assert.ok(other.csrfToken);
    return other.csrfToken;
  }

  /** The two forgeries of a form: no token at all, and a token of another browser's session. */
  // ---------------------------------------------------------------- sign-up

  test('sign-up: each invalid field re-renders the form with 400, its message next to it, and queues no mail', async () => {
    const cases = [
      {
        field: 'email',
        form: { email: 'not-an-email', password, workspaceName: 'Acme' },
        message: 'Enter an email address like name@example.com.',
      },
      {
        field: 'password',
        form: { email: uniqueEmail('short'), password: 'nine-char', workspaceName: 'Acme' },
        message: 'Use at least 10 characters.',
      },
      {
        field: 'workspaceName',
        form: { email: uniqueEmail('noname'), password, workspaceName: '   ' },
        message: 'Give your workspace a name.',
      },
    ];
    const mailsBefore = await mailCount();
    for (const { field, form, message } of cases) {
      const client = browser();
      const res = await signUp(client, form);
      assertPage(res, 400);
      assert.ok(res.text.includes('<title>Sign up · Signet</title>'), field);
      assertFieldError(res.text, field, message);
      for (const other of ['email', 'password', 'workspaceName'].filter((f) => f !== field)) {
        assertNoFieldError(res.text, other);
      }
      assert.ok(
        inputTag(res.text, 'email').includes(`value="${escapeHtml(form.email)}"`),
        'the email is kept',
      );
      assert.ok(!res.text.includes(form.password), 'the password is never echoed');
      assert.equal(await signupRequestsFor(form.email), 0, field);
      assert.deepEqual(await mailsTo(h.ctx, form.email), [], field);
    }
    assert.equal(await mailCount(), mailsBefore, 'nothing queued');
  });

  test('sign-up: a valid form redirects to "Check your inbox" and queues one mail with a confirmation link; a reload sends nothing again', async () => {
    const client = browser();
    const email = uniqueEmail('new');
    assertPage(await client.get('/signup'), 200);
    assertRedirect(
      await client.post('/signup', { email, password, workspaceName: 'Acme Ltd' }),
      '/signup/sent',
    );
    for (let reload = 0; reload < 2; reload++) {
      const res = await client.get('/signup/sent');
      assertPage(res, 200);
      assert.ok(res.text.includes('<h1>Check your inbox</h1>'));
      assert.ok(res.text.includes(`We sent a mail to <strong>${escapeHtml(email)}</strong>`));
    }
    // Another browser on that address learns nothing of anyone's sign-up.
    const stranger = await browser().get('/signup/sent');
    assert.ok(stranger.text.includes('We sent a mail to the address you gave.'));
    const mails = await mailsTo(h.ctx, email);
    assert.equal(mails.length, 1);
    const [mail] = mails;
    assert.ok(mail);
    assert.equal(mail.subject, 'Confirm your Signet account');
    assert.ok(mail.text.includes('"Acme Ltd"'), mail.text);
    const link = confirmationLinkIn(mail);
    assert.ok(link, mail.text);
    assert.match(link, /^\/signup\/confirm\/[A-Za-z0-9_-]{43}$/);
    assert.ok(mail.text.includes(`${publicUrl}${link}`), 'an absolute link on the public address');
    assert.equal(await usersWithEmail(email), 0, 'no account before the link is used');
  });

  test('sign-up: the link shows a confirmation page; its POST creates the account, sets an HttpOnly SameSite=Lax session cookie and redirects 303', async () => {
    const { email, link } = await pendingSignup('Acme Ltd');
    const client = browser(); // the mail may well be opened in another browser
    const page = await client.get(link);
    assertPage(page, 200);
    assert.ok(
      page.text.includes(
        `Create the workspace <strong>Acme Ltd</strong> for <strong>${escapeHtml(email)}</strong>?`,
      ),
    );
    assert.ok(page.text.includes(`<form method="post" action="${link}">`));
    assert.equal(await usersWithEmail(email), 0, 'GET creates nothing (links are prefetched)');

    const res = await client.post(link);
    assertRedirect(res, '/documents');
    assertSessionCookie(res);
    assert.ok(client.cookies.has('signet_session'));
    assert.equal(await usersWithEmail(email), 1);

    // The new owner lands on Documents, with the first steps (not the API keys page).
    const documents = await client.get('/documents');
    assertPage(documents, 200);
    assert.ok(documents.text.includes('Your first document in three steps'), 'the first-steps panel');
    const integrations = await client.get('/settings/integrations');
    assertPage(integrations, 200);
    assert.ok(integrations.text.includes('Acme Ltd'));
    const account = await client.get('/settings/account');
    assertPage(account, 200);
    assert.ok(account.text.includes(`<strong>${escapeHtml(email)}</strong>, owner of Acme Ltd`));
    assert.ok(integrations.text.includes('This workspace is on the Free plan'), 'a new workspace is on Free');
  });

  test('sign-up: a confirmation link works once; used again it answers the 404 page', async () => {
    const { client, email, link } = await pendingSignup();
    // A second browser has the confirmation page open too, before the link is used.
    const stranger = browser();
    assertPage(await stranger.get(link), 200);
    assertPage(await client.get(link), 200);
    assertRedirect(await client.post(link), '/documents');

    const late = await stranger.post(link);
    assertPage(late, 404);
    assert.ok(late.text.includes('This link cannot be used'));
    assert.ok(!stranger.cookies.has('signet_session'));
    assertPage(await stranger.get(link), 404);

    const again = await client.get(link);
    assertPage(again, 404);
    assert.ok(again.text.includes('This link cannot be used'));
    const repost = await client.post(link);
    assertPage(repost, 404);
    assert.ok(repost.text.includes('This link cannot be used'));
    assert.equal(await usersWithEmail(email), 1, 'one account');
  });

  test('sign-up: a confirmation link is refused once its 24 hours are over, and creates nothing', async () => {
    const { client, email, link } = await pendingSignup();
    h.clock.advance(24 * hour - minute);
    assertPage(await client.get(link), 200);
    h.clock.advance(minute);
    const res = await client.post(link); // the page opened a minute ago
    assertPage(res, 404);
    assert.ok(res.text.includes('This link cannot be used'));
    assert.ok(!client.cookies.has('signet_session'));
    const page = await browser().get(link);
    assertPage(page, 404);
    assert.ok(page.text.includes('This link cannot be used'));
    assert.equal(await usersWithEmail(email), 0);
  });

  test('sign-up: an address that already has an account gets the identical "Check your inbox" page and a mail to log in instead, without a link', async () => {
    const existing = await newOwner();
    const fresh = uniqueEmail('fresh');
    const forNew = await signUp(browser(), { email: fresh, password, workspaceName: 'Acme' });
    const forExisting = await signUp(browser(), { email: existing.email, password, workspaceName: 'Acme' });
    const upperCase = existing.email.toUpperCase();
    const forUpperCase = await signUp(browser(), { email: upperCase, password, workspaceName: 'Acme' });

    const normalized = (res: WebResponse, email: string) => [
      res.status,
      withoutCsrf(res.text).replaceAll(escapeHtml(email), 'EMAIL'),
    ];
    assert.equal(forNew.status, 200);
    assert.deepEqual(normalized(forExisting, existing.email), normalized(forNew, fresh));
    assert.deepEqual(normalized(forUpperCase, upperCase), normalized(forNew, fresh));

    for (const address of [existing.email, upperCase]) {
      const mails = await mailsTo(h.ctx, address);
      assert.equal(mails.length, 1, address);
      const [mail] = mails;
      assert.ok(mail);
      assert.equal(mail.subject, 'You already have a Signet account');
      assert.ok(mail.text.includes('Sign in here instead'), mail.text);
      assert.ok(mail.text.includes(`${publicUrl}/login`), mail.text);
      assert.equal(confirmationLinkIn(mail), null);
      assert.ok(!mail.text.includes('/signup/confirm'), mail.text);
      assert.equal(await signupRequestsFor(address), 0);
    }
    assert.equal(await usersWithEmail(existing.email), 1);
  });

  test('sign-up: a second sign-up for one address replaces the first: only the newest link works, and no page offers what cannot be done', async () => {
    const email = uniqueEmail('twice');
    const secondPassword = 'the second passphrase';
    assertPage(await signUp(browser(), { email, password, workspaceName: 'First' }), 200);
    h.clock.advance(1000);
    assertPage(await signUp(browser(), { email, password: secondPassword, workspaceName: 'Second' }), 200);
    const links = (await mailsTo(h.ctx, email)).map(confirmationLinkIn);
    assert.equal(links.length, 2);
    const [second, first] = links; // newest first
    assert.ok(first && second && first !== second);

    // The first link's page says it was replaced, and offers nothing.
    const early = browser();
    const replaced = await early.get(first);
    assertPage(replaced, 404);
    assert.match(replaced.text, /a newer sign-up for the same address replaced it/);

    const client = browser();
    assertPage(await client.get(second), 200);
    assertRedirect(await client.post(second), '/documents');
    assert.equal(await usersWithEmail(email), 1);
    assertRedirect(await logIn(browser(), email, secondPassword), '/documents');
    assertPage(await logIn(browser(), email, password), 401);
    // Once the address has an account, its old links' pages say so too.
    assertPage(await browser().get(second), 404);
  });

  test('log-in before confirming the sign-up says so, to the one who knows the password only', async () => {
    const email = uniqueEmail('eager');
    assertPage(await signUp(browser(), { email, password, workspaceName: 'Eager' }), 200);
    const early = await logIn(browser(), email, password);
    assertPage(early, 401);
    assert.match(early.text, /You have not confirmed your sign-up yet\. Open the link we mailed to/);
    const guess = await logIn(browser(), email, 'a wrong guess of a password');
    assertPage(guess, 401);
    assert.match(guess.text, /The email or password is not right\./);
    assert.ok(!guess.text.includes('confirmed'), 'a wrong password learns nothing of the sign-up');
  });

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

  // ---------------------------------------------------------------- log-in

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

  // ---------------------------------------------------------------- sessions

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

  // ---------------------------------------------------------------- change password

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

  // ---------------------------------------------------------------- CSRF

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

  // ---------------------------------------------------------------- integrations

  test('integrations: a workspace without keys shows the empty state with a curl line', async () => {
    const client = await signedIn(await newOwner());
    const page = await client.get('/settings/integrations');
    assertPage(page, 200);
    assert.ok(page.text.includes('<strong>No API keys yet.</strong>'));
    assert.ok(
      page.text.includes(
        `<pre class="shell" id="curl-line">curl -H "Authorization: Bearer sgn_…" "${publicUrl}/v1/documents?limit=3"</pre>`,
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

  // ---------------------------------------------------------------- billing

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

  // ---------------------------------------------------------------- isolation

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

  // ---------------------------------------------------------------- visitors

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

  // ---------------------------------------------------------------- headers

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
