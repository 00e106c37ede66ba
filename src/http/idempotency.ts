// **The** Idempotency-Key rule (POST /v1/webhook-endpoints): a client that retries a create
// after a lost answer sends the same key, and gets the first successful answer again
// (marked `Idempotent-Replayed: true`) instead of a second record. The key is the client's:
// 1 to 255 visible ASCII characters, per workspace, remembered 24 hours from its first
// success. The same key with another body is 409 `idempotency-key-reused`. A refused
// request is not remembered: nothing was made, so a retry runs again.
//
// The kept answer holds the endpoint's signing secret (a create's answer is the one place
// it is shown), so it is stored sealed: AES-256-GCM under a key every process shares
// (server_secrets), bound to its workspace and Idempotency-Key, so a row read from the
// database or a backup, or moved to another key, yields nothing.
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { sharedServerSecret } from '../db/server-secrets.ts';
import { ApiError } from './errors.ts';

export const idempotencyWindowMs = 24 * 60 * 60 * 1000;

export interface IdempotencyKey {
  key: string;
  /** The request body's hash: keys sorted, so the same JSON in another order is the same body. */
  requestSha256: string;
}

/**
 * The request's key and body hash, or null without the header; 400 for a key out of shape.
 * `scope` names the operation (so one key used on two operations is a reuse, not a replay)
 * and a file sent beside the JSON (a multipart request's PDF); an endpoint's create hashes its
 * body alone, as it always has.
 */
export function idempotencyKeyOf(
  request: FastifyRequest,
  scope?: { operation: string; body?: unknown; file?: Uint8Array | null },
): IdempotencyKey | null {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return null;
  if (typeof header !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(header))
    throw new ApiError('invalid-idempotency-key');
  const hash = createHash('sha256');
  if (!scope) hash.update(canonicalJson(request.body));
  else {
    hash.update(`${scope.operation}\n${canonicalJson(scope.body ?? request.body)}\n`);
    if (scope.file) hash.update(createHash('sha256').update(scope.file).digest('hex'));
  }
  return { key: header, requestSha256: hash.digest('hex') };
}

/**
 * The key of one item of a request that makes many things (a template's documents): the
 * request's key and the item's index, with the item's own body hash, so each item is
 * claimed, replayed or refused as a request of its own would be.
 */
export function itemIdempotencyKey(
  request: IdempotencyKey,
  operation: string,
  index: number,
  item: unknown,
): IdempotencyKey {
  const hash = createHash('sha256').update(`${operation}\n${index}\n${canonicalJson(item)}\n`);
  return { key: `${request.key}#${index}`, requestSha256: hash.digest('hex') };
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

/**
 * The key answers are sealed with, read once per process through `ctx.db` (then kept): a
 * change that seals inside its own transaction reads it first, so sealing there never waits
 * on the database (on PGlite, a second query would wait for the transaction it is in).
 */
export const answerKey = (ctx: Pick<Context, 'db' | 'clock' | 'ids'>) =>
  sharedServerSecret(ctx, 'idempotency-answer-aes');

const sealedPrefix = 'v1.';

/** What binds a sealed answer to its row: the same answer under another key does not open. */
const boundTo = (workspaceId: string, key: string) => Buffer.from(`${workspaceId}\n${key}`);

/** The answer as stored: `v1.` + base64url of a 12-byte nonce, the 16-byte tag and the ciphertext. */
export async function sealAnswer(
  ctx: Pick<Context, 'db' | 'clock' | 'ids'>,
  row: { workspaceId: string; key: string },
  answer: string,
): Promise<string> {
  const nonce = ctx.ids.randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await answerKey(ctx), nonce);
  cipher.setAAD(boundTo(row.workspaceId, row.key));
  const sealed = Buffer.concat([cipher.update(answer, 'utf8'), cipher.final()]);
  return sealedPrefix + Buffer.concat([nonce, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** The stored answer, opened; throws when it was not sealed for this row by this installation. */
export async function openAnswer(
  ctx: Pick<Context, 'db' | 'clock' | 'ids'>,
  row: { workspaceId: string; key: string },
  stored: string,
): Promise<string> {
  if (!stored.startsWith(sealedPrefix)) throw new Error('an idempotent answer stored unsealed');
  const bytes = Buffer.from(stored.slice(sealedPrefix.length), 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', await answerKey(ctx), bytes.subarray(0, 12));
  decipher.setAAD(boundTo(row.workspaceId, row.key));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}
