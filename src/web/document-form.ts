// The new-document form as a draft's input (sending/draft-input.ts): its rows of recipients
// and prices (blank rows left out), and the value the API will compute, shown before the
// draft exists.
import type { RecipientRole, SigningMethod } from '../db/schema.ts';
import { checkPricingBlock, formatMoney, pricingProblem } from '../documents/pricing.ts';
import { computeValueAmount } from '../documents/value.ts';
import type { Translator } from '../i18n/messages.ts';
import { type KeyedSentence, type Problems, sentenceIn } from '../i18n/refusals.ts';
import type { FieldErrors } from '../input-error.ts';
import type { RecipientInput } from '../sending/draft-input.ts';
import { type Form, formText } from '../ui/forms.ts';

export const maxPriceRows = 20;
export const billingChoices = ['one-off', 'week', 'month', 'quarter', 'year'] as const;
/** How long signing stays open after sending, in days: the form's choices (30 by default). */
export const expiryChoices = [7, 14, 30, 60, 90] as const;

export function field(form: Form, name: string): string {
  return formText(form, name).trim();
}

export function rowCount(form: Form, name: string, fallback: number, max: number): number {
  const value = Number(formText(form, name));
  return Number.isInteger(value) && value >= 1 ? Math.min(value, max) : fallback;
}

/** The form's recipient rows that hold something (blank rows are left out), by row number. */
function recipientRows(form: Form, rows: number): number[] {
  return Array.from({ length: rows }, (_, i) => i).filter(
    (i) => field(form, `r${i}_email`) !== '' || field(form, `r${i}_name`) !== '',
  );
}

/** The form's price rows that hold something, by row number. */
function priceRows(form: Form, rows: number): number[] {
  return Array.from({ length: rows }, (_, i) => i).filter(
    (i) => field(form, `p${i}_name`) !== '' || field(form, `p${i}_price`) !== '',
  );
}

/** The recipients typed in, blank rows left out. */
export function recipientsOf(form: Form, rows: number): RecipientInput[] {
  return recipientRows(form, rows).map((i) => {
    const email = field(form, `r${i}_email`);
    const fullName = field(form, `r${i}_name`);
    return {
      email,
      fullName,
      role: (field(form, `r${i}_role`) || 'signer') as RecipientRole,
      signingMethod: (field(form, `r${i}_method`) || 'standard') as SigningMethod,
      signingOrder: Number(field(form, `r${i}_order`) || '1'),
      language: field(form, `r${i}_language`) || null,
    };
  });
}

/** The pricing block typed in, as the API would receive it; null without priced lines. */
export function pricingOf(form: Form, rows: number): unknown {
  const items = priceRows(form, rows).map((i) => {
    const billing = field(form, `p${i}_billing`) || 'one-off';
    return {
      name: field(form, `p${i}_name`),
      quantity: field(form, `p${i}_qty`) || '1',
      unitPrice: field(form, `p${i}_price`),
      vatRate: field(form, `p${i}_vat`) || '0',
      billing:
        billing === 'one-off'
          ? { type: 'one-off' }
          : { type: 'recurring', interval: billing, periods: Number(field(form, `p${i}_periods`) || '0') },
    };
  });
  if (items.length === 0) return null;
  return {
    currency: (field(form, 'currency') || 'EUR').toUpperCase(),
    pricesIncludeVat: formText(form, 'vatMode') === 'included',
    items,
  };
}

/**
 * What the API's `value` will be, or why the pricing is refused (every problem, in plain
 * words), in `tr`'s language.
 */
export function previewValue(pricing: unknown, tr: Translator): { text: string; ok: boolean } {
  if (pricing === null) return { text: tr.t('docForm.value.none'), ok: true };
  const checked = checkPricingBlock(pricing);
  if ('errors' in checked)
    return {
      text: checked.errors.map((error) => sentenceIn(pricingProblem(error), tr)).join(' '),
      ok: false,
    };
  const { block } = checked;
  const amount = formatMoney(computeValueAmount(block), block.currency, { locale: tr.locale });
  return { text: tr.t('docForm.value.total', { amount }), ok: true };
}

/** Which input of a recipient row holds each recipient field. */
const recipientInputs: Record<string, string> = {
  email: 'email',
  fullName: 'name',
  role: 'role',
  signingMethod: 'method',
  signingOrder: 'order',
  language: 'language',
};

/** Which input of a price row holds each field of a pricing line. */
const priceInputs: Record<string, string> = {
  name: 'name',
  quantity: 'qty',
  unitPrice: 'price',
  vatRate: 'vat',
  billing: 'billing',
  'billing.type': 'billing',
  'billing.interval': 'billing',
  'billing.periods': 'periods',
};

/**
 * The service's problems (keyed by its input: `recipients[1].email`, `pricing.items[0].quantity`)
 * in `tr`'s language and keyed by the form's inputs instead (`r2_email`, `p0_qty`: blank rows
 * do not count, and the sentences number the rows as the form does), so each shows beside
 * what the member typed. A sentence with no input of its own goes to its section
 * (`recipients`, `pricing`).
 */
export function formErrors(
  form: Form,
  problems: Problems,
  rows: { recipients: number; prices: number },
  tr: Translator,
): FieldErrors {
  const recipients = recipientRows(form, rows.recipients);
  const prices = priceRows(form, rows.prices);
  const placed: FieldErrors = {};
  const place = (key: string, problem: KeyedSentence | string) => {
    const sentence = sentenceIn(problem, tr);
    placed[key] = placed[key] ? `${placed[key]} ${sentence}` : sentence;
  };
  // The service numbers the rows it was given; the form's own numbers count blank rows too.
  for (const [key, problem] of Object.entries(problems)) {
    const recipient = /^recipients\[(\d+)\]\.(\w+)$/.exec(key);
    const line = /^pricing\.items\[(\d+)\](?:\.(.+))?$/.exec(key);
    const row = (list: number[], index: string | undefined) => list[Number(index)];
    const recipientRow = recipient && row(recipients, recipient[1]);
    const priceRow = line && row(prices, line[1]);
    if (recipient && recipientRow !== undefined && recipientInputs[recipient[2] as string])
      place(
        `r${recipientRow}_${recipientInputs[recipient[2] as string]}`,
        renumbered(problem, 'row', Number(recipient[1]) + 1, (recipientRow as number) + 1),
      );
    else if (line && priceRow !== undefined && priceInputs[line[2] ?? 'name'])
      place(
        `p${priceRow}_${priceInputs[line[2] ?? 'name']}`,
        renumbered(problem, 'line', Number(line[1]) + 1, (priceRow as number) + 1),
      );
    else if (key === 'expiry') place('expiresInDays', problem);
    else if (key === 'pricing.currency') place('currency', problem);
    else if (key.startsWith('recipients')) place('recipients', problem);
    else if (key.startsWith('pricing')) place('pricing', problem);
    else place(key, problem);
  }
  return placed;
}

/**
 * **The** renumbering of a problem numbered `from` (the service's count) as `to` (the form's,
 * which counts blank rows too): a keyed sentence's row (its `who`'s) or line, or, for a rule
 * with no key, the English "Recipient 2:", "Role 2:" or "Line 2:" it begins with.
 */
export function renumbered(
  problem: KeyedSentence | string,
  name: 'row' | 'line',
  from: number,
  to: number,
  word = name === 'row' ? 'Recipient' : 'Line',
): KeyedSentence | string {
  if (typeof problem === 'string') return problem.replace(`${word} ${from}:`, `${word} ${to}:`);
  const { who } = problem.parts ?? {};
  if (name === 'row' && who)
    return { ...problem, parts: { ...problem.parts, who: { ...who, values: { ...who.values, row: to } } } };
  return { ...problem, values: { ...problem.values, [name]: to } };
}

/** The chosen expiry: one of the form's choices, `keep` (a draft's own, `kept`), or else 30 days. */
export function expiryOf(form: Form, kept?: number): number {
  if (kept !== undefined && formText(form, 'expiresInDays') === 'keep') return kept;
  const days = Number(formText(form, 'expiresInDays'));
  return (expiryChoices.includes(days as (typeof expiryChoices)[number]) ? days : 30) * 86_400;
}

/** A duration in its largest whole unit: what the edit form says of an expiry its choices do not hold. */
export interface Duration {
  unit: 'day' | 'hour' | 'minute';
  count: number;
}

/** 45 days, 1 hour: an expiry in seconds as a Duration (form-parts.views.ts says it). */
export function describeSeconds(seconds: number): Duration {
  const [unit, size] =
    seconds % 86_400 === 0
      ? (['day', 86_400] as const)
      : seconds % 3600 === 0
        ? (['hour', 3600] as const)
        : (['minute', 60] as const);
  return { unit, count: Math.round(seconds / size) };
}
