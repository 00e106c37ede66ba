// Views of a document that both the sender's pages (web/) and the recipient's (signing/)
// show: the status badge and the pricing table (of a pricing block formatted by
// documents/pricing.ts: `pricingView`).
import type { DocumentStatus } from '../documents/lifecycle.ts';
import type { PricingView } from '../documents/pricing.ts';
import { html, type SafeHtml } from './html.ts';

export const statusBadges: Record<DocumentStatus, { label: string; tone: string }> = {
  draft: { label: 'Draft', tone: 'badge-neutral' },
  sent: { label: 'Awaiting signatures', tone: 'badge-pending' },
  viewed: { label: 'Awaiting signatures', tone: 'badge-pending' },
  signed: { label: 'Signed', tone: 'badge-success' },
  declined: { label: 'Declined', tone: 'badge-danger' },
  expired: { label: 'Expired', tone: 'badge-neutral' },
};

/**
 * A document's status for its owner, in the list and on its page alike: the API's, but a
 * withdrawn document says so (the API keeps the spec's `expired`, with `expiredReason`).
 */
export function statusBadge(document: { status: DocumentStatus; withdrawnAt: string | null }): SafeHtml {
  if (document.status === 'expired' && document.withdrawnAt)
    return html`<span class="badge badge-neutral">withdrawn</span>`;
  return html`<span class="badge ${statusBadges[document.status].tone}">${document.status}</span>`;
}

export function pricingTable(pricing: PricingView): SafeHtml {
  const amountOf = (line: { net: string; gross: string }) =>
    pricing.pricesIncludeVat ? line.gross : line.net;
  return html`<section class="card" aria-labelledby="pricing-heading">
<h2 id="pricing-heading">Pricing</h2>
<div class="table-scroll" role="region" aria-labelledby="pricing-heading" tabindex="0">
<table class="pricing">
<thead>
<tr><th scope="col">Item</th><th scope="col">Billing</th><th scope="col" class="num">Qty</th><th scope="col" class="num">Unit price</th><th scope="col" class="num">VAT %</th><th scope="col" class="num">Amount</th></tr>
</thead>
<tbody>
${pricing.lines.map(
  (line) =>
    html`<tr><td class="item">${line.name}</td><td class="billing" data-label="Billing">${line.billing}</td><td class="num" data-label="Qty">${line.quantity}</td><td class="num" data-label="Unit price">${line.unitPrice}</td><td class="num" data-label="VAT %">${line.vatRate}</td><td class="num amount">${amountOf(line)}</td></tr>
`,
)}</tbody>
<tfoot>
<tr><th scope="row" colspan="5">Subtotal (excl. VAT)</th><td class="num">${pricing.net}</td></tr>
<tr><th scope="row" colspan="5">VAT</th><td class="num">${pricing.vat}</td></tr>
<tr class="total"><th scope="row" colspan="5">Total</th><td class="num">${pricing.gross}</td></tr>
</tfoot>
</table>
</div>
<p class="pricing-note small muted">${pricing.pricesIncludeVat ? 'Prices include VAT' : 'Prices exclude VAT'}</p>
</section>`;
}
