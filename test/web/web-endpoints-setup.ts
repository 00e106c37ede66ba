// What the webhook-endpoint pages' suites in this folder share (web-endpoints-create,
// web-endpoints-deliveries, web-endpoints-access): the sentences the pages show word for word,
// readers of the pages (field errors, the new secret, the pause banner, the delivery log, a
// delivery's attempts), local receivers closed with their test, accounts whose browsers log in
// from addresses of their own (the app trusts its "proxy", SIGNET_TRUST_PROXY=1, so the
// per-address sign-in limit never trips), the steps of the forms (createOnPage, pressTest)
// and `assertRefused`, which holds a refused form to the API's answer for the same input.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestContext } from 'node:test';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import type { DatabaseKind } from '../../src/db/connect.ts';
import type { Plan } from '../../src/db/schema.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { escapeHtml } from '../../src/ui/html.ts';
import { type ApiEndpoint, allEventTypes, callApi, type Harness, useHarness } from '../support/harness.ts';
import { type Receiver, type ReceiverHandler, startReceiver } from '../support/receiver.ts';
import {
  assertPage,
  assertRedirect,
  createWebClient,
  type WebClient,
  type WebResponse,
} from '../support/web-client.ts';

export type Fields = Record<string, string | string[]>;

export const second = 1000;
export const minute = 60 * second;
export const hour = 60 * minute;
export const password = 'correct horse battery staple';
export const integrations = '/settings/integrations';
export const endpointsPath = '/settings/integrations/endpoints';

// The sentences the pages show for each refusal, word for word.
export const sentences = {
  events: 'Choose between 1 and 5 events.',
  ping: 'ping cannot be subscribed: the Test button sends it.',
  noUrl: 'Enter the URL that receives the webhooks.',
  invalidUrl: 'Enter a full URL, such as https://example.com/webhooks/signet.',
  unsafeUrl:
    'Signet only calls public HTTPS addresses on port 443: local, private and internal addresses, cloud metadata, other ports and plain http are refused.',
  description: 'Use at most 500 characters.',
  limit:
    'This workspace already has 10 webhook endpoints, the most it can have. Delete one you no longer use first.',
  formExpired: 'This form has expired',
};

// ---------------------------------------------------------------------------------------
// Reading pages
// ---------------------------------------------------------------------------------------

export function unescapeHtml(s: string): string {
  return s
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}

/** The form's field carries exactly this sentence, tied to it, and no other field complains. */
export function assertFieldError(text: string, id: string, sentence: string): void {
  assert.ok(
    text.includes(`<span class="field-error" id="${id}-error">${escapeHtml(sentence)}</span>`),
    `no "${sentence}" for #${id}`,
  );
  assert.ok(
    text.includes(`aria-invalid="true" aria-describedby="${id}-error"`),
    `#${id} is not marked invalid`,
  );
  assert.equal(text.match(/class="field-error"/g)?.length, 1, 'more than one field error');
}

export function assertFormNotice(text: string, sentence: string): void {
  assert.ok(
    text.includes(`<div class="notice notice-error" role="alert">${escapeHtml(sentence)}</div>`),
    `no notice "${sentence}"`,
  );
  assert.ok(!text.includes('class="field-error"'), 'a field error beside the notice');
}

export function newSecretOf(text: string): string {
  const secret = /<code id="new-secret">([^<]*)<\/code>/.exec(text)?.[1];
  assert.ok(secret, 'no id="new-secret" on the page');
  return secret;
}

export function createdIdOf(text: string): string {
  const id = /<a href="\/settings\/integrations\/endpoints\/([0-9a-f-]{36})">Open the endpoint<\/a>/.exec(
    text,
  )?.[1];
  assert.ok(id, 'no link to the new endpoint');
  return id;
}

export function inputValue(text: string, id: string): string {
  const tag = new RegExp(`<input id="${id}"[^>]*>`).exec(text)?.[0];
  assert.ok(tag, `no input #${id}`);
  return unescapeHtml(/ value="([^"]*)"/.exec(tag)?.[1] ?? '');
}

export function checkedEvents(text: string): string[] {
  return [...text.matchAll(/<input type="checkbox" name="events" value="([^"]*)" checked>/g)].map(
    (m) => m[1] as string,
  );
}

/** The pause banner(s) on a page. */
export function bannersOf(text: string): string[] {
  return [
    ...text.matchAll(/<div class="notice notice-error" role="alert">\n<p><strong>[\s\S]*?<\/div>/g),
  ].map((m) => m[0]);
}

export interface LogRow {
  deliveryId: string;
  eventType: string;
  state: string;
  /** Each attempt's status code (or error class), in order. */
  attempts: string[];
}

/** The rows of an endpoint page's delivery log, in page order. */
export function logRows(text: string): LogRow[] {
  const tbody = /<table>[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(text)?.[1];
  assert.ok(tbody !== undefined, 'no delivery log table');
  return tbody
    .split('<tr>')
    .slice(1)
    .map((row) => {
      const cells = [...row.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((m) => m[1] as string);
      const deliveryId = /\/deliveries\/([0-9a-f-]{36})"/.exec(cells[0] ?? '')?.[1];
      const eventType = /<code>([^<]*)<\/code>/.exec(cells[1] ?? '')?.[1];
      assert.ok(deliveryId && eventType, `unreadable log row: ${row}`);
      return {
        deliveryId,
        eventType,
        state: (cells[2] ?? '').replaceAll(/<[^>]*>/g, '').trim(),
        attempts: [...(cells[3] ?? '').matchAll(/<strong>([^<]*)<\/strong>/g)].map((m) => m[1] as string),
      };
    });
}

export function pagerLink(text: string, label: string): string | null {
  const nav = /<nav class="pager"[^>]*>([\s\S]*?)<\/nav>/.exec(text)?.[1];
  assert.ok(nav !== undefined, 'no pager');
  const href = new RegExp(`<a href="([^"]*)">${label}</a>`).exec(nav)?.[1];
  return href === undefined ? null : unescapeHtml(href).replace(/#.*$/, '');
}

export interface ShownAttempt {
  attempt: number;
  heading: string;
  headers: Map<string, string>;
}

/** A delivery page's attempts, each with the request headers it shows. */
export function shownAttempts(text: string): ShownAttempt[] {
  return [
    ...text.matchAll(
      /<h2 id="attempt-(\d+)">([^<]*)<\/h2>\n<p class="small muted">.*<\/p>\n<pre class="shell" dir="ltr">([^<]*)<\/pre>/g,
    ),
  ].map((m) => ({
    attempt: Number(m[1]),
    heading: unescapeHtml(m[2] as string),
    headers: new Map(
      unescapeHtml(m[3] as string)
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const colon = line.indexOf(': ');
          return [line.slice(0, colon), line.slice(colon + 2)] as [string, string];
        }),
    ),
  }));
}

/** `2026-03-01 12:00 UTC`: how pages show a time. */
export function shownMinute(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

// ---------------------------------------------------------------------------------------
// Webhooks
// ---------------------------------------------------------------------------------------

export const answer =
  (status: number, body = ''): ReceiverHandler =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'text/plain' });
    response.end(body);
  };

/** A receiver closed when the test ends. */
export async function receiverFor(
  t: TestContext,
  handler: ReceiverHandler = answer(200, 'ok'),
): Promise<Receiver> {
  const receiver = await startReceiver(handler);
  t.after(() => receiver.close());
  return receiver;
}

export function endpointPath(id: string): string {
  return `${endpointsPath}/${id}`;
}

// ---------------------------------------------------------------------------------------
// Accounts
// ---------------------------------------------------------------------------------------

export interface Member {
  email: string;
  workspaceId: string;
  apiKey: string;
  browser: WebClient;
}

let accountCount = 0;
let browserCount = 0;

/** A browser of its own address, logged in through the log-in form. */
export async function logIn(h: Harness, email: string): Promise<WebClient> {
  browserCount++;
  const browser = createWebClient(h.baseUrl, { address: `10.9.${browserCount >> 8}.${browserCount & 255}` });
  assertPage(await browser.get('/login'), 200);
  const res = await browser.post('/login', { email, password, next: integrations });
  assertRedirect(res, integrations);
  assert.ok(browser.cookies.has('signet_session'), 'no session cookie');
  return browser;
}

/** An owner of a new workspace (Max by default) with an API key, not logged in yet. */
export async function newAccount(h: Harness, plan: Plan = 'max'): Promise<Omit<Member, 'browser'>> {
  accountCount++;
  const email = `endpoints-${accountCount}-${randomUUID().slice(0, 8)}@example.com`;
  const { workspaceId } = await createAccount(h.ctx, {
    email,
    password,
    workspaceName: `Endpoints ${accountCount}`,
    plan,
  });
  const key = await createApiKey(h.ctx, { workspaceId, name: 'endpoint pages test' });
  return { email, workspaceId, apiKey: key.secret };
}

export async function newMember(h: Harness, plan: Plan = 'max'): Promise<Member> {
  const account = await newAccount(h, plan);
  return { ...account, browser: await logIn(h, account.email) };
}

export async function endpointsOf(h: Harness, member: Pick<Member, 'apiKey'>): Promise<ApiEndpoint[]> {
  const res = await callApi(h, 'GET', '/v1/webhook-endpoints', { key: member.apiKey });
  assert.equal(res.status, 200, res.text);
  return res.body.data as ApiEndpoint[];
}

export async function endpointOf(
  h: Harness,
  member: Pick<Member, 'apiKey'>,
  id: string,
): Promise<ApiEndpoint> {
  const res = await callApi(h, 'GET', `/v1/webhook-endpoints/${id}`, { key: member.apiKey });
  assert.equal(res.status, 200, res.text);
  return res.body.data as ApiEndpoint;
}

/** The signing secrets stored for an endpoint (the current one, and the previous during an overlap). */
export async function storedSecrets(h: Harness, id: string) {
  return h.ctx.db
    .selectFrom('webhook_endpoints')
    .select(['secret', 'previous_secret'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

/** Creates an endpoint through the integrations page; its id and the secret shown. */
export async function createOnPage(
  member: Member,
  fields: { url: string; events: string[]; description?: string },
): Promise<{ id: string; secret: string; url: string }> {
  assertPage(await member.browser.get(integrations), 200);
  assertRedirect(await member.browser.post(endpointsPath, fields), `${integrations}?done=endpoint-created`);
  const res = await member.browser.get(`${integrations}?done=endpoint-created`);
  assertPage(res, 200, 'created');
  return { id: createdIdOf(res.text), secret: newSecretOf(res.text), url: new URL(fields.url).href };
}

/**
 * Presses Test: the post redirects to the endpoint's page naming the ping, which shows its
 * outcome read back from the delivery; a reload of that page sends nothing more.
 */
export async function pressTest(member: Member, endpointId: string): Promise<WebResponse> {
  const res = await member.browser.post(`${endpointPath(endpointId)}/test`);
  assert.equal(res.status, 303, res.text.slice(0, 300));
  assert.match(res.location ?? '', new RegExp(`^${endpointPath(endpointId)}\\?ping=[0-9a-f-]{36}$`));
  const page = await member.browser.get(res.location as string);
  assertPage(page, 200, 'after Test');
  return page;
}

/** The JSON body the API gets for the same form input. */
export function apiBodyOf(fields: Fields): Record<string, unknown> {
  const description = typeof fields.description === 'string' ? fields.description : '';
  return {
    url: typeof fields.url === 'string' ? fields.url : '',
    events: fields.events === undefined ? [] : [fields.events].flat(),
    ...(description ? { description } : {}),
  };
}

export interface Refusal {
  fields: Fields;
  status: number;
  /** The field the sentence stands next to, or `form` for a notice above the form. */
  field: 'url' | 'events' | 'description' | 'form';
  sentence: string;
  api: { status: number; code: string };
}

/**
 * The integrations page refuses the form with `status` and the sentence, keeps what was
 * typed, creates nothing; the API refuses the same input with the corresponding code.
 */
export async function assertRefused(h: Harness, member: Member, refusal: Refusal): Promise<void> {
  const before = await endpointsOf(h, member);
  assertPage(await member.browser.get(integrations), 200);
  const res = await member.browser.post(endpointsPath, refusal.fields);
  assertPage(res, refusal.status, 'create');
  if (refusal.field === 'form') assertFormNotice(res.text, refusal.sentence);
  else assertFieldError(res.text, `new-endpoint-${refusal.field}`, refusal.sentence);
  assert.ok(!res.text.includes('id="new-secret"'), 'a secret on a refused form');
  assert.equal(inputValue(res.text, 'new-endpoint-url'), refusal.fields.url ?? '');
  const eventOrder: readonly string[] = allEventTypes;
  const typed = [refusal.fields.events ?? []].flat().filter((e) => eventOrder.includes(e));
  assert.deepEqual(
    checkedEvents(res.text),
    [...new Set(typed)].sort((a, b) => eventOrder.indexOf(a) - eventOrder.indexOf(b)),
  );
  assert.deepEqual(await endpointsOf(h, member), before, 'the page created an endpoint');

  const api = await callApi(h, 'POST', '/v1/webhook-endpoints', {
    key: member.apiKey,
    body: apiBodyOf(refusal.fields),
  });
  // A refused body also names the member at fault (`pointer`); the form and the API agree on which.
  const { pointer, ...envelope } = api.body as { pointer?: string };
  assert.deepEqual(
    [api.status, envelope],
    [refusal.api.status, { ok: false, error: refusal.api.code }],
    api.text,
  );
  if (refusal.api.code === 'invalid-body') assert.ok(pointer?.startsWith(`/${refusal.field}`), api.text);
  assert.deepEqual(await endpointsOf(h, member), before, 'the API created an endpoint');
}

/**
 * The enclosing suite's harness (local receivers allowed: SIGNET_WEBHOOK_ALLOW_UNSAFE=1), and
 * `refusalMember`: one member for the refusals (each test checks that it creates nothing).
 */
export function useEndpointPages(kind: DatabaseKind) {
  const h = useHarness(kind, { env: { SIGNET_WEBHOOK_ALLOW_UNSAFE: '1', SIGNET_TRUST_PROXY: '1' } });

  let shared: Promise<Member> | undefined;
  /** One member for the refusals (each test checks that it creates nothing). */
  const refusalMember = () => {
    shared ??= newMember(h);
    return shared;
  };

  return { h, refusalMember };
}
