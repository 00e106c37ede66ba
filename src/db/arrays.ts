// PostgreSQL array literals for batch statements (`unnest($1::uuid[], …)`, `= any($1)`):
// one parameter per column instead of one per value keeps the statement text constant
// (prepared once) and cheap to build, on PostgreSQL and PGlite alike.

const needsEscape = /["\\]/;

/**
 * `{"a","b",NULL}` with every element quoted and backslashes and quotes escaped. Built in
 * one pass that escapes only what needs it: the delivery engine builds a dozen of these
 * per batch, mostly of UUIDs and numbers.
 */
export function pgArray(values: ReadonlyArray<string | number | boolean | null>): string {
  let literal = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (i > 0) literal += ',';
    if (value === null || value === undefined) {
      literal += 'NULL';
      continue;
    }
    const text = String(value);
    literal += needsEscape.test(text)
      ? `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
      : `"${text}"`;
  }
  return `${literal}}`;
}
