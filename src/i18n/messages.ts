// What a person reads, in their language: every sentence of a page, a mail or the certificate
// is a key of the catalogues (src/i18n/catalogues/<language>.json, ICU MessageFormat: plural
// and select as each language needs), formatted by FormatJS's intl-messageformat, with dates
// and numbers through Intl. English's catalogue is the source: its keys are the type of a
// key, and `npm run lint:catalogues` (scripts/check-catalogues.ts) fails when another
// catalogue lacks one, adds one, or changes a message's placeholders.
import { readFileSync } from 'node:fs';
import { IntlMessageFormat } from 'intl-messageformat';
import english from './catalogues/en.json' with { type: 'json' };
import { direction, type Language } from './languages.ts';

export type MessageKey = keyof typeof english;
export type Catalogue = Record<MessageKey, string>;
/** What a message's placeholders take: text, a number (plural, `number`), or a select's case. */
export type MessageValues = Record<string, string | number>;

const catalogueDir = new URL('./catalogues/', import.meta.url);
const catalogues = new Map<Language, Catalogue>([['en', english]]);

/** A language's catalogue, read once when first used. */
export function catalogue(language: Language): Catalogue {
  let found = catalogues.get(language);
  if (!found) {
    found = JSON.parse(readFileSync(new URL(`${language}.json`, catalogueDir), 'utf8')) as Catalogue;
    catalogues.set(language, found);
  }
  return found;
}

/** A rule's sentence as a key of the catalogues and its values (a page says it in its language). */
export interface KeyedSentence {
  key: MessageKey;
  values?: MessageValues;
  /**
   * Values that are lists of sentences of their own ("JavaScript and embedded files"): each
   * said in the page's language, joined as the language joins a list.
   */
  lists?: Record<string, KeyedSentence[]>;
  /**
   * Values that are phrases of their own, said in the page's language: whom a rule is about
   * (`who`: "Recipient 2", "Role 2", or a template role's name, as `who.*` say them).
   */
  parts?: Record<string, KeyedSentence>;
  /** Sentences said after this one (a file refused by several rules at once). */
  and?: KeyedSentence[];
}

/** One language's way of saying things: messages by key, and dates in its conventions. */
export interface Translator {
  /** The page's `lang`: one of `languages`, or the tests' pseudo-language (`en-XA`). */
  readonly language: Language | 'en-XA';
  /** The locale of its numbers, dates, lists and plural rules (`en` for the pseudo-language). */
  readonly locale: string;
  readonly dir: 'ltr' | 'rtl';
  /** The message `key` with its placeholders filled. Plain text: pages escape it. */
  t(key: MessageKey, values?: MessageValues): string;
  /**
   * A message with markup (`<b>{email}</b>`): each tag's function gets its content (the
   * message's text, values filled) and returns what stands for it; the text around is given
   * back as strings, in order (ui/rich-text.ts makes escaped HTML of them).
   */
  rich<T>(
    key: MessageKey,
    values: Record<string, string | number | ((chunks: Array<string | T>) => T)>,
  ): Array<string | T>;
  /** A list of names joined as the language joins them ("Ann, Bob and Val"). */
  list(items: string[]): string;
  /**
   * A moment for people, in `timeZone` and naming it: "2 Dec 2026, 14:03 UTC",
   * "02.12.2026, 15:03 Europe/Berlin", "2026/12/02 23:03 Asia/Tokyo"; `seconds` adds them.
   */
  dateTime(at: Date | string, timeZone: string, options?: { seconds?: boolean }): string;
}

const translators = new Map<Language, Translator>();

/** The (cached) translator of a language; its messages are compiled on first use. */
export function translator(language: Language): Translator {
  const cached = translators.get(language);
  if (cached) return cached;
  const made = translatorOf(language, direction(language), () => catalogue(language), language);
  translators.set(language, made);
  return made;
}

/** First Strong Isolate and Pop Directional Isolate (UAX #9 X5c, X6a). */
const isolate = (text: string) => `\u2068${text}\u2069`;

const pageTranslators = new Map<Language, Translator>();

/**
 * **The** translator of a page: `translator(language)`, but that in a right-to-left language
 * every text a message is given to show (a name, an address, a column's header, a sentence of
 * its own) is isolated from the sentence's direction, FSI … PDI, as Fluent does by default:
 * without it, "«ann@client.example»" in an Arabic sentence loses its closing mark to the
 * address and a colon after a Latin header jumps to its other side. The values that choose a
 * case (select, plural) are left as they are. Pages only: a mail's plain text and the
 * certificate's lines are drawn by rules of their own (pdf/fonts.ts draws no format
 * characters), so they keep `translator`.
 */
export function pageTranslator(language: Language): Translator {
  const cached = pageTranslators.get(language);
  if (cached) return cached;
  const base = translator(language);
  let made = base;
  if (base.dir === 'rtl') {
    const selectors = new Map<MessageKey, Set<string>>();
    const isolated = <V>(key: MessageKey, values: Record<string, V>): Record<string, V> => {
      let chosen = selectors.get(key);
      if (!chosen) {
        const message = catalogue(language)[key] ?? english[key];
        chosen = new Set(
          [...message.matchAll(/\{\s*(\w+)\s*,\s*(?:select|plural|selectordinal)\b/g)].map((m) => m[1] ?? ''),
        );
        selectors.set(key, chosen);
      }
      const choosing = chosen;
      return Object.fromEntries(
        Object.entries(values).map(([name, value]) => [
          name,
          typeof value === 'string' && value !== '' && !choosing.has(name) ? isolate(value) : value,
        ]),
      ) as Record<string, V>;
    };
    made = {
      ...base,
      t: (key, values) => base.t(key, values && isolated(key, values)),
      rich: (key, values) => base.rich(key, isolated(key, values)),
    };
  }
  pageTranslators.set(language, made);
  return made;
}

/**
 * A translator of `messages` (read when first needed; English's for a key they lack), its
 * plurals, lists and dates those of `locale`: `translator`'s, and the tests' pseudo-language's.
 */
export function translatorOf(
  language: Translator['language'],
  dir: 'ltr' | 'rtl',
  messages: () => Partial<Catalogue>,
  locale: string,
): Translator {
  const compiled = new Map<MessageKey, IntlMessageFormat>();
  const dateFormats = new Map<string, Intl.DateTimeFormat>();
  // Signet's English is British English (as its dates): no comma before the last "and".
  const listFormat = new Intl.ListFormat(locale === 'en' ? 'en-GB' : locale, {
    style: 'long',
    type: 'conjunction',
  });
  const compiledFormat = (key: MessageKey): IntlMessageFormat => {
    let format = compiled.get(key);
    if (!format) {
      format = new IntlMessageFormat(messages()[key] ?? english[key], locale);
      compiled.set(key, format);
    }
    return format;
  };
  return {
    language,
    locale,
    dir,
    t(key, values) {
      return String(compiledFormat(key).format(values));
    },
    rich(key, values) {
      const out = compiledFormat(key).format(values as Record<string, never>);
      return Array.isArray(out) ? out : [out as string];
    },
    list(items) {
      return listFormat.format(items);
    },
    dateTime(at, timeZone, options = {}) {
      const id = `${timeZone} ${options.seconds ? 's' : ''}`;
      let format = dateFormats.get(id);
      if (!format) {
        // Signet's English is British English: day before month, a 24-hour clock.
        format = new Intl.DateTimeFormat(locale === 'en' ? 'en-GB' : locale, {
          timeZone,
          dateStyle: 'medium',
          timeStyle: options.seconds ? 'medium' : 'short',
        });
        dateFormats.set(id, format);
      }
      return `${format.format(typeof at === 'string' ? new Date(at) : at)} ${timeZone}`;
    },
  };
}
