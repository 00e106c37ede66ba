// The one form parser of every HTML page (src/ui/forms.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formList, formText, parseForm } from '../../src/ui/forms.ts';

test('a form keeps each field, a repeated field as a list, and drops U+0000', () => {
  const form = parseForm('name=Ann%00+Lee&events=a&events=b&empty=');
  assert.equal(formText(form, 'name'), 'Ann Lee');
  assert.deepEqual(formList(form, 'events'), ['a', 'b']);
  assert.equal(formText(form, 'events'), '', 'a repeated field is not one value');
  assert.equal(formText(form, 'empty'), '');
  assert.deepEqual(formList(form, 'missing'), []);
});

test('fields named __proto__, constructor or toString are fields, and change no prototype', () => {
  const form = parseForm('__proto__=x&__proto__=y&constructor=c&toString=t');
  assert.deepEqual(formList(form, '__proto__'), ['x', 'y']);
  assert.equal(formText(form, 'constructor'), 'c');
  assert.equal(formText(form, 'toString'), 't');
  assert.equal(Object.getPrototypeOf(form), null);
  assert.equal(
    formText(parseForm(''), 'constructor'),
    '',
    'an absent field is empty, not a prototype member',
  );
  assert.equal(({} as Record<string, unknown>).x, undefined);
});
