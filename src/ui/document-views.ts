// Views of a document that both the sender's pages (web/) and the recipient's (signing/)
// show: the status badge and the pricing table (of a pricing block formatted by
// documents/pricing.ts: `pricingView`).
import type { DocumentStatus } from '../documents/lifecycle.ts';
import type { PricingView } from '../documents/pricing.ts';
import { type MessageKey, type Translator, translator } from '../i18n/messages.ts';
import { html, type SafeHtml } from './html.ts';

/** Each status's words for a recipient (a catalogue's key) and its badge's tone. */
export const statusBadges: Record<DocumentStatus, { label: MessageKey; tone: string }> = {
  draft: { label: 'status.draft', tone: 'badge-neutral' },
  sent: { label: 'status.awaiting', tone: 'badge-pending' },
  viewed: { label: 'status.awaiting', tone: 'badge-pending' },
  signed: { label: 'status.signed', tone: 'badge-success' },
  declined: { label: 'status.declined', tone: 'badge-danger' },
  expired: { label: 'status.expired', tone: 'badge-neutral' },
};

/**
 * A document's status for its owner, in the list and on its page alike: the API's, but a
 * withdrawn document says so (the API keeps the spec's `expired`, with `expiredReason`).
 */
export function statusBadge(
  document: { status: DocumentStatus; withdrawnAt: string | null },
  tr: Translator = translator('en'),
): SafeHtml {
  if (document.status === 'expired' && document.withdrawnAt)
    return html`<span class="badge badge-neutral">${tr.t('app.status.withdrawn')}</span>`;
  return html`<span class="badge ${statusBadges[document.status].tone}">${tr.t(ownerStatus[document.status])}</span>`;
}

/** Each status's word for the document's owner (the API's states, `withdrawn` apart). */
export const ownerStatus: Record<DocumentStatus, MessageKey> = {
  draft: 'app.status.draft',
  sent: 'app.status.sent',
  viewed: 'app.status.viewed',
  signed: 'app.status.signed',
  declined: 'app.status.declined',
  expired: 'app.status.expired',
};

/** The pricing table, its headings in `tr`'s language (the sender's pages: English). */
export function pricingTable(pricing: PricingView, tr: Translator = translator('en')): SafeHtml {
  const amountOf = (line: { net: string; gross: string }) =>
    pricing.pricesIncludeVat ? line.gross : line.net;
  const t = (key: MessageKey) => tr.t(key);
  return html`<section class="card" aria-labelledby="pricing-heading">
<h2 id="pricing-heading">${t('pricing.heading')}</h2>
<div class="table-scroll" role="region" aria-labelledby="pricing-heading" tabindex="0">
<table class="pricing">
<thead>
<tr><th scope="col">${t('pricing.item')}</th><th scope="col">${t('pricing.billing')}</th><th scope="col" class="num">${t('pricing.quantity')}</th><th scope="col" class="num">${t('pricing.unitPrice')}</th><th scope="col" class="num">${t('pricing.vatRate')}</th><th scope="col" class="num">${t('pricing.amount')}</th></tr>
</thead>
<tbody>
${pricing.lines.map(
  (line) =>
    html`<tr><td class="item">${line.name}</td><td class="billing" data-label="${t('pricing.billing')}">${line.billing}</td><td class="num" data-label="${t('pricing.quantity')}">${line.quantity}</td><td class="num" data-label="${t('pricing.unitPrice')}">${line.unitPrice}</td><td class="num" data-label="${t('pricing.vatRate')}">${line.vatRate}</td><td class="num amount">${amountOf(line)}</td></tr>
`,
)}</tbody>
<tfoot>
<tr><th scope="row" colspan="5">${t('pricing.subtotal')}</th><td class="num">${pricing.net}</td></tr>
<tr><th scope="row" colspan="5">${t('pricing.vat')}</th><td class="num">${pricing.vat}</td></tr>
<tr class="total"><th scope="row" colspan="5">${t('pricing.total')}</th><td class="num">${pricing.gross}</td></tr>
</tfoot>
</table>
</div>
<p class="pricing-note small muted">${t(pricing.pricesIncludeVat ? 'pricing.includeVat' : 'pricing.excludeVat')}</p>
</section>`;
}
