// The markup of the templates' pages (issue 38): the list, one template (its roles and their
// fields, rename, use, delete), the confirmation before deleting, "Use template" (each role's
// person and the values the template asks of its user, every refusal beside its input), and
// "Save as template" shown again when its name is refused.
import { fieldTypeSpecs } from '../fields/field-types.ts';
import { endonym, parseLanguage } from '../i18n/languages.ts';
import { type Translator, translator } from '../i18n/messages.ts';
import type { FieldErrors } from '../input-error.ts';
import { maxTemplateNameLength } from '../templates/template-input.ts';
import type { TemplateDetail, TemplateField, TemplateSummary } from '../templates/templates.service.ts';
import type { askedValues } from '../templates/use-template.ts';
import { csrfField, errorSummary, type Form, fieldError, formText, invalidAttrs } from '../ui/forms.ts';
import { html, raw, type SafeHtml } from '../ui/html.ts';
import { languageOptions } from './form-parts.views.ts';
import { formatTime } from './layout.ts';
import { defaultsForm, rolesForm } from './template-edit.views.ts';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

export interface TemplatesList {
  templates: TemplateSummary[];
  cursor: string | null;
  /** The next page's address, or null on the last page. */
  next: string | null;
  /** The cursor given was refused (expired, altered): this is page 1 again. */
  stale: boolean;
  notice: SafeHtml | null;
  timeZone: string;
}

function templatesTable(templates: TemplateSummary[], timeZone: string): SafeHtml {
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Templates">
<table>
<thead><tr><th scope="col">Template</th><th scope="col" class="num">Documents made</th></tr></thead>
<tbody>
${templates.map(
  (t) => html`<tr>
<td class="item"><a href="/templates/${t.id}">${t.name}</a><div class="small muted">Documents’ title: ${t.title}</div><div class="small muted">Last changed ${formatTime(t.updatedAt, timeZone)}</div></td>
<td class="num">${t.documents}</td>
</tr>`,
)}
</tbody>
</table>
</div>`;
}

function emptyTemplates(cursor: string | null): SafeHtml {
  if (cursor) return html`<div class="empty"><p><strong>No templates on this page.</strong></p></div>`;
  return html`<div class="empty"><p><strong>No templates yet.</strong></p>
<p>A template is a PDF with its fields placed once, for roles such as “Client”, sent again and again to new people. Make one from a PDF, or open a document with its PDF and fields and choose <strong>Save as template</strong>.</p>
<p><a class="button button-primary" href="/templates/new">New template</a> <a href="/documents">Go to your documents</a></p></div>`;
}

export function templatesListView(list: TemplatesList): SafeHtml {
  const { cursor, next } = list;
  return html`<div class="section-title"><h1>Templates</h1><span class="actions"><a class="button button-primary button-small" href="/templates/new">New template</a></span></div>
${list.notice}
${list.stale ? html`<div class="notice notice-info" role="status">That page link had expired, so this is the first page again.</div>` : ''}
<div class="card">
${list.templates.length ? templatesTable(list.templates, list.timeZone) : emptyTemplates(cursor)}
<nav class="pager" aria-label="Pages">${cursor ? html`<a href="/templates">Newest</a>` : ''}${next ? html`<a href="${next}">Next page</a>` : ''}</nav>
</div>`;
}

/** "Signature on page 1", "Text “Price” on page 2, you fill it in". */
function fieldItem(field: TemplateField): SafeHtml {
  const type = fieldTypeSpecs[field.type].label;
  return html`<li>${type}${field.label ? html` “${field.label}”` : ''} on page ${field.page}${field.required ? '' : html` <span class="muted">(optional)</span>`}${field.senderFills ? html` <span class="badge badge-pending">you fill it in</span>` : ''}</li>`;
}

function roleItem(role: TemplateDetail['roles'][number]): SafeHtml {
  const kind = role.role === 'signer' ? 'signer' : 'viewer (receives a copy)';
  const fields =
    role.fields.length > 0
      ? html`<ul class="small">${role.fields.map(fieldItem)}</ul>`
      : html`<p class="small muted">${role.role === 'signer' ? 'No fields: signs by name on the certificate.' : 'Fills in nothing.'}</p>`;
  return html`<li><span class="recipient-name">${role.name}</span><div class="small muted">${kind}, order ${role.signingOrder}, ${role.signingMethod}${role.language && parseLanguage(role.language) ? html`, <span lang="${role.language}">${endonym(parseLanguage(role.language) ?? 'en')}</span>` : ''}</div>${fields}</li>`;
}

function reminderText(days: number | null): string {
  if (days === null) return 'none';
  return days === 1 ? 'every day' : `every ${days} days`;
}

function templateSummary(template: TemplateDetail, timeZone: string): SafeHtml {
  const days = Math.round(template.expiresInSeconds / 86_400);
  return html`<div class="card">
<dl class="meta">
<div><dt>Documents’ title</dt><dd>${template.title}</dd></div>
<div><dt>PDF</dt><dd>${plural(template.file.pages, 'page')}</dd></div>
<div><dt>Documents made from it</dt><dd>${template.documents}</dd></div>
<div><dt>Signing is open for</dt><dd>${days >= 1 ? plural(days, 'day') : plural(Math.round(template.expiresInSeconds / 3600), 'hour')} after sending</dd></div>
<div><dt>Automatic reminders</dt><dd>${reminderText(template.remindEveryDays)}</dd></div>
<div><dt>Last changed</dt><dd>${formatTime(template.updatedAt, timeZone)}</dd></div>
</dl>
<div class="actions"><a class="button button-primary" href="/templates/${template.id}/use">Use template</a><a class="button button-secondary" href="/templates/${template.id}/bulk">Send in bulk</a><a class="button button-secondary" href="/templates/${template.id}/public-link">Public link…</a><a class="button button-danger" href="/templates/${template.id}/delete">Delete template…</a></div>
</div>`;
}

function renameForm(template: TemplateDetail, name: string, errors: FieldErrors, csrf: string): SafeHtml {
  return html`<section class="card" aria-labelledby="rename-title">
<h2 id="rename-title">Name</h2>
<form method="post" action="/templates/${template.id}/rename" novalidate>${csrfField(csrf)}
<div class="field"><label for="name">The template’s name, as the list shows it</label><input id="name" name="name" type="text" maxlength="${maxTemplateNameLength}" value="${name}" required ${invalidAttrs('name', errors.name)}>${fieldError('name', errors.name)}</div>
<div class="actions"><button class="button button-secondary" type="submit">Rename</button></div>
</form>
</section>`;
}

export interface TemplatePage {
  template: TemplateDetail;
  /** The name in the rename form: the template's, or the one refused. */
  name: string;
  /** The roles table and the defaults form as shown: the template's, or what was refused. */
  roles: Form;
  defaults: Form;
  errors: FieldErrors;
  notice: SafeHtml | null;
  timeZone: string;
  /** The template's bulk sends (bulk.views.ts), or nothing. */
  bulkSends: SafeHtml | null;
}

export function templateView(page: TemplatePage, csrf: string): SafeHtml {
  const { template } = page;
  return html`<p><a href="/templates">← Templates</a></p>
<div class="section-title"><h1>${template.name}</h1></div>
${page.notice}
${templateSummary(template, page.timeZone)}
<section class="card" aria-labelledby="roles-title">
<h2 id="roles-title">Roles, in signing order</h2>
<p class="small muted">Whoever uses the template names the person of each role; the fields marked “you fill it in” are asked of them too.</p>
<ol class="plain roles">${template.roles.map(roleItem)}</ol>
<div class="actions"><a class="button button-secondary" href="/templates/${template.id}/fields">Edit fields</a></div>
</section>
${rolesForm(template.id, page.roles, page.errors, csrf)}
${defaultsForm(template.id, page.defaults, page.errors, csrf)}
${page.bulkSends}
${renameForm(template, page.name, page.errors, csrf)}`;
}

export function deleteTemplateView(template: TemplateDetail, csrf: string): SafeHtml {
  const back = `/templates/${template.id}`;
  const made =
    template.documents === 0
      ? 'No document was made from it.'
      : template.documents === 1
        ? 'The document made from it stays as it is: it keeps its own recipients, fields and PDF.'
        : `The ${template.documents} documents made from it stay as they are: each keeps its own recipients, fields and PDF.`;
  return html`<p><a href="${back}">← ${template.name}</a></p>
<div class="card narrow">
<h1>Delete this template?</h1>
<p><strong>${template.name}</strong></p>
<p>The template, its roles and its fields are deleted. ${made} This cannot be undone.</p>
<form method="post" action="${back}/delete">${csrfField(csrf)}
<div class="actions"><button class="button button-danger" type="submit">Delete template</button><a href="${back}">Cancel</a></div></form>
</div>`;
}

/** The form's input ids: `role{i}_email`, `role{i}_name`, `role{i}_language` by the role's place, `value{j}` by the asked value's. */
export const useFormIds = {
  email: (i: number) => `role${i}_email`,
  name: (i: number) => `role${i}_name`,
  language: (i: number) => `role${i}_language`,
  value: (j: number) => `value${j}`,
};

function textInput(id: string, label: string, form: Form, errors: FieldErrors, type = 'text'): SafeHtml {
  return html`<div class="field"><label for="${id}">${label}</label><input id="${id}" name="${id}" type="${type}" value="${formText(form, id)}" ${invalidAttrs(id, errors[id])}>${fieldError(id, errors[id])}</div>`;
}

function roleFieldset(role: TemplateDetail['roles'][number], i: number, form: Form, errors: FieldErrors) {
  const what =
    role.role === 'signer' ? `Signs in group ${role.signingOrder}.` : 'Receives a copy, signs nothing.';
  return html`<fieldset class="card"><legend>${role.name}</legend>
<p class="small muted">${what}</p>
${textInput(useFormIds.name(i), 'Full name', form, errors)}
${textInput(useFormIds.email(i), 'Email', form, errors, 'email')}
${personLanguage(role, useFormIds.language(i), form, errors)}
</fieldset>`;
}

/** The person's language: empty keeps their role's default, else the workspace's. */
function personLanguage(
  role: TemplateDetail['roles'][number],
  id: string,
  form: Form,
  errors: FieldErrors,
): SafeHtml {
  const value = formText(form, id);
  const roleLanguage = role.language ? parseLanguage(role.language) : null;
  // An option holds text only: the endonym is named without its own lang.
  const fallback = roleLanguage ? `The role’s: ${endonym(roleLanguage)}` : 'Workspace default';
  return html`<div class="field"><label for="${id}">Language</label><span class="hint" id="${id}-hint">Of their mails and signing page.</span><select id="${id}" name="${id}" aria-describedby="${id}-hint${errors[id] ? ` ${id}-error` : ''}"${errors[id] ? html` aria-invalid="true"` : null}>${languageOptions(value, fallback)}</select>${fieldError(id, errors[id])}</div>`;
}

type AskedValue = ReturnType<typeof askedValues>[number];

function valueInput(value: AskedValue, j: number, form: Form, errors: FieldErrors): SafeHtml {
  const id = useFormIds.value(j);
  const optional = value.required ? '' : html` <span class="muted">(optional)</span>`;
  if (value.type === 'checkbox')
    return html`<div class="field"><label class="checkbox"><input id="${id}" name="${id}" type="checkbox" value="true"${formText(form, id) === 'true' ? raw(' checked') : ''} ${invalidAttrs(id, errors[id])}> ${value.label}${optional}</label>${fieldError(id, errors[id])}</div>`;
  return html`<div class="field"><label for="${id}">${value.label}${optional}</label><input id="${id}" name="${id}" type="text"${value.maxLength ? html` maxlength="${value.maxLength}"` : ''} value="${formText(form, id)}" ${invalidAttrs(id, errors[id])}>${fieldError(id, errors[id])}</div>`;
}

function titleAndMessage(form: Form, errors: FieldErrors): SafeHtml {
  const open = errors.title || errors.body;
  return html`<details class="card"${open ? raw(' open') : ''}><summary>Title and message</summary>
${textInput('title', 'Title', form, errors)}
<div class="field"><label for="body">Message</label><span class="hint" id="body-hint">Shown above the PDF’s pages; blank lines separate paragraphs.</span><textarea id="body" name="body" rows="6" ${errors.body ? raw('aria-invalid="true" ') : ''}aria-describedby="${errors.body ? 'body-error body-hint' : 'body-hint'}">${formText(form, 'body')}</textarea>${fieldError('body', errors.body)}</div>
</details>`;
}

export interface UseTemplatePage {
  template: TemplateDetail;
  asked: AskedValue[];
  form: Form;
  errors: FieldErrors;
}

export function useTemplateView(page: UseTemplatePage, csrf: string): SafeHtml {
  const { template, asked, form, errors } = page;
  const back = `/templates/${template.id}`;
  return html`<p><a href="${back}">← ${template.name}</a></p>
<h1 id="use-title">Use “${template.name}”</h1>
<p class="muted">Name the person of each role. The draft is made from the template’s PDF and fields; you check it before anything is sent.</p>
<form method="post" action="${back}/use" novalidate>${csrfField(csrf)}
${errorSummary(errors, { form: 'use-title' })}
${template.roles.map((role, i) => roleFieldset(role, i, form, errors))}
${asked.length ? html`<fieldset class="card"><legend>Values you fill in</legend><p class="small muted">Shown filled in on the document; its signers cannot change them.</p>${asked.map((value, j) => valueInput(value, j, form, errors))}</fieldset>` : ''}
${titleAndMessage(form, errors)}
<div class="actions"><button class="button button-primary" type="submit">Create draft and review</button><a href="${back}">Cancel</a></div>
</form>`;
}

/** "Save as template" again, when its name was refused. */
export function saveAsTemplateView(
  document: { id: string; title: string },
  name: string,
  errors: FieldErrors,
  csrf: string,
): SafeHtml {
  const back = `/documents/${document.id}`;
  return html`<p><a href="${back}">← ${document.title}</a></p>
<div class="card narrow">
<h1>Save as template</h1>
${Object.entries(errors)
  .filter(([key]) => key !== 'name')
  .map(([, sentence]) => html`<div class="notice notice-error" role="alert">${sentence}</div>`)}
${saveAsTemplateForm(document, name, errors, csrf)}
</div>`;
}

/** The small form on a document's page: the template's name, prefilled with the document's title. */
export function saveAsTemplateForm(
  document: { id: string },
  name: string,
  errors: FieldErrors,
  csrf: string,
  /** The page's language: a document's page is in the member's (web/member-language.ts). */
  tr: Translator = translator('en'),
): SafeHtml {
  return html`<form method="post" action="/documents/${document.id}/save-as-template" novalidate>${csrfField(csrf)}
<div class="field"><label for="template-name">${tr.t('doc.template.name')}</label><span class="hint" id="template-name-hint">${tr.t('doc.template.hint')}</span><input id="template-name" name="name" type="text" maxlength="${maxTemplateNameLength}" value="${name}" required ${errors.name ? raw('aria-invalid="true" ') : ''}aria-describedby="${errors.name ? 'template-name-error template-name-hint' : 'template-name-hint'}">${fieldError('template-name', errors.name)}</div>
<div class="actions"><button class="button button-secondary" type="submit">${tr.t('doc.template.save')}</button></div>
</form>`;
}
