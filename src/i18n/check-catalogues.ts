// `npm run lint:catalogues` (part of `npm run check`): every language's catalogue against
// English's (catalogue-check.ts); prints each problem and exits 1 when there is one.
import { readFileSync } from 'node:fs';
import { catalogueProblems } from './catalogue-check.ts';
import english from './catalogues/en.json' with { type: 'json' };
import { languages } from './languages.ts';

const problems = languages.flatMap((language) => {
  let catalogue: Record<string, unknown>;
  try {
    catalogue = JSON.parse(readFileSync(new URL(`./catalogues/${language}.json`, import.meta.url), 'utf8'));
  } catch (error) {
    return [`${language}: catalogues/${language}.json cannot be read (${(error as Error).message})`];
  }
  return catalogueProblems(english, catalogue, language);
});
for (const problem of problems) process.stderr.write(`${problem}\n`);
if (problems.length) process.exit(1);
process.stdout.write(`${languages.length} catalogues, ${Object.keys(english).length} messages each: all agree with English\n`);
