// Webhook delivery (spec, Webhook delivery, Delivery request, Delivery outcome and retries,
// Webhook endpoint enablement, Webhook delivery signature): what a receiver gets, how the
// outcome of each attempt is judged and recorded, the retry schedule, the pause after 20
// consecutive failures, fan-out, ping, DNS rebinding at connect time, the delivery log and
// the running dispatcher. Every receiver is a local HTTP (or HTTPS) server on 127.0.0.1
// started by the test; every name goes through the fake resolver; the signature is checked
// by a verifier written from the documented scheme (test/support/receiver.ts), not by
// src/webhooks/signature.ts, and by the receiver example of docs/api.md itself.
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Context, systemClock } from '../../src/context.ts';
import { triggerEvent } from '../../src/demo/trigger.ts';
import { claimDueDeliveries, releaseDeliveries } from '../../src/webhooks/claims.repository.ts';
import {
  type DeliveryView,
  listEndpointDeliveries,
  sendPing,
} from '../../src/webhooks/deliveries.service.ts';
import { deliverDue, fanOutEvents, startDispatcher } from '../../src/webhooks/dispatcher.ts';
import { removeEndpoint, rotateEndpointSecret } from '../../src/webhooks/endpoints.service.ts';
import { recordSuccesses } from '../../src/webhooks/outcomes.ts';
import { pruneOldDeliveries } from '../../src/webhooks/schedule.ts';
import {
  type ApiEndpoint,
  allEventTypes,
  type CreatedApiEndpoint,
  callApi,
  countRows,
  createTestWorkspace,
  describeEachDatabase,
  type Harness,
  listedDocumentKeys,
  type TestWorkspace,
  testResolver,
  useHarness,
} from '../support/harness.ts';
import {
  header,
  type ReceivedRequest,
  type Receiver,
  type ReceiverHandler,
  type ReceiverOptions,
  signaturePattern,
  startReceiver,
  verifySignature,
} from '../support/receiver.ts';

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

type Endpoint = ApiEndpoint;
type CreatedEndpoint = CreatedApiEndpoint;

/** A self-signed certificate for 127.0.0.1 (test only): valid, but no client trusts it. */
const fixtures = join(import.meta.dirname, '..', 'fixtures');
const selfSigned = {
  key: readFileSync(join(fixtures, 'self-signed.key'), 'utf8'),
  cert: readFileSync(join(fixtures, 'self-signed.crt'), 'utf8'),
};

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const recipientKeys = ['email', 'fullName', 'id', 'role', 'signedAt', 'signingMethod', 'signingOrder'];

type DocumentedVerifier = (
  rawBody: string | Buffer,
  header: string | undefined,
  secret: string,
  now?: number,
) => boolean;

/**
 * The receiver example of docs/api.md ("Verifying the signature"), imported exactly as
 * published, so the documentation cannot drift from what Signet sends.
 */
async function documentedVerifier(): Promise<DocumentedVerifier> {
  const docs = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'api.md'), 'utf8');
  const section = docs.slice(docs.indexOf('### Verifying the signature'));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(code, 'docs/api.md has no js block under "Verifying the signature"');
  const module = await import(`data:text/javascript,${encodeURIComponent(code)}`);
  assert.equal(typeof module.verifySignet, 'function');
  return module.verifySignet;
}

function signatureTime(header: string | string[] | undefined): string {
  const match = signaturePattern.exec(typeof header === 'string' ? header : '');
  assert.ok(match, `malformed x-service-signature: ${String(header)}`);
  return match[1] as string;
}

const answer =
  (status: number, body = '', headers: Record<string, string> = {}): ReceiverHandler =>
  (_request, response) => {
    response.writeHead(status, headers);
    response.end(body);
  };

/** A receiver that reads the request and then never answers. */
const neverAnswer: ReceiverHandler = () => {};

/** Resolves when `response` closes; fails the test if it never does (a liveness bound, not a measurement). */
function closeOf(response: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the receiver's answer was never closed")), 10_000);
    response.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Answers in turn with each handler, then keeps using the last one. */
function inTurn(...handlers: ReceiverHandler[]): ReceiverHandler {
  let calls = 0;
  return (request, response) => {
    const handler = handlers[Math.min(calls, handlers.length - 1)] as ReceiverHandler;
    calls++;
    return handler(request, response);
  };
}

/**
 * A version 3 (name-based, MD5) UUID over two UUIDs' bytes, computed independently of the
 * database function that names deliveries (webhook_delivery_id).
 */
function nameBasedUuid(namespace: string, name: string): string {
  const bytes = (uuid: string) => Buffer.from(uuid.replaceAll('-', ''), 'hex');
  const digest = createHash('md5').update(bytes(namespace)).update(bytes(name)).digest();
  digest[6] = ((digest[6] as number) & 0x0f) | 0x30;
  digest[8] = ((digest[8] as number) & 0x3f) | 0x80;
  const hex = digest.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function bodyOf(request: ReceivedRequest): Record<string, unknown> & { data: Record<string, unknown> } {
  return JSON.parse(request.body);
}

async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string | (() => string),
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      assert.fail(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Everything one test opens: its workspaces, receivers and endpoints, closed in `finally`. */
interface Scope {
  workspace(): Promise<TestWorkspace>;
  receiver(handler?: ReceiverHandler, options?: ReceiverOptions): Promise<Receiver>;
  endpoint(
    ws: TestWorkspace,
    url: string,
    events?: string[],
  ): Promise<CreatedEndpoint & { workspaceId: string }>;
  /** Most tests' start: a workspace, a receiver answering with `handler`, and an endpoint at its /hook. */
  hooked(
    handler?: ReceiverHandler,
    events?: string[],
  ): Promise<{ ws: TestWorkspace; receiver: Receiver; endpoint: CreatedEndpoint & { workspaceId: string } }>;
}

async function withScope(h: Harness, body: (s: Scope) => Promise<void>): Promise<void> {
  const receivers: Receiver[] = [];
  const endpoints: Array<{ workspaceId: string; id: string }> = [];
  const scope: Scope = {
    workspace: () => createTestWorkspace(h.ctx),
    async receiver(handler = answer(200, 'ok'), options = {}) {
      const receiver = await startReceiver(handler, options);
      receivers.push(receiver);
      return receiver;
    },
    async endpoint(ws, url, events = ['document.sent']) {
      const created = await createEndpointApi(h, ws, url, events);
      endpoints.push({ workspaceId: ws.id, id: created.id });
      return { ...created, workspaceId: ws.id };
    },
    async hooked(handler, events) {
      const ws = await scope.workspace();
      const receiver = await scope.receiver(handler);
      const endpoint = await scope.endpoint(ws, `${receiver.url}/hook`, events);
      return { ws, receiver, endpoint };
    },
  };
  try {
    await body(scope);
  } finally {
    // Deleting the endpoints takes their deliveries with them: nothing of this test is
    // left due for the next one, whatever the clock says.
    for (const e of endpoints) await removeEndpoint(h.ctx, e.workspaceId, e.id).catch(() => {});
    for (const r of receivers) await r.close();
  }
}

async function createEndpointApi(
  h: Harness,
  ws: TestWorkspace,
  url: string,
  events: string[],
): Promise<CreatedEndpoint> {
  const response = await callApi(h, 'POST', '/v1/webhook-endpoints', {
    key: ws.apiKey,
    body: { url, events, description: 'delivery test' },
  });
  assert.equal(response.status, 201, response.text);
  return response.body.data as CreatedEndpoint;
}

async function getEndpointApi(h: Harness, ws: TestWorkspace, id: string): Promise<Endpoint> {
  const response = await callApi(h, 'GET', `/v1/webhook-endpoints/${id}`, { key: ws.apiKey });
  assert.equal(response.status, 200, response.text);
  return response.body.data as Endpoint;
}

async function patchEndpointApi(
  h: Harness,
  ws: TestWorkspace,
  id: string,
  body: Record<string, unknown>,
): Promise<Endpoint> {
  const response = await callApi(h, 'PATCH', `/v1/webhook-endpoints/${id}`, { key: ws.apiKey, body });
  assert.equal(response.status, 200, response.text);
  return response.body.data as Endpoint;
}

async function deliveriesOf(
  h: Harness,
  endpoint: { id: string; workspaceId: string },
): Promise<DeliveryView[]> {
  return listEndpointDeliveries(h.ctx, endpoint.workspaceId, endpoint.id);
}

/** The one delivery of an endpoint that has exactly one. */
async function onlyDelivery(
  h: Harness,
  endpoint: { id: string; workspaceId: string },
): Promise<DeliveryView> {
  const deliveries = await deliveriesOf(h, endpoint);
  assert.equal(deliveries.length, 1, `deliveries: ${JSON.stringify(deliveries)}`);
  return deliveries[0] as DeliveryView;
}

/**
 * One document.sent for an endpoint at `url`: its first attempt fails with `errorClass`
 * after connecting to 127.0.0.1 (or trying to), with no status code, and the delivery
 * waits for its retry.
 */
async function assertFirstAttemptFails(h: Harness, s: Scope, url: string, errorClass: string) {
  const ws = await s.workspace();
  const endpoint = await s.endpoint(ws, url);
  await triggerEvent(h.ctx, ws.id, 'document.sent');
  await deliverDue(h.ctx);

  const delivery = await onlyDelivery(h, endpoint);
  assert.equal(delivery.status, 'pending');
  assert.equal(delivery.attemptLog[0]?.errorClass, errorClass);
  assert.equal(delivery.attemptLog[0]?.statusCode, null);
  assert.equal(delivery.attemptLog[0]?.address, '127.0.0.1');
}

/**
 * After its endpoint was deleted following one attempt: hours of passes, with the receiver
 * now answering 200, send it nothing more, and none of its deliveries or attempts is left.
 */
async function assertDeletedEndpointGetsNothing(h: Harness, receiver: Receiver, endpointId: string) {
  receiver.setHandler(answer(200));
  for (let i = 0; i < 4; i++) {
    h.clock.advance(hour);
    await deliverDue(h.ctx);
  }
  assert.equal(receiver.requests.length, 1);
  assert.equal(await countDeliveries(h, endpointId), 0);
  assert.equal(await countAttempts(h, endpointId), 0, 'attempts of the deleted endpoint were left behind');
}

const countAttempts = (h: Harness, endpointId: string) =>
  countRows(h.ctx, 'webhook_attempts', { endpoint_id: endpointId });

const countDeliveries = (h: Harness, endpointId: string) =>
  countRows(h.ctx, 'webhook_deliveries', { endpoint_id: endpointId });

const iso = (ms: number) => new Date(ms).toISOString();

// ---------------------------------------------------------------------------------------
// Delivery with a test clock, http://127.0.0.1 receivers allowed
// ---------------------------------------------------------------------------------------

describeEachDatabase('webhook delivery', (kind) => {
  const resolver = testResolver();
  const h = useHarness(kind, {
    env: { SIGNET_WEBHOOK_ALLOW_UNSAFE: '1', SIGNET_WEBHOOK_TIMEOUT: '1s' },
    resolver,
  });

  // --- 1. Request shape ----------------------------------------------------------------

  async function checkRequestShape(
    s: Scope,
    type: 'document.sent' | 'document.signed' | 'document.completed',
  ): Promise<void> {
    const ws = await s.workspace();
    const receiver = await s.receiver();
    const endpoint = await s.endpoint(ws, `${receiver.url}/hooks/signet?source=delivery-test`, [type]);
    const { documentId, eventId } = await triggerEvent(h.ctx, ws.id, type);
    await deliverDue(h.ctx);

    assert.equal(receiver.requests.length, 1);
    const request = receiver.requests[0] as ReceivedRequest;
    assert.equal(request.method, 'POST');
    assert.equal(request.url, '/hooks/signet?source=delivery-test');
    assert.equal(header(request, 'content-type'), 'application/json');
    assert.equal(header(request, 'user-agent'), 'Service-Webhooks/1.0');
    const body = bodyOf(request);
    assert.equal(header(request, 'x-service-event'), body.type);
    assert.equal(body.type, type);
    assert.match(header(request, 'x-service-delivery-id'), uuidPattern);
    assert.equal(header(request, 'x-service-delivery-id'), (await onlyDelivery(h, endpoint)).id);
    assert.match(header(request, 'x-service-signature'), signaturePattern);

    assert.deepEqual(Object.keys(body).sort(), ['createdAt', 'data', 'id', 'type']);
    assert.deepEqual(Object.keys(body.data).sort(), ['document', 'recipient']);
    assert.equal(body.id, eventId);

    const detail = await callApi(h, 'GET', `/v1/documents/${documentId}`, { key: ws.apiKey });
    assert.equal(detail.status, 200, detail.text);
    const { recipients, events, files, ...document } = detail.body.data as Record<string, unknown> & {
      recipients: Array<Record<string, unknown>>;
      events: Array<{ id: string; type: string; createdAt: string }>;
      files: Array<Record<string, unknown>>;
    };
    const event = events.find((e) => e.id === body.id);
    assert.ok(event, `event ${String(body.id)} is not in the document's history`);
    assert.equal(event.type, type);
    assert.equal(body.createdAt, event.createdAt);

    const { files: sentFiles, ...sentDocument } = body.data.document as Record<string, unknown>;
    assert.deepEqual(Object.keys(sentDocument).sort(), listedDocumentKeys);
    assert.deepEqual(sentDocument, document);
    if (type === 'document.completed') {
      // The completed document carries its files as the detail lists them, without the links.
      assert.deepEqual(
        sentFiles,
        files.map(({ downloadUrl: _link, ...file }) => file),
      );
    } else {
      assert.equal(sentFiles, undefined, 'only document.completed carries files');
    }
    if (type === 'document.signed') {
      const recipient = body.data.recipient as Record<string, unknown>;
      assert.deepEqual(Object.keys(recipient).sort(), recipientKeys);
      // As the detail shows the recipient, without what only the detail has: the fields placed
      // for them, and whether and why they declined.
      const {
        fields: _fields,
        declinedAt: _declinedAt,
        declineReason: _declineReason,
        ...listed
      } = recipients.find((r) => r.id === recipient.id) ?? {};
      assert.deepEqual(recipient, listed);
      assert.equal(recipient.email, 'first.signer@example.com');
      assert.equal(recipient.signedAt, body.createdAt);
    } else {
      assert.equal(body.data.recipient, null);
    }
  }

  test('a document.sent delivery is a POST to the endpoint URL with the documented headers and body, recipient null', () =>
    withScope(h, (s) => checkRequestShape(s, 'document.sent')));

  test('a document.signed delivery carries the document as listed and the signer as the read API shows it', () =>
    withScope(h, (s) => checkRequestShape(s, 'document.signed')));

  test('a document.completed delivery carries the completed document and recipient null', () =>
    withScope(h, (s) => checkRequestShape(s, 'document.completed')));

  // --- 2. Signature --------------------------------------------------------------------

  test('the signature verifies with the secret from the create response and is timed at sending', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked();
      const other = await s.endpoint(ws, `${receiver.url}/other`, ['document.declined']);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      h.clock.advance(7 * minute + 123);
      const sentAt = h.clock.now().toISOString();
      await deliverDue(h.ctx);

      assert.equal(receiver.requests.length, 1);
      const request = receiver.requests[0] as ReceivedRequest;
      const signature = header(request, 'x-service-signature');
      assert.equal(signatureTime(signature), sentAt);
      assert.ok(verifySignature(endpoint.secret, signature, request.body), 'signature does not verify');

      // Anything changed on the way makes it fail.
      const tampered = request.body.replace('"document.sent"', '"document.signed"');
      assert.notEqual(tampered, request.body);
      assert.equal(verifySignature(endpoint.secret, signature, tampered), false);
      assert.equal(verifySignature(endpoint.secret, signature, `${request.body} `), false);
      assert.equal(verifySignature(other.secret, signature, request.body), false);
      const otherTime = signature.replace(sentAt, iso(Date.parse(sentAt) + 1));
      assert.equal(verifySignature(endpoint.secret, otherTime, request.body), false);
    }));

  test('the verifier published in docs/api.md accepts a real delivery and refuses tampering, replays and unreadable times', () =>
    withScope(h, async (s) => {
      const verifySignet = await documentedVerifier();
      const { ws, receiver, endpoint } = await s.hooked();
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);

      const request = receiver.requests[0] as ReceivedRequest;
      const signature = header(request, 'x-service-signature');
      const sentAt = Date.parse(signatureTime(signature));
      const { body } = request;
      assert.equal(verifySignet(body, signature, endpoint.secret, sentAt), true);
      assert.equal(verifySignet(Buffer.from(body, 'utf8'), signature, endpoint.secret, sentAt), true);
      // The tolerance is 5 minutes either way, to the millisecond.
      assert.equal(verifySignet(body, signature, endpoint.secret, sentAt + 5 * minute), true);
      assert.equal(verifySignet(body, signature, endpoint.secret, sentAt - 5 * minute), true);
      assert.equal(verifySignet(body, signature, endpoint.secret, sentAt + 5 * minute + 1), false);
      assert.equal(verifySignet(body, signature, endpoint.secret, sentAt - 5 * minute - 1), false);
      assert.equal(verifySignet(`${body} `, signature, endpoint.secret, sentAt), false);
      assert.equal(verifySignet(body, signature, `${endpoint.secret}x`, sentAt), false);
      assert.equal(verifySignet(body, undefined, endpoint.secret, sentAt), false);
      // A correctly signed time that is no date must not slip past the tolerance as NaN.
      const impossible = '2026-13-45T25:61:61.000Z';
      const mac = createHmac('sha256', endpoint.secret).update(`${impossible}.${body}`).digest('hex');
      assert.equal(verifySignet(body, `t=${impossible},v1=${mac}`, endpoint.secret, sentAt), false);

      // During a rotation's overlap: two v1=, and either secret verifies.
      const rotated = await rotateEndpointSecret(h.ctx, ws.id, endpoint.id, 1);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      const twice = receiver.requests.at(-1) as ReceivedRequest;
      const both = header(twice, 'x-service-signature');
      const at = Date.parse(/^t=([^,]+)/.exec(both)?.[1] ?? '');
      assert.equal(both.split(',v1=').length, 3);
      assert.equal(verifySignet(twice.body, both, endpoint.secret, at), true);
      assert.equal(verifySignet(twice.body, both, rotated.secret, at), true);
      assert.equal(verifySignet(twice.body, both, `${rotated.secret}x`, at), false);
      assert.equal(verifySignet(`${twice.body} `, both, rotated.secret, at), false);
    }));

  // --- 3. Outcomes ---------------------------------------------------------------------

  for (const status of [200, 201, 204]) {
    test(`a ${status} answer delivers the event in one attempt and leaves failureCount at 0`, () =>
      withScope(h, async (s) => {
        const { ws, receiver, endpoint } = await s.hooked(answer(status, status === 204 ? '' : 'thanks'));
        await triggerEvent(h.ctx, ws.id, 'document.sent');
        await deliverDue(h.ctx);

        const delivery = await onlyDelivery(h, endpoint);
        assert.equal(delivery.status, 'delivered');
        assert.equal(delivery.attempts, 1);
        assert.equal(delivery.deliveredAt, h.clock.now().toISOString());
        assert.equal(delivery.nextAttemptAt, null);
        assert.equal(delivery.attemptLog.length, 1);
        assert.equal(delivery.attemptLog[0]?.statusCode, status);
        assert.equal(delivery.attemptLog[0]?.errorClass, null);
        assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 0);

        h.clock.advance(day);
        await deliverDue(h.ctx);
        assert.equal(receiver.requests.length, 1);
      }));
  }

  for (const status of [301, 302, 307]) {
    test(`a ${status} with a Location is a redirect failure and the Location is not followed`, () =>
      withScope(h, async (s) => {
        const ws = await s.workspace();
        const target = await s.receiver();
        const receiver = await s.receiver(answer(status, '', { location: `${target.url}/moved` }));
        const endpoint = await s.endpoint(ws, `${receiver.url}/hook`);
        await triggerEvent(h.ctx, ws.id, 'document.sent');
        await deliverDue(h.ctx);

        assert.equal(receiver.requests.length, 1);
        assert.equal(target.requests.length, 0);
        const delivery = await onlyDelivery(h, endpoint);
        assert.equal(delivery.status, 'pending');
        assert.equal(delivery.attemptLog[0]?.errorClass, 'redirect');
        assert.equal(delivery.attemptLog[0]?.statusCode, status);
        assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 1);
      }));
  }

  for (const status of [400, 404, 500, 503]) {
    test(`a ${status} answer is an http-status failure with ${status} recorded`, () =>
      withScope(h, async (s) => {
        const { ws, endpoint } = await s.hooked(answer(status, `nope ${status}`));
        await triggerEvent(h.ctx, ws.id, 'document.sent');
        await deliverDue(h.ctx);

        const delivery = await onlyDelivery(h, endpoint);
        assert.equal(delivery.status, 'pending');
        assert.equal(delivery.attempts, 1);
        assert.deepEqual(
          delivery.attemptLog.map((a) => [a.attempt, a.statusCode, a.errorClass, a.responseBody]),
          [[1, status, 'http-status', `nope ${status}`]],
        );
        assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 1);
      }));
  }

  test('a receiver that never answers is a timeout failure after about 1 s (SIGNET_WEBHOOK_TIMEOUT)', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      // By the order of events, not a stopwatch: the sender gave up and closed the
      // connection (the receiver sees it close) before deliverDue returned.
      let closed: Promise<void> | undefined;
      const receiver = await s.receiver((_request, response: ServerResponse) => {
        closed = closeOf(response);
      });
      const endpoint = await s.endpoint(ws, `${receiver.url}/hook`);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      const started = performance.now();
      await deliverDue(h.ctx);
      const elapsed = performance.now() - started;

      assert.equal(receiver.requests.length, 1);
      assert.ok(elapsed >= 950, `deliverDue waited the whole timeout (${elapsed} ms)`);
      await closed; // the sender closed the connection it gave up on
      const delivery = await onlyDelivery(h, endpoint);
      assert.equal(delivery.status, 'pending');
      const [attempt] = delivery.attemptLog;
      assert.equal(attempt?.errorClass, 'timeout');
      assert.equal(attempt?.statusCode, null);
      assert.equal(attempt?.responseBody, null);
      assert.ok((attempt?.durationMs ?? 0) >= 950, `durationMs ${attempt?.durationMs}`);
    }));

  test('a refused connection (a closed receiver) is a connect failure', () =>
    withScope(h, async (s) => {
      const receiver = await s.receiver();
      await receiver.close();
      await assertFirstAttemptFails(h, s, `${receiver.url}/hook`, 'connect');
    }));

  test('an https URL whose server answers in plain HTTP is a tls failure, and nothing is received', () =>
    withScope(h, async (s) => {
      const receiver = await s.receiver();
      await assertFirstAttemptFails(h, s, `${receiver.url.replace('http:', 'https:')}/hook`, 'tls');
      assert.equal(receiver.requests.length, 0);
    }));

  test('a certificate no client trusts (self-signed) is a tls failure, and nothing is received', () =>
    withScope(h, async (s) => {
      const receiver = await s.receiver(answer(200, 'ok'), { tls: selfSigned });
      await assertFirstAttemptFails(h, s, `${receiver.url}/hook`, 'tls');
      assert.equal(receiver.requests.length, 0);
    }));

  test('only the first 4096 bytes of a 100 KB response body are recorded', () =>
    withScope(h, async (s) => {
      const big = 'abcdefghij'.repeat(10 * 1024);
      const { ws, endpoint } = await s.hooked(answer(500, big));
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);

      const [attempt] = (await onlyDelivery(h, endpoint)).attemptLog;
      assert.equal(attempt?.statusCode, 500);
      assert.equal(Buffer.byteLength(attempt?.responseBody ?? ''), 4096);
      assert.equal(attempt?.responseBody, big.slice(0, 4096));
    }));

  test('a receiver streaming an endless body is cut off after 4 KB and the attempt is recorded', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      const chunk = Buffer.alloc(16 * 1024, 'x');
      // Cut off means the sender closed the stream: the receiver sees its answer close
      // before deliverDue returns (by the order of events, not a stopwatch).
      let cutOff: Promise<void> | undefined;
      const receiver = await s.receiver((_request, response: ServerResponse) => {
        cutOff = closeOf(response);
        response.writeHead(200, { 'content-type': 'text/plain' });
        const pump = () => {
          while (!response.destroyed && response.write(chunk)) {}
          if (!response.destroyed) response.once('drain', pump);
        };
        pump();
      });
      const endpoint = await s.endpoint(ws, `${receiver.url}/hook`);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      const memoryBefore = process.memoryUsage().rss;
      await deliverDue(h.ctx);

      await cutOff; // the sender closed the endless answer
      assert.ok(process.memoryUsage().rss - memoryBefore < 200 * 1024 * 1024, 'memory grew by over 200 MB');
      const [attempt] = (await onlyDelivery(h, endpoint)).attemptLog;
      assert.equal(attempt?.statusCode, 200);
      assert.equal(attempt?.responseBody?.length, 4096);
    }));

  test('a receiver trickling an endless body is cut off at the timeout and the attempt is recorded', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      // Cut off at the timeout: the receiver's answer is closed by the sender before
      // deliverDue returns, after at least the timeout (order of events, not a stopwatch).
      let cutOff: Promise<void> | undefined;
      const receiver = await s.receiver((_request, response: ServerResponse) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => response.write('x'), 20);
        response.on('close', () => clearInterval(timer));
        cutOff = closeOf(response);
      });
      const endpoint = await s.endpoint(ws, `${receiver.url}/hook`);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);

      await cutOff; // the sender closed the trickling answer
      const delivery = await onlyDelivery(h, endpoint);
      assert.equal(delivery.attemptLog.length, 1);
      const [attempt] = delivery.attemptLog;
      assert.ok(
        (attempt?.durationMs ?? 0) >= 950,
        `cut at the timeout, not before: ${attempt?.durationMs} ms`,
      );
      assert.ok((attempt?.responseBody?.length ?? 0) <= 4096);
    }));

  // --- 4. Retry schedule ---------------------------------------------------------------

  test('a failing delivery is retried no sooner than 5 min, 30 min and 2 h after each failure, then dropped', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(500, 'down'));
      const { eventId } = await triggerEvent(h.ctx, ws.id, 'document.sent');
      const attemptTimes: string[] = [h.clock.now().toISOString()];
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 1);

      let delivery = await onlyDelivery(h, endpoint);
      assert.equal(delivery.status, 'pending');
      assert.equal(delivery.attempts, 1);
      assert.equal(delivery.nextAttemptAt, iso(h.clock.now().getTime() + 5 * minute));

      for (const [attempt, delay] of [
        [2, 5 * minute],
        [3, 30 * minute],
        [4, 2 * hour],
      ] as const) {
        h.clock.advance(delay - second);
        assert.equal(await deliverDue(h.ctx), 0, `attempt ${attempt} went out a second early`);
        assert.equal(receiver.requests.length, attempt - 1);
        h.clock.advance(second);
        attemptTimes.push(h.clock.now().toISOString());
        await deliverDue(h.ctx);
        assert.equal(receiver.requests.length, attempt, `attempt ${attempt} did not go out on time`);
        delivery = await onlyDelivery(h, endpoint);
        assert.equal(delivery.attempts, attempt);
        if (attempt < 4) {
          assert.equal(delivery.status, 'pending');
          const next = attempt === 2 ? 30 * minute : 2 * hour;
          assert.equal(delivery.nextAttemptAt, iso(h.clock.now().getTime() + next));
        }
      }
      assert.equal(delivery.status, 'dropped');
      assert.equal(delivery.nextAttemptAt, null);
      assert.deepEqual(
        delivery.attemptLog.map((a) => [a.attempt, a.startedAt, a.errorClass, a.statusCode]),
        attemptTimes.map((t, i) => [i + 1, t, 'http-status', 500]),
      );

      for (let i = 0; i < 4; i++) {
        h.clock.advance(day / 4);
        await deliverDue(h.ctx);
      }
      assert.equal(receiver.requests.length, 4);

      // Every attempt: the same delivery id and body, each signed at its own time.
      const deliveryIds = new Set(receiver.requests.map((r) => header(r, 'x-service-delivery-id')));
      assert.deepEqual([...deliveryIds], [delivery.id]);
      assert.equal(new Set(receiver.requests.map((r) => r.body)).size, 1);
      assert.equal(bodyOf(receiver.requests[0] as ReceivedRequest).id, eventId);
      receiver.requests.forEach((r, i) => {
        const signature = header(r, 'x-service-signature');
        assert.equal(signatureTime(signature), attemptTimes[i]);
        assert.ok(verifySignature(endpoint.secret, signature, r.body), `attempt ${i + 1} signature`);
      });
    }));

  test('a success on retry 2 marks the delivery delivered and stops the retries', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(
        inTurn(answer(503), answer(500), answer(200, 'finally')),
      );
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      h.clock.advance(5 * minute);
      await deliverDue(h.ctx);
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 2);
      h.clock.advance(30 * minute);
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 3);

      const delivery = await onlyDelivery(h, endpoint);
      assert.equal(delivery.status, 'delivered');
      assert.equal(delivery.attempts, 3);
      assert.equal(delivery.deliveredAt, h.clock.now().toISOString());
      assert.deepEqual(
        delivery.attemptLog.map((a) => [a.attempt, a.statusCode, a.errorClass]),
        [
          [1, 503, 'http-status'],
          [2, 500, 'http-status'],
          [3, 200, null],
        ],
      );
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 0);

      h.clock.advance(day);
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 3);
      assert.equal(new Set(receiver.requests.map((r) => header(r, 'x-service-delivery-id'))).size, 1);
      assert.equal(new Set(receiver.requests.map((r) => r.body)).size, 1);
    }));

  test('a dropped delivery is resent through the API: the same delivery id and body, signed anew, recorded as its next attempt', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(
        inTurn(...Array(4).fill(answer(500, 'down')), answer(200, 'ok')),
      );
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      for (const delay of [5 * minute, 30 * minute, 2 * hour]) {
        h.clock.advance(delay);
        await deliverDue(h.ctx);
      }
      const dropped = await onlyDelivery(h, endpoint);
      assert.equal(dropped.status, 'dropped');
      const path = `/v1/webhook-endpoints/${endpoint.id}/deliveries`;

      // The API's log lists it, with each attempt's outcome but not the receiver's answer.
      const log = await callApi(h, 'GET', path, { key: ws.apiKey });
      assert.equal(log.status, 200, log.text);
      const [listed] = log.body.data as Array<Record<string, unknown> & { attemptLog: object[] }>;
      assert.equal(listed?.id, dropped.id);
      assert.equal(listed?.status, 'dropped');
      assert.equal(listed?.attemptLog.length, 4);
      assert.deepEqual(Object.keys(listed?.attemptLog[0] ?? {}).sort(), [
        'attempt',
        'durationMs',
        'errorClass',
        'startedAt',
        'statusCode',
      ]);
      assert.equal(log.body.nextCursor, null);
      assert.deepEqual((await callApi(h, 'GET', `${path}?cursor=nope`, { key: ws.apiKey })).body, {
        ok: false,
        error: 'invalid-cursor',
      });

      h.clock.advance(day);
      const resent = await callApi(h, 'POST', `${path}/${dropped.id}/resend`, { key: ws.apiKey });
      assert.equal(resent.status, 200, resent.text);
      assert.deepEqual(resent.body.data, {
        deliveryId: dropped.id,
        attempt: 5,
        delivered: true,
        statusCode: 200,
        errorClass: null,
        durationMs: (resent.body.data as { durationMs: number }).durationMs,
      });
      assert.equal(receiver.requests.length, 5);
      const [first, last] = [receiver.requests[0], receiver.requests[4]];
      assert.equal(last?.headers['x-service-delivery-id'], dropped.id, 'the same delivery id');
      assert.equal(last?.body, first?.body, 'the same body, byte for byte');
      assert.notEqual(
        last?.headers['x-service-signature'],
        first?.headers['x-service-signature'],
        'signed anew',
      );
      const after = await onlyDelivery(h, endpoint);
      assert.equal(after.status, 'delivered');
      assert.deepEqual(
        after.attemptLog.map((a) => [a.attempt, a.statusCode]),
        [
          [1, 500],
          [2, 500],
          [3, 500],
          [4, 500],
          [5, 200],
        ],
      );
      // Delivered now: nothing more to resend; another workspace's key sees nothing.
      assert.deepEqual((await callApi(h, 'POST', `${path}/${dropped.id}/resend`, { key: ws.apiKey })).body, {
        ok: false,
        error: 'delivery-not-resendable',
      });
      const stranger = await s.workspace();
      assert.equal(
        (await callApi(h, 'POST', `${path}/${dropped.id}/resend`, { key: stranger.apiKey })).status,
        404,
      );
      assert.equal((await callApi(h, 'GET', path, { key: stranger.apiKey })).status, 404);
      assert.equal(receiver.requests.length, 5, 'nothing sent by the refusals');
    }));

  test('a resend that fails leaves the delivery dropped with one more attempt; a pending delivery is not resent', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(503, 'still down'));
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      const pending = await onlyDelivery(h, endpoint);
      assert.equal(pending.status, 'pending');
      const path = `/v1/webhook-endpoints/${endpoint.id}/deliveries/${pending.id}/resend`;
      assert.deepEqual((await callApi(h, 'POST', path, { key: ws.apiKey })).body, {
        ok: false,
        error: 'delivery-not-resendable',
      });
      for (const delay of [5 * minute, 30 * minute, 2 * hour]) {
        h.clock.advance(delay);
        await deliverDue(h.ctx);
      }
      const failed = await callApi(h, 'POST', path, { key: ws.apiKey });
      assert.equal(failed.status, 200);
      assert.equal((failed.body.data as { delivered: boolean }).delivered, false);
      assert.equal((failed.body.data as { statusCode: number }).statusCode, 503);
      const after = await onlyDelivery(h, endpoint);
      assert.equal(after.status, 'dropped');
      assert.equal(after.attempts, 5);
      assert.equal(receiver.requests.length, 5);
      // The resend does not count toward pausing the endpoint.
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 4);
    }));

  // --- 5. Auto-disable at exactly 20 ---------------------------------------------------

  test('the 20th consecutive failure pauses the endpoint, drops its retries, and re-enabling replays nothing', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(500, 'down'));
      for (let i = 0; i < 19; i++) await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 19);
      let current = await getEndpointApi(h, ws, endpoint.id);
      assert.equal(current.enabled, true);
      assert.equal(current.failureCount, 19);
      assert.equal(current.disabledReason, null);

      h.clock.advance(second);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 20);
      current = await getEndpointApi(h, ws, endpoint.id);
      assert.equal(current.enabled, false);
      assert.equal(current.disabledReason, 'failures');
      assert.equal(current.failureCount, 20);
      const deliveries = await deliveriesOf(h, endpoint);
      assert.equal(deliveries.length, 20);
      assert.deepEqual(new Set(deliveries.map((d) => d.status)), new Set(['dropped']));

      // While it is off: new events create no deliveries, nothing is sent, even much later.
      receiver.setHandler(answer(200));
      for (let i = 0; i < 3; i++) await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal(await countDeliveries(h, endpoint.id), 20);
      for (let i = 0; i < 4; i++) {
        h.clock.advance(hour);
        await deliverDue(h.ctx);
      }
      assert.equal(receiver.requests.length, 20);

      const patched = await patchEndpointApi(h, ws, endpoint.id, { enabled: true });
      assert.equal(patched.enabled, true);
      assert.equal(patched.failureCount, 0);
      assert.equal(patched.disabledReason, null);
      current = await getEndpointApi(h, ws, endpoint.id);
      assert.equal(current.failureCount, 0);
      assert.equal(current.disabledReason, null);

      const { eventId } = await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      for (let i = 0; i < 4; i++) {
        h.clock.advance(hour);
        await deliverDue(h.ctx);
      }
      assert.equal(receiver.requests.length, 21, 'a dropped delivery or a missed event was replayed');
      assert.equal(bodyOf(receiver.requests[20] as ReceivedRequest).id, eventId);
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 0);
    }));

  test('a success before the 20th failure resets failureCount to 0, so failures must be consecutive', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(500));
      for (let i = 0; i < 15; i++) await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 15);

      receiver.setHandler(answer(200));
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 0);

      receiver.setHandler(answer(500));
      for (let i = 0; i < 15; i++) await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      const current = await getEndpointApi(h, ws, endpoint.id);
      assert.equal(current.failureCount, 15);
      assert.equal(current.enabled, true);
    }));

  test('deliveries in flight when the 20th failure pauses the endpoint are dropped too, never replayed', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(500));
      // 25 first attempts at once: the 20th recorded failure pauses the endpoint while
      // the other 5 are still in flight.
      for (let i = 0; i < 25; i++) await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 25);
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).enabled, false);
      const statuses = (await deliveriesOf(h, endpoint)).map((d) => d.status);

      receiver.setHandler(answer(200));
      await patchEndpointApi(h, ws, endpoint.id, { enabled: true });
      h.clock.advance(day);
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 25, 'a delivery dropped by the pause was replayed');
      assert.deepEqual(
        statuses.filter((status) => status !== 'dropped'),
        [],
        'deliveries still pending on a paused endpoint',
      );
    }));

  // --- 6. Who gets nothing -------------------------------------------------------------

  test('an endpoint switched off with PATCH gets no delivery', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked();
      await patchEndpointApi(h, ws, endpoint.id, { enabled: false });
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      h.clock.advance(day);
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 0);
      assert.equal(await countDeliveries(h, endpoint.id), 0);
    }));

  test('an endpoint gets only the event types it subscribes to', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(undefined, ['document.declined']);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await triggerEvent(h.ctx, ws.id, 'document.signed');
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 0);
      assert.equal(await countDeliveries(h, endpoint.id), 0);

      const { eventId } = await triggerEvent(h.ctx, ws.id, 'document.declined');
      await deliverDue(h.ctx);
      assert.deepEqual(
        receiver.requests.map((r) => [header(r, 'x-service-event'), bodyOf(r).id]),
        [['document.declined', eventId]],
      );
    }));

  test("another workspace's events never reach this workspace's endpoint", () =>
    withScope(h, async (s) => {
      const mine = await s.workspace();
      const theirs = await s.workspace();
      const myReceiver = await s.receiver();
      const theirReceiver = await s.receiver();
      const myEndpoint = await s.endpoint(mine, `${myReceiver.url}/hook`);
      await s.endpoint(theirs, `${theirReceiver.url}/hook`);
      const { eventId } = await triggerEvent(h.ctx, theirs.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal(myReceiver.requests.length, 0);
      assert.equal(await countDeliveries(h, myEndpoint.id), 0);
      assert.deepEqual(
        theirReceiver.requests.map((r) => bodyOf(r).id),
        [eventId],
      );
    }));

  test('a batch of successes: settled and reset where pending, history kept where dropped, nothing where deleted', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      const receiver = await s.receiver();
      const [kept, paused, deleted] = [
        await s.endpoint(ws, `${receiver.url}/kept`),
        await s.endpoint(ws, `${receiver.url}/paused`),
        await s.endpoint(ws, `${receiver.url}/deleted`),
      ];
      await h.ctx.db
        .updateTable('webhook_endpoints')
        .set({ failure_count: 3 })
        .where('id', 'in', [kept.id, paused.id])
        .execute();
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await fanOutEvents(h.ctx);
      const now = h.clock.now();
      const claimed = await claimDueDeliveries(h.ctx.db, {
        now,
        leaseUntil: new Date(now.getTime() + minute),
        limit: 10,
        caps: { perEndpoint: 10, endpoints: [] },
      });
      assert.equal(claimed.length, 3);
      // While the attempts are in flight, one endpoint is switched off and one deleted.
      await patchEndpointApi(h, ws, paused.id, { enabled: false });
      await removeEndpoint(h.ctx, ws.id, deleted.id);

      const result = {
        ok: true,
        statusCode: 200,
        errorClass: null,
        address: '127.0.0.1',
        durationMs: 4,
        responseBody: 'ok',
      };
      await recordSuccesses(
        h.ctx,
        claimed.map((row) => ({ delivery: { ...row, payload: row.payload ?? '' }, startedAt: now, result })),
      );

      const keptDelivery = await onlyDelivery(h, kept);
      assert.equal(keptDelivery.status, 'delivered');
      assert.equal(keptDelivery.deliveredAt, h.clock.now().toISOString());
      assert.deepEqual(
        keptDelivery.attemptLog.map((a) => [
          a.attempt,
          a.statusCode,
          a.address,
          a.durationMs,
          a.responseBody,
        ]),
        [[1, 200, '127.0.0.1', 4, 'ok']],
      );
      assert.equal((await getEndpointApi(h, ws, kept.id)).failureCount, 0, 'a success resets the count');
      const pausedDelivery = await onlyDelivery(h, paused);
      assert.equal(pausedDelivery.status, 'dropped', 'a dropped delivery was settled anyway');
      assert.equal(pausedDelivery.attemptLog.length, 1, 'the attempt of a dropped delivery was not kept');
      assert.equal((await getEndpointApi(h, ws, paused.id)).failureCount, 3);
      assert.equal(await countDeliveries(h, deleted.id), 0);
      assert.equal(await countAttempts(h, deleted.id), 0, 'an attempt was written for a deleted endpoint');
    }));

  test('the engine’s batched success records the attempt, resets the failure count and releases the lease', () =>
    withScope(h, async (s) => {
      // deliverDue runs the production engine: this is the recorder the dispatcher uses.
      const { ws, receiver, endpoint } = await s.hooked();
      await h.ctx.db
        .updateTable('webhook_endpoints')
        .set({ failure_count: 7 })
        .where('id', '=', endpoint.id)
        .execute();
      for (let i = 0; i < 3; i++) await triggerEvent(h.ctx, ws.id, 'document.sent');
      assert.equal(await deliverDue(h.ctx), 3);
      assert.equal(receiver.requests.length, 3);
      const rows = await h.ctx.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'locked_until', 'attempts', 'delivered_at'])
        .where('endpoint_id', '=', endpoint.id)
        .execute();
      assert.equal(rows.length, 3);
      for (const row of rows) {
        assert.equal(row.status, 'delivered');
        assert.equal(row.locked_until, null, 'the lease is released');
        assert.equal(row.attempts, 1);
        assert.equal(row.delivered_at?.toISOString(), h.clock.now().toISOString());
      }
      assert.equal(await countAttempts(h, endpoint.id), 3, 'each attempt is recorded');
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 0, 'a success resets the count');
      assert.equal(await deliverDue(h.ctx), 0, 'nothing is left to send');
    }));

  test('a hand-back after the lease ran out leaves the claim another worker made since', () =>
    withScope(h, async (s) => {
      const { ws } = await s.hooked();
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await fanOutEvents(h.ctx);
      const claim = async (leaseMs: number) => {
        const now = h.clock.now();
        const leaseUntil = new Date(now.getTime() + leaseMs);
        const claimed = await claimDueDeliveries(h.ctx.db, {
          now,
          leaseUntil,
          limit: 10,
          caps: { perEndpoint: 10, endpoints: [] },
        });
        assert.equal(claimed.length, 1);
        return { id: (claimed[0] as { id: string }).id, leaseUntil };
      };
      const row = (id: string) =>
        h.ctx.db
          .selectFrom('webhook_deliveries')
          .select(['attempts', 'locked_until'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();

      const first = await claim(minute); // worker A
      h.clock.advance(minute + second); // A's lease runs out while A still holds the delivery
      const second_ = await claim(minute); // worker B
      assert.equal(second_.id, first.id);
      await releaseDeliveries(h.ctx.db, [first]); // A hands it back, too late
      const afterLate = await row(first.id);
      assert.equal(afterLate.attempts, 2, "B's attempt is still counted");
      assert.equal(afterLate.locked_until?.getTime(), second_.leaseUntil.getTime(), 'B still holds it');

      await releaseDeliveries(h.ctx.db, [second_]); // B hands it back under its own lease
      const afterOwn = await row(first.id);
      assert.equal(afterOwn.attempts, 1);
      assert.equal(afterOwn.locked_until, null);
    }));

  test('a waiting delivery whose body retention removed is dropped, not sent', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked();
      const { eventId } = await triggerEvent(h.ctx, ws.id, 'document.sent');
      await fanOutEvents(h.ctx);
      await h.ctx.db.deleteFrom('webhook_events').where('id', '=', eventId).execute();
      assert.equal(await deliverDue(h.ctx), 0);
      assert.equal(receiver.requests.length, 0);
      assert.equal((await onlyDelivery(h, endpoint)).status, 'dropped');
    }));

  test('an endpoint deleted between a failed attempt and its retry gets no retry', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(500));
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 1);

      const deleted = await callApi(h, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`, { key: ws.apiKey });
      assert.equal(deleted.status, 200, deleted.text);
      await assertDeletedEndpointGetsNothing(h, receiver, endpoint.id);
    }));

  test('an endpoint deleted while an attempt is in flight gets nothing more', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(neverAnswer);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      const pass = deliverDue(h.ctx);
      await waitFor(() => receiver.requests.length === 1, 2000, 'the first attempt');
      await removeEndpoint(h.ctx, ws.id, endpoint.id);
      await pass;
      await assertDeletedEndpointGetsNothing(h, receiver, endpoint.id);
    }));

  test('a delivery queued for an endpoint as it was switched off is not sent when it is switched back on', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked();
      await patchEndpointApi(h, ws, endpoint.id, { enabled: false });
      // A fan-out that read the endpoint as enabled just before: its delivery lands after the drop.
      const { eventId } = await triggerEvent(h.ctx, ws.id, 'document.sent');
      await fanOutEvents(h.ctx);
      const now = h.clock.now();
      await h.ctx.db
        .insertInto('webhook_deliveries')
        .values({
          id: h.ctx.ids.uuid(),
          workspace_id: ws.id,
          endpoint_id: endpoint.id,
          event_id: eventId,
          event_type: 'document.sent',
          next_attempt_at: now,
          created_at: now,
        })
        .execute();

      await patchEndpointApi(h, ws, endpoint.id, { enabled: true });
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 0, 'an event from while it was off was replayed');
      assert.equal((await onlyDelivery(h, endpoint)).status, 'dropped');
    }));

  test('an endpoint switched off while an attempt is in flight does not retry it after being switched on', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(neverAnswer);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      const pass = deliverDue(h.ctx);
      await waitFor(() => receiver.requests.length === 1, 2000, 'the first attempt');
      await patchEndpointApi(h, ws, endpoint.id, { enabled: false });
      await pass; // the attempt times out after the endpoint was switched off
      const afterPass = await onlyDelivery(h, endpoint);
      const failuresWhileOff = (await getEndpointApi(h, ws, endpoint.id)).failureCount;

      receiver.setHandler(answer(200));
      await patchEndpointApi(h, ws, endpoint.id, { enabled: true });
      h.clock.advance(day);
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 1, 'the delivery dropped by switching off was replayed');
      assert.equal(afterPass.status, 'dropped');
      assert.equal(failuresWhileOff, 0, 'a failure was counted against a switched-off endpoint');
    }));

  // --- 7. Fan-out once -----------------------------------------------------------------

  test('fan-out creates exactly one delivery per (event, endpoint), called twice or concurrently', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      const first = await s.receiver();
      const second = await s.receiver();
      const a = await s.endpoint(ws, `${first.url}/a`);
      const b = await s.endpoint(ws, `${second.url}/b`);
      const pairs = async () =>
        (
          await h.ctx.db
            .selectFrom('webhook_deliveries')
            .select(['event_id', 'endpoint_id'])
            .where('endpoint_id', 'in', [a.id, b.id])
            .execute()
        )
          .map((r) => `${r.event_id}/${r.endpoint_id}`)
          .sort();
      const expected = (eventIds: string[]) =>
        eventIds.flatMap((id) => [`${id}/${a.id}`, `${id}/${b.id}`]).sort();

      const eventIds: string[] = [];
      for (let i = 0; i < 3; i++) eventIds.push((await triggerEvent(h.ctx, ws.id, 'document.sent')).eventId);
      assert.equal(await fanOutEvents(h.ctx), 6);
      assert.equal(await fanOutEvents(h.ctx), 0);
      assert.deepEqual(await pairs(), expected(eventIds));

      for (let i = 0; i < 3; i++) eventIds.push((await triggerEvent(h.ctx, ws.id, 'document.sent')).eventId);
      const created = await Promise.all([fanOutEvents(h.ctx), fanOutEvents(h.ctx)]);
      assert.equal(created[0] + created[1], 6);
      assert.deepEqual(await pairs(), expected(eventIds));

      // The same events in the outbox again (as if written twice) add nothing.
      await h.ctx.db
        .insertInto('outbox')
        .columns(['event_id', 'workspace_id', 'type', 'created_at'])
        .expression(
          h.ctx.db
            .selectFrom('webhook_deliveries')
            .distinctOn('event_id')
            .select(['event_id', 'workspace_id', 'event_type', 'created_at'])
            .where('event_id', 'in', eventIds),
        )
        .execute();
      assert.equal(await fanOutEvents(h.ctx), 0);
      assert.equal(
        (await h.ctx.db.selectFrom('outbox').select('seq').where('event_id', 'in', eventIds).execute())
          .length,
        0,
        'fan-out leaves the events it took in the outbox',
      );
      assert.deepEqual(await pairs(), expected(eventIds));

      await deliverDue(h.ctx);
      for (const receiver of [first, second]) {
        assert.deepEqual(receiver.requests.map((r) => bodyOf(r).id as string).sort(), [...eventIds].sort());
      }
      // Each endpoint's delivery of an event has its own delivery id, named after the two.
      const ids = [...first.requests, ...second.requests].map((r) => header(r, 'x-service-delivery-id'));
      assert.equal(new Set(ids).size, 12);
      for (const [receiver, endpoint] of [
        [first, a],
        [second, b],
      ] as const) {
        for (const request of receiver.requests) {
          assert.equal(
            header(request, 'x-service-delivery-id'),
            nameBasedUuid(endpoint.id, bodyOf(request).id as string),
          );
        }
      }
    }));

  test('deliveries, their attempts and webhook bodies are pruned once older than the retention period (30 days)', () =>
    withScope(h, async (s) => {
      const { ws, endpoint } = await s.hooked();
      const deliveryIds = async () =>
        (
          await h.ctx.db
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('endpoint_id', '=', endpoint.id)
            .orderBy('created_at')
            .execute()
        ).map((r) => r.id);
      const attemptsOf = (id: string) => countRows(h.ctx, 'webhook_attempts', { delivery_id: id });

      const bodies = async () =>
        (
          await h.ctx.db
            .selectFrom('webhook_events')
            .select('id')
            .where('workspace_id', '=', ws.id)
            .orderBy('created_at')
            .execute()
        ).map((r) => r.id);
      const queued = async () =>
        (
          await h.ctx.db.selectFrom('outbox').select('event_id').where('workspace_id', '=', ws.id).execute()
        ).map((r) => r.event_id);

      const oldEvent = (await triggerEvent(h.ctx, ws.id, 'document.sent')).eventId;
      await deliverDue(h.ctx);
      const [old] = await deliveryIds();
      const oldTime = h.clock.now();
      h.clock.advance(30 * day - minute);
      const recentEvent = (await triggerEvent(h.ctx, ws.id, 'document.sent')).eventId;
      await deliverDue(h.ctx);
      const [, recent] = await deliveryIds();
      assert.ok(old && recent);
      assert.equal(await attemptsOf(old), 1);
      assert.deepEqual(await bodies(), [oldEvent, recentEvent]);
      // An event that waited in the outbox all along (no worker ran): queued at the old time.
      await h.ctx.db
        .insertInto('outbox')
        .values({ event_id: oldEvent, workspace_id: ws.id, type: 'document.sent', created_at: oldTime })
        .execute();

      await pruneOldDeliveries(h.ctx);
      assert.deepEqual(await deliveryIds(), [old, recent], 'pruned before 30 days had passed');
      assert.deepEqual(await bodies(), [oldEvent, recentEvent]);
      assert.deepEqual(await queued(), [oldEvent]);
      h.clock.advance(2 * minute);
      await pruneOldDeliveries(h.ctx);
      assert.deepEqual(await deliveryIds(), [recent]);
      assert.equal(await attemptsOf(old), 0, 'the attempts of a pruned delivery are left behind');
      assert.equal(await attemptsOf(recent), 1);
      assert.deepEqual(await bodies(), [recentEvent], 'the old body is left behind');
      assert.deepEqual(await queued(), [], 'an event 30 days in the outbox is still queued');
    }));

  // --- 8. Ping -------------------------------------------------------------------------

  test('sendPing sends a signed ping and returns its outcome', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(200, 'pong'));
      const sentAt = h.clock.now().toISOString();
      const result = await sendPing(h.ctx, ws.id, endpoint.id);

      assert.equal(result.ok, true);
      assert.equal(result.statusCode, 200);
      assert.equal(result.errorClass, null);
      assert.equal(typeof result.durationMs, 'number');
      assert.equal(receiver.requests.length, 1);
      const request = receiver.requests[0] as ReceivedRequest;
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/hook');
      assert.equal(header(request, 'content-type'), 'application/json');
      assert.equal(header(request, 'user-agent'), 'Service-Webhooks/1.0');
      assert.equal(header(request, 'x-service-event'), 'ping');
      assert.equal(header(request, 'x-service-delivery-id'), result.deliveryId);
      assert.match(result.deliveryId, uuidPattern);
      const signature = header(request, 'x-service-signature');
      assert.equal(signatureTime(signature), sentAt);
      assert.ok(verifySignature(endpoint.secret, signature, request.body), 'ping signature does not verify');

      const body = bodyOf(request);
      assert.deepEqual(Object.keys(body).sort(), ['createdAt', 'data', 'id', 'type']);
      assert.equal(body.id, result.eventId);
      assert.match(body.id as string, uuidPattern);
      assert.equal(body.type, 'ping');
      assert.equal(body.createdAt, sentAt);
      assert.deepEqual(Object.keys(body.data), ['message']);
      assert.equal(typeof body.data.message, 'string');

      const delivery = await onlyDelivery(h, endpoint);
      assert.equal(delivery.id, result.deliveryId);
      assert.equal(delivery.eventType, 'ping');
      assert.equal(delivery.status, 'delivered');
      assert.equal(delivery.attemptLog[0]?.responseBody, 'pong');
    }));

  test('a failed ping is not retried and does not count as an endpoint failure', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(500, 'broken'));
      const result = await sendPing(h.ctx, ws.id, endpoint.id);
      assert.equal(result.ok, false);
      assert.equal(result.statusCode, 500);
      assert.equal(result.errorClass, 'http-status');

      receiver.setHandler(answer(200));
      for (let i = 0; i < 6; i++) {
        h.clock.advance(hour);
        await deliverDue(h.ctx);
      }
      assert.equal(receiver.requests.length, 1);
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 0);
      const delivery = await onlyDelivery(h, endpoint);
      assert.equal(delivery.status, 'dropped');
      assert.equal(delivery.attempts, 1);
      assert.deepEqual(
        delivery.attemptLog.map((a) => [a.attempt, a.statusCode, a.errorClass, a.responseBody]),
        [[1, 500, 'http-status', 'broken']],
      );
    }));

  test('a ping reaches an endpoint switched off for failures, without switching it back on', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(500));
      for (let i = 0; i < 20; i++) await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).enabled, false);

      receiver.setHandler(answer(200));
      const result = await sendPing(h.ctx, ws.id, endpoint.id);
      assert.equal(result.ok, true);
      assert.equal(receiver.requests.length, 21);
      assert.equal(header(receiver.requests[20] as ReceivedRequest, 'x-service-event'), 'ping');
      const current = await getEndpointApi(h, ws, endpoint.id);
      assert.equal(current.enabled, false);
      assert.equal(current.disabledReason, 'failures');
    }));

  test('a ping to a timing-out receiver reports a timeout', () =>
    withScope(h, async (s) => {
      const { ws, endpoint } = await s.hooked(neverAnswer);
      const result = await sendPing(h.ctx, ws.id, endpoint.id);
      assert.equal(result.ok, false);
      assert.equal(result.statusCode, null);
      assert.equal(result.errorClass, 'timeout');
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 0);
    }));

  test('document events never send a ping, even to endpoints that subscribe to every event type', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      const receiver = await s.receiver();
      // At most 5 types per endpoint: two endpoints cover all six.
      await s.endpoint(ws, `${receiver.url}/first`, allEventTypes.slice(0, 5));
      await s.endpoint(ws, `${receiver.url}/second`, allEventTypes.slice(5));
      for (const type of allEventTypes) await triggerEvent(h.ctx, ws.id, type);
      await deliverDue(h.ctx);

      assert.ok(receiver.requests.length >= allEventTypes.length);
      const types = receiver.requests.map((r) => header(r, 'x-service-event'));
      assert.ok(!types.includes('ping'), `a ping was sent: ${types.join(', ')}`);
      assert.ok(!receiver.requests.some((r) => bodyOf(r).type === 'ping'));
      assert.deepEqual([...new Set(types)].sort(), [...allEventTypes].sort());
    }));

  // --- 10. Delivery log ----------------------------------------------------------------

  test('the delivery log lists deliveries newest first with every attempt and its details', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(
        inTurn(answer(200, 'accepted'), answer(503, 'busy'), answer(200, 'ok now'), answer(404, 'missing')),
      );
      const t0 = h.clock.now().getTime();
      const a = await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      h.clock.advance(minute);
      const b = await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      h.clock.advance(5 * minute);
      await deliverDue(h.ctx);
      h.clock.advance(minute);
      const c = await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 4);

      const log = await listEndpointDeliveries(h.ctx, ws.id, endpoint.id);
      const shape = log.map((d) => ({
        eventId: d.eventId,
        eventType: d.eventType,
        status: d.status,
        attempts: d.attempts,
        createdAt: d.createdAt,
        nextAttemptAt: d.nextAttemptAt,
        deliveredAt: d.deliveredAt,
        attemptLog: d.attemptLog.map(({ durationMs: _, ...rest }) => rest),
      }));
      const attempt = (n: number, at: number, statusCode: number, responseBody: string) => ({
        attempt: n,
        startedAt: iso(at),
        address: '127.0.0.1',
        statusCode,
        errorClass: statusCode < 300 ? null : 'http-status',
        responseBody,
      });
      assert.deepEqual(shape, [
        {
          eventId: c.eventId,
          eventType: 'document.sent',
          status: 'pending',
          attempts: 1,
          createdAt: iso(t0 + 7 * minute),
          nextAttemptAt: iso(t0 + 12 * minute),
          deliveredAt: null,
          attemptLog: [attempt(1, t0 + 7 * minute, 404, 'missing')],
        },
        {
          eventId: b.eventId,
          eventType: 'document.sent',
          status: 'delivered',
          attempts: 2,
          createdAt: iso(t0 + minute),
          nextAttemptAt: null,
          deliveredAt: iso(t0 + 6 * minute),
          attemptLog: [attempt(1, t0 + minute, 503, 'busy'), attempt(2, t0 + 6 * minute, 200, 'ok now')],
        },
        {
          eventId: a.eventId,
          eventType: 'document.sent',
          status: 'delivered',
          attempts: 1,
          createdAt: iso(t0),
          nextAttemptAt: null,
          deliveredAt: iso(t0),
          attemptLog: [attempt(1, t0, 200, 'accepted')],
        },
      ]);
      for (const delivery of log) {
        assert.match(delivery.id, uuidPattern);
        for (const entry of delivery.attemptLog) {
          assert.ok(Number.isInteger(entry.durationMs) && entry.durationMs >= 0 && entry.durationMs < 1000);
        }
      }
      // The log shows the delivery ids the receiver saw.
      assert.deepEqual(
        receiver.requests.map((r) => header(r, 'x-service-delivery-id')),
        [log[2]?.id, log[1]?.id, log[1]?.id, log[0]?.id],
      );
    }));

  test('the delivery log records timeouts and refused connections without a status code or body', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(neverAnswer);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      await receiver.close();
      h.clock.advance(5 * minute);
      await deliverDue(h.ctx);

      const delivery = await onlyDelivery(h, endpoint);
      assert.deepEqual(
        delivery.attemptLog.map((a) => [a.attempt, a.address, a.statusCode, a.errorClass, a.responseBody]),
        [
          [1, '127.0.0.1', null, 'timeout', null],
          [2, '127.0.0.1', null, 'connect', null],
        ],
      );
    }));
});

// ---------------------------------------------------------------------------------------
// 9. DNS rebinding: the real destination policy (no SIGNET_WEBHOOK_ALLOW_UNSAFE)
// ---------------------------------------------------------------------------------------

describeEachDatabase('webhook delivery checks the address again at connect time', (kind) => {
  const resolver = testResolver({ 'rebind.test-hooks.net': ['93.184.216.40'] });
  const h = useHarness(kind, { env: { SIGNET_WEBHOOK_TIMEOUT: '1s' }, resolver });
  const url = 'https://rebind.test-hooks.net/hook';

  for (const [label, addresses, reported] of [
    ['127.0.0.1', ['127.0.0.1'], '127.0.0.1'],
    ['127.0.0.1 among other loopback addresses', ['127.0.0.1', '127.0.0.2'], '127.0.0.1'],
    ['an IPv4-mapped IPv6 loopback address', ['::ffff:127.0.0.1'], '::ffff:127.0.0.1'],
  ] as const) {
    test(`a name registered as public that now resolves to ${label} is blocked, and nothing is sent`, () =>
      withScope(h, async (s) => {
        const ws = await s.workspace();
        const receiver = await s.receiver();
        resolver.names['rebind.test-hooks.net'] = ['93.184.216.40'];
        const endpoint = await s.endpoint(ws, url);
        assert.equal(endpoint.url, url);

        resolver.names['rebind.test-hooks.net'] = [...addresses];
        await triggerEvent(h.ctx, ws.id, 'document.sent');
        await deliverDue(h.ctx);

        const delivery = await onlyDelivery(h, endpoint);
        assert.equal(delivery.status, 'pending');
        assert.deepEqual(
          delivery.attemptLog.map((a) => [a.attempt, a.address, a.statusCode, a.errorClass, a.responseBody]),
          // No answer to keep: what blocked it is kept instead, for the log to say.
          [
            [
              1,
              reported,
              null,
              'blocked',
              `rebind.test-hooks.net resolves to ${reported}, which is not a public address`,
            ],
          ],
        );
        assert.equal(receiver.requests.length, 0);

        // The retry is judged the same way.
        h.clock.advance(5 * minute);
        await deliverDue(h.ctx);
        const again = await onlyDelivery(h, endpoint);
        assert.equal(again.attemptLog[1]?.errorClass, 'blocked');
        assert.equal(receiver.requests.length, 0);
      }));
  }

  test('a name that stops resolving is a dns failure', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      resolver.names['gone.test-hooks.net'] = ['93.184.216.41'];
      const endpoint = await s.endpoint(ws, 'https://gone.test-hooks.net/hook');
      delete resolver.names['gone.test-hooks.net'];
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);

      const delivery = await onlyDelivery(h, endpoint);
      assert.equal(delivery.status, 'pending');
      assert.deepEqual(
        delivery.attemptLog.map((a) => [a.address, a.statusCode, a.errorClass]),
        [[null, null, 'dns']],
      );
    }));

  test('a name that resolves to no address at all is a dns failure', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      resolver.names['empty.test-hooks.net'] = ['93.184.216.42'];
      const endpoint = await s.endpoint(ws, 'https://empty.test-hooks.net/hook');
      resolver.names['empty.test-hooks.net'] = [];
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);

      const delivery = await onlyDelivery(h, endpoint);
      assert.equal(delivery.attemptLog[0]?.errorClass, 'dns');
      assert.equal(delivery.attemptLog[0]?.statusCode, null);
    }));
});

// ---------------------------------------------------------------------------------------
// 11, 12. The running dispatcher, on the real clock
// ---------------------------------------------------------------------------------------

describeEachDatabase('the running webhook dispatcher', (kind) => {
  const resolver = testResolver();
  const h = useHarness(kind, {
    env: { SIGNET_WEBHOOK_ALLOW_UNSAFE: '1', SIGNET_WEBHOOK_TIMEOUT: '2s' },
    resolver,
  });
  const live = (): Context => ({ ...h.ctx, clock: systemClock });

  test('the running dispatcher checks the address at connect time too: a name now resolving to 127.0.0.1 is blocked', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      const receiver = await s.receiver();
      resolver.names['rebind-live.test-hooks.net'] = ['93.184.216.43'];
      const endpoint = await s.endpoint(ws, 'https://rebind-live.test-hooks.net/hook');
      resolver.names['rebind-live.test-hooks.net'] = ['127.0.0.1'];
      // The production policy (no SIGNET_WEBHOOK_ALLOW_UNSAFE) on the same database.
      const ctx = live();
      const strict: Context = {
        ...ctx,
        config: { ...ctx.config, webhooks: { ...ctx.config.webhooks, allowUnsafe: false } },
      };
      const dispatcher = await startDispatcher(strict, { subscribe: h.subscribe });
      try {
        await triggerEvent(strict, ws.id, 'document.sent');
        let attempts: DeliveryView['attemptLog'] = [];
        const deadline = Date.now() + 3000;
        while (attempts.length === 0 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          attempts = (await deliveriesOf(h, endpoint))[0]?.attemptLog ?? [];
        }
        assert.deepEqual(
          attempts.map((a) => [a.attempt, a.address, a.statusCode, a.errorClass]),
          [[1, '127.0.0.1', null, 'blocked']],
        );
        assert.equal(receiver.requests.length, 0);
      } finally {
        await dispatcher.stop();
      }
    }));

  /** A workspace with one endpoint at a fresh receiver, and a dispatcher running on the real clock. */
  async function liveScene(s: Scope) {
    const ctx = live();
    const { ws, receiver, endpoint } = await s.hooked();
    const dispatcher = await startDispatcher(ctx, { subscribe: h.subscribe });
    return { ctx, ws, receiver, endpoint, dispatcher };
  }

  test('the first attempt reaches the receiver well under 1 s after the event commits, woken by NOTIFY', () =>
    withScope(h, async (s) => {
      assert.equal(h.config.webhooks.sweepIntervalMs, 10 * minute);
      const { ctx, ws, receiver, endpoint, dispatcher } = await liveScene(s);
      try {
        await dispatcher.idle();
        for (let i = 0; i < 3; i++) {
          const started = Date.now();
          const { eventId } = await triggerEvent(ctx, ws.id, 'document.sent');
          await waitFor(() => receiver.requests.length === i + 1, 3000, `delivery ${i + 1}`);
          const request = receiver.requests[i] as ReceivedRequest;
          const latency = request.receivedAt - started;
          assert.ok(latency < 1000, `delivery ${i + 1} took ${latency} ms`);
          assert.equal(bodyOf(request).id, eventId);
          assert.ok(verifySignature(endpoint.secret, header(request, 'x-service-signature'), request.body));
        }
        await dispatcher.idle();
        const deliveries = await deliveriesOf(h, endpoint);
        assert.deepEqual(
          deliveries.map((d) => [d.status, d.attempts]),
          [
            ['delivered', 1],
            ['delivered', 1],
            ['delivered', 1],
          ],
        );
      } finally {
        await dispatcher.stop();
      }
    }));

  test('a lone success is recorded without waiting for a full batch', () =>
    withScope(h, async (s) => {
      const { ctx, ws, receiver, endpoint, dispatcher } = await liveScene(s);
      try {
        await triggerEvent(ctx, ws.id, 'document.sent');
        await waitFor(() => receiver.requests.length === 1, 3000, 'the delivery');
        // No idle() here: that would write the batch itself.
        let statuses: string[] = [];
        await waitFor(
          async () => {
            statuses = (await deliveriesOf(h, endpoint)).map((d) => d.status);
            return statuses.join() === 'delivered';
          },
          2000,
          () => `the delivery to be recorded delivered (it is ${statuses.join() || 'missing'})`,
        );
      } finally {
        await dispatcher.stop();
      }
    }));

  async function slowReceiversCannotStarveOthers(
    slowCount: number,
    concurrency: number | null,
  ): Promise<void> {
    await withScope(h, async (s) => {
      assert.equal(h.config.webhooks.perEndpointConcurrency, 4);
      const ctx = live();
      const config =
        concurrency === null
          ? ctx.config
          : { ...ctx.config, webhooks: { ...ctx.config.webhooks, concurrency } };
      const ws = await s.workspace();
      const slow: Receiver[] = [];
      const slowEndpoints: string[] = [];
      for (let i = 0; i < slowCount; i++) {
        const receiver = await s.receiver(neverAnswer);
        slow.push(receiver);
        slowEndpoints.push((await s.endpoint(ws, `${receiver.url}/slow-${i}`)).id);
      }
      const fast = await s.receiver(answer(200));
      const b = await s.endpoint(ws, `${fast.url}/b`);
      for (let i = 0; i < 20; i++) await triggerEvent(ctx, ws.id, 'document.sent');
      const slowCounts = () => slow.map((r) => r.requests.length).join('/');

      const started = Date.now();
      const dispatcher = await startDispatcher({ ...ctx, config }, { subscribe: h.subscribe });
      try {
        await waitFor(
          () => fast.requests.length === 20,
          1500,
          () =>
            `B to receive all 20 deliveries (B got ${fast.requests.length}, slow ones got ${slowCounts()})`,
        );
        const elapsed = Date.now() - started;
        assert.ok(elapsed < 1500, `B took ${elapsed} ms`);
        // The slow endpoints' first attempts are still hanging: at most 4 each, none finished.
        for (const receiver of slow) {
          assert.ok(
            receiver.requests.length >= 1 && receiver.requests.length <= 4,
            `slow receivers got ${slowCounts()}`,
          );
        }
        const attemptsOfSlow = await h.ctx.db
          .selectFrom('webhook_attempts')
          .select('attempt')
          .where('endpoint_id', 'in', slowEndpoints)
          .execute();
        assert.equal(attemptsOfSlow.length, 0);
        assert.equal(new Set(fast.requests.map((r) => bodyOf(r).id)).size, 20);
      } finally {
        await dispatcher.stop();
      }
      const deliveredToB = (await deliveriesOf(h, b)).filter((d) => d.status === 'delivered');
      assert.equal(deliveredToB.length, 20);
    });
  }

  test('a receiver that never answers cannot starve another endpoint (per-endpoint concurrency 4)', () =>
    slowReceiversCannotStarveOthers(1, null));

  test('three receivers that never answer cannot starve a fourth endpoint (default concurrency)', () =>
    slowReceiversCannotStarveOthers(3, null));

  test('a slow endpoint cannot starve another even when its backlog exceeds the overall concurrency', () =>
    slowReceiversCannotStarveOthers(1, 8));
});
