// A tiny browser for the web application's tests: a cookie jar over fetch that never
// follows redirects and, like a browser submitting a form, sends the `_csrf` hidden field
// of the last HTML page it fetched with every POST. Also the mails the app queued, read
// the way a person reads them: the sign-up confirmation link is found in the mail's text.
// And `webPeople`: the browsers, owners and members a web test file works with.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import type { Context } from '../../src/context.ts';
import type { MemberRole, Plan } from '../../src/db/schema.ts';
import type { Language } from '../../src/i18n/languages.ts';
import { listMails, type MailView } from '../../src/mail/mail.service.ts';

export interface WebResponse {
  status: number;
  headers: Headers;
  /** The Location header of a redirect, as sent (never followed). */
  location: string | null;
  text: string;
}

export interface PostOptions {
  /**
   * The `_csrf` field: by default the one found in the last HTML page fetched; `false`
   * sends none, a string sends that token.
   */
  csrf?: boolean | string;
  /** Cookies sent instead of the jar's for this one request (null: leave that one out). */
  cookies?: Record<string, string | null>;
  /** More request headers (a Referer, say). */
  headers?: Record<string, string>;
}

export interface WebClient {
  /** `cookies`: sent instead of the jar's for this one request (null: leave that one out). */
  get(path: string, options?: { cookies?: Record<string, string | null> }): Promise<WebResponse>;
  /**
   * A field given as an array is sent once per value, as a repeated form field. A field
   * given as a File makes the post multipart/form-data, as a form with a file input is.
   */
  post(
    path: string,
    fields?: Record<string, string | string[] | File>,
    options?: PostOptions,
  ): Promise<WebResponse>;
  /** The cookie jar: name → value as the server set it. Tests may set or delete entries. */
  readonly cookies: Map<string, string>;
  /** The `_csrf` hidden field of the last HTML page fetched, or null if it had none. */
  readonly csrfToken: string | null;
  /** Every Location header this client received, in order. */
  readonly locations: readonly string[];
  /** Every Set-Cookie header this client received, in order. */
  readonly setCookies: readonly string[];
}

export interface WebClientOptions {
  /**
   * The client's address, sent as X-Forwarded-For (for an app that trusts its proxy), so
   * that clients on one test machine count as different addresses for per-address limits.
   */
  address?: string;
  /** The browser's Accept-Language, sent with every request. */
  acceptLanguage?: string;
}

const csrfFieldPattern = /<input type="hidden" name="_csrf" value="([^"]*)">/;

/** Whether a Set-Cookie header deletes its cookie: empty value, Max-Age <= 0 or an Expires in the past. */
function deletesCookie(value: string, attributes: Map<string, string>): boolean {
  if (value === '') return true;
  const maxAge = attributes.get('max-age');
  if (maxAge !== undefined && Number(maxAge) <= 0) return true;
  const expires = attributes.get('expires');
  return expires !== undefined && Date.parse(expires) <= Date.now();
}

export function createWebClient(baseUrl: string, options: WebClientOptions = {}): WebClient {
  const cookies = new Map<string, string>();
  const locations: string[] = [];
  const setCookies: string[] = [];
  let csrfToken: string | null = null;

  function storeCookies(headers: Headers): void {
    for (const header of headers.getSetCookie()) {
      setCookies.push(header);
      const [pair = '', ...rest] = header.split(';');
      const eq = pair.indexOf('=');
      if (eq < 1) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const attributes = new Map<string, string>();
      for (const part of rest) {
        const at = part.indexOf('=');
        const key = (at < 0 ? part : part.slice(0, at)).trim().toLowerCase();
        attributes.set(key, at < 0 ? '' : part.slice(at + 1).trim());
      }
      if (deletesCookie(value, attributes)) cookies.delete(name);
      else cookies.set(name, value);
    }
  }

  async function send(
    method: 'GET' | 'POST',
    path: string,
    body?: URLSearchParams | FormData,
    override: Record<string, string | null> = {},
    extraHeaders: Record<string, string> = {},
  ): Promise<WebResponse> {
    const headers: Record<string, string> = { ...extraHeaders };
    const jar = new Map(cookies);
    for (const [name, value] of Object.entries(override)) {
      if (value === null) jar.delete(name);
      else jar.set(name, value);
    }
    if (jar.size) headers.cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    if (options.address) headers['x-forwarded-for'] = options.address;
    if (options.acceptLanguage) headers['accept-language'] = options.acceptLanguage;
    const response = await fetch(new URL(path, baseUrl), { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    storeCookies(response.headers);
    const location = response.headers.get('location');
    if (location !== null) locations.push(location);
    if ((response.headers.get('content-type') ?? '').startsWith('text/html')) {
      csrfToken = csrfFieldPattern.exec(text)?.[1] ?? null;
    }
    return { status: response.status, headers: response.headers, location, text };
  }

  return {
    get: (path, getOptions = {}) => send('GET', path, undefined, getOptions.cookies),
    post(path, fields = {}, postOptions = {}) {
      const multipart = Object.values(fields).some((value) => value instanceof File);
      const form = multipart ? new FormData() : new URLSearchParams();
      // First, as every form renders it: a file upload's token is checked before its file is read.
      const csrf = postOptions.csrf ?? true;
      if (typeof csrf === 'string') form.set('_csrf', csrf);
      else if (csrf && csrfToken !== null) form.set('_csrf', csrfToken);
      for (const [name, value] of Object.entries(fields)) {
        for (const one of [value].flat()) {
          if (name === '_csrf' && form.has('_csrf')) form.set(name, one as string);
          else if (one instanceof File) (form as FormData).append(name, one);
          else form.append(name, one);
        }
      }
      return send('POST', path, form, postOptions.cookies, postOptions.headers);
    },
    cookies,
    get csrfToken() {
      return csrfToken;
    },
    locations,
    setCookies,
  };
}

/** The page's text with every CSRF token value blanked, to compare two renderings. */
export function withoutCsrf(text: string): string {
  return text.replaceAll(/(name="_csrf" value=")[^"]*"/g, '$1"');
}

/** Mails queued to `address` (exactly as addressed), newest first. */
export function mailsTo(ctx: Context, address: string): Promise<MailView[]> {
  return listMails(ctx, { to: address, limit: 100 });
}

const confirmationLinkPattern = /https?:\/\/\S+?(\/signup\/confirm\/[A-Za-z0-9_-]+)/;

/** The path of the sign-up confirmation link in a mail's text (`/signup/confirm/<token>`), or null. */
export function confirmationLinkIn(mail: MailView): string | null {
  return confirmationLinkPattern.exec(mail.text)?.[1] ?? null;
}

/** The newest sign-up confirmation link mailed to `address`, as a path; throws if none was. */
export async function confirmationLinkFor(ctx: Context, address: string): Promise<string> {
  for (const mail of await mailsTo(ctx, address)) {
    const link = confirmationLinkIn(mail);
    if (link) return link;
  }
  throw new Error(`no sign-up confirmation link was mailed to ${address}`);
}

let emailCount = 0;
/** An address no other test of the run uses. */
export function uniqueEmail(label: string): string {
  emailCount++;
  return `${label}-${emailCount}-${randomUUID().slice(0, 8)}@example.com`;
}

/** A whole HTML page with this status. */
export function assertPage(res: WebResponse, status: number, label = ''): void {
  assert.equal(res.status, status, `${label} ${res.text.slice(0, 800)}`);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(res.text, /^<!doctype html>/);
}

/** A 303 to exactly this location. */
export function assertRedirect(res: WebResponse, location: string): void {
  assert.equal(res.status, 303, res.text.slice(0, 800));
  assert.equal(res.location, location);
}

/**
 * The new-document form's fields as a browser sends them, one signer (Ann), without the
 * file: what the upload tests post, with `title` their own.
 */
export function newDocumentFields(title: string): Record<string, string> {
  return {
    title,
    recipientRows: '3',
    priceRows: '2',
    r0_email: 'ann@tenant.example',
    r0_name: 'Ann Lee',
    r0_role: 'signer',
    r0_method: 'standard',
    r0_order: '1',
    currency: 'EUR',
    vatMode: 'excluded',
  };
}

/** A PDF as a file input sends it. */
export const pdfFile = (data: Uint8Array, name = 'contract.pdf') =>
  new File([data], name, { type: 'application/pdf' });

export const testPassword = 'correct horse battery staple';

export interface TestAccount {
  email: string;
  password: string;
  userId: string;
  workspaceId: string;
  workspaceName: string;
}

/**
 * The people of a web test file. Each browser has an empty cookie jar and an address of
 * its own under `subnet` (sent as X-Forwarded-For: the file's app must trust its proxy),
 * so per-address limits count one browser's attempts, not the file's.
 */
export function webPeople(h: { baseUrl: string; ctx: Context }, subnet: string) {
  let browsers = 0;
  const browser = (options: Omit<WebClientOptions, 'address'> = {}): WebClient => {
    browsers++;
    return createWebClient(h.baseUrl, {
      ...options,
      address: `${subnet}.${browsers >> 8}.${browsers & 255}`,
    });
  };

  /** An owner of a new workspace. */
  async function newOwner(plan: Plan = 'max'): Promise<TestAccount> {
    const email = uniqueEmail('owner');
    const workspaceName = `Acme ${randomUUID().slice(0, 6)}`;
    const { userId, workspaceId } = await createAccount(h.ctx, {
      email,
      password: testPassword,
      workspaceName,
      plan,
    });
    return { email, password: testPassword, userId, workspaceId, workspaceName };
  }

  /** A user who joins the owner's workspace with `role` (and has no other workspace). */
  async function newMember(owner: TestAccount, role: MemberRole = 'member'): Promise<TestAccount> {
    const email = uniqueEmail(role);
    const input = { email, password: testPassword, workspaceId: owner.workspaceId, role };
    const { userId } = await createAccount(h.ctx, input);
    return { ...owner, email, userId };
  }

  /** Opens /login (with its `next`, if any) and submits it, as a person does. */
  async function logIn(
    client: WebClient,
    email: string,
    password = testPassword,
    extra: Record<string, string> = {},
  ) {
    const page = await client.get(extra.next ? `/login?next=${encodeURIComponent(extra.next)}` : '/login');
    assertPage(page, 200);
    return client.post('/login', { email, password, ...extra });
  }

  /** A new browser, logged in as the account. */
  async function signedIn(account: Pick<TestAccount, 'email'>): Promise<WebClient> {
    const client = browser();
    assertRedirect(await logIn(client, account.email), '/documents');
    return client;
  }

  /** An owner of a new workspace who chose `language` on the account page, logged in. */
  async function speakingOwner(language: Language, plan: Plan = 'max') {
    const owner = await newOwner(plan);
    await h.ctx.db.updateTable('users').set({ language }).where('id', '=', owner.userId).execute();
    return { owner, client: await signedIn(owner) };
  }

  return { browser, newOwner, newMember, logIn, signedIn, speakingOwner };
}

export interface IdRoute {
  method: 'GET' | 'POST';
  path: (id: string) => string;
  fields?: Record<string, string>;
}

/** A route with an id, and the id of another workspace's record to probe it with. */
export interface ForeignRoute extends IdRoute {
  foreignId: string;
}

/** The ids a member of workspace B tries on a route: A's record's id (also in upper case), a random UUID, a non-UUID. */
export function probeIds(foreignId: string): Record<string, string> {
  return {
    'an id of workspace A': foreignId,
    'the same id in upper case': foreignId.toUpperCase(),
    'a random UUID': randomUUID(),
    'a string that is not a UUID': 'not-a-uuid',
  };
}

/**
 * Isolation, the way a member of another workspace probes it: every id in `ids` (another
 * workspace's record, a random UUID, a string that is not a UUID, …) gets the same 404 page,
 * word for word. Each request carries a fresh form token from `freshPath`, as from a page.
 * Returns that page's text, for the caller's "nothing of theirs on it" checks.
 */
export async function assertSameNotFound(
  client: WebClient,
  freshPath: string,
  route: IdRoute,
  ids: Record<string, string>,
  name = `${route.method} ${route.path('{id}')}`,
): Promise<string> {
  const answers: Array<[string, number, string]> = [];
  for (const [label, id] of Object.entries(ids)) {
    assertPage(await client.get(freshPath), 200);
    const res =
      route.method === 'GET'
        ? await client.get(route.path(id))
        : await client.post(route.path(id), route.fields);
    answers.push([label, res.status, withoutCsrf(res.text)]);
  }
  const [first] = answers;
  assert.ok(first);
  assert.equal(first[1], 404, `${name} with ${first[0]}: ${first[2].slice(0, 400)}`);
  assert.ok(first[2].includes('There is nothing here, or it belongs to another workspace.'), name);
  for (const [label, status, text] of answers) {
    assert.equal(status, first[1], `${name} with ${label}`);
    assert.equal(text, first[2], `${name} with ${label}: the same page`);
  }
  return first[2];
}

/**
 * CSRF: the form posted without a token and with another session's token is each time the
 * 403 "This form has expired" page, with no redirect and no session cookie set.
 */
export async function assertForgeriesRefused(
  client: WebClient,
  path: string,
  fields: Record<string, string | string[]>,
  otherToken: string,
  label = path,
): Promise<void> {
  assert.ok(client.csrfToken, `${label}: the browser holds a token of its own`);
  const forgeries: Array<[string, string | false]> = [
    ['no token', false],
    ['a token of another session', otherToken],
  ];
  for (const [forgery, csrf] of forgeries) {
    const res = await client.post(path, fields, { csrf });
    assertPage(res, 403);
    assert.ok(res.text.includes('This form has expired'), `${label}, ${forgery}: ${res.text.slice(0, 400)}`);
    assert.equal(res.location, null, `${label}, ${forgery}`);
    const setsSession = res.headers.getSetCookie().some((c) => c.startsWith('signet_session='));
    assert.ok(!setsSession, `${label}, ${forgery}: no session`);
  }
}

/**
 * A sign-up post as a browser sees it: an accepted one redirects (post, redirect, get) to
 * "Check your inbox", which this fetches; a refusal is the answer itself.
 */
export async function followSignup(client: WebClient, res: WebResponse): Promise<WebResponse> {
  if (res.status !== 303) return res;
  assert.equal(res.location, '/signup/sent');
  return client.get('/signup/sent');
}

/** `text` as a page's escaping `html` template writes it (to find a sentence in a page). */
export const escaped = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** Each sentence is on the page, escaped as the html template escapes it. */
export function assertSays(text: string, ...sentences: string[]): void {
  for (const sentence of sentences) assert.ok(text.includes(escaped(sentence)), sentence);
}

/** The field editor's add or change form for a draft's signer: a signature at (72, 90), 180 × 40 points. */
export function fieldEditorForm(
  recipient: string,
  more: Record<string, string> = {},
): Record<string, string> {
  return {
    recipient,
    type: 'signature',
    page: '1',
    x: '72',
    y: '90',
    width: '180',
    height: '40',
    required: 'yes',
    label: '',
    maxLength: '',
    ...more,
  };
}

/**
 * "Send the N good rows" on a bulk send's preview page: its hidden fields (the file, its
 * name and SHA-256) posted back, as the page's form posts them; the confirmation's answer.
 */
export function confirmBulkPreview(client: WebClient, templateId: string, preview: WebResponse) {
  const hidden = (name: string) =>
    new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(preview.text)?.[1] ?? '';
  return client.post(`/templates/${templateId}/bulk/send`, {
    fileName: hidden('fileName'),
    sha256: hidden('sha256'),
    data: hidden('data'),
    file: new File([], ''),
  });
}

/** The sentence a page shows beside input `id` (its `{id}-error`), its quotes unescaped, or undefined. */
export function errorBeside(text: string, id: string): string | undefined {
  const match = new RegExp(`<span class="field-error" id="${id}-error">([^<]*)</span>`).exec(text);
  return match?.[1]?.replaceAll('&quot;', '"').replaceAll('&#39;', "'");
}
