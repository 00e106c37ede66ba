// **The** limits on the web application's account actions: guessing passwords slowly,
// without handing a stranger a way to lock anyone out, and sign-ups that cannot flood a
// mailbox. All buckets live in one limiter (Redis with REDIS_URL, so every process shares
// them); each take names its shape.
//
// Log-in, for an attempt on account A from client address X:
//   1. the pair (A, X): 10 attempts, then 1 a minute: one address guessing one account;
//   2. the address X: 30, then 1 every 20 s: one address guessing many accounts;
//   3. the account A: 30, then 1 a minute, from every address together: many addresses
//      guessing one account. When strangers have spent it, an address that A has logged in
//      from before still gets its own pair's attempts, so the real owner is never locked out.
//   4. a browser holding A's device cookie (device-cookies.ts: set at each right password)
//      takes none of the above, only its own bucket (A, device): 10, then 1 a minute. So a
//      stranger sharing the owner's address (a NAT, an office) who spends (A, X), X or A
//      does not lock the owner's browser out, and the cookie does not make guesses unlimited.
//   An address counts as logged in from (rule 3) and a device cookie is set (rule 4) at a
//   right password, and also where the account's owner proved their mailbox and chose the
//   password without typing it at /login: confirming a sign-up, accepting an invitation,
//   setting a new password through a reset link. So an owner who never logged in since
//   signing up is not locked out by strangers either.
// Sign-up: per address typed (3, then 1 every 10 minutes: at most that many mails reach a
// mailbox) and per client address (10, then 1 a minute). "Forgot your password?" has the
// same shapes in buckets of its own (it mails too).
// Behind a reverse proxy, X is the proxy unless SIGNET_TRUST_PROXY is set: then everyone
// shares one address bucket (docs/deployment.md says so).
import { createHash } from 'node:crypto';
import type { Context } from '../context.ts';
import type { BucketShape, RateLimiter } from '../http/rate-limiter.ts';
import { caseFoldedEmail, emailKey } from '../mail/address.ts';
import { findUserToLogIn, hasLoginAddress, upsertLoginAddress } from './accounts.repository.ts';
import { verifiedDevice } from './device-cookies.ts';

export const accountLimitShapes = {
  loginPair: { burst: 10, refillPerSecond: 1 / 60 },
  loginAddress: { burst: 30, refillPerSecond: 1 / 20 },
  loginAccount: { burst: 30, refillPerSecond: 1 / 60 },
  loginDevice: { burst: 10, refillPerSecond: 1 / 60 },
  signupEmail: { burst: 3, refillPerSecond: 1 / 600 },
  signupAddress: { burst: 10, refillPerSecond: 1 / 60 },
  resetEmail: { burst: 3, refillPerSecond: 1 / 600 },
  resetAddress: { burst: 10, refillPerSecond: 1 / 60 },
} satisfies Record<string, BucketShape>;

/** Allowed, or refused with the seconds until the next attempt may come. */
export type LimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

function decide(results: Array<{ allowed: boolean; retryAfterSeconds: number }>): LimitDecision {
  const refused = results.filter((r) => !r.allowed);
  if (refused.length === 0) return { allowed: true };
  return { allowed: false, retryAfterSeconds: Math.max(...refused.map((r) => r.retryAfterSeconds)) };
}

/** An address as stored for a user: never in clear, and meaningless for another user. */
export function loginAddressHash(key: string, clientAddress: string): string {
  return createHash('sha256').update(`${key}\n${clientAddress}`).digest('hex');
}

/** Whether a log-in attempt for `email` from `clientAddress` may be checked now. */
export async function takeLoginAttempt(
  ctx: Context,
  limiter: RateLimiter,
  input: { email: string; clientAddress: string; deviceCookie?: string | undefined },
): Promise<LimitDecision> {
  const key = emailKey(input.email);
  const now = ctx.clock.now().getTime();
  const { loginPair, loginAddress, loginAccount, loginDevice } = accountLimitShapes;
  if (input.deviceCookie) {
    const user = await findUserToLogIn(ctx.db, { emailKey: key, caseFolded: caseFoldedEmail(input.email) });
    const device = user ? await verifiedDevice(ctx, user, input.deviceCookie) : null;
    if (user && device)
      return decide([await limiter.take(`login:device:${user.id}:${device}`, now, loginDevice)]);
  }
  const [pair, address] = await Promise.all([
    limiter.take(`login:pair:${key}:${input.clientAddress}`, now, loginPair),
    limiter.take(`login:address:${input.clientAddress}`, now, loginAddress),
  ]);
  const first = decide([pair, address]);
  if (!first.allowed) return first;
  const account = await limiter.take(`login:account:${key}`, now, loginAccount);
  if (account.allowed) return first;
  if (await hasLoginAddress(ctx.db, key, loginAddressHash(key, input.clientAddress))) return first;
  return decide([account]);
}

/** Remembers that the user logged in from `clientAddress` (after a right password). */
export async function recordLoginAddress(
  ctx: Context,
  user: { id: string; emailKey: string },
  clientAddress: string,
): Promise<void> {
  await upsertLoginAddress(ctx.db, user.id, loginAddressHash(user.emailKey, clientAddress), ctx.clock.now());
}

/**
 * The two buckets of a form that mails an address it is given (sign-up, password reset):
 * per typed address and per client address, each form with buckets of its own.
 */
async function takeMailingAttempt(
  ctx: Context,
  limiter: RateLimiter,
  form: 'signup' | 'reset',
  input: { email: string; clientAddress: string },
): Promise<LimitDecision> {
  const now = ctx.clock.now().getTime();
  return decide(
    await Promise.all([
      limiter.take(`${form}:email:${emailKey(input.email)}`, now, accountLimitShapes[`${form}Email`]),
      limiter.take(`${form}:address:${input.clientAddress}`, now, accountLimitShapes[`${form}Address`]),
    ]),
  );
}

/** Whether a sign-up for `email` from `clientAddress` may go ahead (and mail) now. */
export function takeSignupAttempt(
  ctx: Context,
  limiter: RateLimiter,
  input: { email: string; clientAddress: string },
): Promise<LimitDecision> {
  return takeMailingAttempt(ctx, limiter, 'signup', input);
}

/** Whether a "Forgot your password?" for `email` from `clientAddress` may go ahead (and mail) now. */
export function takeResetAttempt(
  ctx: Context,
  limiter: RateLimiter,
  input: { email: string; clientAddress: string },
): Promise<LimitDecision> {
  return takeMailingAttempt(ctx, limiter, 'reset', input);
}
