// Password resets: the way back into an account whose password is forgotten.
// - "Forgot your password?" takes an address and always answers "we sent a mail": an
//   account's address gets a one-time link, any other address a mail saying it has no
//   account (so the answer is true, and the same, either way; the work is one look-up
//   and one queued mail either way). Limited like sign-up (account-limits.ts).
// - A link works once, for an hour, and only while the password is the one it was asked
//   under: a password set since (another link, the account page, the operator) ends it.
//   Using one uses every open link of the account.
// - Setting the new password ends every session of the account and logs the browser that
//   set it in (the link proved the mailbox, the form the new password): a new session, its
//   address known and a device cookie (account-limits.ts), as after a log-in.
// - Operators (`signet user reset-password`) get the same link printed, to hand over
//   themselves, or set a password read from standard input.
import type { Kysely, Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import { firstLanguage, type Language } from '../i18n/languages.ts';
import { translator } from '../i18n/messages.ts';
import { refusalOf } from '../i18n/refusals.ts';
import { InputError } from '../input-error.ts';
import { caseFoldedEmail, emailKey, normalizeEmail } from '../mail/address.ts';
import { queueMail } from '../mail/mail.service.ts';
import { passwordResetMail, passwordResetNoAccountMail } from '../mail/templates.ts';
import { recordLoginAddress } from './account-limits.ts';
import {
  deleteSessionsOfUser,
  findFirstMembership,
  findPasswordReset,
  findUserToLogIn,
  insertPasswordReset,
  updatePasswordHash,
  usePasswordResets,
} from './accounts.repository.ts';
import { checkEmail, hashToken, setPassword, startSession } from './accounts.service.ts';
import { issueDeviceCookie } from './device-cookies.ts';
import { hashPassword, passwordProblem } from './passwords.ts';

type Db = Kysely<Database> | Transaction<Database>;

export const resetValidityMs = 60 * 60 * 1000;

function findAccount(ctx: Context, email: string) {
  return findUserToLogIn(ctx.db, { emailKey: emailKey(email), caseFolded: caseFoldedEmail(email) });
}

/** A new reset of the user: its link (the token is kept only as its hash). */
async function newResetLink(db: Db, ctx: Context, userId: string): Promise<string> {
  const token = ctx.ids.randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  await insertPasswordReset(db, {
    id: ctx.ids.uuid(),
    token_hash: hashToken(token),
    user_id: userId,
    created_at: now,
    expires_at: new Date(now.getTime() + resetValidityMs),
    used_at: null,
  });
  return `${ctx.config.publicUrl}/password-reset/${token}`;
}

/**
 * "Forgot your password?": mails the address a link, or a note that it has no account; in
 * the account's own language, else the page's (`language`), else English.
 */
export async function requestPasswordReset(
  ctx: Context,
  input: { email: string; language?: Language },
): Promise<void> {
  const problem = checkEmail(input.email);
  if (problem) throw refusalOf({ email: problem });
  const email = normalizeEmail(input.email);
  const user = await findAccount(ctx, email);
  const tr = translator(firstLanguage(user?.language, input.language));
  await ctx.db.transaction().execute(async (trx) => {
    const mail = user
      ? passwordResetMail(tr, {
          link: await newResetLink(trx, ctx, user.id),
          validMinutes: resetValidityMs / 60_000,
        })
      : passwordResetNoAccountMail(tr, {
          signUpLink: `${ctx.config.publicUrl}/signup`,
          logInLink: `${ctx.config.publicUrl}/login`,
        });
    // The account's own spelling of its address when it has one (where its other mails
    // go, never a look-alike typed instead), else the address as typed.
    const to = user?.email ?? email;
    await queueMail(trx, ctx, {
      workspaceId: null,
      documentId: null,
      recipientId: null,
      to,
      priority: 'urgent',
      ...mail,
    });
  });
}

type ResetRow = NonNullable<Awaited<ReturnType<typeof findPasswordReset>>>;

function usable(ctx: Context, row: ResetRow | undefined): row is ResetRow {
  return (
    row !== undefined &&
    row.used_at === null &&
    row.expires_at > ctx.clock.now() &&
    row.created_at >= row.password_changed_at
  );
}

/** The account behind a reset link, if the link can still be used. */
export async function findUsableReset(ctx: Context, token: string): Promise<{ email: string } | null> {
  if (!token || token.length > 100) return null;
  const row = await findPasswordReset(ctx.db, hashToken(token));
  return usable(ctx, row) ? { email: row.email } : null;
}

/**
 * Sets the new password through a reset link: every session of the account ends, and the
 * browser that set it is logged in (`session` null when the account belongs to no
 * workspace any more: it logs in like anyone else). Null when the link cannot be used.
 */
export async function completePasswordReset(
  ctx: Context,
  token: string,
  input: { password: string; clientAddress: string },
): Promise<{ session: { token: string; deviceCookie: string } | null } | null> {
  if (!token || token.length > 100) return null;
  const row = await findPasswordReset(ctx.db, hashToken(token));
  if (!usable(ctx, row)) return null;
  const problem = passwordProblem(input.password);
  if (problem) throw refusalOf({ password: problem });
  const hash = await hashPassword(ctx, input.password);
  const now = ctx.clock.now();
  const userId = row.user_id;
  const sessionToken = await ctx.db.transaction().execute(async (trx) => {
    if (!(await usePasswordResets(trx, userId, row.id, now))) return undefined;
    await updatePasswordHash(trx, userId, hash, now);
    await deleteSessionsOfUser(trx, userId);
    const membership = await findFirstMembership(trx, userId);
    return membership ? startSession(trx, ctx, userId, membership.workspace_id) : null;
  });
  if (sessionToken === undefined) return null;
  if (sessionToken === null) return { session: null };
  await recordLoginAddress(ctx, { id: userId, emailKey: row.email_key }, input.clientAddress);
  return {
    session: {
      token: sessionToken,
      deviceCookie: await issueDeviceCookie(ctx, { id: userId, password_hash: hash }),
    },
  };
}

function noAccount(email: string): InputError {
  return new InputError({ email: `No account has the address ${email}.` });
}

/** For operators: a reset link for the account, to hand over by a channel they trust. */
export async function operatorResetLink(
  ctx: Context,
  email: string,
): Promise<{ link: string; validMinutes: number }> {
  const user = await findAccount(ctx, normalizeEmail(email));
  if (!user) throw noAccount(email);
  return { link: await newResetLink(ctx.db, ctx, user.id), validMinutes: resetValidityMs / 60_000 };
}

/** For operators: the account's password set anew, every session of it ended. */
export async function operatorSetPassword(ctx: Context, email: string, password: string): Promise<void> {
  const user = await findAccount(ctx, normalizeEmail(email));
  if (!user) throw noAccount(email);
  await setPassword(ctx, user.id, password);
}
