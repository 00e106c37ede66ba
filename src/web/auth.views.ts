// The markup of the account pages: sign-up, log-in, the sign-up confirmation, the password
// reset (in the visitor's language: ui/page-language.ts) and the account page (English, as
// the rest of the web app for now, but for the names of the languages).
import type { SessionUser } from '../accounts/accounts.service.ts';
import { minPasswordLength } from '../accounts/passwords.ts';
import { endonym, type Language } from '../i18n/languages.ts';
import { type Translator, translator } from '../i18n/messages.ts';
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
  password: 'Your password was changed. Every other browser was signed out.',
  reset: 'Your new password is set and you are logged in. Every other browser was signed out.',
};

/**
 * "Your language": the member's own, for Signet's mails to them and the log-in pages; the
 * names of the languages in themselves, the rest in English as the web app's pages are.
 */
function languageCard(csrf: string, view: AccountView): SafeHtml {
  const tr = translator('en');
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

export function accountView(csrf: string, view: AccountView): SafeHtml {
  const { member, workspaces, errors, done } = view;
  const doneSentence =
    done === 'language'
      ? translator('en').t('account.language.done', {
          language: endonym(view.language ?? view.workspaceLanguage),
        })
      : done
        ? doneSentences[done]
        : null;
  return html`<h1>Your account</h1>
${doneSentence ? notice('success', doneSentence) : ''}
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
</div>
${languageCard(csrf, view)}`;
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
