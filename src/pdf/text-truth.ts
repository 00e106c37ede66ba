// **The** rule for text whose extraction disagrees with its glyphs (issue 48 §1): signers see
// the pages drawn (pdf.js draws each glyph); a search, a copy, a screen reader, an archive's
// indexer or an e-discovery tool reads the text extracted through each font's /ToUnicode map
// (ISO 32000-1 9.10.2). A map can say other characters than the glyphs are: "100 EUR / 30
// days" drawn, "999 EUR / 39 days" read. Like an object defined twice (load.ts), that is a file
// two readers see differently, so one whose extracted digits, amounts or dates differ from the
// drawn ones is refused at upload with one sentence (`textContradictionsOf`); Signet never
// rewrites an upload (the file sealed is the file chosen), so there is no normalising.
//
// What is checked: every font the pages use (their /Resources, those of the form XObjects,
// patterns, Type 3 glyphs and annotation appearances reachable from them; each font
// dictionary once) that has a ToUnicode map (cmap.ts). For each code the map reads as text
// holding a character that matters (any script's decimal digit, a currency sign, `.,:/-+%`,
// compared after NFKC and with dashes and slashes of other kinds as the ASCII ones), the
// font's own account of that code's glyph is found, and the two must agree in those
// characters:
// - simple fonts (Type1, MMType1, TrueType, Type3): the glyph name of the code by /Encoding
//   (/Differences over the base encoding; without one, a Type 1 program's built-in encoding,
//   or StandardEncoding for a standard font that is not Symbol or ZapfDingbats) read by the
//   Adobe Glyph List rules (glyph-names.ts); a TrueType font without an encoding, by the glyph
//   its (3,0) or (1,0) cmap selects and what the program says of that glyph;
// - Type 0 fonts: code → CID by Identity-H/V or an embedded CMap, CID → glyph by the
//   CIDToGIDMap (CIDFontType2) or as the glyph number (a CIDFontType0 OpenType program that is
//   not CID-keyed), and the program's account of the glyph: its Unicode cmap read backwards,
//   or its glyph name (font-programs.ts).
// A TrueType font with an encoding may agree with either the encoding's name or the glyph its
// cmap selects (readers differ on which a symbolic one draws). A ligature or a space the map
// spells out holds nothing that matters and is not judged; a digit read from a letter's or a
// space's glyph, or from another digit's, is a contradiction.
//
// The limit, said plainly: where the font says nothing about a glyph (a subset with no
// Unicode cmap and no glyph names, as pdf-lib and Ghostscript write TrueType subsets; a bare
// CFF program; a predefined CJK CMap; a Type 3 glyph named `a12`; a glyph known only by a
// private-use character, as oldstyle figures are; MacRoman's 0xDB, the currency sign or the
// euro by Mac OS version), no lie can be proven from the
// font, and the file is not refused: refusing every real file of those writers would be a
// defect too. Nor is a font that names a glyph `one` but draws a nine caught. Both are the
// cases only comparing the glyphs' shapes with the characters read would close.
//
// Cost: nothing is decoded for a font without a ToUnicode map, a program only when the
// encoding does not name a code that matters, every stream through the decode budget's bounded
// decoders with a cap per stream and one for the whole file (font-programs.ts); past a cap, or
// past `maxCheckedCodes` codes or `maxFonts` fonts in a file, the file is refused as too large
// to check.
import {
  PDFArray,
  PDFDict,
  type PDFDocument,
  PDFName,
  PDFNumber,
  type PDFObject,
  PDFRawStream,
} from '@cantoo/pdf-lib';
import { inEnglish, type KeyedSentence } from '../i18n/refusals.ts';
import { CMapTooLarge, matters, parseCidEncoding, parseToUnicode, type ToUnicode } from './cmap.ts';
import {
  type Allowance,
  decodedBytes,
  type EmbeddedFont,
  embeddedFont,
  maxFileBytes,
  maxTableBytes,
  OverBudget,
} from './font-programs.ts';
import { type BaseEncoding, encodedText, glyphNameText, isBaseEncoding } from './glyph-names.ts';

/** Codes that matter checked in one file at most: a text file's fonts have a few hundred. */
export const maxCheckedCodes = 200_000;
/** Font dictionaries in one file at most. */
export const maxFonts = 20_000;
// Resource dictionaries walked in one file at most (pages, forms, patterns, appearances).
const maxResources = 200_000;

export const textTruthRefusals = {
  contradiction: { key: 'upload.textContradiction' },
  tooLarge: { key: 'upload.textTooLarge' },
} as const satisfies Record<string, KeyedSentence>;

/** Each refusal's English (the logs, the tests). */
export const textTruthSentences = {
  contradiction: inEnglish(textTruthRefusals.contradiction),
  tooLarge: inEnglish(textTruthRefusals.tooLarge),
};

class TooLarge extends Error {}

const name = (key: string) => PDFName.of(key);
const nameText = (value: PDFObject | undefined) =>
  value instanceof PDFName ? value.decodeText() : undefined;

/** What a font says the glyph of `code` is (alternatives, any may agree), or null: unknown. */
type Account = (code: number) => string[] | null;

class Check {
  private readonly embedded = new Map<PDFDict, EmbeddedFont>();
  private readonly toUnicode = new Map<PDFRawStream, ToUnicode | null>();
  private checked = 0;
  private readonly allowance: Allowance = { bytes: maxFileBytes };
  /** What was looked at: for tests and the measurements in docs/. */
  readonly figures: TextTruthFigures = { fonts: 0, mapped: 0, judged: 0 };

  embeddedOf(descriptor: PDFDict | undefined): EmbeddedFont {
    if (!descriptor) return { program: null, builtin: null };
    let found = this.embedded.get(descriptor);
    if (!found) {
      found = embeddedFont(descriptor, this.allowance);
      this.embedded.set(descriptor, found);
    }
    return found;
  }

  mapOf(stream: PDFRawStream): ToUnicode | null {
    if (!this.toUnicode.has(stream)) {
      const bytes = decodedBytes(stream, maxTableBytes, this.allowance);
      this.toUnicode.set(stream, bytes === null ? null : parseToUnicode(bytes));
    }
    return this.toUnicode.get(stream) ?? null;
  }

  /** True when `font`'s ToUnicode map reads a code otherwise than its glyph is. */
  lies(font: PDFDict): boolean {
    const stream = font.lookup(name('ToUnicode'));
    if (!(stream instanceof PDFRawStream)) return false;
    const map = this.mapOf(stream);
    this.figures.fonts++;
    if (map === null || map.mattering.size === 0) return false;
    const { account, otherwise } = this.accountOf(font);
    for (const [code, text] of map.mattering) {
      if (++this.checked > maxCheckedCodes) throw new TooLarge();
      this.figures.mapped++;
      const glyph = account(code);
      if (glyph === null) continue;
      this.figures.judged++;
      const read = matters(text);
      const agrees = (texts: string[] | null) => texts?.some((text) => matters(text) === read) ?? false;
      if (!agrees(glyph) && !agrees(otherwise?.(code) ?? null)) return true;
    }
    return false;
  }

  /**
   * The font's account of each code; for a TrueType font whose encoding names the code, also
   * the glyph its program's cmap selects (`otherwise`): readers differ on which a symbolic
   * TrueType font with an encoding draws, so the map may agree with either.
   */
  private accountOf(font: PDFDict): { account: Account; otherwise?: Account } {
    const subtype = nameText(font.lookup(name('Subtype')));
    if (subtype === 'Type0') return { account: this.cidAccount(font) };
    if (subtype === 'Type1' || subtype === 'MMType1' || subtype === 'TrueType' || subtype === 'Type3')
      return this.simpleAccount(font, subtype);
    return { account: () => null };
  }

  private programTexts(embedded: EmbeddedFont, gid: number): string[] | null {
    if (!embedded.program) return null;
    const { characters, name: glyphName } = embedded.program.glyphTexts(gid);
    const named = glyphName === null ? null : glyphNameText(glyphName);
    // A private-use character says nothing a reader shares (oldstyle figures at U+F731).
    const texts = (named === null ? characters : [...characters, named]).filter(
      (text) => !privateUse.test(text),
    );
    return texts.length > 0 ? texts : null;
  }

  private simpleAccount(font: PDFDict, subtype: string): { account: Account; otherwise?: Account } {
    const encoding = font.lookup(name('Encoding'));
    let base: BaseEncoding | null = null;
    const differences = new Map<number, string>();
    const baseName = nameText(encoding instanceof PDFDict ? encoding.lookup(name('BaseEncoding')) : encoding);
    if (baseName !== undefined && isBaseEncoding(baseName)) base = baseName;
    const list = encoding instanceof PDFDict ? encoding.lookup(name('Differences')) : undefined;
    if (list instanceof PDFArray) {
      let code = 0;
      for (const item of list.asArray()) {
        if (item instanceof PDFNumber) code = item.asNumber();
        else if (item instanceof PDFName) differences.set(code++, item.decodeText());
      }
    }
    const descriptor = font.lookup(name('FontDescriptor'));
    const embedded = () => this.embeddedOf(descriptor instanceof PDFDict ? descriptor : undefined);
    const hasProgram =
      descriptor instanceof PDFDict &&
      ['FontFile', 'FontFile2', 'FontFile3'].some((key) => descriptor.has(name(key)));
    const standardName = nameText(font.lookup(name('BaseFont')))?.replace(/^[A-Z]{6}\+/, '');
    const ownEncodingFont = standardName === 'Symbol' || standardName === 'ZapfDingbats';
    const byProgram = (code: number) => {
      const found = embedded();
      const gid = found.program?.glyphForCode(code);
      return gid === undefined ? null : this.programTexts(found, gid);
    };
    const account = (code: number): string[] | null => {
      if (code > 0xff) return null;
      const differing = differences.get(code);
      if (differing !== undefined) return textOf(glyphNameText(differing));
      if (base !== null) return textOf(encodedText(base, code));
      if (subtype === 'TrueType') return byProgram(code);
      if (subtype === 'Type1' || subtype === 'MMType1') {
        if (!hasProgram) return ownEncodingFont ? null : textOf(encodedText('StandardEncoding', code));
        const { builtin } = embedded();
        if (builtin === 'standard') return textOf(encodedText('StandardEncoding', code));
        const builtinName = builtin?.get(code);
        return builtinName === undefined ? null : textOf(glyphNameText(builtinName));
      }
      return null;
    };
    return subtype === 'TrueType' ? { account, otherwise: byProgram } : { account };
  }

  private cidAccount(font: PDFDict): Account {
    const descendants = font.lookup(name('DescendantFonts'));
    const cidFont = descendants instanceof PDFArray ? descendants.lookup(0) : undefined;
    if (!(cidFont instanceof PDFDict)) return () => null;
    const encoding = font.lookup(name('Encoding'));
    let cidOf: (code: number) => number | undefined;
    const encodingName = nameText(encoding);
    if (encodingName === 'Identity-H' || encodingName === 'Identity-V') cidOf = (code) => code;
    else if (encoding instanceof PDFRawStream) {
      const bytes = decodedBytes(encoding, maxTableBytes, this.allowance);
      if (bytes === null) return () => null;
      const parsed = parseCidEncoding(bytes);
      cidOf = (code) => parsed.cidOf(code);
    } else return () => null;
    const descriptor = cidFont.lookup(name('FontDescriptor'));
    const embedded = this.embeddedOf(descriptor instanceof PDFDict ? descriptor : undefined);
    const kind = nameText(cidFont.lookup(name('Subtype')));
    let gidOf: (cid: number) => number | undefined = (cid) => cid;
    if (kind === 'CIDFontType2') {
      const map = cidFont.lookup(name('CIDToGIDMap'));
      if (map instanceof PDFRawStream) {
        const bytes = decodedBytes(map, maxTableBytes, this.allowance);
        if (bytes === null) return () => null;
        gidOf = (cid) =>
          2 * cid + 1 < bytes.length
            ? ((bytes[2 * cid] as number) << 8) | (bytes[2 * cid + 1] as number)
            : undefined;
      }
    } else if (kind !== 'CIDFontType0' || !embedded.program?.glyphsAreCids) return () => null;
    return (code) => {
      const cid = cidOf(code);
      const gid = cid === undefined ? undefined : gidOf(cid);
      return gid === undefined || gid === 0 ? null : this.programTexts(embedded, gid);
    };
  }
}

const privateUse = /\p{Co}/u;
const textOf = (text: string | null) => (text === null || privateUse.test(text) ? null : [text]);

/** The fonts the pages of `pdf` use, each dictionary once, in page order. */
function* pageFonts(pdf: PDFDocument): Generator<PDFDict> {
  const resources: PDFDict[] = [];
  const seenResources = new Set<PDFDict>();
  const seenFonts = new Set<PDFDict>();
  const addResources = (value: PDFObject | undefined) => {
    if (value instanceof PDFDict && !seenResources.has(value)) {
      if (seenResources.size >= maxResources) throw new TooLarge();
      seenResources.add(value);
      resources.push(value);
    }
  };
  const addStream = (value: PDFObject | undefined) => {
    if (value instanceof PDFRawStream) addResources(value.dict.lookup(name('Resources')));
  };
  const valuesOf = (dict: PDFObject | undefined) =>
    dict instanceof PDFDict ? dict.keys().map((key) => dict.lookup(key)) : [];
  for (const page of pdf.getPages()) {
    addResources(page.node.Resources());
    const annotations = page.node.lookup(name('Annots'));
    for (const annotation of annotations instanceof PDFArray ? annotations.asArray() : []) {
      const dict = pdf.context.lookup(annotation);
      const appearances = dict instanceof PDFDict ? dict.lookup(name('AP')) : undefined;
      for (const appearance of valuesOf(appearances)) {
        // /N, /R, /D: a stream, or a dictionary of streams by state.
        if (appearance instanceof PDFRawStream) addStream(appearance);
        else for (const state of valuesOf(appearance)) addStream(state);
      }
    }
    while (resources.length > 0) {
      const dict = resources.pop() as PDFDict;
      for (const font of valuesOf(dict.lookup(name('Font')))) {
        if (!(font instanceof PDFDict) || seenFonts.has(font)) continue;
        if (seenFonts.size >= maxFonts) throw new TooLarge();
        seenFonts.add(font);
        addResources(font.lookup(name('Resources')));
        yield font;
      }
      for (const xObject of valuesOf(dict.lookup(name('XObject')))) {
        if (xObject instanceof PDFRawStream && nameText(xObject.dict.lookup(name('Subtype'))) === 'Form')
          addStream(xObject);
      }
      for (const pattern of valuesOf(dict.lookup(name('Pattern')))) addStream(pattern);
    }
  }
}

export interface TextTruthFigures {
  /** Fonts with a ToUnicode map. */
  fonts: number;
  /** Codes those maps read as text that matters. */
  mapped: number;
  /** Of those, the codes whose glyph the font says something about (the rest: unknown). */
  judged: number;
}

/**
 * null when every font of `pdf`'s pages reads as text what it draws, in the characters that
 * matter (or says too little to tell); otherwise the sentence that refuses the file.
 */
export function textContradictionsOf(pdf: PDFDocument): KeyedSentence | null {
  const rule = ruleBroken(pdf, new Check());
  return rule === null ? null : textTruthRefusals[rule];
}

/** As textContradictionsOf, in English, with what was looked at. */
export function judgeText(pdf: PDFDocument): { sentence: string | null; figures: TextTruthFigures } {
  const check = new Check();
  const rule = ruleBroken(pdf, check);
  return { sentence: rule === null ? null : textTruthSentences[rule], figures: check.figures };
}

function ruleBroken(pdf: PDFDocument, check: Check): keyof typeof textTruthRefusals | null {
  try {
    for (const font of pageFonts(pdf)) {
      try {
        if (check.lies(font)) return 'contradiction';
      } catch (error) {
        if (error instanceof TooLarge || error instanceof OverBudget || error instanceof CMapTooLarge)
          throw error;
        // A font this reading cannot follow (fontkit failing on a broken program, a
        // malformed dictionary) says nothing about its glyphs; the next font is checked.
      }
    }
  } catch (error) {
    if (error instanceof TooLarge || error instanceof OverBudget || error instanceof CMapTooLarge)
      return 'tooLarge';
    // A page tree pdf-lib cannot walk: the page count that follows refuses the file.
    return null;
  }
  return null;
}
