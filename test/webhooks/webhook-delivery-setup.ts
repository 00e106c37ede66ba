// What the webhook delivery suites in this folder share (webhook-delivery-request, -outcomes,
// -retries, -fan-out, -dispatcher): a self-signed certificate for 127.0.0.1, the receiver
// example of docs/api.md imported exactly as published, answers and receivers of every kind,
// a version 3 UUID computed independently of the database's, `withScope` (everything one
// test opens, closed in `finally`: its endpoints deleted with their deliveries, so nothing of
// it is left due for the next test, whatever the clock says), the endpoint API calls and the
// delivery log's reads; and the harness most of them run on (a test clock, http://127.0.0.1
// receivers allowed, a 1 s timeout, the fake resolver).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { DatabaseKind } from '../../src/db/connect.ts';
import { triggerEvent } from '../../src/demo/trigger.ts';
import { type DeliveryView, listEndpointDeliveries } from '../../src/webhooks/deliveries.service.ts';
import { deliverDue } from '../../src/webhooks/dispatcher.ts';
import { removeEndpoint } from '../../src/webhooks/endpoints.service.ts';
import {
  type ApiEndpoint,
  type CreatedApiEndpoint,
  callApi,
  countRows,
  createTestWorkspace,
  type Harness,
  type TestWorkspace,
  testResolver,
  useHarness,
} from '../support/harness.ts';
import {
  type ReceivedRequest,
  type Receiver,
  type ReceiverHandler,
  type ReceiverOptions,
  signaturePattern,
  startReceiver,
} from '../support/receiver.ts';

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

export type Endpoint = ApiEndpoint;
export type CreatedEndpoint = CreatedApiEndpoint;

/** A self-signed certificate for 127.0.0.1 (test only): valid, but no client trusts it. */
export const fixtures = join(import.meta.dirname, '..', 'fixtures');
export const selfSigned = {
  key: readFileSync(join(fixtures, 'self-signed.key'), 'utf8'),
  cert: readFileSync(join(fixtures, 'self-signed.crt'), 'utf8'),
};

export const second = 1000;
export const minute = 60 * second;
export const hour = 60 * minute;
export const day = 24 * hour;

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const recipientKeys = [
  'email',
  'fullName',
  'id',
  'language',
  'role',
  'signedAt',
  'signingMethod',
  'signingOrder',
];

export type DocumentedVerifier = (
  rawBody: string | Buffer,
  header: string | undefined,
  secret: string,
  now?: number,
) => boolean;

/**
 * The receiver example of docs/api.md ("Verifying the signature"), imported exactly as
 * published, so the documentation cannot drift from what Signet sends.
 */
export async function documentedVerifier(): Promise<DocumentedVerifier> {
  const docs = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'api.md'), 'utf8');
  const section = docs.slice(docs.indexOf('### Verifying the signature'));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(code, 'docs/api.md has no js block under "Verifying the signature"');
  const module = await import(`data:text/javascript,${encodeURIComponent(code)}`);
  assert.equal(typeof module.verifySignet, 'function');
  return module.verifySignet;
}

export function signatureTime(header: string | string[] | undefined): string {
  const match = signaturePattern.exec(typeof header === 'string' ? header : '');
  assert.ok(match, `malformed x-service-signature: ${String(header)}`);
  return match[1] as string;
}

export const answer =
  (status: number, body = '', headers: Record<string, string> = {}): ReceiverHandler =>
  (_request, response) => {
    response.writeHead(status, headers);
    response.end(body);
  };

/** A receiver that reads the request and then never answers. */
export const neverAnswer: ReceiverHandler = () => {};

/** Resolves when `response` closes; fails the test if it never does (a liveness bound, not a measurement). */
export function closeOf(response: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the receiver's answer was never closed")), 10_000);
    response.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Answers in turn with each handler, then keeps using the last one. */
export function inTurn(...handlers: ReceiverHandler[]): ReceiverHandler {
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
export function nameBasedUuid(namespace: string, name: string): string {
  const bytes = (uuid: string) => Buffer.from(uuid.replaceAll('-', ''), 'hex');
  const digest = createHash('md5').update(bytes(namespace)).update(bytes(name)).digest();
  digest[6] = ((digest[6] as number) & 0x0f) | 0x30;
  digest[8] = ((digest[8] as number) & 0x3f) | 0x80;
  const hex = digest.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function bodyOf(
  request: ReceivedRequest,
): Record<string, unknown> & { data: Record<string, unknown> } {
  return JSON.parse(request.body);
}

export async function waitFor(
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
export interface Scope {
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

export async function withScope(h: Harness, body: (s: Scope) => Promise<void>): Promise<void> {
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

export async function createEndpointApi(
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

export async function getEndpointApi(h: Harness, ws: TestWorkspace, id: string): Promise<Endpoint> {
  const response = await callApi(h, 'GET', `/v1/webhook-endpoints/${id}`, { key: ws.apiKey });
  assert.equal(response.status, 200, response.text);
  return response.body.data as Endpoint;
}

export async function patchEndpointApi(
  h: Harness,
  ws: TestWorkspace,
  id: string,
  body: Record<string, unknown>,
): Promise<Endpoint> {
  const response = await callApi(h, 'PATCH', `/v1/webhook-endpoints/${id}`, { key: ws.apiKey, body });
  assert.equal(response.status, 200, response.text);
  return response.body.data as Endpoint;
}

export async function deliveriesOf(
  h: Harness,
  endpoint: { id: string; workspaceId: string },
): Promise<DeliveryView[]> {
  return listEndpointDeliveries(h.ctx, endpoint.workspaceId, endpoint.id);
}

/** The one delivery of an endpoint that has exactly one. */
export async function onlyDelivery(
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
export async function assertFirstAttemptFails(h: Harness, s: Scope, url: string, errorClass: string) {
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
export async function assertDeletedEndpointGetsNothing(h: Harness, receiver: Receiver, endpointId: string) {
  receiver.setHandler(answer(200));
  for (let i = 0; i < 4; i++) {
    h.clock.advance(hour);
    await deliverDue(h.ctx);
  }
  assert.equal(receiver.requests.length, 1);
  assert.equal(await countDeliveries(h, endpointId), 0);
  assert.equal(await countAttempts(h, endpointId), 0, 'attempts of the deleted endpoint were left behind');
}

export const countAttempts = (h: Harness, endpointId: string) =>
  countRows(h.ctx, 'webhook_attempts', { endpoint_id: endpointId });

export const countDeliveries = (h: Harness, endpointId: string) =>
  countRows(h.ctx, 'webhook_deliveries', { endpoint_id: endpointId });

export const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The enclosing suite's harness for delivery with a test clock: http://127.0.0.1 receivers
 * allowed (SIGNET_WEBHOOK_ALLOW_UNSAFE=1), a 1 s timeout, and `resolver`, the fake DNS the
 * tests change.
 */
export function useDeliveryHarness(kind: DatabaseKind) {
  const resolver = testResolver();
  const h = useHarness(kind, {
    env: { SIGNET_WEBHOOK_ALLOW_UNSAFE: '1', SIGNET_WEBHOOK_TIMEOUT: '1s' },
    resolver,
  });
  return { h, resolver };
}
