// The new-document form as the signing service's input: its rows of recipients and prices
// (blank rows left out), and the value the API will compute, shown before the draft exists.
import type { RecipientRole, SigningMethod } from '../db/schema.ts';
import { formatMoney, parsePricingBlock } from '../documents/pricing.ts';
import { computeValueAmount } from '../documents/value.ts';
import type { RecipientInput } from '../signing/signing.service.ts';
import { type Form, formText } from '../ui/forms.ts';

export const maxPriceRows = 20;
export const billingChoices = ['one-off', 'week', 'month', 'quarter', 'year'] as const;

export function field(form: Form, name: string): string {
  return formText(form, name).trim();
}

export function rowCount(form: Form, name: string, fallback: number, max: number): number {
  const value = Number(formText(form, name));
  return Number.isInteger(value) && value >= 1 ? Math.min(value, max) : fallback;
}

/** The recipients typed in, blank rows left out. */
export function recipientsOf(form: Form, rows: number): RecipientInput[] {
  const recipients: RecipientInput[] = [];
  for (let i = 0; i < rows; i++) {
    const email = field(form, `r${i}_email`);
    const fullName = field(form, `r${i}_name`);
    if (!email && !fullName) continue;
    recipients.push({
      email,
      fullName,
      role: (field(form, `r${i}_role`) || 'signer') as RecipientRole,
      signingMethod: (field(form, `r${i}_method`) || 'standard') as SigningMethod,
      signingOrder: Number(field(form, `r${i}_order`) || '1'),
    });
  }
  return recipients;
}

/** The pricing block typed in, as the API would receive it; null without priced lines. */
export function pricingOf(form: Form, rows: number): unknown {
  const items = [];
  for (let i = 0; i < rows; i++) {
    const name = field(form, `p${i}_name`);
    if (!name && !field(form, `p${i}_price`)) continue;
    const billing = field(form, `p${i}_billing`) || 'one-off';
    items.push({
      name,
      quantity: field(form, `p${i}_qty`) || '1',
      unitPrice: field(form, `p${i}_price`),
      vatRate: field(form, `p${i}_vat`) || '0',
      billing:
        billing === 'one-off'
          ? { type: 'one-off' }
          : { type: 'recurring', interval: billing, periods: Number(field(form, `p${i}_periods`) || '0') },
    });
  }
  if (items.length === 0) return null;
  return {
    currency: (field(form, 'currency') || 'EUR').toUpperCase(),
    pricesIncludeVat: formText(form, 'vatMode') === 'included',
    items,
  };
}

/** What the API's `value` will be, or why the pricing is refused. */
export function previewValue(pricing: unknown): { text: string; ok: boolean } {
  if (pricing === null) return { text: 'No pricing: the value is null.', ok: true };
  try {
    const block = parsePricingBlock(pricing);
    return {
      text: `Value (excluding VAT, whole contract): ${formatMoney(computeValueAmount(block), block.currency)}`,
      ok: true,
    };
  } catch (error) {
    return { text: `Pricing: ${(error as Error).message}`, ok: false };
  }
}
