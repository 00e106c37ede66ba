// The markup of the account pages: sign-up, log-in, the sign-up confirmation and the
// account page.
import type { SessionUser } from '../accounts/accounts.service.ts';
import { minPasswordLength } from '../accounts/passwords.ts';
import type { FieldErrors } from '../input-error.ts';
import { csrfField, type Form, fieldError, formText, invalidAttrs, notice } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';

function input(options: {
  id: string;
  label: string;
  type: string;
  value?: string;
  autocomplete: string;
  error?: string;
  hint?: string;
}): SafeHtml {
  return html`<div class="field">
<label for="${options.id}">${options.label}</label>
${options.hint ? html`<span class="hint" id="${options.id}-hint">${options.hint}</span>` : ''}
<input id="${options.id}" name="${options.id}" type="${options.type}" value="${options.value ?? ''}" autocomplete="${options.autocomplete}" required ${invalidAttrs(options.id, options.error)}>
${fieldError(options.id, options.error)}
</div>`;
}

export function signupView(csrf: string, form: Form, errors: FieldErrors): SafeHtml {
  return html`<div class="narrow">
<h1>Create your Signet workspace</h1>
<div class="card">
<form method="post" action="/signup" novalidate>
${csrfField(csrf)}
${input({ id: 'email', label: 'Email', type: 'email', value: formText(form, 'email'), autocomplete: 'email', error: errors.email })}
${input({ id: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', error: errors.password, hint: `At least ${minPasswordLength} characters.` })}
${input({ id: 'workspaceName', label: 'Workspace name', type: 'text', value: formText(form, 'workspaceName'), autocomplete: 'organization', error: errors.workspaceName, hint: 'Your company or team, as recipients will see it.' })}
<div class="actions"><button class="button button-primary" type="submit">Sign up</button></div>
</form>
</div>
<p>Already have an account? <a href="/login">Log in</a></p>
</div>`;
}

export function checkInboxView(email: string | null): SafeHtml {
  return html`<div class="card narrow"><h1>Check your inbox</h1>
<p>We sent a mail to ${email ? html`<strong>${email}</strong>` : 'the address you gave'}. Open the link in it to finish signing up.</p>
<p class="muted small">Running Signet yourself without SMTP? The operator sees the mail with <code>npx signet mail list --to</code> and the address.</p></div>`;
}

export const expiredLinkView = html`<div class="card narrow"><h1>This link cannot be used</h1><p>It was used already, it expired, a newer sign-up for the same address replaced it, or the address has an account now. <a href="/login">Log in</a>, or <a href="/signup">sign up again</a> for a new link.</p></div>`;

export function confirmSignupView(
  csrf: string,
  token: string,
  pending: { workspaceName: string; email: string },
): SafeHtml {
  return html`<div class="card narrow"><h1>Create your workspace</h1>
<p>Create the workspace <strong>${pending.workspaceName}</strong> for <strong>${pending.email}</strong>?</p>
<form method="post" action="/signup/confirm/${token}">${csrfField(csrf)}
<div class="actions"><button class="button button-primary" type="submit">Create workspace and log in</button></div></form></div>`;
}

export function loginView(csrf: string, form: Form, next: string, message: SafeHtml | null): SafeHtml {
  return html`<div class="narrow">
<h1>Log in to Signet</h1>
${message}
<div class="card">
<form method="post" action="/login" novalidate>
${csrfField(csrf)}
<input type="hidden" name="next" value="${next}">
${input({ id: 'email', label: 'Email', type: 'email', value: formText(form, 'email'), autocomplete: 'username' })}
${input({ id: 'password', label: 'Password', type: 'password', autocomplete: 'current-password' })}
<div class="actions"><button class="button button-primary" type="submit">Log in</button></div>
</form>
<p><a href="/password-reset">Forgot your password?</a></p>
</div>
<p>New to Signet? <a href="/signup">Create a workspace</a></p>
</div>`;
}

export interface AccountView {
  member: SessionUser;
  workspaces: Array<{ id: string; name: string; role: string }>;
  errors: FieldErrors;
  done: 'password' | 'reset' | null;
}

const doneSentences = {
  password: 'Your password was changed. Every other browser was signed out.',
  reset: 'Your new password is set and you are logged in. Every other browser was signed out.',
};

export function accountView(csrf: string, { member, workspaces, errors, done }: AccountView): SafeHtml {
  return html`<h1>Your account</h1>
${done ? notice('success', doneSentences[done]) : ''}
<div class="card">
<p>Signed in as <strong>${member.email}</strong>, ${member.role} of ${member.workspaceName}.</p>
<p>Times are shown in ${member.timeZone}, the workspace's time zone${member.role === 'owner' ? html` (<a href="/settings/time-zone">change it</a>)` : ''}.</p>
${member.role === 'owner' ? html`<p><a href="/settings/language">Recipients' language</a>: the one their mails and signing pages are in when you choose none.</p>` : ''}
</div>
${
  workspaces.length > 1
    ? html`<section class="card" aria-labelledby="workspaces-title">
<h2 id="workspaces-title">Your workspaces</h2>
<ul class="plain">${workspaces.map(
        (w) =>
          html`<li>${
            w.id === member.workspaceId
              ? html`<strong>${w.name}</strong> (${w.role}, current)`
              : html`<form method="post" action="/settings/account/workspace" class="inline">${csrfField(csrf)}<input type="hidden" name="workspaceId" value="${w.id}">${w.name} (${w.role}) <button class="button button-secondary button-small" type="submit">Switch<span class="visually-hidden"> to ${w.name}</span></button></form>`
          }</li>`,
      )}</ul>
</section>`
    : ''
}
<div class="card">
<h2>Change password</h2>
<form method="post" action="/settings/account/password" novalidate>
${csrfField(csrf)}
${input({ id: 'currentPassword', label: 'Current password', type: 'password', autocomplete: 'current-password', error: errors.currentPassword })}
${input({ id: 'newPassword', label: 'New password', type: 'password', autocomplete: 'new-password', error: errors.newPassword, hint: `At least ${minPasswordLength} characters.` })}
<div class="actions"><button class="button button-primary" type="submit">Change password</button></div>
</form>
</div>`;
}

// ---------------------------------------------------------------- password reset

export function passwordResetRequestView(csrf: string, form: Form, errors: FieldErrors): SafeHtml {
  return html`<div class="narrow">
<h1>Set a new password</h1>
<div class="card">
<p>Type the address of your account. We mail it a link to choose a new password; the link works once, for an hour.</p>
<form method="post" action="/password-reset" novalidate>
${csrfField(csrf)}
${input({ id: 'email', label: 'Email', type: 'email', value: formText(form, 'email'), autocomplete: 'username', error: errors.email })}
<div class="actions"><button class="button button-primary" type="submit">Mail me a link</button></div>
</form>
</div>
<p>Remembered it? <a href="/login">Log in</a></p>
</div>`;
}

export function passwordResetSentView(email: string | null): SafeHtml {
  return html`<div class="card narrow"><h1>Check your inbox</h1>
<p>We sent a mail to ${email ? html`<strong>${email}</strong>` : 'the address you gave'}. Open the link in it within an hour to choose a new password. No mail after a few minutes? Look in the spam folder, or check the address and <a href="/password-reset">ask again</a>.</p>
<p class="muted small">Running Signet yourself without SMTP? The operator sees the mail with <code>npx signet mail list --to</code> and the address, or makes a link with <code>npx signet user reset-password --email</code>.</p></div>`;
}

export function passwordResetView(
  csrf: string,
  token: string,
  account: { email: string },
  errors: FieldErrors,
): SafeHtml {
  return html`<div class="narrow">
<h1>Choose a new password</h1>
<div class="card">
<form method="post" action="/password-reset/${token}" novalidate>
${csrfField(csrf)}
<p>For <strong>${account.email}</strong>. Every browser logged in to the account is signed out; this one is logged in with the new password.</p>
<input type="hidden" name="username" value="${account.email}" autocomplete="username">
${input({ id: 'password', label: 'New password', type: 'password', autocomplete: 'new-password', error: errors.password, hint: `At least ${minPasswordLength} characters.` })}
<div class="actions"><button class="button button-primary" type="submit">Set password and log in</button></div>
</form>
</div>
</div>`;
}

export const expiredResetView = html`<div class="card narrow"><h1>This link cannot be used</h1><p>It was used already, it is more than an hour old, or the password was changed since it was mailed. <a href="/password-reset">Ask for a new link</a>, or <a href="/login">log in</a>.</p></div>`;
