// The markup of one document's forms: the new-document form and the draft's (it works
// without JavaScript: "More rows" and "Show the value" post it back), the confirmations of a
// withdrawal and a deletion, and the sender's own mail (/mails). A document's page for its
// sender: document-page.views.ts.
import type { SessionUser } from '../accounts/accounts.service.ts';
import type { Translator } from '../i18n/messages.ts';
import type { FieldErrors } from '../input-error.ts';
import type { MailView } from '../mail/mail.service.ts';
import { formatBytes, maxPages } from '../pdf/inspect.ts';
import { maxRecipients } from '../sending/draft-input.ts';
import { csrfField, type Form, fieldError, formText, invalidAttrs } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { richText } from '../ui/rich-text.ts';
import { billingChoices, field, maxPriceRows, rowCount } from './document-form.ts';
import {
  cellInput,
  cellSelect,
  certificateLanguageField,
  expiryField,
  languageSelect,
  reminderField,
} from './form-parts.views.ts';
import { formatTime } from './layout.ts';

function recipientsSection(form: Form, recipientRows: number, errors: FieldErrors): SafeHtml {
  const recipients = Array.from({ length: recipientRows }, (_, i) => i);
  return html`<section class="card" aria-labelledby="recipients-title">
<h2 id="recipients-title">Recipients (1 to ${maxRecipients})</h2>
<p class="small muted">Signers sign in order of their number: each group is mailed when the one before it has signed; equal numbers sign in any order. Viewers get a copy and never sign. Blank rows are ignored.</p>
${errors.recipients ? html`<p class="field-error" id="recipients-error" role="alert">${errors.recipients}</p>` : null}
<div class="table-scroll" tabindex="0" role="region" aria-labelledby="recipients-title">
<table class="form-rows"><thead><tr><th scope="col">Email</th><th scope="col">Full name</th><th scope="col">Role</th><th scope="col">Signing</th><th scope="col">Order</th><th scope="col">Language</th></tr></thead>
<tbody>${recipients.map(
    (i) => html`<tr>
<td data-label="Email">${cellInput(`r${i}_email`, `Recipient ${i + 1} email`, form, errors, html`type="email"`)}</td>
<td data-label="Full name">${cellInput(`r${i}_name`, `Recipient ${i + 1} full name`, form, errors)}</td>
<td data-label="Role">${cellSelect(`r${i}_role`, `Recipient ${i + 1} role`, ['signer', 'viewer'], field(form, `r${i}_role`) || 'signer', errors)}</td>
<td data-label="Signing">${cellSelect(`r${i}_method`, `Recipient ${i + 1} signing method`, ['standard', 'email-code'], field(form, `r${i}_method`) || 'standard', errors)}</td>
<td data-label="Order">${cellInput(`r${i}_order`, `Recipient ${i + 1} signing order`, { ...form, [`r${i}_order`]: field(form, `r${i}_order`) || '1' }, errors, html`type="number" min="1" max="100"`)}</td>
<td data-label="Language">${languageSelect(`r${i}_language`, `Recipient ${i + 1} language`, field(form, `r${i}_language`), errors)}</td>
</tr>`,
  )}</tbody></table></div>
${recipientRows < maxRecipients ? html`<div class="actions"><button class="button button-secondary button-small" type="submit" name="more" value="recipients">More recipient rows</button></div>` : ''}
</section>`;
}

function pricingSection(
  form: Form,
  priceRows: number,
  preview: SafeHtml | null,
  errors: FieldErrors,
): SafeHtml {
  const prices = Array.from({ length: priceRows }, (_, i) => i);
  const vatIncluded = formText(form, 'vatMode') === 'included';
  return html`<section class="card" aria-labelledby="pricing-title">
<h2 id="pricing-title">Pricing <span class="muted">(optional)</span></h2>
<div class="field"><label for="currency">Currency</label><input id="currency" name="currency" type="text" maxlength="3" value="${field(form, 'currency') || 'EUR'}" ${invalidAttrs('currency', errors.currency)}>${fieldError('currency', errors.currency)}</div>
<fieldset class="field"><legend class="label">Prices are</legend>
<label class="checkbox"><input type="radio" name="vatMode" value="excluded"${vatIncluded ? '' : html` checked`}> excluding VAT</label>
<label class="checkbox"><input type="radio" name="vatMode" value="included"${vatIncluded ? html` checked` : ''}> including VAT</label></fieldset>
${errors.pricing ? html`<p class="field-error" id="pricing-error" role="alert">${errors.pricing}</p>` : null}
<div class="table-scroll" tabindex="0" role="region" aria-labelledby="pricing-title">
<table class="form-rows"><thead><tr><th scope="col">Item</th><th scope="col">Qty</th><th scope="col">Unit price</th><th scope="col">VAT %</th><th scope="col">Billing</th><th scope="col">Periods</th></tr></thead>
<tbody>${prices.map(
    (i) => html`<tr>
<td data-label="Item">${cellInput(`p${i}_name`, `Line ${i + 1} item`, form, errors)}</td>
<td data-label="Qty">${cellInput(`p${i}_qty`, `Line ${i + 1} quantity`, form, errors, html`type="text" inputmode="decimal"`)}</td>
<td data-label="Unit price">${cellInput(`p${i}_price`, `Line ${i + 1} unit price`, form, errors, html`type="text" inputmode="decimal"`)}</td>
<td data-label="VAT %">${cellInput(`p${i}_vat`, `Line ${i + 1} VAT rate`, form, errors, html`type="text" inputmode="decimal"`)}</td>
<td data-label="Billing">${cellSelect(`p${i}_billing`, `Line ${i + 1} billing`, billingChoices, field(form, `p${i}_billing`) || 'one-off', errors)}</td>
<td data-label="Periods">${cellInput(`p${i}_periods`, `Line ${i + 1} periods`, form, errors, html`type="number" min="1"`)}</td>
</tr>`,
  )}</tbody></table></div>
<p class="small muted">A recurring line counts for its whole contract: unit price × quantity × periods. A discount is a line with a negative unit price; the total cannot go below zero.</p>
<p id="live-value" class="small" aria-live="polite"></p>
<div class="actions">${priceRows < maxPriceRows ? html`<button class="button button-secondary button-small" type="submit" name="more" value="prices">More pricing rows</button>` : ''}<button class="button button-secondary button-small" type="submit" name="preview" value="1">Show the value</button></div>
${preview}
</section>`;
}

/**
 * The PDF to be signed (or, editing, its replacement): a file input (a browser takes a dropped
 * file on it, with or without JavaScript) and its sentence when refused. A file that came with
 * a form shown again is kept by the server (sending/kept-uploads.ts; no browser keeps a chosen
 * file across a reload): named here, and its id carried for the next submit.
 */
function fileField(options: DocumentFormOptions): SafeHtml {
  const { errors, current, kept } = options;
  const label = current ? 'Replace the PDF' : 'PDF to be signed';
  const limits = `up to ${formatBytes(options.maxBytes)} and ${maxPages} pages`;
  const hint = current
    ? `The draft has a PDF of ${pagesText(current.pages)}. Choose another, ${limits}, to replace it: the fields placed on it are then removed.`
    : `Drop a PDF here or choose one, ${limits}. Without one, the text below becomes the PDF when you send.`;
  const keptHint = kept
    ? html`<input type="hidden" name="keptFile" value="${kept.id}"><p class="notice notice-info kept-file" id="file-kept"><strong>${kept.fileName}</strong>, ${pagesText(kept.pages)}, kept; choose another file to replace it.${current ? ' Saving replaces the draft’s PDF with it.' : ''}</p>`
    : null;
  const describedBy = [errors.file ? 'file-error' : '', kept ? 'file-kept' : '', 'file-hint'].filter(Boolean);
  return html`<div class="field file-drop"><label for="file">${label} <span class="muted">(optional)</span></label>
<span class="hint" id="file-hint">${hint}</span>
${keptHint}
<input id="file" name="file" type="file" accept="application/pdf,.pdf" ${errors.file ? html`aria-invalid="true" ` : null}aria-describedby="${describedBy.join(' ')}">
${fieldError('file', errors.file)}</div>`;
}

function pagesText(pages: number): string {
  return `${pages} ${pages === 1 ? 'page' : 'pages'}`;
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
<div class="field"><label for="title">Title</label><input id="title" name="title" type="text" maxlength="200" value="${field(form, 'title')}" required ${invalidAttrs('title', errors.title)}>${fieldError('title', errors.title)}</div>
${fileField(options)}
${expiryField(form, errors)}
${reminderField(form, errors)}
${certificateLanguageField(form, errors)}
<div class="field"><label for="body">Text</label><span class="hint" id="body-hint">Blank lines separate paragraphs. Shown above the PDF's pages, or made into the PDF when there is none.</span><textarea id="body" name="body" rows="8" ${errors.body ? html`aria-invalid="true" ` : null}aria-describedby="${errors.body ? 'body-error body-hint' : 'body-hint'}">${formText(form, 'body')}</textarea>${fieldError('body', errors.body)}</div>
</section>
${recipientsSection(form, recipientRows, errors)}
${pricingSection(form, priceRows, preview, errors)}
<div class="actions"><button class="button button-primary" type="submit">${options.submit}</button><a href="${options.cancel}">Cancel</a></div>
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
) {
  return html`<p><a href="/documents">← Documents</a></p><h1>New document</h1>${documentForm(csrf, form, message, preview, options)}`;
}

export function editDocumentView(
  csrf: string,
  documentTitle: string,
  form: Form,
  message: SafeHtml | null,
  preview: SafeHtml | null,
  options: DocumentFormOptions,
) {
  return html`<p><a href="${options.cancel}">← ${documentTitle}</a></p><h1>Edit draft</h1>${documentForm(csrf, form, message, preview, options)}`;
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
