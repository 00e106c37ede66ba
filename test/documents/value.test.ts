// Unit tests for the document `value` (src/documents/value.ts). Every expected amount below
// is worked out by hand (the arithmetic is in the comment next to it), never by calling the
// function under test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type BillingInterval,
  computeValueAmount,
  isCurrencyCode,
  isDecimalString,
  type LineItem,
  minorUnitDigits,
  type PricingBlock,
  valueFromColumns,
} from '../../src/documents/value.ts';

function item(quantity: string, unitPrice: string, vatRate = '0'): LineItem {
  return { name: 'item', quantity, unitPrice, vatRate, billing: { type: 'one-off' } };
}

function recurring(
  quantity: string,
  unitPrice: string,
  interval: BillingInterval,
  periods: number,
  vatRate = '0',
): LineItem {
  return {
    name: 'subscription',
    quantity,
    unitPrice,
    vatRate,
    billing: { type: 'recurring', interval, periods },
  };
}

function exclusive(currency: string, items: LineItem[]): PricingBlock {
  return { currency, pricesIncludeVat: false, items };
}

function inclusive(currency: string, items: LineItem[]): PricingBlock {
  return { currency, pricesIncludeVat: true, items };
}

interface ValueCase {
  name: string;
  block: PricingBlock;
  expected: string;
}

const cases: ValueCase[] = [
  // Plain VAT-exclusive sums.
  {
    name: 'a plain EUR exclusive block is the sum of quantity x unit price',
    // 2 x 50.00 = 100.00; 1 x 25.50 = 25.50; 100.00 + 25.50 = 125.50
    block: exclusive('EUR', [item('2', '50.00', '21'), item('1', '25.50', '21')]),
    expected: '125.50',
  },
  {
    name: 'VAT rates are ignored when prices exclude VAT',
    // 1 x 100 = 100 (the 21% and 9% rates do not matter); 1 x 10 = 10; 100 + 10 = 110.00
    block: exclusive('EUR', [item('1', '100', '21'), item('1', '10', '9')]),
    expected: '110.00',
  },

  // Sums binary floating point gets wrong.
  {
    name: '0.1 + 0.2 is 0.30',
    // 0.1 + 0.2 = 0.3 exactly (doubles give 0.30000000000000004)
    block: exclusive('EUR', [item('1', '0.1'), item('1', '0.2')]),
    expected: '0.30',
  },
  {
    name: '3 x 33.33 is 99.99',
    // 3 x 33.33 = 99.99 (doubles give 99.99000000000001)
    block: exclusive('EUR', [item('3', '33.33')]),
    expected: '99.99',
  },
  {
    name: '19.99 x 3 is 59.97',
    // 19.99 x 3 = 59.97 (doubles give 59.97000000000001)
    block: exclusive('EUR', [item('3', '19.99')]),
    expected: '59.97',
  },
  {
    name: '4.35 x 100 is 435.00',
    // 4.35 x 100 = 435 (doubles give 434.99999999999994)
    block: exclusive('EUR', [item('100', '4.35')]),
    expected: '435.00',
  },
  {
    name: '1.005 rounds up to 1.01',
    // 1 x 1.005 = 1.005, exactly half a cent -> away from zero -> 1.01 (doubles store 1.00499999...)
    block: exclusive('EUR', [item('1', '1.005')]),
    expected: '1.01',
  },
  {
    name: '1.5 x 19.99 = 29.985 rounds up to 29.99',
    // 1.5 x 19.99 = 19.99 + 9.995 = 29.985, exactly half a cent -> 29.99
    block: exclusive('EUR', [item('1.5', '19.99')]),
    expected: '29.99',
  },
  {
    name: 'ten lines of 0.1 add up to 1.00',
    // 10 x 0.1 = 1 exactly (repeated double addition gives 0.9999999999999999)
    block: exclusive(
      'EUR',
      Array.from({ length: 10 }, () => item('1', '0.1')),
    ),
    expected: '1.00',
  },
  {
    name: 'a fractional quantity 0.333 x 3 is 1.00',
    // 0.333 x 3 = 0.999 -> third decimal 9 -> rounds up to 1.00
    block: exclusive('EUR', [item('0.333', '3')]),
    expected: '1.00',
  },

  // Rounding half away from zero.
  {
    name: 'a total of exactly 0.125 EUR rounds away from zero to 0.13',
    // 0.125: the dropped part is exactly half a cent -> away from zero -> 0.13 (banker's rounding would give 0.12)
    block: exclusive('EUR', [item('1', '0.125')]),
    expected: '0.13',
  },
  {
    name: 'a total just under half a cent rounds down',
    // 0.124999: dropped part 0.004999 < 0.005 -> 0.12
    block: exclusive('EUR', [item('1', '0.124999')]),
    expected: '0.12',
  },
  {
    name: 'a negative total of exactly -0.125 rounds away from zero to -0.13',
    // -0.125: half a cent -> away from zero -> -0.13
    block: exclusive('EUR', [item('1', '-0.125')]),
    expected: '-0.13',
  },
  {
    name: 'a negative total that rounds to zero prints 0.00 without a minus sign',
    // -0.001: dropped part 0.001 < 0.005 -> 0.00, and no "-0.00"
    block: exclusive('EUR', [item('1', '-0.001')]),
    expected: '0.00',
  },

  // VAT-inclusive display.
  {
    name: '121.00 including 21% VAT is 100.00 net',
    // 121 x 100 / 121 = 100
    block: inclusive('EUR', [item('1', '121.00', '21')]),
    expected: '100.00',
  },
  {
    name: '100 including 19% VAT is 84.03 net',
    // 100 x 100 / 119 = 10000 / 119 = 84.0336... (119 x 84 = 9996, remainder 4 / 119 = 0.0336) -> 84.03
    block: inclusive('EUR', [item('1', '100', '19')]),
    expected: '84.03',
  },
  {
    name: '10 including 7% VAT rounds up to 9.35 net',
    // 10 x 100 / 107 = 1000 / 107 = 9.345794... (107 x 9.34 = 999.38, 0.62 / 107 = 0.0058) -> 9.35
    block: inclusive('EUR', [item('1', '10', '7')]),
    expected: '9.35',
  },
  {
    name: 'an inclusive net of exactly x.xx5 rounds up',
    // 12.126 x 100 / 120 = 10.105 (check: 10.105 x 1.2 = 12.126), exactly half a cent -> 10.11
    block: inclusive('GBP', [item('1', '12.126', '20')]),
    expected: '10.11',
  },
  {
    name: 'a rate of 0% leaves an inclusive price unchanged',
    // 49.95 x 100 / 100 = 49.95
    block: inclusive('EUR', [item('1', '49.95', '0')]),
    expected: '49.95',
  },
  {
    name: 'inclusive lines are summed exactly and rounded only once at the end',
    // each line 1.00 x 100 / 121 = 0.826446...; 3 x 100 / 121 = 300 / 121 = 2.479338... -> 2.48
    // (rounding each line first would give 3 x 0.83 = 2.49)
    block: inclusive('EUR', [item('1', '1.00', '21'), item('1', '1.00', '21'), item('1', '1.00', '21')]),
    expected: '2.48',
  },
  {
    name: 'fractional VAT rates (7.7% and 8.1%) are exact',
    // 107.70 x 100 / 107.7 = 100; 10.81 x 100 / 108.1 = 10; 100 + 10 = 110.00
    block: inclusive('CHF', [item('1', '107.70', '7.7'), item('1', '10.81', '8.1')]),
    expected: '110.00',
  },
  {
    name: 'mixed VAT rates in one inclusive block each come off their own line',
    // 121.00 @ 21% -> 100; 107.00 @ 7% -> 100; 2 x 25.00 = 50.00 @ 0% -> 50; 100 + 100 + 50 = 250.00
    block: inclusive('EUR', [item('1', '121.00', '21'), item('1', '107.00', '7'), item('2', '25.00', '0')]),
    expected: '250.00',
  },
  {
    name: 'mixed VAT rates with inexact nets are rounded once',
    // 10.00 @ 19% -> 1000 / 119 = 8.403361...; 10.00 @ 7% -> 1000 / 107 = 9.345794...
    // 8.403361 + 9.345794 = 17.749155... -> 17.75
    block: inclusive('EUR', [item('1', '10.00', '19'), item('1', '10.00', '7')]),
    expected: '17.75',
  },
  {
    name: 'mixed fractional rates land just above a half cent and round up',
    // 107.70 @ 7.7% -> 100; 102.60 @ 2.6% -> 100; 10.81 @ 8.1% -> 10
    // 1.00 @ 8.1% -> 100 / 108.1 = 0.925069... (108.1 x 0.925 = 99.9925, 0.0075 / 108.1 = 0.0000694)
    // 100 + 100 + 10 + 0.925069 = 210.925069... -> 210.93
    block: inclusive('CHF', [
      item('1', '107.70', '7.7'),
      item('1', '102.60', '2.6'),
      item('1', '10.81', '8.1'),
      item('1', '1.00', '8.1'),
    ]),
    expected: '210.93',
  },

  // Subscriptions count their whole contract value.
  {
    name: 'a subscription of 49.99 a month for 12 periods is worth 599.88',
    // 1 x 49.99 x 12 = 599.88
    block: exclusive('EUR', [recurring('1', '49.99', 'month', 12)]),
    expected: '599.88',
  },
  {
    name: 'a subscription multiplies quantity, unit price and periods',
    // 3 seats x 15.00 x 52 weeks = 45 x 52 = 2340.00
    block: exclusive('EUR', [recurring('3', '15.00', 'week', 52)]),
    expected: '2340.00',
  },
  {
    name: 'a one-off fee and a subscription add up',
    // setup 1 x 100.00 = 100.00; 2 x 9.99 x 12 = 19.98 x 12 = 239.76; 100.00 + 239.76 = 339.76
    block: exclusive('EUR', [item('1', '100.00'), recurring('2', '9.99', 'month', 12)]),
    expected: '339.76',
  },
  {
    name: 'an inclusive subscription counts the net of every period',
    // 12.10 @ 21% -> 10.00 net a month; 10.00 x 12 = 120.00
    block: inclusive('EUR', [recurring('1', '12.10', 'month', 12, '21')]),
    expected: '120.00',
  },
  {
    name: 'an inclusive subscription is rounded on the whole contract, not per period',
    // 4 quarters x 1.00 @ 21% -> 400 / 121 = 3.305785... -> 3.31 (per period 0.83 x 4 would be 3.32)
    block: inclusive('EUR', [recurring('1', '1.00', 'quarter', 4, '21')]),
    expected: '3.31',
  },
  {
    name: 'a yearly subscription for 3 periods with a fractional quantity',
    // 2.5 x 1200.00 x 3 = 3000 x 3 = 9000.00
    block: exclusive('EUR', [recurring('2.5', '1200.00', 'year', 3)]),
    expected: '9000.00',
  },

  // JPY: no decimals.
  {
    name: 'JPY has no decimals: 1000 JPY including 10% VAT is 909',
    // 1000 x 100 / 110 = 909.0909... -> 909
    block: inclusive('JPY', [item('1', '1000', '10')]),
    expected: '909',
  },
  {
    name: 'JPY 1080 including 8% VAT is 1000',
    // 1080 x 100 / 108 = 1000
    block: inclusive('JPY', [item('1', '1080', '8')]),
    expected: '1000',
  },
  {
    name: 'JPY exclusive sum is printed without a decimal point',
    // 3 x 333 = 999; 1 x 1500 = 1500; 999 + 1500 = 2499
    block: exclusive('JPY', [item('3', '333'), item('1', '1500')]),
    expected: '2499',
  },
  {
    name: 'JPY half a yen rounds away from zero',
    // 1.5 x 333 = 499.5, exactly half -> 500
    block: exclusive('JPY', [item('1.5', '333')]),
    expected: '500',
  },
  {
    name: 'JPY 2.5 yen rounds to 3, not to the even 2',
    // 0.5 x 5 = 2.5, exactly half -> away from zero -> 3
    block: exclusive('JPY', [item('0.5', '5')]),
    expected: '3',
  },
  {
    name: 'JPY negative half a yen rounds away from zero',
    // 1 x 500 = 500; -1.5 x 667 = -(667 + 333.5) = -1000.5; total -500.5, exactly half -> -501
    block: exclusive('JPY', [item('1', '500'), item('-1.5', '667')]),
    expected: '-501',
  },
  {
    name: 'JPY just under half a yen rounds down',
    // 1 x 1000 = 1000; 0.4 x 1 = 0.4; total 1000.4, dropped 0.4 < 0.5 -> 1000
    block: exclusive('JPY', [item('1', '1000'), item('0.4', '1')]),
    expected: '1000',
  },

  // KWD: three decimals.
  {
    name: 'KWD has three decimals: 1.2345 rounds up to 1.235',
    // 1 x 1.2345 = 1.2345, exactly half a fils -> 1.235
    block: exclusive('KWD', [item('1', '1.2345')]),
    expected: '1.235',
  },
  {
    name: 'KWD 2 x 1.2345 is exactly 2.469',
    // 2 x 1.2345 = 2.469
    block: exclusive('KWD', [item('2', '1.2345')]),
    expected: '2.469',
  },
  {
    name: 'KWD 3 x 1.2345 = 3.7035 rounds up to 3.704',
    // 3 x 1.2345 = 3.7035, exactly half a fils -> 3.704
    block: exclusive('KWD', [item('3', '1.2345')]),
    expected: '3.704',
  },
  {
    name: 'KWD 1.2344 rounds down to 1.234',
    // 1.2344: dropped 0.0004 < 0.0005 -> 1.234
    block: exclusive('KWD', [item('1', '1.2344')]),
    expected: '1.234',
  },
  {
    name: 'KWD including 5% VAT is rounded to three decimals',
    // 10.500 @ 5% -> 10.5 x 100 / 105 = 10; 1.000 @ 5% -> 100 / 105 = 20 / 21 = 0.952380...
    // 10 + 0.952380 = 10.952380... -> 10.952
    block: inclusive('KWD', [item('1', '10.500', '5'), item('1', '1.000', '5')]),
    expected: '10.952',
  },

  // Discounts.
  {
    name: 'a negative discount line is subtracted',
    // 2 x 100.00 = 200.00; 1 x -15.50 = -15.50; 200.00 - 15.50 = 184.50
    block: exclusive('EUR', [item('2', '100.00', '21'), item('1', '-15.50', '21')]),
    expected: '184.50',
  },
  {
    name: 'a negative discount line in an inclusive block is subtracted net',
    // 121.00 @ 21% -> 100.00; -12.10 @ 21% -> -10.00; 100.00 - 10.00 = 90.00
    block: inclusive('EUR', [item('1', '121.00', '21'), item('1', '-12.10', '21')]),
    expected: '90.00',
  },
  {
    name: 'a discount larger than the rest gives a negative value',
    // 1 x 10.00 = 10.00; 1 x -25.005 = -25.005; total -15.005, half a cent -> away from zero -> -15.01
    block: exclusive('EUR', [item('1', '10.00'), item('1', '-25.005')]),
    expected: '-15.01',
  },

  // Empty blocks.
  {
    name: 'a EUR block without items is worth 0.00',
    // empty sum = 0 -> 0.00
    block: exclusive('EUR', []),
    expected: '0.00',
  },
  {
    name: 'a JPY block without items is worth 0',
    // empty sum = 0, no decimals -> 0
    block: inclusive('JPY', []),
    expected: '0',
  },
  {
    name: 'a KWD block without items is worth 0.000',
    // empty sum = 0, three decimals -> 0.000
    block: exclusive('KWD', []),
    expected: '0.000',
  },

  // Large amounts and many lines stay exact.
  {
    name: '10,000 lines of 0.01 are exactly 100.00',
    // 10000 x 0.01 = 100
    block: exclusive(
      'EUR',
      Array.from({ length: 10_000 }, () => item('1', '0.01')),
    ),
    expected: '100.00',
  },
  {
    name: '1,000 inclusive lines of 1.00 at 21% are rounded once',
    // 1000 x 100 / 121 = 100000 / 121 = 826.446280... (121 x 826 = 99946, 54 / 121 = 0.4463) -> 826.45
    // (rounding per line would give 1000 x 0.83 = 830.00)
    block: inclusive(
      'EUR',
      Array.from({ length: 1000 }, () => item('1', '1.00', '21')),
    ),
    expected: '826.45',
  },
  {
    name: 'amounts beyond double precision stay exact',
    // 999999999999999.99 + 0.01 = 1000000000000000.00 (17 significant digits)
    block: exclusive('EUR', [item('1', '999999999999999.99'), item('1', '0.01')]),
    expected: '1000000000000000.00',
  },
  {
    name: 'a large quantity times a six-decimal price stays exact',
    // 1000000 x 123456789.123456 = 123456789123456 -> 123456789123456.00
    block: exclusive('EUR', [item('1000000', '123456789.123456')]),
    expected: '123456789123456.00',
  },
  {
    name: 'a large total ending in exactly half a cent rounds up',
    // 3 x 333333333333.335 = 1000000000000.005, half a cent -> 1000000000000.01
    block: exclusive('EUR', [item('3', '333333333333.335')]),
    expected: '1000000000000.01',
  },
];

for (const { name, block, expected } of cases) {
  test(name, () => {
    assert.equal(computeValueAmount(block), expected);
  });
}

test('an invalid decimal in a line is refused with a RangeError', () => {
  for (const bad of ['1,5', '1e3', '.5', '1.', '+1', '', ' 1', '0.1234567', 'NaN']) {
    assert.throws(() => computeValueAmount(exclusive('EUR', [item('1', bad)])), RangeError, `price ${bad}`);
    assert.throws(
      () => computeValueAmount(exclusive('EUR', [item(bad, '1')])),
      RangeError,
      `quantity ${bad}`,
    );
  }
});

test('an invalid VAT rate is refused when prices include VAT', () => {
  assert.throws(() => computeValueAmount(inclusive('EUR', [item('1', '121', '21%')])), RangeError);
});

const decimalCases: { value: string; expected: boolean }[] = [
  { value: '2', expected: true },
  { value: '1.5', expected: true },
  { value: '0', expected: true },
  { value: '-0.01', expected: true },
  { value: '7.7', expected: true },
  { value: '0.123456', expected: true },
  { value: '123456789012345', expected: true },
  { value: '123456789012345.123456', expected: true },
  { value: '0.1234567', expected: false },
  { value: '1234567890123456', expected: false },
  { value: '1.', expected: false },
  { value: '.5', expected: false },
  { value: '+1', expected: false },
  { value: '--1', expected: false },
  { value: '1e3', expected: false },
  { value: '1,5', expected: false },
  { value: ' 1', expected: false },
  { value: '1 ', expected: false },
  { value: '', expected: false },
  { value: 'abc', expected: false },
];

for (const { value, expected } of decimalCases) {
  test(`isDecimalString(${JSON.stringify(value)}) is ${expected}`, () => {
    assert.equal(isDecimalString(value), expected);
  });
}

const minorUnitCases: { currency: string; expected: number }[] = [
  { currency: 'EUR', expected: 2 },
  { currency: 'USD', expected: 2 },
  { currency: 'JPY', expected: 0 },
  { currency: 'KRW', expected: 0 },
  { currency: 'KWD', expected: 3 },
  { currency: 'BHD', expected: 3 },
  { currency: 'ISK', expected: 0 },
  { currency: 'TND', expected: 3 },
];

for (const { currency, expected } of minorUnitCases) {
  test(`${currency} has ${expected} minor unit digits`, () => {
    assert.equal(minorUnitDigits(currency), expected);
  });
}

const currencyCodeCases: { code: string; expected: boolean }[] = [
  { code: 'EUR', expected: true },
  { code: 'JPY', expected: true },
  { code: 'KWD', expected: true },
  { code: 'eur', expected: false },
  { code: 'Eur', expected: false },
  { code: 'XYZ', expected: false },
  { code: 'EU', expected: false },
  { code: 'EURO', expected: false },
  { code: '', expected: false },
];

for (const { code, expected } of currencyCodeCases) {
  test(`isCurrencyCode(${JSON.stringify(code)}) is ${expected}`, () => {
    assert.equal(isCurrencyCode(code), expected);
  });
}

test('valueFromColumns turns the stored decimal string into a number with its currency', () => {
  assert.deepEqual(valueFromColumns('1234.50', 'EUR'), { amount: 1234.5, currency: 'EUR' });
  assert.deepEqual(valueFromColumns('909', 'JPY'), { amount: 909, currency: 'JPY' });
  assert.deepEqual(valueFromColumns('10.952', 'KWD'), { amount: 10.952, currency: 'KWD' });
  assert.deepEqual(valueFromColumns('-15.01', 'EUR'), { amount: -15.01, currency: 'EUR' });
  assert.deepEqual(valueFromColumns('0.00', 'EUR'), { amount: 0, currency: 'EUR' });
});

test('valueFromColumns is null without a pricing block', () => {
  assert.equal(valueFromColumns(null, null), null);
  assert.equal(valueFromColumns(null, 'EUR'), null);
  assert.equal(valueFromColumns('1234.50', null), null);
});
