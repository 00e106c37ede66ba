// What the account pages' suites in this folder share (web-signup, web-login, web-csrf,
// web-integrations, web-pages): a harness behind a "proxy" (SIGNET_TRUST_PROXY=1), where each
// browser() sends its own X-Forwarded-For address, so the per-address sign-in limit counts one
// browser's attempts, not the whole file's; its people (webPeople); and what the suites do
// with them: sign up, read the API's answer for a key, the plan, the mails and users stored,
// make a key on the Integrations page, a pending sign-up, another session's CSRF token. Every
// client talks from 127.0.0.1. Beside it, the checks of a form's inputs and cookies.
import assert from 'node:assert/strict';
import { findUser } from '../../src/accounts/accounts.repository.ts';
import { emailKey } from '../../src/accounts/accounts.service.ts';
import type { DatabaseKind } from '../../src/db/connect.ts';
import type { Plan } from '../../src/db/schema.ts';
import { listApiKeys } from '../../src/keys/keys.service.ts';
import { escapeHtml } from '../../src/ui/html.ts';
import { callApi, countRows, useHarness } from '../support/harness.ts';
import {
  assertPage,
  assertRedirect,
  confirmationLinkFor,
  followSignup,
  testPassword as password,
  type TestAccount,
  uniqueEmail,
  type WebClient,
  type WebResponse,
  webPeople,
} from '../support/web-client.ts';

export const newPassword = 'a different long passphrase';
export const minute = 60_000;
export const hour = 60 * minute;
export const publicUrl = 'https://sign.example.test';
export const formExpired = 'This form has expired';
export const memberPages = [
  '/documents',
  '/documents/new',
  '/mails',
  '/settings/integrations',
  '/settings/billing',
  '/settings/members',
  '/settings/account',
];

export type Account = TestAccount;

export function inputTag(text: string, id: string): string {
  const tag = new RegExp(`<input id="${id}"[^>]*>`).exec(text)?.[0];
  assert.ok(tag, `no input #${id} on the page`);
  return tag;
}

/** The input is marked invalid, described by its message, and the message follows it directly. */
export function assertFieldError(text: string, id: string, message: string): void {
  const tag = inputTag(text, id);
  assert.ok(tag.includes('aria-invalid="true"'), tag);
  assert.ok(tag.includes(`aria-describedby="${id}-error"`), tag);
  const after = text.slice(text.indexOf(tag) + tag.length).trimStart();
  const error = `<span class="field-error" id="${id}-error">${escapeHtml(message)}</span>`;
  assert.ok(after.startsWith(error), `expected ${error} after ${tag}, got ${after.slice(0, 200)}`);
}

export function assertNoFieldError(text: string, id: string): void {
  assert.ok(!inputTag(text, id).includes('aria-invalid'), `#${id} is marked invalid`);
  assert.ok(!text.includes(`id="${id}-error"`), `#${id} has an error message`);
}

/** The Set-Cookie header of `name` in a response, its attributes by lower-case name. */
export function setCookieOf(
  res: WebResponse,
  name: string,
): { value: string; attributes: Map<string, string> } {
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

export function assertSessionCookie(res: WebResponse): void {
  const { value, attributes } = setCookieOf(res, 'signet_session');
  assert.ok(value.length >= 40, 'a session token');
  assert.ok(attributes.has('httponly'), 'HttpOnly');
  assert.equal(attributes.get('samesite')?.toLowerCase(), 'lax');
  assert.equal(attributes.get('path'), '/');
}

export function loginNext(path: string): string {
  return `/login?next=${encodeURIComponent(path)}`;
}

/**
 * The enclosing suite's harness and people, and the account suites' steps over them (see the
 * header): a new one for each describe, as each file's database is its own.
 */
export function useWebAccounts(kind: DatabaseKind) {
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

  return {
    h,
    browser,
    newOwner,
    newMember,
    logIn,
    signedIn,
    signUp,
    apiAnswer,
    planOf,
    mailCount,
    usersWithEmail,
    signupRequestsFor,
    passwordHashOf,
    createKeyOnPage,
    keyIdNamed,
    pendingSignup,
    tokenOfAnotherSession,
  };
}
