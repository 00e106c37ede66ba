// **The** decode budget: how much a PDF may unpack to, checked on its raw bytes before any
// PDF library reads it (upload inspection, sealing, page images of stored files). A file of a
// few kilobytes can hold a stream that inflates to gigabytes (a "decompression bomb"), and
// pdf-lib inflates every object stream while loading; pdf.js decodes content streams and
// images while drawing. So every stream in the file is decoded here with bounded decoders
// that count their output and keep none of it (64 KB at a time), and a file over the budget
// is refused with one sentence for the uploader.
//
// Every stream is found the way a tolerant reader would find it, not through the
// cross-reference sections: every `stream` keyword right after a dictionary, in every
// revision, referenced or not. The data ends where a direct /Length says (when `endstream`
// follows there, as pdf-lib and pdf.js check); otherwise (an indirect or wrong /Length) the
// data is decoded from its start to the end of the file, which bounds every reader's
// reading: the decoders below stop at their own end marker, and decode a prefix of their
// input to a prefix of their output. Stream data that itself holds the word `stream` is
// also read as PDF syntax (two levels deep), so nothing hidden in it escapes a reader that
// rebuilds a damaged file by scanning for objects.
//
// The limits. The real files (test/fixtures/pdf/, src/demo/statement-of-work.pdf: LaTeX,
// Chromium, pdf-lib, a signed file) are text documents far below all of them (largest
// stream 23 KB decoded, largest file 67 KB decoded, deepest nesting 4: `measureDecoding`),
// so the limits are set by what real files of other kinds need:
// - MAX_STREAM_DECODED_BYTES, 160 MB per stream, at every stage of its filter chain: the
//   largest image render.ts draws (MAX_IMAGE_PIXELS, 40 million pixels) in CMYK at 8 bits.
//   Nothing a page shows needs more.
// - MAX_FILE_DECODED_BYTES, 512 MB for the whole file: 20 times the default upload limit
//   (25 MB), far above what text, fonts and scans compress by (2 to 20 times).
// - MAX_EXPANSION_RATIO, 3,000 times a stream's encoded size, once it decodes past
//   EXPANSION_FLOOR_BYTES (1 MB). One Flate stage can expand at most 1,032 times (a white
//   scan gets close, and passes), LZW about 2,700 times; stacked filters multiply, which is
//   how chained bombs make gigabytes from a few hundred bytes. Such a stream is refused after
//   decoding a few megabytes instead of 160.
// - images: declared /Width x /Height (and a JPEG's own size) at most MAX_IMAGE_PIXELS, the
//   bound render.ts already draws by.
// - a /Filter given by a reference that cannot be followed here (into an object stream, or
//   to nothing) is refused: its stream's size cannot be known. Writers name filters directly.
// - what decoders read in all: 4 times the file's size and 64 MB. Streams without a usable
//   /Length are read to the end of the file (above), so many of them, with decoders that
//   never reach their end marker, would read the file once each.
// - MAX_NESTING_DEPTH, 256 arrays and dictionaries inside one another, outside strings and
//   streams and in object streams: the real files above reach 4; pdf-lib and pdf.js read nested
//   structures recursively and fail (100,000 nested arrays answered "no pages").
// Memory: the decoders hold 64 KB of output and LZW's 4,096-entry table, whatever the stream.
// Time: decoding is a single pass, 65 to 130 MB/s of output on one core of a loaded 2-core
// machine (pako); a bomb is refused at the first limit it passes: a 1 GiB Flate bomb after
// 160 MB (1 to 3 s), a chained one after a few MB (0.1 s), an image or nesting bomb without
// decoding. Off the event loop: inspect-thread.ts, the seal thread.
import pako from 'pako';
import { MAX_IMAGE_PIXELS } from './render.ts';
import { isRegular, isWhite } from './syntax.ts';

export const MAX_STREAM_DECODED_BYTES = MAX_IMAGE_PIXELS * 4;
export const MAX_FILE_DECODED_BYTES = 512 * 1024 * 1024;
export const MAX_EXPANSION_RATIO = 3000;
export const EXPANSION_FLOOR_BYTES = 1024 * 1024;
export const MAX_NESTING_DEPTH = 256;
// Encoded bytes all decoders together may read: each stream once is at most the file's size.
const READ_BYTES_PER_FILE_BYTE = 4;
const EXTRA_READ_BYTES = 64 * 1024 * 1024;

export { MAX_IMAGE_PIXELS };

const megabytes = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;
const again = 'export it again from the program that made it';

/** The refusals, one sentence each, as the other upload rules (inspect.ts) are written. */
export const decodeBudgetSentences = {
  stream: `This PDF contains a part that unpacks to more than ${megabytes(MAX_STREAM_DECODED_BYTES)}, too much to read safely; ${again}.`,
  ratio: `This PDF contains a part that unpacks to thousands of times its own size, as files made to exhaust a server do; ${again}.`,
  file: `This PDF unpacks to more than ${megabytes(MAX_FILE_DECODED_BYTES)} in all, too much to read safely; ${again}, with images at a lower resolution.`,
  image: `This PDF contains an image of more than ${MAX_IMAGE_PIXELS / 1e6} million pixels, too large to show safely; ${again}, with images at a lower resolution.`,
  nesting: `This PDF nests its structures too deeply to be read safely; ${again}.`,
  work: `This PDF is built so that checking it would take too long (its parts have no usable lengths); ${again}.`,
  hidden: `This PDF names how a part of it is compressed in a way that cannot be checked safely; ${again}.`,
} as const;

export type DecodeBudgetRule = keyof typeof decodeBudgetSentences;

class Refusal extends Error {
  readonly rule: DecodeBudgetRule;
  constructor(rule: DecodeBudgetRule) {
    super(decodeBudgetSentences[rule]);
    this.rule = rule;
  }
}

/**
 * null when every stream of `data` decodes within the budget; otherwise the sentence that
 * refuses the file. Synchronous and self-contained: call it off the event loop for files
 * of megabytes (it decodes up to MAX_FILE_DECODED_BYTES).
 */
export function checkDecodeBudget(data: Uint8Array): string | null {
  const refusal = decodeBudgetRefusal(data);
  return refusal === null ? null : decodeBudgetSentences[refusal];
}

/** As checkDecodeBudget, naming the rule the file breaks (for logs and tests). */
export function decodeBudgetRefusal(data: Uint8Array, limits?: ByteLimits): DecodeBudgetRule | null {
  try {
    measureDecoding(data, limits);
    return null;
  } catch (error) {
    if (error instanceof Refusal) return error.rule;
    throw error;
  }
}

/** What a file within the budget decodes to (how the limits above were measured). */
export interface DecodingFigures {
  streams: number;
  /** Bytes decoded from all streams, every stage of every chain counted. */
  totalBytes: number;
  largestStreamBytes: number;
  /** The largest decoded / encoded size of a stream decoding past EXPANSION_FLOOR_BYTES. */
  largestRatio: number;
  deepestNesting: number;
  /** Encoded bytes fed to decoders (streams without a usable /Length may be read to the end). */
  encodedBytesRead: number;
}

/** The byte limits, smaller in tests that need not decode 160 MB to show a rule holds. */
export interface ByteLimits {
  streamBytes: number;
  fileBytes: number;
}

const byteLimits: ByteLimits = { streamBytes: MAX_STREAM_DECODED_BYTES, fileBytes: MAX_FILE_DECODED_BYTES };

/** The figures of `data`; throws (an internal Refusal) when it is over the budget. */
export function measureDecoding(data: Uint8Array, limits: ByteLimits = byteLimits): DecodingFigures {
  const found: Found = { streams: [], objects: new Map(), deepest: 0, limits };
  scan(data, 0, data.length, found, 0);
  const figures: DecodingFigures = {
    streams: found.streams.length,
    totalBytes: 0,
    largestStreamBytes: 0,
    largestRatio: 0,
    deepestNesting: found.deepest,
    encodedBytesRead: 0,
  };
  for (const stream of found.streams) checkStream(data, stream, found, figures);
  return figures;
}

// --- Finding the streams ---------------------------------------------------------------

type Value = number | { name: string } | { ref: string } | Value[] | Map<string, Value> | null;

interface StreamAt {
  dict: Map<string, Value>;
  dataStart: number;
  /** Where the data ends by a direct /Length followed by `endstream`, or -1. */
  lengthEnd: number;
  /** Where a reader looking for `endstream` ends it (the file's end if none). */
  searchEnd: number;
}

interface Found {
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
function scan(data: Uint8Array, from: number, to: number, found: Found, level: number): void {
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

function endstreamAt(data: Uint8Array, at: number, to: number): boolean {
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
function resolve(data: Uint8Array, value: Value | undefined, found: Found): Value | undefined {
  let current = value;
  for (let hops = 0; hops < 8; hops++) {
    if (current === null || typeof current !== 'object' || !('ref' in current)) return current;
    const at = found.objects.get(current.ref);
    if (at === undefined) return undefined;
    current = parseValue(data, at, Math.min(data.length, at + 4096), 4)?.[0];
  }
  return undefined;
}

const nameIn = (value: Value | undefined): string | undefined =>
  value !== null && typeof value === 'object' && 'name' in value ? value.name : undefined;

// --- Decoding ------------------------------------------------------------------------------

type Emit = (chunk: Uint8Array) => void;

interface Decoder {
  push(chunk: Uint8Array): void;
  end(): void;
  /** True once the data's end (or an error) is reached: more input changes nothing. */
  finished(): boolean;
}

/** Collects output bytes and hands them on 64 KB at a time (the receiver keeps none). */
class Output {
  private readonly buffer = new Uint8Array(64 * 1024);
  private used = 0;
  private readonly emit: Emit;
  constructor(emit: Emit) {
    this.emit = emit;
  }
  byte(value: number): void {
    this.buffer[this.used++] = value;
    if (this.used === this.buffer.length) this.flush();
  }
  flush(): void {
    if (this.used === 0) return;
    const used = this.used;
    this.used = 0;
    this.emit(this.buffer.subarray(0, used));
  }
}

function flateDecoder(emit: Emit): Decoder {
  const inflate = new pako.Inflate({ chunkSize: 64 * 1024 });
  inflate.onData = emit;
  inflate.onEnd = () => {};
  let done = false;
  return {
    push(chunk) {
      // A broken or finished stream stops here: what it produced is what readers get.
      if (!done && !inflate.push(chunk, false)) done = true;
      if (inflate.ended || inflate.err) done = true;
    },
    end() {
      if (!done) inflate.push(new Uint8Array(0), true);
    },
    finished: () => done,
  };
}

function lzwDecoder(emit: Emit, earlyChange: number): Decoder {
  const out = new Output(emit);
  const prefix = new Int32Array(4096);
  const suffix = new Uint8Array(4096);
  const lengths = new Uint16Array(4096);
  const firsts = new Uint8Array(4096);
  const stack = new Uint8Array(4096);
  for (let c = 0; c < 256; c++) {
    suffix[c] = c;
    lengths[c] = 1;
    firsts[c] = c;
    prefix[c] = -1;
  }
  let next = 258;
  let codeLength = 9;
  let previous = -1;
  let bits = 0;
  let bitCount = 0;
  let done = false;
  const write = (code: number) => {
    const length = lengths[code] as number;
    let c = code;
    for (let k = length - 1; k >= 0; k--) {
      stack[k] = suffix[c] as number;
      c = prefix[c] as number;
    }
    for (let k = 0; k < length; k++) out.byte(stack[k] as number);
  };
  const handle = (code: number) => {
    if (code === 256) {
      next = 258;
      codeLength = 9;
      previous = -1;
      return;
    }
    if (code === 257) {
      done = true;
      return;
    }
    if (previous === -1) {
      if (code > 255) {
        done = true;
        return;
      }
      write(code);
      previous = code;
      return;
    }
    if (code > next) {
      done = true;
      return;
    }
    const first = code < next ? (firsts[code] as number) : (firsts[previous] as number);
    if (next < 4096) {
      prefix[next] = previous;
      suffix[next] = first;
      lengths[next] = Math.min(4095, (lengths[previous] as number) + 1);
      firsts[next] = firsts[previous] as number;
      next++;
    }
    write(code);
    previous = code;
    if (next + earlyChange >= 1 << codeLength && codeLength < 12) codeLength++;
  };
  return {
    push(chunk) {
      for (let k = 0; k < chunk.length && !done; k++) {
        bits = ((bits << 8) | (chunk[k] as number)) & 0xffffff;
        bitCount += 8;
        while (bitCount >= codeLength && !done) {
          const code = (bits >>> (bitCount - codeLength)) & ((1 << codeLength) - 1);
          bitCount -= codeLength;
          handle(code);
        }
      }
      out.flush();
    },
    end() {
      out.flush();
    },
    finished: () => done,
  };
}

function runLengthDecoder(emit: Emit): Decoder {
  const out = new Output(emit);
  let literal = 0;
  let repeat = 0;
  let done = false;
  return {
    push(chunk) {
      for (let k = 0; k < chunk.length && !done; k++) {
        const b = chunk[k] as number;
        if (literal > 0) {
          out.byte(b);
          literal--;
        } else if (repeat > 0) {
          for (let n = 0; n < repeat; n++) out.byte(b);
          repeat = 0;
        } else if (b < 128) literal = b + 1;
        else if (b > 128) repeat = 257 - b;
        else done = true;
      }
      out.flush();
    },
    end() {
      out.flush();
    },
    finished: () => done,
  };
}

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  return -1;
}

function asciiHexDecoder(emit: Emit): Decoder {
  const out = new Output(emit);
  let high = -1;
  let done = false;
  return {
    push(chunk) {
      for (let k = 0; k < chunk.length && !done; k++) {
        const b = chunk[k] as number;
        if (b === 0x3e) done = true;
        const value = hexValue(b);
        if (value < 0) continue;
        if (high < 0) high = value;
        else {
          out.byte(high * 16 + value);
          high = -1;
        }
      }
      out.flush();
    },
    end() {
      if (high >= 0 && !done) out.byte(high * 16);
      out.flush();
    },
    finished: () => done,
  };
}

function ascii85Decoder(emit: Emit): Decoder {
  const out = new Output(emit);
  const group: number[] = [];
  let done = false;
  const flushGroup = (count: number) => {
    let value = 0;
    for (let k = 0; k < 5; k++) value = value * 85 + (k < group.length ? (group[k] as number) : 84);
    for (let k = 0; k < count; k++) out.byte(Math.floor(value / 256 ** (3 - k)) % 256);
    group.length = 0;
  };
  return {
    push(chunk) {
      for (let k = 0; k < chunk.length && !done; k++) {
        const b = chunk[k] as number;
        if (b === 0x7e) {
          done = true;
          if (group.length > 1) flushGroup(group.length - 1);
        } else if (b === 0x7a && group.length === 0) {
          for (let n = 0; n < 4; n++) out.byte(0);
        } else if (b >= 0x21 && b <= 0x75) {
          group.push(b - 0x21);
          if (group.length === 5) flushGroup(4);
        }
      }
      out.flush();
    },
    end() {
      if (!done && group.length > 1) flushGroup(group.length - 1);
      out.flush();
    },
    finished: () => done,
  };
}

const imageFilters = new Set(['DCTDecode', 'DCT', 'JPXDecode', 'JBIG2Decode', 'CCITTFaxDecode', 'CCF']);

/**
 * The decoders of the filters a reader decodes byte for byte, by every name the filter goes
 * by. Image filters are bounded by their pixels instead; Crypt and unknown filters end the
 * chain (readers cannot go further either).
 */
type DecoderFactory = (emit: Emit, parms: Value | undefined) => Decoder;
const lzw: DecoderFactory = (emit, parms) => {
  const early = parms instanceof Map ? parms.get('EarlyChange') : undefined;
  return lzwDecoder(emit, early === 0 ? 0 : 1);
};
const decoderFactories = new Map<string, DecoderFactory>([
  ['FlateDecode', flateDecoder],
  ['Fl', flateDecoder],
  ['LZWDecode', lzw],
  ['LZW', lzw],
  ['RunLengthDecode', runLengthDecoder],
  ['RL', runLengthDecoder],
  ['ASCIIHexDecode', asciiHexDecoder],
  ['AHx', asciiHexDecoder],
  ['ASCII85Decode', ascii85Decoder],
  ['A85', ascii85Decoder],
]);

/** Width x height of a baseline or progressive JPEG, from its frame header, or null. */
function jpegPixels(data: Uint8Array): number | null {
  let i = 2;
  if (data[0] !== 0xff || data[1] !== 0xd8) return null;
  while (i + 9 < data.length) {
    if (data[i] !== 0xff) return null;
    const marker = data[i + 1] as number;
    if (marker === 0xff) {
      i++;
      continue;
    }
    const length = ((data[i + 2] as number) << 8) | (data[i + 3] as number);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) {
      const height = ((data[i + 5] as number) << 8) | (data[i + 6] as number);
      const width = ((data[i + 7] as number) << 8) | (data[i + 8] as number);
      return width * height;
    }
    if (marker === 0xda) return null;
    i += 2 + length;
  }
  return null;
}

// Bytes that change the state of NestingCounter's plain syntax: ( % < > [ ].
const syntaxBytes = new Uint8Array(256);
for (const b of [0x28, 0x25, 0x3c, 0x3e, 0x5b, 0x5d]) syntaxBytes[b] = 1;

const SYNTAX = 0;
const STRING = 1;
const HEX = 2;
const COMMENT = 3;

/** Counts nesting in a decoded object stream's objects, fed chunk by chunk. */
class NestingCounter {
  private depth = 0;
  private state = SYNTAX;
  private stringLevel = 0;
  private escaped = false;
  private pending = 0; // a `<` or `>` whose partner may be in the next chunk

  push(chunk: Uint8Array): void {
    // The state in locals: this runs once per decoded byte of every object stream.
    let { depth, state, stringLevel, escaped, pending } = this;
    for (let k = 0; k < chunk.length; k++) {
      const b = chunk[k] as number;
      if (state === SYNTAX && pending === 0 && syntaxBytes[b] === 0) continue;
      if (state === STRING) {
        if (escaped) escaped = false;
        else if (b === 0x5c) escaped = true;
        else if (b === 0x28) stringLevel++;
        else if (b === 0x29 && --stringLevel === 0) state = SYNTAX;
        continue;
      }
      if (state === COMMENT) {
        if (b === LF || b === CR) state = SYNTAX;
        continue;
      }
      if (state === HEX) {
        if (b === 0x3e) state = SYNTAX;
        continue;
      }
      if (pending === 0x3c) {
        pending = 0;
        if (b === 0x3c) {
          if (++depth > MAX_NESTING_DEPTH) throw new Refusal('nesting');
          continue;
        }
        state = b === 0x3e ? SYNTAX : HEX;
        continue;
      }
      if (pending === 0x3e) {
        pending = 0;
        if (b === 0x3e) {
          depth = Math.max(0, depth - 1);
          continue;
        }
      }
      if (b === 0x28) {
        state = STRING;
        stringLevel = 1;
      } else if (b === 0x25) state = COMMENT;
      else if (b === 0x3c || b === 0x3e) pending = b;
      else if (b === 0x5b) {
        if (++depth > MAX_NESTING_DEPTH) throw new Refusal('nesting');
      } else if (b === 0x5d) depth = Math.max(0, depth - 1);
    }
    Object.assign(this, { depth, state, stringLevel, escaped, pending });
  }
}

function checkStream(data: Uint8Array, stream: StreamAt, found: Found, figures: DecodingFigures): void {
  const { dict } = stream;
  const filterValue = resolve(data, dict.get('Filter'), found);
  const filterItems = (Array.isArray(filterValue) ? filterValue : [filterValue]).map((item) =>
    resolve(data, item, found),
  );
  // A filter named through a reference this reading cannot follow (into an object stream):
  // readers follow it, so the stream's size is unknown here. No writer does this.
  if (dict.get('Filter') !== undefined && (filterValue === undefined || filterItems.includes(undefined))) {
    throw new Refusal('hidden');
  }
  const filters = filterItems.map(nameIn).filter((name): name is string => name !== undefined);
  const parmsValue = resolve(data, dict.get('DecodeParms'), found);
  const parmsOf = (index: number) =>
    resolve(
      data,
      Array.isArray(parmsValue) ? parmsValue[index] : index === 0 ? parmsValue : undefined,
      found,
    );

  // Where the data ends: a direct /Length, an indirect one that lands on `endstream`, or the
  // end of the file (decoders stop at their own end, so this bounds every reader's reading).
  let end = stream.lengthEnd;
  if (end < 0) {
    const length = resolve(data, dict.get('Length'), found);
    if (typeof length === 'number' && Number.isInteger(length) && length >= 0) {
      const candidate = stream.dataStart + length;
      if (candidate <= data.length && endstreamAt(data, candidate, data.length)) end = candidate;
    }
  }
  const raw = data.subarray(stream.dataStart, end >= 0 ? end : data.length);
  const encodedBytes = (end >= 0 ? end : stream.searchEnd) - stream.dataStart;

  const isImage =
    nameIn(resolve(data, dict.get('Subtype'), found)) === 'Image' || filters.some((f) => imageFilters.has(f));
  if (isImage) {
    const width = resolve(data, dict.get('Width'), found);
    const height = resolve(data, dict.get('Height'), found);
    if (typeof width === 'number' && typeof height === 'number' && width * height > MAX_IMAGE_PIXELS) {
      throw new Refusal('image');
    }
    if (filters[0] === 'DCTDecode' || filters[0] === 'DCT') {
      const pixels = jpegPixels(raw.subarray(0, Math.min(raw.length, 1024 * 1024)));
      if (pixels !== null && pixels > MAX_IMAGE_PIXELS) throw new Refusal('image');
    }
  }

  const cap = Math.min(
    found.limits.streamBytes,
    Math.max(EXPANSION_FLOOR_BYTES, MAX_EXPANSION_RATIO * encodedBytes),
  );
  const isObjectStream = nameIn(resolve(data, dict.get('Type'), found)) === 'ObjStm';
  const nesting = isObjectStream ? new NestingCounter() : null;
  // The chain, stage by stage: each stage's output is counted, then fed to the next.
  const stages: Decoder[] = [];
  let last: Emit = (chunk) => nesting?.push(chunk);
  const decoders: Array<{ make: DecoderFactory; parms: Value | undefined }> = [];
  for (const [index, name] of filters.entries()) {
    const make = decoderFactories.get(name);
    if (!make) break;
    decoders.push({ make, parms: parmsOf(index) });
  }
  for (let index = decoders.length - 1; index >= 0; index--) {
    const { make, parms } = decoders[index] as { make: DecoderFactory; parms: Value | undefined };
    const feed = last;
    let produced = 0;
    const counted: Emit = (chunk) => {
      produced += chunk.length;
      figures.totalBytes += chunk.length;
      if (produced > cap) throw new Refusal(cap < found.limits.streamBytes ? 'ratio' : 'stream');
      if (figures.totalBytes > found.limits.fileBytes) throw new Refusal('file');
      figures.largestStreamBytes = Math.max(figures.largestStreamBytes, produced);
      if (produced > EXPANSION_FLOOR_BYTES && encodedBytes > 0) {
        figures.largestRatio = Math.max(figures.largestRatio, produced / encodedBytes);
      }
      feed(chunk);
    };
    const decoder = make(counted, parms);
    stages.unshift(decoder);
    last = (chunk) => {
      decoder.push(chunk);
    };
  }
  const first = stages[0];
  if (!first) {
    // Not encoded: what a reader holds is the raw data, already within the upload's size.
    if (nesting) nesting.push(raw.subarray(0, encodedBytes));
    return;
  }
  // In slices, so a decoder that has finished does not walk the rest of the file. Streams
  // read to the end of the file overlap: what all of them read together is bounded too.
  const slice = 256 * 1024;
  const readable = READ_BYTES_PER_FILE_BYTE * data.length + EXTRA_READ_BYTES;
  // The data up to its `endstream` first, whole: a stream that ends there reads no further.
  for (let at = 0; at < raw.length && !first.finished(); at += at === 0 ? Math.max(encodedBytes, 1) : slice) {
    const part = raw.subarray(at, at === 0 ? Math.max(encodedBytes, 1) : at + slice);
    figures.encodedBytesRead += part.length;
    if (figures.encodedBytesRead > readable) throw new Refusal('work');
    first.push(part);
  }
  for (const stage of stages) stage.end();
}
