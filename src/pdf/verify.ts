// Reads every signature in a PDF and says whether each still holds: what /verify, `signet
// verify` and the tests ask of a file. Anyone may upload anything here, so this module does not
// parse the document with a PDF library (which would inflate every object stream, a
// decompression bomb's door) but scans the raw bytes: a signature's /ByteRange and /Contents
// must sit uncompressed in the file for the signature to be checkable at all, so a scan for
// /ByteRange finds every signature there is. Work is linear in the file's size and capped per
// file; nothing here backtracks, recurses without a bound, or throws on hostile input.
import { inflateSync } from 'node:zlib';
import * as pkijs from 'pkijs';
import { type CmsCheck, certificateNames, readSealContainer, type SealContainer, verifyCms } from './cms.ts';
import { type CertificateDescription, describeCertificate } from './seal-identity.ts';
import { isRegular, isWhite } from './syntax.ts';
import { readTimestampToken, type TimestampCheck } from './timestamp.ts';

/**
 * What the last revision a signature covers says, read only from objects that revision defines
 * (the ones its final cross-reference section lists), never from earlier bytes: the signature
 * dictionary whose /Contents is this signature, and the one field Signet writes beside it (a
 * widget of exactly Signet's keys whose /V is that dictionary). For a Signet seal, that revision
 * is the one Signet wrote, so these are Signet's words, not the uploader's.
 */
export type SealRevision = {
  fieldName: string | null; // null when no such field, or more than one, is defined there
  reason: string | null;
  signedAt: Date | null;
};

export type SealSignature = {
  fieldName: string | null; // the first field in the file naming it: the uploader's word for anything before the seal
  revision: SealRevision | null; // null when the signature dictionary is not an object of the last revision it covers
  name: string | null;
  reason: string | null;
  location: string | null;
  signedAt: Date | null; // the signature dictionary's /M
  subFilter: string | null;
  byteRange: [number, number, number, number];
  certificate: CertificateDescription | null;
  certificateDer: Uint8Array | null;
  signatureValid: boolean; // the signer's signature verifies with the certificate it carries
  digestMatches: boolean; // the signed byte ranges are unchanged
  intact: boolean; // both, and /ByteRange is well formed and lies within the file
  coversWholeFile: boolean; // /ByteRange runs from the first byte to the last: nothing appended
  timestamp: TimestampCheck | null; // an RFC 3161 signature time-stamp (B-T), or the document time-stamp itself
  signatureDer: Uint8Array | null; // the CMS, without the padding after it
  // Its parts when /Contents is exactly what Signet writes: upper-case hex of the DER that
  // createCadesSignature makes of them, then only zeros, the certificates after the first a chain.
  container: SealContainer | null;
  problem: string | null;
};

export type SealReport =
  | { isPdf: true; bytes: number; signatures: SealSignature[]; truncated: boolean }
  | { isPdf: false; problem: string; signatures: [] };

export type SealVerdict = {
  // `seal-holds`: one of ours verifies over every byte of the file but its /Contents (whether
  // those are the bytes it was issued with is the installation's question: verification.service.ts).
  verdict: 'seal-holds' | 'changed-after-sealing' | 'not-sealed-here';
  signature: SealSignature | null;
};

// Caps that keep a hostile file's cost bounded: checking a signature hashes up to the whole
// file, so at most `maxSignatures` are checked; the cheaper scans stop after so many hits.
const limits = {
  maxSignatures: 32,
  maxByteRangeHits: 1000,
  maxReferenceHits: 100_000,
  objectHeaderWindow: 64 * 1024,
  dictionaryBytes: 1024 * 1024,
  stringBytes: 64 * 1024, // names and reasons are short; longer strings are not read
  depth: 16,
  elements: 10_000,
};

// ---- A small reader for PDF objects (ISO 32000 7.3), bounded in depth, size and length ----

type PdfValue =
  | { kind: 'dict'; entries: Map<string, PdfValue> }
  | { kind: 'array'; items: PdfValue[] }
  | { kind: 'name'; value: string }
  | { kind: 'string'; bytes: Uint8Array; skipped?: true }
  | { kind: 'number'; value: number }
  | { kind: 'ref'; num: number; gen: number }
  | { kind: 'keyword'; value: string };

class SyntaxFault extends Error {}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

type Span = { start: number; end: number };

class Reader {
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

// ---- Finding things in the raw bytes ----

// The object header 'num gen obj' nearest before `from`, looked for within `window` bytes.
function objectHeaderBefore(
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

function readDictionaryAt(
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

function textEntry(dict: Map<string, PdfValue> | null, key: string): string | null {
  const value = dict?.get(key);
  return value?.kind === 'string' ? decodePdfText(value.bytes) : null;
}

function nameEntry(dict: Map<string, PdfValue> | null, key: string): string | null {
  const value = dict?.get(key);
  return value?.kind === 'name' ? value.value : null;
}

type Candidate = {
  byteRange: [number, number, number, number];
  dict: Map<string, PdfValue> | null;
  objectKey: string | null; // 'num gen' of the signature dictionary
};

function readByteRange(bytes: Buffer, at: number): [number, number, number, number] | null {
  const reader = new Reader(bytes, at, Math.min(bytes.length, at + 256));
  reader.skipWhite();
  if (bytes[reader.pos] !== 0x5b) return null;
  reader.pos++;
  const numbers: number[] = [];
  for (let i = 0; i < 4; i++) {
    reader.skipWhite();
    const n = reader.readUnsigned();
    if (n === null) return null;
    numbers.push(n);
  }
  reader.skipWhite();
  if (bytes[reader.pos] !== 0x5d) return null;
  return numbers as [number, number, number, number];
}

// The dictionary that holds a signature is the one whose /Contents is the gap between its
// ranges: another dictionary with the same /ByteRange text (planted earlier in the file, where
// the uploader writes what they like) is not it, however early it comes.
function holdsContents(dict: Map<string, PdfValue> | null): boolean {
  const contents = dict?.get('Contents');
  return contents?.kind === 'string' && contents.skipped === true;
}

function findCandidates(bytes: Buffer): { candidates: Candidate[]; truncated: boolean } {
  const candidates: Candidate[] = [];
  const seen = new Map<string, number>();
  let hits = 0;
  for (
    let at = bytes.indexOf('/ByteRange', 0, 'latin1');
    at >= 0;
    at = bytes.indexOf('/ByteRange', at + 10, 'latin1')
  ) {
    if (++hits > limits.maxByteRangeHits || candidates.length >= limits.maxSignatures) {
      return { candidates, truncated: true };
    }
    if (isRegular(bytes[at + 10])) continue;
    const byteRange = readByteRange(bytes, at + 10);
    if (!byteRange) continue;
    const key = byteRange.join(' ');
    const earlier = seen.get(key);
    if (earlier !== undefined && holdsContents(candidates[earlier]?.dict ?? null)) continue;
    // When /Contents comes before /ByteRange, the object header lies before the hex string;
    // either way the dictionary may be as long as the hex string plus its other entries.
    const [offset1, length1, offset2] = byteRange;
    const gapStart = offset1 + length1;
    const gapBefore = offset2 <= at && gapStart < at;
    const header = objectHeaderBefore(bytes, gapBefore ? gapStart : at, limits.objectHeaderWindow);
    const contents = gapStart < offset2 && offset2 <= bytes.length ? { start: gapStart, end: offset2 } : null;
    const dict = header ? readDictionaryAt(bytes, header.body, contents) : null;
    const own = dict?.get('ByteRange');
    const matches =
      own?.kind === 'array' && own.items.map((i) => (i.kind === 'number' ? i.value : -1)).join(' ') === key;
    const candidate = {
      byteRange,
      dict: matches ? dict : null,
      objectKey: matches && header ? `${header.num} ${header.gen}` : null,
    };
    if (earlier === undefined) {
      seen.set(key, candidates.length);
      candidates.push(candidate);
    } else if (holdsContents(candidate.dict)) candidates[earlier] = candidate;
  }
  return { candidates, truncated: false };
}

// ---- The last revision a signature covers, read by its own cross-reference section ----

// Signet's revision defines a handful of objects (the signature, its field and appearance, the
// page, catalog and form it touches, an object stream, the cross-reference stream).
const maxRevisionObjects = 64;
const maxXrefStreamBytes = 64 * 1024;

type ObjectEntry = { num: number; gen: number; offset: number };

// The final 'startxref N %%EOF' before `end` (the bytes the signature covers end there).
function lastStartXref(bytes: Buffer, end: number): number | null {
  // Looked for in the last 1024 bytes only (ISO 32000 7.5.5), however many signatures ask.
  const floor = Math.max(0, end - 1024);
  const found = bytes.subarray(floor, end).lastIndexOf('startxref', undefined, 'latin1');
  if (found < 0) return null;
  const at = floor + found;
  const match = /^startxref[\0\t\n\f\r ]+(\d{1,12})[\0\t\n\f\r ]+%%EOF[\0\t\n\f\r ]*$/.exec(
    bytes.toString('latin1', at, end),
  );
  return match ? Number(match[1]) : null;
}

// The entries of a cross-reference table ('xref', subsections, 'trailer'): objects in use only.
function tableEntries(bytes: Buffer, at: number, end: number): ObjectEntry[] | null {
  const reader = new Reader(bytes, at + 4, end);
  const entries: ObjectEntry[] = [];
  for (;;) {
    reader.skipWhite();
    if (bytes.toString('latin1', reader.pos, reader.pos + 7) === 'trailer') return entries;
    const first = reader.readUnsigned();
    reader.skipWhite();
    const count = reader.readUnsigned();
    if (first === null || count === null || entries.length + count > maxRevisionObjects * 2) return null;
    for (let i = 0; i < count; i++) {
      reader.skipWhite();
      const offset = reader.readUnsigned();
      reader.skipWhite();
      const gen = reader.readUnsigned();
      reader.skipWhite();
      const kind = bytes[reader.pos++];
      if (offset === null || gen === null || (kind !== 0x6e && kind !== 0x66)) return null;
      if (kind === 0x6e) entries.push({ num: first + i, gen, offset });
    }
  }
}

function numbersOf(value: PdfValue | undefined): number[] | null {
  if (value?.kind !== 'array') return null;
  const numbers = value.items.map((item) => (item.kind === 'number' ? item.value : Number.NaN));
  return numbers.every(Number.isInteger) ? numbers : null;
}

// The entries of a cross-reference stream (ISO 32000 7.5.8): type 1 (uncompressed objects)
// only, since Signet writes its signature and field uncompressed. Flate without a predictor,
// as pdf-lib writes it; any other form is not read (and the revision says nothing).
function streamEntries(bytes: Buffer, at: number, end: number): ObjectEntry[] | null {
  const reader = new Reader(bytes, at, end);
  if (reader.readUnsigned() === null) return null;
  reader.skipWhite();
  if (reader.readUnsigned() === null) return null;
  reader.skipWhite();
  if (bytes.toString('latin1', reader.pos, reader.pos + 3) !== 'obj') return null;
  reader.pos += 3;
  const dict = reader.value();
  if (dict.kind !== 'dict' || nameEntry(dict.entries, 'Type') !== 'XRef') return null;
  const filter = dict.entries.get('Filter');
  const length = dict.entries.get('Length');
  const widths = numbersOf(dict.entries.get('W'));
  if (dict.entries.has('DecodeParms') || length?.kind !== 'number' || length.value > maxXrefStreamBytes)
    return null;
  if (filter !== undefined && nameEntry(dict.entries, 'Filter') !== 'FlateDecode') return null;
  if (widths?.length !== 3 || widths.some((w) => w < 0 || w > 8)) return null;
  const size = dict.entries.get('Size');
  const index = numbersOf(dict.entries.get('Index')) ?? (size?.kind === 'number' ? [0, size.value] : null);
  reader.skipWhite();
  if (!index || index.length % 2 || bytes.toString('latin1', reader.pos, reader.pos + 6) !== 'stream')
    return null;
  let data = reader.pos + 6;
  if (bytes[data] === 0x0d) data++;
  if (bytes[data] !== 0x0a || data + 1 + length.value > end) return null;
  const raw = bytes.subarray(data + 1, data + 1 + length.value);
  const table = filter ? inflateSync(raw, { maxOutputLength: maxXrefStreamBytes }) : raw;
  const [w1, w2, w3] = widths as [number, number, number];
  const row = w1 + w2 + w3;
  const field = (from: number, width: number, fallback: number) => {
    if (width === 0) return fallback;
    let value = 0;
    for (let i = 0; i < width; i++) value = value * 256 + (table[from + i] ?? 0);
    return value;
  };
  const entries: ObjectEntry[] = [];
  let rowAt = 0;
  for (let i = 0; i < index.length; i += 2) {
    const [first, count] = [index[i] as number, index[i + 1] as number];
    if (count < 0 || count > maxRevisionObjects * 2) return null;
    for (let n = 0; n < count; n++, rowAt += row) {
      if (rowAt + row > table.length) return null;
      if (field(rowAt, w1, 1) === 1) {
        entries.push({
          num: first + n,
          offset: field(rowAt + w1, w2, 0),
          gen: field(rowAt + w1 + w2, w3, 0),
        });
      }
    }
  }
  return entries;
}

// The objects the last section before `end` defines, each read at its offset as 'num gen obj'.
function revisionObjects(
  bytes: Buffer,
  end: number,
  contents: Span,
): Map<string, Map<string, PdfValue>> | null {
  const xref = lastStartXref(bytes, end);
  if (xref === null || xref >= end) return null;
  const entries =
    bytes.toString('latin1', xref, xref + 4) === 'xref'
      ? tableEntries(bytes, xref, end)
      : streamEntries(bytes, xref, end);
  if (!entries || entries.length > maxRevisionObjects) return null;
  const objects = new Map<string, Map<string, PdfValue>>();
  for (const { num, gen, offset } of entries) {
    if (offset >= end) return null;
    const reader = new Reader(bytes, offset, end);
    if (reader.readUnsigned() !== num) continue;
    reader.skipWhite();
    if (reader.readUnsigned() !== gen) continue;
    reader.skipWhite();
    if (bytes.toString('latin1', reader.pos, reader.pos + 3) !== 'obj') continue;
    const dict = readDictionaryAt(bytes, reader.pos + 3, contents);
    if (dict) objects.set(`${num} ${gen}`, dict);
  }
  return objects;
}

const signetWidgetKeys = ['AP', 'F', 'FT', 'P', 'Rect', 'Subtype', 'T', 'Type', 'V'].join(' ');

/** What the last revision `byteRange` covers says about its signature (see SealRevision). Never throws. */
function readSealRevision(bytes: Buffer, byteRange: [number, number, number, number]): SealRevision | null {
  const [offset1, length1, offset2, length2] = byteRange;
  const contents = { start: offset1 + length1, end: offset2 };
  let objects: Map<string, Map<string, PdfValue>> | null;
  try {
    objects = revisionObjects(bytes, offset2 + length2, contents);
  } catch (error) {
    if (
      error instanceof SyntaxFault ||
      error instanceof RangeError ||
      (error as { code?: string }).code?.startsWith('Z_')
    )
      return null;
    throw error;
  }
  if (!objects) return null;
  const range = byteRange.join(' ');
  const signatures = [...objects].filter(
    ([, dict]) => holdsContents(dict) && numbersOf(dict.get('ByteRange'))?.join(' ') === range,
  );
  const [signature] = signatures;
  if (!signature || signatures.length > 1) return null;
  const [signatureKey, dict] = signature;
  const fields = [...objects.values()].filter((widget) => {
    const value = widget.get('V');
    return (
      [...widget.keys()].sort().join(' ') === signetWidgetKeys &&
      nameEntry(widget, 'Type') === 'Annot' &&
      nameEntry(widget, 'Subtype') === 'Widget' &&
      nameEntry(widget, 'FT') === 'Sig' &&
      value?.kind === 'ref' &&
      `${value.num} ${value.gen}` === signatureKey
    );
  });
  return {
    fieldName: fields.length === 1 ? textEntry(fields[0] ?? null, 'T') : null,
    reason: textEntry(dict, 'Reason'),
    signedAt: parsePdfDate(textEntry(dict, 'M') ?? ''),
  };
}

// Field names: widgets whose /V points at a signature dictionary, read where they are
// uncompressed (Signet writes its own that way); a widget inside an object stream is not
// inflated, so its signature is reported without a field name.
function findFieldNames(bytes: Buffer, wanted: Set<string>): Map<string, string> {
  const names = new Map<string, string>();
  if (wanted.size === 0) return names;
  let hits = 0;
  for (let at = bytes.indexOf('/V', 0, 'latin1'); at >= 0; at = bytes.indexOf('/V', at + 2, 'latin1')) {
    if (++hits > limits.maxReferenceHits || names.size === wanted.size) break;
    if (isRegular(bytes[at + 2])) continue;
    const reader = new Reader(bytes, at + 2, Math.min(bytes.length, at + 64));
    reader.skipWhite();
    const num = reader.readUnsigned();
    reader.skipWhite();
    const gen = reader.readUnsigned();
    reader.skipWhite();
    if (num === null || gen === null || bytes[reader.pos] !== 0x52) continue;
    const key = `${num} ${gen}`;
    if (!wanted.has(key) || names.has(key)) continue;
    const header = objectHeaderBefore(bytes, at, limits.objectHeaderWindow);
    const widget = header ? readDictionaryAt(bytes, header.body) : null;
    const name = widget ? qualifiedName(bytes, widget) : null;
    if (name) names.set(key, name);
  }
  return names;
}

// A field's full name joins its ancestors' partial names with periods (ISO 32000 12.7.3.2).
function qualifiedName(bytes: Buffer, widget: Map<string, PdfValue>): string | null {
  const parts: string[] = [];
  let node: Map<string, PdfValue> | null = widget;
  for (let depth = 0; node && depth < 8; depth++) {
    const partial = textEntry(node, 'T');
    if (partial !== null) parts.unshift(partial);
    const parent = node.get('Parent');
    node = parent?.kind === 'ref' ? objectByNumber(bytes, parent.num, parent.gen) : null;
  }
  return parts.length ? parts.join('.') : null;
}

function objectByNumber(bytes: Buffer, num: number, gen: number): Map<string, PdfValue> | null {
  const header = `${num} ${gen} obj`;
  const at = bytes.lastIndexOf(header, bytes.length, 'latin1');
  if (at < 0 || (at > 0 && isRegular(bytes[at - 1]))) return null;
  return readDictionaryAt(bytes, at + header.length);
}

// ---- Checking each signature ----

// The hex string between the signed ranges: the DER it starts with (the CMS), and whether it is
// written as Signet writes it: upper-case hex digits only, the DER followed only by zeros.
function contentsOf(bytes: Buffer, from: number, to: number): { der: Uint8Array; asWritten: boolean } | null {
  if (bytes[from] !== 0x3c || bytes[to - 1] !== 0x3e) return null;
  let hex = bytes.toString('latin1', from + 1, to - 1);
  const upperHex = /^[0-9A-F]*$/.test(hex) && hex.length % 2 === 0;
  if (!/^[0-9a-fA-F]*$/.test(hex)) {
    hex = hex.replace(/[\0\t\n\f\r ]+/g, '');
    if (!/^[0-9a-fA-F]*$/.test(hex)) return null;
  }
  if (hex.length % 2) hex += '0';
  const decoded = Buffer.from(hex, 'hex');
  const length = derLength(decoded) ?? decoded.length;
  const paddedWithZeros = decoded.subarray(length).every((b) => b === 0);
  return {
    der: new Uint8Array(decoded.buffer, decoded.byteOffset, length),
    asWritten: upperHex && paddedWithZeros,
  };
}

// Each certificate after the first is the issuer of the one before it (its signature verifies
// with the next one's key): a chain, not room for anything else.
async function isChain(certificates: Uint8Array[]): Promise<boolean> {
  try {
    const parsed = certificates.map((der) =>
      pkijs.Certificate.fromBER(
        der.buffer.slice(der.byteOffset, der.byteOffset + der.byteLength) as ArrayBuffer,
      ),
    );
    for (let i = 1; i < parsed.length; i++) {
      if (!(await (parsed[i - 1] as pkijs.Certificate).verify(parsed[i]))) return false;
    }
    return true;
  } catch {
    return false;
  }
}

// The length of the DER element at the start (the zero padding after it is not part of the CMS).
function derLength(der: Uint8Array): number | null {
  const first = der[1];
  if (first === undefined) return null;
  if (first < 0x80) return Math.min(der.length, 2 + first);
  const count = first & 0x7f;
  if (count === 0 || count > 4) return null;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + (der[2 + i] ?? 0);
  return Math.min(der.length, 2 + count + length);
}

// A document time-stamp (/SubFilter /ETSI.RFC3161) is a TimeStampToken over the byte ranges;
// any other signature is a CMS over them, perhaps carrying a signature time-stamp.
async function checkContents(
  cms: Uint8Array,
  parts: Uint8Array[],
  subFilter: string | null,
): Promise<{ check: CmsCheck; timestamp: TimestampCheck | null }> {
  if (subFilter === 'ETSI.RFC3161') {
    const timestamp = await readTimestampToken(cms, parts);
    const check: CmsCheck = {
      signatureValid: timestamp.signatureValid,
      digestMatches: timestamp.imprintMatches,
      signerCertificate: timestamp.authorityCertificate,
      problem: timestamp.problem,
      signatureValue: null,
      timestampToken: cms,
    };
    return { check, timestamp };
  }
  const check = await verifyCms(cms, parts);
  const timestamp =
    check.timestampToken && check.signatureValue
      ? await readTimestampToken(check.timestampToken, [check.signatureValue])
      : null;
  return { check, timestamp };
}

async function checkSignature(
  bytes: Buffer,
  candidate: Candidate,
  fieldName: string | null,
): Promise<SealSignature | null> {
  const [offset1, length1, offset2, length2] = candidate.byteRange;
  const base = {
    fieldName,
    name: textEntry(candidate.dict, 'Name'),
    reason: textEntry(candidate.dict, 'Reason'),
    location: textEntry(candidate.dict, 'Location'),
    signedAt: parsePdfDate(textEntry(candidate.dict, 'M') ?? ''),
    subFilter: nameEntry(candidate.dict, 'SubFilter'),
    byteRange: candidate.byteRange,
    coversWholeFile: offset1 === 0 && offset2 + length2 === bytes.length,
  };
  const failed = (problem: string, extra: Partial<SealSignature> = {}): SealSignature => ({
    ...base,
    revision: null,
    certificate: null,
    certificateDer: null,
    signatureValid: false,
    digestMatches: false,
    intact: false,
    timestamp: null,
    signatureDer: null,
    container: null,
    problem,
    ...extra,
  });
  if (offset1 + length1 > offset2 || offset2 + length2 > bytes.length) {
    return failed('The signed byte ranges lie outside the file: it was cut short or rewritten.');
  }
  const contents = contentsOf(bytes, offset1 + length1, offset2);
  // '/ByteRange [...]' in some text, outside any signature dictionary, is not a signature.
  if (!contents && !candidate.dict) return null;
  if (!contents) return failed('The bytes between the signed ranges are not the signature alone.');
  const cms = contents.der;
  const parts = [bytes.subarray(offset1, offset1 + length1), bytes.subarray(offset2, offset2 + length2)];
  const { check, timestamp } = await checkContents(cms, parts, base.subFilter);
  const written = contents.asWritten && base.subFilter !== 'ETSI.RFC3161' ? readSealContainer(cms) : null;
  const container = written && (await isChain(written.certificates)) ? written : null;
  let certificate: CertificateDescription | null = null;
  try {
    certificate = check.signerCertificate ? describeCertificate(check.signerCertificate) : null;
  } catch {
    certificate = null;
  }
  const startsAtZero = offset1 === 0;
  return {
    ...base,
    certificate,
    certificateDer: check.signerCertificate,
    signatureValid: check.signatureValid,
    digestMatches: check.digestMatches,
    intact: check.signatureValid && check.digestMatches && startsAtZero,
    timestamp,
    signatureDer: cms,
    container,
    revision: readSealRevision(bytes, candidate.byteRange),
    problem: check.problem ?? (startsAtZero ? null : 'The signature does not cover the start of the file.'),
  };
}

function pdfProblem(bytes: Buffer): string | null {
  const header = bytes.indexOf('%PDF-', 0, 'latin1');
  if (header < 0 || header > 1024) return 'The file is not a PDF.';
  // ISO 32000 7.5.5: %%EOF ends the file (readers look for it within the last 1024 bytes).
  const eof = bytes.lastIndexOf('%%EOF', bytes.length, 'latin1');
  if (eof < 0 || eof < bytes.length - 1024 || eof < header) {
    return 'The PDF is incomplete: it does not end with %%EOF, so it was probably cut short.';
  }
  return null;
}

/** Every signature in `pdf`, each checked against the bytes it signs. Never throws. */
export async function inspectSeals(pdf: Uint8Array): Promise<SealReport> {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const problem = pdfProblem(bytes);
  if (problem) return { isPdf: false, problem, signatures: [] };
  const { candidates, truncated } = findCandidates(bytes);
  const objectKeys = new Set(candidates.flatMap((c) => (c.objectKey ? [c.objectKey] : [])));
  const fieldNames = findFieldNames(bytes, objectKeys);
  const signatures: SealSignature[] = [];
  for (const candidate of candidates) {
    const fieldName = candidate.objectKey ? (fieldNames.get(candidate.objectKey) ?? null) : null;
    const signature = await checkSignature(bytes, candidate, fieldName);
    if (signature) signatures.push(signature);
  }
  // In file order of what they sign: the earliest revision's signature first.
  signatures.sort((a, b) => a.byteRange[2] + a.byteRange[3] - (b.byteRange[2] + b.byteRange[3]));
  return { isPdf: true, bytes: bytes.length, signatures, truncated };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(
    Buffer.from(b.buffer, b.byteOffset, b.byteLength),
  );
}

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  return Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength).indexOf(needle) >= 0;
}

/**
 * Whether a signature that is not exactly ours looks like it once was: its certificate has the
 * public key of one of ours, or its subject and issuer; or, when no certificate can be read from
 * it, the signature's bytes still hold one of those. One changed byte cannot remove both.
 */
function resemblesOurs(signature: SealSignature, ourCertificates: Uint8Array[]): boolean {
  const theirs = signature.certificateDer ? certificateNames(signature.certificateDer) : null;
  return ourCertificates.some((certificate) => {
    const ours = certificateNames(certificate);
    if (!ours) return false;
    if (theirs) {
      return (
        sameBytes(theirs.publicKey, ours.publicKey) ||
        (sameBytes(theirs.subject, ours.subject) && sameBytes(theirs.issuer, ours.issuer))
      );
    }
    const der = signature.signatureDer;
    return (
      !!der && (contains(der, ours.publicKey) || (contains(der, ours.subject) && contains(der, ours.issuer)))
    );
  });
}

/**
 * What the signatures in a file say about one of `ourCertificates`: one of them verifies over
 * every byte but its /Contents (`seal-holds`); it was changed after sealing (a byte it covers
 * altered, anything appended, or the seal certificate inside it altered: a signature whose
 * certificate has our key or our names but is not ours byte for byte); or not sealed here.
 */
export function sealVerdict(report: SealReport, ourCertificates: Uint8Array[]): SealVerdict {
  const ours = report.signatures.filter(
    (s) =>
      s.signatureValid &&
      s.certificateDer &&
      ourCertificates.some((c) => sameBytes(c, s.certificateDer as Uint8Array)),
  );
  const holds = ours.findLast((s) => s.intact && s.coversWholeFile);
  if (holds) return { verdict: 'seal-holds', signature: holds };
  const latest = ours.at(-1) ?? report.signatures.findLast((s) => resemblesOurs(s, ourCertificates));
  if (latest) return { verdict: 'changed-after-sealing', signature: latest };
  return { verdict: 'not-sealed-here', signature: null };
}
