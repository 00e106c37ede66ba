// A member's pages in a language beside English (issue 51): a document's page as its sender
// sees it (test/support/sender-views.ts: two signers, a viewer, a PDF, a history) rendered in
// German, Polish and Arabic against the same page in English, in alternation, round by round;
// microseconds per page and the ratio (goal: at most 1.1 ×). As for the signing page
// (bench/signing-language.ts), only the rendering depends on the language: the page's queries
// and its HTTP are the same either way, so the rendering is what is measured.
//
// `npm run bench:member-language` runs it alone; bench/all.ts calls measureMemberPagesLanguage().
import type { Language } from '../src/i18n/languages.ts';
import { translator } from '../src/i18n/messages.ts';
import { renderToString } from '../src/ui/html.ts';
import { documentView } from '../src/web/document-page.views.ts';
import { senderViewFixture } from '../test/support/sender-views.ts';
import { type LanguageRun, measureInLanguages } from './signing-language.ts';

/** A document's page for its sender in English and in `languages` (German, Polish and Arabic by default). */
export function measureMemberPagesLanguage(options: {
  rounds: number;
  iterations: number;
  languages?: Language[];
}): LanguageRun {
  const view = senderViewFixture();
  const render = (language: Language) =>
    renderToString(documentView(view, 'csrf-token', null, translator(language))).length;
  return measureInLanguages(render, { ...options, languages: options.languages ?? ['de', 'pl', 'ar'] });
}

if (import.meta.main) {
  const run = measureMemberPagesLanguage({
    rounds: Number(process.env.SIGNET_BENCH_ROUNDS ?? 5),
    iterations: Number(process.env.SIGNET_BENCH_MEMBER_PAGES ?? 2000),
  });
  process.stdout.write(`a document's page in English: ${run.english.toFixed(1)} us per page (ceiling)\n`);
  for (const { language, micros, ratio } of run.languages)
    process.stdout.write(
      `a document's page in ${language}: ${micros.toFixed(1)} us per page, ${ratio.toFixed(2)} x English\n`,
    );
}
