// The markup of one document's pages: the new-document form (it works without JavaScript:
// "More rows" and "Show the value" post it back), a document's page for its sender, and the
// sender's own mail (/mails).
import type { SessionUser } from '../accounts/accounts.service.ts';
import type {
  DocumentDetail,
  OwnerDocument,
  RecipientAudit,
  RecipientProgress,
} from '../documents/documents.service.ts';
import type { PricingView } from '../documents/pricing.ts';
import { formatMoney } from '../documents/pricing.ts';
import { endonym, parseLanguage } from '../i18n/languages.ts';
import type { FieldErrors } from '../input-error.ts';
import type { MailView } from '../mail/mail.service.ts';
import { formatBytes, maxPages } from '../pdf/inspect.ts';
import { maxRecipients } from '../sending/draft-input.ts';
import { pricingTable, statusBadge } from '../ui/document-views.ts';
import { csrfField, type Form, fieldError, formText, invalidAttrs } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
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
import { saveAsTemplateForm } from './templates.views.ts';

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

/** A document as its sender sees it, with what the services worked out for each recipient. */
export interface SenderDocument {
  document: OwnerDocument;
  pricing: PricingView | null;
  progress: Map<string, RecipientProgress>;
  /** Signing links the sender may copy, by recipient id (signing-links.ts). */
  links: Map<string, string>;
  /** The workspace's time zone: every time on the page is shown in it. */
  timeZone: string;
}

const progressBadges: Record<Exclude<RecipientProgress, 'signed'>, SafeHtml> = {
  opened: html`<span class="badge badge-pending">opened</span>`,
  waiting: html`<span class="badge badge-neutral">waiting</span>`,
  queued: html`<span class="badge badge-neutral">mailed at their turn</span>`,
  'not-sent': html`<span class="badge badge-neutral">not sent</span>`,
};

/** The Remind button of a signer whose turn it is and who has not signed a document still being signed. */
function remindButton(
  view: SenderDocument,
  r: DocumentDetail['recipients'][number],
  csrf: string,
): SafeHtml | null {
  const active = view.document.status === 'sent' || view.document.status === 'viewed';
  const progress = view.progress.get(r.id);
  if (!active || r.role !== 'signer' || progress === 'signed' || progress === 'queued') return null;
  return html`<form method="post" action="/documents/${view.document.id}/recipients/${r.id}/remind" class="inline">${csrfField(csrf)}<button class="button button-secondary button-small" type="submit" aria-label="Remind ${r.fullName}">Remind</button></form>`;
}

/**
 * When a recipient was mailed: their first mail (their link), or, for a viewer of a later
 * order than every signer, only the completion mail (with the signed PDF).
 */
function sentLine(view: SenderDocument, r: DocumentDetail['recipients'][number], audit?: RecipientAudit) {
  if (audit?.invitedAt) return html`Sent ${formatTime(audit.invitedAt, view.timeZone)}`;
  if (view.document.status === 'signed' && r.role === 'viewer') {
    // The completion mail is queued with the seal, when document.completed is recorded.
    const completed = view.document.history.find((e) => e.type === 'document.completed');
    return completed
      ? html`Sent only the completion mail, ${formatTime(completed.createdAt, view.timeZone)}`
      : html`Only the completion mail will be sent (with the signed PDF)`;
  }
  return null;
}

/** Opened, or only fetched (a scanner or preview), as the open rule says (signing/opening.ts). */
function openedLine(timeZone: string, audit?: RecipientAudit) {
  if (audit?.openedAt) return html`opened ${formatTime(audit.openedAt, timeZone)}`;
  if (audit?.linkFetchedAt)
    return html`link fetched ${formatTime(audit.linkFetchedAt, timeZone)}, not viewed`;
  return null;
}

function recipientState(view: SenderDocument, r: DocumentDetail['recipients'][number], csrf: string) {
  const audit = view.document.audit.get(r.id);
  const progress = view.progress.get(r.id) ?? 'waiting';
  if (audit?.declinedAt)
    return html`<span class="badge badge-danger">declined ${formatTime(audit.declinedAt, view.timeZone)}</span>`;
  if (progress === 'signed' && r.signedAt)
    return html`<span class="badge badge-success">signed ${formatTime(r.signedAt, view.timeZone)}</span>`;
  return html`${progressBadges[progress as Exclude<RecipientProgress, 'signed'>]}${remindButton(view, r, csrf)}`;
}

function recipientItem(
  view: SenderDocument,
  r: DocumentDetail['recipients'][number],
  csrf: string,
): SafeHtml {
  const link = view.links.get(r.id);
  const audit = view.document.audit.get(r.id);
  const facts = [sentLine(view, r, audit), openedLine(view.timeZone, audit)].filter((f) => f !== null);
  return html`<li><div><span class="recipient-name">${r.fullName}</span> <span class="muted">${r.email}</span><div class="small muted">${r.role}, order ${r.signingOrder}, ${r.signingMethod}</div>
${facts.length ? html`<div class="small muted">${facts.map((f, i) => html`${i ? '; ' : ''}${f}`)}</div>` : ''}
${audit?.declinedAt ? html`<p class="small decline-reason">${audit.declineReason ? html`Reason: “${audit.declineReason}”` : 'No reason given.'}</p>` : ''}
${link ? html`<div class="secret small"><code id="link-${r.id}">${link}</code><button class="button button-secondary button-small" type="button" data-copy="link-${r.id}">Copy link</button></div>` : ''}</div>
<div class="state">${recipientState(view, r, csrf)}</div></li>`;
}

/** The way to the field editor (a draft with a PDF), or to its fields once sent. */
function fieldsLink(document: DocumentDetail): SafeHtml | null {
  const count = document.recipients.reduce((sum, r) => sum + r.fields.length, 0);
  const uploaded = document.files.some((f) => f.kind === 'original');
  if (document.status === 'draft' && uploaded)
    return html`<a class="button button-secondary" href="/documents/${document.id}/fields">${count === 0 ? 'Place fields' : `Fields (${count})`}</a>`;
  return count > 0
    ? html`<p class="small"><a href="/documents/${document.id}/fields">${count} ${count === 1 ? 'field' : 'fields'} on the pages</a></p>`
    : null;
}

function documentSummary(document: SenderDocument['document'], timeZone: string): SafeHtml {
  return html`<div class="card">
<dl class="meta">
<div><dt>Created</dt><dd>${formatTime(document.createdAt, timeZone)}</dd></div>
${document.sentAt ? html`<div><dt>Sent</dt><dd>${formatTime(document.sentAt, timeZone)}</dd></div>` : ''}
${document.signedAt ? html`<div><dt>Completed</dt><dd>${formatTime(document.signedAt, timeZone)}</dd></div>` : ''}
${document.withdrawnAt ? html`<div><dt>Withdrawn</dt><dd>${formatTime(document.withdrawnAt, timeZone)}</dd></div>` : document.expiresAt ? html`<div><dt>${document.status === 'expired' ? 'Expired' : 'Expires'}</dt><dd>${formatTime(document.expiresAt, timeZone)}</dd></div>` : ''}
<div><dt>Value</dt><dd>${document.value ? formatMoney(String(document.value.amount), document.value.currency) : '—'}</dd></div>
<div><dt>Automatic reminders</dt><dd>${document.remindEveryDays === null ? 'none' : document.remindEveryDays === 1 ? 'every day' : `every ${document.remindEveryDays} days`}</dd></div>
<div><dt>Certificate language</dt><dd>${certificateLanguageName(document.language)}</dd></div>
</dl>
${document.status === 'draft' ? html`<div class="actions"><a class="button button-primary" href="/documents/${document.id}/send">Send to recipients…</a><a class="button button-secondary" href="/documents/${document.id}/edit">Edit draft</a>${fieldsLink(document)}<a class="button button-danger" href="/documents/${document.id}/delete">Delete draft…</a></div>` : fieldsLink(document)}
${document.status === 'sent' || document.status === 'viewed' ? html`<div class="actions"><a class="button button-danger" href="/documents/${document.id}/withdraw">Withdraw…</a></div>` : null}
</div>`;
}

/** "Deutsch" (named in itself), or the workspace's default. */
function certificateLanguageName(tag: string | null): SafeHtml | string {
  const language = tag ? parseLanguage(tag) : null;
  return language ? html`<span lang="${language}">${endonym(language)}</span>` : 'Workspace default';
}

/** How many page thumbnails the sender's page shows before "and N more". */
const thumbnailCount = 12;

/**
 * The document's PDFs: the original's pages as thumbnails (each opens the page large), its
 * page count, size and SHA-256, and the downloads; the sealed one once it is made.
 */
function filesSection(document: DocumentDetail): SafeHtml {
  const original = document.files.find((f) => f.kind === 'original');
  const sealed = document.files.find((f) => f.kind === 'sealed');
  if (!original) {
    // A draft gets its PDF when sent; a document imported with its history (the demo's
    // samples, `signet seed`) has none.
    const why =
      document.status === 'draft'
        ? 'No PDF was uploaded: the text below is made into the PDF when you send the document.'
        : 'No PDF is stored for this document: it was imported with its history, not sent through Signet.';
    return html`<section class="card" aria-labelledby="pdf-title"><h2 id="pdf-title">PDF</h2>
<p class="muted">${why}</p></section>`;
  }
  const pages = original.pages ?? 0;
  const shown = Array.from({ length: Math.min(pages, thumbnailCount) }, (_, i) => i + 1);
  const pagePath = (n: number, size: string) => `/documents/${document.id}/pages/${n}?size=${size}`;
  return html`<section class="card" aria-labelledby="pdf-title">
<h2 id="pdf-title">PDF <span class="muted small">(${pages} ${pages === 1 ? 'page' : 'pages'}, ${formatBytes(original.bytes)})</span></h2>
<ol class="thumbnails">${shown.map(
    (n) =>
      html`<li><a href="${pagePath(n, 'page')}"><img src="${pagePath(n, 'thumbnail')}" alt="Page ${n}" loading="lazy" width="120"></a></li>`,
  )}</ol>
${pages > shown.length ? html`<p class="small muted">and ${pages - shown.length} more ${pages - shown.length === 1 ? 'page' : 'pages'}</p>` : ''}
<dl class="meta">
<div><dt>SHA-256 of the original</dt><dd><code class="hash">${original.sha256}</code></dd></div>
${sealed && html`<div><dt>SHA-256 of the signed PDF</dt><dd><code class="hash">${sealed.sha256}</code></dd></div>`}
</dl>
<div class="actions">
${sealed && html`<a class="button button-primary" href="${sealed.downloadUrl}" download>Download the signed PDF</a>`}
<a class="button button-secondary" href="${original.downloadUrl}" download>Download the original</a>
</div>
${document.status === 'signed' && !sealed ? html`<p class="small muted">Everyone has signed: the signed PDF is being sealed. Reload in a moment.</p>` : ''}
</section>`;
}

/** The whole history, both kinds of event (documents/event-types.ts), oldest first. */
function timeline(document: OwnerDocument, timeZone: string): SafeHtml {
  if (!document.history.length)
    return html`<p class="muted">Nothing has happened yet: the document is a draft.</p>`;
  // A withdrawn document's document.expired (the API's and the webhooks') is the end of signing.
  const label = (e: OwnerDocument['history'][number]) =>
    e.type === 'document.expired' && document.withdrawnAt ? 'Signing ended (expired in the API)' : e.label;
  // A webhook event names its type, as the API and endpoints know it; history-only ones do not.
  return html`<ol class="plain timeline">${document.history.map((e) => html`<li>${formatTime(e.createdAt, timeZone, true)}: ${label(e)}${e.recipientEmail ? ` (${e.recipientEmail})` : ''}${e.webhook ? html` <code>${e.type}</code>` : ''}</li>`)}</ol>`;
}

/** "Save as template", for a document with a PDF (a template is a PDF with its fields). */
function templateSection(document: DocumentDetail, csrf: string): SafeHtml | null {
  if (!document.files.some((f) => f.kind === 'original')) return null;
  return html`<section class="card" aria-labelledby="template-title">
<h2 id="template-title">Template</h2>
${saveAsTemplateForm(document, document.title, {}, csrf)}
</section>`;
}

export function documentView(view: SenderDocument, csrf: string, message: SafeHtml | null): SafeHtml {
  const { document } = view;
  return html`<p><a href="/documents">← Documents</a></p>
<div class="section-title"><h1>${document.title}</h1>${statusBadge(document)}</div>
${message}
${documentSummary(document, view.timeZone)}
${filesSection(document)}
<section class="card" aria-labelledby="recipients-title">
<h2 id="recipients-title">Recipients</h2>
<ul class="recipients">${document.recipients.map((r) => recipientItem(view, r, csrf))}</ul>
<p class="small muted">Signing links are personal: share each only with its recipient.</p>
</section>
${view.pricing ? pricingTable(view.pricing) : ''}
<section class="card" aria-labelledby="timeline-title">
<h2 id="timeline-title">Timeline</h2>
${timeline(document, view.timeZone)}
</section>
${templateSection(document, csrf)}`;
}

export function ownMailsView(member: SessionUser, mails: MailView[] | 'sent-by-smtp'): SafeHtml {
  if (mails === 'sent-by-smtp') {
    return html`<h1>Your mail</h1>
<p class="muted">Signet sends mail through SMTP: every mail is in its addressee's own mailbox, and none is shown here.</p>`;
  }
  return html`<h1>Your mail</h1>
<p class="muted">The last 100 mails addressed to you (${member.email}). Without <code>SMTP_URL</code> Signet sends no mail and keeps it for its addressee: you see yours here, and the operator sees all of them with <code>signet mail list</code>. Mails to anyone else never appear here.</p>
${mails.length === 0 ? html`<p class="muted">No mails yet.</p>` : ''}
${mails.map(
  (m) =>
    html`<details class="card"><summary><strong>${m.subject}</strong> to ${m.to} <span class="muted small">${formatTime(m.createdAt, member.timeZone)} · ${m.status}</span></summary><pre class="shell">${m.text}</pre></details>`,
)}`;
}

/** The confirmation before a destructive action on a document: withdraw or delete. */
export function confirmDocumentAction(
  document: { id: string; title: string },
  action: 'withdraw' | 'delete',
  csrf: string,
): SafeHtml {
  const what =
    action === 'withdraw'
      ? {
          heading: 'Withdraw this document?',
          text: 'Signing ends at once for everyone: the links stop working, and every recipient who has the document is told by mail. Signatures already given stay in its history. This cannot be undone.',
          button: 'Withdraw document',
        }
      : {
          heading: 'Delete this draft?',
          text: 'The draft, its recipients and its fields are deleted. Nothing was sent, so nobody is told. This cannot be undone.',
          button: 'Delete draft',
        };
  return html`<p><a href="/documents/${document.id}">← ${document.title}</a></p>
<div class="card narrow">
<h1>${what.heading}</h1>
<p><strong>${document.title}</strong></p>
<p>${what.text}</p>
<form method="post" action="/documents/${document.id}/${action}">${csrfField(csrf)}
${action === 'withdraw' ? html`<label for="reason">Reason (optional, kept in the document's history)</label><textarea id="reason" name="reason" rows="3" maxlength="1000"></textarea>` : ''}
<div class="actions"><button class="button button-danger" type="submit">${what.button}</button><a href="/documents/${document.id}">Cancel</a></div></form>
</div>`;
}
