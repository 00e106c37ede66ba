// The text of every PDF Signet writes: **the** rule of what text Signet can draw
// (`drawingProblem`), and the drawing. Each word is set in the first face of its chain that is
// meant for its script and has a glyph for every one of its characters (the faces:
// font-faces.ts); a text with a character no face has is refused where it is typed, so nothing
// is ever drawn as an empty box.
//
// A line is laid out in three steps: the Unicode bidirectional algorithm (UAX #9, bidi-js)
// gives each character its level; the line is cut into runs of one face and one level, and
// the runs are put in visual order (rule L2) (text-runs.ts); each run is shaped by fontkit
// (Arabic joining, Thai marks, emoji sequences), right to left at odd levels. The runs are
// drawn with the shaped glyphs and their positions (`Shaped.draw`), so what fontkit shaped is
// what the PDF shows, and the subset's ToUnicode maps each glyph back to its characters.
import { createHash } from 'node:crypto';
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
import type { KeyedSentence } from '../i18n/refusals.ts';
import { chains, type Face, face, hasGlyph, parsedFace, type Style } from './font-faces.ts';
import { leftToRight, levelsOf, rightToLeft, runsOf, visualRuns } from './text-runs.ts';

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

/** The first three of `missing`, each shown and named: “ᱚ” (U+1C5A); a control or unassigned one by name alone. */
function listedCharacters(missing: string[]): string {
  return missing
    .slice(0, 3)
    .map((char) =>
      /\p{Cc}|\p{Co}|\p{Cn}|\p{Cs}/u.test(char) ? unicodeName(char) : `“${char}” (${unicodeName(char)})`,
    )
    .join(', ');
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
  const listed = listedCharacters(missing);
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

/** What a text refused by the drawing rule is, as the catalogues' `text.undrawable` names it. */
export type DrawnSubject = 'title' | 'text' | 'fullName' | 'lineItem' | 'yourName' | 'label' | 'name';

/**
 * drawingProblem as a key of the catalogues, for a page in its reader's language: `subject`
 * names the text (`who`: whose full name, `line`: a pricing line's number, where it has one).
 */
export function drawingRefusal(
  subject: DrawnSubject,
  value: string,
  where: { who?: KeyedSentence; line?: number } = {},
): KeyedSentence | null {
  const undrawable = undrawableValues(value);
  if (!undrawable) return null;
  return {
    key: 'text.undrawable',
    values: { subject, ...(where.line ? { line: where.line } : {}), ...undrawable },
    ...(where.who ? { parts: { who: where.who } } : {}),
  };
}

/**
 * What the drawing rule finds in `value` as a refusal's values (the first three characters no
 * face has, listed; their count; how many past those three), or null when every one draws:
 * drawingRefusal's, and those of the sentences that say where the text was themselves (a
 * spreadsheet's cell, a field's value).
 */
export function undrawableValues(value: string): { characters: string; count: number; more: number } | null {
  const missing = undrawableCharacters(value);
  if (missing.length === 0) return null;
  return {
    characters: listedCharacters(missing),
    count: missing.length,
    more: Math.max(0, missing.length - 3),
  };
}

/** `value` as every rule and the PDF see it: NFC, so a decomposed "é" is one letter. */
export function drawableText(value: string): string {
  return value.normalize('NFC');
}

/** A paragraph's direction by its first strong letter (UAX #9 rules P2 and P3). */
export function paragraphDirection(value: string): 'ltr' | 'rtl' {
  return (levelsOf(value, undefined).paragraphs[0]?.level ?? 0) % 2 === 1 ? 'rtl' : 'ltr';
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
    const process = parsedFace(data) as TableCache | undefined;
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
