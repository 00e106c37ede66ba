// The languages Signet speaks (issue 51): the one list, how a BCP 47 tag someone gave is read
// into one of them, which way each is written, its own name for itself, and how a browser's
// `Accept-Language` picks one. Pure: no catalogue is loaded here.

/** Every language with a catalogue, English first (the fallback), as BCP 47 tags. */
export const languages = [
  'en',
  'de',
  'fr',
  'es',
  'it',
  'pt-BR',
  'nl',
  'pl',
  'cs',
  'sv',
  'uk',
  'tr',
  'ja',
  'zh-CN',
  'ko',
  'ar',
  'he',
] as const;
export type Language = (typeof languages)[number];

export const defaultLanguage: Language = 'en';

const rightToLeft: ReadonlySet<Language> = new Set(['ar', 'he']);

/** `dir` of `<html>` and of text written in the language. */
export function direction(language: Language): 'ltr' | 'rtl' {
  return rightToLeft.has(language) ? 'rtl' : 'ltr';
}

/** The language's name in itself ("Deutsch", "العربية"), for a language switch. */
export function endonym(language: Language): string {
  const name = new Intl.DisplayNames([language], { type: 'language' }).of(language) ?? language;
  return name.charAt(0).toLocaleUpperCase(language) + name.slice(1);
}

/** Each language's subtags as Intl fills them in ("zh-CN": zh, Hans, CN). */
const maximized = languages.map((language) => ({ language, locale: new Intl.Locale(language).maximize() }));

/**
 * One of `languages` for a BCP 47 tag given by a person or an integrator ("de", "de-AT",
 * "pt-br", "zh-Hans", "AR", "iw"), read as `Accept-Language` is: the same language in the
 * same script (Intl's likely subtags fill in what the tag leaves out), its region aside when
 * Signet has no catalogue of it ("de-CH" is German, "pt-PT" Brazilian Portuguese). Null for
 * a malformed tag, a language without a catalogue, or another script of one ("zh-TW" is
 * Traditional Chinese, which the Simplified catalogue does not serve).
 */
export function parseLanguage(tag: string): Language | null {
  let locale: Intl.Locale;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag.trim());
    if (!canonical) return null;
    locale = new Intl.Locale(canonical).maximize();
  } catch {
    return null;
  }
  const same = maximized.filter(
    (each) => each.locale.language === locale.language && each.locale.script === locale.script,
  );
  return (same.find((each) => each.locale.region === locale.region) ?? same[0])?.language ?? null;
}

/**
 * The language an `Accept-Language` header asks for (RFC 9110 §12.5.4: tags by their `q`,
 * the first listed among equals, `q=0` refused), else `fallback`. At most 20 entries are
 * read: the header is the visitor's to write.
 */
export function negotiateLanguage(
  header: string | undefined,
  fallback: Language = defaultLanguage,
): Language {
  return matchLanguage(header) ?? fallback;
}

/** The language of `Accept-Language` that Signet has, or null when it asks for none of them. */
export function matchLanguage(header: string | undefined): Language | null {
  if (!header) return null;
  const ranked = header
    .split(',')
    .slice(0, 20)
    .map((entry, index) => {
      const [tag = '', ...parameters] = entry.split(';').map((part) => part.trim());
      const q = parameters.find((parameter) => /^q=/i.test(parameter));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag, weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter(({ tag, weight }) => tag && tag !== '*' && weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const { tag } of ranked) {
    const language = parseLanguage(tag);
    if (language) return language;
  }
  return null;
}

/**
 * The first of `tags` that names a language with a catalogue, else English: a recipient's
 * own language, then the workspace's default (`firstLanguage(recipient.language,
 * workspace.default_language)`).
 */
export function firstLanguage(...tags: Array<string | null | undefined>): Language {
  for (const tag of tags) {
    const language = tag ? parseLanguage(tag) : null;
    if (language) return language;
  }
  return defaultLanguage;
}
