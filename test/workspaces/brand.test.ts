// The brand's rules (workspaces/brand.ts): colours read as `#rrggbb`, WCAG 2's contrast
// ratio, an accent too light for the page refused with its ratio (never rounded up to the
// threshold), a display name bounded and drawable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { translator } from '../../src/i18n/messages.ts';
import { say } from '../../src/i18n/refusals.ts';
import { checkBrand, contrastRatio, parseColour } from '../../src/workspaces/brand.ts';

const en = translator('en');

test('a colour is read as #rrggbb in lower case, from three or six digits, with or without #', () => {
  assert.equal(parseColour('#1D56C8'), '#1d56c8');
  assert.equal(parseColour(' 1d56c8 '), '#1d56c8');
  assert.equal(parseColour('#abc'), '#aabbcc');
  for (const bad of ['', '#12345', '#1234567', 'blue', '#ggg000', 'rgb(0,0,0)', '#1d56c8;}'])
    assert.equal(parseColour(bad), null, bad);
});

test('contrast ratios are WCAG 2’s', () => {
  assert.equal(contrastRatio('#000000', '#ffffff'), 21);
  assert.equal(contrastRatio('#ffffff', '#ffffff'), 1);
  // WCAG's own examples: #767676 is the lightest grey that passes 4.5:1 on white, #777777 fails.
  assert.equal(Math.floor(contrastRatio('#767676', '#ffffff') * 100) / 100, 4.54);
  assert.equal(Math.floor(contrastRatio('#777777', '#ffffff') * 100) / 100, 4.47);
  assert.equal(contrastRatio('#1d56c8', '#ffffff'), contrastRatio('#ffffff', '#1d56c8'), 'symmetric');
});

test('an accent too light for the page is refused with its ratio; a dark enough one and none are taken', () => {
  const brand = (accent: string, displayName = '') =>
    checkBrand({ displayName, accent, sentWithSignet: true });
  assert.deepEqual(brand('#1d56c8'), { brand: { displayName: null, accent: '#1d56c8' } });
  assert.deepEqual(brand(''), { brand: { displayName: null, accent: null } });
  const yellow = brand('#ffcc00');
  assert.ok('problems' in yellow);
  assert.equal(
    say(yellow.problems.accent as never, en),
    '#ffcc00 is too light to read: white text on it, and links in it, reach only 1.38:1 against the page, and WCAG AA asks for at least 4.5:1. Choose a darker shade.',
  );
  // #767676 passes on white (4.54) but not on the page's #f4f5f7 (4.16): refused, said 4.16.
  const grey = brand('#767676');
  assert.ok('problems' in grey);
  assert.match(say(grey.problems.accent as never, en), /reach only 4\.16:1/);
  const unreadable = brand('not a colour');
  assert.ok('problems' in unreadable);
  assert.equal(
    say(unreadable.problems.accent as never, en),
    'Write the colour as # and six hexadecimal digits, such as #1d56c8.',
  );
});

test('a display name is trimmed, at most 100 characters, and drawable in the signed PDF', () => {
  assert.deepEqual(checkBrand({ displayName: '  Acme GmbH ', accent: '', sentWithSignet: false }), {
    brand: { displayName: 'Acme GmbH', accent: null },
  });
  const long = checkBrand({ displayName: 'x'.repeat(101), accent: '', sentWithSignet: true });
  assert.ok('problems' in long);
  assert.equal(say(long.problems.displayName as never, en), 'Use at most 100 characters.');
  const undrawable = checkBrand({ displayName: 'Acme \uE000', accent: '', sentWithSignet: true });
  assert.ok('problems' in undrawable);
  assert.match(say(undrawable.problems.displayName as never, en), /cannot show/);
  assert.deepEqual(checkBrand({ displayName: 'Łódź Sp. z o.o.', accent: '#0b6e4f', sentWithSignet: true }), {
    brand: { displayName: 'Łódź Sp. z o.o.', accent: '#0b6e4f' },
  });
});
