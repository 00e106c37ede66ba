// The send confirmation's markup: what goes out, group by group, and what to check first.
import { refusalMessages } from '../documents/lifecycle.ts';
import { fieldTypeSpecs } from '../fields/field-types.ts';
import type { SendPreview, SendPreviewRecipient } from '../sending/send.ts';
import { csrfField } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';

/** "2 signatures", "1 date", "3 checkboxes". */
function countOf(count: number, label: string): string {
  const word = label.toLowerCase();
  if (count === 1 || word.endsWith('s')) return `${count} ${word}`;
  return `${count} ${word}${word.endsWith('x') ? 'es' : 's'}`;
}

function fieldsText(r: SendPreviewRecipient): string {
  if (r.role !== 'signer') return 'receives a copy, fills in nothing';
  if (r.fields.length === 0) return 'no fields';
  return r.fields.map((f) => countOf(f.count, fieldTypeSpecs[f.type].label)).join(', ');
}

/** What to check before sending: nothing placed at all, or a signer without a signature field. */
function warnings(preview: SendPreview): SafeHtml[] {
  const signers = preview.groups.flatMap((g) => g.recipients).filter((r) => r.role === 'signer');
  if (preview.fieldCount === 0)
    return [
      html`<li>No field was placed on the document: signers only confirm by name, and their signatures will appear only on the certificate.${preview.pages !== null ? html` <a href="/documents/${preview.id}/fields">Place fields</a>` : null}</li>`,
    ];
  return signers
    .filter((r) => r.noSignatureField)
    .map(
      (r) =>
        html`<li>${r.fullName} has no signature field: their signature will appear only on the certificate. <a href="/documents/${preview.id}/fields">Place one</a></li>`,
    );
}

function groupItem(group: SendPreview['groups'][number], index: number): SafeHtml {
  const when = index === 0 ? 'mailed when you send' : 'mailed when the group before has signed';
  return html`<li><h3 class="group-title">Order ${group.order} <span class="muted small">(${when})</span></h3>
<ul class="recipients">${group.recipients.map(
    (r) =>
      html`<li><div><span class="recipient-name">${r.fullName}</span> <span class="muted">${r.email}</span><div class="small muted">${r.role}, ${r.signingMethod}</div></div><div class="state small">${fieldsText(r)}</div></li>`,
  )}</ul></li>`;
}

export function sendConfirmView(preview: SendPreview, csrf: string): SafeHtml {
  const back = `/documents/${preview.id}`;
  const warned = preview.refusal ? [] : warnings(preview);
  const pdf =
    preview.pages === null
      ? 'made from the document’s text when you send it'
      : `${preview.pages} ${preview.pages === 1 ? 'page' : 'pages'}`;
  return html`<p><a href="${back}">← ${preview.title}</a></p>
<div class="card send-confirm">
<h1>Send this document?</h1>
<p><strong>${preview.title}</strong></p>
${preview.refusal ? html`<div class="notice notice-error" role="alert">${refusalMessages[preview.refusal]}</div>` : null}
${warned.length > 0 ? html`<div class="notice notice-warning" role="status"><p><strong>Check before sending:</strong></p><ul>${warned}</ul></div>` : null}
<dl class="meta"><div><dt>PDF</dt><dd>${pdf}</dd></div><div><dt>Fields placed</dt><dd>${preview.fieldCount}</dd></div></dl>
<h2>Recipients, in signing order</h2>
<ol class="plain send-groups">${preview.groups.map(groupItem)}</ol>
${
  preview.refusal
    ? html`<div class="actions"><a class="button button-secondary" href="${back}/edit">Edit draft</a><a href="${back}">Cancel</a></div>`
    : html`<form method="post" action="${back}/send" class="actions">${csrfField(csrf)}<button class="button button-primary" type="submit">Send to recipients</button><a href="${back}">Cancel</a></form>`
}
</div>`;
}
