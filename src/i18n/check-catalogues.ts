// `npm run lint:catalogues` (part of `npm run check`): every language's catalogue against
// English's (catalogue-check.ts): keys, placeholders, plural forms, and the words of its
// glossary (glossary/<language>.json) where English's message uses the term. Prints each
// problem and exits 1 when there is one; `node src/i18n/check-catalogues.ts de fr` checks those.
import { readFileSync } from 'node:fs';
import { catalogueProblems, type Glossary, glossaryProblems } from './catalogue-check.ts';
import english from './catalogues/en.json' with { type: 'json' };
import { type Language, languages } from './languages.ts';

const read = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));
const englishGlossary = read('./glossary/en.json') as unknown as Glossary;
const asked = process.argv.slice(2);
const checked = asked.length ? languages.filter((language) => asked.includes(language)) : languages;

function problemsOf(language: Language): string[] {
  let catalogue: Record<string, unknown>;
  let glossary: Glossary;
  try {
    catalogue = read(`./catalogues/${language}.json`);
    glossary = read(`./glossary/${language}.json`) as unknown as Glossary;
  } catch (error) {
    return [`${language}: its catalogue or glossary cannot be read (${(error as Error).message})`];
  }
  return [
    ...catalogueProblems(english, catalogue, language),
    ...glossaryProblems(english, englishGlossary, catalogue, glossary, language),
  ];
}

const problems = checked.flatMap(problemsOf);
for (const problem of problems) process.stderr.write(`${problem}\n`);
if (problems.length) process.exit(1);
process.stdout.write(
  `${checked.length} catalogues, ${Object.keys(english).length} messages each: all agree with English\n`,
);
