// A tiny browser for the web application's tests: a cookie jar over fetch that never
// follows redirects and, like a browser submitting a form, sends the `_csrf` hidden field
// of the last HTML page it fetched with every POST. Also the mails the app queued, read
// the way a person reads them: the sign-up confirmation link is found in the mail's text.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Context } from '../src/context.ts';
import { listMails, type MailView } from '../src/mail/mail.service.ts';

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
}

export interface WebClient {
  get(path: string): Promise<WebResponse>;
  /** A field given as an array is sent once per value, as a repeated form field. */
  post(path: string, fields?: Record<string, string | string[]>, options?: PostOptions): Promise<WebResponse>;
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

  async function send(method: 'GET' | 'POST', path: string, body?: URLSearchParams): Promise<WebResponse> {
    const headers: Record<string, string> = {};
    if (cookies.size) {
      headers.cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    }
    if (options.address) headers['x-forwarded-for'] = options.address;
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
    get: (path) => send('GET', path),
    post(path, fields = {}, postOptions = {}) {
      const form = new URLSearchParams();
      for (const [name, value] of Object.entries(fields)) {
        for (const one of [value].flat()) form.append(name, one);
      }
      const csrf = postOptions.csrf ?? true;
      if (typeof csrf === 'string') form.set('_csrf', csrf);
      else if (csrf && csrfToken !== null) form.set('_csrf', csrfToken);
      return send('POST', path, form);
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
export function assertPage(res: WebResponse, status: number): void {
  assert.equal(res.status, status, res.text.slice(0, 800));
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(res.text, /^<!doctype html>/);
}

/** A 303 to exactly this location. */
export function assertRedirect(res: WebResponse, location: string): void {
  assert.equal(res.status, 303, res.text.slice(0, 800));
  assert.equal(res.location, location);
}
