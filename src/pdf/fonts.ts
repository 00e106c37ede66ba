// The fonts of every PDF Signet writes, all from npm packages (no system fonts, nothing
// downloaded), and **the** rule of what text Signet can draw (`drawingProblem`).
// Noto Sans for Latin, Greek and Cyrillic; Noto Sans Arabic, Hebrew, Thai, Georgian and
// Armenian; Noto Sans SC for Chinese, Noto Sans JP for Japanese, Noto Sans KR for Korean;
// Noto Emoji (monochrome: a PDF face draws in one colour); Caveat, a handwriting face, for
// typed signatures. Each word is set in the first face of its chain that is meant for its
// script and has a glyph for every one of its characters; a text with a character no face
// has is refused where it is typed, so nothing is ever drawn as an empty box.
//
// A line is laid out in three steps: the Unicode bidirectional algorithm (UAX #9, bidi-js)
// gives each character its level; the line is cut into runs of one face and one level, and
// the runs are put in visual order (rule L2); each run is shaped by fontkit (Arabic joining,
// Thai marks, emoji sequences), right to left at odd levels. The runs are drawn with the
// shaped glyphs and their positions (`Shaped.draw`), so what fontkit shaped is what the PDF
// shows, and the subset's ToUnicode maps each glyph back to its characters.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fontkit, { type Font } from '@cantoo/fontkit';
import {
  beginText,
  type Color,
  endText,
  PDFArray,
  type PDFDocument,
  type PDFFont,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFOperator,
  PDFOperatorNames,
  type PDFPage,
  popGraphicsState,
  pushGraphicsState,
  type Rotation,
  setFillingColor,
  setFontAndSize,
  setTextMatrix,
  setTextRise,
  toRadians,
} from '@cantoo/pdf-lib';
import bidiModule, { type Bidi } from 'bidi-js';

const require = createRequire(import.meta.url);
// bidi-js is a CommonJS module whose export is the factory itself; its types declare it as
// an ES default export, which Node's CommonJS interop hands over as the module.
const bidi = (bidiModule as unknown as () => Bidi)();

const expo = (family: string, file: string) => `@expo-google-fonts/${family}/${file}.ttf`;
const faceFiles = {
  sans: expo('noto-sans', '400Regular/NotoSans_400Regular'),
  sansBold: expo('noto-sans', '700Bold/NotoSans_700Bold'),
  arabic: expo('noto-sans-arabic', '400Regular/NotoSansArabic_400Regular'),
  arabicBold: expo('noto-sans-arabic', '700Bold/NotoSansArabic_700Bold'),
  hebrew: expo('noto-sans-hebrew', '400Regular/NotoSansHebrew_400Regular'),
  hebrewBold: expo('noto-sans-hebrew', '700Bold/NotoSansHebrew_700Bold'),
  thai: expo('noto-sans-thai', '400Regular/NotoSansThai_400Regular'),
  thaiBold: expo('noto-sans-thai', '700Bold/NotoSansThai_700Bold'),
  georgian: expo('noto-sans-georgian', '400Regular/NotoSansGeorgian_400Regular'),
  georgianBold: expo('noto-sans-georgian', '700Bold/NotoSansGeorgian_700Bold'),
  armenian: expo('noto-sans-armenian', '400Regular/NotoSansArmenian_400Regular'),
  armenianBold: expo('noto-sans-armenian', '700Bold/NotoSansArmenian_700Bold'),
  cjk: expo('noto-sans-sc', '400Regular/NotoSansSC_400Regular'),
  cjkBold: expo('noto-sans-sc', '700Bold/NotoSansSC_700Bold'),
  jp: expo('noto-sans-jp', '400Regular/NotoSansJP_400Regular'),
  jpBold: expo('noto-sans-jp', '700Bold/NotoSansJP_700Bold'),
  kr: expo('noto-sans-kr', '400Regular/NotoSansKR_400Regular'),
  krBold: expo('noto-sans-kr', '700Bold/NotoSansKR_700Bold'),
  emoji: expo('noto-emoji', '400Regular/NotoEmoji_400Regular'),
  hand: expo('caveat', '400Regular/Caveat_400Regular'),
} as const;

export type Face = keyof typeof faceFiles;

// The scripts each face is for. A face is tried for a word only when every character of the
// word is of its scripts (or of none: punctuation, digits, marks), so a Thai name never
// parses the Korean face to find out it has no Thai: faces load only when a run needs them.
const neutral = String.raw`\p{Script=Common}\p{Script=Inherited}`;
const scriptsOf = (scripts: string) => new RegExp(`^[${scripts}${neutral}]$`, 'u');
const faceScripts: Record<Face, RegExp> = {
  sans: scriptsOf(String.raw`\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Devanagari}`),
  sansBold: scriptsOf(String.raw`\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Devanagari}`),
  arabic: scriptsOf(String.raw`\p{Script=Arabic}`),
  arabicBold: scriptsOf(String.raw`\p{Script=Arabic}`),
  hebrew: scriptsOf(String.raw`\p{Script=Hebrew}`),
  hebrewBold: scriptsOf(String.raw`\p{Script=Hebrew}`),
  thai: scriptsOf(String.raw`\p{Script=Thai}`),
  thaiBold: scriptsOf(String.raw`\p{Script=Thai}`),
  georgian: scriptsOf(String.raw`\p{Script=Georgian}`),
  georgianBold: scriptsOf(String.raw`\p{Script=Georgian}`),
  armenian: scriptsOf(String.raw`\p{Script=Armenian}`),
  armenianBold: scriptsOf(String.raw`\p{Script=Armenian}`),
  cjk: scriptsOf(String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}`),
  cjkBold: scriptsOf(String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}`),
  jp: scriptsOf(String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}`),
  jpBold: scriptsOf(String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}`),
  kr: scriptsOf(String.raw`\p{Script=Hangul}\p{Script=Han}`),
  krBold: scriptsOf(String.raw`\p{Script=Hangul}\p{Script=Han}`),
  emoji: scriptsOf(''),
  hand: scriptsOf(String.raw`\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}`),
};

const text = [
  'sans',
  'arabic',
  'hebrew',
  'thai',
  'georgian',
  'armenian',
  'cjk',
  'jp',
  'kr',
  'emoji',
] as const satisfies readonly Face[];

/**
 * Which faces a kind of text may use, in order of preference. Every chain ends with the
 * text chain, so whatever `drawingProblem` accepts can be drawn in every style (a Georgian
 * signature in Noto Sans Georgian, since Caveat has no Georgian).
 */
export const chains = {
  text,
  bold: [
    'sansBold',
    'arabicBold',
    'hebrewBold',
    'thaiBold',
    'georgianBold',
    'armenianBold',
    'cjkBold',
    'jpBold',
    'krBold',
    ...text,
  ],
  handwriting: ['hand', ...text],
} as const satisfies Record<string, readonly Face[]>;

export type Style = keyof typeof chains;

// A face is read and parsed once per process (Noto Sans SC is 10 MB), on first use.
const loaded = new Map<Face, { bytes: Uint8Array; font: Font }>();

/** Where a face's TrueType file is (in node_modules). */
export function fontFile(name: Face): string {
  return require.resolve(faceFiles[name]);
}

function face(name: Face): { bytes: Uint8Array; font: Font } {
  let entry = loaded.get(name);
  if (!entry) {
    const bytes = readFileSync(fontFile(name));
    entry = { bytes, font: fontkit.create(bytes) as Font };
    loaded.set(name, entry);
  }
  return entry;
}

/** The faces this process has parsed so far (the bench and the tests check laziness). */
export function loadedFaces(): Face[] {
  return [...loaded.keys()];
}

// Characters that are drawn as nothing: white space and line breaks become spaces and
// breaks, the bidirectional controls only steer the order (UAX #9 rule X9 removes them),
// joiners and variation selectors only steer shaping.
const bidiControl = /[\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]/u;
function isInvisible(char: string): boolean {
  const c = char.codePointAt(0) ?? 0;
  return (
    c === 0x09 ||
    c === 0x0a ||
    c === 0x0d ||
    c === 0x061c ||
    (c >= 0x200b && c <= 0x200f) ||
    (c >= 0x202a && c <= 0x202e) ||
    (c >= 0x2066 && c <= 0x2069) ||
    (c >= 0xfe00 && c <= 0xfe0f) ||
    (c >= 0xe0100 && c <= 0xe01ef)
  );
}

function hasGlyph(name: Face, char: string): boolean {
  const codePoint = char.codePointAt(0) ?? 0;
  if (codePoint === 0x20 || isInvisible(char)) return true;
  return faceScripts[name].test(char) && face(name).font.hasGlyphForCodePoint(codePoint);
}

function covers(name: Face, word: string): boolean {
  // The cheap test first, for every character, before the face is parsed.
  const chars = [...word];
  return (
    chars.every((char) => faceScripts[name].test(char) || isInvisible(char)) &&
    chars.every((char) => hasGlyph(name, char))
  );
}

const unicodeName = (char: string) =>
  `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/** The distinct characters of `text` that no face of Signet's has, in order of appearance. */
export function undrawableCharacters(text: string): string[] {
  const missing = new Set<string>();
  for (const char of text.normalize('NFC')) {
    if (!missing.has(char) && !chains.text.some((name) => hasGlyph(name, char))) missing.add(char);
  }
  return [...missing];
}

/**
 * **The** rule for any text Signet will draw in a PDF (a name, a title, a field's value, a
 * typed signature, a price line): every character must be one some face of Signet's can
 * draw. Returns what is wrong as the end of a sentence ("has a character that the signed
 * PDF cannot show: “ᱚ” (U+1C5A)"), or null. Callers store the text NFC-normalised
 * (`drawableText`), as it is measured and drawn.
 */
export function undrawableReason(value: string): string | null {
  const missing = undrawableCharacters(value);
  if (missing.length === 0) return null;
  const listed = missing
    .slice(0, 3)
    .map((char) =>
      /\p{Cc}|\p{Co}|\p{Cn}|\p{Cs}/u.test(char) ? unicodeName(char) : `“${char}” (${unicodeName(char)})`,
    )
    .join(', ');
  const more = missing.length > 3 ? ` and ${missing.length - 3} more` : '';
  return `has ${missing.length === 1 ? 'a character' : 'characters'} that the signed PDF cannot show: ${listed}${more}`;
}

/** The rule's sentence, to show where the text was typed (`what` names it: "The name"), or null. */
export function drawingProblem(what: string, value: string): string | null {
  const reason = undrawableReason(value);
  if (!reason) return null;
  const them = undrawableCharacters(value).length === 1 ? 'it' : 'them';
  return `${what} ${reason}. Please write it without ${them}.`;
}

/** `value` as every rule and the PDF see it: NFC, so a decomposed "é" is one letter. */
export function drawableText(value: string): string {
  return value.normalize('NFC');
}

// Japanese words (with kana) in the Japanese face first, so their kanji take Japanese shapes.
const kana = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;

function chainFor(style: Style, word: string): readonly Face[] {
  const chain: readonly Face[] = chains[style];
  if (!kana.test(word)) return chain;
  const japanese: Face = style === 'bold' ? 'jpBold' : 'jp';
  return [japanese, ...chain.filter((name) => name !== japanese)];
}

export interface Run {
  face: Face;
  text: string;
  /** In visual runs: the characters the run stands for, in logical order, as typed. */
  actual?: string;
}

/**
 * `text` cut into runs in logical order, each word set in the first face of the style's
 * chain that covers all of its characters ("Łódź 合同" is Noto Sans, then Noto Sans SC), so
 * a word never mixes faces. White space stays in the run before it (but for an emoji's). A
 * word no face covers whole is set grapheme by grapheme; a character no face has (text stored before the rule
 * refused it) becomes U+FFFD, the replacement character, in Noto Sans: never an empty box.
 */
export function runsOf(style: Style, value: string): Run[] {
  // A certificate sets the same words again and again (measured, wrapped, drawn): the runs
  // of a text are worked out once per process (the faces' coverage never changes).
  const key = `${style}\u0000${value}`;
  const known = knownRuns.get(key);
  if (known) return known.map((run) => ({ ...run }));
  const runs = findRuns(style, value);
  if (knownRuns.size >= 20_000) knownRuns.clear();
  knownRuns.set(key, runs);
  return runs.map((run) => ({ ...run }));
}

const knownRuns = new Map<string, Run[]>();

function findRuns(style: Style, value: string): Run[] {
  const runs: Run[] = [];
  const add = (name: Face, part: string) => {
    const last = runs.at(-1);
    if (last && last.face === name) last.text += part;
    else runs.push({ face: name, text: part });
  };
  const first = chains[style][0];
  for (const part of value.normalize('NFC').split(/(\s+)/)) {
    if (!part) continue;
    if (/^\s+$/.test(part)) {
      // Noto Emoji's space is an emoji wide: after an emoji the space is the text face's.
      const last = runs.at(-1);
      if (last && last.face !== 'emoji') last.text += part.replace(/\s/g, ' ');
      else add(first, part.replace(/\s/g, ' '));
      continue;
    }
    const chain = chainFor(style, part);
    const whole = chain.find((name) => covers(name, part));
    if (whole) {
      add(whole, part);
      continue;
    }
    // By grapheme, so an emoji sequence or a letter and its marks stay in one face.
    for (const { segment } of graphemes.segment(part)) {
      const name = chain.find((candidate) => covers(candidate, segment));
      if (name) add(name, segment);
      else add('sans', '\ufffd');
    }
  }
  return runs;
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

// Characters that can make any level odd: right-to-left letters (Hebrew, Arabic, Syriac,
// Thaana, NKo, their presentation forms, the right-to-left blocks beyond the BMP), Arabic
// digits, and the controls that open right-to-left embeddings.
const rightToLeftPossible =
  /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\u200f\u202b\u202e\u2067\u2068\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

function levelsOf(value: string, direction: 'ltr' | 'rtl' | undefined) {
  // Most lines hold nothing right to left: every level is 0, without running the algorithm.
  if (direction !== 'rtl' && !rightToLeftPossible.test(value))
    return {
      levels: new Uint8Array(value.length),
      paragraphs: [{ start: 0, end: value.length - 1, level: 0 }],
    };
  // bidi-js reads a string by UTF-16 unit, so a character outside the BMP would count as two
  // lone surrogates (class L). Each is replaced, for the levels alone, by two units of its
  // own class: emoji are other neutrals (ON), the rest (CJK extensions) left to right.
  const stand = value.replace(/[\u{10000}-\u{10ffff}]/gu, (char) =>
    /\p{Extended_Pictographic}|\p{Emoji_Modifier}/u.test(char) ? '\ufffc\ufffc' : 'AA',
  );
  return bidi.getEmbeddingLevels(stand, direction);
}

/** A paragraph's direction by its first strong letter (UAX #9 rules P2 and P3). */
export function paragraphDirection(value: string): 'ltr' | 'rtl' {
  return (levelsOf(value, undefined).paragraphs[0]?.level ?? 0) % 2 === 1 ? 'rtl' : 'ltr';
}

// What fontkit is told, through pdf-lib's `font.layout(text)`, about a run's direction: the
// first character of each run Signet shapes is one of these noncharacters (which no input
// can hold: `drawingProblem` refuses them), and the face's `layout` takes it off again.
const leftToRight = '\ufdd0';
const rightToLeft = '\ufdd1';

interface LogicalRun {
  face: Face;
  start: number;
  end: number;
  level: number;
}

/** `value` with every character no face has (text stored before the rule) as U+FFFD. */
function withReplacements(value: string): string {
  let out = '';
  for (const char of value.normalize('NFC'))
    out += chains.text.some((name) => hasGlyph(name, char)) ? char : '\ufffd';
  return out;
}

/**
 * One line of `value` as runs in visual order, left to right: each with its face, its text
 * in logical order (brackets mirrored at odd levels; bidirectional controls, and joiners the
 * face lacks, removed) behind its direction mark.
 */
function visualRuns(style: Style, value: string, direction: 'ltr' | 'rtl' | undefined): Run[] {
  const line = withReplacements(value);
  const embedding = levelsOf(line, direction);
  const mirrored = bidi.getMirroredCharactersMap(line, embedding.levels);
  const logical: LogicalRun[] = [];
  let offset = 0;
  for (const run of runsOf(style, line)) {
    for (const char of run.text) {
      const level = embedding.levels[offset] ?? 0;
      const last = logical.at(-1);
      if (last && last.face === run.face && last.level === level) last.end += char.length;
      else logical.push({ face: run.face, start: offset, end: offset + char.length, level });
      offset += char.length;
    }
  }
  const actualOf = (run: LogicalRun) =>
    [...line.slice(run.start, run.end)].filter((char) => !bidiControl.test(char)).join('');
  const textOf = (run: LogicalRun) => {
    let out = '';
    for (let i = run.start; i < run.end; ) {
      const char = String.fromCodePoint(line.codePointAt(i) ?? 0xfffd);
      const at = i;
      i += char.length;
      if (bidiControl.test(char)) continue;
      if (isInvisible(char) && !face(run.face).font.hasGlyphForCodePoint(char.codePointAt(0) ?? 0)) continue;
      out += mirrored.get(at) ?? char;
    }
    return out;
  };
  // Rule L2: from the highest level down to the lowest odd one, reverse every sequence of
  // runs at that level or above.
  const order = [...logical];
  const highest = Math.max(0, ...order.map((run) => run.level));
  const lowestOdd = Math.min(...order.map((run) => run.level | 1), highest + 1);
  for (let level = highest; level >= lowestOdd; level--) {
    for (let i = 0; i < order.length; ) {
      if ((order[i]?.level ?? 0) < level) {
        i++;
        continue;
      }
      let j = i;
      while (j < order.length && (order[j]?.level ?? 0) >= level) j++;
      order.splice(i, j - i, ...order.slice(i, j).reverse());
      i = j;
    }
  }
  return order
    .map((run) => ({
      face: run.face,
      text: (run.level % 2 ? rightToLeft : leftToRight) + textOf(run),
      actual: actualOf(run),
    }))
    .filter((run) => run.text.length > 1);
}

// pdf-lib parses a face again for every document it embeds it in, and a freshly parsed face
// decodes its tables (GSUB and GPOS above all) anew on first use: most of the time of laying
// out a certificate. So each document gets a face of its own whose decoded tables are the
// process's (read-only once decoded). Its glyphs stay its own: fontkit keeps a glyph with
// the characters it was first made for, and a glyph that a subset made as a part of another
// (the e of an ë) has none, so a shared glyph cache would leave a later document's text
// without its ToUnicode entries.
type TableCache = { _tables?: Record<string, unknown> };
type GlyphRun = ReturnType<Font['layout']>;

// pdf-lib shapes a text once to measure it and again to draw it, and the same words come
// back at other sizes and in other cells; a face remembers, for its one document, how it
// shaped each text. A text that starts with a direction mark is shaped in that direction.
function withLayoutMemo(font: Font): Font {
  const shape = font.layout.bind(font) as (...a: unknown[]) => GlyphRun;
  const shaped = new Map<string, GlyphRun>();
  font.layout = ((value: string, ...rest: unknown[]) => {
    if (
      rest.some((argument) => argument !== undefined && !(Array.isArray(argument) && argument.length === 0))
    )
      return shape(value, ...rest);
    let run = shaped.get(value);
    if (!run) {
      const mark = value[0];
      const direction = mark === rightToLeft ? 'rtl' : mark === leftToRight ? 'ltr' : undefined;
      run = direction ? shape(value.slice(1), [], undefined, undefined, direction) : shape(value);
      shaped.set(value, run);
    }
    return run;
  }) as Font['layout'];
  return font;
}
const sharedFontkit = {
  create(data: Uint8Array, postscriptName?: string): Font {
    const font = (
      postscriptName === undefined ? fontkit.create(data) : fontkit.create(data, postscriptName)
    ) as Font & TableCache;
    const process = [...loaded.values()].find((entry) => entry.bytes === data)?.font as
      | TableCache
      | undefined;
    if (process?._tables && font._tables) font._tables = process._tables;
    return withLayoutMemo(font);
  },
} as unknown as typeof fontkit;

/**
 * The subset tag ISO 32000-1 (9.6.4) requires before the name of an embedded subset: six
 * upper-case letters, from the document's seed and the face, so the same document makes the
 * same file and faces embedded by different updates of one file get different tags.
 */
export function subsetTag(seed: string, name: Face): string {
  const digest = createHash('sha256').update(`${seed}\u0000${name}`).digest();
  return [...digest.subarray(0, 6)].map((byte) => String.fromCharCode(65 + (byte % 26))).join('');
}

interface EmbeddedFace {
  font: PDFFont;
  /** fontkit's face for this document (the one pdf-lib's subset shapes with). */
  shaper: Font;
  unitsPerEm: number;
}

/** A document's embedded faces: each embedded (as a subset) once, when first needed. */
export class FontSet {
  readonly #pdf: PDFDocument;
  readonly #seed: string;
  readonly #embedded = new Map<Face, EmbeddedFace>();

  /** `seed` makes the subset tags (what identifies this document's update: its id, say). */
  constructor(pdf: PDFDocument, seed = '') {
    this.#pdf = pdf;
    this.#seed = seed;
    pdf.registerFontkit(sharedFontkit);
  }

  /** Embeds every face `text` in `style` needs; `shape` may then set it. */
  async prepare(style: Style, value: string): Promise<void> {
    const faces = new Set<Face>(runsOf(style, value).map((run) => run.face));
    for (const name of faces) {
      if (this.#embedded.has(name)) continue;
      const source = face(name);
      const font = await this.#pdf.embedFont(source.bytes, {
        subset: true,
        customName: `${subsetTag(this.#seed, name)}+${source.font.postscriptName}`,
      });
      // pdf-lib's own fontkit face, which shapes what it encodes (`embedder` is not public).
      const shaper = (font as unknown as { embedder: { font: Font } }).embedder.font;
      this.#embedded.set(name, { font, shaper, unitsPerEm: source.font.unitsPerEm });
    }
  }

  /**
   * One line of `text` in `style` as runs in visual order (after `prepare` of the same
   * text). `direction` is the paragraph's (default: by its first strong letter).
   */
  shape(style: Style, value: string, direction?: 'ltr' | 'rtl'): Shaped {
    const line = value.replace(/[\t\n\r]/g, ' ');
    return new Shaped(
      visualRuns(style, line, direction).map((run) => {
        // Wrapping measures the spaces between words alone, and a space alone is given the
        // style's first face, which a text in another script never needed (a Thai title has
        // no run in Noto Sans Bold): it is measured in a face the text did need.
        const embedded =
          this.#embedded.get(run.face) ??
          (run.text.slice(1).trim() === ''
            ? chains[style].map((name) => this.#embedded.get(name)).find((found) => found !== undefined)
            : undefined);
        if (!embedded) throw new Error(`face ${run.face} used before it was prepared`);
        const glyphs = embedded.shaper.layout(run.text);
        // The rule of drawing: no glyph is .notdef (an empty box). drawingProblem refuses
        // such text where it is typed, so this is a fault of Signet's own.
        const missing = glyphs.glyphs.findIndex((glyph) => glyph.id === 0);
        if (missing >= 0) throw new Error(`no glyph in ${run.face} for ${JSON.stringify(run.text.slice(1))}`);
        return {
          face: run.face,
          font: embedded.font,
          text: run.text,
          actual: run.actual ?? run.text.slice(1),
          glyphs,
          unitsPerEm: embedded.unitsPerEm,
        };
      }),
    );
  }
}

export interface ShapedRun {
  face: Face;
  font: PDFFont;
  /** The run's text in logical order (brackets mirrored at odd levels), behind its direction mark. */
  text: string;
  /** The characters it stands for, as typed: what copying the run gives (its /ActualText). */
  actual: string;
  glyphs: GlyphRun;
  unitsPerEm: number;
}

// The text a run's glyphs map back to through the subset's ToUnicode.
function readsBackAs(run: ShapedRun): string {
  return run.glyphs.glyphs.map((glyph) => String.fromCodePoint(...glyph.codePoints)).join('');
}

// A page names each font in its resources once, however many runs are drawn in it.
const fontKeys = new WeakMap<PDFPage, Map<PDFFont, PDFName>>();
function fontKey(page: PDFPage, font: PDFFont): PDFName {
  let keys = fontKeys.get(page);
  if (!keys) {
    keys = new Map();
    fontKeys.set(page, keys);
  }
  let key = keys.get(font);
  if (!key) {
    key = page.node.newFontDictionary(font.name, font.ref);
    keys.set(font, key);
  }
  return key;
}

/** A line cut into runs of embedded faces, shaped, in visual order. */
export class Shaped {
  readonly runs: ShapedRun[];
  constructor(runs: ShapedRun[]) {
    this.runs = runs;
  }

  width(size: number): number {
    return this.runs.reduce((sum, run) => sum + (run.glyphs.advanceWidth * size) / run.unitsPerEm, 0);
  }

  /** The glyph ids drawn, run by run (the tests check none is .notdef). */
  glyphIds(): number[][] {
    return this.runs.map((run) => run.glyphs.glyphs.map((glyph) => glyph.id));
  }

  /**
   * Draws the runs one after the other from (x, y), along a baseline turned counterclockwise
   * by `rotate` (none: horizontal), each glyph where fontkit placed it: its advance, and the
   * offsets of marks (Thai vowels and tones, Arabic vowel signs) as text rise and shifts.
   */
  draw(page: PDFPage, at: { x: number; y: number; size: number; color: Color; rotate?: Rotation }): void {
    // Quarter turns step by exactly 0 and ±1 (not cos 90° = 6e-17).
    const angle = at.rotate ? toRadians(at.rotate) : 0;
    const exact = (n: number) => Math.round(n * 1e9) / 1e9;
    const [cos, sin] = [exact(Math.cos(angle)), exact(Math.sin(angle))];
    const context = page.doc.context;
    const operators: PDFOperator[] = [pushGraphicsState(), setFillingColor(at.color), beginText()];
    let { x, y } = at;
    for (const run of this.runs) {
      const key = fontKey(page, run.font);
      // pdf-lib's encoding of the run: four hex digits a glyph, in the order fontkit shaped
      // them (the same GlyphRun: the face remembers it), with each glyph added to the subset.
      const hex = run.font.encodeText(run.text).asString();
      const scale = 1000 / run.unitsPerEm;
      // A glyph of a subset maps back to one text (ToUnicode): the characters fontkit first
      // made it for. Shaping shares glyphs (an emoji with a skin tone is the emoji's glyph),
      // so a left-to-right run whose glyphs would read back as other text says what it stands
      // for (ISO 32000-1, 14.9.4), and readers that copy or search text take that instead.
      // Only such a run: poppler takes a span for one word, spaces and all. Never a
      // right-to-left run: poppler spreads an /ActualText over its run from left to right and
      // then reads the run from the right, reversing it, while it orders ToUnicode text
      // correctly. There a glyph two letters share (the final heh of "الله" and the final teh
      // marbuta's without dots) copies as the first one drawn.
      const spanned = !run.text.startsWith(rightToLeft) && readsBackAs(run) !== run.actual;
      if (spanned) {
        const span = context.obj({ ActualText: PDFHexString.fromText(run.actual) });
        operators.push(
          PDFOperator.of(PDFOperatorNames.BeginMarkedContentSequence, [
            PDFName.of('Span'),
            span as unknown as PDFArray,
          ]),
        );
      }
      operators.push(setFontAndSize(key, at.size), setTextMatrix(cos, sin, -sin, cos, x, y));
      let items = PDFArray.withContext(context);
      let rise = 0;
      const flush = () => {
        if (items.size() > 0) operators.push(PDFOperator.of(PDFOperatorNames.ShowTextAdjusted, [items]));
        items = PDFArray.withContext(context);
      };
      const { glyphs } = run.glyphs;
      const positions = run.glyphs.positions ?? [];
      for (const [i, glyph] of glyphs.entries()) {
        const position = positions[i] as { xAdvance: number; xOffset: number; yOffset: number };
        const lift = (position.yOffset * at.size) / run.unitsPerEm;
        if (lift !== rise) {
          flush();
          operators.push(setTextRise(lift));
          rise = lift;
        }
        if (position.xOffset) items.push(PDFNumber.of(-position.xOffset * scale));
        items.push(PDFHexString.of(hex.slice(i * 4, i * 4 + 4)));
        // After a glyph the reader moves by its width in /W (its advance in the face); the
        // shaped advance may differ (kerning, marks of no width), and the offset is undone.
        const after = position.xAdvance - position.xOffset - glyph.advanceWidth;
        if (after) items.push(PDFNumber.of(-after * scale));
      }
      flush();
      if (rise) operators.push(setTextRise(0));
      if (spanned) operators.push(PDFOperator.of(PDFOperatorNames.EndMarkedContent));
      const advance = (run.glyphs.advanceWidth * at.size) / run.unitsPerEm;
      x += advance * cos;
      y += advance * sin;
    }
    operators.push(endText(), popGraphicsState());
    page.pushOperators(...operators);
  }
}
