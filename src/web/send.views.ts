// The send confirmation's markup, in the member's language: what goes out, group by group,
// and what to check first.
import { refusalKeys } from '../documents/lifecycle.ts';
import type { Translator } from '../i18n/messages.ts';
import type { SendPreview, SendPreviewRecipient } from '../sending/send.ts';
import { csrfField } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';

/** "1 signature, 2 checkboxes", each count in the language's plural. */
function fieldsText(r: SendPreviewRecipient, tr: Translator): string {
  if (r.role !== 'signer') return tr.t('send.viewerFields');
  if (r.fields.length === 0) return tr.t('send.noFieldsForSigner');
  return r.fields.map((f) => tr.t('send.fieldCount', { type: f.type, count: f.count })).join(', ');
}

/** What to check before sending: nothing placed at all, or a signer without a signature field. */
function warnings(preview: SendPreview, tr: Translator): SafeHtml[] {
  const signers = preview.groups.flatMap((g) => g.recipients).filter((r) => r.role === 'signer');
  if (preview.fieldCount === 0)
    return [
      html`<li>${tr.t('send.noFields')}${preview.pages !== null ? html` <a href="/documents/${preview.id}/fields">${tr.t('doc.fields.place')}</a>` : null}</li>`,
    ];
  return signers
    .filter((r) => r.noSignatureField)
    .map(
      (r) =>
        html`<li>${tr.t('send.noSignatureField', { name: r.fullName })} <a href="/documents/${preview.id}/fields">${tr.t('send.placeOne')}</a></li>`,
    );
}

function groupItem(group: SendPreview['groups'][number], index: number, tr: Translator): SafeHtml {
  const when = tr.t(index === 0 ? 'send.whenFirst' : 'send.whenNext');
  return html`<li><h3 class="group-title">${tr.t('send.order', { order: group.order })} <span class="muted small">(${when})</span></h3>
<ul class="recipients">${group.recipients.map(
    (r) =>
      html`<li><div><span class="recipient-name">${r.fullName}</span> <span class="muted">${r.email}</span><div class="small muted">${tr.t('send.recipientFacts', { role: r.role, method: r.signingMethod })}</div></div><div class="state small">${fieldsText(r, tr)}</div></li>`,
  )}</ul></li>`;
}

export function sendConfirmView(preview: SendPreview, csrf: string, tr: Translator): SafeHtml {
  const back = `/documents/${preview.id}`;
  const warned = preview.refusal ? [] : warnings(preview, tr);
  const pdf =
    preview.pages === null ? tr.t('send.pdfFromText') : tr.t('send.pages', { pages: preview.pages });
  return html`<p><a href="${back}">← ${preview.title}</a></p>
<div class="card send-confirm">
<h1>${tr.t('send.heading')}</h1>
<p><strong>${preview.title}</strong></p>
${preview.refusal ? html`<div class="notice notice-error" role="alert">${tr.t(refusalKeys[preview.refusal])}</div>` : null}
${warned.length > 0 ? html`<div class="notice notice-warning" role="status"><p><strong>${tr.t('send.check')}</strong></p><ul>${warned}</ul></div>` : null}
<dl class="meta"><div><dt>${tr.t('doc.pdf.heading')}</dt><dd>${pdf}</dd></div><div><dt>${tr.t('send.fieldsPlaced')}</dt><dd>${preview.fieldCount}</dd></div></dl>
<h2>${tr.t('send.recipientsHeading')}</h2>
<ol class="plain send-groups">${preview.groups.map((group, index) => groupItem(group, index, tr))}</ol>
${
  preview.refusal
    ? html`<div class="actions"><a class="button button-secondary" href="${back}/edit">${tr.t('doc.action.edit')}</a><a href="${back}">${tr.t('doc.confirm.cancel')}</a></div>`
    : html`<form method="post" action="${back}/send" class="actions">${csrfField(csrf)}<button class="button button-primary" type="submit">${tr.t('send.submit')}</button><a href="${back}">${tr.t('doc.confirm.cancel')}</a></form>`
}
</div>`;
}
