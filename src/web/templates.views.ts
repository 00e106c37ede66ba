// The markup of the templates' pages (issue 38), in the member's language: the list, one
// template (its roles and their fields, rename, use, delete), the confirmation before
// deleting, "Use template" (each role's person and the values the template asks of its user,
// every refusal beside its input), and "Save as template" shown again when its name is refused.
import { endonym, parseLanguage } from '../i18n/languages.ts';
import type { MessageKey, Translator } from '../i18n/messages.ts';
import type { FieldErrors } from '../input-error.ts';
import { maxTemplateNameLength } from '../templates/template-input.ts';
import type { TemplateDetail, TemplateField, TemplateSummary } from '../templates/templates.service.ts';
import type { askedValues } from '../templates/use-template.ts';
import { csrfField, errorSummary, type Form, fieldError, formText, invalidAttrs } from '../ui/forms.ts';
import { html, raw, type SafeHtml } from '../ui/html.ts';
import { richText } from '../ui/rich-text.ts';
import { durationText, languageOptions } from './form-parts.views.ts';
import { formatTime } from './layout.ts';
import { defaultsForm, rolesForm } from './template-edit.views.ts';

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

function templatesTable(templates: TemplateSummary[], timeZone: string, tr: Translator): SafeHtml {
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="${tr.t('app.nav.templates')}">
<table>
<thead><tr><th scope="col">${tr.t('tpl.list.template')}</th><th scope="col" class="num">${tr.t('tpl.list.documents')}</th></tr></thead>
<tbody>
${templates.map(
  (t) => html`<tr>
<td class="item"><a href="/templates/${t.id}">${t.name}</a><div class="small muted">${tr.t('tpl.list.title', { title: t.title })}</div><div class="small muted">${tr.t('tpl.list.changed', { time: formatTime(t.updatedAt, timeZone) })}</div></td>
<td class="num">${t.documents}</td>
</tr>`,
)}
</tbody>
</table>
</div>`;
}

function emptyTemplates(cursor: string | null, tr: Translator): SafeHtml {
  if (cursor) return html`<div class="empty"><p><strong>${tr.t('tpl.list.emptyPage')}</strong></p></div>`;
  return html`<div class="empty"><p><strong>${tr.t('tpl.list.none')}</strong></p>
<p>${richText(tr, 'tpl.list.explain')}</p>
<p><a class="button button-primary" href="/templates/new">${tr.t('tpl.new')}</a> <a href="/documents">${tr.t('tpl.list.toDocuments')}</a></p></div>`;
}

export function templatesListView(list: TemplatesList, tr: Translator): SafeHtml {
  const { cursor, next } = list;
  return html`<div class="section-title"><h1>${tr.t('app.nav.templates')}</h1><span class="actions"><a class="button button-primary button-small" href="/templates/new">${tr.t('tpl.new')}</a></span></div>
${list.notice}
${list.stale ? html`<div class="notice notice-info" role="status">${tr.t('docs.staleCursor')}</div>` : ''}
<div class="card">
${list.templates.length ? templatesTable(list.templates, list.timeZone, tr) : emptyTemplates(cursor, tr)}
<nav class="pager" aria-label="${tr.t('docs.pager.label')}">${cursor ? html`<a href="/templates">${tr.t('docs.pager.newest')}</a>` : ''}${next ? html`<a href="${next}">${tr.t('docs.pager.next')}</a>` : ''}</nav>
</div>`;
}

/** "Signature on page 1", "Text “Price” on page 2, you fill it in". */
function fieldItem(field: TemplateField, tr: Translator): SafeHtml {
  const type = tr.t(`field.type.${field.type}` as MessageKey);
  const described = field.label
    ? tr.t('field.describedLabel', { type, label: field.label, page: field.page })
    : tr.t('field.described', { type, page: field.page });
  return html`<li>${described}${field.required ? '' : html` <span class="muted">${tr.t('form.optional')}</span>`}${field.senderFills ? html` <span class="badge badge-pending">${tr.t('tpl.field.youFill')}</span>` : ''}</li>`;
}

function roleItem(role: TemplateDetail['roles'][number], tr: Translator): SafeHtml {
  const fields =
    role.fields.length > 0
      ? html`<ul class="small">${role.fields.map((field) => fieldItem(field, tr))}</ul>`
      : html`<p class="small muted">${tr.t(role.role === 'signer' ? 'tpl.role.noFields' : 'tpl.role.fillsNothing')}</p>`;
  const language = role.language ? parseLanguage(role.language) : null;
  const facts = tr.t('tpl.role.facts', {
    role: role.role,
    order: role.signingOrder,
    method: role.signingMethod === 'email-code' ? 'emailCode' : 'standard',
  });
  return html`<li><span class="recipient-name">${role.name}</span><div class="small muted">${facts}${language ? html`, <span lang="${language}">${endonym(language)}</span>` : ''}</div>${fields}</li>`;
}

function templateSummary(template: TemplateDetail, timeZone: string, tr: Translator): SafeHtml {
  const days = Math.round(template.expiresInSeconds / 86_400);
  const open =
    days >= 1
      ? durationText({ unit: 'day', count: days }, tr)
      : durationText({ unit: 'hour', count: Math.round(template.expiresInSeconds / 3600) }, tr);
  const reminders =
    template.remindEveryDays === null
      ? tr.t('tpl.summary.noReminders')
      : tr.t('form.remind.every', { days: template.remindEveryDays });
  return html`<div class="card">
<dl class="meta">
<div><dt>${tr.t('tpl.summary.title')}</dt><dd>${template.title}</dd></div>
<div><dt>${tr.t('doc.pdf.heading')}</dt><dd>${tr.t('send.pages', { pages: template.file.pages })}</dd></div>
<div><dt>${tr.t('tpl.summary.documents')}</dt><dd>${template.documents}</dd></div>
<div><dt>${tr.t('form.expiry.label')}</dt><dd>${tr.t('tpl.summary.open', { duration: open })}</dd></div>
<div><dt>${tr.t('tpl.summary.reminders')}</dt><dd>${reminders}</dd></div>
<div><dt>${tr.t('tpl.summary.changed')}</dt><dd>${formatTime(template.updatedAt, timeZone)}</dd></div>
</dl>
<div class="actions"><a class="button button-primary" href="/templates/${template.id}/use">${tr.t('tpl.action.use')}</a><a class="button button-secondary" href="/templates/${template.id}/bulk">${tr.t('tpl.action.bulk')}</a><a class="button button-secondary" href="/templates/${template.id}/public-link">${tr.t('tpl.action.publicLink')}</a><a class="button button-danger" href="/templates/${template.id}/delete">${tr.t('tpl.action.delete')}</a></div>
</div>`;
}

function renameForm(
  template: TemplateDetail,
  name: string,
  errors: FieldErrors,
  csrf: string,
  tr: Translator,
): SafeHtml {
  return html`<section class="card" aria-labelledby="rename-title">
<h2 id="rename-title">${tr.t('tpl.rename.heading')}</h2>
<form method="post" action="/templates/${template.id}/rename" novalidate>${csrfField(csrf)}
<div class="field"><label for="name">${tr.t('tpl.rename.label')}</label><input id="name" name="name" type="text" maxlength="${maxTemplateNameLength}" value="${name}" required ${invalidAttrs('name', errors.name)}>${fieldError('name', errors.name)}</div>
<div class="actions"><button class="button button-secondary" type="submit">${tr.t('tpl.rename.submit')}</button></div>
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

export function templateView(page: TemplatePage, csrf: string, tr: Translator): SafeHtml {
  const { template } = page;
  return html`<p><a href="/templates">← ${tr.t('app.nav.templates')}</a></p>
<div class="section-title"><h1>${template.name}</h1></div>
${page.notice}
${templateSummary(template, page.timeZone, tr)}
<section class="card" aria-labelledby="roles-title">
<h2 id="roles-title">${tr.t('tpl.roles.heading')}</h2>
<p class="small muted">${tr.t('tpl.roles.intro')}</p>
<ol class="plain roles">${template.roles.map((role) => roleItem(role, tr))}</ol>
<div class="actions"><a class="button button-secondary" href="/templates/${template.id}/fields">${tr.t('tpl.roles.editFields')}</a></div>
</section>
${rolesForm(template.id, page.roles, page.errors, csrf, tr)}
${defaultsForm(template.id, page.defaults, page.errors, csrf, tr)}
${page.bulkSends}
${renameForm(template, page.name, page.errors, csrf, tr)}`;
}

export function deleteTemplateView(template: TemplateDetail, csrf: string, tr: Translator): SafeHtml {
  const back = `/templates/${template.id}`;
  return html`<p><a href="${back}">← ${template.name}</a></p>
<div class="card narrow">
<h1>${tr.t('tpl.delete.heading')}</h1>
<p><strong>${template.name}</strong></p>
<p>${tr.t('tpl.delete.text', { documents: template.documents })}</p>
<form method="post" action="${back}/delete">${csrfField(csrf)}
<div class="actions"><button class="button button-danger" type="submit">${tr.t('tpl.delete.submit')}</button><a href="${back}">${tr.t('doc.confirm.cancel')}</a></div></form>
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

function roleFieldset(
  role: TemplateDetail['roles'][number],
  i: number,
  form: Form,
  errors: FieldErrors,
  tr: Translator,
) {
  const what = tr.t('tpl.use.what', { role: role.role, order: role.signingOrder });
  return html`<fieldset class="card"><legend>${role.name}</legend>
<p class="small muted">${what}</p>
${textInput(useFormIds.name(i), tr.t('docForm.col.fullName'), form, errors)}
${textInput(useFormIds.email(i), tr.t('docForm.col.email'), form, errors, 'email')}
${personLanguage(role, useFormIds.language(i), form, errors, tr)}
</fieldset>`;
}

/** The person's language: empty keeps their role's default, else the workspace's. */
function personLanguage(
  role: TemplateDetail['roles'][number],
  id: string,
  form: Form,
  errors: FieldErrors,
  tr: Translator,
): SafeHtml {
  const value = formText(form, id);
  const roleLanguage = role.language ? parseLanguage(role.language) : null;
  // An option holds text only: the endonym is named without its own lang.
  const fallback = roleLanguage
    ? tr.t('tpl.use.roleLanguage', { language: endonym(roleLanguage) })
    : tr.t('form.workspaceDefault');
  return html`<div class="field"><label for="${id}">${tr.t('docForm.col.language')}</label><span class="hint" id="${id}-hint">${tr.t('tpl.use.languageHint')}</span><select id="${id}" name="${id}" aria-describedby="${id}-hint${errors[id] ? ` ${id}-error` : ''}"${errors[id] ? html` aria-invalid="true"` : null}>${languageOptions(value, fallback)}</select>${fieldError(id, errors[id])}</div>`;
}

type AskedValue = ReturnType<typeof askedValues>[number];

function valueInput(value: AskedValue, j: number, form: Form, errors: FieldErrors, tr: Translator): SafeHtml {
  const id = useFormIds.value(j);
  const optional = value.required ? '' : html` <span class="muted">${tr.t('form.optional')}</span>`;
  if (value.type === 'checkbox')
    return html`<div class="field"><label class="checkbox"><input id="${id}" name="${id}" type="checkbox" value="true"${formText(form, id) === 'true' ? raw(' checked') : ''} ${invalidAttrs(id, errors[id])}> ${value.label}${optional}</label>${fieldError(id, errors[id])}</div>`;
  return html`<div class="field"><label for="${id}">${value.label}${optional}</label><input id="${id}" name="${id}" type="text"${value.maxLength ? html` maxlength="${value.maxLength}"` : ''} value="${formText(form, id)}" ${invalidAttrs(id, errors[id])}>${fieldError(id, errors[id])}</div>`;
}

function titleAndMessage(form: Form, errors: FieldErrors, tr: Translator): SafeHtml {
  const open = errors.title || errors.body;
  return html`<details class="card"${open ? raw(' open') : ''}><summary>${tr.t('tpl.use.titleAndMessage')}</summary>
${textInput('title', tr.t('docForm.title'), form, errors)}
<div class="field"><label for="body">${tr.t('tpl.message')}</label><span class="hint" id="body-hint">${tr.t('tpl.messageHint')}</span><textarea id="body" name="body" rows="6" ${errors.body ? raw('aria-invalid="true" ') : ''}aria-describedby="${errors.body ? 'body-error body-hint' : 'body-hint'}">${formText(form, 'body')}</textarea>${fieldError('body', errors.body)}</div>
</details>`;
}

export interface UseTemplatePage {
  template: TemplateDetail;
  asked: AskedValue[];
  form: Form;
  errors: FieldErrors;
}

export function useTemplateView(page: UseTemplatePage, csrf: string, tr: Translator): SafeHtml {
  const { template, asked, form, errors } = page;
  const back = `/templates/${template.id}`;
  return html`<p><a href="${back}">← ${template.name}</a></p>
<h1 id="use-title">${tr.t('tpl.use.heading', { name: template.name })}</h1>
<p class="muted">${tr.t('tpl.use.intro')}</p>
<form method="post" action="${back}/use" novalidate>${csrfField(csrf)}
${errorSummary(errors, { form: 'use-title' }, tr)}
${template.roles.map((role, i) => roleFieldset(role, i, form, errors, tr))}
${asked.length ? html`<fieldset class="card"><legend>${tr.t('tpl.use.values')}</legend><p class="small muted">${tr.t('tpl.use.valuesHint')}</p>${asked.map((value, j) => valueInput(value, j, form, errors, tr))}</fieldset>` : ''}
${titleAndMessage(form, errors, tr)}
<div class="actions"><button class="button button-primary" type="submit">${tr.t('tpl.use.submit')}</button><a href="${back}">${tr.t('doc.confirm.cancel')}</a></div>
</form>`;
}

/** "Save as template" again, when its name was refused. */
export function saveAsTemplateView(
  document: { id: string; title: string },
  name: string,
  errors: FieldErrors,
  csrf: string,
  tr: Translator,
): SafeHtml {
  const back = `/documents/${document.id}`;
  return html`<p><a href="${back}">← ${document.title}</a></p>
<div class="card narrow">
<h1>${tr.t('doc.template.save')}</h1>
${Object.entries(errors)
  .filter(([key]) => key !== 'name')
  .map(([, sentence]) => html`<div class="notice notice-error" role="alert">${sentence}</div>`)}
${saveAsTemplateForm(document, name, errors, csrf, tr)}
</div>`;
}

/** The small form on a document's page: the template's name, prefilled with the document's title. */
export function saveAsTemplateForm(
  document: { id: string },
  name: string,
  errors: FieldErrors,
  csrf: string,
  /** The page's language: the member's (web/member-language.ts). */
  tr: Translator,
): SafeHtml {
  return html`<form method="post" action="/documents/${document.id}/save-as-template" novalidate>${csrfField(csrf)}
<div class="field"><label for="template-name">${tr.t('doc.template.name')}</label><span class="hint" id="template-name-hint">${tr.t('doc.template.hint')}</span><input id="template-name" name="name" type="text" maxlength="${maxTemplateNameLength}" value="${name}" required ${errors.name ? raw('aria-invalid="true" ') : ''}aria-describedby="${errors.name ? 'template-name-error template-name-hint' : 'template-name-hint'}">${fieldError('template-name', errors.name)}</div>
<div class="actions"><button class="button button-secondary" type="submit">${tr.t('doc.template.save')}</button></div>
</form>`;
}
