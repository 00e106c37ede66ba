// A line of text cut into runs for drawing: each word set in the first face of its style's
// chain that covers it (runsOf), and a line in visual order (visualRuns): the Unicode
// bidirectional algorithm (UAX #9, bidi-js) gives each character its level, the line is cut
// into runs of one face and one level, and the runs are put in visual order (rule L2), each
// behind a mark that tells fontkit its direction. Shaping and drawing them: fonts.ts.
import bidiModule, { type Bidi } from 'bidi-js';
import {
  bidiControl,
  chains,
  covers,
  type Face,
  face,
  hasGlyph,
  isInvisible,
  type Style,
} from './font-faces.ts';

// bidi-js is a CommonJS module whose export is the factory itself; its types declare it as
// an ES default export, which Node's CommonJS interop hands over as the module.
const bidi = (bidiModule as unknown as () => Bidi)();

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

export function levelsOf(value: string, direction: 'ltr' | 'rtl' | undefined) {
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

// What fontkit is told, through pdf-lib's `font.layout(text)`, about a run's direction: the
// first character of each run Signet shapes is one of these noncharacters (which no input
// can hold: `drawingProblem` refuses them), and the face's `layout` takes it off again.
export const leftToRight = '\ufdd0';
export const rightToLeft = '\ufdd1';

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
export function visualRuns(style: Style, value: string, direction: 'ltr' | 'rtl' | undefined): Run[] {
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
