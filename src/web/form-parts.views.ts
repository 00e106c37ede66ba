// Inputs the sender's forms share, in the member's language: a cell of a table of form rows
// (recipients, prices, a template's roles) and the expiry, reminder and language choices of a
// document (or of the documents a template makes).
import { endonym, languages } from '../i18n/languages.ts';
import type { Translator } from '../i18n/messages.ts';
import type { FieldErrors } from '../input-error.ts';
import { autoReminderChoices } from '../sending/reminders.ts';
import { type Form, fieldError, formText, invalidAttrs } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { type Duration, describeSeconds, expiryChoices, field } from './document-form.ts';

/** A choice of a select: the value posted, and what the member reads. */
export type Choice = readonly [value: string, label: string];

/** A select of a form row: hidden label, the value chosen, its sentence when refused. */
export function cellSelect(
  id: string,
  label: string,
  options: readonly Choice[],
  value: string,
  errors: FieldErrors,
): SafeHtml {
  return html`<label class="visually-hidden" for="${id}">${label}</label><select id="${id}" name="${id}" ${invalidAttrs(id, errors[id])}>${options.map(([o, text]) => html`<option value="${o}"${o === value ? html` selected` : ''}>${text}</option>`)}</select>${fieldError(id, errors[id])}`;
}

/** A recipient's (or role's) part, and how they sign, as a row's selects offer them. */
export function roleChoices(tr: Translator): Choice[] {
  return (['signer', 'viewer'] as const).map((role) => [role, tr.t('form.role', { role })]);
}

export function methodChoices(tr: Translator): Choice[] {
  return (['standard', 'email-code'] as const).map((method) => [
    method,
    tr.t('form.signingMethod', { method }),
  ]);
}

/**
 * **The** options of a language select: the empty value first (`none`: what it falls back
 * to), then each of Signet's languages named in itself ("Deutsch", "日本語") so its speaker
 * finds it, `value` chosen.
 */
export function languageOptions(value: string, none: string): SafeHtml {
  return html`<option value=""${value ? '' : html` selected`}>${none}</option>${languages.map((language) => html`<option value="${language}" lang="${language}"${language === value ? html` selected` : ''}>${endonym(language)}</option>`)}`;
}

/** A recipient's language in a form row: the workspace's default (the empty value) or one of Signet's languages. */
export function languageSelect(
  id: string,
  label: string,
  value: string,
  errors: FieldErrors,
  tr: Translator,
): SafeHtml {
  return html`<label class="visually-hidden" for="${id}">${label}</label><select id="${id}" name="${id}" ${invalidAttrs(id, errors[id])}>${languageOptions(value, tr.t('form.workspaceDefault'))}</select>${fieldError(id, errors[id])}`;
}

/**
 * "Certificate language": the language the certificate of completion is written in, the
 * workspace's default (the empty value) unless the sender chooses one of Signet's languages.
 */
export function certificateLanguageField(form: Form, errors: FieldErrors, tr: Translator): SafeHtml {
  const value = formText(form, 'language');
  return html`<div class="field"><label for="language">${tr.t('form.certificateLanguage')}</label><span class="hint" id="language-hint">${tr.t('form.certificateLanguageHint')}</span><select id="language" name="language" aria-describedby="language-hint${errors.language ? ' language-error' : ''}"${errors.language ? html` aria-invalid="true"` : null}>${languageOptions(value, tr.t('form.workspaceDefault'))}</select>${fieldError('language', errors.language)}</div>`;
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

/** "45 days", "1 hour": a duration the form's choices do not hold, in the member's words. */
export function durationText(duration: Duration, tr: Translator): string {
  return tr.t('form.duration', { unit: duration.unit, count: duration.count });
}

/**
 * "Signing is open for": the form's choices in days, or (`expiresInDays=keep`) an expiry set
 * elsewhere (the CLI, the API) offered as it is and kept unless changed; `expiresAsSet`
 * carries it in seconds.
 */
export function expiryField(form: Form, errors: FieldErrors, tr: Translator): SafeHtml {
  const expiry = formText(form, 'expiresInDays') || '30';
  const expiryOptions: Choice[] = expiryChoices.map((days) => [
    String(days),
    tr.t('form.expiry.days', { days }),
  ]);
  const asSet = Number(formText(form, 'expiresAsSet'));
  if (expiry === 'keep')
    expiryOptions.unshift([
      'keep',
      tr.t('form.expiry.asSet', { duration: durationText(describeSeconds(asSet), tr) }),
    ]);
  return html`${expiry === 'keep' ? html`<input type="hidden" name="expiresAsSet" value="${formText(form, 'expiresAsSet')}">` : null}
<div class="field"><label for="expiresInDays">${tr.t('form.expiry.label')}</label><select id="expiresInDays" name="expiresInDays" ${invalidAttrs('expiresInDays', errors.expiresInDays)}>${expiryOptions.map(([value, label]) => html`<option value="${value}"${value === expiry ? html` selected` : null}>${label}</option>`)}</select>${fieldError('expiresInDays', errors.expiresInDays)}</div>`;
}

/** "Remind signers automatically": never, or every few days. */
export function reminderField(form: Form, errors: FieldErrors, tr: Translator): SafeHtml {
  const choices: Choice[] = [
    ['', tr.t('form.remind.never')],
    ...autoReminderChoices.map((days): Choice => [String(days), tr.t('form.remind.every', { days })]),
  ];
  return html`<div class="field"><label for="remindEveryDays">${tr.t('form.remind.label')}</label><span class="hint" id="remindEveryDays-hint">${tr.t('form.remind.hint')}</span><select id="remindEveryDays" name="remindEveryDays" aria-describedby="remindEveryDays-hint${errors.remindEveryDays ? ' remindEveryDays-error' : ''}"${errors.remindEveryDays ? html` aria-invalid="true"` : null}>${choices.map(([value, label]) => html`<option value="${value}"${value === formText(form, 'remindEveryDays') ? html` selected` : null}>${label}</option>`)}</select>${fieldError('remindEveryDays', errors.remindEveryDays)}</div>`;
}
