// **The** one reading of a PDF: what every step that parses a document with pdf-lib
// (inspection at upload, page sizes, the certificate and the seal) gets, and the one readers
// use. Readers (poppler, MuPDF, PDFBox, pdf.js on the signing page) find each object through
// the cross-reference sections, newest revision first; pdf-lib reads the file from top to
// bottom and keeps the last definition of each object. A file that defines its page twice,
// the table pointing at "100 EUR" and a later definition saying "1,000,000 EUR", was shown to
// signers with the one and sealed with the other. So a file is loaded by pdf-lib while
// recording where each object it keeps was defined, its cross-reference chain is read as a
// reader reads it, and the two must agree:
// - every object in use per the cross-reference sections is the one pdf-lib kept (the same
//   offset, or the same object stream and index);
// - no object is defined twice within one revision (a reader that rebuilds a damaged table
//   would pick another one than the table says);
// - the chain of sections (/Prev, /XRefStm) is whole and has no loop;
// - objects pdf-lib parsed that no section lists are dropped (readers see none either);
// - the trailer (root, info, ID) is the newest section's, as readers take it.
// Normal PDF passes: cross-reference streams (their predictor undone: predictors.ts) and
// object streams, a linearized file's first-page section at its start, hybrid files (a
// table, then its /XRefStm, then /Prev, as poppler and pdf.js read them), free entries.
// A file that fails is refused with one sentence (AmbiguousPdfError), before anything is
// stored. An encrypted file is not compared (pdf-lib cannot read its object streams): it is
// an EncryptedPdfError, with its encryption dictionary's entries for the sentence. Nothing
// here rewrites a file, so the uploaded bytes stay the original whose SHA-256 is recorded
// and certified.
//
// pdf-lib does not say where it found an object, so the parser instance's own methods are
// wrapped (parseIndirectObject and tryToParseInvalidIndirectObject, the two that define
// objects, and the context's assign). They are private members of @cantoo/pdf-lib's PDFParser:
// if an upgrade renamed them, nothing would be recorded, and `loadPdf` refuses every file
// rather than trusting an unchecked reading (the tests would fail at once).
import {
  decodePDFRawStream,
  PDFArray,
  PDFBool,
  type PDFContext,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  type PDFObject,
  PDFObjectParser,
  PDFParser,
  PDFRawStream,
  PDFRef,
  PDFString,
} from '@cantoo/pdf-lib';
import { inEnglish, type KeyedSentence } from '../i18n/refusals.ts';
import type { EncryptionFacts } from './encryption.ts';
import { type PredictorParameters, undoPredictor } from './predictors.ts';

export class AmbiguousPdfError extends Error {
  /** Why, as the upload's refusal says it (a key of the catalogues). */
  readonly refusal: KeyedSentence;
  constructor(refusal: KeyedSentence) {
    super(inEnglish(refusal));
    this.refusal = refusal;
  }
}

/**
 * The newest trailer names an encryption dictionary: pdf-lib reads no encrypted string or
 * stream, so no reading of the file is checked or given. `facts` are the dictionary's entries,
 * found through the cross-reference chain as readers find it (null when it cannot be read);
 * encryption.ts tells from them which kind of protection it is.
 */
export class EncryptedPdfError extends Error {
  readonly facts: EncryptionFacts | null;
  constructor(facts: EncryptionFacts | null) {
    super('This PDF is encrypted or password-protected.');
    this.facts = facts;
  }
}

const ambiguous: KeyedSentence = { key: 'upload.ambiguous' };
const damagedChain: KeyedSentence = { key: 'upload.damagedIndex' };

// Sections in one chain, more than any real file's revisions (each save of an editor adds one).
const maxSections = 10_000;

/** Where pdf-lib found the definition it kept of an object. */
interface Definition {
  /** Offset of the top-level object: the object itself, or the object stream holding it. */
  at: number;
  generation: number;
  /** Its place in the object stream at `at`, or -1 for a top-level object. */
  index: number;
}

type Entry =
  | { kind: 'free' }
  | { kind: 'top'; offset: number; generation: number }
  | { kind: 'member'; stream: number; index: number };

interface Chain {
  entries: Map<number, Entry>;
  /** Offsets where the sections begin (tables and streams), which divide the file into revisions. */
  sectionOffsets: number[];
  /** The trailers, newest first. */
  trailers: PDFDict[];
  newest: number;
}

interface Recorder {
  /** Every definition pdf-lib parsed, in file order, by object number. */
  definitions: Map<number, Definition[]>;
}

type ParserInternals = {
  bytes: { offset(): number };
  context: PDFContext;
  parseIndirectObject(): Promise<PDFRef>;
  tryToParseInvalidIndirectObject(): PDFRef | undefined;
};

function record(parser: PDFParser): Recorder {
  const internals = parser as unknown as ParserInternals;
  const definitions = new Map<number, Definition[]>();
  const context = internals.context;
  let top: { at: number; assigned: Array<{ ref: PDFRef }> } | null = null;
  const assign = context.assign.bind(context);
  context.assign = (ref: PDFRef, object: PDFObject) => {
    top?.assigned.push({ ref });
    assign(ref, object);
  };
  const define = (at: number, assigned: Array<{ ref: PDFRef }>, own: PDFRef | undefined) => {
    let index = 0;
    for (const { ref } of assigned) {
      const isOwn = own !== undefined && ref === own;
      const list = definitions.get(ref.objectNumber) ?? [];
      list.push({ at, generation: ref.generationNumber, index: isOwn ? -1 : index++ });
      definitions.set(ref.objectNumber, list);
    }
  };
  const parseIndirectObject = internals.parseIndirectObject.bind(parser);
  internals.parseIndirectObject = async () => {
    const at = internals.bytes.offset();
    top = { at, assigned: [] };
    const current = top;
    try {
      const ref = await parseIndirectObject();
      define(at, current.assigned, ref);
      return ref;
    } finally {
      top = null;
    }
  };
  const tryInvalid = internals.tryToParseInvalidIndirectObject.bind(parser);
  internals.tryToParseInvalidIndirectObject = () => {
    const at = internals.bytes.offset();
    top = { at, assigned: [] };
    const current = top;
    try {
      const ref = tryInvalid();
      define(at, current.assigned, ref);
      return ref;
    } finally {
      top = null;
    }
  };
  return { definitions };
}

const isWhite = (byte: number) =>
  byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;

function skipWhite(bytes: Uint8Array, at: number): number {
  let offset = at;
  while (offset < bytes.length && isWhite(bytes[offset] as number)) offset++;
  return offset;
}

function text(bytes: Uint8Array, from: number, length: number): string {
  return Buffer.from(
    bytes.buffer,
    bytes.byteOffset + from,
    Math.max(0, Math.min(length, bytes.length - from)),
  ).toString('latin1');
}

/** The offset the file's last `startxref` names: where readers start. */
function lastStartXref(bytes: Uint8Array): number {
  const tailStart = Math.max(0, bytes.length - 4096);
  const tail = text(bytes, tailStart, bytes.length - tailStart);
  const at = tail.lastIndexOf('startxref');
  const match = at < 0 ? null : /^startxref\s+(\d+)/.exec(tail.slice(at));
  if (!match) throw new AmbiguousPdfError(damagedChain);
  return Number(match[1]);
}

/** Parses the direct object at `offset` (after an `N G obj` header when `header`). */
function parseAt(bytes: Uint8Array, offset: number, context: PDFContext): PDFObject {
  return PDFObjectParser.forBytes(bytes.subarray(offset), context).parseObject();
}

const objectHeader = /^(\d+)\s+(\d+)\s+obj\b/;

function readTable(
  bytes: Uint8Array,
  offset: number,
  context: PDFContext,
  entries: Map<number, Entry>,
): PDFDict {
  // Entries are 20 bytes each; read as tokens, since writers vary the white space.
  const trailerAt = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf(
    'trailer',
    offset,
    'latin1',
  );
  if (trailerAt < 0) throw new AmbiguousPdfError(damagedChain);
  const tokens = text(bytes, offset + 4, trailerAt - offset - 4)
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  const found: Array<[number, Entry]> = [];
  let position = 0;
  while (position < tokens.length) {
    let first = Number(tokens[position]);
    const count = Number(tokens[position + 1]);
    if (!Number.isInteger(first) || !Number.isInteger(count) || count < 0)
      throw new AmbiguousPdfError(damagedChain);
    position += 2;
    // Some writers number the table from 1 though its first entry is object 0's (the head of
    // the free list, 0000000000 65535 f): poppler and pdf.js both read it as starting at 0.
    if (
      first === 1 &&
      tokens[position] === '0000000000' &&
      tokens[position + 1] === '65535' &&
      tokens[position + 2] === 'f'
    ) {
      first = 0;
    }
    for (let n = 0; n < count; n++, position += 3) {
      const [where, generation, kind] = [tokens[position], tokens[position + 1], tokens[position + 2]];
      if (!/^\d+$/.test(where ?? '') || !/^\d+$/.test(generation ?? '') || (kind !== 'n' && kind !== 'f')) {
        throw new AmbiguousPdfError(damagedChain);
      }
      found.push([
        first + n,
        kind === 'n'
          ? { kind: 'top', offset: Number(where), generation: Number(generation) }
          : { kind: 'free' },
      ]);
    }
  }
  for (const [number, entry] of found) if (!entries.has(number)) entries.set(number, entry);
  const trailer = parseAt(bytes, trailerAt + 'trailer'.length, context);
  if (!(trailer instanceof PDFDict)) throw new AmbiguousPdfError(damagedChain);
  return trailer;
}

function integersOf(dict: PDFDict, key: string): number[] | undefined {
  const array = dict.lookup(PDFName.of(key));
  if (array === undefined) return undefined;
  if (!(array instanceof PDFArray)) throw new AmbiguousPdfError(damagedChain);
  return array.asArray().map((item) => {
    if (!(item instanceof PDFNumber) || !Number.isInteger(item.asNumber()) || item.asNumber() < 0) {
      throw new AmbiguousPdfError(damagedChain);
    }
    return item.asNumber();
  });
}

/**
 * The predictor of a stream's last filter (pdf-lib's decoders undo none). A predictor belongs
 * to a Flate or LZW filter; on any but the last of a chain it would have to be undone between
 * two filters, which no writer of cross-reference streams does: such a stream is unread.
 */
function predictorOf(dict: PDFDict): PredictorParameters {
  const parameters = dict.lookup(PDFName.of('DecodeParms'));
  const filters = dict.lookup(PDFName.of('Filter'));
  const list =
    parameters instanceof PDFArray
      ? parameters.asArray().map((item) => dict.context.lookup(item))
      : [parameters];
  const count = filters instanceof PDFArray ? filters.size() : 1;
  const last = list.length === count ? list.at(-1) : undefined;
  for (const earlier of list.slice(0, -1)) {
    if (earlier instanceof PDFDict && earlier.has(PDFName.of('Predictor')))
      throw new AmbiguousPdfError(damagedChain);
  }
  const number = (key: string, fallback: number) => {
    const value = last instanceof PDFDict ? last.lookup(PDFName.of(key)) : undefined;
    if (value === undefined) return fallback;
    if (!(value instanceof PDFNumber)) throw new AmbiguousPdfError(damagedChain);
    return value.asNumber();
  };
  return {
    predictor: number('Predictor', 1),
    colors: number('Colors', 1),
    bitsPerComponent: number('BitsPerComponent', 8),
    columns: number('Columns', 1),
  };
}

// A cross-reference stream's entries (ISO 32000 7.5.8.3), read here rather than by pdf-lib's
// PDFXRefStreamParser, which drops an object's index within its object stream.
function streamEntries(stream: PDFRawStream): Array<[number, Entry]> {
  const widths = integersOf(stream.dict, 'W');
  const size = stream.dict.lookup(PDFName.of('Size'));
  if (widths?.length !== 3 || !(size instanceof PDFNumber)) throw new AmbiguousPdfError(damagedChain);
  if (widths.some((width) => width > 8) || (widths[1] as number) === 0)
    throw new AmbiguousPdfError(damagedChain);
  const index = integersOf(stream.dict, 'Index') ?? [0, size.asNumber()];
  if (index.length % 2 !== 0) throw new AmbiguousPdfError(damagedChain);
  let data: Uint8Array;
  try {
    data = undoPredictor(decodePDFRawStream(stream).decode(), predictorOf(stream.dict));
  } catch {
    throw new AmbiguousPdfError(damagedChain);
  }
  const [typeWidth, offsetWidth, thirdWidth] = widths as [number, number, number];
  const rowLength = typeWidth + offsetWidth + thirdWidth;
  const found: Array<[number, Entry]> = [];
  let at = 0;
  const field = (width: number, fallback: number) => {
    if (width === 0) return fallback;
    let value = 0;
    for (let n = 0; n < width; n++) value = value * 256 + (data[at++] as number);
    return value;
  };
  for (let pair = 0; pair < index.length; pair += 2) {
    const [first, count] = [index[pair] as number, index[pair + 1] as number];
    if (at + count * rowLength > data.length) throw new AmbiguousPdfError(damagedChain);
    for (let n = 0; n < count; n++) {
      const type = field(typeWidth, 1);
      const second = field(offsetWidth, 0);
      const third = field(thirdWidth, 0);
      // Types other than 1 and 2 are references to the null object (7.5.8.3).
      found.push([
        first + n,
        type === 1
          ? { kind: 'top', offset: second, generation: third }
          : type === 2
            ? { kind: 'member', stream: second, index: third }
            : { kind: 'free' },
      ]);
    }
  }
  return found;
}

function readStream(
  bytes: Uint8Array,
  offset: number,
  context: PDFContext,
  entries: Map<number, Entry>,
): PDFDict {
  const header = objectHeader.exec(text(bytes, offset, 40));
  if (!header) throw new AmbiguousPdfError(damagedChain);
  const stream = parseAt(bytes, offset + header[0].length, context);
  if (!(stream instanceof PDFRawStream) || stream.dict.lookup(PDFName.of('Type')) !== PDFName.of('XRef')) {
    throw new AmbiguousPdfError(damagedChain);
  }
  for (const [number, entry] of streamEntries(stream)) if (!entries.has(number)) entries.set(number, entry);
  return stream.dict;
}

function offsetOf(dict: PDFDict, key: string, size: number): number | undefined {
  const value = dict.get(PDFName.of(key));
  if (value === undefined) return undefined;
  if (!(value instanceof PDFNumber)) throw new AmbiguousPdfError(damagedChain);
  const offset = value.asNumber();
  if (!Number.isInteger(offset) || offset < 0 || offset >= size) throw new AmbiguousPdfError(damagedChain);
  return offset;
}

/** The cross-reference chain as readers read it: newest section first, an entry's first sighting wins. */
function readChain(bytes: Uint8Array, context: PDFContext): Chain {
  const newest = lastStartXref(bytes);
  const entries = new Map<number, Entry>();
  const sectionOffsets: number[] = [];
  const trailers: PDFDict[] = [];
  const seen = new Set<number>();
  let next: number | undefined = newest;
  while (next !== undefined) {
    if (seen.has(next) || seen.size >= maxSections || next < 0 || next >= bytes.length) {
      throw new AmbiguousPdfError(damagedChain);
    }
    seen.add(next);
    const at = skipWhite(bytes, next);
    sectionOffsets.push(at);
    let trailer: PDFDict;
    if (text(bytes, at, 4) === 'xref') {
      trailer = readTable(bytes, at, context, entries);
      // A hybrid file's table names a cross-reference stream for the objects in object
      // streams: part of the same section, read after the table and before /Prev.
      const hybrid = offsetOf(trailer, 'XRefStm', bytes.length);
      if (hybrid !== undefined && !seen.has(hybrid)) {
        seen.add(hybrid);
        sectionOffsets.push(skipWhite(bytes, hybrid));
        readStream(bytes, skipWhite(bytes, hybrid), context, entries);
      }
    } else {
      trailer = readStream(bytes, at, context, entries);
    }
    trailers.push(trailer);
    next = offsetOf(trailer, 'Prev', bytes.length);
  }
  return { entries, sectionOffsets: sectionOffsets.sort((a, b) => a - b), trailers, newest };
}

/** Which revision (the stretch of the file before a section) an offset lies in. */
function revisionOf(sectionOffsets: number[], offset: number): number {
  let low = 0;
  let high = sectionOffsets.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((sectionOffsets[middle] as number) < offset) low = middle + 1;
    else high = middle;
  }
  return low;
}

function checkAgreement(bytes: Uint8Array, chain: Chain, recorder: Recorder, context: PDFContext): void {
  const { entries, sectionOffsets } = chain;
  for (const [number, definitions] of recorder.definitions) {
    const revisions = new Set<number>();
    for (const definition of definitions) {
      const revision = revisionOf(sectionOffsets, definition.at);
      if (revisions.has(revision)) throw new AmbiguousPdfError(ambiguous);
      revisions.add(revision);
    }
    const entry = entries.get(number);
    if (entry === undefined || entry.kind === 'free') {
      // Readers resolve a reference to it as null: so does everything after this.
      context.delete(PDFRef.of(number, (definitions.at(-1) as Definition).generation));
    }
  }
  for (const [number, entry] of entries) {
    if (entry.kind === 'free' || number === 0) continue;
    const kept = recorder.definitions.get(number)?.at(-1);
    if (!kept) throw new AmbiguousPdfError(ambiguous);
    if (entry.kind === 'top') {
      if (kept.index !== -1 || kept.generation !== entry.generation) throw new AmbiguousPdfError(ambiguous);
      if (skipWhite(bytes, entry.offset) !== skipWhite(bytes, kept.at))
        throw new AmbiguousPdfError(ambiguous);
    } else {
      const stream = entries.get(entry.stream);
      if (stream?.kind !== 'top' || kept.index !== entry.index || kept.generation !== 0) {
        throw new AmbiguousPdfError(ambiguous);
      }
      if (skipWhite(bytes, stream.offset) !== skipWhite(bytes, kept.at))
        throw new AmbiguousPdfError(ambiguous);
    }
  }
}

/** A trailer entry from the newest section that has it, as readers take it. */
function newestOf(chain: Chain, key: string): PDFObject | undefined {
  for (const trailer of chain.trailers) {
    const value = trailer.get(PDFName.of(key));
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * The encryption dictionary the trailer names, read at the offset its cross-reference entry
 * gives (it is never in an object stream: ISO 32000-2 7.5.7), with the entries the password
 * check needs; null when it is not there or not in shape.
 */
function encryptionFacts(
  bytes: Uint8Array,
  chain: Chain,
  context: PDFContext,
  named: PDFObject,
): EncryptionFacts | null {
  let dict: PDFObject | undefined = named;
  if (named instanceof PDFRef) {
    const entry = chain.entries.get(named.objectNumber);
    if (entry?.kind !== 'top') return null;
    const at = skipWhite(bytes, entry.offset);
    const header = objectHeader.exec(text(bytes, at, 40));
    if (header?.[1] !== String(named.objectNumber)) return null;
    dict = parseAt(bytes, at + header[0].length, context);
  }
  if (!(dict instanceof PDFDict)) return null;
  const number = (key: string) => {
    const value = dict.lookup(PDFName.of(key));
    return value instanceof PDFNumber ? value.asNumber() : null;
  };
  const bytesOf = (value: PDFObject | undefined) =>
    value instanceof PDFString || value instanceof PDFHexString ? value.asBytes() : null;
  const filter = dict.lookup(PDFName.of('Filter'));
  const [owner, user] = [bytesOf(dict.lookup(PDFName.of('O'))), bytesOf(dict.lookup(PDFName.of('U')))];
  const [version, revision, permissions] = [number('V'), number('R'), number('P')];
  if (owner === null || user === null || revision === null || permissions === null) return null;
  const id = newestOf(chain, 'ID');
  const firstId = id instanceof PDFArray ? bytesOf(context.lookup(id.get(0))) : null;
  return {
    filter: filter instanceof PDFName ? filter.decodeText() : null,
    version: version ?? 0,
    revision,
    length: number('Length'),
    owner,
    user,
    permissions,
    encryptMetadata: dict.lookup(PDFName.of('EncryptMetadata')) !== PDFBool.False,
    firstId: firstId ?? new Uint8Array(0),
  };
}

/** The trailer's entries from the newest section that has each, as readers take them. */
function setTrailer(context: PDFContext, chain: Chain): void {
  const size = newestOf(chain, 'Size');
  context.trailerInfo = {
    Size: size instanceof PDFNumber ? size : undefined,
    Root: newestOf(chain, 'Root'),
    Encrypt: newestOf(chain, 'Encrypt'),
    Info: newestOf(chain, 'Info'),
    ID: newestOf(chain, 'ID'),
  };
  context.pdfFileDetails.prevStartXRef = chain.newest;
}

type DocumentConstructor = new (
  context: PDFContext,
  ignoreEncryption: boolean,
  updateMetadata: boolean,
  preserveXFA: boolean,
) => PDFDocument;

export interface LoadOptions {
  /** Keep the bytes and a snapshot, for an update appended to them (certificate, seal). */
  forIncrementalUpdate?: boolean;
  /** Objects parsed between yields to the event loop. */
  parseSpeed?: number;
}

/**
 * `bytes` as readers read them, loaded by pdf-lib; an AmbiguousPdfError (its message one
 * sentence for the sender) when pdf-lib's reading and the cross-reference sections disagree.
 * Any other error means pdf-lib could not parse the file at all.
 */
export async function loadPdf(bytes: Uint8Array, options: LoadOptions = {}): Promise<PDFDocument> {
  const forIncrementalUpdate = options.forIncrementalUpdate ?? false;
  const parser = PDFParser.forBytesWithOptions(
    bytes,
    options.parseSpeed ?? 100, // pdf-lib's own default (ParseSpeeds.Slow)
    false,
    false,
    false,
    undefined,
    forIncrementalUpdate,
  );
  const recorder = record(parser);
  const context = await parser.parseDocument();
  if (recorder.definitions.size === 0) throw new AmbiguousPdfError(damagedChain);
  let chain: Chain;
  try {
    chain = readChain(bytes, context);
  } catch (error) {
    if (error instanceof AmbiguousPdfError) throw error;
    throw new AmbiguousPdfError(damagedChain);
  }
  // An encrypted file's object streams and strings are ciphertext to pdf-lib: there is no
  // reading to compare, only the sentence that says what kind of protection it has.
  const encrypt = newestOf(chain, 'Encrypt');
  if (encrypt !== undefined) {
    let facts: EncryptionFacts | null;
    try {
      facts = encryptionFacts(bytes, chain, context, encrypt);
    } catch {
      facts = null;
    }
    throw new EncryptedPdfError(facts);
  }
  checkAgreement(bytes, chain, recorder, context);
  setTrailer(context, chain);
  const root = context.lookup(context.trailerInfo.Root);
  if (!(root instanceof PDFDict) || root.lookup(PDFName.of('Type')) !== PDFName.of('Catalog')) {
    throw new AmbiguousPdfError(damagedChain);
  }
  // pdf-lib's own load does exactly this after parsing (its constructor is private in the types).
  const document = new (PDFDocument as unknown as DocumentConstructor)(context, true, false, false);
  if (forIncrementalUpdate) document.takeSnapshot();
  return document;
}
