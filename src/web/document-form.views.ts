// The markup of one document's forms, in the member's language: the new-document form and
// the draft's (it works without JavaScript: "More rows" and "Show the value" post it back),
// the confirmations of a withdrawal and a deletion, and the sender's own mail (/mails). A
// document's page for its sender: document-page.views.ts.
import type { SessionUser } from '../accounts/accounts.service.ts';
import type { MessageKey, Translator } from '../i18n/messages.ts';
import type { FieldErrors } from '../input-error.ts';
import type { MailView } from '../mail/mail.service.ts';
import { formatBytes, maxPages } from '../pdf/inspect.ts';
import { maxRecipients } from '../sending/draft-input.ts';
import { csrfField, type Form, fieldError, formText, invalidAttrs } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { richText } from '../ui/rich-text.ts';
import { billingChoices, field, maxPriceRows, rowCount } from './document-form.ts';
import {
  type Choice,
  cellInput,
  cellSelect,
  certificateLanguageField,
  expiryField,
  languageSelect,
  methodChoices,
  reminderField,
  roleChoices,
} from './form-parts.views.ts';
import { formatTime } from './layout.ts';

function recipientsSection(form: Form, recipientRows: number, errors: FieldErrors, tr: Translator): SafeHtml {
  const recipients = Array.from({ length: recipientRows }, (_, i) => i);
  const column = (key: MessageKey) => tr.t(key);
  const roles = roleChoices(tr);
  const methods = methodChoices(tr);
  return html`<section class="card" aria-labelledby="recipients-title">
<h2 id="recipients-title">${tr.t('docForm.recipients.heading', { max: maxRecipients })}</h2>
<p class="small muted">${tr.t('docForm.recipients.intro')}</p>
${errors.recipients ? html`<p class="field-error" id="recipients-error" role="alert">${errors.recipients}</p>` : null}
<div class="table-scroll" tabindex="0" role="region" aria-labelledby="recipients-title">
<table class="form-rows"><thead><tr><th scope="col">${column('docForm.col.email')}</th><th scope="col">${column('docForm.col.fullName')}</th><th scope="col">${column('docForm.col.role')}</th><th scope="col">${column('docForm.col.signing')}</th><th scope="col">${column('docForm.col.order')}</th><th scope="col">${column('docForm.col.language')}</th></tr></thead>
<tbody>${recipients.map((i) => {
    const row = { row: i + 1 };
    return html`<tr>
<td data-label="${column('docForm.col.email')}">${cellInput(`r${i}_email`, tr.t('docForm.cell.email', row), form, errors, html`type="email"`)}</td>
<td data-label="${column('docForm.col.fullName')}">${cellInput(`r${i}_name`, tr.t('docForm.cell.fullName', row), form, errors)}</td>
<td data-label="${column('docForm.col.role')}">${cellSelect(`r${i}_role`, tr.t('docForm.cell.role', row), roles, field(form, `r${i}_role`) || 'signer', errors)}</td>
<td data-label="${column('docForm.col.signing')}">${cellSelect(`r${i}_method`, tr.t('docForm.cell.method', row), methods, field(form, `r${i}_method`) || 'standard', errors)}</td>
<td data-label="${column('docForm.col.order')}">${cellInput(`r${i}_order`, tr.t('docForm.cell.order', row), { ...form, [`r${i}_order`]: field(form, `r${i}_order`) || '1' }, errors, html`type="number" min="1" max="100"`)}</td>
<td data-label="${column('docForm.col.language')}">${languageSelect(`r${i}_language`, tr.t('docForm.cell.language', row), field(form, `r${i}_language`), errors, tr)}</td>
</tr>`;
  })}</tbody></table></div>
${recipientRows < maxRecipients ? html`<div class="actions"><button class="button button-secondary button-small" type="submit" name="more" value="recipients">${tr.t('docForm.moreRecipients')}</button></div>` : ''}
</section>`;
}

function pricingSection(
  form: Form,
  priceRows: number,
  preview: SafeHtml | null,
  errors: FieldErrors,
  tr: Translator,
): SafeHtml {
  const prices = Array.from({ length: priceRows }, (_, i) => i);
  const vatIncluded = formText(form, 'vatMode') === 'included';
  const billings: Choice[] = billingChoices.map((billing) => [
    billing,
    tr.t('docForm.billingChoice', { billing }),
  ]);
  const column = (key: MessageKey) => tr.t(key);
  return html`<section class="card" aria-labelledby="pricing-title">
<h2 id="pricing-title">${tr.t('pricing.heading')} <span class="muted">${tr.t('form.optional')}</span></h2>
<div class="field"><label for="currency">${tr.t('docForm.currency')}</label><input id="currency" name="currency" type="text" maxlength="3" value="${field(form, 'currency') || 'EUR'}" ${invalidAttrs('currency', errors.currency)}>${fieldError('currency', errors.currency)}</div>
<fieldset class="field"><legend class="label">${tr.t('docForm.pricesAre')}</legend>
<label class="checkbox"><input type="radio" name="vatMode" value="excluded"${vatIncluded ? '' : html` checked`}> ${tr.t('docForm.excludingVat')}</label>
<label class="checkbox"><input type="radio" name="vatMode" value="included"${vatIncluded ? html` checked` : ''}> ${tr.t('docForm.includingVat')}</label></fieldset>
${errors.pricing ? html`<p class="field-error" id="pricing-error" role="alert">${errors.pricing}</p>` : null}
<div class="table-scroll" tabindex="0" role="region" aria-labelledby="pricing-title">
<table class="form-rows"><thead><tr><th scope="col">${column('pricing.item')}</th><th scope="col">${column('pricing.quantity')}</th><th scope="col">${column('pricing.unitPrice')}</th><th scope="col">${column('pricing.vatRate')}</th><th scope="col">${column('pricing.billing')}</th><th scope="col">${column('docForm.col.periods')}</th></tr></thead>
<tbody>${prices.map((i) => {
    const line = { line: i + 1 };
    return html`<tr>
<td data-label="${column('pricing.item')}">${cellInput(`p${i}_name`, tr.t('docForm.cell.item', line), form, errors)}</td>
<td data-label="${column('pricing.quantity')}">${cellInput(`p${i}_qty`, tr.t('docForm.cell.quantity', line), form, errors, html`type="text" inputmode="decimal"`)}</td>
<td data-label="${column('pricing.unitPrice')}">${cellInput(`p${i}_price`, tr.t('docForm.cell.unitPrice', line), form, errors, html`type="text" inputmode="decimal"`)}</td>
<td data-label="${column('pricing.vatRate')}">${cellInput(`p${i}_vat`, tr.t('docForm.cell.vatRate', line), form, errors, html`type="text" inputmode="decimal"`)}</td>
<td data-label="${column('pricing.billing')}">${cellSelect(`p${i}_billing`, tr.t('docForm.cell.billing', line), billings, field(form, `p${i}_billing`) || 'one-off', errors)}</td>
<td data-label="${column('docForm.col.periods')}">${cellInput(`p${i}_periods`, tr.t('docForm.cell.periods', line), form, errors, html`type="number" min="1"`)}</td>
</tr>`;
  })}</tbody></table></div>
<p class="small muted">${tr.t('docForm.pricingNote')}</p>
<p id="live-value" class="small" aria-live="polite"></p>
<div class="actions">${priceRows < maxPriceRows ? html`<button class="button button-secondary button-small" type="submit" name="more" value="prices">${tr.t('docForm.morePrices')}</button>` : ''}<button class="button button-secondary button-small" type="submit" name="preview" value="1">${tr.t('docForm.showValue')}</button></div>
${preview}
</section>`;
}

/**
 * The PDF to be signed (or, editing, its replacement): a file input (a browser takes a dropped
 * file on it, with or without JavaScript) and its sentence when refused. A file that came with
 * a form shown again is kept by the server (sending/kept-uploads.ts; no browser keeps a chosen
 * file across a reload): named here, and its id carried for the next submit.
 */
function fileField(options: DocumentFormOptions, tr: Translator): SafeHtml {
  const { errors, current, kept } = options;
  const limits = { size: formatBytes(options.maxBytes), maxPages };
  const label = tr.t(current ? 'docForm.file.replace' : 'docForm.file.label');
  const hint = current
    ? tr.t('docForm.file.replaceHint', { ...limits, pages: current.pages })
    : tr.t('docForm.file.hint', limits);
  const keptHint = kept
    ? html`<input type="hidden" name="keptFile" value="${kept.id}"><p class="notice notice-info kept-file" id="file-kept">${richText(tr, 'docForm.file.kept', { name: kept.fileName, pages: kept.pages })}${current ? html` ${tr.t('docForm.file.keptReplaces')}` : null}</p>`
    : null;
  const describedBy = [errors.file ? 'file-error' : '', kept ? 'file-kept' : '', 'file-hint'].filter(Boolean);
  return html`<div class="field file-drop"><label for="file">${label} <span class="muted">${tr.t('form.optional')}</span></label>
<span class="hint" id="file-hint">${hint}</span>
${keptHint}
<input id="file" name="file" type="file" accept="application/pdf,.pdf" ${errors.file ? html`aria-invalid="true" ` : null}aria-describedby="${describedBy.join(' ')}">
${fieldError('file', errors.file)}</div>`;
}

/** What differs between the new-document form and a draft's edit form. */
export interface DocumentFormOptions {
  /** Where the form posts: `/documents`, or `/documents/{id}/edit`. */
  action: string;
  submit: string;
  cancel: string;
  maxBytes: number;
  /** The draft's current PDF (editing): choosing a file replaces it. */
  current?: { pages: number } | null;
  errors: FieldErrors;
  /** The PDF kept from the form's last submit: used unless another file is chosen. */
  kept?: { id: string; fileName: string; pages: number } | null;
}

export function documentForm(
  csrf: string,
  form: Form,
  message: SafeHtml | null,
  preview: SafeHtml | null,
  options: DocumentFormOptions,
  tr: Translator,
): SafeHtml {
  const { errors } = options;
  const recipientRows = rowCount(form, 'recipientRows', 3, maxRecipients);
  const priceRows = rowCount(form, 'priceRows', 2, maxPriceRows);
  return html`<form method="post" action="${options.action}" enctype="multipart/form-data" novalidate data-live-value="/documents/value">
${csrfField(csrf)}
<input type="hidden" name="recipientRows" value="${recipientRows}">
<input type="hidden" name="priceRows" value="${priceRows}">
${message}
<section class="card">
<div class="field"><label for="title">${tr.t('docForm.title')}</label><input id="title" name="title" type="text" maxlength="200" value="${field(form, 'title')}" required ${invalidAttrs('title', errors.title)}>${fieldError('title', errors.title)}</div>
${fileField(options, tr)}
${expiryField(form, errors, tr)}
${reminderField(form, errors, tr)}
${certificateLanguageField(form, errors, tr)}
<div class="field"><label for="body">${tr.t('docForm.body')}</label><span class="hint" id="body-hint">${tr.t('docForm.bodyHint')}</span><textarea id="body" name="body" rows="8" ${errors.body ? html`aria-invalid="true" ` : null}aria-describedby="${errors.body ? 'body-error body-hint' : 'body-hint'}">${formText(form, 'body')}</textarea>${fieldError('body', errors.body)}</div>
</section>
${recipientsSection(form, recipientRows, errors, tr)}
${pricingSection(form, priceRows, preview, errors, tr)}
<div class="actions"><button class="button button-primary" type="submit">${options.submit}</button><a href="${options.cancel}">${tr.t('doc.confirm.cancel')}</a></div>
</form>`;
}

/** Anchors of the sentences that belong to a section rather than one input. */
export const sectionAnchors = { recipients: 'recipients-title', pricing: 'pricing-title' };

export function newDocumentView(
  csrf: string,
  form: Form,
  message: SafeHtml | null,
  preview: SafeHtml | null,
  options: DocumentFormOptions,
  tr: Translator,
) {
  return html`<p><a href="/documents">← ${tr.t('app.nav.documents')}</a></p><h1>${tr.t('docForm.newTitle')}</h1>${documentForm(csrf, form, message, preview, options, tr)}`;
}

export function editDocumentView(
  csrf: string,
  documentTitle: string,
  form: Form,
  message: SafeHtml | null,
  preview: SafeHtml | null,
  options: DocumentFormOptions,
  tr: Translator,
) {
  return html`<p><a href="${options.cancel}">← ${documentTitle}</a></p><h1>${tr.t('docForm.editHeading')}</h1>${documentForm(csrf, form, message, preview, options, tr)}`;
}

/** "Your mail", in the member's language (the mails themselves as they were written). */
export function ownMailsView(
  member: SessionUser,
  mails: MailView[] | 'sent-by-smtp',
  tr: Translator,
): SafeHtml {
  if (mails === 'sent-by-smtp') {
    return html`<h1>${tr.t('mails.title')}</h1>
<p class="muted">${tr.t('mails.smtp')}</p>`;
  }
  const code = { code: (content: SafeHtml) => html`<code>${content}</code>` };
  return html`<h1>${tr.t('mails.title')}</h1>
<p class="muted">${richText(tr, 'mails.intro', { email: member.email }, code)}</p>
${mails.length === 0 ? html`<p class="muted">${tr.t('mails.none')}</p>` : ''}
${mails.map(
  (m) =>
    html`<details class="card"><summary><strong>${m.subject}</strong> ${tr.t('mails.to', { address: m.to })} <span class="muted small">${formatTime(m.createdAt, member.timeZone)} · ${m.status}</span></summary><pre class="shell">${m.text}</pre></details>`,
)}`;
}

/** The confirmation before a destructive action on a document: withdraw or delete. */
export function confirmDocumentAction(
  document: { id: string; title: string },
  action: 'withdraw' | 'delete',
  csrf: string,
  tr: Translator,
): SafeHtml {
  const what =
    action === 'withdraw'
      ? {
          heading: tr.t('doc.confirm.withdrawHeading'),
          text: tr.t('doc.confirm.withdrawText'),
          button: tr.t('doc.confirm.withdrawButton'),
        }
      : {
          heading: tr.t('doc.confirm.deleteHeading'),
          text: tr.t('doc.confirm.deleteText'),
          button: tr.t('doc.confirm.deleteButton'),
        };
  return html`<p><a href="/documents/${document.id}">← ${document.title}</a></p>
<div class="card narrow">
<h1>${what.heading}</h1>
<p><strong>${document.title}</strong></p>
<p>${what.text}</p>
<form method="post" action="/documents/${document.id}/${action}">${csrfField(csrf)}
${action === 'withdraw' ? html`<label for="reason">${tr.t('doc.confirm.withdrawReason')}</label><textarea id="reason" name="reason" rows="3" maxlength="1000"></textarea>` : ''}
<div class="actions"><button class="button button-danger" type="submit">${what.button}</button><a href="/documents/${document.id}">${tr.t('doc.confirm.cancel')}</a></div></form>
</div>`;
}
