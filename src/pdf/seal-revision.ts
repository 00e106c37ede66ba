// The last revision a signature covers, read through that revision's own cross-reference
// section (a table, or a cross-reference stream of uncompressed objects) and never from earlier
// bytes: what Signet's own revision says about its seal (SealRevision), for verify.ts. Bounded
// like the rest of the raw reading: a handful of objects, a small stream, one section.
import { inflateSync } from 'node:zlib';
import {
  holdsContents,
  nameEntry,
  numbersOf,
  type PdfValue,
  parsePdfDate,
  Reader,
  readDictionaryAt,
  type Span,
  SyntaxFault,
  textEntry,
} from './raw-objects.ts';

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
const lockedWidgetKeys = ['AP', 'F', 'FT', 'Lock', 'P', 'Rect', 'Subtype', 'T', 'Type', 'V'].join(' ');

// A seal after someone else's signature locks its own field (seal.ts): the widget then has one
// key more, /Lock, and only as Signet writes it, so no other widget passes for Signet's.
function hasSignetKeys(widget: Map<string, PdfValue>): boolean {
  const keys = [...widget.keys()].sort().join(' ');
  if (keys === signetWidgetKeys) return true;
  const lock = widget.get('Lock');
  if (keys !== lockedWidgetKeys || lock?.kind !== 'dict') return false;
  const p = lock.entries.get('P');
  return (
    [...lock.entries.keys()].sort().join(' ') === 'Action P Type' &&
    nameEntry(lock.entries, 'Type') === 'SigFieldLock' &&
    nameEntry(lock.entries, 'Action') === 'All' &&
    p?.kind === 'number' &&
    p.value === 1
  );
}

/** What the last revision `byteRange` covers says about its signature (see SealRevision). Never throws. */
export function readSealRevision(
  bytes: Buffer,
  byteRange: [number, number, number, number],
): SealRevision | null {
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
      hasSignetKeys(widget) &&
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
