// The operators of a content stream (ISO 32000 7.8.2), read for the one-look rules
// (one-look.ts): each operator with its operands, strings as bytes, names without their
// slash, arrays as arrays, dictionaries and inline images stepped over. The stream is
// decoded by pdf-lib from a file that already passed the decode budget (decode-budget.ts is
// checked before the file is loaded), so what a stream unpacks to is bounded; this reader
// adds its own bound on operators, and reads nothing twice. Also here: entries looked up by
// kind without pdf-lib's throw on a wrong one (`dictAt`, `arrayAt`), for hostile files.
import {
  decodePDFRawStream,
  PDFArray,
  PDFDict,
  type PDFName,
  PDFRawStream,
  type PDFStream,
} from '@cantoo/pdf-lib';
import { hexValue, isDelimiter, isWhite } from './syntax.ts';

export type Operand = number | string | { name: string } | Uint8Array | Operand[] | null;

export interface ContentOp {
  op: string;
  operands: Operand[];
}

// Operators read from one stream at most: a long page holds tens of thousands; a stream
// built to hold more is read up to here (callers treat the rest as unread).
export const maxOps = 2_000_000;

/** The decoded bytes of `stream`, or null when pdf-lib cannot decode its filters. */
export function contentBytes(stream: PDFStream): Uint8Array | null {
  try {
    return stream instanceof PDFRawStream ? decodePDFRawStream(stream).decode() : stream.getContents();
  } catch {
    return null;
  }
}

/** `dict`'s entry `key` when it is a dictionary, else undefined: never a throw. */
export function dictAt(dict: PDFDict | undefined, key: PDFName): PDFDict | undefined {
  const value = dict?.context.lookup(dict.get(key));
  return value instanceof PDFDict ? value : undefined;
}

/** `dict`'s entry `key` when it is an array, else undefined. */
export function arrayAt(dict: PDFDict | undefined, key: PDFName): PDFArray | undefined {
  const value = dict?.context.lookup(dict.get(key));
  return value instanceof PDFArray ? value : undefined;
}

class Tokens {
  pos = 0;
  readonly data: Uint8Array;
  constructor(data: Uint8Array) {
    this.data = data;
  }

  private skipWhite(): void {
    const { data } = this;
    while (this.pos < data.length) {
      const c = data[this.pos];
      if (isWhite(c)) this.pos++;
      else if (c === 0x25) {
        while (this.pos < data.length && data[this.pos] !== 0x0a && data[this.pos] !== 0x0d) this.pos++;
      } else return;
    }
  }

  private literal(): Uint8Array {
    const { data } = this;
    const out: number[] = [];
    let depth = 1;
    this.pos++;
    while (this.pos < data.length) {
      const c = data[this.pos++] as number;
      if (c === 0x5c) {
        const e = data[this.pos++];
        if (e === undefined) break;
        const escapes: Record<number, number> = { 110: 10, 114: 13, 116: 9, 98: 8, 102: 12 };
        if (e >= 0x30 && e <= 0x37) {
          let value = e - 0x30;
          for (let k = 0; k < 2 && (data[this.pos] ?? 0) >= 0x30 && (data[this.pos] ?? 0) <= 0x37; k++)
            value = value * 8 + ((data[this.pos++] as number) - 0x30);
          out.push(value & 0xff);
        } else if (e === 0x0d) {
          if (data[this.pos] === 0x0a) this.pos++;
        } else if (e !== 0x0a) out.push(escapes[e] ?? e);
      } else if (c === 0x28) {
        depth++;
        out.push(c);
      } else if (c === 0x29) {
        if (--depth === 0) break;
        out.push(c);
      } else out.push(c);
    }
    return Uint8Array.from(out);
  }

  private hex(): Uint8Array {
    const { data } = this;
    const out: number[] = [];
    let high = -1;
    this.pos++;
    while (this.pos < data.length && data[this.pos] !== 0x3e) {
      const value = hexValue(data[this.pos++] as number);
      if (value < 0) continue;
      if (high < 0) high = value;
      else {
        out.push(high * 16 + value);
        high = -1;
      }
    }
    this.pos++;
    if (high >= 0) out.push(high * 16);
    return Uint8Array.from(out);
  }

  private word(): string {
    const { data } = this;
    const start = this.pos;
    while (this.pos < data.length && !isWhite(data[this.pos]) && !isDelimiter(data[this.pos])) this.pos++;
    return Buffer.from(data.buffer, data.byteOffset + start, this.pos - start).toString('latin1');
  }

  // Steps over an inline image's data, from after `ID` to after its `EI`.
  skipInlineImage(): void {
    const { data } = this;
    this.pos++;
    while (this.pos + 1 < data.length) {
      if (
        data[this.pos] === 0x45 &&
        data[this.pos + 1] === 0x49 &&
        isWhite(data[this.pos - 1]) &&
        (this.pos + 2 >= data.length || isWhite(data[this.pos + 2]))
      ) {
        this.pos += 2;
        return;
      }
      this.pos++;
    }
    this.pos = data.length;
  }

  /** The next token: an operand, an operator (`{op}`), or undefined at the end. */
  next(depth = 0): Operand | { op: string } | undefined {
    this.skipWhite();
    const { data } = this;
    if (this.pos >= data.length) return undefined;
    const c = data[this.pos] as number;
    if (c === 0x28) return this.literal();
    if (c === 0x3c && data[this.pos + 1] === 0x3c) {
      // A dictionary operand (BDC's inline properties, BI's entries): stepped over, nested.
      this.pos += 2;
      let level = 1;
      while (this.pos < data.length && level > 0) {
        if (data[this.pos] === 0x3c && data[this.pos + 1] === 0x3c) {
          level++;
          this.pos += 2;
        } else if (data[this.pos] === 0x3e && data[this.pos + 1] === 0x3e) {
          level--;
          this.pos += 2;
        } else if (data[this.pos] === 0x28) this.literal();
        else this.pos++;
      }
      return { name: '<<dictionary>>' };
    }
    if (c === 0x3c) return this.hex();
    if (c === 0x2f) {
      this.pos++;
      return { name: this.word() };
    }
    if (c === 0x5b) {
      this.pos++;
      const items: Operand[] = [];
      for (;;) {
        this.skipWhite();
        if (this.pos >= data.length) break;
        if (data[this.pos] === 0x5d) {
          this.pos++;
          break;
        }
        const item = depth < 32 ? this.next(depth + 1) : undefined;
        if (item === undefined) break;
        if (item !== null && typeof item === 'object' && 'op' in item) continue;
        items.push(item);
      }
      return items;
    }
    if (c === 0x5d || c === 0x3e || c === 0x29 || c === 0x7b || c === 0x7d) {
      this.pos++;
      return this.next(depth);
    }
    const word = this.word();
    if (word === '') {
      this.pos++;
      return this.next(depth);
    }
    const number = Number(word);
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word) && Number.isFinite(number)) return number;
    if (word === 'true' || word === 'false') return word;
    if (word === 'null') return null;
    return { op: word };
  }
}

/** Each operator of `data` with its operands, in order (at most `maxOps`). */
export function* contentOps(data: Uint8Array): Generator<ContentOp> {
  const tokens = new Tokens(data);
  let operands: Operand[] = [];
  for (let count = 0; count < maxOps; ) {
    const token = tokens.next();
    if (token === undefined) return;
    if (token !== null && typeof token === 'object' && 'op' in token) {
      count++;
      if (token.op === 'ID') tokens.skipInlineImage();
      yield { op: token.op, operands };
      operands = [];
    } else if (operands.length < 64) operands.push(token);
  }
}
