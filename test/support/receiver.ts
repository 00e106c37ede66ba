// A local HTTP receiver for webhook tests: records every request (headers and the raw
// body) and answers with whatever the test's handler decides. With `tls`, it serves HTTPS
// with the given key and certificate (test/fixtures holds a self-signed one no client trusts).
// Also what a receiver does with a request: read a header, check the signature the way
// docs/api.md describes it (written here, not taken from src/webhooks/signature.ts), and a
// real signed delivery to check (a ping).
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Context } from '../../src/context.ts';
import { sendPing } from '../../src/webhooks/deliveries.service.ts';
import { createEndpoint, type WebhookEndpoint } from '../../src/webhooks/endpoints.service.ts';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  receivedAt: number;
}

export type ReceiverHandler = (request: ReceivedRequest, response: ServerResponse) => unknown;

/** `tls`: serve HTTPS with this key and certificate (PEM). */
export interface ReceiverOptions {
  tls?: { key: string; cert: string };
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  setHandler(handler: ReceiverHandler): void;
  close(): Promise<void>;
}

export async function startReceiver(
  handler: ReceiverHandler = (_r, res) => res.end('ok'),
  options: ReceiverOptions = {},
): Promise<Receiver> {
  let current = handler;
  const requests: ReceivedRequest[] = [];
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      requests.push(received);
      Promise.resolve(current(received, res)).catch(() => res.destroy());
    });
  };
  const server = options.tls ? createTlsServer(options.tls, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    setHandler(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The x-service-signature header with one secret: `t=<timestamp>,v1=<64 hex digits>`. */
export const signaturePattern = /^t=(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z),v1=([0-9a-f]{64})$/;

/** The header in general: `t=<timestamp>` and one `v1=` per secret in force (two during a rotation). */
const signaturesPattern = /^t=(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)((?:,v1=[0-9a-f]{64})+)$/;

/** The `v1=` signatures of a header, in order (none when it is malformed). */
export function signaturesOf(header: string | undefined): string[] {
  const match = signaturesPattern.exec(header ?? '');
  return match ? (match[2] as string).split(',v1=').slice(1) : [];
}

/**
 * The receiver's check, written from the documented scheme (docs/api.md): the header is
 * `t=<timestamp>` then `v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>` once per
 * secret in force; it passes when any one of them was made with `secret`.
 */
export function verifySignature(secret: string, header: string | undefined, rawBody: string): boolean {
  const timestamp = signaturesPattern.exec(header ?? '')?.[1];
  if (!timestamp) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest();
  return signaturesOf(header).some((hex) => timingSafeEqual(Buffer.from(hex, 'hex'), expected));
}

/** A header the request carries exactly once. */
export function header(request: ReceivedRequest, name: string): string {
  const value = request.headers[name];
  assert.equal(typeof value, 'string', `header ${name}`);
  return value as string;
}

/**
 * A real signed delivery to check: a ping to a new endpoint of the workspace at the
 * receiver's /hooks, as received, with its signature header and the endpoint (its secret).
 */
export async function receivePing(
  ctx: Context,
  workspaceId: string,
  receiver: Receiver,
): Promise<{ endpoint: WebhookEndpoint & { secret: string }; delivery: ReceivedRequest; header: string }> {
  const endpoint = await createEndpoint(ctx, workspaceId, {
    url: `${receiver.url}/hooks`,
    events: ['document.sent'],
  });
  assert.equal((await sendPing(ctx, workspaceId, endpoint.id)).ok, true);
  const delivery = receiver.requests.at(-1);
  assert.ok(delivery);
  return { endpoint, delivery, header: String(delivery.headers['x-service-signature']) };
}
