// **The** decode budget: how much a PDF may unpack to, checked on its raw bytes before any
// PDF library reads it (upload inspection, sealing, page images of stored files). A file of a
// few kilobytes can hold a stream that inflates to gigabytes (a "decompression bomb"), and
// pdf-lib inflates every object stream while loading; pdf.js decodes content streams and
// images while drawing. So every stream in the file is decoded here with bounded decoders
// that count their output and keep none of it (64 KB at a time), and a file over the budget
// is refused with one sentence for the uploader.
//
// The parts: the limits and their sentences (decode-limits.ts), the streams found in the raw
// bytes (stream-scan.ts), the bounded decoders by filter name (stream-decoders.ts); this module
// walks every stream through its filter chain against the limits, and counts the nesting of
// decoded object streams. Time: decoding is a single pass, 65 to 130 MB/s of output on one core
// of a loaded 2-core machine (pako); a bomb is refused at the first limit it passes: a 1 GiB
// Flate bomb after 160 MB (1 to 3 s), a chained one after a few MB (0.1 s), an image or nesting
// bomb without decoding. Off the event loop: inspect-thread.ts, the seal thread.
import type { KeyedSentence } from '../i18n/refusals.ts';
import {
  type ByteLimits,
  byteLimits,
  type DecodeBudgetRule,
  decodeBudgetRefusals,
  EXPANSION_FLOOR_BYTES,
  EXTRA_READ_BYTES,
  MAX_EXPANSION_RATIO,
  MAX_IMAGE_PIXELS,
  MAX_NESTING_DEPTH,
  READ_BYTES_PER_FILE_BYTE,
  Refusal,
} from './decode-limits.ts';
import {
  type Decoder,
  type DecoderFactory,
  decoderFactories,
  type Emit,
  imageFilters,
} from './stream-decoders.ts';
import { endstreamAt, type Found, nameIn, resolve, type StreamAt, scan, type Value } from './stream-scan.ts';

/**
 * null when every stream of `data` decodes within the budget; otherwise the sentence that
 * refuses the file (a key of the catalogues). Synchronous and self-contained: call it off
 * the event loop for files of megabytes (it decodes up to MAX_FILE_DECODED_BYTES).
 */
export function checkDecodeBudget(data: Uint8Array): KeyedSentence | null {
  const refusal = decodeBudgetRefusal(data);
  return refusal === null ? null : decodeBudgetRefusals[refusal];
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

const LF = 0x0a;
const CR = 0x0d;

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
