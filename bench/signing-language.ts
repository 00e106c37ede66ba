// The signing page in a language beside English (issue 51): the page a signer opens, with
// fields on two pages, a pricing table and the one-time-code form (test/support/signing-views.ts), rendered (the view's
// language-dependent parts too: the pricing formatted, the fields described) in German,
// Japanese and Arabic against the same page in English, in alternation, round by round;
// microseconds per page and the ratio (goal: at most 1.1 ×). Only the rendering depends on
// the language (the page's loads and its HTTP are the same queries and bytes either way),
// so this is the part measured: an HTTP comparison would hide the difference in its spread.
//
// `npm run bench:signing-language` runs it alone; bench/all.ts calls measureSigningLanguage().
import type { Language } from '../src/i18n/languages.ts';
import { translator } from '../src/i18n/messages.ts';
import { renderSigningPage } from '../src/signing/signing-page.ts';
import { signingViewIn } from '../test/support/signing-views.ts';

/** A page's rendering in English (the ceiling) and in other languages, side by side. */
export interface LanguageRun {
  /** Microseconds per page in English (the ceiling), the median round. */
  english: number;
  /** Each other language's microseconds per page and its median ratio to English. */
  languages: Array<{ language: Language; micros: number; ratio: number }>;
}

export type SigningLanguageRun = LanguageRun;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/**
 * `rounds` rounds of `iterations` pages rendered (`render`: a page in `language`, its length)
 * in English and in each of `languages`, alternating which goes first; a warm-up before.
 */
export function measureInLanguages(
  render: (language: Language) => number,
  options: { rounds: number; iterations: number; languages: Language[] },
): LanguageRun {
  const others = options.languages;
  let sink = 0;
  const time = (language: Language, count: number) => {
    const started = performance.now();
    for (let i = 0; i < count; i++) sink += render(language);
    return ((performance.now() - started) * 1000) / count;
  };
  for (const language of ['en' as const, ...others]) time(language, options.iterations / 4);
  const rounds: Array<Record<string, number>> = [];
  for (let round = 0; round < options.rounds; round++) {
    const order: Language[] = round % 2 === 0 ? ['en', ...others] : [...others, 'en'];
    rounds.push(Object.fromEntries(order.map((language) => [language, time(language, options.iterations)])));
  }
  if (sink === 0) throw new Error('nothing was rendered');
  return {
    english: median(rounds.map((r) => r.en as number)),
    languages: others.map((language) => ({
      language,
      micros: median(rounds.map((r) => r[language] as number)),
      ratio: median(rounds.map((r) => (r[language] as number) / (r.en as number))),
    })),
  };
}

/** The signing page in English and in `languages` (German, Japanese and Arabic by default). */
export function measureSigningLanguage(options: {
  rounds: number;
  iterations: number;
  languages?: Language[];
}): SigningLanguageRun {
  const render = (language: Language) =>
    renderSigningPage(signingViewIn(translator(language)), translator(language)).length;
  return measureInLanguages(render, { ...options, languages: options.languages ?? ['de', 'ja', 'ar'] });
}

if (import.meta.main) {
  const run = measureSigningLanguage({
    rounds: Number(process.env.SIGNET_BENCH_ROUNDS ?? 5),
    iterations: Number(process.env.SIGNET_BENCH_SIGNING_PAGES ?? 2000),
  });
  process.stdout.write(`signing page in English: ${run.english.toFixed(1)} us per page (ceiling)\n`);
  for (const { language, micros, ratio } of run.languages)
    process.stdout.write(
      `signing page in ${language}: ${micros.toFixed(1)} us per page, ${ratio.toFixed(2)} x English\n`,
    );
}
