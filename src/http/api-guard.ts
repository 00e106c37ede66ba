// The gate in front of every /v1 request, in the order the spec implies:
// authenticate the key -> take a token from its bucket -> check the plan.
// Requests without a valid key draw from a bucket of their client address, so a flood of
// bad keys is limited too. Every response carries the rate-limit headers.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import type { KeyIdentity } from '../keys/keys.service.ts';
import { ApiError } from './errors.ts';
import type { RateLimiter } from './rate-limiter.ts';

declare module 'fastify' {
  interface FastifyRequest {
    identity: KeyIdentity | null;
  }
}

const bearerPattern = /^Bearer +(\S+) *$/i;

/** Readable without a key: the contract itself. Limited per client address, never per key. */
export const publicApiPath = '/v1/openapi.json';

function isPublic(request: FastifyRequest): boolean {
  return (
    (request.method === 'GET' || request.method === 'HEAD') &&
    request.url.startsWith(publicApiPath) &&
    (request.url.length === publicApiPath.length || request.url[publicApiPath.length] === '?')
  );
}

/** HTTP/1.1 requires a Host header (HTTP/1.0 does not). */
export function lacksHost(request: FastifyRequest): boolean {
  return request.headers.host === undefined && request.raw.httpVersion !== '1.0';
}

/** Takes a token from `bucket` and labels the answer with what is left, whatever follows. */
async function takeAndLabel(ctx: Context, rateLimiter: RateLimiter, reply: FastifyReply, bucket: string) {
  const result = await rateLimiter.take(bucket, ctx.clock.now().getTime());
  reply.header('X-RateLimit-Limit', String(rateLimiter.burst));
  reply.header('X-RateLimit-Remaining', String(result.remaining));
  return result;
}

/** Who a bearer secret is (keys/keys.service.ts: authenticateApiKey), or null for no valid key. */
export type Authenticate = (ctx: Context, secret: string) => Promise<KeyIdentity | null>;

/** `authenticate` is passed in (by app.ts) so that http/ stays below keys/, which uses its errors. */
export function createApiGuard(ctx: Context, rateLimiter: RateLimiter, authenticate: Authenticate) {
  return async function apiGuard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const open = isPublic(request);
    const match = open ? null : bearerPattern.exec(request.headers.authorization ?? '');
    let identity: KeyIdentity | null;
    try {
      identity = match?.[1] ? await authenticate(ctx, match[1]) : null;
    } catch (error) {
      // The key could not be checked (the database is unreachable): the answer is still
      // limited and still carries the headers, drawn from the client address's bucket.
      await takeAndLabel(ctx, rateLimiter, reply, `ip:${request.ip}`);
      throw error;
    }
    // Known from here on, even when refused below: the request's log line names the key.
    request.identity = identity;
    const bucket = identity ? `key:${identity.keyId}` : `ip:${request.ip}`;
    const limit = await takeAndLabel(ctx, rateLimiter, reply, bucket);
    // The server lets such requests through to answer them here, in the envelope.
    if (lacksHost(request)) throw new ApiError('malformed-request');
    if (!limit.allowed) {
      ctx.metrics.rateLimitRejections.inc({ limiter: 'api' });
      throw new ApiError('rate-limited', { 'Retry-After': String(limit.retryAfterSeconds) });
    }
    if (open) return;
    if (!identity) throw new ApiError('invalid-api-key');
    ctx.keyUsage.touch(identity.keyId);
    if (identity.plan !== 'max') throw new ApiError('plan-required');
  };
}

/**
 * A route's own onRequest hook, after the guard: the operation writes documents, and a read
 * key (keys/api-key-scope.ts) is refused 403 `insufficient-scope` before its body is read,
 * so a read key learns nothing from a write's validation.
 */
export async function requireWriteScope(request: FastifyRequest): Promise<void> {
  if (!request.identity) throw new ApiError('invalid-api-key');
  if (request.identity.scope !== 'write') throw new ApiError('insufficient-scope');
}

/** The caller's workspace; only reachable behind the guard. */
export function workspaceOf(request: FastifyRequest): string {
  if (!request.identity) throw new ApiError('invalid-api-key');
  return request.identity.workspaceId;
}
