// The tests' pseudo-language (issue 51): every English message accented and bracketed
// (catalogue-check.ts `pseudoCatalogue`), so a page or a mail rendered in it shows any
// sentence that did not come from the catalogues as plain English; `englishLeft` finds them.
import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';
import { pseudoCatalogue } from '../../src/i18n/catalogue-check.ts';
import english from '../../src/i18n/catalogues/en.json' with { type: 'json' };
import type { Language } from '../../src/i18n/languages.ts';
import { catalogue, type Translator, translatorOf } from '../../src/i18n/messages.ts';

let pseudo: Translator | null = null;

/** A translator of the pseudo-language (`en-XA`: English's plurals, lists and dates). */
export function pseudoTranslator(): Translator {
  pseudo ??= translatorOf('en-XA', 'ltr', () => pseudoCatalogue(english), 'en');
  return pseudo;
}

function literals(elements: MessageFormatElement[], into: string[] = []): string[] {
  for (const element of elements) {
    if (element.type === TYPE.literal) into.push(element.value);
    if ('options' in element)
      for (const option of Object.values(element.options)) literals(option.value, into);
    if ('children' in element) literals(element.children, into);
  }
  return into;
}

/** Words the English catalogue writes (three letters or more, lower case): what must not be left. */
const vocabulary = new Set(
  Object.values(english)
    .flatMap((message) => literals(parse(message)))
    .flatMap((text) => text.toLowerCase().match(/[a-z]{3,}/g) ?? [])
    // The languages' own names are shown as they are (the switch's "English"), never translated.
    .filter((word) => !['pdf', 'signet', 'utc', 'english'].includes(word)),
);

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };

/**
 * What a person reads of a page: its text, and the attributes read aloud or shown (alt,
 * aria-label, title, placeholder, the script's data-t-* sentences), entities decoded.
 */
export function readableText(page: string): string {
  const withoutCode = page.replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/g, ' ');
  const attributes = [
    ...withoutCode.matchAll(/\s(?:alt|aria-label|title|placeholder|data-t-[a-z-]+)="([^"]*)"/g),
  ].map(([, value]) => value);
  const text = withoutCode.replace(/<[^>]*>/g, ' ');
  return [text, ...attributes]
    .join(' ')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => entities[name] ?? ' ');
}

/**
 * The English words left in `text` once the values it shows (names, titles, addresses: `values`)
 * are taken out: each a sentence that did not come from the catalogues.
 */
export function englishLeft(text: string, values: string[]): string[] {
  let rest = text;
  // Innermost first: a message's value may be a message of its own.
  for (let before = ''; before !== rest; ) {
    before = rest;
    rest = rest.replace(/⟦[^⟦⟧]*⟧/g, ' ');
  }
  for (const value of [...values].sort((a, b) => b.length - a.length)) rest = rest.split(value).join(' ');
  return [...new Set((rest.toLowerCase().match(/[a-z]{3,}/g) ?? []).filter((word) => vocabulary.has(word)))];
}

/**
 * The English words left in a page in `language`, a language not written in Latin letters
 * (Japanese, Arabic…): each word of the English catalogue's vocabulary found in `text`
 * that the language's own catalogue does not write (its "PDF", "URL", "Webhook") and no
 * value shown says. So a page served over HTTP in a real language is checked as the
 * pseudo-language's views are, with nothing added to the server.
 */
export function englishLeftIn(language: Language, text: string, values: string[]): string[] {
  const own = new Set(
    Object.values(catalogue(language))
      .flatMap((message) => literals(parse(message)))
      .flatMap((literal) => literal.toLowerCase().match(/[a-z]{3,}/g) ?? []),
  );
  let rest = text;
  for (const value of [...values].sort((a, b) => b.length - a.length)) rest = rest.split(value).join(' ');
  return [
    ...new Set(
      (rest.toLowerCase().match(/[a-z]{3,}/g) ?? []).filter((w) => vocabulary.has(w) && !own.has(w)),
    ),
  ];
}
