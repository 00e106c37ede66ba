// What an embedded font program says of its glyphs, for the text-truth rule (text-truth.ts):
// a TrueType or OpenType program (/FontFile2, /FontFile3 /OpenType), read with fontkit, gives
// each glyph's characters by its own Unicode cmap ((3,10), (3,1), (0,*)) read backwards and its
// name (post table, CFF charset), and the glyph a simple font's code selects through the
// (3,0) or (1,0) cmap (ISO 32000-1 9.6.6.4; a program with neither, through its Unicode cmap
// with the code as the character, as pdf.js and poppler do); a Type 1 program (/FontFile) gives its built-in
// encoding (`dup 48 /zero put` in its clear-text part). Bare CFF programs (/FontFile3 /Type1C,
// /CIDFontType0C) are not read: their glyphs stay unjudged.
//
// Every stream is decoded here with the decode budget's bounded decoders (stream-decoders.ts)
// and a cap of its own: a font program at most `maxProgramBytes`, a CMap or CIDToGIDMap at most
// `maxTableBytes`, all of them in one file at most `maxFileBytes`; past a cap the stream is over the budget (`OverBudget`), which refuses the
// file as a CMap too large to read does. A stream that does not decode (an unknown filter, a
// predictor, broken data) says nothing.
import fontkit, { type Font } from '@cantoo/fontkit';
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRawStream } from '@cantoo/pdf-lib';
import { decoderFactories } from './stream-decoders.ts';
import type { Value } from './stream-scan.ts';

/** A font program larger than any real one (a whole CJK face is 10 to 20 MB). */
export const maxProgramBytes = 32 * 1024 * 1024;
/** A CMap or a CIDToGIDMap: 65,536 entries of a few dozen bytes. */
export const maxTableBytes = 4 * 1024 * 1024;

/** What all of one file's fonts, CMaps and CIDToGIDMaps may decode to together. */
export const maxFileBytes = 128 * 1024 * 1024;

export class OverBudget extends Error {}

/** The bytes one file's reading may still decode (from `maxFileBytes` down). */
export interface Allowance {
  bytes: number;
}

/**
 * `stream`'s data decoded, at most `cap` bytes and what `allowance` has left (else
 * OverBudget); null when it cannot be.
 */
export function decodedBytes(stream: PDFRawStream, cap: number, allowance: Allowance): Uint8Array | null {
  const filter = stream.dict.lookup(PDFName.of('Filter'));
  const names = (filter instanceof PDFArray ? filter.asArray() : filter === undefined ? [] : [filter]).map(
    (item) => (item instanceof PDFName ? item.decodeText() : null),
  );
  if (names.includes(null)) return null;
  const parms = stream.dict.lookup(PDFName.of('DecodeParms'));
  const parmsAt = (index: number) => {
    const item = parms instanceof PDFArray ? parms.lookup(index) : index === 0 ? parms : undefined;
    if (!(item instanceof PDFDict)) return undefined;
    if ((item.lookup(PDFName.of('Predictor'), PDFNumber)?.asNumber() ?? 1) > 1) return null;
    const early = item.lookup(PDFName.of('EarlyChange'));
    return new Map<string, Value>(early instanceof PDFNumber ? [['EarlyChange', early.asNumber()]] : []);
  };
  let data: Uint8Array = stream.contents;
  for (const [index, name] of (names as string[]).entries()) {
    const make = decoderFactories.get(name);
    const stageParms = parmsAt(index);
    if (make === undefined || stageParms === null) return null;
    const chunks: Uint8Array[] = [];
    let total = 0;
    const decoder = make((chunk) => {
      total += chunk.length;
      allowance.bytes -= chunk.length;
      if (total > cap || allowance.bytes < 0) throw new OverBudget();
      chunks.push(chunk.slice());
    }, stageParms);
    decoder.push(data);
    decoder.end();
    data = Buffer.concat(chunks);
  }
  if (data.length > cap) throw new OverBudget();
  if (names.length === 0) {
    allowance.bytes -= data.length;
    if (allowance.bytes < 0) throw new OverBudget();
  }
  return data;
}

// fontkit's parsed cmap table, as far as it is read here.
interface Lazy<T> {
  get(index: number): T | undefined;
}
interface Subtable {
  version: number;
  codeMap?: Lazy<number>;
  segCount?: number;
  startCode?: Lazy<number>;
  endCode?: Lazy<number>;
  idDelta?: Lazy<number>;
  idRangeOffset?: Lazy<number>;
  glyphIndexArray?: Lazy<number>;
  firstCode?: number;
  entryCount?: number;
  glyphIndices?: Lazy<number>;
  nGroups?: number;
  groups?: Lazy<{ startCharCode: number; endCharCode: number; glyphID: number }>;
}
interface CmapTable {
  tables: Array<{ platformID: number; encodingID: number; table: Subtable }>;
}

// Mappings in one subtable at most: a 32-bit table can claim four billion.
const maxMappings = 1 << 18;

/** Every code → glyph of a subtable (formats 0, 4, 6, 10, 12; others say nothing). */
function mappings(table: Subtable, visit: (code: number, gid: number) => void): void {
  let count = 0;
  const add = (code: number, gid: number) => {
    if (++count > maxMappings) throw new OverBudget();
    if (gid !== 0) visit(code, gid);
  };
  if (table.version === 0 && table.codeMap) {
    for (let code = 0; code < 256; code++) add(code, table.codeMap.get(code) ?? 0);
  } else if (table.version === 4 && table.segCount !== undefined) {
    const { segCount, startCode, endCode, idDelta, idRangeOffset, glyphIndexArray } = table;
    for (let seg = 0; seg < segCount; seg++) {
      const start = startCode?.get(seg) ?? 0;
      const end = endCode?.get(seg) ?? 0;
      const delta = idDelta?.get(seg) ?? 0;
      const rangeOffset = idRangeOffset?.get(seg) ?? 0;
      for (let code = start; code <= end && code !== 0xffff; code++) {
        let gid: number;
        if (rangeOffset === 0) gid = code + delta;
        else {
          gid = glyphIndexArray?.get(rangeOffset / 2 + (code - start) - (segCount - seg)) ?? 0;
          if (gid !== 0) gid += delta;
        }
        add(code, gid & 0xffff);
      }
    }
  } else if ((table.version === 6 || table.version === 10) && table.glyphIndices) {
    for (let k = 0; k < (table.entryCount ?? 0); k++)
      add((table.firstCode ?? 0) + k, table.glyphIndices.get(k) ?? 0);
  } else if (table.version === 12 && table.groups) {
    for (let g = 0; g < (table.nGroups ?? 0); g++) {
      const group = table.groups.get(g);
      if (!group) continue;
      for (let code = group.startCharCode; code <= group.endCharCode; code++) {
        add(code, group.glyphID + code - group.startCharCode);
      }
    }
  }
}

export interface FontProgram {
  /** What the program says glyph `gid` is: characters by its Unicode cmap, and its name. */
  glyphTexts(gid: number): { characters: string[]; name: string | null };
  /** The glyph a simple TrueType font's code selects without an encoding (9.6.6.4). */
  glyphForCode(code: number): number | undefined;
  /** False for a CID-keyed CFF program, whose glyph numbers are not CIDs. */
  readonly glyphsAreCids: boolean;
}

function openTypeProgram(bytes: Uint8Array): FontProgram | null {
  let font: Font;
  try {
    const made = fontkit.create(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if (!('getGlyph' in made)) return null;
    font = made;
  } catch {
    return null;
  }
  const tables = (font as unknown as { cmap?: CmapTable }).cmap?.tables ?? [];
  const find = (platform: number, encoding?: number) =>
    tables.find((t) => t.platformID === platform && (encoding === undefined || t.encodingID === encoding))
      ?.table;
  let unicode: Map<number, number[]> | null = null;
  let symbolic: Map<number, number> | null = null;
  const cff = (font as unknown as { 'CFF '?: { isCIDFont?: boolean } })['CFF '];
  return {
    glyphsAreCids: !cff?.isCIDFont,
    glyphTexts(gid) {
      if (unicode === null) {
        const reverse = new Map<number, number[]>();
        const table = find(3, 10) ?? find(3, 1) ?? find(0);
        if (table) {
          try {
            mappings(table, (code, glyph) => {
              const list = reverse.get(glyph);
              if (list) list.push(code);
              else reverse.set(glyph, [code]);
            });
          } catch (error) {
            if (error instanceof OverBudget) throw error;
          }
        }
        unicode = reverse;
      }
      let name: string | null = null;
      try {
        name = gid < font.numGlyphs ? (font.getGlyph(gid)?.name ?? null) : null;
      } catch {
        name = null;
      }
      const characters = (unicode.get(gid) ?? [])
        .filter((code) => code <= 0x10ffff && (code < 0xd800 || code > 0xdfff))
        .map((code) => String.fromCodePoint(code));
      return { characters, name };
    },
    glyphForCode(code) {
      if (symbolic === null) {
        const forward = new Map<number, number>();
        const microsoft = find(3, 0);
        const mac = find(1, 0);
        try {
          // (3,0): the code itself, or in the F000–F0FF block where symbolic fonts map it.
          if (microsoft)
            mappings(microsoft, (c, gid) => {
              if (c <= 0xff || (c >= 0xf000 && c <= 0xf0ff))
                forward.set(c & 0xff, forward.get(c & 0xff) ?? gid);
            });
          else if (mac) mappings(mac, (c, gid) => forward.set(c, gid));
          else {
            // Only a Unicode cmap: readers take the code as its character (pdf.js, poppler).
            const unicode = find(3, 1) ?? find(0);
            if (unicode) mappings(unicode, (c, gid) => c <= 0xff && forward.set(c, gid));
          }
        } catch (error) {
          if (error instanceof OverBudget) throw error;
        }
        symbolic = forward;
      }
      return symbolic.get(code);
    },
  };
}

/** A Type 1 program's built-in encoding, from its clear-text part (`dup 48 /zero put`). */
function type1Encoding(stream: PDFRawStream, allowance: Allowance): Map<number, string> | 'standard' | null {
  const bytes = decodedBytes(stream, maxProgramBytes, allowance);
  if (bytes === null) return null;
  const length1 = stream.dict.lookup(PDFName.of('Length1'), PDFNumber)?.asNumber();
  const clear = Buffer.from(
    bytes.subarray(0, Math.min(bytes.length, length1 ?? bytes.length, 1024 * 1024)),
  ).toString('latin1');
  const at = clear.indexOf('/Encoding');
  if (at < 0) return null;
  if (/^\/Encoding\s+StandardEncoding\s+def/.test(clear.slice(at))) return 'standard';
  const end = clear.indexOf('readonly def', at);
  const part = clear.slice(at, end < 0 ? undefined : end);
  const encoding = new Map<number, string>();
  for (const match of part.matchAll(/dup\s+(\d+)\s*\/([^\s/[\]()<>{}%]+)\s+put/g)) {
    encoding.set(Number(match[1]), match[2] as string);
  }
  return encoding;
}

export interface EmbeddedFont {
  program: FontProgram | null;
  /** A Type 1 program's built-in encoding ('standard' when it says StandardEncoding). */
  builtin: Map<number, string> | 'standard' | null;
}

/** What `descriptor`'s embedded program says, read once; nothing when none is readable. */
export function embeddedFont(descriptor: PDFDict | undefined, allowance: Allowance): EmbeddedFont {
  const none: EmbeddedFont = { program: null, builtin: null };
  if (!descriptor) return none;
  const fontFile2 = descriptor.lookup(PDFName.of('FontFile2'));
  const fontFile3 = descriptor.lookup(PDFName.of('FontFile3'));
  const fontFile = descriptor.lookup(PDFName.of('FontFile'));
  if (fontFile2 instanceof PDFRawStream) {
    const bytes = decodedBytes(fontFile2, maxProgramBytes, allowance);
    return { program: bytes && openTypeProgram(bytes), builtin: null };
  }
  if (fontFile3 instanceof PDFRawStream) {
    const subtype = fontFile3.dict.lookup(PDFName.of('Subtype'));
    if (!(subtype instanceof PDFName) || subtype.decodeText() !== 'OpenType') return none;
    const bytes = decodedBytes(fontFile3, maxProgramBytes, allowance);
    return { program: bytes && openTypeProgram(bytes), builtin: null };
  }
  if (fontFile instanceof PDFRawStream) return { program: null, builtin: type1Encoding(fontFile, allowance) };
  return none;
}
