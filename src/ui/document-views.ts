// Views of a document that both the sender's pages (web/) and the recipient's (signing/)
// show: the status badge and the pricing table (and its view of a pricing block).
import type { DocumentStatus } from '../documents/lifecycle.ts';
import { computePricingBreakdown, describeBilling, formatMoney } from '../documents/pricing.ts';
import type { PricingBlock } from '../documents/value.ts';
import { html, type SafeHtml } from './html.ts';

export interface PricingView {
  pricesIncludeVat: boolean;
  /** Money values already formatted for display ("€1,234.50"), billing already described ("monthly × 12"). */
  lines: Array<{
    name: string;
    quantity: string;
    unitPrice: string;
    vatRate: string;
    billing: string;
    net: string;
    vat: string;
    gross: string;
  }>;
  /** Formatted totals. */
  net: string;
  vat: string;
  gross: string;
}

/** A pricing block, formatted for people: money in its currency, billing described. */
export function pricingView(block: PricingBlock | null): PricingView | null {
  if (!block) return null;
  const breakdown = computePricingBreakdown(block);
  const money = (amount: string) => formatMoney(amount, block.currency);
  return {
    pricesIncludeVat: block.pricesIncludeVat,
    lines: breakdown.lines.map((line) => ({
      name: line.name,
      quantity: line.quantity,
      unitPrice: formatMoney(line.unitPrice, block.currency, { keepDecimals: true }),
      vatRate: line.vatRate,
      billing: describeBilling(line.billing),
      net: money(line.net),
      vat: money(line.vat),
      gross: money(line.gross),
    })),
    net: money(breakdown.net),
    vat: money(breakdown.vat),
    gross: money(breakdown.gross),
  };
}

export const statusBadges: Record<DocumentStatus, { label: string; tone: string }> = {
  draft: { label: 'Draft', tone: 'badge-neutral' },
  sent: { label: 'Awaiting signatures', tone: 'badge-pending' },
  viewed: { label: 'Awaiting signatures', tone: 'badge-pending' },
  signed: { label: 'Signed', tone: 'badge-success' },
  declined: { label: 'Declined', tone: 'badge-danger' },
  expired: { label: 'Expired', tone: 'badge-neutral' },
};

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
