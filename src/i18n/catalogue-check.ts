// What `npm run lint:catalogues` holds every catalogue to, against English's: the same keys,
// messages that parse as ICU MessageFormat, the same placeholders of the same kinds, and every
// plural form the language has (Intl.PluralRules: Polish and Ukrainian one, few, many; Arabic
// zero to many). Also the pseudo-language the tests render pages and mails in, made from
// English's messages with their placeholders kept (any English left shows as plain ASCII).
import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';
import { printAST } from '@formatjs/icu-messageformat-parser/printer.js';

const kinds: Partial<Record<TYPE, string>> = {
  [TYPE.argument]: 'text',
  [TYPE.number]: 'number',
  [TYPE.date]: 'date',
  [TYPE.time]: 'time',
  [TYPE.select]: 'select',
  [TYPE.plural]: 'plural',
  [TYPE.tag]: 'tag',
};

interface Placeholder {
  kind: string;
  /** A plural's forms or a select's cases. */
  options: string[];
}

/** Every placeholder of a message by name, nested ones included. */
function placeholders(elements: MessageFormatElement[], into = new Map<string, Placeholder[]>()) {
  for (const element of elements) {
    const kind = kinds[element.type];
    if (!kind || !('value' in element) || typeof element.value !== 'string') continue;
    const options = 'options' in element ? Object.keys(element.options) : [];
    into.set(element.value, [...(into.get(element.value) ?? []), { kind, options }]);
    if ('options' in element)
      for (const option of Object.values(element.options)) placeholders(option.value, into);
    if ('children' in element) placeholders(element.children, into);
  }
  return into;
}

function parsed(message: unknown): MessageFormatElement[] | string {
  if (typeof message !== 'string') return 'is not a string';
  try {
    return parse(message, { requiresOtherClause: true });
  } catch (error) {
    return `does not parse (${(error as Error).message})`;
  }
}

/** What is wrong with `language`'s catalogue, one sentence each; none when it is right. */
export function catalogueProblems(
  english: Record<string, string>,
  catalogue: Record<string, unknown>,
  language: string,
): string[] {
  const problems: string[] = [];
  const forms = new Intl.PluralRules(language).resolvedOptions().pluralCategories as string[];
  for (const key of Object.keys(catalogue))
    if (!(key in english)) problems.push(`${language}: "${key}" is not in English's catalogue`);
  for (const [key, source] of Object.entries(english)) {
    if (!(key in catalogue)) {
      problems.push(`${language}: "${key}" is missing`);
      continue;
    }
    const theirs = parsed(catalogue[key]);
    if (typeof theirs === 'string') {
      problems.push(`${language}: "${key}" ${theirs}`);
      continue;
    }
    const ours = placeholders(parsed(source) as MessageFormatElement[]);
    const found = placeholders(theirs);
    const describe = (map: Map<string, Placeholder[]>) =>
      [...map].map(([name, uses]) => `${name}:${[...new Set(uses.map((use) => use.kind))].join('|')}`).sort();
    if (describe(ours).join(' ') !== describe(found).join(' '))
      problems.push(
        `${language}: "${key}" has the placeholders ${describe(found).join(', ') || 'none'}; English's are ${describe(ours).join(', ') || 'none'}`,
      );
    for (const [name, uses] of found)
      for (const use of uses) {
        if (use.kind !== 'plural') continue;
        const lacking = forms.filter((form) => !use.options.includes(form));
        if (lacking.length)
          problems.push(`${language}: "${key}" lacks the plural forms ${lacking.join(', ')} of {${name}}`);
      }
  }
  return problems;
}

const accented: Record<string, string> = Object.fromEntries(
  [...'aeiouyAEIOUYcnsz'].map((letter, i) => [letter, [...'áéíóúýÁÉÍÓÚÝçñšž'][i] as string]),
);

/** A message's words marked and accented ("[Ƥlééáśé śíǵñ: {title}]"), its placeholders kept. */
function pseudoElements(elements: MessageFormatElement[]): MessageFormatElement[] {
  return elements.map((element) => {
    if (element.type === TYPE.literal)
      return { ...element, value: element.value.replace(/[aeiouyAEIOUYcnsz]/g, (c) => accented[c] ?? c) };
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      const options = Object.fromEntries(
        Object.entries(element.options).map(([name, option]) => [
          name,
          { ...option, value: pseudoElements(option.value) },
        ]),
      );
      return { ...element, options };
    }
    if (element.type === TYPE.tag) return { ...element, children: pseudoElements(element.children) };
    return element;
  });
}

/** The pseudo-language's catalogue: every English message, accented and in brackets. */
export function pseudoCatalogue(english: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(english).map(([key, message]) => [
      key,
      `⟦${printAST(pseudoElements(parse(message, { requiresOtherClause: true })))}⟧`,
    ]),
  );
}

/** A glossary's entry: the word a language uses for a term that carries legal weight. */
export interface GlossaryEntry {
  term: string;
  /** Lower-case pieces, one of which every message that uses the term contains (stems allow inflection). */
  match: string[];
  note?: string;
}
export type Glossary = Record<string, GlossaryEntry>;

/** The phrasal verbs of accounts, not of documents: "to sign up", "sign in", "sign out". */
const accountPhrase = /^ (up|in|out)\b/;

/**
 * Whether English's message uses a glossary piece as the term: as whole words ("to sign" is
 * not in "to Signet"), and not in an account's phrasal verb ("to sign up").
 */
function usesTerm(words: string, piece: string): boolean {
  for (let at = words.indexOf(piece); at !== -1; at = words.indexOf(piece, at + 1)) {
    const rest = words.slice(at + piece.length);
    if (!/^\p{L}/u.test(rest) && !accountPhrase.test(rest)) return true;
  }
  return false;
}

/**
 * Where a catalogue does not use its glossary's word for a term English's message uses: for
 * each term, every message whose English contains one of English's `match` pieces must
 * contain one of the language's.
 */
export function glossaryProblems(
  english: Record<string, string>,
  englishGlossary: Glossary,
  catalogue: Record<string, unknown>,
  glossary: Glossary,
  language: string,
): string[] {
  const problems: string[] = [];
  for (const [id, source] of Object.entries(englishGlossary)) {
    const theirs = glossary[id];
    if (!theirs?.term || !theirs.match?.length) {
      problems.push(`${language}: the glossary has no "${id}" (${source.term})`);
      continue;
    }
    for (const [key, message] of Object.entries(english)) {
      // The words a reader sees: a placeholder's name (`{signers}`, `{sealedAt}`) is none.
      const words = message.replace(/\{\s*\w+/g, '{').toLowerCase();
      if (!source.match.some((piece) => usesTerm(words, piece))) continue;
      const translated = String(catalogue[key] ?? '').toLocaleLowerCase(language);
      if (!theirs.match.some((piece) => translated.includes(piece.toLocaleLowerCase(language))))
        problems.push(
          `${language}: "${key}" does not use the glossary's word for "${source.term}" (${theirs.match.join(' / ')})`,
        );
    }
  }
  return problems;
}
