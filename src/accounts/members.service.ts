// Members of a workspace: owners invite by email (a single-use link through the mail
// outbox, valid 7 days), change roles and remove members; anyone may leave; a workspace
// always keeps at least one owner. Every change runs under the workspace's row lock, so
// two owners demoting each other at once cannot leave it without one.

import type { Context } from '../context.ts';
import type { MemberRole } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { firstLanguage } from '../i18n/languages.ts';
import { translator } from '../i18n/messages.ts';
import { refusalOf } from '../i18n/refusals.ts';
import { normalizeEmail } from '../mail/address.ts';
import { queueMail } from '../mail/mail.service.ts';
import { invitationMail } from '../mail/templates.ts';
import { findWorkspace, lockWorkspace } from '../workspaces/workspaces.repository.ts';
import {
  acceptInvitationRow,
  countOwners,
  deleteInvitation,
  deleteMembership,
  deleteOpenInvitations,
  findInvitationByTokenHash,
  findMember,
  findMembers,
  findMembership,
  findOpenInvitations,
  findUserByEmailKey,
  insertInvitation,
  insertMembership,
  insertUser,
  updateMemberRole,
} from './accounts.repository.ts';
import {
  checkEmail,
  countAsLogIn,
  emailKey,
  hashToken,
  type SessionUser,
  startSession,
} from './accounts.service.ts';
import { hashPassword, passwordProblem } from './passwords.ts';

export const invitationValidityMs = 7 * 24 * 60 * 60 * 1000;

export interface Member {
  userId: string;
  email: string;
  role: MemberRole;
  joinedAt: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: MemberRole;
  createdAt: string;
  expiresAt: string;
}

function requireOwner(actor: SessionUser): void {
  if (actor.role !== 'owner') throw refusalOf({ form: { key: 'members.refusal.ownersOnly' } });
}

function memberOf(row: { user_id: string; email: string; role: MemberRole; created_at: Date }): Member {
  return { userId: row.user_id, email: row.email, role: row.role, joinedAt: row.created_at.toISOString() };
}

/** One member of the workspace; not-found for anyone else, another workspace's member too. */
export async function getMember(ctx: Context, workspaceId: string, userId: string): Promise<Member> {
  const row = await findMember(ctx.db, workspaceId, userId);
  if (!row) throw new ApiError('not-found');
  return memberOf(row);
}

export async function listMembers(
  ctx: Context,
  workspaceId: string,
): Promise<{ members: Member[]; invitations: Invitation[] }> {
  const [members, invitations] = await Promise.all([
    findMembers(ctx.db, workspaceId),
    findOpenInvitations(ctx.db, workspaceId, ctx.clock.now()),
  ]);
  return {
    members: members.map(memberOf),
    invitations: invitations.map((i) => ({
      id: i.id,
      email: i.email,
      role: i.role,
      createdAt: i.created_at.toISOString(),
      expiresAt: i.expires_at.toISOString(),
    })),
  };
}

/** Mails a single-use link; a newer invitation of the same address replaces older ones. */
export async function inviteMember(
  ctx: Context,
  actor: SessionUser,
  input: { email: string; role: MemberRole },
): Promise<void> {
  requireOwner(actor);
  const email = normalizeEmail(input.email);
  const emailIssue = checkEmail(email);
  if (emailIssue) throw refusalOf({ email: emailIssue });
  const now = ctx.clock.now();
  const token = ctx.ids.randomBytes(32).toString('base64url');
  await ctx.db.transaction().execute(async (trx) => {
    await lockWorkspace(trx, actor.workspaceId);
    const existing = await findUserByEmailKey(trx, emailKey(email));
    if (existing && (await findMembership(trx, actor.workspaceId, existing.id))) {
      const values = { email, workspace: actor.workspaceName };
      throw refusalOf({ email: { key: 'members.refusal.alreadyMember', values } });
    }
    await deleteOpenInvitations(trx, actor.workspaceId, email);
    await insertInvitation(trx, {
      id: ctx.ids.uuid(),
      workspace_id: actor.workspaceId,
      email,
      role: input.role,
      token_hash: hashToken(token),
      invited_by: actor.userId,
      created_at: now,
      expires_at: new Date(now.getTime() + invitationValidityMs),
      accepted_at: null,
    });
    // In the inviting member's own language, else the workspace's (as its mails to owners):
    // the invited person has chosen none yet, and the inviter often writes beside them.
    const workspace = await findWorkspace(trx, actor.workspaceId);
    const language = firstLanguage(actor.language, workspace?.default_language);
    await queueMail(trx, ctx, {
      workspaceId: actor.workspaceId,
      documentId: null,
      recipientId: null,
      to: email,
      // Invited by a member who is often beside the new one, waiting for it to arrive.
      priority: 'urgent',
      ...invitationMail(translator(language), {
        workspaceName: actor.workspaceName,
        inviter: actor.email,
        link: `${ctx.config.publicUrl}/invitations/${token}`,
        validDays: invitationValidityMs / 86_400_000,
      }),
    });
  });
}

export async function withdrawInvitation(
  ctx: Context,
  actor: SessionUser,
  invitationId: string,
): Promise<void> {
  requireOwner(actor);
  if (!(await deleteInvitation(ctx.db, actor.workspaceId, invitationId))) throw new ApiError('not-found');
}

export interface OpenInvitation {
  id: string;
  workspaceId: string;
  workspaceName: string;
  email: string;
  role: MemberRole;
  /** Whether the invited address already has an account (then it signs in to accept). */
  hasAccount: boolean;
}

/** The invitation behind a link, if it can still be accepted. */
export async function findOpenInvitation(ctx: Context, token: string): Promise<OpenInvitation | null> {
  if (!token || token.length > 100) return null;
  const row = await findInvitationByTokenHash(ctx.db, hashToken(token));
  if (!row || row.accepted_at || row.expires_at <= ctx.clock.now()) return null;
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    workspaceName: row.workspace_name,
    email: row.email,
    role: row.role,
    hasAccount: (await findUserByEmailKey(ctx.db, emailKey(row.email))) !== undefined,
  };
}

/**
 * Accepts an invitation: a signed-in user whose address it names joins; otherwise a new
 * account is made with `password`. Returns a session in the workspace joined. Null when
 * the link cannot be used (unknown, used, expired).
 */
export async function acceptInvitation(
  ctx: Context,
  token: string,
  input: { session: SessionUser | null; password: string | null; clientAddress: string },
): Promise<{ sessionToken: string; deviceCookie: string } | null> {
  const now = ctx.clock.now();
  const accepted = await ctx.db.transaction().execute(async (trx) => {
    const row = await findInvitationByTokenHash(trx, hashToken(token));
    if (!row || row.accepted_at || row.expires_at <= now) return null;
    const user = await findUserByEmailKey(trx, emailKey(row.email));
    let account: { id: string; email_key: string; password_hash: string };
    if (user) {
      if (!input.session || input.session.userId !== user.id) {
        throw refusalOf({ form: { key: 'members.refusal.logInAs', values: { email: row.email } } });
      }
      account = user;
    } else {
      const problem = passwordProblem(input.password ?? '');
      if (problem) throw refusalOf({ password: problem });
      account = {
        id: ctx.ids.uuid(),
        email_key: emailKey(row.email),
        password_hash: await hashPassword(ctx, input.password as string),
      };
      const joined = { email: row.email, created_at: now, password_changed_at: now, language: null };
      await insertUser(trx, { ...account, ...joined });
    }
    const userId = account.id;
    if (!(await acceptInvitationRow(trx, row.id, now))) return null;
    if (!(await findMembership(trx, row.workspace_id, userId))) {
      await insertMembership(trx, {
        workspace_id: row.workspace_id,
        user_id: userId,
        role: row.role,
        created_at: now,
      });
    }
    return { sessionToken: await startSession(trx, ctx, userId, row.workspace_id), account };
  });
  if (!accepted) return null;
  // Accepting counts as a log-in from this address (account-limits.ts).
  return {
    sessionToken: accepted.sessionToken,
    ...(await countAsLogIn(ctx, accepted.account, input.clientAddress)),
  };
}

/** The workspace keeps at least one owner: refuses a change that would leave it none. */
async function guardLastOwner(
  trx: Parameters<typeof countOwners>[0],
  workspaceId: string,
  userId: string,
  nextRole: MemberRole | null,
): Promise<void> {
  const membership = await findMembership(trx, workspaceId, userId);
  if (!membership) throw new ApiError('not-found');
  if (membership.role === 'owner' && nextRole !== 'owner' && (await countOwners(trx, workspaceId)) <= 1) {
    throw refusalOf({ form: { key: 'members.refusal.lastOwner' } });
  }
}

export async function changeMemberRole(
  ctx: Context,
  actor: SessionUser,
  userId: string,
  role: MemberRole,
): Promise<void> {
  requireOwner(actor);
  await ctx.db.transaction().execute(async (trx) => {
    await lockWorkspace(trx, actor.workspaceId);
    await guardLastOwner(trx, actor.workspaceId, userId, role);
    await updateMemberRole(trx, actor.workspaceId, userId, role);
  });
}

/** Owners remove anyone; every member may remove themselves (leave). */
export async function removeMember(ctx: Context, actor: SessionUser, userId: string): Promise<void> {
  if (userId !== actor.userId) requireOwner(actor);
  await ctx.db.transaction().execute(async (trx) => {
    await lockWorkspace(trx, actor.workspaceId);
    await guardLastOwner(trx, actor.workspaceId, userId, null);
    await deleteMembership(trx, actor.workspaceId, userId);
  });
}
