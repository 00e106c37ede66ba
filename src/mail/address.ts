// **The** email rule, wherever an address is typed (recipients, sign-up, log-in,
// invitations, the CLI): an address is normalised before it is checked, compared or stored,
// so that look-alikes of one address cannot become separate accounts or recipients.
// - Unicode NFKC: fullwidth and other compatibility forms become their plain letters
//   ("ａｄｍｉｎ" is "admin").
// - Invisible characters (Unicode's default-ignorable code points: zero-width spaces and
//   joiners, soft hyphens, direction marks, variation selectors) are removed.
// - Refused: a trailing dot (`a@example.com.` is the same mailbox as `a@example.com`), and a
//   part that mixes alphabets (a Cyrillic "а" among Latin letters), the classic spoof;
//   a part written wholly in one alphabet (`иван@почта.рф`) is accepted.
// - something@domain.tld, at most 254 characters (RFC 5321's path limit).
// Accounts compare addresses by `emailKey`, a look-alike key: addresses that read the same
// have one key, so they are one account (a second sign-up is refused, a log-in finds the
// first). The address as typed is what is stored and mailed; only lookups use the key.
// The key is Unicode's confusables skeleton (UTS #39: NFD, each character replaced by its
// prototype from confusables.txt, NFD again; the table from `unhomoglyph`), lower-cased
// first, with three decisions of ours:
// - ASCII stays as typed. UTS #39 maps `m` to `rn`, `d` to `cl` (and `0` to `O`, `1` to
//   `l`): `clara@` and `dara@`, `bob0@` and `bobo@` are different people's real mailboxes,
//   and refusing one would refuse real people. So a non-ASCII character is mapped to the
//   ASCII character that has its prototype (Cyrillic `м` → `rn` → `m`); two ASCII addresses
//   have the same key only when they are the same lower-cased. Existing ASCII accounts keep
//   their key (the earlier one: the lower-cased address).
// - Latin small capitals (`ᴅ`): confusables.txt leaves most of them out (they are drawn
//   smaller than the capital, so not "confusable" to Unicode), but in an address they read
//   as the letter; they map to it.
// - Diacritics (the combining marks of the Latin, Greek and Cyrillic blocks: `ọ`, `é`, `ü`)
//   are dropped: `demọ@` and `demo@` are one account, and so are `josé@` and `jose@`.
//   Marks of other scripts (Devanagari's vowel signs) are letters there and stay.
import unhomoglyph from 'unhomoglyph';

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const invisible = /\p{Default_Ignorable_Code_Point}/gu;

/** Scripts that are told apart; letters of other scripts (and digits, marks) count as none. */
const scripts = [
  /\p{Script=Latin}/u,
  /\p{Script=Cyrillic}/u,
  /\p{Script=Greek}/u,
  /\p{Script=Armenian}/u,
  /\p{Script=Georgian}/u,
  /\p{Script=Hebrew}/u,
  /\p{Script=Arabic}/u,
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u,
  /\p{Script=Hangul}/u,
];

/** The address as it is checked, compared and stored. */
export function normalizeEmail(address: string): string {
  return address.normalize('NFKC').replace(invisible, '').trim();
}

/** The key before look-alikes were folded (and still the key of a case-only difference). */
export function caseFoldedEmail(address: string): string {
  return normalizeEmail(address).toLowerCase();
}

/** Combining diacritics of the Latin, Greek and Cyrillic blocks (and generic ones). */
const diacritic = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/u;

/** Latin letter small capitals (IPA and phonetic extensions, Latin Extended-D) → the letter. */
const smallCapitals: Record<string, string> = {
  ᴀ: 'a',
  ʙ: 'b',
  ᴄ: 'c',
  ᴅ: 'd',
  ᴇ: 'e',
  ꜰ: 'f',
  ɢ: 'g',
  ʜ: 'h',
  ɪ: 'i',
  ᴊ: 'j',
  ᴋ: 'k',
  ʟ: 'l',
  ᴍ: 'm',
  ɴ: 'n',
  ᴏ: 'o',
  ᴘ: 'p',
  ꞯ: 'q',
  ʀ: 'r',
  ꜱ: 's',
  ᴛ: 't',
  ᴜ: 'u',
  ᴠ: 'v',
  ᴡ: 'w',
  ʏ: 'y',
  ᴢ: 'z',
  ᴁ: 'ae',
  ɶ: 'oe',
  ᴆ: 'd',
  ᴌ: 'l',
  ᴓ: 'o',
  ᴔ: 'oe',
  ᴕ: 'ou',
  ᴣ: 'z',
};

/** UTS #39's prototype of one character (its skeleton). */
const prototypeOf = (char: string) => unhomoglyph(char.normalize('NFD')).normalize('NFD');

/** For each prototype that an ASCII character has, that character (itself when it is one). */
const asciiByPrototype = new Map<string, string>();
for (let code = 0x21; code < 0x7f; code++) {
  const char = String.fromCharCode(code);
  const prototype = prototypeOf(char);
  if (!asciiByPrototype.has(prototype) || prototype === char) asciiByPrototype.set(prototype, char);
}

/** The look-alike key accounts are looked up by (the file's header says how). */
export function emailKey(address: string): string {
  let key = '';
  for (const char of caseFoldedEmail(address).normalize('NFD')) {
    if (char <= '\x7f') key += char;
    else if (diacritic.test(char)) continue;
    else {
      // A prototype may be a small capital itself (Cyrillic `в` → `ʙ`): read as its letter too.
      const prototype = smallCapitals[char] ?? prototypeOf(char);
      for (const part of asciiByPrototype.get(prototype) ?? prototype) key += smallCapitals[part] ?? part;
    }
  }
  return key.normalize('NFC').toLowerCase();
}

function mixesScripts(part: string): boolean {
  let seen: RegExp | null = null;
  for (const letter of part.match(/\p{L}/gu) ?? []) {
    const script = scripts.find((s) => s.test(letter));
    if (!script) continue;
    if (seen && seen !== script) return true;
    seen = script;
  }
  return false;
}

/** Why a normalised address is refused, or null when it is accepted. */
export function emailAddressProblem(address: string): 'invalid' | 'trailing-dot' | 'mixed-scripts' | null {
  if (address.endsWith('.')) return 'trailing-dot';
  if (address.length > 254 || !emailPattern.test(address)) return 'invalid';
  const [local = '', domain = ''] = address.split('@');
  if ([local, ...domain.split('.')].some(mixesScripts)) return 'mixed-scripts';
  return null;
}

/** Whether the address, once normalised, is accepted. */
export function isEmailAddress(address: string): boolean {
  return emailAddressProblem(normalizeEmail(address)) === null;
}
