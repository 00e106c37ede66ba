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
// Accounts compare addresses by `emailKey`: the normalised address, lower-cased.
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

/** The key accounts are looked up by: the normalised address, lower-cased. */
export function emailKey(address: string): string {
  return normalizeEmail(address).toLowerCase();
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
