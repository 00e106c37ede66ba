// What a simple font's own words say a glyph is, for the text-truth rule (text-truth.ts): the
// character of a glyph name by the Adobe Glyph List rules (AGL specification: the part before
// the first `.` is the name, `_` joins a ligature's parts, each part a listed name or
// `uniXXXX…` / `uXXXX[XX]`), and the characters of the three base encodings a PDF may name
// (ISO 32000-1 Annex D: StandardEncoding, WinAnsiEncoding, MacRomanEncoding), code by code.
//
// The list here is the AGL's subset that the rule needs: every name of a character that
// matters (digits, superscript and inferior digits, fractions, `.,:/-+%`, dashes, currency
// signs) and, so that a letter or a space shown as a digit is caught, the letters and the
// common punctuation of Latin text. A name outside it (`g17`, `cid00042`, `a12`, a Type 3
// font's own names) says nothing here, and a glyph known only by such a name is not judged.

// name → character, for the names whose character a reader could mistake for another.
const listed: Record<string, string> = {
  zero: '0',
  one: '1',
  two: '2',
  three: '3',
  four: '4',
  five: '5',
  six: '6',
  seven: '7',
  eight: '8',
  nine: '9',
  zerosuperior: '⁰',
  onesuperior: '¹',
  twosuperior: '²',
  threesuperior: '³',
  foursuperior: '⁴',
  fivesuperior: '⁵',
  sixsuperior: '⁶',
  sevensuperior: '⁷',
  eightsuperior: '⁸',
  ninesuperior: '⁹',
  zeroinferior: '₀',
  oneinferior: '₁',
  twoinferior: '₂',
  threeinferior: '₃',
  fourinferior: '₄',
  fiveinferior: '₅',
  sixinferior: '₆',
  seveninferior: '₇',
  eightinferior: '₈',
  nineinferior: '₉',
  onehalf: '½',
  onequarter: '¼',
  threequarters: '¾',
  onethird: '⅓',
  twothirds: '⅔',
  oneeighth: '⅛',
  threeeighths: '⅜',
  fiveeighths: '⅝',
  seveneighths: '⅞',
  period: '.',
  comma: ',',
  colon: ':',
  slash: '/',
  fraction: '⁄',
  hyphen: '-',
  minus: '−',
  endash: '–',
  emdash: '—',
  figuredash: '‒',
  plus: '+',
  plusminus: '±',
  percent: '%',
  perthousand: '‰',
  dollar: '$',
  cent: '¢',
  sterling: '£',
  yen: '¥',
  Euro: '€',
  euro: '€',
  currency: '¤',
  franc: '₣',
  lira: '₤',
  peseta: '₧',
  dong: '₫',
  won: '₩',
  sheqel: '₪',
  colonmonetary: '₡',
  space: ' ',
  nbspace: '\u00a0',
  nonbreakingspace: '\u00a0',
  exclam: '!',
  quotedbl: '"',
  numbersign: '#',
  ampersand: '&',
  quotesingle: "'",
  quoteright: '’',
  quoteleft: '‘',
  quotedblleft: '“',
  quotedblright: '”',
  quotesinglbase: '‚',
  quotedblbase: '„',
  parenleft: '(',
  parenright: ')',
  asterisk: '*',
  semicolon: ';',
  less: '<',
  equal: '=',
  greater: '>',
  question: '?',
  at: '@',
  bracketleft: '[',
  backslash: '\\',
  bracketright: ']',
  asciicircum: '^',
  underscore: '_',
  grave: '`',
  braceleft: '{',
  bar: '|',
  braceright: '}',
  asciitilde: '~',
  bullet: '•',
  ellipsis: '…',
  dagger: '†',
  daggerdbl: '‡',
  section: '§',
  paragraph: '¶',
  copyright: '©',
  registered: '®',
  trademark: '™',
  degree: '°',
  exclamdown: '¡',
  questiondown: '¿',
  guillemotleft: '«',
  guillemotright: '»',
  guilsinglleft: '‹',
  guilsinglright: '›',
  periodcentered: '·',
  multiply: '×',
  divide: '÷',
  ff: 'ff',
  fi: 'fi',
  fl: 'fl',
  ffi: 'ffi',
  ffl: 'ffl',
  dotlessi: 'ı',
  germandbls: 'ß',
  ae: 'æ',
  AE: 'Æ',
  oe: 'œ',
  OE: 'Œ',
  oslash: 'ø',
  Oslash: 'Ø',
  lslash: 'ł',
  Lslash: 'Ł',
  eth: 'ð',
  Eth: 'Ð',
  thorn: 'þ',
  Thorn: 'Þ',
};

// A Latin letter with an accent (`eacute`, `Scaron`, `gcommaaccent`): a letter, whichever.
const accented =
  /^([A-Za-z])(acute|grave|circumflex|dieresis|tilde|ring|cedilla|caron|macron|breve|ogonek|dotaccent|hungarumlaut|commaaccent)$/;

function part(name: string): string | null {
  const found = listed[name];
  if (found !== undefined) return found;
  if (/^[A-Za-z]$/.test(name)) return name;
  const letter = accented.exec(name);
  if (letter) return (letter[1] as string).normalize('NFC');
  if (/^uni(?:[0-9A-F]{4})+$/.test(name)) {
    let text = '';
    for (let at = 3; at < name.length; at += 4) {
      const unit = Number.parseInt(name.slice(at, at + 4), 16);
      if (unit >= 0xd800 && unit <= 0xdfff) return null;
      text += String.fromCharCode(unit);
    }
    return text;
  }
  if (/^u[0-9A-F]{4,6}$/.test(name)) {
    const code = Number.parseInt(name.slice(1), 16);
    if ((code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return null;
    return String.fromCodePoint(code);
  }
  return null;
}

/** The text of glyph `name` by the AGL rules, or null when the name says nothing known here. */
export function glyphNameText(name: string): string | null {
  const base = name.split('.')[0] as string;
  if (base === '') return null;
  let text = '';
  for (const component of base.split('_')) {
    const found = part(component);
    if (found === null) return null;
    text += found;
  }
  return text;
}

// The encodings as 256 characters each ('\0' where a code has no glyph). ASCII's printable
// range is common to all three, but for StandardEncoding's two quotes.
const ascii = (quote: string, backquote: string) =>
  Array.from({ length: 95 }, (_, k) => String.fromCharCode(0x20 + k))
    .join('')
    .replace("'", quote)
    .replace('`', backquote);
const none = (count: number) => '\0'.repeat(count);

const standardHigh: Record<number, string> = {
  161: '¡',
  162: '¢',
  163: '£',
  164: '⁄',
  165: '¥',
  166: 'ƒ',
  167: '§',
  168: '¤',
  169: "'",
  170: '“',
  171: '«',
  172: '‹',
  173: '›',
  174: 'ﬁ',
  175: 'ﬂ',
  177: '–',
  178: '†',
  179: '‡',
  180: '·',
  182: '¶',
  183: '•',
  184: '‚',
  185: '„',
  186: '”',
  187: '»',
  188: '…',
  189: '‰',
  191: '¿',
  193: '`',
  194: '´',
  195: 'ˆ',
  196: '˜',
  197: '¯',
  198: '˘',
  199: '˙',
  200: '¨',
  202: '˚',
  203: '¸',
  205: '˝',
  206: '˛',
  207: 'ˇ',
  208: '—',
  225: 'Æ',
  227: 'ª',
  232: 'Ł',
  233: 'Ø',
  234: 'Œ',
  235: 'º',
  241: 'æ',
  245: 'ı',
  248: 'ł',
  249: 'ø',
  250: 'œ',
  251: 'ß',
};

const standard = Array.from({ length: 256 }, (_, code) =>
  code >= 0x20 && code < 0x7f ? (ascii('’', '‘')[code - 0x20] as string) : (standardHigh[code] ?? '\0'),
).join('');

// WinAnsiEncoding: 0x80–0x9F as Windows-1252 (codes it leaves out have no glyph), 0xA0 on as
// Latin-1, but 0xAD, which Annex D names `hyphen`.
const winAnsi = `${none(32)}${ascii("'", '`')}\0€\0‚ƒ„…†‡ˆ‰Š‹Œ\0Ž\0\0‘’“”•–—˜™š›œ\0žŸ${Array.from({ length: 96 }, (_, k) => (k === 0x0d ? '-' : String.fromCharCode(0xa0 + k))).join('')}`;

// MacRomanEncoding: Mac OS Roman. 0xDB is `currency` in Annex D and the euro in Mac OS since
// 8.5: which sign a font draws there is not known, so it says nothing.
const macRoman = `${none(32)}${ascii("'", '`')}\0ÄÅÇÉÑÖÜáàâäãåçéèêëíìîïñóòôöõúùûü†°¢£§•¶ß®©™´¨≠ÆØ∞±≤≥¥µ∂∑∏π∫ªºΩæø¿¡¬√ƒ≈∆«»…\u00a0ÀÃÕŒœ–—“”‘’÷◊ÿŸ⁄\0‹›ﬁﬂ‡·‚„‰ÂÊÁËÈÍÎÏÌÓÔ\0ÒÚÛÙıˆ˜¯˘˙˚¸˝˛ˇ`;

export type BaseEncoding = 'StandardEncoding' | 'WinAnsiEncoding' | 'MacRomanEncoding';

const encodings: Record<BaseEncoding, string> = {
  StandardEncoding: standard,
  WinAnsiEncoding: winAnsi,
  MacRomanEncoding: macRoman,
};

export function isBaseEncoding(name: string): name is BaseEncoding {
  return name in encodings;
}

/** The character code `code` stands for in `encoding`, or null when it has no glyph there. */
export function encodedText(encoding: BaseEncoding, code: number): string | null {
  const text = encodings[encoding][code];
  return text === undefined || text === '\0' ? null : text;
}
