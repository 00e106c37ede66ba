// The webhook-endpoint pages of the web application (src/web/endpoints.pages.ts) over real
// HTTP, as a browser submits their forms: creation with the signing secret shown once,
// validation in sentences next to the API's error codes for the same input, editing, the
// Test button, the pause banner and the switch, the delivery log and a delivery's exact
// request, deletion, what a member of another workspace gets, and CSRF on every form.
//
// Receivers are local HTTP servers (SIGNET_WEBHOOK_ALLOW_UNSAFE=1; a second harness runs
// without it for the destination rules). Deliveries go through the real path (deliverDue,
// sendPing) with the test clock. The app trusts its "proxy" here (SIGNET_TRUST_PROXY=1) and
// each browser sends its own X-Forwarded-For, so the per-address sign-in limit never trips.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, type TestContext, test } from 'node:test';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import type { Plan } from '../../src/db/schema.ts';
import { triggerEvent } from '../../src/demo/trigger.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { escapeHtml } from '../../src/ui/html.ts';
import { listEndpointDeliveries, sendPing } from '../../src/webhooks/deliveries.service.ts';
import { deliverDue } from '../../src/webhooks/dispatcher.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.service.ts';
import {
  type ApiEndpoint,
  allEventTypes,
  callApi,
  describeEachDatabase,
  type Harness,
  useHarness,
} from '../support/harness.ts';
import {
  header,
  type ReceivedRequest,
  type Receiver,
  type ReceiverHandler,
  startReceiver,
  verifySignature,
} from '../support/receiver.ts';
import {
  assertPage,
  assertRedirect,
  createWebClient,
  type PostOptions,
  type WebClient,
  type WebResponse,
  withoutCsrf,
} from '../support/web-client.ts';

type Fields = Record<string, string | string[]>;

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const password = 'correct horse battery staple';
const integrations = '/settings/integrations';
const endpointsPath = '/settings/integrations/endpoints';

// The sentences the pages show for each refusal, word for word.
const sentences = {
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

function unescapeHtml(s: string): string {
  return s
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}

/** The form's field carries exactly this sentence, tied to it, and no other field complains. */
function assertFieldError(text: string, id: string, sentence: string): void {
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

function assertFormNotice(text: string, sentence: string): void {
  assert.ok(
    text.includes(`<div class="notice notice-error" role="alert">${escapeHtml(sentence)}</div>`),
    `no notice "${sentence}"`,
  );
  assert.ok(!text.includes('class="field-error"'), 'a field error beside the notice');
}

function newSecretOf(text: string): string {
  const secret = /<code id="new-secret">([^<]*)<\/code>/.exec(text)?.[1];
  assert.ok(secret, 'no id="new-secret" on the page');
  return secret;
}

function createdIdOf(text: string): string {
  const id = /<a href="\/settings\/integrations\/endpoints\/([0-9a-f-]{36})">Open the endpoint<\/a>/.exec(
    text,
  )?.[1];
  assert.ok(id, 'no link to the new endpoint');
  return id;
}

function inputValue(text: string, id: string): string {
  const tag = new RegExp(`<input id="${id}"[^>]*>`).exec(text)?.[0];
  assert.ok(tag, `no input #${id}`);
  return unescapeHtml(/ value="([^"]*)"/.exec(tag)?.[1] ?? '');
}

function checkedEvents(text: string): string[] {
  return [...text.matchAll(/<input type="checkbox" name="events" value="([^"]*)" checked>/g)].map(
    (m) => m[1] as string,
  );
}

/** The pause banner(s) on a page. */
function bannersOf(text: string): string[] {
  return [
    ...text.matchAll(/<div class="notice notice-error" role="alert">\n<p><strong>[\s\S]*?<\/div>/g),
  ].map((m) => m[0]);
}

interface LogRow {
  deliveryId: string;
  eventType: string;
  state: string;
  /** Each attempt's status code (or error class), in order. */
  attempts: string[];
}

/** The rows of an endpoint page's delivery log, in page order. */
function logRows(text: string): LogRow[] {
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

function pagerLink(text: string, label: string): string | null {
  const nav = /<nav class="pager"[^>]*>([\s\S]*?)<\/nav>/.exec(text)?.[1];
  assert.ok(nav !== undefined, 'no pager');
  const href = new RegExp(`<a href="([^"]*)">${label}</a>`).exec(nav)?.[1];
  return href === undefined ? null : unescapeHtml(href).replace(/#.*$/, '');
}

interface ShownAttempt {
  attempt: number;
  heading: string;
  headers: Map<string, string>;
}

/** A delivery page's attempts, each with the request headers it shows. */
function shownAttempts(text: string): ShownAttempt[] {
  return [
    ...text.matchAll(
      /<h2 id="attempt-(\d+)">([^<]*)<\/h2>\n<p class="small muted">[^<]*<\/p>\n<pre class="shell">([^<]*)<\/pre>/g,
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
function shownMinute(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

// ---------------------------------------------------------------------------------------
// Webhooks
// ---------------------------------------------------------------------------------------

const answer =
  (status: number, body = ''): ReceiverHandler =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'text/plain' });
    response.end(body);
  };

/** A receiver closed when the test ends. */
async function receiverFor(t: TestContext, handler: ReceiverHandler = answer(200, 'ok')): Promise<Receiver> {
  const receiver = await startReceiver(handler);
  t.after(() => receiver.close());
  return receiver;
}

function endpointPath(id: string): string {
  return `${endpointsPath}/${id}`;
}

// ---------------------------------------------------------------------------------------
// Accounts
// ---------------------------------------------------------------------------------------

interface Member {
  email: string;
  workspaceId: string;
  apiKey: string;
  browser: WebClient;
}

let accountCount = 0;
let browserCount = 0;

/** A browser of its own address, logged in through the log-in form. */
async function logIn(h: Harness, email: string): Promise<WebClient> {
  browserCount++;
  const browser = createWebClient(h.baseUrl, { address: `10.9.${browserCount >> 8}.${browserCount & 255}` });
  assertPage(await browser.get('/login'), 200);
  const res = await browser.post('/login', { email, password, next: integrations });
  assertRedirect(res, integrations);
  assert.ok(browser.cookies.has('signet_session'), 'no session cookie');
  return browser;
}

/** An owner of a new workspace (Max by default) with an API key, not logged in yet. */
async function newAccount(h: Harness, plan: Plan = 'max'): Promise<Omit<Member, 'browser'>> {
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

async function newMember(h: Harness, plan: Plan = 'max'): Promise<Member> {
  const account = await newAccount(h, plan);
  return { ...account, browser: await logIn(h, account.email) };
}

async function endpointsOf(h: Harness, member: Pick<Member, 'apiKey'>): Promise<ApiEndpoint[]> {
  const res = await callApi(h, 'GET', '/v1/webhook-endpoints', { key: member.apiKey });
  assert.equal(res.status, 200, res.text);
  return res.body.data as ApiEndpoint[];
}

async function endpointOf(h: Harness, member: Pick<Member, 'apiKey'>, id: string): Promise<ApiEndpoint> {
  const res = await callApi(h, 'GET', `/v1/webhook-endpoints/${id}`, { key: member.apiKey });
  assert.equal(res.status, 200, res.text);
  return res.body.data as ApiEndpoint;
}

/** The signing secrets stored for an endpoint (the current one, and the previous during an overlap). */
async function storedSecrets(h: Harness, id: string) {
  return h.ctx.db
    .selectFrom('webhook_endpoints')
    .select(['secret', 'previous_secret'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

/** Creates an endpoint through the integrations page; its id and the secret shown. */
async function createOnPage(
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
async function pressTest(member: Member, endpointId: string): Promise<WebResponse> {
  const res = await member.browser.post(`${endpointPath(endpointId)}/test`);
  assert.equal(res.status, 303, res.text.slice(0, 300));
  assert.match(res.location ?? '', new RegExp(`^${endpointPath(endpointId)}\\?ping=[0-9a-f-]{36}$`));
  const page = await member.browser.get(res.location as string);
  assertPage(page, 200, 'after Test');
  return page;
}

/** The JSON body the API gets for the same form input. */
function apiBodyOf(fields: Fields): Record<string, unknown> {
  const description = typeof fields.description === 'string' ? fields.description : '';
  return {
    url: typeof fields.url === 'string' ? fields.url : '',
    events: fields.events === undefined ? [] : [fields.events].flat(),
    ...(description ? { description } : {}),
  };
}

interface Refusal {
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
async function assertRefused(h: Harness, member: Member, refusal: Refusal): Promise<void> {
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

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

describeEachDatabase('webhook endpoint pages', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_WEBHOOK_ALLOW_UNSAFE: '1', SIGNET_TRUST_PROXY: '1' } });

  let shared: Promise<Member> | undefined;
  /** One member for the refusals (each test checks that it creates nothing). */
  const refusalMember = () => {
    shared ??= newMember(h);
    return shared;
  };

  // --- 1. Create -----------------------------------------------------------------------

  test('creating an endpoint redirects to a page that shows the signing secret once (no-store); a reload and later pages never show it', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    const url = `${receiver.url}/hooks/signet?source=web`;
    assertPage(await m.browser.get(integrations), 200);
    assertRedirect(
      await m.browser.post(endpointsPath, {
        url,
        events: ['document.sent', 'document.completed'],
        description: 'CRM sync',
      }),
      `${integrations}?done=endpoint-created`,
    );
    const res = await m.browser.get(`${integrations}?done=endpoint-created`);
    assertPage(res, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const secret = newSecretOf(res.text);
    assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    const id = createdIdOf(res.text);

    const [endpoint] = await endpointsOf(h, m);
    assert.ok(endpoint);
    const { createdAt: _, ...rest } = endpoint;
    assert.deepEqual(rest, {
      id,
      url: new URL(url).href,
      events: ['document.sent', 'document.completed'],
      enabled: true,
      description: 'CRM sync',
      failureCount: 0,
      disabledReason: null,
    });

    for (const path of [`${integrations}?done=endpoint-created`, integrations, endpointPath(id)]) {
      const later = await m.browser.get(path);
      assertPage(later, 200, path);
      assert.ok(later.text.includes(escapeHtml(new URL(url).href)), `${path} does not show the endpoint`);
      assert.ok(!later.text.includes(secret), `${path} shows the secret again`);
      assert.ok(!later.text.includes('id="new-secret"'), `${path} has a secret box`);
    }
  });

  test("rotating the secret on the endpoint's page shows the new one once and until when the old one signs too; deliveries carry both; a reload never shows it", async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    const created = await createOnPage(m, { url: `${receiver.url}/hooks`, events: ['document.sent'] });
    const page = await m.browser.get(endpointPath(created.id));
    assertPage(page, 200);
    assert.ok(page.text.includes('<option value="24" selected>24 hours</option>'), 'the default overlap');

    // A choice the form does not offer: 400 beside the select, nothing rotated.
    const refused = await m.browser.post(`${endpointPath(created.id)}/rotate`, { overlap: '5' });
    assertPage(refused, 400);
    assertFieldError(refused.text, 'overlap', 'Choose how long the old secret keeps working.');

    assertPage(await m.browser.get(endpointPath(created.id)), 200);
    assertRedirect(
      await m.browser.post(`${endpointPath(created.id)}/rotate`, { overlap: '72' }),
      `${endpointPath(created.id)}?done=rotated#secret`,
    );
    const shown = await m.browser.get(`${endpointPath(created.id)}?done=rotated`);
    assertPage(shown, 200);
    assert.equal(shown.headers.get('cache-control'), 'no-store');
    const secret = /<code id="rotated-secret">([^<]*)<\/code>/.exec(shown.text)?.[1];
    assert.ok(secret && secret !== created.secret, 'no new secret on the page');
    assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.ok(shown.text.includes('The signing secret was rotated.'));
    assert.match(
      shown.text,
      /Deliveries carry two signatures, one with the new secret and one with the previous, until <strong>/,
    );

    const ping = await sendPing(h.ctx, m.workspaceId, created.id);
    assert.equal(ping.ok, true);
    const request = receiver.requests.at(-1) as ReceivedRequest;
    const signature = header(request, 'x-service-signature');
    assert.ok(verifySignature(secret, signature, request.body), 'the new secret');
    assert.ok(verifySignature(created.secret, signature, request.body), 'the old secret, during the overlap');

    const again = await m.browser.get(`${endpointPath(created.id)}?done=rotated`);
    assertPage(again, 200);
    assert.ok(!again.text.includes(secret), 'a reload shows the secret again');
    assert.ok(!again.text.includes('id="rotated-secret"'));

    // After three days the page no longer speaks of two signatures, and only the new one signs.
    h.clock.advance(72 * hour);
    const later = await m.browser.get(endpointPath(created.id));
    assert.ok(!later.text.includes('Deliveries carry two signatures'));
    await sendPing(h.ctx, m.workspaceId, created.id);
    const last = receiver.requests.at(-1) as ReceivedRequest;
    assert.ok(verifySignature(secret, header(last, 'x-service-signature'), last.body));
    assert.ok(!verifySignature(created.secret, header(last, 'x-service-signature'), last.body));
  });

  // --- 2. Validation -------------------------------------------------------------------

  test('no events: 400 "Choose between 1 and 5 events.", nothing created; the API answers invalid-body', async (t) => {
    const receiver = await receiverFor(t);
    await assertRefused(h, await refusalMember(), {
      fields: { url: `${receiver.url}/hook`, description: 'no events' },
      status: 400,
      field: 'events',
      sentence: sentences.events,
      api: { status: 400, code: 'invalid-body' },
    });
  });

  test('six events (all six types, or five and a duplicate): 400 "Choose between 1 and 5 events.", nothing created; the API answers invalid-body', async (t) => {
    const receiver = await receiverFor(t);
    const m = await refusalMember();
    for (const events of [allEventTypes, [...allEventTypes.slice(0, 5), 'document.sent']]) {
      await assertRefused(h, m, {
        fields: { url: `${receiver.url}/hook`, events },
        status: 400,
        field: 'events',
        sentence: sentences.events,
        api: { status: 400, code: 'invalid-body' },
      });
    }
  });

  test('ping as an event: 400 "ping cannot be subscribed", nothing created; the API answers invalid-body', async (t) => {
    const receiver = await receiverFor(t);
    const m = await refusalMember();
    for (const events of [['ping'], ['document.sent', 'ping']]) {
      await assertRefused(h, m, {
        fields: { url: `${receiver.url}/hook`, events },
        status: 400,
        field: 'events',
        sentence: sentences.ping,
        api: { status: 400, code: 'invalid-body' },
      });
    }
  });

  test('a URL that is not a URL: 400 with the invalid-url sentence, nothing created; the API answers invalid-url', async () => {
    const m = await refusalMember();
    for (const url of ['not a url', 'hooks.example.com/signet', 'https://']) {
      await assertRefused(h, m, {
        fields: { url, events: ['document.signed'] },
        status: 400,
        field: 'url',
        sentence: sentences.invalidUrl,
        api: { status: 400, code: 'invalid-url' },
      });
    }
  });

  test('an empty URL: 400 "Enter the URL that receives the webhooks.", nothing created; the API answers invalid-url', async () => {
    await assertRefused(h, await refusalMember(), {
      fields: { url: '', events: ['document.signed'] },
      status: 400,
      field: 'url',
      sentence: sentences.noUrl,
      api: { status: 400, code: 'invalid-url' },
    });
  });

  test('a description over 500 characters: 400 "Use at most 500 characters.", nothing created; the API answers invalid-body; 500 is accepted', async (t) => {
    const receiver = await receiverFor(t);
    const m = await refusalMember();
    await assertRefused(h, m, {
      fields: { url: `${receiver.url}/hook`, events: ['document.sent'], description: 'd'.repeat(501) },
      status: 400,
      field: 'description',
      sentence: sentences.description,
      api: { status: 400, code: 'invalid-body' },
    });
    const created = await createOnPage(m, {
      url: `${receiver.url}/hook`,
      events: ['document.sent'],
      description: 'd'.repeat(500),
    });
    assert.equal((await endpointOf(h, m, created.id)).description, 'd'.repeat(500));
  });

  test('the 11th endpoint: 409 with the limit sentence, nothing created; the API answers 409 limit-reached', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    for (let i = 0; i < 10; i++) {
      await createEndpoint(h.ctx, m.workspaceId, {
        url: `${receiver.url}/hook-${i}`,
        events: ['document.sent'],
      });
    }
    assert.match((await m.browser.get(integrations)).text, /10 of 10/);
    await assertRefused(h, m, {
      fields: { url: `${receiver.url}/hook-10`, events: ['document.sent'], description: 'one too many' },
      status: 409,
      field: 'form',
      sentence: sentences.limit,
      api: { status: 409, code: 'limit-reached' },
    });
    assert.equal((await endpointsOf(h, m)).length, 10);
  });

  // --- 3. Edit -------------------------------------------------------------------------

  test('editing changes the URL, the events and the description (the API shows the change); an empty description removes it', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    const created = await createOnPage(m, {
      url: `${receiver.url}/old`,
      events: ['document.sent'],
      description: 'before',
    });
    const page = await m.browser.get(endpointPath(created.id));
    assertPage(page, 200);
    assert.equal(inputValue(page.text, 'endpoint-url'), created.url);
    assert.deepEqual(checkedEvents(page.text), ['document.sent']);
    assert.equal(inputValue(page.text, 'endpoint-description'), 'before');

    const newUrl = `${receiver.url}/new?tenant=42&v=2`;
    const events = ['document.signed', 'document.declined', 'document.expired'];
    const saved = await m.browser.post(endpointPath(created.id), {
      url: newUrl,
      events,
      description: 'after',
    });
    assertRedirect(saved, `${endpointPath(created.id)}?done=saved`);
    const changed = await endpointOf(h, m, created.id);
    assert.deepEqual(
      [changed.url, changed.events, changed.description],
      [new URL(newUrl).href, events, 'after'],
    );
    assert.equal(changed.enabled, true);

    const after = await m.browser.get(saved.location as string);
    assertPage(after, 200);
    assert.ok(after.text.includes('Your changes were saved.'));
    assert.equal(inputValue(after.text, 'endpoint-url'), new URL(newUrl).href);
    assert.deepEqual(checkedEvents(after.text), events);

    assertRedirect(
      await m.browser.post(endpointPath(created.id), {
        url: newUrl,
        events: ['document.completed'],
        description: '',
      }),
      `${endpointPath(created.id)}?done=saved`,
    );
    const cleared = await endpointOf(h, m, created.id);
    assert.deepEqual([cleared.events, cleared.description], [['document.completed'], null]);
  });

  test('an invalid edit re-renders the endpoint page with 400 and the sentence, and changes nothing', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    const created = await createOnPage(m, {
      url: `${receiver.url}/kept`,
      events: ['document.sent', 'document.signed'],
      description: 'kept',
    });
    const before = await endpointOf(h, m, created.id);
    const moved = `${receiver.url}/moved`;
    const cases: Array<{ fields: Fields; field: 'url' | 'events' | 'description'; sentence: string }> = [
      { fields: { url: moved, description: 'x' }, field: 'events', sentence: sentences.events },
      { fields: { url: moved, events: allEventTypes }, field: 'events', sentence: sentences.events },
      {
        fields: { url: moved, events: ['document.sent', 'ping'] },
        field: 'events',
        sentence: sentences.ping,
      },
      {
        fields: { url: 'not a url', events: ['document.opened'] },
        field: 'url',
        sentence: sentences.invalidUrl,
      },
      { fields: { url: '', events: ['document.opened'] }, field: 'url', sentence: sentences.noUrl },
      {
        fields: { url: moved, events: ['document.opened'], description: 'x'.repeat(501) },
        field: 'description',
        sentence: sentences.description,
      },
    ];
    for (const c of cases) {
      assertPage(await m.browser.get(endpointPath(created.id)), 200);
      const res = await m.browser.post(endpointPath(created.id), c.fields);
      assertPage(res, 400, JSON.stringify(c.fields).slice(0, 100));
      assertFieldError(res.text, `endpoint-${c.field}`, c.sentence);
      assert.equal(inputValue(res.text, 'endpoint-url'), c.fields.url);
      assert.ok(
        res.text.includes(`<h1 class="url-title">${escapeHtml(created.url)}</h1>`),
        'the title changed',
      );
      assert.deepEqual(await endpointOf(h, m, created.id), before, 'a refused edit changed the endpoint');
    }
  });

  // --- 4. Test button ------------------------------------------------------------------

  test('the Test button sends one ping signed with the secret and shows "delivered: HTTP 200", or the failure; the log lists both pings with their status codes', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t, answer(200, 'pong'));
    const created = await createOnPage(m, { url: `${receiver.url}/hook`, events: ['document.completed'] });
    assertPage(await m.browser.get(endpointPath(created.id)), 200);

    const delivered = await pressTest(m, created.id);
    assert.match(
      delivered.text,
      /<div class="notice notice-success" role="status">The ping was delivered: HTTP 200 in \d+ ms\.<\/div>/,
    );
    assert.equal(receiver.requests.length, 1);
    const ping = receiver.requests[0] as ReceivedRequest;
    assert.equal(ping.method, 'POST');
    assert.equal(ping.url, '/hook');
    assert.equal(header(ping, 'x-service-event'), 'ping');
    assert.equal(JSON.parse(ping.body).type, 'ping');
    const signature = header(ping, 'x-service-signature');
    assert.ok(verifySignature(created.secret, signature, ping.body), `${signature} does not verify`);
    assert.equal(verifySignature(created.secret, signature, `${ping.body} `), false);

    h.clock.advance(minute);
    receiver.setHandler(answer(503, 'maintenance'));
    const failed = await pressTest(m, created.id);
    assert.match(
      failed.text,
      /<div class="notice notice-error" role="alert">The ping failed: http-status \(HTTP 503\) after \d+ ms\.<\/div>/,
    );
    assert.equal(receiver.requests.length, 2);
    const failedPing = receiver.requests[1] as ReceivedRequest;
    assert.ok(verifySignature(created.secret, header(failedPing, 'x-service-signature'), failedPing.body));

    const log = logRows((await m.browser.get(endpointPath(created.id))).text);
    assert.deepEqual(log, [
      {
        deliveryId: header(failedPing, 'x-service-delivery-id'),
        eventType: 'ping',
        state: 'ping failed',
        attempts: ['503'],
      },
      {
        deliveryId: header(ping, 'x-service-delivery-id'),
        eventType: 'ping',
        state: 'ping delivered',
        attempts: ['200'],
      },
    ]);
    // A ping never counts towards the pause.
    assert.equal((await endpointOf(h, m, created.id)).failureCount, 0);
  });

  // --- 5. Pause banner and switch ------------------------------------------------------

  test('20 consecutive failures pause the endpoint: both pages show the banner; turning it back on clears the failure count and the banner', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t, answer(500, 'down'));
    const created = await createOnPage(m, { url: `${receiver.url}/hook`, events: ['document.sent'] });
    for (let i = 0; i < 19; i++) await triggerEvent(h.ctx, m.workspaceId, 'document.sent');
    await deliverDue(h.ctx);
    assert.equal(receiver.requests.length, 19);
    assert.deepEqual(
      await endpointOf(h, m, created.id).then((e) => [e.enabled, e.failureCount, e.disabledReason]),
      [true, 19, null],
    );
    assert.deepEqual(bannersOf((await m.browser.get(integrations)).text), [], 'a banner before the pause');

    h.clock.advance(second);
    const pausedAt = h.clock.now().toISOString();
    await triggerEvent(h.ctx, m.workspaceId, 'document.sent');
    await deliverDue(h.ctx);
    assert.equal(receiver.requests.length, 20);
    assert.deepEqual(
      await endpointOf(h, m, created.id).then((e) => [e.enabled, e.failureCount, e.disabledReason]),
      [false, 20, 'failures'],
    );

    // Every other page of the workspace carries the banner too, and the owners got one mail.
    for (const path of ['/documents', '/documents/new', '/settings/account']) {
      const page = await m.browser.get(path);
      assertPage(page, 200, path);
      const [banner, ...more] = bannersOf(page.text);
      assert.equal(more.length, 0, path);
      assert.ok(
        banner?.includes(`<strong>${escapeHtml(created.url)} is paused.</strong>`),
        `${path}: ${banner}`,
      );
    }
    const owners = await h.ctx.db
      .selectFrom('mails')
      .select(['to_address', 'subject'])
      .where('workspace_id', '=', m.workspaceId)
      .where('subject', 'like', 'Webhook endpoint paused:%')
      .execute();
    assert.equal(owners.length, 1, 'one mail to the owner');
    assert.equal(owners[0]?.subject, `Webhook endpoint paused: ${created.url}`);

    const pages = { integrations, endpoint: endpointPath(created.id) };
    for (const [name, path] of Object.entries(pages)) {
      const page = await m.browser.get(path);
      assertPage(page, 200, path);
      const banners = bannersOf(page.text);
      assert.equal(banners.length, 1, `${name} page: banners ${banners.length}`);
      const banner = banners[0] as string;
      assert.ok(banner.includes(`<strong>${escapeHtml(created.url)} is paused.</strong>`), banner);
      assert.ok(
        banner.includes(
          `switched it off on ${shownMinute(pausedAt)} after 20 consecutive failed deliveries.`,
        ),
        banner,
      );
      assert.ok(banner.includes('Events that happened while it was paused are not sent later'), banner);
      assert.ok(banner.includes('<code>GET /v1/documents</code>'), banner);
      assert.ok(
        banner.includes(`action="${endpointPath(created.id)}/enabled"`) &&
          banner.includes('<input type="hidden" name="enabled" value="true">'),
        'the banner has no switch',
      );
      assert.equal(
        banner.includes(`<a href="${endpointPath(created.id)}">See its deliveries</a>`),
        name === 'integrations',
      );
      assert.ok(
        page.text.includes('<span class="badge badge-danger">Paused</span>'),
        `${name}: no Paused badge`,
      );
    }

    assertPage(await m.browser.get(endpointPath(created.id)), 200);
    const on = await m.browser.post(`${endpointPath(created.id)}/enabled`, { enabled: 'true' });
    assertRedirect(on, `${endpointPath(created.id)}?done=enabled`);
    const reenabled = await endpointOf(h, m, created.id);
    assert.deepEqual([reenabled.enabled, reenabled.failureCount, reenabled.disabledReason], [true, 0, null]);
    const onPage = await m.browser.get(on.location as string);
    assertPage(onPage, 200);
    assert.ok(onPage.text.includes('The endpoint is on again; its failure count is back to 0.'));
    assert.ok(onPage.text.includes('<p>0 consecutive failures'));
    assert.deepEqual(bannersOf((await m.browser.get('/documents')).text), [], 'the banner left every page');
    for (const page of [onPage, await m.browser.get(integrations)]) {
      assert.deepEqual(bannersOf(page.text), [], 'the banner is still there');
      assert.ok(!page.text.includes('is paused.'));
      assert.ok(page.text.includes('<span class="badge badge-success">Enabled</span>'));
    }

    // Back on: the next event is delivered; the ones missed while paused are not replayed.
    receiver.setHandler(answer(200));
    const { eventId } = await triggerEvent(h.ctx, m.workspaceId, 'document.sent');
    await deliverDue(h.ctx);
    assert.equal(receiver.requests.length, 21);
    assert.equal(JSON.parse((receiver.requests[20] as ReceivedRequest).body).id, eventId);
  });

  test('the switch turns an endpoint off without a pause banner, and on again', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    const created = await createOnPage(m, { url: `${receiver.url}/hook`, events: ['document.sent'] });
    const page = await m.browser.get(endpointPath(created.id));
    assert.ok(page.text.includes('<input type="hidden" name="enabled" value="false">'), 'no Turn off switch');
    const off = await m.browser.post(`${endpointPath(created.id)}/enabled`, { enabled: 'false' });
    assertRedirect(off, `${endpointPath(created.id)}?done=disabled`);
    const disabled = await endpointOf(h, m, created.id);
    assert.deepEqual([disabled.enabled, disabled.failureCount, disabled.disabledReason], [false, 0, null]);

    const offPage = await m.browser.get(off.location as string);
    assertPage(offPage, 200);
    assert.ok(offPage.text.includes('The endpoint is off: nothing is sent to it until you turn it back on.'));
    for (const shown of [offPage, await m.browser.get(integrations)]) {
      assert.deepEqual(bannersOf(shown.text), [], 'a pause banner for an endpoint switched off by hand');
      assert.ok(!shown.text.includes('is paused.'));
      assert.ok(shown.text.includes('<span class="badge badge-neutral">Disabled</span>'));
    }
    // Nothing is sent to it while it is off.
    await triggerEvent(h.ctx, m.workspaceId, 'document.sent');
    await deliverDue(h.ctx);
    assert.equal(receiver.requests.length, 0);

    assert.ok(
      offPage.text.includes('<input type="hidden" name="enabled" value="true">'),
      'no Turn on switch',
    );
    assertRedirect(
      await m.browser.post(`${endpointPath(created.id)}/enabled`, { enabled: 'true' }),
      `${endpointPath(created.id)}?done=enabled`,
    );
    assert.equal((await endpointOf(h, m, created.id)).enabled, true);
  });

  // --- 6. Delivery log and delivery view -----------------------------------------------

  test('the delivery log is newest first, 20 a page, and "Older deliveries" leads to the rest with no duplicates and no gaps; the chart caption counts the last 24 hours', async (t) => {
    const account = await newAccount(h);
    const receiver = await receiverFor(t);
    const endpoint = await createEndpoint(h.ctx, account.workspaceId, {
      url: `${receiver.url}/log`,
      events: ['document.sent'],
    });
    // From a whole hour on, so every recent attempt falls in one hour of the chart.
    h.clock.set(new Date(Math.ceil((h.clock.now().getTime() + 1) / hour) * hour));
    const start = h.clock.now().getTime();
    const created: string[] = [];

    // Older than 24 hours: in the log, not in the chart.
    for (const status of [200, 500, 200]) {
      receiver.setHandler(answer(status));
      created.push((await sendPing(h.ctx, account.workspaceId, endpoint.id)).deliveryId);
      h.clock.advance(minute);
    }
    h.clock.set(new Date(start + 30 * hour));
    const recentHour = h.clock.now().toISOString();

    // A document.sent delivered at the second attempt (503, then 200).
    receiver.setHandler(answer(503));
    await triggerEvent(h.ctx, account.workspaceId, 'document.sent');
    await deliverDue(h.ctx);
    h.clock.advance(6 * minute);
    receiver.setHandler(answer(200));
    await deliverDue(h.ctx);
    const eventRequests = receiver.requests.slice(3);
    assert.equal(eventRequests.length, 2);
    const eventDelivery = header(eventRequests[0] as ReceivedRequest, 'x-service-delivery-id');
    assert.equal(header(eventRequests[1] as ReceivedRequest, 'x-service-delivery-id'), eventDelivery);
    created.push(eventDelivery);

    // 22 pings, every third one failing: 14 delivered, 8 failed.
    for (let i = 0; i < 22; i++) {
      h.clock.advance(minute);
      receiver.setHandler(answer(i % 3 === 0 ? 500 : 200));
      created.push((await sendPing(h.ctx, account.workspaceId, endpoint.id)).deliveryId);
    }
    assert.equal(created.length, 26);

    // Logged in only now: a session idles out after 12 hours.
    const browser = await logIn(h, account.email);
    const first = await browser.get(endpointPath(endpoint.id));
    assertPage(first, 200);
    const firstRows = logRows(first.text);
    assert.equal(firstRows.length, 20);
    assert.equal(pagerLink(first.text, 'Newest'), null);
    const older = pagerLink(first.text, 'Older deliveries');
    assert.ok(older, 'no "Older deliveries" link');
    assert.ok(older.startsWith(`${endpointPath(endpoint.id)}?cursor=`), older);

    const secondPage = await browser.get(older);
    assertPage(secondPage, 200);
    const secondRows = logRows(secondPage.text);
    assert.equal(pagerLink(secondPage.text, 'Older deliveries'), null, 'a third page of 26 deliveries');
    assert.equal(pagerLink(secondPage.text, 'Newest'), endpointPath(endpoint.id));
    assert.deepEqual(
      [...firstRows, ...secondRows].map((r) => r.deliveryId),
      created.toReversed(),
      'the log is not every delivery, newest first, once',
    );
    const eventRow = [...firstRows, ...secondRows].find((r) => r.deliveryId === eventDelivery);
    assert.deepEqual(eventRow, {
      deliveryId: eventDelivery,
      eventType: 'document.sent',
      state: 'delivered',
      attempts: ['503', '200'],
    });

    // The chart: only attempts of the last 24 hours, all in one hour.
    for (const page of [first, secondPage]) {
      assert.ok(
        page.text.includes(
          '<figcaption id="chart-caption" class="small muted">Attempts per hour over the last 24 hours: 15 delivered (green), 9 failed (red).</figcaption>',
        ),
        /<figcaption[^>]*>[^<]*<\/figcaption>/.exec(page.text)?.[0],
      );
      const bars = [
        ...page.text.matchAll(/<title>(\d{2}:\d{2}) UTC: (\d+) delivered, (\d+) failed<\/title>/g),
      ];
      assert.equal(bars.length, 24);
      assert.deepEqual(
        bars.filter((b) => b[2] !== '0' || b[3] !== '0').map((b) => b.slice(1)),
        [[recentHour.slice(11, 16), '15', '9']],
      );
    }
  });

  test('deliveries created in the same millisecond are paged with no duplicates and no gaps', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    const created = await createOnPage(m, { url: `${receiver.url}/same-time`, events: ['document.sent'] });
    const ids = new Set<string>();
    for (let i = 0; i < 25; i++) ids.add((await sendPing(h.ctx, m.workspaceId, created.id)).deliveryId);
    const first = await m.browser.get(endpointPath(created.id));
    const firstRows = logRows(first.text);
    const older = pagerLink(first.text, 'Older deliveries');
    assert.ok(older, 'no "Older deliveries" link');
    const secondPage = await m.browser.get(older);
    assertPage(secondPage, 200);
    const secondRows = logRows(secondPage.text);
    assert.deepEqual([firstRows.length, secondRows.length], [20, 5]);
    assert.equal(pagerLink(secondPage.text, 'Older deliveries'), null);
    const shown = [...firstRows, ...secondRows].map((r) => r.deliveryId);
    assert.equal(new Set(shown).size, shown.length, 'a delivery is on both pages');
    assert.deepEqual(new Set(shown), ids);
  });

  test("a delivery's page shows the exact body the receiver got and, for each attempt, the headers it sent with the same X-Service-Signature", async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t, answer(503, 'busy'));
    const created = await createOnPage(m, {
      url: `${receiver.url}/hook?x=<1>&y="2"`,
      events: ['document.sent'],
    });
    await triggerEvent(h.ctx, m.workspaceId, 'document.sent');
    await deliverDue(h.ctx);
    h.clock.advance(6 * minute);
    receiver.setHandler(answer(200, 'thanks'));
    await deliverDue(h.ctx);
    assert.equal(receiver.requests.length, 2);
    const deliveryId = header(receiver.requests[0] as ReceivedRequest, 'x-service-delivery-id');

    const [row] = logRows((await m.browser.get(endpointPath(created.id))).text);
    assert.equal(row?.deliveryId, deliveryId);
    const page = await m.browser.get(`${endpointPath(created.id)}/deliveries/${deliveryId}`);
    assertPage(page, 200);
    const shownBody = /<pre class="shell" id="delivery-body">([^<]*)<\/pre>/.exec(page.text)?.[1];
    assert.ok(shownBody !== undefined, 'no body on the page');
    assert.equal(unescapeHtml(shownBody), (receiver.requests[0] as ReceivedRequest).body);
    assert.equal(unescapeHtml(shownBody), (receiver.requests[1] as ReceivedRequest).body);

    const attempts = shownAttempts(page.text);
    assert.deepEqual(
      attempts.map((a) => a.attempt),
      [1, 2],
    );
    for (const [i, shown] of attempts.entries()) {
      const got = receiver.requests[i] as ReceivedRequest;
      assert.match(shown.heading, i === 0 ? /^Attempt 1: 503 in \d+ ms$/ : /^Attempt 2: 200 in \d+ ms$/);
      assert.ok(shown.headers.has('x-service-signature'), 'no signature shown');
      for (const [name, value] of shown.headers)
        assert.equal(value, header(got, name), `attempt ${i + 1}: ${name}`);
      for (const name of ['content-type', 'user-agent', 'x-service-event', 'x-service-delivery-id']) {
        assert.ok(shown.headers.has(name), `attempt ${i + 1}: ${name} not shown`);
      }
      assert.ok(
        verifySignature(created.secret, shown.headers.get('x-service-signature'), unescapeHtml(shownBody)),
      );
    }
    assert.notEqual(
      attempts[0]?.headers.get('x-service-signature'),
      attempts[1]?.headers.get('x-service-signature'),
    );

    // A ping's page: its one attempt, as the receiver got it.
    await pressTest(m, created.id);
    const pingRequest = receiver.requests[2] as ReceivedRequest;
    const pingPage = await m.browser.get(
      `${endpointPath(created.id)}/deliveries/${header(pingRequest, 'x-service-delivery-id')}`,
    );
    assertPage(pingPage, 200);
    assert.equal(
      unescapeHtml(/<pre class="shell" id="delivery-body">([^<]*)<\/pre>/.exec(pingPage.text)?.[1] ?? ''),
      pingRequest.body,
    );
    const [pingAttempt, ...more] = shownAttempts(pingPage.text);
    assert.equal(more.length, 0);
    assert.equal(pingAttempt?.headers.get('x-service-signature'), header(pingRequest, 'x-service-signature'));
  });

  test('a dropped delivery is resent from its page: the same delivery id, the outcome shown after the redirect, a reload sends nothing', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t, answer(500, 'down'));
    const created = await createOnPage(m, { url: `${receiver.url}/hook`, events: ['document.sent'] });
    await triggerEvent(h.ctx, m.workspaceId, 'document.sent');
    await deliverDue(h.ctx);
    for (const delay of [5 * minute, 30 * minute, 120 * minute]) {
      h.clock.advance(delay);
      await deliverDue(h.ctx);
    }
    const [dropped] = await listEndpointDeliveries(h.ctx, m.workspaceId, created.id);
    assert.equal(dropped?.status, 'dropped');
    const log = await m.browser.get(endpointPath(created.id));
    const deliveryPath = `${endpointPath(created.id)}/deliveries/${dropped?.id}`;
    assert.ok(log.text.includes(`<a href="${deliveryPath}#resend">Resend…</a>`), 'the log offers it');
    const page = await m.browser.get(deliveryPath);
    assert.match(page.text, /<button class="button button-secondary" type="submit">Resend now<\/button>/);
    assert.match(page.text, /as attempt 5\./);

    receiver.setHandler(answer(200, 'thanks'));
    const resent = await m.browser.post(`${deliveryPath}/resend`);
    assertRedirect(resent, `${deliveryPath}?done=resent`);
    for (let reload = 0; reload < 2; reload++) {
      const after = await m.browser.get(`${deliveryPath}?done=resent`);
      assert.match(after.text, /Resent: delivered, HTTP 200 in \d+ ms \(attempt 5\)\./);
      assert.ok(!after.text.includes('Resend now'), 'delivered: nothing left to resend');
    }
    assert.equal(receiver.requests.length, 5, 'one resend, whatever the reloads');
    assert.equal(header(receiver.requests[4] as ReceivedRequest, 'x-service-delivery-id'), dropped?.id);
    const again = await m.browser.post(`${deliveryPath}/resend`);
    assertPage(again, 409);
    assert.match(again.text, /This delivery cannot be resent/);

    const stranger = await newMember(h);
    assertPage(await stranger.browser.get(integrations), 200);
    assertPage(await stranger.browser.post(`${deliveryPath}/resend`), 404);
    assert.equal(receiver.requests.length, 5);
  });

  // --- 7. Delete -----------------------------------------------------------------------

  test('GET …/delete asks for confirmation and deletes nothing; POST deletes the endpoint (the API answers 404) and returns to the integrations page', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    const created = await createOnPage(m, { url: `${receiver.url}/doomed`, events: ['document.sent'] });
    await m.browser.post(`${endpointPath(created.id)}/test`);
    const confirm = await m.browser.get(`${endpointPath(created.id)}/delete`);
    assertPage(confirm, 200);
    assert.ok(confirm.text.includes('<h1>Delete this endpoint?</h1>'));
    assert.ok(confirm.text.includes(`<strong>${escapeHtml(created.url)}</strong>`));
    assert.ok(confirm.text.includes(`<form method="post" action="${endpointPath(created.id)}/delete">`));
    assert.equal((await endpointOf(h, m, created.id)).id, created.id, 'GET deleted the endpoint');

    const deleted = await m.browser.post(`${endpointPath(created.id)}/delete`);
    assertRedirect(deleted, `${integrations}?done=endpoint-deleted`);
    const api = await callApi(h, 'GET', `/v1/webhook-endpoints/${created.id}`, { key: m.apiKey });
    assert.deepEqual([api.status, api.body], [404, { ok: false, error: 'not-found' }]);
    assert.deepEqual(await listEndpointDeliveries(h.ctx, m.workspaceId, created.id), []);

    const list = await m.browser.get(deleted.location as string);
    assertPage(list, 200);
    assert.ok(list.text.includes('The endpoint was deleted with its delivery log.'));
    assert.ok(!list.text.includes(endpointPath(created.id)), 'the deleted endpoint is still listed');
    assertPage(await m.browser.get(endpointPath(created.id)), 404);
  });

  // --- 8. Isolation --------------------------------------------------------------------

  test("every endpoint route answers a member of workspace B the same 404 page for A's endpoint (and delivery), a random UUID or a non-UUID, and leaves A's endpoint alone", async (t) => {
    const a = await newMember(h);
    const b = await newMember(h);
    const receiverA = await receiverFor(t);
    const receiverB = await receiverFor(t);
    const endpointA = await createOnPage(a, { url: `${receiverA.url}/a`, events: ['document.sent'] });
    const endpointB = await createOnPage(b, { url: `${receiverB.url}/b`, events: ['document.sent'] });
    const deliveryA = (await sendPing(h.ctx, a.workspaceId, endpointA.id)).deliveryId;
    assert.equal(receiverA.requests.length, 1);
    const snapshot = await endpointOf(h, a, endpointA.id);
    const secretsBefore = await storedSecrets(h, endpointA.id);
    const deliveriesBefore = await listEndpointDeliveries(h.ctx, a.workspaceId, endpointA.id);

    const routes: Array<{ method: 'GET' | 'POST'; path: (e: string, d: string) => string; fields?: Fields }> =
      [
        { method: 'GET', path: (e) => endpointPath(e) },
        {
          method: 'POST',
          path: (e) => endpointPath(e),
          fields: { url: `${receiverB.url}/stolen`, events: ['document.signed'], description: 'taken over' },
        },
        { method: 'POST', path: (e) => `${endpointPath(e)}/enabled`, fields: { enabled: 'false' } },
        { method: 'POST', path: (e) => `${endpointPath(e)}/test` },
        { method: 'POST', path: (e) => `${endpointPath(e)}/rotate`, fields: { overlap: '0' } },
        { method: 'GET', path: (e) => `${endpointPath(e)}/delete` },
        { method: 'POST', path: (e) => `${endpointPath(e)}/delete` },
        { method: 'GET', path: (e, d) => `${endpointPath(e)}/deliveries/${d}` },
      ];
    const targets = [
      { name: "workspace A's endpoint and delivery", endpoint: endpointA.id, delivery: deliveryA },
      {
        name: "A's ids in capitals",
        endpoint: endpointA.id.toUpperCase(),
        delivery: deliveryA.toUpperCase(),
      },
      { name: 'a random UUID', endpoint: randomUUID(), delivery: randomUUID() },
      { name: 'not a UUID', endpoint: 'not-a-uuid', delivery: 'not-a-uuid' },
    ];
    assertPage(await b.browser.get(integrations), 200);
    let reference: string | null = null;
    const check = (res: WebResponse, label: string) => {
      assertPage(res, 404, label);
      reference ??= withoutCsrf(res.text);
      assert.equal(withoutCsrf(res.text), reference, `${label}: another page than the other 404s`);
    };
    for (const route of routes) {
      for (const target of targets) {
        const path = route.path(target.endpoint, target.delivery);
        const res =
          route.method === 'GET' ? await b.browser.get(path) : await b.browser.post(path, route.fields ?? {});
        check(res, `${route.method} ${path} (${target.name})`);
      }
    }
    // B's own endpoint with A's delivery id, and A's endpoint with a delivery id of B's.
    const deliveryB = (await sendPing(h.ctx, b.workspaceId, endpointB.id)).deliveryId;
    check(
      await b.browser.get(`${endpointPath(endpointB.id)}/deliveries/${deliveryA}`),
      "B's endpoint, A's delivery",
    );
    check(
      await b.browser.get(`${endpointPath(endpointA.id)}/deliveries/${deliveryB}`),
      "A's endpoint, B's delivery",
    );
    assert.ok(reference, 'no 404 page');
    assert.match(reference, /<h1>Not found<\/h1>/);
    assert.ok(!(reference as string).includes(endpointA.url), "the 404 page names A's endpoint");

    assert.deepEqual(await endpointOf(h, a, endpointA.id), snapshot, "A's endpoint changed");
    assert.deepEqual(await storedSecrets(h, endpointA.id), secretsBefore, "A's secret rotated");
    assert.equal(receiverA.requests.length, 1, "a ping reached A's receiver");
    assert.deepEqual(await listEndpointDeliveries(h.ctx, a.workspaceId, endpointA.id), deliveriesBefore);
    const aPage = await a.browser.get(endpointPath(endpointA.id));
    assertPage(aPage, 200);
    assert.ok(aPage.text.includes('<span class="badge badge-success">Enabled</span>'));
    assert.equal((await endpointOf(h, b, endpointB.id)).url, endpointB.url, "B's own endpoint changed");
  });

  // --- 9. CSRF -------------------------------------------------------------------------

  test("every endpoint form refuses a POST without a token, with another session's token, or without the CSRF cookie: 403, nothing changed", async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    const created = await createOnPage(m, { url: `${receiver.url}/hook`, events: ['document.sent'] });
    // A second session of the same user, in another browser.
    const other = await logIn(h, m.email);
    assertPage(await other.get(endpointPath(created.id)), 200);
    const otherToken = other.csrfToken;
    const otherCookie = other.cookies.get('signet_csrf');
    assert.ok(otherToken && otherCookie);

    const routes: Array<{ path: string; fields: Fields }> = [
      { path: endpointsPath, fields: { url: `${receiver.url}/second`, events: ['document.sent'] } },
      {
        path: endpointPath(created.id),
        fields: { url: `${receiver.url}/moved`, events: ['document.signed'], description: 'moved' },
      },
      { path: `${endpointPath(created.id)}/enabled`, fields: { enabled: 'false' } },
      { path: `${endpointPath(created.id)}/test`, fields: {} },
      { path: `${endpointPath(created.id)}/rotate`, fields: { overlap: '0' } },
      { path: `${endpointPath(created.id)}/delete`, fields: {} },
    ];
    const variants: Array<{ name: string; options: PostOptions }> = [
      { name: 'no token', options: { csrf: false } },
      { name: "another session's token", options: { csrf: otherToken } },
      {
        name: "another session's token and CSRF cookie",
        options: { csrf: otherToken, cookies: { signet_csrf: otherCookie } },
      },
      { name: 'its own token without the CSRF cookie', options: { cookies: { signet_csrf: null } } },
    ];
    const before = await endpointsOf(h, m);
    const secretsBefore = await storedSecrets(h, created.id);
    for (const route of routes) {
      for (const variant of variants) {
        assertPage(await m.browser.get(endpointPath(created.id)), 200);
        const res = await m.browser.post(route.path, route.fields, variant.options);
        assertPage(res, 403, `POST ${route.path} with ${variant.name}`);
        assert.ok(res.text.includes(sentences.formExpired), `POST ${route.path} with ${variant.name}`);
      }
    }
    assert.deepEqual(await endpointsOf(h, m), before, 'a refused form changed an endpoint');
    assert.deepEqual(await storedSecrets(h, created.id), secretsBefore, 'a refused form rotated the secret');
    assert.equal(receiver.requests.length, 0, 'a refused Test sent a ping');
    assert.deepEqual(await listEndpointDeliveries(h.ctx, m.workspaceId, created.id), []);

    // The same forms with the page's own token go through.
    const expected = [303, 303, 303, 303, 303, 303];
    for (const [i, route] of routes.entries()) {
      assertPage(await m.browser.get(endpointPath(created.id)), 200);
      const res = await m.browser.post(route.path, route.fields);
      assert.equal(res.status, expected[i], `POST ${route.path} with its token: ${res.text.slice(0, 300)}`);
    }
    assert.equal(receiver.requests.length, 1);
    assert.deepEqual(
      (await endpointsOf(h, m)).map((e) => e.url),
      [new URL(`${receiver.url}/second`).href],
    );
  });

  // --- Destination rules, with SIGNET_WEBHOOK_ALLOW_UNSAFE off ---------------------------

  describe('with SIGNET_WEBHOOK_ALLOW_UNSAFE off', () => {
    const strict = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
    let strictShared: Promise<Member> | undefined;
    const strictMember = () => {
      strictShared ??= newMember(strict);
      return strictShared;
    };
    const unsafe = (url: string): Refusal => ({
      fields: { url, events: ['document.sent'] },
      status: 400,
      field: 'url',
      sentence: sentences.unsafeUrl,
      api: { status: 400, code: 'unsafe-url' },
    });

    test('an http URL: 400 with the unsafe-url sentence, nothing created; the API answers unsafe-url', async () => {
      await assertRefused(strict, await strictMember(), unsafe('http://hooks.example.com/signet'));
    });

    test('a private address: 400 with the unsafe-url sentence, nothing created; the API answers unsafe-url', async () => {
      const m = await strictMember();
      for (const url of [
        'https://10.0.0.7/signet',
        'https://192.168.1.20/signet',
        'https://127.0.0.1/signet',
      ]) {
        await assertRefused(strict, m, unsafe(url));
      }
    });

    test('port 8443: 400 with the unsafe-url sentence, nothing created; the API answers unsafe-url', async () => {
      await assertRefused(strict, await strictMember(), unsafe('https://hooks.example.com:8443/signet'));
    });

    test('a public https URL on port 443 is accepted (the same member, the same form)', async () => {
      const m = await strictMember();
      const created = await createOnPage(m, {
        url: 'https://hooks.example.com/signet',
        events: ['document.sent'],
      });
      assert.equal((await endpointOf(strict, m, created.id)).url, 'https://hooks.example.com/signet');
    });
  });
});
