// Unit tests for pricing blocks (src/documents/pricing.ts): validation of untrusted input,
// the net/VAT/gross breakdown and money formatting. Every expected amount is worked out by
// hand (the arithmetic is in the comment next to it), never by calling the code under test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkPricingBlock,
  computePricingBreakdown,
  describeBilling,
  formatMoney,
  PricingError,
  type PricingLine,
  parsePricingBlock,
} from '../../src/documents/pricing.ts';
import {
  type Billing,
  computeValueAmount,
  type LineItem,
  type PricingBlock,
} from '../../src/documents/value.ts';

// --- Validation -------------------------------------------------------------------------

type Json = Record<string, unknown>;

function validItem(): Json {
  return {
    name: 'Consulting',
    quantity: '2',
    unitPrice: '50.00',
    vatRate: '21',
    billing: { type: 'one-off' },
  };
}

function validSubscription(): Json {
  return {
    name: 'Hosting',
    quantity: '1',
    unitPrice: '49.99',
    vatRate: '21',
    billing: { type: 'recurring', interval: 'month', periods: 12 },
  };
}

function validBlock(items: unknown[] = [validItem()]): Json {
  return { currency: 'EUR', pricesIncludeVat: false, items };
}

/** A valid block whose first item has `patch` applied (a value of undefined deletes the key). */
function withItem(patch: Json, base: Json = validItem()): Json {
  const item: Json = { ...base, ...patch };
  for (const [key, value] of Object.entries(patch)) if (value === undefined) delete item[key];
  return validBlock([item]);
}

function withBilling(billing: unknown): Json {
  return withItem({ billing });
}

function without(object: Json, key: string): Json {
  const copy = { ...object };
  delete copy[key];
  return copy;
}

interface RefusalCase {
  name: string;
  input: unknown;
  path: string;
}

const refusals: RefusalCase[] = [
  // The block itself.
  { name: 'refuses null as a block', input: null, path: '' },
  { name: 'refuses an array as a block', input: [validItem()], path: '' },
  { name: 'refuses a JSON string instead of a parsed block', input: JSON.stringify(validBlock()), path: '' },
  {
    name: 'refuses a class instance as a block',
    input: new (class Block {
      currency = 'EUR';
    })(),
    path: '',
  },
  { name: 'refuses an unknown key on the block', input: { ...validBlock(), total: '100.00' }, path: 'total' },
  {
    name: 'refuses a __proto__ key on the block',
    input: JSON.parse('{"__proto__":{"x":1},"currency":"EUR","pricesIncludeVat":false,"items":[]}'),
    path: '__proto__',
  },
  { name: 'refuses a block without currency', input: without(validBlock(), 'currency'), path: 'currency' },
  { name: 'refuses a numeric currency code', input: { ...validBlock(), currency: 978 }, path: 'currency' },
  {
    name: 'refuses a lower-case currency code',
    input: { ...validBlock(), currency: 'eur' },
    path: 'currency',
  },
  { name: 'refuses an unknown currency code', input: { ...validBlock(), currency: 'XYZ' }, path: 'currency' },
  { name: 'refuses a currency symbol', input: { ...validBlock(), currency: '€' }, path: 'currency' },
  {
    name: 'refuses a string for pricesIncludeVat',
    input: { ...validBlock(), pricesIncludeVat: 'true' },
    path: 'pricesIncludeVat',
  },
  {
    name: 'refuses 0 for pricesIncludeVat',
    input: { ...validBlock(), pricesIncludeVat: 0 },
    path: 'pricesIncludeVat',
  },
  {
    name: 'refuses a block without pricesIncludeVat',
    input: without(validBlock(), 'pricesIncludeVat'),
    path: 'pricesIncludeVat',
  },
  { name: 'refuses a block without items', input: without(validBlock(), 'items'), path: 'items' },
  { name: 'refuses items given as an object', input: { ...validBlock(), items: validItem() }, path: 'items' },
  { name: 'refuses an empty items array', input: validBlock([]), path: 'items' },
  {
    name: 'refuses 101 items',
    input: validBlock(Array.from({ length: 101 }, validItem)),
    path: 'items',
  },

  // An item.
  { name: 'refuses null as an item', input: validBlock([null]), path: 'items[0]' },
  { name: 'refuses a string as an item', input: validBlock(['Consulting']), path: 'items[0]' },
  { name: 'refuses an unknown key on an item', input: withItem({ sku: 'C-1' }), path: 'items[0].sku' },
  {
    name: 'quotes an unknown key that is not an identifier in the path',
    input: withItem({ 'unit price': '1' }),
    path: 'items[0]["unit price"]',
  },
  {
    name: 'reports the index of the offending item',
    input: validBlock([validItem(), validItem(), { ...validItem(), quantity: '0' }]),
    path: 'items[2].quantity',
  },

  // name
  { name: 'refuses an item without name', input: withItem({ name: undefined }), path: 'items[0].name' },
  { name: 'refuses a numeric name', input: withItem({ name: 42 }), path: 'items[0].name' },
  { name: 'refuses an empty name', input: withItem({ name: '' }), path: 'items[0].name' },
  { name: 'refuses a whitespace-only name', input: withItem({ name: ' \t\n ' }), path: 'items[0].name' },
  {
    name: 'refuses a name of 201 characters',
    input: withItem({ name: 'a'.repeat(201) }),
    path: 'items[0].name',
  },
  {
    name: 'refuses a name of 201 characters even with surrounding spaces trimmed first',
    input: withItem({ name: ` ${'a'.repeat(201)} ` }),
    path: 'items[0].name',
  },

  // quantity
  {
    name: 'refuses an item without quantity',
    input: withItem({ quantity: undefined }),
    path: 'items[0].quantity',
  },
  { name: 'refuses a numeric quantity', input: withItem({ quantity: 2 }), path: 'items[0].quantity' },
  { name: 'refuses NaN as a quantity', input: withItem({ quantity: Number.NaN }), path: 'items[0].quantity' },
  { name: 'refuses a quantity of 0', input: withItem({ quantity: '0' }), path: 'items[0].quantity' },
  { name: 'refuses a quantity of -0', input: withItem({ quantity: '-0' }), path: 'items[0].quantity' },
  { name: 'refuses a quantity of -1', input: withItem({ quantity: '-1' }), path: 'items[0].quantity' },
  {
    name: 'refuses a quantity in exponent notation',
    input: withItem({ quantity: '1e3' }),
    path: 'items[0].quantity',
  },
  {
    name: 'refuses a quantity with 7 decimals',
    input: withItem({ quantity: '1.0000001' }),
    path: 'items[0].quantity',
  },
  {
    name: 'refuses a quantity with a leading plus',
    input: withItem({ quantity: '+2' }),
    path: 'items[0].quantity',
  },

  // unitPrice
  { name: 'refuses a numeric unit price', input: withItem({ unitPrice: 9.99 }), path: 'items[0].unitPrice' },
  { name: 'refuses null as a unit price', input: withItem({ unitPrice: null }), path: 'items[0].unitPrice' },
  {
    name: 'refuses a unit price with a decimal comma',
    input: withItem({ unitPrice: '9,99' }),
    path: 'items[0].unitPrice',
  },
  {
    name: 'refuses a unit price with 7 decimals',
    input: withItem({ unitPrice: '0.0000001' }),
    path: 'items[0].unitPrice',
  },
  {
    name: 'refuses a unit price of exactly 10^12',
    input: withItem({ unitPrice: '1000000000000' }),
    path: 'items[0].unitPrice',
  },
  {
    name: 'refuses a unit price of -10^12',
    input: withItem({ unitPrice: '-1000000000000.00' }),
    path: 'items[0].unitPrice',
  },

  // vatRate
  { name: 'refuses a numeric VAT rate', input: withItem({ vatRate: 21 }), path: 'items[0].vatRate' },
  { name: 'refuses a VAT rate of -1', input: withItem({ vatRate: '-1' }), path: 'items[0].vatRate' },
  { name: 'refuses a VAT rate of 100.01', input: withItem({ vatRate: '100.01' }), path: 'items[0].vatRate' },
  {
    name: 'refuses a VAT rate with a percent sign',
    input: withItem({ vatRate: '21%' }),
    path: 'items[0].vatRate',
  },

  // billing
  {
    name: 'refuses an item without billing',
    input: withItem({ billing: undefined }),
    path: 'items[0].billing',
  },
  { name: 'refuses billing given as a string', input: withBilling('one-off'), path: 'items[0].billing' },
  { name: 'refuses billing given as an array', input: withBilling([]), path: 'items[0].billing' },
  { name: 'refuses billing without a type', input: withBilling({}), path: 'items[0].billing.type' },
  {
    name: 'refuses an unknown billing type',
    input: withBilling({ type: 'monthly' }),
    path: 'items[0].billing.type',
  },
  {
    name: 'refuses a one-off billing with periods',
    input: withBilling({ type: 'one-off', periods: 1 }),
    path: 'items[0].billing.periods',
  },
  {
    name: 'refuses an unknown interval',
    input: withBilling({ type: 'recurring', interval: 'day', periods: 12 }),
    path: 'items[0].billing.interval',
  },
  {
    name: 'refuses a recurring billing without interval',
    input: withBilling({ type: 'recurring', periods: 12 }),
    path: 'items[0].billing.interval',
  },
  {
    name: 'refuses 0 periods',
    input: withBilling({ type: 'recurring', interval: 'month', periods: 0 }),
    path: 'items[0].billing.periods',
  },
  {
    name: 'refuses 1201 periods',
    input: withBilling({ type: 'recurring', interval: 'month', periods: 1201 }),
    path: 'items[0].billing.periods',
  },
  {
    name: 'refuses 1.5 periods',
    input: withBilling({ type: 'recurring', interval: 'month', periods: 1.5 }),
    path: 'items[0].billing.periods',
  },
  {
    name: 'refuses periods given as a string',
    input: withBilling({ type: 'recurring', interval: 'month', periods: '12' }),
    path: 'items[0].billing.periods',
  },
  {
    name: 'refuses a recurring billing without periods',
    input: withBilling({ type: 'recurring', interval: 'month' }),
    path: 'items[0].billing.periods',
  },
  {
    name: 'refuses an extra key on a recurring billing',
    input: withBilling({ type: 'recurring', interval: 'month', periods: 12, startsOn: '2025-01-01' }),
    path: 'items[0].billing.startsOn',
  },

  // The total.
  {
    name: 'refuses a total net value of exactly 10^13',
    // 20 x 500,000,000,000 = 10,000,000,000,000
    input: withItem({ quantity: '20', unitPrice: '500000000000' }),
    path: 'items',
  },
  {
    name: 'refuses a total net value below 0 (a discount larger than what it discounts)',
    input: validBlock([
      { ...validItem(), quantity: '1', unitPrice: '100.00' },
      { ...validItem(), name: 'Discount', quantity: '1', unitPrice: '-100.01' },
    ]),
    path: 'items',
  },
  {
    name: 'refuses a single line with a negative price',
    input: withItem({ unitPrice: '-50.00' }),
    path: 'items',
  },
  {
    name: 'refuses a total net value that only reaches 10^13 once rounded',
    // 10 x 999,999,999,999.999999 = 9,999,999,999,999.99999, rounded to 10,000,000,000,000.00
    input: withItem({ quantity: '10', unitPrice: '999999999999.999999' }),
    path: 'items',
  },
  {
    name: 'refuses a subscription whose contract value reaches 10^13',
    // 1 x 10,000,000,000 x 1000 months = 10,000,000,000,000
    input: withItem({
      quantity: '1',
      unitPrice: '10000000000',
      billing: { type: 'recurring', interval: 'month', periods: 1000 },
    }),
    path: 'items',
  },
  {
    name: 'refuses a total reached by several items that are each below the limit',
    // 2 x (10 x 600,000,000,000) = 12,000,000,000,000
    input: validBlock([
      { ...validItem(), quantity: '10', unitPrice: '600000000000' },
      { ...validItem(), quantity: '10', unitPrice: '600000000000' },
    ]),
    path: 'items',
  },
];

for (const { name, input, path } of refusals) {
  test(`parsePricingBlock ${name} (path '${path}')`, () => {
    assert.throws(
      () => parsePricingBlock(input),
      (error: unknown) => {
        assert.ok(error instanceof PricingError, `expected a PricingError, got ${String(error)}`);
        assert.equal(error.path, path);
        assert.equal(error.name, 'PricingError');
        if (path !== '') assert.ok(error.message.startsWith(`${path}: `), error.message);
        return true;
      },
    );
  });
}

test('parsePricingBlock has at least 30 refusal cases', () => {
  assert.ok(refusals.length >= 30, `only ${refusals.length}`);
});

test("checkPricingBlock names every problem at once: the block's fields and each field of each line", () => {
  const checked = checkPricingBlock({
    currency: 'eur',
    pricesIncludeVat: false,
    items: [
      { ...validItem(), name: '', quantity: '0', vatRate: '101' },
      validItem(),
      { ...validItem(), unitPrice: 'abc', billing: { type: 'recurring', interval: 'day', periods: 12 } },
    ],
  });
  assert.ok('errors' in checked);
  assert.deepEqual(
    checked.errors.map((e) => e.path),
    [
      'currency',
      'items[0].name',
      'items[0].quantity',
      'items[0].vatRate',
      'items[2].unitPrice',
      'items[2].billing.interval',
    ],
  );
  assert.match(checked.errors[4]?.message ?? '', /must be a number such as 2, 19\.99 or 0\.0125/);
});

test('parsePricingBlock tells a caller who sent a number to send a string', () => {
  assert.throws(() => parsePricingBlock(withItem({ unitPrice: 0.1 })), /decimal string, not a number/);
});

interface AcceptCase {
  name: string;
  input: unknown;
  expected: PricingBlock;
}

function item(patch: Partial<LineItem> = {}): LineItem {
  return {
    name: 'Consulting',
    quantity: '2',
    unitPrice: '50.00',
    vatRate: '21',
    billing: { type: 'one-off' },
    ...patch,
  };
}

function block(items: LineItem[], currency = 'EUR', pricesIncludeVat = false): PricingBlock {
  return { currency, pricesIncludeVat, items };
}

const acceptances: AcceptCase[] = [
  { name: 'accepts a minimal one-off block unchanged', input: validBlock(), expected: block([item()]) },
  {
    name: 'trims the item name',
    input: withItem({ name: '  Consulting\t\n' }),
    expected: block([item({ name: 'Consulting' })]),
  },
  {
    name: 'accepts a VAT-inclusive block in another currency',
    input: { currency: 'JPY', pricesIncludeVat: true, items: [{ ...validItem(), unitPrice: '1980' }] },
    expected: block([item({ unitPrice: '1980' })], 'JPY', true),
  },
  {
    name: 'accepts a subscription and keeps its billing',
    input: validBlock([validSubscription()]),
    expected: block([
      item({
        name: 'Hosting',
        quantity: '1',
        unitPrice: '49.99',
        billing: { type: 'recurring', interval: 'month', periods: 12 },
      }),
    ]),
  },
  ...(['week', 'quarter', 'year'] as const).map(
    (interval): AcceptCase => ({
      name: `accepts the ${interval} interval`,
      input: withBilling({ type: 'recurring', interval, periods: 3 }),
      expected: block([item({ billing: { type: 'recurring', interval, periods: 3 } })]),
    }),
  ),
  {
    name: 'accepts 1 and 1200 periods',
    input: validBlock([
      { ...validItem(), billing: { type: 'recurring', interval: 'year', periods: 1 } },
      { ...validItem(), billing: { type: 'recurring', interval: 'week', periods: 1200 } },
    ]),
    expected: block([
      item({ billing: { type: 'recurring', interval: 'year', periods: 1 } }),
      item({ billing: { type: 'recurring', interval: 'week', periods: 1200 } }),
    ]),
  },
  {
    name: 'accepts VAT rates of 0, 100 and 7.7',
    input: validBlock([
      { ...validItem(), vatRate: '0' },
      { ...validItem(), vatRate: '100.000000' },
      { ...validItem(), vatRate: '7.7' },
    ]),
    expected: block([item({ vatRate: '0' }), item({ vatRate: '100.000000' }), item({ vatRate: '7.7' })]),
  },
  {
    name: 'accepts a free line, a discount line and a six-decimal unit price',
    input: validBlock([
      { ...validItem(), unitPrice: '0' },
      { ...validItem(), unitPrice: '-10.00' },
      { ...validItem(), quantity: '2000', unitPrice: '0.0125' },
    ]),
    expected: block([
      item({ unitPrice: '0' }),
      item({ unitPrice: '-10.00' }),
      item({ quantity: '2000', unitPrice: '0.0125' }),
    ]),
  },
  {
    name: 'accepts a discount that brings the total to exactly 0',
    input: validBlock([
      { ...validItem(), quantity: '1', unitPrice: '50.00' },
      { ...validItem(), quantity: '1', unitPrice: '-50.00' },
    ]),
    expected: block([
      item({ quantity: '1', unitPrice: '50.00' }),
      item({ quantity: '1', unitPrice: '-50.00' }),
    ]),
  },
  {
    name: 'accepts the smallest quantity and unit prices just below 10^12',
    input: validBlock([
      { ...validItem(), quantity: '0.000001' },
      { ...validItem(), quantity: '1', unitPrice: '999999999999.999999' },
      { ...validItem(), quantity: '1', unitPrice: '-999999999999.999999' },
    ]),
    expected: block([
      item({ quantity: '0.000001' }),
      item({ quantity: '1', unitPrice: '999999999999.999999' }),
      item({ quantity: '1', unitPrice: '-999999999999.999999' }),
    ]),
  },
  {
    name: 'accepts a total net value just below 10^13',
    // 10 x 999,999,999,999.999 = 9,999,999,999,999.99
    input: withItem({ quantity: '10', unitPrice: '999999999999.999' }),
    expected: block([item({ quantity: '10', unitPrice: '999999999999.999' })]),
  },
  {
    name: 'accepts a VAT-inclusive block whose gross exceeds 10^13 but whose net does not',
    // gross 12 x 999,999,999,999 = 11,999,999,999,988; net = 11,999,999,999,988 / 1.21
    // = 9,917,355,371,890.90... < 10^13
    input: { ...withItem({ quantity: '12', unitPrice: '999999999999' }), pricesIncludeVat: true },
    expected: block([item({ quantity: '12', unitPrice: '999999999999' })], 'EUR', true),
  },
  {
    name: 'accepts 100 items',
    input: validBlock(Array.from({ length: 100 }, validItem)),
    expected: block(Array.from({ length: 100 }, () => item())),
  },
  {
    name: 'accepts a name of 200 characters',
    input: withItem({ name: 'a'.repeat(200) }),
    expected: block([item({ name: 'a'.repeat(200) })]),
  },
  {
    name: 'counts name length in code points, so 200 emoji are accepted',
    input: withItem({ name: '📄'.repeat(200) }),
    expected: block([item({ name: '📄'.repeat(200) })]),
  },
  {
    name: 'accepts objects without a prototype',
    input: Object.assign(Object.create(null), validBlock([Object.assign(Object.create(null), validItem())])),
    expected: block([item()]),
  },
];

for (const { name, input, expected } of acceptances) {
  test(`parsePricingBlock ${name}`, () => {
    assert.deepEqual(parsePricingBlock(input), expected);
  });
}

test('parsePricingBlock returns a copy that shares nothing with the input', () => {
  const input = validBlock([validSubscription()]);
  const parsed = parsePricingBlock(input);
  const inputItems = input.items as Json[];
  const inputItem = inputItems[0] as Json;
  assert.notEqual(parsed, input);
  assert.notEqual(parsed.items, inputItems);
  assert.notEqual(parsed.items[0], inputItem);
  assert.notEqual(parsed.items[0]?.billing, inputItem.billing);
  (inputItem.billing as Json).periods = 99;
  inputItem.name = 'changed';
  inputItems.push(validItem());
  assert.deepEqual(parsed.items[0]?.billing, { type: 'recurring', interval: 'month', periods: 12 });
  assert.equal(parsed.items[0]?.name, 'Hosting');
  assert.equal(parsed.items.length, 1);
});

// --- Breakdown --------------------------------------------------------------------------

const oneOff: Billing = { type: 'one-off' };

function line(
  name: string,
  quantity: string,
  unitPrice: string,
  vatRate: string,
  billing: Billing = oneOff,
): LineItem {
  return { name, quantity, unitPrice, vatRate, billing };
}

type Figures = [net: string, vat: string, gross: string];

interface BreakdownCase {
  name: string;
  block: PricingBlock;
  /** net, vat, gross of each line, in order. */
  lines: Figures[];
  total: Figures;
}

const breakdowns: BreakdownCase[] = [
  {
    name: 'adds VAT to exclusive prices per line, at each line’s rate',
    block: block([line('Consulting', '2', '50.00', '21'), line('Book', '3', '12.50', '9')]),
    lines: [
      // 2 x 50.00 = 100.00; VAT 100.00 x 21% = 21.00; gross 121.00
      ['100.00', '21.00', '121.00'],
      // 3 x 12.50 = 37.50; VAT 37.50 x 9% = 3.375 -> 3.38; gross 40.875 -> 40.88
      ['37.50', '3.38', '40.88'],
    ],
    // net 100 + 37.50 = 137.50; VAT 21 + 3.375 = 24.375 -> 24.38; gross 121 + 40.875 = 161.875 -> 161.88
    total: ['137.50', '24.38', '161.88'],
  },
  {
    name: 'takes VAT out of inclusive prices',
    block: block([line('Consulting', '1', '121.00', '21')], 'EUR', true),
    // gross 121.00; net 121 x 100 / 121 = 100.00; VAT 121 - 100 = 21.00
    lines: [['100.00', '21.00', '121.00']],
    total: ['100.00', '21.00', '121.00'],
  },
  {
    name: 'takes VAT out of inclusive prices at mixed rates',
    block: block([line('Service', '1', '121.00', '21'), line('Books', '2', '54.50', '9')], 'EUR', true),
    lines: [
      // gross 121.00; net 121 x 100 / 121 = 100.00; VAT 21.00
      ['100.00', '21.00', '121.00'],
      // gross 2 x 54.50 = 109.00; net 109 x 100 / 109 = 100.00; VAT 9.00
      ['100.00', '9.00', '109.00'],
    ],
    // net 200.00; VAT 21 + 9 = 30.00; gross 121 + 109 = 230.00
    total: ['200.00', '30.00', '230.00'],
  },
  {
    name: 'counts a subscription over all its periods',
    block: block([
      line('Hosting', '1', '49.99', '19', { type: 'recurring', interval: 'month', periods: 12 }),
      line('Setup', '1', '100.00', '19'),
    ]),
    lines: [
      // 1 x 49.99 x 12 = 599.88; VAT 599.88 x 19% = 113.9772 -> 113.98; gross 713.8572 -> 713.86
      ['599.88', '113.98', '713.86'],
      // 100.00; VAT 19.00; gross 119.00
      ['100.00', '19.00', '119.00'],
    ],
    // net 599.88 + 100 = 699.88; VAT 113.9772 + 19 = 132.9772 -> 132.98;
    // gross 713.8572 + 119 = 832.8572 -> 832.86
    total: ['699.88', '132.98', '832.86'],
  },
  {
    name: 'counts a VAT-inclusive subscription over all its periods',
    block: block(
      [line('Seats', '5', '11.90', '19', { type: 'recurring', interval: 'quarter', periods: 4 })],
      'EUR',
      true,
    ),
    // gross 5 x 11.90 x 4 = 238.00; net 238 x 100 / 119 = 200.00; VAT 38.00
    lines: [['200.00', '38.00', '238.00']],
    total: ['200.00', '38.00', '238.00'],
  },
  {
    name: 'rounds JPY to whole yen',
    block: block([line('Tea', '3', '1980', '10'), line('Cup', '1', '333', '8')], 'JPY'),
    lines: [
      // 3 x 1980 = 5940; VAT 594; gross 6534
      ['5940', '594', '6534'],
      // 333; VAT 333 x 8% = 26.64 -> 27; gross 359.64 -> 360
      ['333', '27', '360'],
    ],
    // net 5940 + 333 = 6273; VAT 594 + 26.64 = 620.64 -> 621; gross 6534 + 359.64 = 6893.64 -> 6894
    total: ['6273', '621', '6894'],
  },
  {
    name: 'rounds JPY inclusive prices to whole yen',
    block: block([line('Tea', '1', '1000', '10')], 'JPY', true),
    // gross 1000; net 1000 x 100 / 110 = 909.09... -> 909; VAT 1000 - 909.09... = 90.90... -> 91
    lines: [['909', '91', '1000']],
    total: ['909', '91', '1000'],
  },
  {
    name: 'rounds KWD to three decimals, half away from zero',
    block: block([line('Service', '2', '3.125', '5')], 'KWD'),
    // 2 x 3.125 = 6.250; VAT 6.25 x 5% = 0.3125 -> 0.313; gross 6.5625 -> 6.563
    lines: [['6.250', '0.313', '6.563']],
    total: ['6.250', '0.313', '6.563'],
  },
  {
    name: 'takes VAT out of KWD inclusive prices with three decimals',
    block: block([line('Service', '1', '11.500', '15')], 'KWD', true),
    // gross 11.500; net 11.5 x 100 / 115 = 10.000; VAT 1.500
    lines: [['10.000', '1.500', '11.500']],
    total: ['10.000', '1.500', '11.500'],
  },
  {
    name: 'subtracts a discount line, VAT included',
    block: block([line('Licence', '1', '1000.00', '21'), line('Discount', '1', '-150.00', '21')]),
    lines: [
      // 1000.00; VAT 210.00; gross 1210.00
      ['1000.00', '210.00', '1210.00'],
      // -150.00; VAT -150 x 21% = -31.50; gross -181.50
      ['-150.00', '-31.50', '-181.50'],
    ],
    // net 1000 - 150 = 850.00; VAT 210 - 31.50 = 178.50; gross 1210 - 181.50 = 1028.50
    total: ['850.00', '178.50', '1028.50'],
  },
  {
    name: 'rounds a negative discount half away from zero',
    block: block([line('Licence', '1', '100.00', '21'), line('Discount', '1', '-12.345', '21')]),
    lines: [
      // 100.00; VAT 21.00; gross 121.00
      ['100.00', '21.00', '121.00'],
      // -12.345 -> -12.35; VAT -12.345 x 21% = -2.59245 -> -2.59; gross -14.93745 -> -14.94
      ['-12.35', '-2.59', '-14.94'],
    ],
    // net 100 - 12.345 = 87.655 -> 87.66 (the rounded lines add up to 87.65);
    // VAT 21 - 2.59245 = 18.40755 -> 18.41; gross 121 - 14.93745 = 106.06255 -> 106.06
    total: ['87.66', '18.41', '106.06'],
  },
  {
    name: 'rounds the exact total once, so rounded lines may not add up to it',
    block: block(
      [
        line('Part A', '1', '10.00', '21'),
        line('Part B', '1', '10.00', '21'),
        line('Part C', '1', '10.00', '21'),
      ],
      'EUR',
      true,
    ),
    lines: [
      // gross 10.00; net 10 x 100 / 121 = 8.2644... -> 8.26; VAT 10 - 8.2644... = 1.7355... -> 1.74
      ['8.26', '1.74', '10.00'],
      ['8.26', '1.74', '10.00'],
      ['8.26', '1.74', '10.00'],
    ],
    // net 30 x 100 / 121 = 24.7933... -> 24.79 (lines: 3 x 8.26 = 24.78);
    // VAT 30 - 24.7933... = 5.2066... -> 5.21 (lines: 3 x 1.74 = 5.22); gross 30.00
    total: ['24.79', '5.21', '30.00'],
  },
  {
    name: 'rounds a line’s net, VAT and gross each on its own',
    block: block([line('Sample', '1', '0.125', '20')]),
    // net 0.125 -> 0.13; VAT 0.125 x 20% = 0.025 -> 0.03; gross 0.15 (0.13 + 0.03 would be 0.16)
    lines: [['0.13', '0.03', '0.15']],
    total: ['0.13', '0.03', '0.15'],
  },
  {
    name: 'handles free lines, 0% VAT and fractional quantities',
    block: block([
      line('Free', '1', '0', '21'),
      line('Stamps', '4', '2.50', '0'),
      line('Hours', '1.5', '80.00', '21'),
    ]),
    lines: [
      // 1 x 0 = 0.00; VAT 0.00; gross 0.00
      ['0.00', '0.00', '0.00'],
      // 4 x 2.50 = 10.00; VAT 0.00; gross 10.00
      ['10.00', '0.00', '10.00'],
      // 1.5 x 80.00 = 120.00; VAT 120 x 21% = 25.20; gross 145.20
      ['120.00', '25.20', '145.20'],
    ],
    // net 0 + 10 + 120 = 130.00; VAT 25.20; gross 0 + 10 + 145.20 = 155.20
    total: ['130.00', '25.20', '155.20'],
  },
  {
    name: 'halves an inclusive price at 100% VAT',
    block: block([line('Luxury', '1', '50.00', '100')], 'EUR', true),
    // gross 50.00; net 50 x 100 / 200 = 25.00; VAT 25.00
    lines: [['25.00', '25.00', '50.00']],
    total: ['25.00', '25.00', '50.00'],
  },
  {
    name: 'applies a fractional VAT rate exactly',
    block: block([line('Service', '1', '99.95', '7.7')], 'CHF'),
    // 99.95; VAT 99.95 x 7.7% = 7.7 - 0.05 x 0.077 = 7.69615 -> 7.70; gross 107.64615 -> 107.65
    lines: [['99.95', '7.70', '107.65']],
    total: ['99.95', '7.70', '107.65'],
  },
  {
    name: 'multiplies six-decimal unit prices exactly',
    block: block([line('API calls', '1000', '0.0125', '21'), line('SMS', '3', '0.333333', '0')]),
    lines: [
      // 1000 x 0.0125 = 12.50; VAT 2.625 -> 2.63; gross 15.125 -> 15.13
      ['12.50', '2.63', '15.13'],
      // 3 x 0.333333 = 0.999999 -> 1.00; VAT 0.00; gross 1.00
      ['1.00', '0.00', '1.00'],
    ],
    // net 12.5 + 0.999999 = 13.499999 -> 13.50; VAT 2.625 -> 2.63; gross 15.125 + 0.999999 = 16.124999 -> 16.12
    total: ['13.50', '2.63', '16.12'],
  },
];

for (const { name, block: input, lines, total } of breakdowns) {
  test(`computePricingBreakdown ${name}`, () => {
    const breakdown = computePricingBreakdown(input);
    const expectedLines: PricingLine[] = input.items.map((item, index) => {
      const [net, vat, gross] = lines[index] ?? ['?', '?', '?'];
      return { ...item, net, vat, gross };
    });
    assert.equal(lines.length, input.items.length, 'one expected line per item');
    assert.deepEqual(breakdown, {
      currency: input.currency,
      pricesIncludeVat: input.pricesIncludeVat,
      lines: expectedLines,
      net: total[0],
      vat: total[1],
      gross: total[2],
    });
    assert.equal(breakdown.net, computeValueAmount(input), 'the total net is the document value');
  });
}

test('computePricingBreakdown totals differ from the sum of the rounded lines when rounding says so', () => {
  // The same block as 'rounds the exact total once': three lines of 10.00 incl. 21% VAT.
  const breakdown = computePricingBreakdown(
    block(
      [line('A', '1', '10.00', '21'), line('B', '1', '10.00', '21'), line('C', '1', '10.00', '21')],
      'EUR',
      true,
    ),
  );
  const centsOf = (amount: string) => Math.round(Number(amount) * 100);
  const lineNetCents = breakdown.lines.reduce((sum, { net }) => sum + centsOf(net), 0);
  assert.equal(lineNetCents, 2478); // 3 x 8.26
  assert.equal(centsOf(breakdown.net), 2479); // 30 / 1.21 = 24.7933...
});

test('computePricingBreakdown does not share billing objects with the block', () => {
  const input = block([
    line('Hosting', '1', '10.00', '0', { type: 'recurring', interval: 'month', periods: 12 }),
  ]);
  const breakdown = computePricingBreakdown(input);
  assert.notEqual(breakdown.lines[0]?.billing, input.items[0]?.billing);
});

// --- Display ----------------------------------------------------------------------------

const moneyCases: Array<{ name: string; amount: string; currency: string; expected: string }> = [
  {
    name: 'pads EUR to two decimals with a thousands separator',
    amount: '1234.5',
    currency: 'EUR',
    expected: '€1,234.50',
  },
  {
    name: 'shows USD negative amounts with a leading minus',
    amount: '-150',
    currency: 'USD',
    expected: '-$150.00',
  },
  { name: 'shows GBP zero', amount: '0', currency: 'GBP', expected: '£0.00' },
  { name: 'shows JPY without decimals', amount: '6894', currency: 'JPY', expected: '¥6,894' },
  { name: 'rounds JPY half away from zero', amount: '1234.5', currency: 'JPY', expected: '¥1,235' },
  {
    name: 'rounds negative JPY half away from zero',
    amount: '-1234.5',
    currency: 'JPY',
    expected: '-¥1,235',
  },
  // en shows currencies without a symbol by code, separated by a no-break space.
  {
    name: 'shows KWD with three decimals',
    amount: '1234.5',
    currency: 'KWD',
    expected: 'KWD\u00a01,234.500',
  },
  { name: 'shows CHF by its code', amount: '107.65', currency: 'CHF', expected: 'CHF\u00a0107.65' },
  {
    // As a float 9999999999999.999 is 9999999999999.998046875, which would print .998.
    name: 'formats the decimal string exactly, without a float',
    amount: '9999999999999.999',
    currency: 'KWD',
    expected: 'KWD\u00a09,999,999,999,999.999',
  },
  {
    name: 'formats amounts beyond float precision exactly',
    amount: '12345678901234567890.12',
    currency: 'EUR',
    expected: '€12,345,678,901,234,567,890.12',
  },
  {
    name: 'rounds an amount with more decimals than the currency',
    amount: '0.125',
    currency: 'EUR',
    expected: '€0.13',
  },
  {
    name: 'drops the minus of an amount that rounds to zero',
    amount: '-0.004',
    currency: 'EUR',
    expected: '€0.00',
  },
  { name: 'drops the minus of negative zero', amount: '-0', currency: 'EUR', expected: '€0.00' },
];

for (const { name, amount, currency, expected } of moneyCases) {
  test(`formatMoney ${name}`, () => {
    assert.equal(formatMoney(amount, currency), expected);
  });
}

test('formatMoney refuses an amount that is not a decimal string rather than printing NaN', () => {
  assert.throws(() => formatMoney('abc', 'EUR'), RangeError);
  assert.throws(() => formatMoney('1e3', 'EUR'), RangeError);
  assert.throws(() => formatMoney('', 'EUR'), RangeError);
});

test('formatMoney refuses an unknown currency', () => {
  assert.throws(() => formatMoney('1', 'XYZ'), RangeError);
  assert.throws(() => formatMoney('1', 'eur'), RangeError);
});

const billingCases: Array<{ billing: Billing; expected: string }> = [
  { billing: { type: 'one-off' }, expected: 'one-off' },
  { billing: { type: 'recurring', interval: 'week', periods: 4 }, expected: 'weekly × 4' },
  { billing: { type: 'recurring', interval: 'month', periods: 12 }, expected: 'monthly × 12' },
  { billing: { type: 'recurring', interval: 'quarter', periods: 8 }, expected: 'quarterly × 8' },
  { billing: { type: 'recurring', interval: 'year', periods: 3 }, expected: 'yearly × 3' },
  { billing: { type: 'recurring', interval: 'month', periods: 1 }, expected: 'monthly × 1' },
];

for (const { billing, expected } of billingCases) {
  test(`describeBilling describes ${JSON.stringify(billing)} as '${expected}'`, () => {
    assert.equal(describeBilling(billing), expected);
  });
}

test('formatMoney keeps every decimal of a unit price when asked', () => {
  assert.equal(formatMoney('0.0125', 'EUR', { keepDecimals: true }), '€0.0125');
  assert.equal(formatMoney('19.9', 'EUR', { keepDecimals: true }), '€19.90');
  assert.equal(formatMoney('0.0125', 'EUR'), '€0.01');
});

test('the total limit leaves 15 significant digits: a KWD block at 10^12 is refused, EUR is not', () => {
  const block = (currency: string, quantity: string, unitPrice: string) => ({
    currency,
    pricesIncludeVat: false,
    items: [{ name: 'Big', quantity, unitPrice, vatRate: '0', billing: { type: 'one-off' } }],
  });
  // 2 x 999,999,999,999.999 = 1,999,999,999,999.998: 16 significant digits.
  assert.throws(() => parsePricingBlock(block('KWD', '2', '999999999999.999')), { name: 'PricingError' });
  assert.doesNotThrow(() => parsePricingBlock(block('KWD', '1', '999999999999.999')));
  // The same total in EUR has 2 decimals: 15 significant digits, still exact.
  assert.doesNotThrow(() => parsePricingBlock(block('EUR', '2', '999999999999.99')));
});
