// A minimal Signet webhook receiver on node:http and @signet/client.
//
//   SIGNET_WEBHOOK_SECRET=whsec_… npm run receiver      (port 4000, POST /hooks; on the pinned Node 24)
//   SIGNET_API_KEY=sgn_… npx signet listen --api-url http://localhost:3000/v1 \
//     --forward-to http://localhost:4000/hooks   (prints the secret: the same on every run)
//
// In this repository `npm run receiver` loads @signet/client from its source (the
// @signet/source condition); a copy elsewhere installs the client's release tarball
// (`npm run client:pack`, then `npm install ./signet-client-0.1.0.tgz`: packages/client/README.md).
//
// What every receiver should do, in order:
// 1. verify the signature on the raw body, before parsing it (400 if it fails);
// 2. answer 2xx at once, and do the work after: Signet waits at most 10 seconds;
// 3. skip a delivery id it has already handled: a retry can arrive after a success;
// 4. ignore event types it does not know, without failing.
import { createServer, type Server } from 'node:http';
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from '@signet/client';

export interface ReceiverOptions {
  /** The endpoint's signing secret (`whsec_…`). */
  secret: () => string;
  /** The work, done after the answer. */
  onEvent: (event: WebhookEvent, deliveryId: string) => void | Promise<void>;
  /** How many delivery ids to remember (a database table in production). */
  remember?: number;
}

const handled = new Set([
  'document.sent',
  'document.opened',
  'document.signed',
  'document.completed',
  'document.declined',
  'document.expired',
  'ping',
]);

export function createReceiverServer(options: ReceiverOptions): Server {
  const seen = new Set<string>();
  const remember = options.remember ?? 10_000;
  return createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/hooks') {
      response.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const rawBody = Buffer.concat(chunks);
      let event: WebhookEvent;
      try {
        event = await verifyWebhook(
          rawBody,
          request.headers['x-service-signature'] as string | undefined,
          options.secret(),
        );
      } catch (error) {
        const reason = error instanceof WebhookVerificationError ? error.reason : 'unreadable';
        response.writeHead(400, { 'content-type': 'text/plain' }).end(`refused: ${reason}\n`);
        return;
      }
      const deliveryId = String(request.headers['x-service-delivery-id'] ?? '');
      response.writeHead(204).end();
      if (seen.has(deliveryId) || !handled.has(event.type)) return;
      seen.add(deliveryId);
      if (seen.size > remember) seen.delete(seen.values().next().value as string);
      setImmediate(() => {
        Promise.resolve(options.onEvent(event, deliveryId)).catch((error: unknown) => console.error(error));
      });
    });
  });
}

if (import.meta.main) {
  const secret = process.env.SIGNET_WEBHOOK_SECRET;
  if (!secret) {
    console.error('Set SIGNET_WEBHOOK_SECRET to the endpoint secret (signet listen prints one).');
    process.exit(2);
  }
  const port = Number(process.env.PORT ?? 4000);
  createReceiverServer({
    secret: () => secret,
    onEvent: (event, deliveryId) => {
      const subject = event.type === 'ping' ? event.data.message : event.data.document.title;
      console.log(`${event.createdAt}  ${event.type.padEnd(18)} ${subject}  (delivery ${deliveryId})`);
    },
  }).listen(port, () => console.log(`Listening on http://localhost:${port}/hooks`));
}
