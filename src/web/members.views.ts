// The markup of Settings › Members and of an invitation link, in the page's language (the
// member's; an invitation's visitor's): the members and their roles, the open invitations and
// the form to invite, the confirmation before removing or leaving, and accepting an invitation.
import type { SessionUser } from '../accounts/accounts.service.ts';
import type { Invitation, Member, OpenInvitation } from '../accounts/members.service.ts';
import { minPasswordLength } from '../accounts/passwords.ts';
import type { MemberRole } from '../db/schema.ts';
import type { Translator } from '../i18n/messages.ts';
import type { FieldErrors } from '../input-error.ts';
import { csrfField, type Form, fieldError, formText, invalidAttrs, notice } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { richText } from '../ui/rich-text.ts';
import { formatTime } from './layout.ts';

/** A moment as the web app writes it, left to right in every language (in a right-to-left sentence too). */
function timeAt(iso: string, timeZone: string): SafeHtml {
  return html`<bdi dir="ltr">${formatTime(iso, timeZone)}</bdi>`;
}

/** A message's words read aloud only (a button's whom: "Change<hidden> role of ann@…</hidden>"). */
const hidden = { hidden: (content: SafeHtml) => html`<span class="visually-hidden">${content}</span>` };

export interface MembersView {
  member: SessionUser;
  members: Member[];
  invitations: Invitation[];
  form?: Form | undefined;
  errors: FieldErrors;
  /** The sentence of the change just made (members.pages.ts' notices), or none. */
  notice?: string | null | undefined;
}

function roleOptions(selected: MemberRole, tr: Translator): SafeHtml[] {
  return (['member', 'owner'] as const).map(
    (role) =>
      html`<option value="${role}"${role === selected ? html` selected` : ''}>${tr.t('members.roleName', { role })}</option>`,
  );
}

function memberRow(member: SessionUser, m: Member, csrf: string, tr: Translator): SafeHtml {
  const isOwner = member.role === 'owner';
  const isSelf = m.userId === member.userId;
  const email = m.email;
  return html`<tr>
<td>${email}${isSelf ? html` <span class="muted">${tr.t('members.list.you')}</span>` : ''}<div class="small muted">${richText(tr, 'members.list.joined', { time: timeAt(m.joinedAt, member.timeZone) })}</div></td>
<td>${
    isOwner
      ? html`<form method="post" action="/settings/members/${m.userId}/role" class="inline">${csrfField(csrf)}
<label class="visually-hidden" for="role-${m.userId}">${tr.t('members.role.label', { email })}</label>
<select id="role-${m.userId}" name="role">${roleOptions(m.role, tr)}</select>
<button class="button button-secondary button-small" type="submit">${richText(tr, 'members.role.change', { email }, hidden)}</button></form>`
      : tr.t('members.roleName', { role: m.role })
  }</td>
<td class="num">${isOwner || isSelf ? html`<a href="/settings/members/${m.userId}/remove">${isSelf ? tr.t('members.leave.link') : richText(tr, 'members.remove.link', { email }, hidden)}</a>` : ''}</td>
</tr>`;
}

function invitationItem(i: Invitation, member: SessionUser, csrf: string, tr: Translator): SafeHtml {
  const pending = richText(tr, 'members.invite.pending', {
    email: i.email,
    role: i.role,
    invited: timeAt(i.createdAt, member.timeZone),
    until: timeAt(i.expiresAt, member.timeZone),
  });
  return html`<li><form method="post" action="/settings/members/invitations/${i.id}/withdraw" class="inline">${csrfField(csrf)}
${pending}
<button class="button button-secondary button-small" type="submit">${richText(tr, 'members.invite.withdraw', { email: i.email }, hidden)}</button></form></li>`;
}

function inviteSection({ invitations, form, errors, member }: MembersView, csrf: string, tr: Translator) {
  return html`<section class="card" aria-labelledby="invite-title">
<h2 id="invite-title">${tr.t('members.invite.heading')}</h2>
${invitations.length ? html`<ul class="plain">${invitations.map((i) => invitationItem(i, member, csrf, tr))}</ul>` : ''}
<form method="post" action="/settings/members/invitations" novalidate>
${csrfField(csrf)}
<div class="field">
<label for="invite-email">${tr.t('members.invite.email')}</label>
<input id="invite-email" name="email" type="email" value="${formText(form, 'email')}" required ${invalidAttrs('invite-email', errors.email)}>
${fieldError('invite-email', errors.email)}
</div>
<div class="field">
<label for="invite-role">${tr.t('members.invite.role')}</label>
<select id="invite-role" name="role">${roleOptions(form?.role === 'owner' ? 'owner' : 'member', tr)}</select>
</div>
<div class="actions"><button class="button button-primary" type="submit">${tr.t('members.invite.submit')}</button></div>
</form>
</section>`;
}

export function membersView(view: MembersView, csrf: string, tr: Translator): SafeHtml {
  const { member, members, errors } = view;
  return html`<h1>${tr.t('app.nav.members')}</h1>
${view.notice ? notice('success', view.notice) : ''}
${errors.form ? notice('error', errors.form) : ''}
<section class="card" aria-labelledby="members-title">
<h2 id="members-title">${tr.t('members.list.heading', { workspace: member.workspaceName })}</h2>
<div class="table-scroll" tabindex="0" role="region" aria-label="${tr.t('app.nav.members')}">
<table><thead><tr><th scope="col">${tr.t('members.list.email')}</th><th scope="col">${tr.t('members.list.role')}</th><th scope="col"><span class="visually-hidden">${tr.t('members.list.actions')}</span></th></tr></thead>
<tbody>${members.map((m) => memberRow(member, m, csrf, tr))}</tbody></table>
</div>
<p class="small muted">${tr.t('members.list.roles')}</p>
</section>
${member.role === 'owner' ? inviteSection(view, csrf, tr) : ''}`;
}

export function removeMemberView(
  member: SessionUser,
  target: Member,
  csrf: string,
  tr: Translator,
): SafeHtml {
  const self = target.userId === member.userId;
  const email = target.email;
  return html`<div class="card narrow">
<h1>${self ? tr.t('members.leave.heading', { workspace: member.workspaceName }) : tr.t('members.remove.heading', { email })}</h1>
<p>${self ? tr.t('members.leave.text') : tr.t('members.remove.text', { email })}</p>
<form method="post" action="/settings/members/${target.userId}/remove">${csrfField(csrf)}
<div class="actions"><button class="button button-danger" type="submit">${tr.t(self ? 'members.leave.submit' : 'members.remove.submit')}</button><a href="/settings/members">${tr.t('doc.confirm.cancel')}</a></div></form>
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
  tr: Translator,
): SafeHtml {
  const workspace = invitation.workspaceName;
  const email = invitation.email;
  const logIn = {
    link: (content: SafeHtml) => html`<a href="/login?next=${encodeURIComponent(path)}">${content}</a>`,
  };
  return html`<div class="narrow">
<h1>${tr.t('members.invitation.heading', { workspace })}</h1>
${errors.form ? notice('error', errors.form) : ''}
<div class="card">
<p>${richText(tr, 'members.invitation.intro', { workspace, role: invitation.role, email })}</p>
${
  invitation.hasAccount
    ? signedInAsInvited
      ? html`<form method="post" action="${path}">${csrfField(csrf)}<div class="actions"><button class="button button-primary" type="submit">${tr.t('members.invitation.join', { workspace })}</button></div></form>`
      : html`<p>${richText(tr, 'members.invitation.logIn', { email }, logIn)}</p>`
    : html`<form method="post" action="${path}" novalidate>${csrfField(csrf)}
<div class="field">
<label for="password">${tr.t('members.invitation.password')}</label>
<span class="hint">${tr.t('members.invitation.passwordHint', { count: minPasswordLength })}</span>
<input id="password" name="password" type="password" autocomplete="new-password" required ${invalidAttrs('password', errors.password)}>
${fieldError('password', errors.password)}
</div>
<div class="actions"><button class="button button-primary" type="submit">${tr.t('members.invitation.submit')}</button></div>
</form>`
}
</div>
</div>`;
}

export function expiredInvitationView(tr: Translator): SafeHtml {
  return html`<div class="card narrow"><h1>${tr.t('members.expired.heading')}</h1><p>${tr.t('members.expired.text')}</p></div>`;
}
