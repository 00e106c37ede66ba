// The streams of a PDF, found in its raw bytes for the decode budget (decode-budget.ts) the way
// a tolerant reader would find them, not through the cross-reference sections: every `stream`
// keyword right after a dictionary, in every revision, referenced or not. The data ends where a
// direct /Length says (when `endstream` follows there, as pdf-lib and pdf.js check); otherwise
// it runs to the first `endstream`, or for the decoders to the end of the file. Stream data that
// itself holds the word `stream` is also read as PDF syntax (two levels deep), so nothing hidden
// in it escapes a reader that rebuilds a damaged file by scanning for objects. Also here: the
// direct values of stream dictionaries and references followed to top-level objects. Nesting
// deeper than MAX_NESTING_DEPTH is refused while scanning.
import { type ByteLimits, MAX_NESTING_DEPTH, Refusal } from './decode-limits.ts';
import { isRegular, isWhite } from './syntax.ts';

export type Value = number | { name: string } | { ref: string } | Value[] | Map<string, Value> | null;

export interface StreamAt {
  dict: Map<string, Value>;
  dataStart: number;
  /** Where the data ends by a direct /Length followed by `endstream`, or -1. */
  lengthEnd: number;
  /** Where a reader looking for `endstream` ends it (the file's end if none). */
  searchEnd: number;
}

export interface Found {
  streams: StreamAt[];
  /** Where each top-level object's value starts, by "number generation". */
  objects: Map<string, number>;
  deepest: number;
  limits: ByteLimits;
}

const LF = 0x0a;
const CR = 0x0d;

const bufferOf = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength);

function matches(data: Uint8Array, at: number, end: number, word: string): boolean {
  if (end - at !== word.length) return false;
  for (let k = 0; k < word.length; k++) if (data[at + k] !== word.charCodeAt(k)) return false;
  return true;
}

function isInteger(data: Uint8Array, at: number, end: number): boolean {
  if (end <= at || end - at > 10) return false;
  for (let k = at; k < end; k++) if ((data[k] as number) < 0x30 || (data[k] as number) > 0x39) return false;
  return true;
}

/** After a literal string starting at `at` (its `(`): nested parentheses, backslash escapes. */
function skipString(data: Uint8Array, at: number, end: number): number {
  let level = 0;
  for (let i = at; i < end; i++) {
    const b = data[i];
    if (b === 0x5c) i++;
    else if (b === 0x28) level++;
    else if (b === 0x29 && --level === 0) return i + 1;
  }
  return end;
}

function skipComment(data: Uint8Array, at: number, end: number): number {
  let i = at;
  while (i < end && data[i] !== LF && data[i] !== CR) i++;
  return i;
}

/**
 * Reads [from, to) as PDF syntax: counts nesting, records where objects start and every
 * stream (a `stream` keyword right after a dictionary), and skips each stream's data.
 */
export function scan(data: Uint8Array, from: number, to: number, found: Found, level: number): void {
  const buffer = bufferOf(data);
  let depth = 0;
  const opens: number[] = [];
  // The dictionary a `>>` just closed (cleared by any other token): a stream's, if `stream` follows.
  let closed: [number, number] | null = null;
  // The two regular tokens before this one, for `n g obj`.
  let before1: [number, number] | null = null;
  let before2: [number, number] | null = null;
  let i = from;
  const deeper = () => {
    if (++depth > MAX_NESTING_DEPTH) throw new Refusal('nesting');
    found.deepest = Math.max(found.deepest, depth);
  };
  while (i < to) {
    const b = data[i] as number;
    if (isWhite(b)) {
      i++;
      continue;
    }
    if (b === 0x25) {
      i = skipComment(data, i, to);
      continue;
    }
    if (b === 0x3c && data[i + 1] === 0x3c) {
      opens.push(i);
      deeper();
      i += 2;
      closed = null;
      continue;
    }
    if (b === 0x3e && data[i + 1] === 0x3e) {
      const open = opens.pop();
      depth = Math.max(0, depth - 1);
      closed = open === undefined ? null : [open, i + 2];
      i += 2;
      continue;
    }
    closed = closed && isRegular(b) ? closed : null;
    if (b === 0x28) i = skipString(data, i, to);
    else if (b === 0x3c) {
      const close = buffer.indexOf(0x3e, i);
      i = close < 0 || close >= to ? to : close + 1;
    } else if (b === 0x5b) {
      deeper();
      i++;
    } else if (b === 0x5d) {
      depth = Math.max(0, depth - 1);
      i++;
    } else if (b === 0x2f) {
      i++;
      while (i < to && isRegular(data[i] as number)) i++;
    } else if (!isRegular(b)) i++;
    else {
      const start = i;
      while (i < to && isRegular(data[i] as number)) i++;
      if (closed && matches(data, start, i, 'stream')) {
        i = streamAt(data, closed, i, to, found, level);
        closed = null;
        before1 = before2 = null;
        continue;
      }
      closed = null;
      if (
        matches(data, start, i, 'obj') &&
        before1 &&
        before2 &&
        isInteger(data, before2[0], before2[1]) &&
        isInteger(data, before1[0], before1[1])
      ) {
        const number = Number(buffer.toString('latin1', before2[0], before2[1]));
        found.objects.set(`${number} ${Number(buffer.toString('latin1', before1[0], before1[1]))}`, i);
      }
      before2 = before1;
      before1 = [start, i];
    }
  }
}

/** Records the stream whose keyword ends at `keywordEnd`; returns where reading goes on. */
function streamAt(
  data: Uint8Array,
  [dictStart, dictEnd]: [number, number],
  keywordEnd: number,
  to: number,
  found: Found,
  level: number,
): number {
  let dataStart = keywordEnd;
  if (data[dataStart] === CR && data[dataStart + 1] === LF) dataStart += 2;
  else if (data[dataStart] === LF || data[dataStart] === CR) dataStart += 1;
  // As deep as the scan allows (it refused anything deeper): a value that could not be read
  // whole would hide the keys after it.
  const parsed = parseValue(data, dictStart, dictEnd, MAX_NESTING_DEPTH + 2);
  const dict = parsed?.[0] instanceof Map ? parsed[0] : new Map<string, Value>();
  const length = dict.get('Length');
  const buffer = bufferOf(data);
  let lengthEnd = -1;
  if (typeof length === 'number' && Number.isInteger(length) && length >= 0) {
    const end = dataStart + length;
    if (end <= to && endstreamAt(data, end, to)) lengthEnd = end;
  }
  const firstEndstream = buffer.indexOf('endstream', dataStart, 'latin1');
  const searchEnd = firstEndstream < 0 || firstEndstream > to ? data.length : firstEndstream;
  const regionEnd = lengthEnd >= 0 ? lengthEnd : Math.min(searchEnd, to);
  found.streams.push({ dict, dataStart, lengthEnd, searchEnd });
  // Stream data that holds PDF syntax of its own, for readers that rebuild a file by scanning.
  const hidden = buffer.indexOf('stream', dataStart, 'latin1');
  if (level < 2 && hidden >= 0 && hidden < regionEnd) scan(data, dataStart, regionEnd, found, level + 1);
  const after = lengthEnd >= 0 ? buffer.indexOf('endstream', lengthEnd, 'latin1') : firstEndstream;
  return after < 0 || after >= to ? to : after + 'endstream'.length;
}

export function endstreamAt(data: Uint8Array, at: number, to: number): boolean {
  let i = at;
  while (i < to && isWhite(data[i] as number)) i++;
  return matches(data, i, Math.min(i + 9, to), 'endstream');
}

function skipWhiteAndComments(data: Uint8Array, at: number, end: number): number {
  let i = at;
  while (i < end) {
    if (isWhite(data[i] as number)) i++;
    else if (data[i] === 0x25) i = skipComment(data, i, end);
    else break;
  }
  return i;
}

/** A name with its #xx escapes decoded (/Flate#44ecode is /FlateDecode to every reader). */
function nameOf(data: Uint8Array, at: number, end: number): string {
  const raw = bufferOf(data).toString('latin1', at, end);
  return raw.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** The direct value at `at` and where it ends, or null; `depth` bounds the recursion. */
function parseValue(data: Uint8Array, at: number, end: number, depth: number): [Value, number] | null {
  let i = skipWhiteAndComments(data, at, end);
  if (i >= end || depth < 0) return null;
  const b = data[i] as number;
  if (b === 0x2f) {
    const start = ++i;
    while (i < end && isRegular(data[i] as number)) i++;
    return [{ name: nameOf(data, start, i) }, i];
  }
  if (b === 0x3c && data[i + 1] === 0x3c) {
    const dict = new Map<string, Value>();
    i += 2;
    for (;;) {
      i = skipWhiteAndComments(data, i, end);
      if (i >= end) return [dict, end];
      if (data[i] === 0x3e && data[i + 1] === 0x3e) return [dict, i + 2];
      const key = parseValue(data, i, end, depth - 1);
      if (!key) return [dict, end];
      const value = parseValue(data, key[1], end, depth - 1);
      if (!value) return [dict, end];
      if (key[0] !== null && typeof key[0] === 'object' && 'name' in key[0]) dict.set(key[0].name, value[0]);
      i = value[1];
    }
  }
  if (b === 0x3c) {
    const close = bufferOf(data).indexOf(0x3e, i);
    return [null, close < 0 || close >= end ? end : close + 1];
  }
  if (b === 0x28) return [null, skipString(data, i, end)];
  if (b === 0x5b) {
    const array: Value[] = [];
    i++;
    for (;;) {
      i = skipWhiteAndComments(data, i, end);
      if (i >= end) return [array, end];
      if (data[i] === 0x5d) return [array, i + 1];
      const item = parseValue(data, i, end, depth - 1);
      if (!item) return [array, end];
      array.push(item[0]);
      i = item[1];
    }
  }
  if (!isRegular(b)) return [null, i + 1];
  const start = i;
  while (i < end && isRegular(data[i] as number)) i++;
  const token = bufferOf(data).toString('latin1', start, i);
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(token)) return [null, i];
  // `n g R`: a reference.
  if (/^\d+$/.test(token)) {
    const g = /^\s+(\d+)\s+R(?![^\s()<>[\]{}/%])/.exec(
      bufferOf(data).toString('latin1', i, Math.min(end, i + 24)),
    );
    if (g) return [{ ref: `${Number(token)} ${Number(g[1])}` }, i + g[0].length];
  }
  return [Number(token), i];
}

/** A value with references followed to top-level objects (those in object streams stay unknown). */
export function resolve(data: Uint8Array, value: Value | undefined, found: Found): Value | undefined {
  let current = value;
  for (let hops = 0; hops < 8; hops++) {
    if (current === null || typeof current !== 'object' || !('ref' in current)) return current;
    const at = found.objects.get(current.ref);
    if (at === undefined) return undefined;
    current = parseValue(data, at, Math.min(data.length, at + 4096), 4)?.[0];
  }
  return undefined;
}

export const nameIn = (value: Value | undefined): string | undefined =>
  value !== null && typeof value === 'object' && 'name' in value ? value.name : undefined;
