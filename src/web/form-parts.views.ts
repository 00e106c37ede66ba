// Inputs the sender's forms share: a cell of a table of form rows (recipients, prices, a
// template's roles) and the expiry and reminder choices of a document (or of the documents a
// template makes).
import { endonym, languages } from '../i18n/languages.ts';
import type { FieldErrors } from '../input-error.ts';
import { autoReminderChoices } from '../sending/reminders.ts';
import { type Form, fieldError, formText, invalidAttrs } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { expiryChoices, field } from './document-form.ts';

/** A select of a form row: hidden label, the value chosen, its sentence when refused. */
export function cellSelect(
  id: string,
  label: string,
  options: readonly string[],
  value: string,
  errors: FieldErrors,
): SafeHtml {
  return html`<label class="visually-hidden" for="${id}">${label}</label><select id="${id}" name="${id}" ${invalidAttrs(id, errors[id])}>${options.map((o) => html`<option value="${o}"${o === value ? html` selected` : ''}>${o}</option>`)}</select>${fieldError(id, errors[id])}`;
}

/**
 * A recipient's language in a form row: the workspace's default (the empty value) or one of
 * Signet's languages, each named in itself ("Deutsch", "日本語") so its speaker finds it.
 */
/**
 * **The** options of a language select: the empty value first (`none`: what it falls back
 * to), then each of Signet's languages named in itself, `value` chosen.
 */
export function languageOptions(value: string, none: string): SafeHtml {
  return html`<option value=""${value ? '' : html` selected`}>${none}</option>${languages.map((language) => html`<option value="${language}" lang="${language}"${language === value ? html` selected` : ''}>${endonym(language)}</option>`)}`;
}

export function languageSelect(id: string, label: string, value: string, errors: FieldErrors): SafeHtml {
  return html`<label class="visually-hidden" for="${id}">${label}</label><select id="${id}" name="${id}" ${invalidAttrs(id, errors[id])}>${languageOptions(value, 'Workspace default')}</select>${fieldError(id, errors[id])}`;
}

/**
 * "Certificate language": the language the certificate of completion is written in, the
 * workspace's default (the empty value) unless the sender chooses one of Signet's languages.
 */
export function certificateLanguageField(form: Form, errors: FieldErrors): SafeHtml {
  const value = formText(form, 'language');
  return html`<div class="field"><label for="language">Certificate language</label><span class="hint" id="language-hint">The certificate of completion in the signed PDF is written in it. Each recipient’s mails and pages follow their own language, above.</span><select id="language" name="language" aria-describedby="language-hint${errors.language ? ' language-error' : ''}"${errors.language ? html` aria-invalid="true"` : null}>${languageOptions(value, 'Workspace default')}</select>${fieldError('language', errors.language)}</div>`;
}

/** A text input of a form row: hidden label, the value typed, its sentence when refused. */
export function cellInput(
  id: string,
  label: string,
  form: Form,
  errors: FieldErrors,
  attributes: SafeHtml = html`type="text"`,
): SafeHtml {
  return html`<label class="visually-hidden" for="${id}">${label}</label><input id="${id}" name="${id}" ${attributes} value="${field(form, id)}" ${invalidAttrs(id, errors[id])}>${fieldError(id, errors[id])}`;
}

/**
 * "Signing is open for": the form's choices in days, or (`expiresInDays=keep`) an expiry set
 * elsewhere (the CLI, the API) offered as it is and kept unless changed.
 */
export function expiryField(form: Form, errors: FieldErrors): SafeHtml {
  const expiry = formText(form, 'expiresInDays') || '30';
  const expiryOptions: Array<[string, string]> = expiryChoices.map((days) => [
    String(days),
    `${days} days after sending`,
  ]);
  if (expiry === 'keep') expiryOptions.unshift(['keep', `as set (${formText(form, 'expiresAsSet')})`]);
  return html`${expiry === 'keep' ? html`<input type="hidden" name="expiresAsSet" value="${formText(form, 'expiresAsSet')}">` : null}
<div class="field"><label for="expiresInDays">Signing is open for</label><select id="expiresInDays" name="expiresInDays" ${invalidAttrs('expiresInDays', errors.expiresInDays)}>${expiryOptions.map(([value, label]) => html`<option value="${value}"${value === expiry ? html` selected` : null}>${label}</option>`)}</select>${fieldError('expiresInDays', errors.expiresInDays)}</div>`;
}

/** "Remind signers automatically": never, or every few days. */
export function reminderField(form: Form, errors: FieldErrors): SafeHtml {
  return html`<div class="field"><label for="remindEveryDays">Remind signers automatically</label><span class="hint" id="remindEveryDays-hint">Until they sign or the document expires; you can also remind one at any time from the document's page.</span><select id="remindEveryDays" name="remindEveryDays" aria-describedby="remindEveryDays-hint${errors.remindEveryDays ? ' remindEveryDays-error' : ''}"${errors.remindEveryDays ? html` aria-invalid="true"` : null}>${[['', 'Never'] as const, ...autoReminderChoices.map((days) => [String(days), days === 1 ? 'Every day' : `Every ${days} days`] as const)].map(([value, label]) => html`<option value="${value}"${value === formText(form, 'remindEveryDays') ? html` selected` : null}>${label}</option>`)}</select>${fieldError('remindEveryDays', errors.remindEveryDays)}</div>`;
}
