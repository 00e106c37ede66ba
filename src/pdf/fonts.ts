// The fonts of every PDF Signet writes, all from npm packages (no system fonts, nothing
// downloaded): Noto Sans for Latin with diacritics, Greek and Cyrillic; Noto Sans SC for
// Chinese, Japanese kana and the CJK symbols; Caveat, a handwriting face, for typed
// signatures. A text is set in the first face of its chain that has a glyph for every one
// of its characters, so no name is ever set in a face that cannot encode it; a text no face
// covers completely (an Arabic name, say) takes the face that covers most of it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fontkit, { type Font } from '@cantoo/fontkit';
import {
  type Color,
  type PDFDocument,
  type PDFFont,
  type PDFPage,
  type Rotation,
  toRadians,
} from '@cantoo/pdf-lib';

const require = createRequire(import.meta.url);

const faceFiles = {
  sans: '@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf',
  sansBold: '@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf',
  cjk: '@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf',
  cjkBold: '@expo-google-fonts/noto-sans-sc/700Bold/NotoSansSC_700Bold.ttf',
  hand: '@expo-google-fonts/caveat/400Regular/Caveat_400Regular.ttf',
} as const;

export type Face = keyof typeof faceFiles;

/** Which faces a kind of text may use, in order of preference. */
export const chains = {
  text: ['sans', 'cjk'],
  bold: ['sansBold', 'cjkBold'],
  handwriting: ['hand', 'sans', 'cjk'],
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

function hasGlyph(name: Face, char: string): boolean {
  const codePoint = char.codePointAt(0) ?? 0;
  // White space and controls never need a glyph of their own.
  return codePoint <= 0x20 || face(name).font.hasGlyphForCodePoint(codePoint);
}

export interface Run {
  face: Face;
  text: string;
}

/**
 * `text` cut into runs, each word set in the first face of the style's chain that has a
 * glyph for all of its characters ("Łódź 合同" is Noto Sans, then Noto Sans SC), so a
 * word never mixes faces. White space stays in the run before it. A word no face covers
 * whole is set character by character; a character no face has goes with the first face.
 */
export function runsOf(style: Style, text: string): Run[] {
  const chain: readonly Face[] = chains[style];
  const runs: Run[] = [];
  const add = (name: Face, part: string) => {
    const last = runs.at(-1);
    if (last && last.face === name) last.text += part;
    else runs.push({ face: name, text: part });
  };
  for (const part of text.split(/(\s+)/)) {
    if (!part) continue;
    const last = runs.at(-1);
    if (/^\s+$/.test(part)) {
      if (last) last.text += part;
      else add(chain[0] as Face, part);
      continue;
    }
    const whole = chain.find((name) => [...part].every((char) => hasGlyph(name, char)));
    if (whole) {
      add(whole, part);
      continue;
    }
    for (const char of part) add(chain.find((name) => hasGlyph(name, char)) ?? (chain[0] as Face), char);
  }
  return runs;
}

// pdf-lib parses a face again for every document it embeds it in, and a freshly parsed face
// decodes its tables (GSUB and GPOS above all) anew on first use: most of the time of laying
// out a certificate. So each document gets a face of its own whose decoded tables are the
// process's (read-only once decoded). Its glyphs stay its own: fontkit keeps a glyph with
// the characters it was first made for, and a glyph that a subset made as a part of another
// (the e of an ë) has none, so a shared glyph cache would leave a later document's text
// without its ToUnicode entries.
type TableCache = { _tables?: Record<string, unknown> };

// pdf-lib shapes a text once to measure it and again to draw it, and the same words come
// back at other sizes and in other cells; a face remembers, for its one document, how it
// shaped each text (without features: pdf-lib asks for none).
function withLayoutMemo(font: Font): Font {
  const shape = font.layout.bind(font);
  const shaped = new Map<string, ReturnType<Font['layout']>>();
  font.layout = ((text: string, ...rest: unknown[]) => {
    if (rest.some((argument) => argument !== undefined))
      return (shape as (...a: unknown[]) => unknown)(text, ...rest);
    let run = shaped.get(text);
    if (!run) {
      run = shape(text);
      shaped.set(text, run);
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

/** A document's embedded faces: each embedded (as a subset) once, when first needed. */
export class FontSet {
  readonly #pdf: PDFDocument;
  readonly #embedded = new Map<Face, PDFFont>();

  constructor(pdf: PDFDocument) {
    this.#pdf = pdf;
    pdf.registerFontkit(sharedFontkit);
  }

  /** Embeds every face `text` in `style` needs; `shape` may then set it. */
  async prepare(style: Style, text: string): Promise<void> {
    for (const run of runsOf(style, text)) {
      if (!this.#embedded.has(run.face)) {
        this.#embedded.set(run.face, await this.#pdf.embedFont(face(run.face).bytes, { subset: true }));
      }
    }
  }

  /** `text` in `style` as runs with their embedded faces (after `prepare` of the same text). */
  shape(style: Style, text: string): Shaped {
    return new Shaped(
      runsOf(style, text).map((run) => {
        const font = this.#embedded.get(run.face);
        if (!font) throw new Error(`face ${run.face} used before it was prepared`);
        return { font, text: run.text };
      }),
    );
  }
}

/** A text cut into runs of embedded faces. */
export class Shaped {
  readonly runs: Array<{ font: PDFFont; text: string }>;
  constructor(runs: Array<{ font: PDFFont; text: string }>) {
    this.runs = runs;
  }

  width(size: number): number {
    return this.runs.reduce((sum, run) => sum + run.font.widthOfTextAtSize(run.text, size), 0);
  }

  /**
   * Draws the runs one after the other from (x, y), along a baseline turned counterclockwise
   * by `rotate` (none: horizontal), each run starting where the one before it ends.
   */
  draw(page: PDFPage, at: { x: number; y: number; size: number; color: Color; rotate?: Rotation }): void {
    // Quarter turns step by exactly 0 and ±1 (not cos 90° = 6e-17): along a horizontal or
    // vertical baseline each run starts at the exact sum of the widths before it.
    const angle = at.rotate ? toRadians(at.rotate) : 0;
    const exact = (n: number) => Math.round(n * 1e9) / 1e9;
    const [cos, sin] = [exact(Math.cos(angle)), exact(Math.sin(angle))];
    let { x, y } = at;
    for (const [i, run] of this.runs.entries()) {
      page.drawText(run.text, { x, y, size: at.size, font: run.font, color: at.color, rotate: at.rotate });
      if (i < this.runs.length - 1) {
        const advance = run.font.widthOfTextAtSize(run.text, at.size);
        x += advance * cos;
        y += advance * sin;
      }
    }
  }
}
