// **The** Idempotency-Key rule (POST /v1/webhook-endpoints): a client that retries a create
// after a lost answer sends the same key, and gets the first successful answer again
// (marked `Idempotent-Replayed: true`) instead of a second record. The key is the client's:
// 1 to 255 visible ASCII characters, per workspace, remembered 24 hours from its first
// success. The same key with another body is 409 `idempotency-key-reused`. A refused
// request is not remembered: nothing was made, so a retry runs again.
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';

export const idempotencyWindowMs = 24 * 60 * 60 * 1000;

export interface IdempotencyKey {
  key: string;
  /** The request body's hash: keys sorted, so the same JSON in another order is the same body. */
  requestSha256: string;
}

/** The request's key and body hash, or null without the header; 400 for a key out of shape. */
export function idempotencyKeyOf(request: FastifyRequest): IdempotencyKey | null {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return null;
  if (typeof header !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(header))
    throw new ApiError('invalid-idempotency-key');
  return {
    key: header,
    requestSha256: createHash('sha256').update(canonicalJson(request.body)).digest('hex'),
  };
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
