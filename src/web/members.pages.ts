// Settings › Members, and the invitation link.
//   GET  /settings/members                          members and open invitations (owners manage)
//   POST /settings/members/invitations              invite by email with a role (owners)
//   POST /settings/members/invitations/{id}/withdraw                           (owners)
//   POST /settings/members/{userId}/role            owner | member              (owners)
//   GET  /settings/members/{userId}/remove          confirmation (owners; anyone for themselves)
//   POST /settings/members/{userId}/remove
//   GET  /invitations/{token}                       accept: sign in as the invited address, or set a password
//   POST /invitations/{token}
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AccountInputError, type SessionUser } from '../accounts/accounts.service.ts';
import {
  acceptInvitation,
  changeMemberRole,
  findOpenInvitation,
  inviteMember,
  listMembers,
  type Member,
  removeMember,
  withdrawInvitation,
} from '../accounts/members.service.ts';
import { minPasswordLength } from '../accounts/passwords.ts';
import type { MemberRole } from '../db/schema.ts';
import { uuidPattern } from '../documents/documents.schemas.ts';
import { ApiError } from '../http/errors.ts';
import { html } from './html.ts';
import { csrfField, fieldError, formatTime, invalidAttrs, notice } from './layout.ts';
import { formText, requireMember, requireOwner, type Web } from './web.plugin.ts';

type Form = Record<string, string | undefined>;
const uuid = new RegExp(uuidPattern);

function roleOf(value: string | undefined): MemberRole | null {
  return value === 'owner' || value === 'member' ? value : null;
}

const doneNotices: Record<string, string> = {
  invited: 'The invitation is on its way. The link works once, for 7 days.',
  withdrawn: 'The invitation was withdrawn: its link no longer works.',
  role: 'The role was changed.',
  removed: 'The member was removed and signed out of this workspace.',
};

export function membersPages(web: Web) {
  const { ctx } = web;

  async function membersPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    options: { form?: Form; errors?: Form; done?: string } = {},
  ) {
    const member = request.member as SessionUser;
    const isOwner = member.role === 'owner';
    const { members, invitations } = await listMembers(ctx, member.workspaceId);
    const errors = options.errors ?? {};
    const row = (m: Member, csrf: string) => html`<tr>
<td>${m.email}${m.userId === member.userId ? html` <span class="muted">(you)</span>` : ''}</td>
<td>${
      isOwner
        ? html`<form method="post" action="/settings/members/${m.userId}/role" class="inline">${csrfField(csrf)}
<label class="visually-hidden" for="role-${m.userId}">Role of ${m.email}</label>
<select id="role-${m.userId}" name="role">${(['owner', 'member'] as const).map((r) => html`<option value="${r}"${r === m.role ? html` selected` : ''}>${r}</option>`)}</select>
<button class="button button-secondary button-small" type="submit">Change<span class="visually-hidden"> role of ${m.email}</span></button></form>`
        : m.role
    }</td>
<td>${formatTime(m.joinedAt)}</td>
<td>${isOwner || m.userId === member.userId ? html`<a href="/settings/members/${m.userId}/remove">${m.userId === member.userId ? 'Leave' : html`Remove<span class="visually-hidden"> ${m.email}</span>`}</a>` : ''}</td>
</tr>`;
    return web.render(request, reply, status, {
      title: 'Members',
      current: 'members',
      body: (csrf) => html`<h1>Members</h1>
${options.done && doneNotices[options.done] ? notice('success', doneNotices[options.done] as string) : ''}
${errors.form ? notice('error', errors.form) : ''}
<section class="card" aria-labelledby="members-title">
<h2 id="members-title">Members of ${member.workspaceName}</h2>
<div class="table-scroll" tabindex="0" role="region" aria-label="Members">
<table><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Joined</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${members.map((m) => row(m, csrf))}</tbody></table>
</div>
<p class="small muted">Owners manage members and billing; members use everything else.</p>
</section>
${
  isOwner
    ? html`<section class="card" aria-labelledby="invite-title">
<h2 id="invite-title">Invite someone</h2>
${
  invitations.length
    ? html`<ul class="plain">${invitations.map(
        (
          i,
        ) => html`<li><form method="post" action="/settings/members/invitations/${i.id}/withdraw" class="inline">${csrfField(csrf)}
${i.email} (${i.role}), invited ${formatTime(i.createdAt)}, valid until ${formatTime(i.expiresAt)}
<button class="button button-secondary button-small" type="submit">Withdraw<span class="visually-hidden"> the invitation of ${i.email}</span></button></form></li>`,
      )}</ul>`
    : ''
}
<form method="post" action="/settings/members/invitations" novalidate>
${csrfField(csrf)}
<div class="field">
<label for="invite-email">Email</label>
<input id="invite-email" name="email" type="email" value="${formText(options.form, 'email')}" required ${invalidAttrs('invite-email', errors.email)}>
${fieldError('invite-email', errors.email)}
</div>
<div class="field">
<label for="invite-role">Role</label>
<select id="invite-role" name="role"><option value="member">member</option><option value="owner"${options.form?.role === 'owner' ? html` selected` : ''}>owner</option></select>
</div>
<div class="actions"><button class="button button-primary" type="submit">Send invitation</button></div>
</form>
</section>`
    : ''
}`,
    });
  }

  /** The member of the session's workspace named in the URL, or null. */
  async function memberOf(request: FastifyRequest<{ Params: { userId: string } }>): Promise<Member | null> {
    if (!uuid.test(request.params.userId)) return null;
    const { members } = await listMembers(ctx, (request.member as SessionUser).workspaceId);
    return members.find((m) => m.userId === request.params.userId.toLowerCase()) ?? null;
  }

  /** Who may be removed: anyone themselves, others by an owner; null once refused. */
  async function removable(
    request: FastifyRequest<{ Params: { userId: string } }>,
    reply: FastifyReply,
  ): Promise<{ target: Member; self: boolean } | null> {
    const member = request.member as SessionUser;
    const target = await memberOf(request);
    if (!target) {
      await web.notFound(request, reply);
      return null;
    }
    const self = target.userId === member.userId;
    if (!self && member.role !== 'owner') {
      await requireOwner(web)(request, reply);
      return null;
    }
    return { target, self };
  }

  /** Service refusals become a sentence on the members page. */
  async function attempt(
    request: FastifyRequest,
    reply: FastifyReply,
    action: () => Promise<void>,
    done: string,
  ) {
    try {
      await action();
    } catch (error) {
      if (error instanceof AccountInputError)
        return membersPage(request, reply, 400, { errors: error.fields });
      if (error instanceof ApiError && error.code === 'not-found') return web.notFound(request, reply);
      throw error;
    }
    return reply.redirect(`/settings/members?done=${done}`, 303);
  }

  function invitationPage(
    request: FastifyRequest<{ Params: { token: string } }>,
    reply: FastifyReply,
    status: number,
    invitation: NonNullable<Awaited<ReturnType<typeof findOpenInvitation>>>,
    errors: Form = {},
  ) {
    const path = `/invitations/${request.params.token}`;
    const signedInAsInvited = request.member?.email.toLowerCase() === invitation.email.toLowerCase();
    return web.render(request, reply, status, {
      title: 'Invitation',
      body: (csrf) => html`<div class="narrow">
<h1>Join ${invitation.workspaceName}</h1>
${errors.form ? notice('error', errors.form) : ''}
<div class="card">
<p>You are invited to ${invitation.workspaceName} on Signet as <strong>${invitation.role}</strong>, with the address <strong>${invitation.email}</strong>.</p>
${
  invitation.hasAccount
    ? signedInAsInvited
      ? html`<form method="post" action="${path}">${csrfField(csrf)}<div class="actions"><button class="button button-primary" type="submit">Join ${invitation.workspaceName}</button></div></form>`
      : html`<p>You already have an account: <a href="/login?next=${encodeURIComponent(path)}">log in as ${invitation.email}</a> to accept.</p>`
    : html`<form method="post" action="${path}" novalidate>${csrfField(csrf)}
<div class="field">
<label for="password">Choose a password</label>
<span class="hint">At least ${minPasswordLength} characters.</span>
<input id="password" name="password" type="password" autocomplete="new-password" required ${invalidAttrs('password', errors.password)}>
${fieldError('password', errors.password)}
</div>
<div class="actions"><button class="button button-primary" type="submit">Create account and join</button></div>
</form>`
}
</div>
</div>`,
    });
  }

  const expiredInvitation = (request: FastifyRequest, reply: FastifyReply) =>
    web.render(request, reply, 404, {
      title: 'Invitation expired',
      body: () =>
        html`<div class="card narrow"><h1>This invitation cannot be used</h1><p>It was used already, withdrawn, or it expired. Ask for a new one.</p></div>`,
    });

  return async function register(app: FastifyInstance) {
    app.get<{ Querystring: Form }>('/settings/members', { preHandler: requireMember }, (request, reply) =>
      membersPage(request, reply, 200, { done: request.query.done }),
    );

    app.post<{ Body: Form }>(
      '/settings/members/invitations',
      { preHandler: requireOwner(web) },
      async (request, reply) => {
        const form = request.body ?? {};
        try {
          await inviteMember(ctx, request.member as SessionUser, {
            email: formText(form, 'email'),
            role: roleOf(formText(form, 'role')) ?? 'member',
          });
        } catch (error) {
          if (error instanceof AccountInputError)
            return membersPage(request, reply, 400, { form, errors: error.fields });
          throw error;
        }
        return reply.redirect('/settings/members?done=invited', 303);
      },
    );

    app.post<{ Params: { id: string } }>(
      '/settings/members/invitations/:id/withdraw',
      { preHandler: requireOwner(web) },
      async (request, reply) => {
        if (!uuid.test(request.params.id)) return web.notFound(request, reply);
        return attempt(
          request,
          reply,
          () => withdrawInvitation(ctx, request.member as SessionUser, request.params.id.toLowerCase()),
          'withdrawn',
        );
      },
    );

    app.post<{ Params: { userId: string }; Body: Form }>(
      '/settings/members/:userId/role',
      { preHandler: requireOwner(web) },
      async (request, reply) => {
        const target = await memberOf(request);
        const role = roleOf(formText(request.body, 'role'));
        if (!target) return web.notFound(request, reply);
        if (!role) return reply.redirect('/settings/members', 303);
        return attempt(
          request,
          reply,
          () => changeMemberRole(ctx, request.member as SessionUser, target.userId, role),
          'role',
        );
      },
    );

    app.get<{ Params: { userId: string } }>(
      '/settings/members/:userId/remove',
      { preHandler: requireMember },
      async (request, reply) => {
        const member = request.member as SessionUser;
        const found = await removable(request, reply);
        if (!found) return reply;
        const { target, self } = found;
        return web.render(request, reply, 200, {
          title: self ? 'Leave workspace' : 'Remove member',
          current: 'members',
          body: (csrf) => html`<div class="card narrow">
<h1>${self ? `Leave ${member.workspaceName}?` : `Remove ${target.email}?`}</h1>
<p>${self ? 'You lose access to its documents, keys and settings at once; an owner can invite you again.' : `${target.email} loses access at once and is signed out of this workspace.`}</p>
<form method="post" action="/settings/members/${target.userId}/remove">${csrfField(csrf)}
<div class="actions"><button class="button button-danger" type="submit">${self ? 'Leave workspace' : 'Remove member'}</button><a href="/settings/members">Cancel</a></div></form>
</div>`,
        });
      },
    );

    app.post<{ Params: { userId: string } }>(
      '/settings/members/:userId/remove',
      { preHandler: requireMember },
      async (request, reply) => {
        const member = request.member as SessionUser;
        const found = await removable(request, reply);
        if (!found) return reply;
        const { target, self } = found;
        if (self) {
          try {
            await removeMember(ctx, member, target.userId);
          } catch (error) {
            if (error instanceof AccountInputError)
              return membersPage(request, reply, 400, { errors: error.fields });
            throw error;
          }
          web.clearSessionCookie(reply);
          return reply.redirect('/login', 303);
        }
        return attempt(request, reply, () => removeMember(ctx, member, target.userId), 'removed');
      },
    );

    app.get<{ Params: { token: string } }>('/invitations/:token', async (request, reply) => {
      const invitation = await findOpenInvitation(ctx, request.params.token);
      if (!invitation) return expiredInvitation(request, reply);
      return invitationPage(request, reply, 200, invitation);
    });

    app.post<{ Params: { token: string }; Body: Form }>('/invitations/:token', async (request, reply) => {
      const invitation = await findOpenInvitation(ctx, request.params.token);
      if (!invitation) return expiredInvitation(request, reply);
      try {
        const accepted = await acceptInvitation(ctx, request.params.token, {
          session: request.member,
          password: formText(request.body, 'password') || null,
        });
        if (!accepted) return expiredInvitation(request, reply);
        web.setSessionCookie(request, reply, accepted.sessionToken);
      } catch (error) {
        if (error instanceof AccountInputError)
          return invitationPage(request, reply, 400, invitation, error.fields);
        throw error;
      }
      return reply.redirect('/documents', 303);
    });
  };
}
