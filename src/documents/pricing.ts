// A document's pricing block: validation of untrusted input (CLI, JSON API), the per-line and
// total breakdown shown on the signing page, money formatting, and the block formatted for
// people (`pricingView`: what the pages' pricing table and the PDF's text show). All
// arithmetic is exact (fractions of BigInts from value.ts); amounts are rounded half away
// from zero to the currency's minor unit only when they are printed.

import type { MessageKey, MessageValues } from '../i18n/messages.ts';
import { type Translator, translator } from '../i18n/messages.ts';
import type { KeyedSentence } from '../i18n/refusals.ts';
import { drawableText, drawingRefusal, undrawableReason } from '../pdf/fonts.ts';
import {
  add,
  type Billing,
  type BillingInterval,
  computeValueAmount,
  type Fraction,
  isCurrencyCode,
  isDecimalString,
  type LineItem,
  lineAmounts,
  minorUnitDigits,
  type PricingBlock,
  parseDecimal,
  toDecimalString,
} from './value.ts';

/** A pricing block was refused; `path` names the offending field, e.g. `items[2].quantity` ('' for the block itself). */
export class PricingError extends Error {
  readonly path: string;
  /**
   * The rule's sentence as a key of the catalogues (`pricing.problem.*`), for the rules a
   * person typing a form can break; the shapes only a program sends (an object where a
   * string goes) have none, and are said in English.
   */
  readonly rule: { key: MessageKey; values?: MessageValues } | undefined;

  constructor(path: string, reason: string, rule?: { key: MessageKey; values?: MessageValues }) {
    super(path === '' ? reason : `${path}: ${reason}`);
    this.name = 'PricingError';
    this.path = path;
    this.rule = rule;
  }
}

const maxItems = 100;
const maxNameLength = 200;
const maxPeriods = 1200;
/** |unitPrice| must stay below this. */
const unitPriceLimit = 10n ** 12n;
/**
 * |net total| must stay below this, so the API's JSON number for `value` stays exact: at
 * most 15 significant digits including the minor unit (10^13 for EUR, 10^12 for KWD).
 */
function totalLimit(currency: string): bigint {
  return 10n ** BigInt(15 - minorUnitDigits(currency));
}

const intervals: readonly BillingInterval[] = ['week', 'month', 'quarter', 'year'];

const zero: Fraction = { num: 0n, den: 1n };
const hundred: Fraction = { num: 100n, den: 1n };

function negate(f: Fraction): Fraction {
  return { num: -f.num, den: f.den };
}

/** Sign of a − b (denominators from parseDecimal are positive). */
function compare(a: Fraction, b: Fraction): number {
  const difference = a.num * b.den - b.num * a.den;
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}

function absolute(f: Fraction): Fraction {
  return f.num < 0n ? negate(f) : f;
}

// --- Validation -------------------------------------------------------------------------

function childPath(path: string, key: string): string {
  const segment = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
  if (segment !== key) return `${path}[${segment}]`;
  return path === '' ? key : `${path}.${key}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** A plain object whose own keys are all in `allowed`; every key in `allowed` must then be present. */
function expectObject(value: unknown, path: string, allowed: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PricingError(path, `must be an object, not ${describe(value)}`);
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    throw new PricingError(path, 'must be a plain object');
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) {
      throw new PricingError(childPath(path, key), `unknown field (allowed: ${allowed.join(', ')})`);
    }
  }
  for (const key of allowed) {
    if (!Object.hasOwn(record, key)) throw new PricingError(childPath(path, key), 'is required');
  }
  return record;
}

function expectDecimal(value: unknown, path: string): Fraction {
  if (typeof value !== 'string') {
    const hint =
      typeof value === 'number' ? ' (give numbers as strings, e.g. "1.5", so none loses precision)' : '';
    throw new PricingError(path, `must be a decimal string, not ${describe(value)}${hint}`);
  }
  if (!isDecimalString(value)) {
    throw new PricingError(
      path,
      'must be a number such as 2, 19.99 or 0.0125 (up to 15 digits before the point and 6 after)',
      { key: 'pricing.problem.notANumber', values: { field: path.slice(path.lastIndexOf('.') + 1) } },
    );
  }
  return parseDecimal(value);
}

function parseName(value: unknown, path: string): string {
  if (typeof value !== 'string') throw new PricingError(path, `must be a string, not ${describe(value)}`);
  const name = value.trim();
  // Counted in code points, so an emoji is one character, not two UTF-16 units.
  const length = [...name].length;
  if (length === 0) throw new PricingError(path, 'must not be empty', { key: 'pricing.problem.nameEmpty' });
  if (length > maxNameLength)
    throw new PricingError(path, `must be at most ${maxNameLength} characters`, {
      key: 'pricing.problem.nameTooLong',
      values: { max: maxNameLength },
    });
  // The line is drawn in the document's PDF: the one rule of drawable text.
  const undrawable = undrawableReason(name);
  if (undrawable) throw new PricingError(path, undrawable, drawingRefusal('lineItem', name) ?? undefined);
  return drawableText(name);
}

function parseBilling(value: unknown, path: string): Billing {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PricingError(path, `must be an object, not ${describe(value)}`);
  }
  const type = Object.hasOwn(value, 'type') ? (value as { type: unknown }).type : undefined;
  if (type === 'one-off') {
    expectObject(value, path, ['type']);
    return { type: 'one-off' };
  }
  if (type === 'recurring') {
    const record = expectObject(value, path, ['type', 'interval', 'periods']);
    const interval = record.interval;
    if (!intervals.includes(interval as BillingInterval)) {
      throw new PricingError(childPath(path, 'interval'), `must be one of ${intervals.join(', ')}`);
    }
    const periods = record.periods;
    if (typeof periods !== 'number' || !Number.isInteger(periods) || periods < 1 || periods > maxPeriods) {
      throw new PricingError(childPath(path, 'periods'), `must be a whole number from 1 to ${maxPeriods}`, {
        key: 'pricing.problem.periods',
        values: { max: maxPeriods },
      });
    }
    return { type: 'recurring', interval: interval as BillingInterval, periods };
  }
  throw new PricingError(childPath(path, 'type'), 'must be "one-off" or "recurring"');
}

function parseLineItem(value: unknown, path: string, errors: PricingError[]): LineItem | null {
  const record = expectObject(value, path, ['name', 'quantity', 'unitPrice', 'vatRate', 'billing']);
  // Each field on its own, so a form shows every problem of the line at once.
  const name = attempt(errors, () => parseName(record.name, `${path}.name`));
  attempt(errors, () => {
    const quantity = expectDecimal(record.quantity, `${path}.quantity`);
    if (compare(quantity, zero) <= 0)
      throw new PricingError(`${path}.quantity`, 'must be greater than 0', {
        key: 'pricing.problem.quantityPositive',
      });
  });
  attempt(errors, () => {
    const unitPrice = expectDecimal(record.unitPrice, `${path}.unitPrice`);
    if (compare(absolute(unitPrice), { num: unitPriceLimit, den: 1n }) >= 0) {
      throw new PricingError(`${path}.unitPrice`, 'must be less than 1,000,000,000,000 in absolute value', {
        key: 'pricing.problem.unitPriceLimit',
        values: { limit: Number(unitPriceLimit) },
      });
    }
  });
  attempt(errors, () => {
    const vatRate = expectDecimal(record.vatRate, `${path}.vatRate`);
    if (compare(vatRate, zero) < 0 || compare(vatRate, hundred) > 0) {
      throw new PricingError(`${path}.vatRate`, 'must be a percentage from 0 to 100', {
        key: 'pricing.problem.vatRange',
      });
    }
  });
  const billing = attempt(errors, () => parseBilling(record.billing, `${path}.billing`));
  if (name === undefined || billing === undefined || errors.length > 0) return null;
  return {
    name,
    quantity: record.quantity as string,
    unitPrice: record.unitPrice as string,
    vatRate: record.vatRate as string,
    billing,
  };
}

/** Runs one check; a PricingError it throws is collected instead (undefined is returned). */
function attempt<T>(errors: PricingError[], check: () => T): T | undefined {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof PricingError)) throw error;
    errors.push(error);
    return undefined;
  }
}

/**
 * Validates an untrusted pricing block: a clean copy (known fields only, names trimmed), or
 * every problem found, each naming its field: the block's own fields, then each line's
 * (a line whose shape is wrong stops at that). A total below zero is refused: a discount
 * line (a negative unit price) may only take from priced lines, never make the contract a
 * payment to the client.
 */
export function checkPricingBlock(input: unknown): { block: PricingBlock } | { errors: PricingError[] } {
  const errors: PricingError[] = [];
  let record: Record<string, unknown>;
  try {
    record = expectObject(input, '', ['currency', 'pricesIncludeVat', 'items']);
  } catch (error) {
    if (!(error instanceof PricingError)) throw error;
    return { errors: [error] };
  }
  const currency = attempt(errors, () => {
    const currency = record.currency;
    if (typeof currency !== 'string') {
      throw new PricingError('currency', `must be a string, not ${describe(currency)}`);
    }
    if (!isCurrencyCode(currency)) {
      throw new PricingError('currency', 'must be an ISO 4217 currency code in capitals, such as "EUR"', {
        key: 'pricing.problem.currency',
      });
    }
    return currency;
  });
  const pricesIncludeVat = attempt(errors, () => {
    const pricesIncludeVat = record.pricesIncludeVat;
    if (typeof pricesIncludeVat !== 'boolean') {
      throw new PricingError('pricesIncludeVat', `must be true or false, not ${describe(pricesIncludeVat)}`);
    }
    return pricesIncludeVat;
  });
  const rawItems = attempt(errors, () => {
    const rawItems = record.items;
    if (!Array.isArray(rawItems))
      throw new PricingError('items', `must be an array, not ${describe(rawItems)}`);
    if (rawItems.length < 1 || rawItems.length > maxItems) {
      throw new PricingError('items', `must hold from 1 to ${maxItems} items, not ${rawItems.length}`);
    }
    return rawItems as unknown[];
  });
  const items = (rawItems ?? []).map((item, index) =>
    attempt(errors, () => parseLineItem(item, `items[${index}]`, errors)),
  );
  if (errors.length > 0 || currency === undefined || pricesIncludeVat === undefined) return { errors };

  const block: PricingBlock = { currency, pricesIncludeVat, items: items as LineItem[] };
  // The rounded total is what the API sends as a JSON number.
  const total = computeValueAmount(block);
  if (total.startsWith('-')) {
    return {
      errors: [
        new PricingError(
          'items',
          `the total net value ${total} must not be below 0 (discounts may only reduce it)`,
          { key: 'pricing.problem.belowZero', values: { total } },
        ),
      ],
    };
  }
  const [whole = ''] = total.split('.');
  const limit = totalLimit(currency);
  if (BigInt(whole) >= limit) {
    return {
      errors: [
        new PricingError(
          'items',
          `the total net value ${total} must be less than ${limit.toLocaleString('en')}`,
          { key: 'pricing.problem.totalTooLarge', values: { total, limit: Number(limit) } },
        ),
      ],
    };
  }
  return { block };
}

/** checkPricingBlock for a caller that wants the block or the first problem (PricingError). */
export function parsePricingBlock(input: unknown): PricingBlock {
  const checked = checkPricingBlock(input);
  if ('errors' in checked) throw checked.errors[0] as PricingError;
  return checked.block;
}

/** Where a pricing problem sits, as an input's key: `pricing` (the block) or `pricing.<path>`. */
export function pricingErrorKey(error: PricingError): string {
  return error.path === '' ? 'pricing' : `pricing.${error.path}`;
}

/** What a line's fields are called where people type them. */
const lineFieldNames: Record<string, string> = {
  name: 'item',
  quantity: 'quantity',
  unitPrice: 'unit price',
  vatRate: 'VAT rate',
  billing: 'billing',
  'billing.type': 'billing',
  'billing.interval': 'billing',
  'billing.periods': 'periods',
};

/**
 * A pricing problem in plain words, for a form and the CLI alike: "Line 2: quantity must be
 * greater than 0." rather than `items[1].quantity`.
 */
export function describePricingError(error: PricingError): string {
  const reason = error.message.slice(error.path === '' ? 0 : error.path.length + 2);
  const line = /^items\[(\d+)\](?:\.(.+))?$/.exec(error.path);
  if (line) {
    const field = line[2] === undefined ? '' : `${lineFieldNames[line[2]] ?? line[2]} `;
    return `Line ${Number(line[1]) + 1}: ${field}${reason}.`;
  }
  if (error.path === 'items') return `Pricing: ${reason}.`;
  if (error.path === 'currency') return `Currency ${reason}.`;
  return `Pricing: ${error.path === '' ? '' : `${error.path} `}${reason}.`;
}

/**
 * A pricing problem as a form shows it in its page's language: its rule's key, the line
 * (numbered from 1) among its values; a problem only a program can cause, in English.
 */
export function pricingProblem(error: PricingError): KeyedSentence | string {
  if (!error.rule) return describePricingError(error);
  const line = /^items\[(\d+)\]/.exec(error.path);
  return {
    key: error.rule.key,
    values: { ...error.rule.values, ...(line ? { line: Number(line[1]) + 1 } : {}) },
  };
}

// --- Breakdown --------------------------------------------------------------------------

export interface PricingLine {
  name: string;
  quantity: string;
  unitPrice: string;
  vatRate: string;
  billing: Billing;
  /** Decimal strings rounded half away from zero to the currency's minor unit. */
  net: string;
  vat: string;
  gross: string;
}

export interface PricingBreakdown {
  currency: string;
  pricesIncludeVat: boolean;
  lines: PricingLine[];
  /** Exact sums of the lines, each rounded once; `net` always equals computeValueAmount(block). */
  net: string;
  vat: string;
  gross: string;
}

/**
 * Per-line and total net, VAT and gross of a (valid) pricing block.
 *
 * Rounding: every figure is computed exactly and rounded on its own, once, for display. The
 * totals are the exact sums rounded, NOT the sums of the rounded lines, so the lines shown may
 * not add up to the total by a minor unit or so (three lines of 10.00 incl. 21% VAT have a net
 * of 8.26 each, 24.78 together, but the total net is 30 / 1.21 = 24.79). Likewise a line's or
 * the total's rounded net + VAT may differ from its rounded gross by one minor unit. This is
 * intended: the total net is the document's `value`, and it must not depend on how the
 * document happens to be split into lines.
 */
export function computePricingBreakdown(block: PricingBlock): PricingBreakdown {
  const digits = minorUnitDigits(block.currency);
  let net = zero;
  let vat = zero;
  let gross = zero;
  const lines = block.items.map((item): PricingLine => {
    const line = lineAmounts(item, block.pricesIncludeVat);
    net = add(net, line.net);
    vat = add(vat, line.vat);
    gross = add(gross, line.gross);
    return {
      name: item.name,
      quantity: item.quantity,
      unitPrice: item.unitPrice,
      vatRate: item.vatRate,
      billing: item.billing.type === 'recurring' ? { ...item.billing } : { type: 'one-off' },
      net: toDecimalString(line.net, digits),
      vat: toDecimalString(line.vat, digits),
      gross: toDecimalString(line.gross, digits),
    };
  });
  return {
    currency: block.currency,
    pricesIncludeVat: block.pricesIncludeVat,
    lines,
    net: toDecimalString(net, digits),
    vat: toDecimalString(vat, digits),
    gross: toDecimalString(gross, digits),
  };
}

// --- Display ----------------------------------------------------------------------------

const plainDecimal = /^-?\d+(\.\d+)?$/;
const formatters = new Map<string, Intl.NumberFormat>();

/**
 * An amount for display, e.g. formatMoney('1234.5', 'EUR') is '€1,234.50', with as many
 * decimals as the currency's minor unit (JPY none, KWD three). The decimal string is formatted
 * exactly (no conversion to a float), rounding half away from zero if it has more decimals,
 * unless `keepDecimals` asks for every decimal it has (unit prices).
 */
export function formatMoney(
  amount: string,
  currency: string,
  options: { keepDecimals?: boolean; locale?: string } = {},
): string {
  if (!plainDecimal.test(amount)) throw new RangeError(`not a decimal amount: ${amount}`);
  if (!isCurrencyCode(currency)) throw new RangeError(`not a currency code: ${currency}`);
  const minor = minorUnitDigits(currency);
  // keepDecimals: a unit price of 0.0125 EUR shows as €0.0125, never rounded to €0.01.
  const digits = options.keepDecimals ? Math.max(minor, amount.split('.')[1]?.length ?? 0) : minor;
  const locale = options.locale ?? 'en';
  const key = `${locale}:${currency}:${digits}`;
  let formatter = formatters.get(key);
  if (formatter === undefined) {
    formatter = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      minimumFractionDigits: minor,
      maximumFractionDigits: digits,
      // No minus sign on an amount that rounds to zero ('-0.001' is '€0.00', not '-€0.00').
      signDisplay: 'negative',
    });
    formatters.set(key, formatter);
  }
  return formatter.format(amount as Intl.StringNumericLiteral);
}

/** 'one-off', or the interval and number of periods, e.g. 'monthly × 12', in `tr`'s language. */
export function describeBilling(billing: Billing, tr: Translator = translator('en')): string {
  return billing.type === 'one-off'
    ? tr.t('pricing.oneOff')
    : tr.t('pricing.recurring', { interval: billing.interval, periods: billing.periods });
}

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

/** A pricing block, formatted for people (in `tr`'s language): money in its currency, billing described. */
export function pricingView(
  block: PricingBlock | null,
  tr: Translator = translator('en'),
): PricingView | null {
  if (!block) return null;
  const breakdown = computePricingBreakdown(block);
  const locale = tr.locale;
  const money = (amount: string) => formatMoney(amount, block.currency, { locale });
  return {
    pricesIncludeVat: block.pricesIncludeVat,
    lines: breakdown.lines.map((line) => ({
      name: line.name,
      quantity: line.quantity,
      unitPrice: formatMoney(line.unitPrice, block.currency, { keepDecimals: true, locale }),
      vatRate: line.vatRate,
      billing: describeBilling(line.billing, tr),
      net: money(line.net),
      vat: money(line.vat),
      gross: money(line.gross),
    })),
    net: money(breakdown.net),
    vat: money(breakdown.vat),
    gross: money(breakdown.gross),
  };
}
