// A member's pages in a language beside English (issue 51): a document's page as its sender
// sees it (test/support/sender-views.ts: two signers, a viewer, a PDF, a history), and the
// new-document form as a refused submit shows it (its refusals said in the language), each
// rendered in German, Polish and Arabic against the same page in English, in alternation, round by round;
// microseconds per page and the ratio (goal: at most 1.1 ×). As for the signing page
// (bench/signing-language.ts), only the rendering depends on the language: the page's queries
// and its HTTP are the same either way, so the rendering is what is measured.
//
// `npm run bench:member-language` runs it alone; bench/all.ts calls measureMemberPagesLanguage().
import type { Language } from '../src/i18n/languages.ts';
import { translator } from '../src/i18n/messages.ts';
import type { Problems } from '../src/i18n/refusals.ts';
import { whoIs } from '../src/sending/draft-input.ts';
import { errorSummary, type Form } from '../src/ui/forms.ts';
import { renderToString } from '../src/ui/html.ts';
import { formErrors } from '../src/web/document-form.ts';
import { newDocumentView, sectionAnchors } from '../src/web/document-form.views.ts';
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

/** The new-document form as a refused submit shows it: three recipients, two price lines, five refusals. */
const refusedForm: Form = {
  title: '',
  recipientRows: '4',
  priceRows: '3',
  r0_email: 'maria@kunde.example',
  r0_name: 'Maria Jansen',
  r1_email: 'tomasz@',
  r1_name: 'Tomasz Wójcik',
  r2_email: 'buchhaltung@nordwind.example',
  r2_name: 'Buchhaltung',
  r2_role: 'viewer',
  r2_order: '2',
  p0_name: 'Relaunch',
  p0_qty: '1',
  p0_price: '12000',
  p0_vat: '19',
  p1_name: 'Wartung',
  p1_price: 'zehn',
  p1_billing: 'month',
  p1_periods: '12',
};
const refusals: Problems = {
  title: { key: 'draft.problem.title', values: { max: 200 } },
  'recipients[1].email': { key: 'draft.problem.email', parts: { who: whoIs('recipient', 2) } },
  'pricing.items[1].unitPrice': {
    key: 'pricing.problem.notANumber',
    values: { field: 'unitPrice', line: 2 },
  },
  'pricing.items[1].quantity': { key: 'pricing.problem.notANumber', values: { field: 'quantity', line: 2 } },
  file: {
    key: 'upload.activeContent',
    lists: { kinds: [{ key: 'upload.activeKind', values: { kind: 'javascript' } }] },
  },
};

/** The new-document form with its refusals (each said in the language) in English and in `languages`. */
export function measureDocumentFormLanguage(options: {
  rounds: number;
  iterations: number;
  languages?: Language[];
}): LanguageRun {
  const render = (language: Language) => {
    const tr = translator(language);
    const errors = formErrors(refusedForm, refusals, { recipients: 4, prices: 3 }, tr);
    const options = {
      action: '/documents',
      submit: tr.t('docForm.create'),
      cancel: '/documents',
      maxBytes: 26_214_400,
      errors,
    };
    const message = errorSummary(errors, sectionAnchors, tr);
    return renderToString(newDocumentView('csrf-token', refusedForm, message, null, options, tr)).length;
  };
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
  const form = measureDocumentFormLanguage({
    rounds: Number(process.env.SIGNET_BENCH_ROUNDS ?? 5),
    iterations: Number(process.env.SIGNET_BENCH_MEMBER_PAGES ?? 2000),
  });
  process.stdout.write(
    `the refused new-document form in English: ${form.english.toFixed(1)} us per page (ceiling)\n`,
  );
  for (const { language, micros, ratio } of form.languages)
    process.stdout.write(
      `the refused new-document form in ${language}: ${micros.toFixed(1)} us per page, ${ratio.toFixed(2)} x English\n`,
    );
}
