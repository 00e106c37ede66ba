// PostgreSQL array literals for batch statements (`unnest($1::uuid[], …)`, `= any($1)`):
// one parameter per column instead of one per value keeps the statement text constant
// (prepared once) and cheap to build, on PostgreSQL and PGlite alike.

/** `{"a","b",NULL}` with every element quoted and backslashes and quotes escaped. */
export function pgArray(values: ReadonlyArray<string | number | boolean | null>): string {
  const items = values.map((value) =>
    value === null ? 'NULL' : `"${String(value).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`,
  );
  return `{${items.join(',')}}`;
}
