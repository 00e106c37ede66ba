// A local HTTP receiver for webhook tests: records every request (headers and the raw
// body) and answers with whatever the test's handler decides. With `tls`, it serves HTTPS
// with the given key and certificate (test/fixtures holds a self-signed one no client trusts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

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
