// Accounts of the web application: sign-up (confirmed by mail), sign-in, sessions and
// passwords. Rules:
// - A session is a random token in the browser's cookie; the database keeps only its
//   SHA-256, so every process shares sessions and a stolen database holds no usable one.
//   It ends after 12 hours unused or 7 days after sign-in, at sign-out, and for every
//   browser of the user when the password changes.
// - Nothing says whether an email is registered: sign-in failures read the same (and take
//   as long) for unknown addresses and wrong passwords, and a sign-up always answers
//   "check your inbox"; the mail tells an existing account holder to sign in instead.
import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database, MemberRole, Plan } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { defaultLanguage, type Language, parseLanguage } from '../i18n/languages.ts';
import { type MessageKey, translator } from '../i18n/messages.ts';
import { type KeyedSentence, refusalOf } from '../i18n/refusals.ts';
import { InputError } from '../input-error.ts';
import { caseFoldedEmail, emailAddressProblem, emailKey, normalizeEmail } from '../mail/address.ts';
import { queueMail } from '../mail/mail.service.ts';
import { accountExistsMail, signupConfirmationMail } from '../mail/templates.ts';
import { drawableText, drawingRefusal } from '../pdf/fonts.ts';
import { findWorkspace, insertWorkspace } from '../workspaces/workspaces.repository.ts';
import { recordLoginAddress } from './account-limits.ts';
import {
  deleteSession,
  deleteSessionByTokenHash,
  deleteSessionsOfUser,
  findFirstMembership,
  findPendingSignupFor,
  findSessionByTokenHash,
  findSignupRequest,
  findUser,
  findUserByEmailKey,
  findUserToLogIn,
  findWorkspacesOfUser,
  insertMembership,
  insertSession,
  insertSignupRequest,
  insertUser,
  moveSession,
  supersedeSignups,
  touchSession,
  updatePasswordHash,
  updateUserLanguage,
  useSignupRequest,
  workspaceHasDocument,
} from './accounts.repository.ts';
import { issueDeviceCookie } from './device-cookies.ts';
import { hashPassword, passwordProblem, unmatchableHash, verifyPassword } from './passwords.ts';

type Db = Kysely<Database> | Transaction<Database>;

export const sessionIdleMs = 12 * 60 * 60 * 1000;
export const sessionLifetimeMs = 7 * 24 * 60 * 60 * 1000;
/** last_seen_at is written at most this often per session, not on every request. */
const touchEveryMs = 60 * 1000;
export const signupValidityMs = 24 * 60 * 60 * 1000;

export interface SessionUser {
  sessionId: string;
  userId: string;
  email: string;
  workspaceId: string;
  workspaceName: string;
  plan: Plan;
  role: MemberRole;
  /** The workspace's time zone: the pages show times in it (`formatTime`). */
  timeZone: string;
  /** Their own language (users.language), or null: their browser's (web/member-language.ts). */
  language: Language | null;
}

/** Tokens (sessions, sign-up links, invitations) are stored as their SHA-256 only. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function newToken(ctx: Context): string {
  return ctx.ids.randomBytes(32).toString('base64url');
}

export { emailKey };

const emailProblems = {
  invalid: 'auth.refusal.emailInvalid',
  'trailing-dot': 'auth.refusal.emailTrailingDot',
  'mixed-scripts': 'auth.refusal.emailMixedScripts',
} as const satisfies Record<string, MessageKey>;

/** The sentence for an address the email rule refuses (mail/address.ts), or null. */
export function checkEmail(email: string): KeyedSentence | null {
  const problem = emailAddressProblem(normalizeEmail(email));
  return problem ? { key: emailProblems[problem] } : null;
}

const maxWorkspaceNameLength = 100;

function checkWorkspaceName(name: string): KeyedSentence | string | null {
  const trimmed = name.trim();
  if (!trimmed) return { key: 'auth.refusal.workspaceNameMissing' };
  if (trimmed.length > maxWorkspaceNameLength)
    return { key: 'auth.refusal.workspaceNameLong', values: { count: maxWorkspaceNameLength } };
  return drawingRefusal('name', trimmed);
}

/**
 * Step one of sign-up: validates, then mails a confirmation link (or, for an address that
 * already has an account, a note to sign in). The answer is the same either way.
 */
export async function requestSignup(
  ctx: Context,
  input: {
    email: string;
    password: string;
    workspaceName: string;
    /** The sign-up page's language: the mail's, and the account's own once confirmed. */
    language?: Language;
  },
): Promise<void> {
  const tr = translator(input.language ?? defaultLanguage);
  const problems: Record<string, KeyedSentence | string> = {};
  const emailIssue = checkEmail(input.email);
  if (emailIssue) problems.email = emailIssue;
  const passwordIssue = passwordProblem(input.password);
  if (passwordIssue) problems.password = passwordIssue;
  const nameIssue = checkWorkspaceName(input.workspaceName);
  if (nameIssue) problems.workspaceName = nameIssue;
  if (Object.keys(problems).length) throw refusalOf(problems);

  const email = normalizeEmail(input.email);
  const now = ctx.clock.now();
  const passwordHash = await hashPassword(ctx, input.password);
  const token = newToken(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    const existing = await findUserByEmailKey(trx, emailKey(email));
    const mail = existing
      ? accountExistsMail(tr, { signInLink: `${ctx.config.publicUrl}/login` })
      : signupConfirmationMail(tr, {
          link: `${ctx.config.publicUrl}/signup/confirm/${token}`,
          workspaceName: drawableText(input.workspaceName.trim()),
          validHours: signupValidityMs / 3_600_000,
        });
    if (!existing) {
      // Only the newest link works: an earlier one's page would otherwise offer to create
      // an account that its twin may have created already.
      await supersedeSignups(trx, caseFoldedEmail(email), now);
      await insertSignupRequest(trx, {
        id: ctx.ids.uuid(),
        token_hash: hashToken(token),
        email,
        password_hash: passwordHash,
        workspace_name: drawableText(input.workspaceName.trim()),
        created_at: now,
        expires_at: new Date(now.getTime() + signupValidityMs),
        used_at: null,
        language: input.language ?? null,
      });
    }
    // Urgent: the person who signed up is waiting for it.
    await queueMail(trx, ctx, {
      workspaceId: null,
      documentId: null,
      recipientId: null,
      to: email,
      priority: 'urgent',
      ...mail,
    });
  });
}

/** The pending sign-up behind a confirmation link, if it can still be confirmed. */
export async function findPendingSignup(
  ctx: Context,
  token: string,
): Promise<{ email: string; workspaceName: string } | null> {
  const row = await findSignupRequest(ctx.db, hashToken(token));
  if (!row || row.used_at || row.expires_at <= ctx.clock.now()) return null;
  // The address got an account meanwhile: confirming would fail, so the page must not offer it.
  if (await findUserByEmailKey(ctx.db, emailKey(row.email))) return null;
  return { email: row.email, workspaceName: row.workspace_name };
}

/**
 * Step two: the link's owner confirms. Creates the user, a workspace on the Free plan
 * that they own, and a session. Null when the link is unknown, used or expired, or the
 * address got an account meanwhile.
 */
export async function confirmSignup(
  ctx: Context,
  token: string,
  clientAddress: string,
): Promise<{ sessionToken: string; deviceCookie: string } | null> {
  const now = ctx.clock.now();
  const confirmed = await ctx.db.transaction().execute(async (trx) => {
    const row = await findSignupRequest(trx, hashToken(token));
    if (!row || row.used_at || row.expires_at <= now) return null;
    if (!(await useSignupRequest(trx, row.id, now))) return null;
    if (await findUserByEmailKey(trx, emailKey(row.email))) return null;
    const { userId, workspaceId } = await insertAccount(trx, ctx, {
      email: row.email,
      passwordHash: row.password_hash,
      workspaceName: row.workspace_name,
      plan: 'free',
      language: row.language,
    });
    const sessionToken = await startSession(trx, ctx, userId, workspaceId);
    return {
      sessionToken,
      user: { id: userId, email_key: emailKey(row.email), password_hash: row.password_hash },
    };
  });
  if (!confirmed) return null;
  return {
    sessionToken: confirmed.sessionToken,
    ...(await countAsLogIn(ctx, confirmed.user, clientAddress)),
  };
}

/**
 * Confirming a sign-up or accepting an invitation proves the mailbox and sets the password:
 * it counts as a log-in from that address (account-limits.ts), with a device cookie.
 */
export async function countAsLogIn(
  ctx: Context,
  user: { id: string; email_key: string; password_hash: string },
  clientAddress: string,
): Promise<{ deviceCookie: string }> {
  await recordLoginAddress(ctx, { id: user.id, emailKey: user.email_key }, clientAddress);
  return { deviceCookie: await issueDeviceCookie(ctx, user) };
}

/** A user who owns a new workspace (sign-up, `signet user create`, the demo login). */
async function insertAccount(
  trx: Db,
  ctx: Context,
  input: { email: string; passwordHash: string; workspaceName: string; plan: Plan; language?: string | null },
): Promise<{ userId: string; workspaceId: string }> {
  const now = ctx.clock.now();
  const userId = ctx.ids.uuid();
  const workspaceId = ctx.ids.uuid();
  await insertWorkspace(trx, {
    id: workspaceId,
    name: input.workspaceName,
    plan: input.plan,
    created_at: now,
  });
  await insertUser(trx, {
    id: userId,
    email: input.email,
    email_key: emailKey(input.email),
    password_hash: input.passwordHash,
    created_at: now,
    password_changed_at: now,
    language: input.language ?? null,
  });
  await insertMembership(trx, { workspace_id: workspaceId, user_id: userId, role: 'owner', created_at: now });
  return { userId, workspaceId };
}

/** A new session of `userId` in `workspaceId`; returns the token for the cookie. */
export async function startSession(
  db: Db,
  ctx: Context,
  userId: string,
  workspaceId: string,
): Promise<string> {
  const now = ctx.clock.now();
  const token = newToken(ctx);
  await insertSession(db, {
    id: ctx.ids.uuid(),
    token_hash: hashToken(token),
    user_id: userId,
    workspace_id: workspaceId,
    created_at: now,
    last_seen_at: now,
    expires_at: new Date(now.getTime() + sessionLifetimeMs),
  });
  return token;
}

/**
 * A session token for the right email and password; `unconfirmed` (with when the link
 * expires) for the right password of a sign-up not confirmed yet, which only the person who
 * chose that password learns; null otherwise, in the same time (one password check each).
 */
export async function logIn(
  ctx: Context,
  input: { email: string; password: string; clientAddress: string },
): Promise<
  | { sessionToken: string; deviceCookie: string; language: Language | null }
  | { unconfirmedUntil: Date }
  | null
> {
  const user = await findUserToLogIn(ctx.db, {
    emailKey: emailKey(input.email),
    caseFolded: caseFoldedEmail(input.email),
  });
  const pending = user
    ? undefined
    : await findPendingSignupFor(ctx.db, caseFoldedEmail(input.email), ctx.clock.now());
  const hash = user?.password_hash ?? pending?.password_hash ?? unmatchableHash(ctx.passwordCost);
  const matches = await verifyPassword(input.password, hash);
  if (!user && pending && matches) return { unconfirmedUntil: pending.expires_at };
  if (!user || !matches) return null;
  const membership = await findFirstMembership(ctx.db, user.id);
  if (!membership) return null;
  await recordLoginAddress(ctx, { id: user.id, emailKey: user.email_key }, input.clientAddress);
  return {
    sessionToken: await startSession(ctx.db, ctx, user.id, membership.workspace_id),
    deviceCookie: await issueDeviceCookie(ctx, user),
    // Their own language, for the browser's next log-in pages (web/auth.pages.ts).
    language: user.language ? parseLanguage(user.language) : null,
  };
}

/**
 * Sets the member's own language (a tag of i18n/languages.ts, read as a recipient's is), or
 * none (`''`: the workspace's default); a tag Signet has no catalogue of is refused.
 */
export async function setMemberLanguage(
  ctx: Context,
  session: SessionUser,
  tag: string,
): Promise<Language | null> {
  const language = tag === '' ? null : parseLanguage(tag);
  if (tag !== '' && !language) throw refusalOf({ language: { key: 'account.language.refusal' } });
  await updateUserLanguage(ctx.db, session.userId, language);
  return language;
}

/** Who a session token belongs to, if the session is still valid. */
export async function resolveSession(ctx: Context, token: string): Promise<SessionUser | null> {
  if (!token || token.length > 100) return null;
  const row = await findSessionByTokenHash(ctx.db, hashToken(token));
  if (!row) return null;
  const now = ctx.clock.now();
  if (row.expires_at <= now || row.last_seen_at.getTime() + sessionIdleMs <= now.getTime()) {
    await deleteSession(ctx.db, row.session_id);
    return null;
  }
  if (now.getTime() - row.last_seen_at.getTime() >= touchEveryMs)
    await touchSession(ctx.db, row.session_id, now);
  return {
    sessionId: row.session_id,
    userId: row.user_id,
    email: row.email,
    workspaceId: row.workspace_id,
    workspaceName: row.workspace_name,
    plan: row.plan,
    role: row.role,
    timeZone: row.time_zone,
    language: row.language ? parseLanguage(row.language) : null,
  };
}

export async function logOut(ctx: Context, token: string): Promise<void> {
  await deleteSessionByTokenHash(ctx.db, hashToken(token));
}

/** Ends every session of the user and starts a new one for the browser that changed it. */
export async function changePassword(
  ctx: Context,
  session: SessionUser,
  input: { currentPassword: string; newPassword: string },
): Promise<{ sessionToken: string }> {
  const user = await findUser(ctx.db, session.userId);
  if (!user || !(await verifyPassword(input.currentPassword, user.password_hash))) {
    throw refusalOf({ currentPassword: { key: 'auth.refusal.notCurrentPassword' } });
  }
  const problem = passwordProblem(input.newPassword);
  if (problem) throw refusalOf({ newPassword: problem });
  const hash = await hashPassword(ctx, input.newPassword);
  return ctx.db.transaction().execute(async (trx) => {
    await updatePasswordHash(trx, user.id, hash, ctx.clock.now());
    await deleteSessionsOfUser(trx, user.id);
    return { sessionToken: await startSession(trx, ctx, user.id, session.workspaceId) };
  });
}

/**
 * For the demo (`signet serve --demo` whose demo.json was lost): the account's password set
 * anew, by whoever runs the server, and every session of it ended.
 */
export async function setPassword(ctx: Context, userId: string, password: string): Promise<void> {
  const problem = passwordProblem(password);
  if (problem) throw refusalOf({ password: problem });
  const hash = await hashPassword(ctx, password);
  await ctx.db.transaction().execute(async (trx) => {
    await updatePasswordHash(trx, userId, hash, ctx.clock.now());
    await deleteSessionsOfUser(trx, userId);
  });
}

/**
 * For operators (`signet user create`) and the demo: an account without the mail step,
 * owning a new workspace, or (`workspaceId`) joining an existing one with `role`.
 */
export async function createAccount(
  ctx: Context,
  input: { email: string; password: string } & (
    | { workspaceName: string; plan: Plan }
    | { workspaceId: string; role: MemberRole }
  ),
): Promise<{ userId: string; workspaceId: string; role: MemberRole }> {
  const problems: Record<string, KeyedSentence | string> = {};
  const emailIssue = checkEmail(input.email);
  if (emailIssue) problems.email = emailIssue;
  const passwordIssue = passwordProblem(input.password);
  if (passwordIssue) problems.password = passwordIssue;
  if ('workspaceName' in input) {
    const nameIssue = checkWorkspaceName(input.workspaceName);
    if (nameIssue) problems.workspaceName = nameIssue;
  }
  if (Object.keys(problems).length) throw refusalOf(problems);
  const passwordHash = await hashPassword(ctx, input.password);
  const email = normalizeEmail(input.email);
  return ctx.db.transaction().execute(async (trx) => {
    if (await findUserByEmailKey(trx, emailKey(email))) {
      throw new InputError({ email: 'An account with this email already exists.' });
    }
    if ('workspaceName' in input) {
      const account = await insertAccount(trx, ctx, {
        email,
        passwordHash,
        workspaceName: drawableText(input.workspaceName.trim()),
        plan: input.plan,
      });
      return { ...account, role: 'owner' as const };
    }
    if (!(await findWorkspace(trx, input.workspaceId))) throw new ApiError('not-found');
    const now = ctx.clock.now();
    const userId = ctx.ids.uuid();
    await insertUser(trx, {
      id: userId,
      email,
      email_key: emailKey(email),
      password_hash: passwordHash,
      created_at: now,
      password_changed_at: now,
      language: null,
    });
    await insertMembership(trx, {
      workspace_id: input.workspaceId,
      user_id: userId,
      role: input.role,
      created_at: now,
    });
    return { userId, workspaceId: input.workspaceId, role: input.role };
  });
}

export interface WorkspaceChoice {
  id: string;
  name: string;
  role: MemberRole;
}

export async function listWorkspacesOf(ctx: Context, userId: string): Promise<WorkspaceChoice[]> {
  return (await findWorkspacesOfUser(ctx.db, userId)).map((w) => ({ id: w.id, name: w.name, role: w.role }));
}

/** Moves the session to another workspace its user belongs to; not-found otherwise. */
export async function switchWorkspace(
  ctx: Context,
  session: SessionUser,
  workspaceId: string,
): Promise<void> {
  const workspaces = await findWorkspacesOfUser(ctx.db, session.userId);
  if (!workspaces.some((w) => w.id === workspaceId)) throw new ApiError('not-found');
  await moveSession(ctx.db, session.sessionId, workspaceId);
}

/** Whether the workspace is new enough for the first-steps panel: it has no document yet. */
export async function workspaceNeedsFirstSteps(ctx: Context, workspaceId: string): Promise<boolean> {
  return !(await workspaceHasDocument(ctx.db, workspaceId));
}
