// **The** headers every answer of every listener carries, whatever answers it (a route, the
// error handler, a 404, a plain page, /metrics, /healthz): nosniff, so that no browser takes a
// JSON body, a PNG or a CSV for a page it should run. The answers written on a raw socket
// (client-error.ts) list them too, from `commonHeaderLines`.
import type { FastifyInstance } from 'fastify';

const commonHeaders: Record<string, string> = { 'x-content-type-options': 'nosniff' };

/** The headers as raw HTTP lines, for answers written on the socket. */
export const commonHeaderLines = Object.entries(commonHeaders).map(
  ([name, value]) => `${name.replace(/(^|-)[a-z]/g, (c) => c.toUpperCase())}: ${value}`,
);

export function addCommonHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    for (const [name, value] of Object.entries(commonHeaders)) reply.header(name, value);
    done(null, payload);
  });
}
