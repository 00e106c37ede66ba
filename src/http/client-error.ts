// Requests Node's HTTP server never hands to Fastify (a body framed two ways, a header
// block over 16 KB, a broken request line, a CONNECT): answered on the socket in the
// envelope, with a stable code and the rate-limit headers of the client's address, like
// every other answer of the API (no body for HEAD). The connection is closed after: its
// framing is unknown.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context } from '../context.ts';
import { commonHeaderLines } from './common-headers.ts';
import { type ErrorCode, errorStatus } from './errors.ts';
import type { RateLimiter } from './rate-limiter.ts';

const reasons: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** Writes the envelope of `code` on the socket, with the address's rate-limit headers, and closes it. */
function answerOnSocket(
  ctx: Context,
  rateLimiter: RateLimiter,
  socket: Duplex & { remoteAddress?: string | undefined },
  code: ErrorCode,
  options: { head: boolean; extraHeaders?: string[] },
): void {
  const status = errorStatus[code];
  rateLimiter
    .take(`ip:${socket.remoteAddress ?? 'unknown'}`, ctx.clock.now().getTime())
    .then(
      (limit) => limit.remaining,
      () => 0,
    )
    .then((remaining) => {
      // A socket nobody can answer on any more is let go at once; one answered is let go
      // once the answer is written, whatever the client does with its side.
      if (!socket.writable) {
        socket.destroy();
        return;
      }
      const body = JSON.stringify({ ok: false, error: code });
      // No request was parsed, so none has an id: this answer gets one, and the log line says it.
      const requestId = ctx.ids.uuid();
      ctx.log.info(
        { reqId: requestId, code, remoteAddress: socket.remoteAddress },
        'malformed HTTP answered',
      );
      socket.end(
        [
          `HTTP/1.1 ${status} ${reasons[status]}`,
          'Content-Type: application/json; charset=utf-8',
          `Content-Length: ${Buffer.byteLength(body)}`,
          `X-RateLimit-Limit: ${rateLimiter.burst}`,
          `X-RateLimit-Remaining: ${remaining}`,
          ...commonHeaderLines,
          `X-Request-Id: ${requestId}`,
          ...(options.extraHeaders ?? []),
          'Connection: close',
          '',
          options.head ? '' : body,
        ].join('\r\n'),
        () => socket.destroy(),
      );
    });
}

export function createClientErrorHandler(ctx: Context, rateLimiter: RateLimiter) {
  return (error: Error & { code?: string; rawPacket?: unknown }, socket: Duplex): void => {
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
    // A HEAD request's answer has no body, even this one (a client would read it as the
    // start of the next answer).
    const head =
      Buffer.isBuffer(error.rawPacket) && error.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
    answerOnSocket(ctx, rateLimiter, socket, code, { head });
  };
}

/**
 * CONNECT (a proxy tunnel) is nothing Signet serves; Node hands it to this listener
 * instead of a route, and without one it drops the connection unanswered.
 */
export function createConnectHandler(ctx: Context, rateLimiter: RateLimiter) {
  return (_request: IncomingMessage, socket: Duplex): void => {
    answerOnSocket(ctx, rateLimiter, socket, 'method-not-allowed', {
      head: false,
      extraHeaders: ['Allow: GET, HEAD, POST, PATCH, DELETE'],
    });
  };
}
