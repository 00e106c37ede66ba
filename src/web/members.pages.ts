// Settings › Members, and the invitation link, in the member's language (an invitation's
// visitor: their browser's, or the one they switch to); a refusal of the member rules
// (accounts/members.service.ts) is said in it beside its input.
//   GET  /settings/members                          members and open invitations (owners manage)
//   POST /settings/members/invitations              invite by email with a role (owners)
//   POST /settings/members/invitations/{id}/withdraw                           (owners)
//   POST /settings/members/{userId}/role            owner | member              (owners)
//   GET  /settings/members/{userId}/remove          confirmation (owners; anyone for themselves)
//   POST /settings/members/{userId}/remove
//   GET  /invitations/{token}                       accept: sign in as the invited address, or set a password
//   POST /invitations/{token}
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import {
  acceptInvitation,
  changeMemberRole,
  findOpenInvitation,
  getMember,
  invitationValidityMs,
  inviteMember,
  listMembers,
  type Member,
  type OpenInvitation,
  removeMember,
  withdrawInvitation,
} from '../accounts/members.service.ts';
import type { MemberRole } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { MessageKey, Translator } from '../i18n/messages.ts';
import { sentencesIn } from '../i18n/refusals.ts';
import { type FieldErrors, InputError } from '../input-error.ts';
import { emailKey } from '../mail/address.ts';
import { logInBrowser } from './auth.pages.ts';
import { type Form, findById, forMembers, formText, forOwners, uuid, type Web } from './kit.ts';
import { memberTranslator } from './member-language.ts';
import { expiredInvitationView, invitationView, membersView, removeMemberView } from './members.views.ts';

const validDays = invitationValidityMs / 86_400_000;

/** The sentence the members page shows after a change (post, redirect, get). */
const doneNotices: Record<string, (tr: Translator) => string> = {
  invited: (tr) => tr.t('members.done.invited', { days: validDays }),
  withdrawn: (tr) => tr.t('members.done.withdrawn'),
  role: (tr) => tr.t('members.done.role'),
  removed: (tr) => tr.t('members.done.removed'),
};

function roleOf(value: string): MemberRole | null {
  return value === 'owner' || value === 'member' ? value : null;
}

type MemberRequest = FastifyRequest<{ Params: { userId: string } }>;
type TokenRequest = FastifyRequest<{ Params: { token: string } }>;

async function membersPage(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  member: SessionUser,
  status: number,
  options: { form?: Form; error?: InputError; done?: string } = {},
) {
  const { members, invitations } = await listMembers(web.ctx, member.workspaceId);
  const tr = memberTranslator(request, reply);
  const view = {
    member,
    members,
    invitations,
    form: options.form,
    errors: options.error ? sentencesIn(options.error, tr) : {},
    notice: options.done && Object.hasOwn(doneNotices, options.done) ? doneNotices[options.done]?.(tr) : null,
  };
  return web.render(request, reply, status, {
    title: tr.t('app.nav.members'),
    current: 'members',
    tr,
    body: (csrf) => membersView(view, csrf, tr),
  });
}

/** Runs a change; a service refusal becomes a sentence on the members page. */
async function attempt(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  member: SessionUser,
  action: () => Promise<void>,
  done: string,
) {
  try {
    await action();
  } catch (error) {
    if (error instanceof InputError) return membersPage(web, request, reply, member, 400, { error });
    if (error instanceof ApiError && error.code === 'not-found') return web.notFound(request, reply);
    throw error;
  }
  return reply.redirect(`/settings/members?done=${done}`, 303);
}

type TargetHandler = (
  request: MemberRequest,
  reply: FastifyReply,
  member: SessionUser,
  target: Member,
) => unknown;

/**
 * A handler for the member the URL names, when the signed-in member may remove them:
 * anyone themselves, others only an owner (a member gets the owners-only page).
 */
function forRemovable(web: Web, handler: TargetHandler) {
  return forMembers<{ Params: { userId: string } }>(async (request, reply, member) => {
    const target = await findById(request.params.userId, (id) => getMember(web.ctx, member.workspaceId, id));
    if (!target) return web.notFound(request, reply);
    if (target.userId === member.userId) return handler(request, reply, member, target);
    return forOwners<{ Params: { userId: string } }>(web, (r, p, m) => handler(r, p, m, target))(
      request,
      reply,
    );
  });
}

async function leaveOrRemove(
  web: Web,
  request: MemberRequest,
  reply: FastifyReply,
  member: SessionUser,
  target: Member,
) {
  const remove = () => removeMember(web.ctx, member, target.userId);
  if (target.userId !== member.userId) return attempt(web, request, reply, member, remove, 'removed');
  try {
    await remove();
  } catch (error) {
    if (error instanceof InputError) return membersPage(web, request, reply, member, 400, { error });
    throw error;
  }
  web.clearSessionCookie(reply);
  return reply.redirect('/login', 303);
}

async function invite(
  web: Web,
  request: FastifyRequest<{ Body: Form }>,
  reply: FastifyReply,
  member: SessionUser,
) {
  const form = request.body ?? {};
  const role = roleOf(formText(form, 'role')) ?? 'member';
  try {
    await inviteMember(web.ctx, member, { email: formText(form, 'email'), role });
  } catch (error) {
    if (error instanceof InputError) return membersPage(web, request, reply, member, 400, { form, error });
    throw error;
  }
  return reply.redirect('/settings/members?done=invited', 303);
}

async function changeRole(
  web: Web,
  request: MemberRequest & FastifyRequest<{ Body: Form }>,
  reply: FastifyReply,
  member: SessionUser,
) {
  const target = await findById(request.params.userId, (id) => getMember(web.ctx, member.workspaceId, id));
  if (!target) return web.notFound(request, reply);
  const role = roleOf(formText(request.body, 'role'));
  if (!role) return reply.redirect('/settings/members', 303);
  return attempt(
    web,
    request,
    reply,
    member,
    () => changeMemberRole(web.ctx, member, target.userId, role),
    'role',
  );
}

function invitationPage(
  web: Web,
  request: TokenRequest,
  reply: FastifyReply,
  status: number,
  invitation: OpenInvitation,
  error?: InputError,
) {
  const path = `/invitations/${request.params.token}`;
  const signedInAsInvited =
    request.member !== null && emailKey(request.member.email) === emailKey(invitation.email);
  const tr = memberTranslator(request, reply);
  const errors: FieldErrors = error ? sentencesIn(error, tr) : {};
  return web.render(request, reply, status, {
    title: tr.t('members.invitation.title'),
    tr,
    body: (csrf) => invitationView({ invitation, path, signedInAsInvited, errors }, csrf, tr),
  });
}

function expiredInvitation(web: Web, request: FastifyRequest, reply: FastifyReply) {
  const tr = memberTranslator(request, reply);
  return web.render(request, reply, 404, {
    title: tr.t('members.expired.title'),
    tr,
    body: () => expiredInvitationView(tr),
  });
}

async function accept(web: Web, request: TokenRequest & FastifyRequest<{ Body: Form }>, reply: FastifyReply) {
  const invitation = await findOpenInvitation(web.ctx, request.params.token);
  if (!invitation) return expiredInvitation(web, request, reply);
  try {
    const accepted = await acceptInvitation(web.ctx, request.params.token, {
      session: request.member,
      password: formText(request.body, 'password') || null,
      clientAddress: request.ip,
    });
    if (!accepted) return expiredInvitation(web, request, reply);
    logInBrowser(web, request, reply, accepted.sessionToken, accepted.deviceCookie);
  } catch (error) {
    if (error instanceof InputError) return invitationPage(web, request, reply, 400, invitation, error);
    throw error;
  }
  return reply.redirect('/documents', 303);
}

function memberRoutes(app: FastifyInstance, web: Web) {
  app.get<{ Querystring: Form }>(
    '/settings/members',
    forMembers((request, reply, member) =>
      membersPage(web, request, reply, member, 200, { done: formText(request.query, 'done') }),
    ),
  );
  app.post<{ Body: Form }>(
    '/settings/members/invitations',
    forOwners(web, (request, reply, member) => invite(web, request, reply, member)),
  );
  app.post<{ Params: { id: string } }>(
    '/settings/members/invitations/:id/withdraw',
    forOwners(web, (request, reply, member) => {
      if (!uuid.test(request.params.id)) return web.notFound(request, reply);
      const id = request.params.id.toLowerCase();
      return attempt(web, request, reply, member, () => withdrawInvitation(web.ctx, member, id), 'withdrawn');
    }),
  );
  app.post<{ Params: { userId: string }; Body: Form }>(
    '/settings/members/:userId/role',
    forOwners(web, (request, reply, member) => changeRole(web, request, reply, member)),
  );
  app.get<{ Params: { userId: string } }>(
    '/settings/members/:userId/remove',
    forRemovable(web, (request, reply, member, target) => {
      const tr = memberTranslator(request, reply);
      const title: MessageKey =
        target.userId === member.userId ? 'members.leave.title' : 'members.remove.title';
      return web.render(request, reply, 200, {
        title: tr.t(title),
        current: 'members',
        tr,
        body: (csrf) => removeMemberView(member, target, csrf, tr),
      });
    }),
  );
  app.post<{ Params: { userId: string } }>(
    '/settings/members/:userId/remove',
    forRemovable(web, (request, reply, member, target) => leaveOrRemove(web, request, reply, member, target)),
  );
}

export function membersPages(web: Web) {
  return async function register(app: FastifyInstance) {
    memberRoutes(app, web);
    app.get<{ Params: { token: string } }>('/invitations/:token', async (request, reply) => {
      const invitation = await findOpenInvitation(web.ctx, request.params.token);
      if (!invitation) return expiredInvitation(web, request, reply);
      return invitationPage(web, request, reply, 200, invitation);
    });
    app.post<{ Params: { token: string }; Body: Form }>('/invitations/:token', (request, reply) =>
      accept(web, request, reply),
    );
  };
}
