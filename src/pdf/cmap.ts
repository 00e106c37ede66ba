// The CMaps the text-truth rule (text-truth.ts) reads, parsed from a stream's decoded bytes:
// a font's /ToUnicode (ISO 32000-1 9.10.3: `bfchar`, `bfrange` with a first destination or an
// array of them) and an embedded Type 0 /Encoding (9.7.5: `cidchar`, `cidrange`). Codes are
// taken by their value, as pdf.js and poppler apply a ToUnicode map; a later definition of a
// code replaces an earlier one. So `codespacerange` blocks are read past, not applied: a code's
// width matters to a reader splitting a shown string, not to what a code's entry says; a code
// is at most 4 bytes (9.7.6.2), and an entry with a longer one is skipped.
//
// Bounded whatever the file says: what a CMap may define is capped (`maxToUnicodeCodes`), and
// of a ToUnicode map only the codes whose text holds a character that matters are kept
// (`matters`), found in a range without walking it where the range is long.

/** Codes a CMap may define, counted over all its entries; past it the map is refused. */
export const maxCMapCodes = 1 << 20;

export class CMapTooLarge extends Error {}

// The characters whose reading must not differ from their drawing: any script's decimal
// digits, currency signs and the punctuation of amounts and dates. Dashes and slashes of
// other kinds count as the ASCII one (a glyph named `minus` read as "-" says the same).
const matter = /[\p{Nd}\p{Sc}.,:/+%-]/u;
const dashes = /[\u2010-\u2015\u2212\ufe63\uff0d]/gu;
const slashes = /[\u2044\u2215]/gu;

/** The characters of `text` that matter, in a form two honest spellings share; '' if none. */
export function matters(text: string): string {
  const plain = text.normalize('NFKC').replace(dashes, '-').replace(slashes, '/');
  let kept = '';
  for (const char of plain) if (matter.test(char)) kept += digitValue(char) ?? char;
  return kept;
}

// A decimal digit of any script by its value (Unicode encodes each script's ten digits in
// one ascending run from zero), so "three.ar" drawn and U+0663 read agree.
function digitValue(char: string): string | null {
  if (!/\p{Nd}/u.test(char)) return null;
  let code = char.codePointAt(0) as number;
  let offset = 0;
  while (code > 0 && /\p{Nd}/u.test(String.fromCodePoint(code - 1))) {
    code--;
    offset++;
  }
  return String(offset % 10);
}

let mattering: number[] | null = null;
/** The BMP code points whose text matters, ascending (made once, on the first long range). */
function matteringCodePoints(): number[] {
  if (mattering === null) {
    mattering = [];
    for (let code = 0; code < 0x10000; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      if (matters(String.fromCharCode(code)) !== '') mattering.push(code);
    }
  }
  return mattering;
}

type Token = { hex: Uint8Array } | { name: string } | { word: string } | '[' | ']';

function* tokens(data: Uint8Array): Generator<Token> {
  let at = 0;
  const n = data.length;
  const isWhite = (c: number) =>
    c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0;
  const isDelim = (c: number) =>
    c === 0x28 ||
    c === 0x29 ||
    c === 0x3c ||
    c === 0x3e ||
    c === 0x5b ||
    c === 0x5d ||
    c === 0x2f ||
    c === 0x25;
  while (at < n) {
    const c = data[at] as number;
    if (isWhite(c)) {
      at++;
    } else if (c === 0x25) {
      while (at < n && data[at] !== 0x0a && data[at] !== 0x0d) at++;
    } else if (c === 0x3c && data[at + 1] === 0x3c) {
      at += 2;
    } else if (c === 0x3e && data[at + 1] === 0x3e) {
      at += 2;
    } else if (c === 0x3c) {
      const bytes: number[] = [];
      let high = -1;
      at++;
      while (at < n && data[at] !== 0x3e) {
        const d = data[at++] as number;
        const v =
          d >= 0x30 && d <= 0x39
            ? d - 0x30
            : (d | 0x20) >= 0x61 && (d | 0x20) <= 0x66
              ? (d | 0x20) - 0x57
              : -1;
        if (v < 0) continue;
        if (high < 0) high = v;
        else {
          bytes.push(high * 16 + v);
          high = -1;
        }
      }
      if (high >= 0) bytes.push(high * 16);
      at++;
      yield { hex: Uint8Array.from(bytes) };
    } else if (c === 0x28) {
      // A literal string: CMaps here use hex strings; skip one, balanced, escapes honoured.
      let depth = 0;
      do {
        const d = data[at++];
        if (d === 0x5c) at++;
        else if (d === 0x28) depth++;
        else if (d === 0x29) depth--;
      } while (at < n && depth > 0);
      yield { word: '(string)' };
    } else if (c === 0x5b || c === 0x5d) {
      at++;
      yield c === 0x5b ? '[' : ']';
    } else if (c === 0x2f) {
      const start = ++at;
      while (at < n && !isWhite(data[at] as number) && !isDelim(data[at] as number)) at++;
      yield { name: Buffer.from(data.subarray(start, at)).toString('latin1') };
    } else {
      const start = at;
      while (at < n && !isWhite(data[at] as number) && !isDelim(data[at] as number)) at++;
      if (at === start) at++;
      yield { word: Buffer.from(data.subarray(start, at)).toString('latin1') };
    }
  }
}

const codeValue = (bytes: Uint8Array) => bytes.reduce((value, byte) => value * 256 + byte, 0);
const utf16 = (bytes: Uint8Array) => {
  let text = '';
  for (let k = 0; k + 1 < bytes.length; k += 2)
    text += String.fromCharCode(((bytes[k] as number) << 8) | (bytes[k + 1] as number));
  return text;
};

/** The codes of a ToUnicode map whose text matters, each with that text. */
export interface ToUnicode {
  mattering: Map<number, string>;
}

/** A Type 0 font's embedded encoding: code → CID. */
export interface CidEncoding {
  cidOf(code: number): number | undefined;
  /** True when it names another CMap (`usecmap`) whose codes are not read here. */
  incomplete: boolean;
}

class Counter {
  private count = 0;
  add(codes: number): void {
    this.count += codes;
    if (this.count > maxCMapCodes) throw new CMapTooLarge();
  }
}

const blockNames = new Set(
  ['codespacerange', 'bfchar', 'bfrange', 'cidchar', 'cidrange', 'notdefchar', 'notdefrange'].map(
    (name) => `begin${name}`,
  ),
);

/** Reads the operands before each operator of `data`, handing `section` each block's tokens. */
function sections(data: Uint8Array, section: (operator: string, operands: Token[]) => void): boolean {
  let operands: Token[] = [];
  let block: string | null = null;
  let usesOther = false;
  for (const token of tokens(data)) {
    if (typeof token === 'object' && 'word' in token) {
      const word = token.word;
      if (block === null && blockNames.has(word)) {
        block = word.slice('begin'.length);
        operands = [];
        continue;
      }
      if (block !== null && word === `end${block}`) {
        section(block, operands);
        block = null;
        operands = [];
        continue;
      }
      if (word === 'usecmap') usesOther = true;
      if (block === null) operands = [];
      else operands.push(token);
      continue;
    }
    operands.push(token);
    // Outside a block nothing is kept: a stray token list never grows.
    if (block === null && operands.length > 16) operands.shift();
  }
  return usesOther;
}

/** Pairs or triples of a block's operands, with arrays gathered; malformed entries are skipped. */
function entries(operands: Token[], width: number): Array<Array<Token | Token[]>> {
  const out: Array<Array<Token | Token[]>> = [];
  let row: Array<Token | Token[]> = [];
  let array: Token[] | null = null;
  for (const token of operands) {
    if (token === '[') {
      array = [];
      continue;
    }
    if (token === ']') {
      if (array !== null) row.push(array);
      array = null;
    } else if (array !== null) {
      array.push(token);
      continue;
    } else row.push(token);
    if (row.length === width) {
      out.push(row);
      row = [];
    }
  }
  return out;
}

const hexOf = (token: Token | Token[] | undefined) =>
  token !== undefined && !Array.isArray(token) && typeof token === 'object' && 'hex' in token
    ? token.hex
    : null;

// A code's width is 1 to 4 bytes (9.7.6.2); a longer one is no code any reader takes.
const codeBytes = (bytes: Uint8Array | null) =>
  bytes !== null && bytes.length >= 1 && bytes.length <= 4 ? bytes : null;

/** A ToUnicode CMap's codes whose text matters. Throws CMapTooLarge past `maxCMapCodes`. */
export function parseToUnicode(data: Uint8Array): ToUnicode {
  const kept = new Map<number, string>();
  const counter = new Counter();
  const set = (code: number, text: string) => {
    if (matters(text) !== '') kept.set(code, text);
    else kept.delete(code);
  };
  sections(data, (block, operands) => {
    if (block === 'bfchar') {
      for (const [source, target] of entries(operands, 2)) {
        const code = codeBytes(hexOf(source));
        const text = hexOf(target);
        if (code === null || text === null) continue;
        counter.add(1);
        set(codeValue(code), utf16(text));
      }
    } else if (block === 'bfrange') {
      for (const [low, high, target] of entries(operands, 3)) {
        const lo = codeBytes(hexOf(low));
        const hi = codeBytes(hexOf(high));
        if (lo === null || hi === null) continue;
        const first = codeValue(lo);
        const last = codeValue(hi);
        if (last < first) continue;
        const count = last - first + 1;
        counter.add(count);
        if (Array.isArray(target)) {
          target.slice(0, count).forEach((item, k) => {
            const text = hexOf(item);
            if (text !== null) set(first + k, utf16(text));
          });
          continue;
        }
        const start = hexOf(target);
        if (start === null || start.length === 0) continue;
        if (count <= 256 || start.length !== 2) {
          // The destination's last bytes count up with the code, as readers increment it.
          const base = codeValue(start);
          for (let k = 0; k < count; k++) {
            let value = base + k;
            const bytes = new Uint8Array(start.length);
            for (let b = start.length - 1; b >= 0; b--) {
              bytes[b] = value % 256;
              value = Math.floor(value / 256);
            }
            set(first + k, utf16(bytes));
          }
          continue;
        }
        // A long range of single characters: only the codes landing on a character that
        // matters are found (by search), and earlier definitions inside it are replaced.
        const base = codeValue(start);
        for (const code of [...kept.keys()]) if (code >= first && code <= last) kept.delete(code);
        const points = matteringCodePoints();
        let index = lowerBound(points, base);
        for (; index < points.length && (points[index] as number) <= base + count - 1; index++) {
          const point = points[index] as number;
          kept.set(first + point - base, String.fromCharCode(point));
        }
      }
    }
  });
  return { mattering: kept };
}

function lowerBound(sorted: number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** An embedded Type 0 encoding CMap. Throws CMapTooLarge past `maxCMapCodes`. */
export function parseCidEncoding(data: Uint8Array): CidEncoding {
  const single = new Map<number, number>();
  const ranges: Array<[number, number, number]> = [];
  const counter = new Counter();
  const usesOther = sections(data, (block, operands) => {
    if (block === 'cidchar') {
      for (const [source, cid] of entries(operands, 2)) {
        const code = codeBytes(hexOf(source));
        const value =
          cid !== undefined && !Array.isArray(cid) && typeof cid === 'object' && 'word' in cid
            ? Number(cid.word)
            : Number.NaN;
        if (code === null || !Number.isInteger(value)) continue;
        counter.add(1);
        single.set(codeValue(code), value);
      }
    } else if (block === 'cidrange') {
      for (const [low, high, cid] of entries(operands, 3)) {
        const lo = codeBytes(hexOf(low));
        const hi = codeBytes(hexOf(high));
        const value =
          cid !== undefined && !Array.isArray(cid) && typeof cid === 'object' && 'word' in cid
            ? Number(cid.word)
            : Number.NaN;
        if (lo === null || hi === null || !Number.isInteger(value) || codeValue(hi) < codeValue(lo)) continue;
        counter.add(codeValue(hi) - codeValue(lo) + 1);
        ranges.push([codeValue(lo), codeValue(hi), value]);
      }
    }
  });
  return {
    incomplete: usesOther,
    cidOf(code) {
      const direct = single.get(code);
      if (direct !== undefined) return direct;
      for (let k = ranges.length - 1; k >= 0; k--) {
        const [lo, hi, cid] = ranges[k] as [number, number, number];
        if (code >= lo && code <= hi) return cid + code - lo;
      }
      return undefined;
    },
  };
}
