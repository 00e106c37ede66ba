// **The** faces of every PDF Signet writes, all from npm packages (no system fonts, nothing
// downloaded): Noto Sans for Latin, Greek and Cyrillic; Noto Sans Arabic, Hebrew, Thai,
// Georgian and Armenian; Noto Sans SC for Chinese, Noto Sans JP for Japanese, Noto Sans KR for
// Korean; Noto Emoji (monochrome: a PDF face draws in one colour); Caveat, a handwriting face,
// for typed signatures. This module owns the table of faces, the scripts each is meant for, the
// chains of faces each style tries in turn, parsing a face once per process when first needed,
// and whether a face covers a character or a word. What is drawable (fonts.ts) and how a line
// is cut into runs (text-runs.ts) are decided from here.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fontkit, { type Font } from '@cantoo/fontkit';

const require = createRequire(import.meta.url);

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

/** A face, read and parsed on first use. */
export function face(name: Face): { bytes: Uint8Array; font: Font } {
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

/** The process's parsed face whose bytes are `bytes` (a document's copy shares its tables), if parsed. */
export function parsedFace(bytes: Uint8Array): Font | undefined {
  return [...loaded.values()].find((entry) => entry.bytes === bytes)?.font;
}

// Characters that are drawn as nothing: white space and line breaks become spaces and
// breaks, the bidirectional controls only steer the order (UAX #9 rule X9 removes them),
// joiners and variation selectors only steer shaping.
export const bidiControl = /[\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]/u;
export function isInvisible(char: string): boolean {
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

export function hasGlyph(name: Face, char: string): boolean {
  const codePoint = char.codePointAt(0) ?? 0;
  if (codePoint === 0x20 || isInvisible(char)) return true;
  return faceScripts[name].test(char) && face(name).font.hasGlyphForCodePoint(codePoint);
}

export function covers(name: Face, word: string): boolean {
  // The cheap test first, for every character, before the face is parsed.
  const chars = [...word];
  return (
    chars.every((char) => faceScripts[name].test(char) || isInvisible(char)) &&
    chars.every((char) => hasGlyph(name, char))
  );
}
