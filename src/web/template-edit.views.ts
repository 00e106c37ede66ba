// The markup of a template's making and changing (issue 38): the new-template form (a PDF,
// its roles, the documents' defaults; the fields come next, in the field editor), and on a
// template's page the roles table and the defaults form. Every refusal shows beside its input,
// with a summary at the top of its form.
import { translator } from '../i18n/messages.ts';
import type { FieldErrors } from '../input-error.ts';
import { formatBytes, maxPages } from '../pdf/inspect.ts';
import { maxRecipients } from '../sending/draft-input.ts';
import type { KeptUpload } from '../sending/kept-uploads.ts';
import { maxTemplateNameLength } from '../templates/template-input.ts';
import { csrfField, errorSummary, type Form, fieldError, formText, invalidAttrs } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
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

// The template pages are in English until their sentences are in the catalogues (issue 51);
// the inputs they share with the document form take a translator, English's here.
const english = translator('en');

/** The roles table: a row per role (a kept role can be removed), blank rows for new ones. */
export function rolesTable(form: Form, errors: FieldErrors): SafeHtml {
  const count = roleRowsOf(form);
  const rows = Array.from({ length: count }, (_, i) => i);
  const kept = (i: number) => field(form, roleInput.was(i)) !== '';
  // A new template's table has no role to remove.
  const removable = rows.some(kept);
  return html`<input type="hidden" name="roleRows" value="${count}">
${errors.roles ? html`<p class="field-error" id="roles-error" role="alert">${errors.roles}</p>` : null}
<div class="table-scroll" tabindex="0" role="region" aria-label="Roles">
<table class="form-rows"><thead><tr><th scope="col">Role</th><th scope="col">Kind</th><th scope="col">Signing</th><th scope="col">Order</th><th scope="col">Language</th>${removable ? html`<th scope="col">Remove</th>` : null}</tr></thead>
<tbody>${rows.map(
    (i) => html`<tr>
<td data-label="Role">${kept(i) ? html`<input type="hidden" name="${roleInput.was(i)}" value="${field(form, roleInput.was(i))}">` : null}${cellInput(roleInput.name(i), `Role ${i + 1} name`, form, errors, html`type="text" maxlength="60" placeholder="${i === 0 ? 'Client' : ''}"`)}</td>
<td data-label="Kind">${cellSelect(roleInput.role(i), `Role ${i + 1} kind`, roleChoices(english), field(form, roleInput.role(i)) || 'signer', errors)}</td>
<td data-label="Signing">${cellSelect(roleInput.method(i), `Role ${i + 1} signing method`, methodChoices(english), field(form, roleInput.method(i)) || 'standard', errors)}</td>
<td data-label="Order">${cellInput(roleInput.order(i), `Role ${i + 1} signing order`, { ...form, [roleInput.order(i)]: field(form, roleInput.order(i)) || '1' }, errors, html`type="number" min="1" max="100"`)}</td>
<td data-label="Language">${languageSelect(roleInput.language(i), `Role ${i + 1} language`, field(form, roleInput.language(i)), errors, english)}</td>
${removable ? html`<td data-label="Remove">${kept(i) ? html`<label class="checkbox"><input type="checkbox" name="${roleInput.remove(i)}" value="yes"${formText(form, roleInput.remove(i)) === 'yes' ? html` checked` : null}> <span class="visually-hidden">Remove role ${i + 1}</span></label>` : null}</td>` : null}
</tr>`,
  )}</tbody></table></div>
${count < maxRecipients ? html`<div class="actions"><button class="button button-secondary button-small" type="submit" name="more" value="roles">More role rows</button></div>` : ''}`;
}

const rolesHint =
  'Name each role as the people using the template will know it (“Client”, “Company”). Signers sign in order of their number; equal numbers sign in any order. A viewer receives a copy and signs nothing. Blank rows are ignored.';

/** "Change the roles" on a template's page: renaming keeps a role's fields; removing one removes them. */
export function rolesForm(templateId: string, form: Form, errors: FieldErrors, csrf: string): SafeHtml {
  const open = Object.keys(errors).some((key) => key === 'roles' || key === 'fields' || /^t\d+_/.test(key));
  return html`<details class="card" id="change-roles"${open ? html` open` : null}><summary>Change the roles</summary>
<form method="post" action="/templates/${templateId}/roles" novalidate>${csrfField(csrf)}
${open ? errorSummary(errors) : null}
<p class="small muted">${rolesHint} A renamed role keeps its fields; a removed role’s fields are removed with it.</p>
${rolesTable(form, errors)}
${errors.fields ? html`<p class="field-error" role="alert">${errors.fields}</p>` : null}
<div class="actions"><button class="button button-secondary" type="submit">Save roles</button></div>
</form>
</details>`;
}

/** The documents' defaults on a template's page: title, message, expiry and reminders. */
export function defaultsForm(templateId: string, form: Form, errors: FieldErrors, csrf: string): SafeHtml {
  const open = ['title', 'body', 'expiresInDays', 'remindEveryDays'].some((key) => errors[key]);
  return html`<details class="card" id="change-defaults"${open ? html` open` : null}><summary>Change the documents’ title, message, expiry and reminders</summary>
<form method="post" action="/templates/${templateId}/defaults" novalidate>${csrfField(csrf)}
<p class="small muted">For the documents made from now on; those made already keep theirs. Whoever uses the template can still change the title and message of their document.</p>
${defaultsInputs(form, errors)}
<div class="actions"><button class="button button-secondary" type="submit">Save</button></div>
</form>
</details>`;
}

function defaultsInputs(form: Form, errors: FieldErrors): SafeHtml {
  return html`<div class="field"><label for="title">Documents’ title</label><input id="title" name="title" type="text" maxlength="200" value="${field(form, 'title')}" ${invalidAttrs('title', errors.title)}>${fieldError('title', errors.title)}</div>
${expiryField(form, errors, english)}
${reminderField(form, errors, english)}
<div class="field"><label for="body">Message</label><span class="hint" id="body-hint">Shown above the PDF’s pages; blank lines separate paragraphs.</span><textarea id="body" name="body" rows="5" ${errors.body ? html`aria-invalid="true" ` : null}aria-describedby="${errors.body ? 'body-error body-hint' : 'body-hint'}">${formText(form, 'body')}</textarea>${fieldError('body', errors.body)}</div>`;
}

export interface NewTemplatePage {
  form: Form;
  errors: FieldErrors;
  /** The PDF kept from the last attempt, named on the form. */
  kept: KeptUpload | null;
  maxBytes: number;
}

function fileInput(page: NewTemplatePage): SafeHtml {
  const { errors, kept } = page;
  const keptNotice = kept
    ? html`<input type="hidden" name="keptFile" value="${kept.id}"><p class="notice notice-info kept-file" id="file-kept"><strong>${kept.fileName}</strong>, ${kept.pages} ${kept.pages === 1 ? 'page' : 'pages'}, kept; choose another file to replace it.</p>`
    : null;
  const describedBy = [errors.file ? 'file-error' : '', kept ? 'file-kept' : '', 'file-hint'].filter(Boolean);
  return html`<div class="field file-drop"><label for="file">The contract’s PDF</label>
<span class="hint" id="file-hint">Up to ${formatBytes(page.maxBytes)} and ${maxPages} pages. Its fields are placed next, on its pages.</span>
${keptNotice}
<input id="file" name="file" type="file" accept="application/pdf,.pdf" ${errors.file ? html`aria-invalid="true" ` : null}aria-describedby="${describedBy.join(' ')}">
${fieldError('file', errors.file)}</div>`;
}

/** The new-template form: name, PDF, roles, defaults; then the field editor. */
export function newTemplateView(page: NewTemplatePage, csrf: string): SafeHtml {
  const { form, errors } = page;
  return html`<p><a href="/templates">← Templates</a></p>
<h1 id="new-template-title">New template</h1>
<p class="muted">A template is a PDF whose fields are placed once, for roles, then sent again and again to new people: one at a time, from a spreadsheet, or through a public link.</p>
<form method="post" action="/templates" enctype="multipart/form-data" novalidate>${csrfField(csrf)}
${errorSummary(errors, { form: 'new-template-title' })}
<section class="card">
<div class="field"><label for="name">Template name</label><span class="hint" id="name-hint">As the list of templates shows it.</span><input id="name" name="name" type="text" maxlength="${maxTemplateNameLength}" value="${field(form, 'name')}" required aria-describedby="${errors.name ? 'name-error name-hint' : 'name-hint'}"${errors.name ? html` aria-invalid="true"` : null}>${fieldError('name', errors.name)}</div>
${fileInput(page)}
</section>
<section class="card" aria-labelledby="roles-title">
<h2 id="roles-title">Roles</h2>
<p class="small muted">${rolesHint}</p>
${rolesTable(form, errors)}
</section>
<section class="card" aria-labelledby="defaults-title">
<h2 id="defaults-title">The documents made from it</h2>
<p class="small muted">Their title is the template’s name when left blank. Whoever uses the template can change the title and message of their document.</p>
${defaultsInputs(form, errors)}
</section>
<div class="actions"><button class="button button-primary" type="submit">Create template and place its fields</button><a href="/templates">Cancel</a></div>
</form>`;
}
