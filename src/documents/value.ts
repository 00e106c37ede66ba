// A document's `value` (spec, Conventions): the amount of its pricing block in the
// currency's main unit, excluding VAT however the document shows prices, counting a
// subscription as its whole contract value. Computed with exact fractions of BigInts and
// rounded once, half away from zero, to the currency's minor unit: no binary floating
// point anywhere, so 0.1 + 0.2 is 0.3 and 3 x 33.33 is 99.99.

export type Billing = { type: 'one-off' } | { type: 'recurring'; interval: BillingInterval; periods: number };
export type BillingInterval = 'week' | 'month' | 'quarter' | 'year';

export interface LineItem {
  name: string;
  /** Decimal strings: "2", "1.5". */
  quantity: string;
  /** Price of one unit in the main unit, as shown in the document (including VAT when pricesIncludeVat). */
  unitPrice: string;
  /** Percent: "21", "7.7", "0". */
  vatRate: string;
  billing: Billing;
}

export interface PricingBlock {
  currency: string;
  pricesIncludeVat: boolean;
  items: LineItem[];
}

export interface Money {
  amount: number;
  currency: string;
}

// ISO 4217 minor units that differ from the usual 2 (funds codes such as CLF are not
// accepted as document currencies, so they are not listed).
const minorUnitExceptions: Record<string, number> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
};

const knownCurrencies = new Set(Intl.supportedValuesOf('currency'));

export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && knownCurrencies.has(code);
}

export function minorUnitDigits(currency: string): number {
  return minorUnitExceptions[currency] ?? 2;
}

/** An exact rational number. */
export interface Fraction {
  num: bigint;
  den: bigint;
}

const decimalPattern = /^-?\d{1,15}(\.\d{1,6})?$/;

export function isDecimalString(value: string): boolean {
  return decimalPattern.test(value);
}

export function parseDecimal(value: string): Fraction {
  if (!isDecimalString(value)) throw new RangeError(`not a decimal: ${value}`);
  const [whole = '0', fraction = ''] = value.replace('-', '').split('.');
  const sign = value.startsWith('-') ? -1n : 1n;
  return { num: sign * BigInt(whole + fraction), den: 10n ** BigInt(fraction.length) };
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x === 0n ? 1n : x;
}

function reduce(f: Fraction): Fraction {
  const g = gcd(f.num, f.den);
  return { num: f.num / g, den: f.den / g };
}

export function multiply(a: Fraction, b: Fraction): Fraction {
  return reduce({ num: a.num * b.num, den: a.den * b.den });
}

export function divide(a: Fraction, b: Fraction): Fraction {
  return reduce({ num: a.num * b.den, den: a.den * b.num });
}

export function add(a: Fraction, b: Fraction): Fraction {
  return reduce({ num: a.num * b.den + b.num * a.den, den: a.den * b.den });
}

/** Rounds half away from zero to `digits` decimals and prints it as a plain decimal string. */
export function toDecimalString(f: Fraction, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const negative = f.num < 0n;
  const num = negative ? -f.num : f.num;
  const scaled = num * scale;
  let units = scaled / f.den;
  if ((scaled % f.den) * 2n >= f.den) units += 1n;
  const text = units.toString().padStart(digits + 1, '0');
  const whole = text.slice(0, text.length - digits);
  const fraction = text.slice(text.length - digits);
  const sign = negative && units !== 0n ? '-' : '';
  return digits === 0 ? sign + whole : `${sign}${whole}.${fraction}`;
}

const hundred: Fraction = { num: 100n, den: 1n };

/**
 * One line's exact net, VAT and gross: quantity × unit price × periods, which is the gross
 * when prices include VAT (net = gross × 100 / (100 + rate)) and the net otherwise. The one
 * place VAT is taken out or added: `value` and the pricing breakdown both use it.
 */
export function lineAmounts(
  item: LineItem,
  pricesIncludeVat: boolean,
): { net: Fraction; vat: Fraction; gross: Fraction } {
  const periods = item.billing.type === 'recurring' ? BigInt(item.billing.periods) : 1n;
  const amount = multiply(multiply(parseDecimal(item.quantity), parseDecimal(item.unitPrice)), {
    num: periods,
    den: 1n,
  });
  const rate = parseDecimal(item.vatRate);
  if (pricesIncludeVat) {
    const net = divide(multiply(amount, hundred), add(hundred, rate));
    return { net, vat: add(amount, { num: -net.num, den: net.den }), gross: amount };
  }
  const vat = divide(multiply(amount, rate), hundred);
  return { net: amount, vat, gross: add(amount, vat) };
}

/** The net (VAT-excluded) amount of the whole block, as an exact decimal string in the minor unit. */
export function computeValueAmount(block: PricingBlock): string {
  let total: Fraction = { num: 0n, den: 1n };
  for (const item of block.items) total = add(total, lineAmounts(item, block.pricesIncludeVat).net);
  return toDecimalString(total, minorUnitDigits(block.currency));
}

/** The `value` field of the API: null without a pricing block. */
export function valueFromColumns(amount: string | null, currency: string | null): Money | null {
  if (amount === null || currency === null) return null;
  return { amount: Number(amount), currency };
}
