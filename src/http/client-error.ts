// Requests Node's HTTP parser refuses before Fastify sees them (a body framed two ways,
// a header block over 16 KB, a broken request line): answered on the socket in the
// envelope, with a stable code and the rate-limit headers of the client's address, like
// every other answer of the API. The connection is closed after: its framing is unknown.
import type { Socket } from 'node:net';
import type { Context } from '../context.ts';
import { type ErrorCode, errorStatus } from './errors.ts';
import type { RateLimiter } from './rate-limiter.ts';

const reasons: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

export function createClientErrorHandler(ctx: Context, rateLimiter: RateLimiter) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const code: ErrorCode =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 'header-too-large'
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'request-timeout'
          : 'malformed-request';
    const status = errorStatus[code];
    rateLimiter
      .take(`ip:${socket.remoteAddress ?? 'unknown'}`, ctx.clock.now().getTime())
      .then(
        (limit) => limit.remaining,
        () => 0,
      )
      .then((remaining) => {
        if (!socket.writable) return;
        const body = JSON.stringify({ ok: false, error: code });
        socket.end(
          [
            `HTTP/1.1 ${status} ${reasons[status]}`,
            'Content-Type: application/json; charset=utf-8',
            `Content-Length: ${Buffer.byteLength(body)}`,
            `X-RateLimit-Limit: ${rateLimiter.burst}`,
            `X-RateLimit-Remaining: ${remaining}`,
            'Connection: close',
            '',
            body,
          ].join('\r\n'),
        );
      });
  };
}
