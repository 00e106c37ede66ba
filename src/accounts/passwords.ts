// Passwords: scrypt from node:crypto (memory-hard, no native addon), a random salt per
// password, parameters stored with the hash so they can be raised later without breaking
// old hashes. Comparison in constant time. Passwords are never logged or stored in clear.
// New hashes take the context's cost (context.ts `passwordCost`): `passwordCost` below in
// every process Signet runs; tests pass a cheaper one, as frameworks' test settings do.
import { type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import type { KeyedSentence } from '../i18n/refusals.ts';

export const minPasswordLength = 10;
export const maxPasswordLength = 200;

/** scrypt's work factors: N (a power of two), r and p. */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/** N = 2^15, r = 8: about 32 MB and tens of milliseconds per hash on a server core. */
export const passwordCost: ScryptCost = { N: 32_768, r: 8, p: 1 };
const keyLength = 32;

function derive(password: string, salt: Buffer, options: ScryptCost): Promise<Buffer> {
  const params: ScryptOptions = { ...options, maxmem: 128 * options.N * options.r * 2 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, keyLength, params, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** Why a new password is refused, a sentence of the catalogues, or null. */
export function passwordProblem(password: string): KeyedSentence | null {
  if (password.length < minPasswordLength)
    return { key: 'auth.refusal.passwordShort', values: { count: minPasswordLength } };
  if (password.length > maxPasswordLength)
    return { key: 'auth.refusal.passwordLong', values: { count: maxPasswordLength } };
  return null;
}

/** A new hash of `password`: a salt from the context's ids, at the context's scrypt cost. */
export async function hashPassword(
  ctx: { ids: { randomBytes(size: number): Buffer }; passwordCost: ScryptCost },
  password: string,
): Promise<string> {
  const cost = ctx.passwordCost;
  const salt = ctx.ids.randomBytes(16);
  const key = await derive(password, salt, cost);
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A hash no password matches, of the cost new hashes take, verified when an email is unknown
 * so that a failed log-in takes as long whether the account exists or not.
 */
export function unmatchableHash(cost: ScryptCost): string {
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(keyLength).toString('base64')}`;
}
