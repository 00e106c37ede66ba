// The markup of Settings › Members and of an invitation link.
import type { SessionUser } from '../accounts/accounts.service.ts';
import type { Invitation, Member, OpenInvitation } from '../accounts/members.service.ts';
import { minPasswordLength } from '../accounts/passwords.ts';
import type { FieldErrors } from '../input-error.ts';
import { csrfField, type Form, fieldError, formText, invalidAttrs, notice } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { formatTime } from './layout.ts';

const doneNotices: Record<string, string> = {
  invited: 'The invitation is on its way. The link works once, for 7 days.',
  withdrawn: 'The invitation was withdrawn: its link no longer works.',
  role: 'The role was changed.',
  removed: 'The member was removed and signed out of this workspace.',
};

export interface MembersView {
  member: SessionUser;
  members: Member[];
  invitations: Invitation[];
  form?: Form | undefined;
  errors: FieldErrors;
  done?: string | undefined;
}

function memberRow(member: SessionUser, m: Member, csrf: string): SafeHtml {
  const isOwner = member.role === 'owner';
  return html`<tr>
<td>${m.email}${m.userId === member.userId ? html` <span class="muted">(you)</span>` : ''}</td>
<td>${
    isOwner
      ? html`<form method="post" action="/settings/members/${m.userId}/role" class="inline">${csrfField(csrf)}
<label class="visually-hidden" for="role-${m.userId}">Role of ${m.email}</label>
<select id="role-${m.userId}" name="role">${(['owner', 'member'] as const).map((r) => html`<option value="${r}"${r === m.role ? html` selected` : ''}>${r}</option>`)}</select>
<button class="button button-secondary button-small" type="submit">Change<span class="visually-hidden"> role of ${m.email}</span></button></form>`
      : m.role
  }</td>
<td>${formatTime(m.joinedAt, member.timeZone)}</td>
<td>${isOwner || m.userId === member.userId ? html`<a href="/settings/members/${m.userId}/remove">${m.userId === member.userId ? 'Leave' : html`Remove<span class="visually-hidden"> ${m.email}</span>`}</a>` : ''}</td>
</tr>`;
}

function inviteSection({ invitations, form, errors, member }: MembersView, csrf: string): SafeHtml {
  return html`<section class="card" aria-labelledby="invite-title">
<h2 id="invite-title">Invite someone</h2>
${
  invitations.length
    ? html`<ul class="plain">${invitations.map(
        (
          i,
        ) => html`<li><form method="post" action="/settings/members/invitations/${i.id}/withdraw" class="inline">${csrfField(csrf)}
${i.email} (${i.role}), invited ${formatTime(i.createdAt, member.timeZone)}, valid until ${formatTime(i.expiresAt, member.timeZone)}
<button class="button button-secondary button-small" type="submit">Withdraw<span class="visually-hidden"> the invitation of ${i.email}</span></button></form></li>`,
      )}</ul>`
    : ''
}
<form method="post" action="/settings/members/invitations" novalidate>
${csrfField(csrf)}
<div class="field">
<label for="invite-email">Email</label>
<input id="invite-email" name="email" type="email" value="${formText(form, 'email')}" required ${invalidAttrs('invite-email', errors.email)}>
${fieldError('invite-email', errors.email)}
</div>
<div class="field">
<label for="invite-role">Role</label>
<select id="invite-role" name="role"><option value="member">member</option><option value="owner"${form?.role === 'owner' ? html` selected` : ''}>owner</option></select>
</div>
<div class="actions"><button class="button button-primary" type="submit">Send invitation</button></div>
</form>
</section>`;
}

export function membersView(view: MembersView, csrf: string): SafeHtml {
  const { member, members, errors, done } = view;
  return html`<h1>Members</h1>
${done && doneNotices[done] ? notice('success', doneNotices[done] as string) : ''}
${errors.form ? notice('error', errors.form) : ''}
<section class="card" aria-labelledby="members-title">
<h2 id="members-title">Members of ${member.workspaceName}</h2>
<div class="table-scroll" tabindex="0" role="region" aria-label="Members">
<table><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Joined</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${members.map((m) => memberRow(member, m, csrf))}</tbody></table>
</div>
<p class="small muted">Owners manage members and billing; members use everything else.</p>
</section>
${member.role === 'owner' ? inviteSection(view, csrf) : ''}`;
}

export function removeMemberView(member: SessionUser, target: Member, csrf: string): SafeHtml {
  const self = target.userId === member.userId;
  return html`<div class="card narrow">
<h1>${self ? `Leave ${member.workspaceName}?` : `Remove ${target.email}?`}</h1>
<p>${self ? 'You lose access to its documents, keys and settings at once; an owner can invite you again.' : `${target.email} loses access at once and is signed out of this workspace.`}</p>
<form method="post" action="/settings/members/${target.userId}/remove">${csrfField(csrf)}
<div class="actions"><button class="button button-danger" type="submit">${self ? 'Leave workspace' : 'Remove member'}</button><a href="/settings/members">Cancel</a></div></form>
</div>`;
}

export interface InvitationView {
  invitation: OpenInvitation;
  path: string;
  signedInAsInvited: boolean;
  errors: FieldErrors;
}

export function invitationView(
  { invitation, path, signedInAsInvited, errors }: InvitationView,
  csrf: string,
): SafeHtml {
  return html`<div class="narrow">
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
</div>`;
}

export const expiredInvitationView = html`<div class="card narrow"><h1>This invitation cannot be used</h1><p>It was used already, withdrawn, or it expired. Ask for a new one.</p></div>`;
