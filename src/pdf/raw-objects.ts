// A small reader of PDF objects (ISO 32000 7.3) straight from raw bytes, bounded in depth, size
// and length, for the reader of signatures (verify.ts) and of the revision a signature covers
// (seal-revision.ts): a dictionary at an offset, the object header nearest before an offset, and
// the text strings and dates found there. Hostile input makes a reader fail with SyntaxFault (or
// a RangeError), never backtrack or recurse without a bound.
import { hexValue, isRegular, isWhite } from './syntax.ts';

// What one object may cost: names and reasons are short, so longer strings are not read.
const limits = {
  dictionaryBytes: 1024 * 1024,
  stringBytes: 64 * 1024,
  depth: 16,
  elements: 10_000,
};

export type PdfValue =
  | { kind: 'dict'; entries: Map<string, PdfValue> }
  | { kind: 'array'; items: PdfValue[] }
  | { kind: 'name'; value: string }
  | { kind: 'string'; bytes: Uint8Array; skipped?: true }
  | { kind: 'number'; value: number }
  | { kind: 'ref'; num: number; gen: number }
  | { kind: 'keyword'; value: string };

export class SyntaxFault extends Error {}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39;
}

export type Span = { start: number; end: number };

export class Reader {
  pos: number;
  private elements = 0;
  private readonly bytes: Buffer;
  private readonly end: number;
  private readonly skip: Span | null;
  // `skip`: a hex string (a signature's /Contents) stepped over unread, however long it is.
  constructor(bytes: Buffer, start: number, end: number, skip: Span | null = null) {
    this.bytes = bytes;
    this.pos = start;
    this.end = end;
    this.skip = skip;
  }

  private peek(ahead = 0): number | undefined {
    const at = this.pos + ahead;
    return at < this.end ? this.bytes[at] : undefined;
  }

  skipWhite(): void {
    while (this.pos < this.end) {
      const c = this.bytes[this.pos];
      if (isWhite(c)) this.pos++;
      else if (c === 0x25) {
        while (this.pos < this.end && this.bytes[this.pos] !== 0x0a && this.bytes[this.pos] !== 0x0d)
          this.pos++;
      } else return;
    }
  }

  private count(): void {
    if (++this.elements > limits.elements) throw new SyntaxFault('too many elements');
  }

  private regularRun(): string {
    const start = this.pos;
    while (isRegular(this.peek())) this.pos++;
    return this.bytes.toString('latin1', start, this.pos);
  }

  readUnsigned(): number | null {
    const start = this.pos;
    while (isDigit(this.peek()) && this.pos - start < 12) this.pos++;
    if (this.pos === start || isRegular(this.peek())) return null;
    return Number(this.bytes.toString('latin1', start, this.pos));
  }

  value(depth = 0): PdfValue {
    if (depth > limits.depth) throw new SyntaxFault('nested too deeply');
    this.count();
    this.skipWhite();
    const c = this.peek();
    if (c === 0x3c && this.peek(1) === 0x3c) return this.dictionary(depth);
    if (c === 0x3c) return this.hexString();
    if (c === 0x28) return this.literalString();
    if (c === 0x5b) return this.array(depth);
    if (c === 0x2f) return this.name();
    if (c === undefined) throw new SyntaxFault('unexpected end');
    if (isDigit(c) || c === 0x2b || c === 0x2d || c === 0x2e) return this.numberOrRef();
    const word = this.regularRun();
    if (word === 'true' || word === 'false' || word === 'null') return { kind: 'keyword', value: word };
    throw new SyntaxFault('unexpected token');
  }

  private dictionary(depth: number): PdfValue {
    this.pos += 2;
    const entries = new Map<string, PdfValue>();
    for (;;) {
      this.skipWhite();
      if (this.peek() === 0x3e && this.peek(1) === 0x3e) {
        this.pos += 2;
        return { kind: 'dict', entries };
      }
      const key = this.value(depth + 1);
      if (key.kind !== 'name') throw new SyntaxFault('dictionary key is not a name');
      entries.set(key.value, this.value(depth + 1));
    }
  }

  private array(depth: number): PdfValue {
    this.pos++;
    const items: PdfValue[] = [];
    for (;;) {
      this.skipWhite();
      if (this.peek() === 0x5d) {
        this.pos++;
        return { kind: 'array', items };
      }
      items.push(this.value(depth + 1));
    }
  }

  private name(): PdfValue {
    this.pos++;
    const raw = this.regularRun();
    return {
      kind: 'name',
      value: raw.replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
    };
  }

  private numberOrRef(): PdfValue {
    const start = this.pos;
    const text = this.regularRun();
    const value = Number(text);
    if (!Number.isFinite(value)) throw new SyntaxFault('bad number');
    if (/^\d+$/.test(text)) {
      // 'num gen R' is a reference; anything else leaves the reader after the number.
      const after = this.pos;
      this.skipWhite();
      const gen = this.readUnsigned();
      this.skipWhite();
      if (gen !== null && this.peek() === 0x52 && !isRegular(this.peek(1))) {
        this.pos++;
        return { kind: 'ref', num: value, gen };
      }
      this.pos = after;
    }
    if (this.pos === start) throw new SyntaxFault('empty number');
    return { kind: 'number', value };
  }

  private hexString(): PdfValue {
    if (this.skip && this.pos === this.skip.start) {
      this.pos = this.skip.end;
      return { kind: 'string', bytes: new Uint8Array(0), skipped: true };
    }
    this.pos++;
    const close = this.bytes.indexOf(0x3e, this.pos);
    if (close < 0 || close >= this.end) throw new SyntaxFault('unterminated hex string');
    if (close - this.pos > limits.stringBytes * 2) throw new SyntaxFault('hex string too long');
    const digits: number[] = [];
    for (let at = this.pos; at < close; at++) {
      const c = this.bytes[at] ?? 0;
      if (isWhite(c)) continue;
      const v = hexValue(c);
      if (v < 0) throw new SyntaxFault('bad hex digit');
      digits.push(v);
    }
    if (digits.length % 2) digits.push(0);
    const bytes = new Uint8Array(digits.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = ((digits[2 * i] ?? 0) << 4) | (digits[2 * i + 1] ?? 0);
    this.pos = close + 1;
    return { kind: 'string', bytes };
  }

  private literalString(): PdfValue {
    this.pos++;
    const out: number[] = [];
    let nesting = 1;
    const escapes: Record<number, number> = { 110: 0x0a, 114: 0x0d, 116: 0x09, 98: 0x08, 102: 0x0c };
    while (this.pos < this.end) {
      const c = this.bytes[this.pos++] ?? 0;
      if (c === 0x5c) {
        const e = this.bytes[this.pos++] ?? 0;
        if (escapes[e] !== undefined) out.push(escapes[e]);
        else if (e >= 0x30 && e <= 0x37) {
          let octal = e - 0x30;
          for (let i = 0; i < 2 && (this.peek() ?? 0) >= 0x30 && (this.peek() ?? 0) <= 0x37; i++) {
            octal = octal * 8 + ((this.bytes[this.pos++] ?? 0x30) - 0x30);
          }
          out.push(octal & 0xff);
        } else if (e === 0x0d) {
          if (this.peek() === 0x0a) this.pos++;
        } else if (e !== 0x0a) out.push(e);
      } else if (c === 0x28) {
        nesting++;
        out.push(c);
      } else if (c === 0x29) {
        if (--nesting === 0) return { kind: 'string', bytes: new Uint8Array(out) };
        out.push(c);
      } else out.push(c);
      if (out.length > limits.stringBytes) throw new SyntaxFault('string too long');
    }
    throw new SyntaxFault('unterminated string');
  }
}

// PDFDocEncoding differs from Latin-1 only in 0x18–0x1F and 0x80–0x9F (ISO 32000 Annex D.2).
const pdfDocHigh =
  '\u2022\u2020\u2021\u2026\u2014\u2013\u0192\u2044\u2039\u203a\u2212\u2030\u201e\u201c\u201d\u2018' +
  '\u2019\u201a\u2122\ufb01\ufb02\u0141\u0152\u0160\u0178\u017d\u0131\u0142\u0153\u0161\u017e\ufffd';
const pdfDocLow = '\u02d8\u02c7\u02c6\u02d9\u02dd\u02db\u02da\u02dc';

/** A PDF text string (ISO 32000 7.9.2.2): UTF-16BE or UTF-8 with a byte order mark, else PDFDocEncoding. */
export function decodePdfText(bytes: Uint8Array): string {
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    return Buffer.from(bytes.subarray(2 + (bytes.length % 2)))
      .swap16()
      .toString('utf16le');
  }
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return Buffer.from(bytes.subarray(3)).toString('utf8');
  let text = '';
  for (const b of bytes) {
    if (b >= 0x80 && b <= 0x9f) text += pdfDocHigh[b - 0x80];
    else if (b >= 0x18 && b <= 0x1f) text += pdfDocLow[b - 0x18];
    else text += String.fromCharCode(b);
  }
  return text;
}

/** A PDF date (D:YYYYMMDDHHmmSSOHH'mm', every part after the year optional) as a Date, or null. */
export function parsePdfDate(text: string): Date | null {
  const match =
    /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:([Zz+-])(\d{2})?'?(\d{2})?'?)?$/.exec(
      text.trim(),
    );
  if (!match) return null;
  const [
    ,
    year,
    month = '01',
    day = '01',
    hour = '00',
    minute = '00',
    second = '00',
    sign,
    oh = '00',
    om = '00',
  ] = match;
  const utc = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    Number(second),
  );
  const offsetMinutes =
    sign === '+' || sign === '-' ? (Number(oh) * 60 + Number(om)) * (sign === '+' ? 1 : -1) : 0;
  const date = new Date(utc - offsetMinutes * 60_000);
  return Number.isNaN(date.getTime()) ? null : date;
}

// ---- Finding objects in the raw bytes ----

// The object header 'num gen obj' nearest before `from`, looked for within `window` bytes.
export function objectHeaderBefore(
  bytes: Buffer,
  from: number,
  window: number,
): { num: number; gen: number; body: number } | null {
  let at = from;
  const floor = Math.max(0, from - window);
  while (at > floor) {
    const hit = bytes.lastIndexOf('obj', at - 1, 'latin1');
    if (hit < floor || hit < 0) return null;
    at = hit;
    if (isRegular(bytes[hit + 3])) continue;
    // Walk back over 'num ws gen ws': digits and whitespace only, each run a few bytes at most.
    let p = hit - 1;
    if (!isWhite(bytes[p])) continue;
    for (let run = 0; p > 0 && isWhite(bytes[p]) && run < 32; run++) p--;
    const genEnd = p + 1;
    while (p >= 0 && isDigit(bytes[p]) && genEnd - p <= 5) p--;
    const genStart = p + 1;
    if (genStart === genEnd || !isWhite(bytes[p])) continue;
    for (let run = 0; p > 0 && isWhite(bytes[p]) && run < 32; run++) p--;
    const numEnd = p + 1;
    while (p >= 0 && isDigit(bytes[p]) && numEnd - p <= 10) p--;
    const numStart = p + 1;
    if (numStart === numEnd || (p >= 0 && isRegular(bytes[p]))) continue;
    return {
      num: Number(bytes.toString('latin1', numStart, numEnd)),
      gen: Number(bytes.toString('latin1', genStart, genEnd)),
      body: hit + 3,
    };
  }
  return null;
}

/** The dictionary at `start`, `contents` (a signature's /Contents) stepped over unread; null when it is not one. */
export function readDictionaryAt(
  bytes: Buffer,
  start: number,
  contents: Span | null = null,
): Map<string, PdfValue> | null {
  try {
    const extra = contents ? contents.end - contents.start : 0;
    const end = Math.min(bytes.length, start + limits.dictionaryBytes + extra);
    const reader = new Reader(bytes, start, end, contents);
    const value = reader.value();
    return value.kind === 'dict' ? value.entries : null;
  } catch (error) {
    if (error instanceof SyntaxFault || error instanceof RangeError) return null;
    throw error;
  }
}

export function textEntry(dict: Map<string, PdfValue> | null, key: string): string | null {
  const value = dict?.get(key);
  return value?.kind === 'string' ? decodePdfText(value.bytes) : null;
}

export function nameEntry(dict: Map<string, PdfValue> | null, key: string): string | null {
  const value = dict?.get(key);
  return value?.kind === 'name' ? value.value : null;
}

export function numbersOf(value: PdfValue | undefined): number[] | null {
  if (value?.kind !== 'array') return null;
  const numbers = value.items.map((item) => (item.kind === 'number' ? item.value : Number.NaN));
  return numbers.every(Number.isInteger) ? numbers : null;
}

// The dictionary that holds a signature is the one whose /Contents is the gap between its
// ranges: another dictionary with the same /ByteRange text (planted earlier in the file, where
// the uploader writes what they like) is not it, however early it comes.
export function holdsContents(dict: Map<string, PdfValue> | null): boolean {
  const contents = dict?.get('Contents');
  return contents?.kind === 'string' && contents.skipped === true;
}
