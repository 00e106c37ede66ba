// The webhook receiver of `npm run bench:webhooks`, in its own process so it does not
// share a core's event loop with what it measures. Answers 200 at once and remembers when
// each request arrived; the parent asks over IPC how many have arrived, and for the log.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// When a request arrived: epoch milliseconds to a fraction of one, the clock of
// webhook-setup.ts's epochMs() (not imported from there, to keep this process small).
const epochMs = () => performance.timeOrigin + performance.now();

const arrivals: Array<[string, number]> = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const at = epochMs();
    const body = Buffer.concat(chunks).toString('utf8');
    const id = /"id":"([0-9a-f-]{36})"/.exec(body)?.[1] ?? '';
    arrivals.push([id, at]);
    res.end('ok');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('message', (message: { type: string }) => {
  if (message.type === 'arrivals') process.send?.({ arrivals: arrivals.splice(0) });
  if (message.type === 'count') process.send?.({ count: arrivals.length });
  if (message.type === 'stop') server.close(() => process.exit(0));
});
