// The markup of a template's making and changing (issue 38), in the member's language: the
// new-template form (a PDF, its roles, the documents' defaults; the fields come next, in the
// field editor), and on a template's page the roles table and the defaults form. Every
// refusal shows beside its input, with a summary at the top of its form.
import type { Translator } from '../i18n/messages.ts';
import type { FieldErrors } from '../input-error.ts';
import { formatBytes, maxPages } from '../pdf/inspect.ts';
import { maxRecipients } from '../sending/draft-input.ts';
import type { KeptUpload } from '../sending/kept-uploads.ts';
import { maxTemplateNameLength } from '../templates/template-input.ts';
import { csrfField, errorSummary, type Form, fieldError, formText, invalidAttrs } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { richText } from '../ui/rich-text.ts';
import { field } from './document-form.ts';
import {
  cellInput,
  cellSelect,
  expiryField,
  languageSelect,
  methodChoices,
  reminderField,
  roleChoices,
} from './form-parts.views.ts';
import { roleInput, roleRowsOf } from './template-form.ts';

/** The roles table: a row per role (a kept role can be removed), blank rows for new ones. */
export function rolesTable(form: Form, errors: FieldErrors, tr: Translator): SafeHtml {
  const count = roleRowsOf(form);
  const rows = Array.from({ length: count }, (_, i) => i);
  const kept = (i: number) => field(form, roleInput.was(i)) !== '';
  // A new template's table has no role to remove.
  const removable = rows.some(kept);
  return html`<input type="hidden" name="roleRows" value="${count}">
${errors.roles ? html`<p class="field-error" id="roles-error" role="alert">${errors.roles}</p>` : null}
<div class="table-scroll" tabindex="0" role="region" aria-label="${tr.t('tpl.roles.label')}">
<table class="form-rows"><thead><tr><th scope="col">${tr.t('docForm.col.role')}</th><th scope="col">${tr.t('tpl.roles.kind')}</th><th scope="col">${tr.t('docForm.col.signing')}</th><th scope="col">${tr.t('docForm.col.order')}</th><th scope="col">${tr.t('docForm.col.language')}</th>${removable ? html`<th scope="col">${tr.t('tpl.roles.remove')}</th>` : null}</tr></thead>
<tbody>${rows.map((i) => {
    const row = { row: i + 1 };
    return html`<tr>
<td data-label="${tr.t('docForm.col.role')}">${kept(i) ? html`<input type="hidden" name="${roleInput.was(i)}" value="${field(form, roleInput.was(i))}">` : null}${cellInput(roleInput.name(i), tr.t('tpl.cell.name', row), form, errors, html`type="text" maxlength="60" placeholder="${i === 0 ? tr.t('tpl.roles.example') : ''}"`)}</td>
<td data-label="${tr.t('tpl.roles.kind')}">${cellSelect(roleInput.role(i), tr.t('tpl.cell.kind', row), roleChoices(tr), field(form, roleInput.role(i)) || 'signer', errors)}</td>
<td data-label="${tr.t('docForm.col.signing')}">${cellSelect(roleInput.method(i), tr.t('tpl.cell.method', row), methodChoices(tr), field(form, roleInput.method(i)) || 'standard', errors)}</td>
<td data-label="${tr.t('docForm.col.order')}">${cellInput(roleInput.order(i), tr.t('tpl.cell.order', row), { ...form, [roleInput.order(i)]: field(form, roleInput.order(i)) || '1' }, errors, html`type="number" min="1" max="100"`)}</td>
<td data-label="${tr.t('docForm.col.language')}">${languageSelect(roleInput.language(i), tr.t('tpl.cell.language', row), field(form, roleInput.language(i)), errors, tr)}</td>
${removable ? html`<td data-label="${tr.t('tpl.roles.remove')}">${kept(i) ? html`<label class="checkbox"><input type="checkbox" name="${roleInput.remove(i)}" value="yes"${formText(form, roleInput.remove(i)) === 'yes' ? html` checked` : null}> <span class="visually-hidden">${tr.t('tpl.cell.remove', row)}</span></label>` : null}</td>` : null}
</tr>`;
  })}</tbody></table></div>
${count < maxRecipients ? html`<div class="actions"><button class="button button-secondary button-small" type="submit" name="more" value="roles">${tr.t('tpl.roles.more')}</button></div>` : ''}`;
}

/** "Change the roles" on a template's page: renaming keeps a role's fields; removing one removes them. */
export function rolesForm(
  templateId: string,
  form: Form,
  errors: FieldErrors,
  csrf: string,
  tr: Translator,
): SafeHtml {
  const open = Object.keys(errors).some((key) => key === 'roles' || key === 'fields' || /^t\d+_/.test(key));
  return html`<details class="card" id="change-roles"${open ? html` open` : null}><summary>${tr.t('tpl.roles.change')}</summary>
<form method="post" action="/templates/${templateId}/roles" novalidate>${csrfField(csrf)}
${open ? errorSummary(errors, {}, tr) : null}
<p class="small muted">${tr.t('tpl.roles.hint')} ${tr.t('tpl.roles.changeHint')}</p>
${rolesTable(form, errors, tr)}
${errors.fields ? html`<p class="field-error" role="alert">${errors.fields}</p>` : null}
<div class="actions"><button class="button button-secondary" type="submit">${tr.t('tpl.roles.save')}</button></div>
</form>
</details>`;
}

/** The documents' defaults on a template's page: title, message, expiry and reminders. */
export function defaultsForm(
  templateId: string,
  form: Form,
  errors: FieldErrors,
  csrf: string,
  tr: Translator,
): SafeHtml {
  const open = ['title', 'body', 'expiresInDays', 'remindEveryDays'].some((key) => errors[key]);
  return html`<details class="card" id="change-defaults"${open ? html` open` : null}><summary>${tr.t('tpl.defaults.change')}</summary>
<form method="post" action="/templates/${templateId}/defaults" novalidate>${csrfField(csrf)}
<p class="small muted">${tr.t('tpl.defaults.hint')}</p>
${defaultsInputs(form, errors, tr)}
<div class="actions"><button class="button button-secondary" type="submit">${tr.t('form.save')}</button></div>
</form>
</details>`;
}

function defaultsInputs(form: Form, errors: FieldErrors, tr: Translator): SafeHtml {
  return html`<div class="field"><label for="title">${tr.t('tpl.summary.title')}</label><input id="title" name="title" type="text" maxlength="200" value="${field(form, 'title')}" ${invalidAttrs('title', errors.title)}>${fieldError('title', errors.title)}</div>
${expiryField(form, errors, tr)}
${reminderField(form, errors, tr)}
<div class="field"><label for="body">${tr.t('tpl.message')}</label><span class="hint" id="body-hint">${tr.t('tpl.messageHint')}</span><textarea id="body" name="body" rows="5" ${errors.body ? html`aria-invalid="true" ` : null}aria-describedby="${errors.body ? 'body-error body-hint' : 'body-hint'}">${formText(form, 'body')}</textarea>${fieldError('body', errors.body)}</div>`;
}

export interface NewTemplatePage {
  form: Form;
  errors: FieldErrors;
  /** The PDF kept from the last attempt, named on the form. */
  kept: KeptUpload | null;
  maxBytes: number;
}

function fileInput(page: NewTemplatePage, tr: Translator): SafeHtml {
  const { errors, kept } = page;
  const keptNotice = kept
    ? html`<input type="hidden" name="keptFile" value="${kept.id}"><p class="notice notice-info kept-file" id="file-kept">${richText(tr, 'docForm.file.kept', { name: kept.fileName, pages: kept.pages })}</p>`
    : null;
  const describedBy = [errors.file ? 'file-error' : '', kept ? 'file-kept' : '', 'file-hint'].filter(Boolean);
  return html`<div class="field file-drop"><label for="file">${tr.t('tpl.new.file')}</label>
<span class="hint" id="file-hint">${tr.t('tpl.new.fileHint', { size: formatBytes(page.maxBytes), maxPages })}</span>
${keptNotice}
<input id="file" name="file" type="file" accept="application/pdf,.pdf" ${errors.file ? html`aria-invalid="true" ` : null}aria-describedby="${describedBy.join(' ')}">
${fieldError('file', errors.file)}</div>`;
}

/** The new-template form: name, PDF, roles, defaults; then the field editor. */
export function newTemplateView(page: NewTemplatePage, csrf: string, tr: Translator): SafeHtml {
  const { form, errors } = page;
  return html`<p><a href="/templates">← ${tr.t('app.nav.templates')}</a></p>
<h1 id="new-template-title">${tr.t('tpl.new')}</h1>
<p class="muted">${tr.t('tpl.new.intro')}</p>
<form method="post" action="/templates" enctype="multipart/form-data" novalidate>${csrfField(csrf)}
${errorSummary(errors, { form: 'new-template-title' }, tr)}
<section class="card">
<div class="field"><label for="name">${tr.t('tpl.new.name')}</label><span class="hint" id="name-hint">${tr.t('tpl.new.nameHint')}</span><input id="name" name="name" type="text" maxlength="${maxTemplateNameLength}" value="${field(form, 'name')}" required aria-describedby="${errors.name ? 'name-error name-hint' : 'name-hint'}"${errors.name ? html` aria-invalid="true"` : null}>${fieldError('name', errors.name)}</div>
${fileInput(page, tr)}
</section>
<section class="card" aria-labelledby="roles-title">
<h2 id="roles-title">${tr.t('tpl.roles.label')}</h2>
<p class="small muted">${tr.t('tpl.roles.hint')}</p>
${rolesTable(form, errors, tr)}
</section>
<section class="card" aria-labelledby="defaults-title">
<h2 id="defaults-title">${tr.t('tpl.new.defaults')}</h2>
<p class="small muted">${tr.t('tpl.new.defaultsHint')}</p>
${defaultsInputs(form, errors, tr)}
</section>
<div class="actions"><button class="button button-primary" type="submit">${tr.t('tpl.new.submit')}</button><a href="/templates">${tr.t('doc.confirm.cancel')}</a></div>
</form>`;
}
