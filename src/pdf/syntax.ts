// **The** character classes of PDF syntax (ISO 32000-1, 7.2.2), for the readers Signet runs
// on raw bytes before or instead of a PDF library: the signatures of an untrusted file
// (raw-objects.ts, for verify.ts) and the decode budget (stream-scan.ts, stream-decoders.ts).

/** White space: NUL, tab, line feed, form feed, carriage return, space. */
export function isWhite(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;
}

/** Delimiters: ( ) < > [ ] { } / % */
export function isDelimiter(c: number | undefined): boolean {
  return (
    c === 0x28 ||
    c === 0x29 ||
    c === 0x3c ||
    c === 0x3e ||
    c === 0x5b ||
    c === 0x5d ||
    c === 0x7b ||
    c === 0x7d ||
    c === 0x2f ||
    c === 0x25
  );
}

/** Any other byte: part of a name, number or keyword. */
export function isRegular(c: number | undefined): boolean {
  return c !== undefined && !isWhite(c) && !isDelimiter(c);
}

/** The value of a hexadecimal digit (either case), or -1 for any other byte. */
export function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}
