// The markup of the account pages: sign-up, log-in, the sign-up confirmation, the password
// reset (in the visitor's language: ui/page-language.ts) and the account page (in the
// member's, as every page of the web app: web/member-language.ts).
import type { SessionUser } from '../accounts/accounts.service.ts';
import { minPasswordLength } from '../accounts/passwords.ts';
import { endonym, type Language } from '../i18n/languages.ts';
import type { Translator } from '../i18n/messages.ts';
import type { FieldErrors } from '../input-error.ts';
import { csrfField, type Form, fieldError, formText, invalidAttrs, notice } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { richText } from '../ui/rich-text.ts';
import { languageOptions } from './form-parts.views.ts';

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

/** The page's own links: `<login>`, `<signup>` and `<again>` tags of the messages (ui/rich-text.ts). */
const link = (href: string) => (content: SafeHtml) => html`<a href="${href}">${content}</a>`;
const links = {
  login: link('/login'),
  signup: link('/signup'),
  code: (content: SafeHtml) => html`<code>${content}</code>`,
};

export function signupView(tr: Translator, csrf: string, form: Form, errors: FieldErrors): SafeHtml {
  return html`<div class="narrow">
<h1>${tr.t('auth.signup.heading')}</h1>
<div class="card">
<form method="post" action="/signup" novalidate>
${csrfField(csrf)}
${input({ id: 'email', label: tr.t('auth.email'), type: 'email', value: formText(form, 'email'), autocomplete: 'email', error: errors.email })}
${input({ id: 'password', label: tr.t('auth.password'), type: 'password', autocomplete: 'new-password', error: errors.password, hint: tr.t('auth.passwordHint', { count: minPasswordLength }) })}
${input({ id: 'workspaceName', label: tr.t('auth.workspaceName'), type: 'text', value: formText(form, 'workspaceName'), autocomplete: 'organization', error: errors.workspaceName, hint: tr.t('auth.workspaceNameHint') })}
<div class="actions"><button class="button button-primary" type="submit">${tr.t('auth.signup.submit')}</button></div>
</form>
</div>
<p>${richText(tr, 'auth.signup.haveAccount', {}, links)}</p>
</div>`;
}

export function checkInboxView(tr: Translator, email: string | null): SafeHtml {
  return html`<div class="card narrow"><h1>${tr.t('auth.title.checkInbox')}</h1>
<p>${email ? richText(tr, 'auth.checkInbox.signupTo', { email }) : tr.t('auth.checkInbox.signup')}</p>
<p class="muted small">${richText(tr, 'auth.checkInbox.operator', {}, links)}</p></div>`;
}

export function expiredLinkView(tr: Translator): SafeHtml {
  return html`<div class="card narrow"><h1>${tr.t('auth.expired.heading')}</h1><p>${richText(tr, 'auth.expired.signup', {}, links)}</p></div>`;
}

export function confirmSignupView(
  tr: Translator,
  csrf: string,
  token: string,
  pending: { workspaceName: string; email: string },
): SafeHtml {
  return html`<div class="card narrow"><h1>${tr.t('auth.confirm.heading')}</h1>
<p>${richText(tr, 'auth.confirm.question', { workspace: pending.workspaceName, email: pending.email })}</p>
<form method="post" action="/signup/confirm/${token}">${csrfField(csrf)}
<div class="actions"><button class="button button-primary" type="submit">${tr.t('auth.confirm.submit')}</button></div></form></div>`;
}

export function loginView(
  tr: Translator,
  csrf: string,
  form: Form,
  next: string,
  message: SafeHtml | null,
): SafeHtml {
  return html`<div class="narrow">
<h1>${tr.t('auth.login.heading')}</h1>
${message}
<div class="card">
<form method="post" action="/login" novalidate>
${csrfField(csrf)}
<input type="hidden" name="next" value="${next}">
${input({ id: 'email', label: tr.t('auth.email'), type: 'email', value: formText(form, 'email'), autocomplete: 'username' })}
${input({ id: 'password', label: tr.t('auth.password'), type: 'password', autocomplete: 'current-password' })}
<div class="actions"><button class="button button-primary" type="submit">${tr.t('auth.login.submit')}</button></div>
</form>
<p><a href="/password-reset">${tr.t('auth.login.forgot')}</a></p>
</div>
<p>${richText(tr, 'auth.login.new', {}, links)}</p>
</div>`;
}

export interface AccountView {
  member: SessionUser;
  workspaces: Array<{ id: string; name: string; role: string }>;
  errors: FieldErrors;
  done: 'password' | 'reset' | 'language' | null;
  /** The member's own language (null: the workspace's default, `workspaceLanguage`). */
  language: Language | null;
  workspaceLanguage: Language;
}

const doneSentences = {
  password: 'account.done.password',
  reset: 'account.done.reset',
} as const;

/** "Your language": the member's own, for Signet's mails to them, the web app's pages and the log-in pages. */
function languageCard(csrf: string, view: AccountView, tr: Translator): SafeHtml {
  const error = view.errors.language;
  const chosen = view.language ?? '';
  return html`<div class="card">
<h2 id="language-title">${tr.t('account.language.heading')}</h2>
<p id="language-hint">${tr.t('account.language.intro')}</p>
<form method="post" action="/settings/account/language" novalidate>
${csrfField(csrf)}
<div class="field">
<label for="language">${tr.t('account.language.label')}</label>
<select id="language" name="language" aria-describedby="language-hint${error ? ' language-error' : ''}"${error ? html` aria-invalid="true"` : null}>${languageOptions(chosen, tr.t('account.language.workspace', { language: endonym(view.workspaceLanguage) }))}</select>
${fieldError('language', error)}
</div>
<div class="actions"><button class="button button-primary" type="submit">${tr.t('account.language.save')}</button></div>
</form>
</div>`;
}

function workspacesCard(csrf: string, view: AccountView, tr: Translator): SafeHtml {
  const { member, workspaces } = view;
  if (workspaces.length <= 1) return html``;
  const item = (w: AccountView['workspaces'][number]) =>
    w.id === member.workspaceId
      ? richText(tr, 'account.workspaces.current', { name: w.name, role: w.role })
      : html`<form method="post" action="/settings/account/workspace" class="inline">${csrfField(csrf)}<input type="hidden" name="workspaceId" value="${w.id}">${tr.t('account.workspaces.other', { name: w.name, role: w.role })} <button class="button button-secondary button-small" type="submit" aria-label="${tr.t('account.workspaces.switchTo', { name: w.name })}">${tr.t('account.workspaces.switch')}</button></form>`;
  return html`<section class="card" aria-labelledby="workspaces-title">
<h2 id="workspaces-title">${tr.t('account.workspaces.heading')}</h2>
<ul class="plain">${workspaces.map((w) => html`<li>${item(w)}</li>`)}</ul>
</section>`;
}

export function accountView(csrf: string, view: AccountView, tr: Translator): SafeHtml {
  const { member, errors, done } = view;
  const doneSentence =
    done === 'language'
      ? tr.t('account.language.done', { language: endonym(view.language ?? view.workspaceLanguage) })
      : done
        ? tr.t(doneSentences[done])
        : null;
  const isOwner = member.role === 'owner';
  const zone = isOwner
    ? richText(tr, 'account.timeZoneOwner', { zone: member.timeZone }, { link: link('/settings/time-zone') })
    : tr.t('account.timeZone', { zone: member.timeZone });
  return html`<h1>${tr.t('account.heading')}</h1>
${doneSentence ? notice('success', doneSentence) : ''}
<div class="card">
<p>${richText(tr, 'account.signedIn', { email: member.email, role: member.role, workspace: member.workspaceName })}</p>
<p>${zone}</p>
${
  isOwner
    ? html`<p>${richText(tr, 'account.recipientsLanguage', {}, { link: link('/settings/language') })}</p>
<p>${richText(tr, 'account.brand', {}, { link: link('/settings/brand') })}</p>`
    : ''
}
</div>
${workspacesCard(csrf, view, tr)}
<div class="card">
<h2>${tr.t('account.password.heading')}</h2>
<form method="post" action="/settings/account/password" novalidate>
${csrfField(csrf)}
${input({ id: 'currentPassword', label: tr.t('account.password.current'), type: 'password', autocomplete: 'current-password', error: errors.currentPassword })}
${input({ id: 'newPassword', label: tr.t('account.password.new'), type: 'password', autocomplete: 'new-password', error: errors.newPassword, hint: tr.t('auth.passwordHint', { count: minPasswordLength }) })}
<div class="actions"><button class="button button-primary" type="submit">${tr.t('account.password.submit')}</button></div>
</form>
</div>
${languageCard(csrf, view, tr)}`;
}

// ---------------------------------------------------------------- password reset

export function passwordResetRequestView(
  tr: Translator,
  csrf: string,
  form: Form,
  errors: FieldErrors,
): SafeHtml {
  return html`<div class="narrow">
<h1>${tr.t('auth.title.resetRequest')}</h1>
<div class="card">
<p>${tr.t('auth.resetRequest.intro')}</p>
<form method="post" action="/password-reset" novalidate>
${csrfField(csrf)}
${input({ id: 'email', label: tr.t('auth.email'), type: 'email', value: formText(form, 'email'), autocomplete: 'username', error: errors.email })}
<div class="actions"><button class="button button-primary" type="submit">${tr.t('auth.resetRequest.submit')}</button></div>
</form>
</div>
<p>${richText(tr, 'auth.resetRequest.remembered', {}, links)}</p>
</div>`;
}

const askAgain = { ...links, again: link('/password-reset') };

export function passwordResetSentView(tr: Translator, email: string | null): SafeHtml {
  return html`<div class="card narrow"><h1>${tr.t('auth.title.checkInbox')}</h1>
<p>${email ? richText(tr, 'auth.resetSent.bodyTo', { email }, askAgain) : richText(tr, 'auth.resetSent.body', {}, askAgain)}</p>
<p class="muted small">${richText(tr, 'auth.resetSent.operator', {}, links)}</p></div>`;
}

export function passwordResetView(
  tr: Translator,
  csrf: string,
  token: string,
  account: { email: string },
  errors: FieldErrors,
): SafeHtml {
  return html`<div class="narrow">
<h1>${tr.t('auth.title.reset')}</h1>
<div class="card">
<form method="post" action="/password-reset/${token}" novalidate>
${csrfField(csrf)}
<p>${richText(tr, 'auth.reset.for', { email: account.email })}</p>
<input type="hidden" name="username" value="${account.email}" autocomplete="username">
${input({ id: 'password', label: tr.t('auth.newPassword'), type: 'password', autocomplete: 'new-password', error: errors.password, hint: tr.t('auth.passwordHint', { count: minPasswordLength }) })}
<div class="actions"><button class="button button-primary" type="submit">${tr.t('auth.reset.submit')}</button></div>
</form>
</div>
</div>`;
}

export function expiredResetView(tr: Translator): SafeHtml {
  return html`<div class="card narrow"><h1>${tr.t('auth.expired.heading')}</h1><p>${richText(tr, 'auth.expired.reset', {}, askAgain)}</p></div>`;
}
