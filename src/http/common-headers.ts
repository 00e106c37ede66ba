// **The** headers every answer of every listener carries, whatever answers it (a route, the
// error handler, a 404, a plain page, /metrics, /healthz): nosniff, so that no browser takes a
// JSON body, a PNG or a CSV for a page it should run; and `X-Request-Id`, the id the server's
// log lines of that request carry (`reqId`), so a support request can name the one answer. Answers no hook sees set them themselves:
// a URL Fastify cannot decode (app.ts's frameworkErrors, `setCommonHeaders`) and the answers
// written on a raw socket (client-error.ts, `commonHeaderLines`).
import type { FastifyInstance, FastifyReply } from 'fastify';

const commonHeaders: Record<string, string> = { 'x-content-type-options': 'nosniff' };

/** The headers as raw HTTP lines, for answers written on the socket. */
export const commonHeaderLines = Object.entries(commonHeaders).map(
  ([name, value]) => `${name.replace(/(^|-)[a-z]/g, (c) => c.toUpperCase())}: ${value}`,
);

/** Sets them on `reply`: for answers that no hook sees (Fastify's frameworkErrors). */
export function setCommonHeaders(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(commonHeaders)) reply.header(name, value);
  reply.header('x-request-id', reply.request.id);
}

export function addCommonHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    setCommonHeaders(reply);
    done(null, payload);
  });
}
