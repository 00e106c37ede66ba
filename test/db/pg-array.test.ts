// pgArray feeds batch statements: every string must come back from PostgreSQL exactly
// as it went in, whatever quotes, backslashes, commas, braces or NULLs it holds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { pgArray } from '../../src/db/arrays.ts';
import { describeEachDatabase, useHarness } from '../support/harness.ts';

const awkward = [
  'plain',
  '',
  'a,b',
  '{braces}',
  '"quoted"',
  'back\\slash',
  'NULL',
  ' spaces ',
  'ünïcødé ✓',
  '\\"',
  'line\nbreak',
];

test('pgArray quotes every element and writes null as NULL', () => {
  assert.equal(pgArray(['a', null, 'b"c', 'd\\e']), '{"a",NULL,"b\\"c","d\\\\e"}');
  assert.equal(pgArray([]), '{}');
  assert.equal(pgArray([1, 2]), '{"1","2"}');
});

describeEachDatabase('pgArray through the database', (kind) => {
  const h = useHarness(kind);
  test('awkward strings and nulls come back unchanged', async () => {
    const values = [...awkward, null];
    const result = await sql<{ value: string | null; n: number }>`
      select value, n::int as n from unnest(${pgArray(values)}::text[]) with ordinality as t(value, n) order by n
    `.execute(h.ctx.db);
    assert.deepEqual(
      result.rows.map((r) => r.value),
      values,
    );
  });
});
