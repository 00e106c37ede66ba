// How `npm test` (run.ts) spreads the suite over the machine's cores: which files run each
// database kind in a process of its own, and how long each file took, so the longest start
// first and the last to finish is a short one; and which files `npm run test:fast` leaves
// out, decided from what each file's source starts (slowReasons), never from a list of names.
// Files are named by their path from test/ ('webhooks/webhook-delivery.test.ts'). The lists
// are measured, not enforced: a file missing from `seconds` is started early (a new file is
// as likely to be slow as not), and a file that is not in `perKindFiles` runs once with every
// kind, as `node --test` runs it.
import { posix } from 'node:path';

/**
 * Files whose every test sits in `describeEachDatabase` (or loops over `databaseKinds`):
 * run with SIGNET_TEST_DATABASES set to one kind, once per kind, they run each case exactly
 * once, as one process would. A file with a test outside such a block must not be listed
 * (its test would run twice); `npm test` prints the total count to check against.
 */
export const perKindFiles = new Set([
  'accounts/account-security.test.ts',
  'accounts/password-reset-browser.test.ts',
  'accounts/password-reset.test.ts',
  'api/openapi-live.test.ts',
  'client/example-receiver.test.ts',
  'db/migrations.test.ts',
  'docs/guide-send-contract.test.ts',
  'docs/guides.test.ts',
  'documents/documents-detail.test.ts',
  'documents/documents-list.test.ts',
  'documents/pagination.property.test.ts',
  'documents/upload-limits.test.ts',
  'fields/fields.test.ts',
  'files/background-pages.test.ts',
  'files/files.test.ts',
  'files/page-images.test.ts',
  'http/auth.test.ts',
  'http/client-error.test.ts',
  'http/health.test.ts',
  'http/pretty-log.test.ts',
  'i18n/recipient-languages.test.ts',
  'i18n/signing-languages-browser.test.ts',
  'i18n/signing-languages.test.ts',
  'i18n/workspace-language.test.ts',
  'journeys/api-journey-browser.test.ts',
  'journeys/audit-trail.test.ts',
  'journeys/browser.test.ts',
  'journeys/document-journey.test.ts',
  'journeys/fields-journey.test.ts',
  'journeys/lifecycle-journey.test.ts',
  'journeys/public-link-browser.test.ts',
  'journeys/template-journey-browser.test.ts',
  'journeys/web-browser.test.ts',
  'mail/mail.test.ts',
  'sealing/sealing.test.ts',
  'sending/api-access.test.ts',
  'sending/api-create.test.ts',
  'sending/api-field-values.test.ts',
  'sending/api-idempotency.test.ts',
  'sending/api-lifecycle.test.ts',
  'sending/lifecycle-mails.test.ts',
  'signing/signing-documents.test.ts',
  'signing/signing-kept-entries.test.ts',
  'signing/signing-pages.test.ts',
  'signing/signing-phone-browser.test.ts',
  'templates/api-templates.test.ts',
  'templates/bulk-csv-limits.test.ts',
  'templates/bulk-send.test.ts',
  'templates/public-links.test.ts',
  'templates/templates.test.ts',
  'ui/upload-gate.test.ts',
  'web/editor-browser.test.ts',
  'web/kept-upload-browser.test.ts',
  'web/time-zone.test.ts',
  'web/web-csrf.test.ts',
  'web/web-documents-search.test.ts',
  'web/web-documents.test.ts',
  'web/web-drafts.test.ts',
  'web/web-endpoints-access.test.ts',
  'web/web-endpoints-create.test.ts',
  'web/web-endpoints-deliveries.test.ts',
  'web/web-fields.test.ts',
  'web/web-integrations.test.ts',
  'web/web-lifecycle.test.ts',
  'web/web-login.test.ts',
  'web/web-members.test.ts',
  'web/web-pages.test.ts',
  'web/web-public-link.test.ts',
  'web/web-search-browser.test.ts',
  'web/web-send.test.ts',
  'web/web-signup.test.ts',
  'web/web-template-editor.test.ts',
  'web/web-templates.test.ts',
  'webhooks/event-stream.test.ts',
  'webhooks/secret-rotation.test.ts',
  'webhooks/webhook-delivery-dispatcher.test.ts',
  'webhooks/webhook-delivery-fan-out.test.ts',
  'webhooks/webhook-delivery-outcomes.test.ts',
  'webhooks/webhook-delivery-request.test.ts',
  'webhooks/webhook-delivery-retries.test.ts',
  'webhooks/webhook-endpoints.test.ts',
]);

/**
 * Seconds per file (both kinds together): the `# jobs, longest first` table of a full
 * `npm test` in clean-clone CI on the 2-core machine on 2026-12-02, at 06d15ae (the suite
 * 1,240 s, nothing else running: the table's first column, a split file's two jobs added up),
 * every file listed. Wall time beside the suite's other job, not alone: what matters is the
 * order and the threshold below. Refresh from that table when files are added or split.
 */
export const seconds: Record<string, number> = {
  'processes/data-folder.test.ts': 176,
  'processes/multi-process.test.ts': 121,
  'journeys/web-browser.test.ts': 102,
  'fuzz/fuzz.test.ts': 85,
  'journeys/template-journey-browser.test.ts': 78,
  'sealing/verify.test.ts': 70,
  'processes/queue-kill.test.ts': 66,
  'sealing/seal-key.test.ts': 62,
  'journeys/lifecycle-journey.test.ts': 60,
  'pdf/pdf-corpus.test.ts': 58,
  'cli/cli.test.ts': 54,
  'journeys/document-journey.test.ts': 53,
  'cli/cli-documents.test.ts': 51,
  'journeys/api-journey-browser.test.ts': 45,
  'signing/signing-phone-browser.test.ts': 42,
  'files/page-images.test.ts': 41,
  'sealing/sealing.test.ts': 40,
  'journeys/fields-journey.test.ts': 36,
  'api/openapi-live.test.ts': 33,
  'web/kept-upload-browser.test.ts': 33,
  'client/client-writes.test.ts': 32,
  'accounts/password-reset-browser.test.ts': 25,
  'accounts/account-security.test.ts': 25,
  'webhooks/webhook-delivery-dispatcher.test.ts': 24,
  'processes/listen-remote.test.ts': 24,
  'web/uploads.test.ts': 24,
  'journeys/public-link-browser.test.ts': 23,
  'processes/webhook-crash.test.ts': 23,
  'processes/faults.test.ts': 22,
  'api/openapi.test.ts': 21,
  'journeys/audit-trail.test.ts': 21,
  'processes/shutdown.test.ts': 19,
  'accounts/password-reset.test.ts': 19,
  'processes/seal-takeover.test.ts': 18,
  'webhooks/event-stream.test.ts': 18,
  'web/editor-browser.test.ts': 18,
  'webhooks/webhook-delivery-outcomes.test.ts': 18,
  'webhooks/webhook-delivery-fan-out.test.ts': 17,
  'pdf/pdf-bombs.test.ts': 16,
  'web/web-search-browser.test.ts': 16,
  'journeys/browser.test.ts': 15,
  'webhooks/webhook-delivery-retries.test.ts': 15,
  'webhooks/webhook-endpoints.test.ts': 14,
  'webhooks/webhook-delivery-request.test.ts': 14,
  'signing/signing-documents.test.ts': 14,
  'http/rate-limit.test.ts': 14,
  'processes/machine-node.test.ts': 13,
  'web/web-public-link.test.ts': 13,
  'ui/upload-gate.test.ts': 13,
  'metrics/metrics.test.ts': 13,
  'pdf/pdf-render.test.ts': 13,
  'signing/signing-pages.test.ts': 13,
  'templates/api-templates.test.ts': 13,
  'fields/fields.test.ts': 12,
  'http/envelope.test.ts': 12,
  'docs/guide-send-contract.test.ts': 12,
  'db/pglite-baseline.test.ts': 12,
  'mail/mail-fairness.test.ts': 12,
  'pdf/pdf-one-look.test.ts': 12,
  'mail/mail.test.ts': 12,
  'client/client.test.ts': 12,
  'pdf/pdf-reading.test.ts': 12,
  'web/web-documents.test.ts': 12,
  'http/pretty-log.test.ts': 12,
  'templates/bulk-send.test.ts': 12,
  'documents/lifecycle.test.ts': 11,
  'web/web-endpoints-deliveries.test.ts': 11,
  'cli/cli-webhooks.test.ts': 11,
  'webhooks/destination.test.ts': 11,
  'files/file-deletion.test.ts': 11,
  'templates/bulk-csv-limits.test.ts': 10,
  'pdf/pdf-text-truth.test.ts': 10,
  'documents/upload-limits.test.ts': 10,
  'files/background-pages.test.ts': 9.8,
  'http/health.test.ts': 9.5,
  'web/web-members.test.ts': 9.5,
  'web/web-endpoints-create.test.ts': 9.4,
  'docs/guides.test.ts': 9.2,
  'web/web-template-editor.test.ts': 8.7,
  'sending/lifecycle-mails.test.ts': 8.5,
  'http/control-characters.test.ts': 8.5,
  'web/web-lifecycle.test.ts': 8.5,
  'sending/api-lifecycle.test.ts': 8.4,
  'documents/pagination.property.test.ts': 8.3,
  'sending/api-create.test.ts': 8.1,
  'client/client-download.test.ts': 8,
  'web/web-integrations.test.ts': 7.9,
  'sending/api-field-values.test.ts': 7.8,
  'pdf/pdf-scripts.test.ts': 7.7,
  'sending/api-idempotency.test.ts': 7.7,
  'web/web-templates.test.ts': 7.6,
  'web/web-fields.test.ts': 7.5,
  'web/web-login.test.ts': 7.5,
  'web/web-send.test.ts': 7.4,
  'web/web-endpoints-access.test.ts': 7.3,
  'web/web-drafts.test.ts': 7.2,
  'sending/api-access.test.ts': 7.1,
  'webhooks/secret-rotation.test.ts': 7,
  'keys/key-cache.test.ts': 6.9,
  'signing/signing-kept-entries.test.ts': 6.7,
  'files/files.test.ts': 6.7,
  'web/web-csrf.test.ts': 6.6,
  'http/auth.test.ts': 6.5,
  'web/web-pages.test.ts': 6.4,
  'web/web-documents-search.test.ts': 6.4,
  'documents/documents-list.test.ts': 6.2,
  'documents/documents-detail.test.ts': 6,
  'web/time-zone.test.ts': 5.9,
  'templates/public-links.test.ts': 5.9,
  'client/client-package.test.ts': 5.6,
  'templates/templates.test.ts': 5.5,
  'web/web-signup.test.ts': 5.5,
  'http/request-log.test.ts': 5.4,
  'db/pg-array.test.ts': 5,
  'progress/progress-completion.test.ts': 4.9,
  'db/migrations.test.ts': 4.8,
  'queue/lease.test.ts': 4.7,
  'client/example-receiver.test.ts': 4.1,
  'pdf/pdf-fields.test.ts': 4,
  'pdf/pdf-seal.test.ts': 3.6,
  'pdf/pdf-document.test.ts': 3.5,
  'http/client-error.test.ts': 3.3,
  'pdf/pdf-compare.test.ts': 2.3,
  'api/openapi-routes.test.ts': 1.8,
  'client/client-build.test.ts': 1.4,
  'db/data-dir-lock.test.ts': 1.4,
  'templates/bulk-csv.test.ts': 1.2,
  'documents/pricing.test.ts': 0.9,
  'signing/signing-page.test.ts': 0.4,
  'ui/forms.test.ts': 0.4,
  'documents/value.test.ts': 0.4,
  'documents/cursor.test.ts': 0.4,
  'http/capability-urls-and-emails.test.ts': 0.3,
  'webhooks/webhook-pacing.test.ts': 0.3,
  'wake-loop.test.ts': 0.3,
  'suite-plan.test.ts': 0.3,
  'docs/deployment-files.test.ts': 0.3,
  'pdf/pdf-predictors.test.ts': 0.2,
  // Estimates (issue 51's files, not yet in a clean-clone table): refresh from the next one.
  'i18n/signing-languages-browser.test.ts': 30,
  'i18n/recipient-languages.test.ts': 9,
  'i18n/signing-languages.test.ts': 9,
  'i18n/workspace-language.test.ts': 7,
  'i18n/pseudo-language.test.ts': 1,
  'i18n/languages.test.ts': 0.5,
};

/** A per-kind file shorter than this runs as one job: a second process costs a second or two. */
export const splitAboveSeconds = 30;

/**
 * Files of one folder that each take less than `splitAboveSeconds` share a process, up to this
 * many measured seconds together, run with `--test-isolation=none`: a process costs about 3.5
 * CPU-s to start (the app's modules, the PGlite image per kind) whatever its file does, and the
 * test/web folder took 186.9 CPU-s instead of 245.3 (127 s instead of 155) this way
 * (docs/performance.md). Files that start something (a slowReasons rule other than `seconds`)
 * or write `process.env` keep a process of their own: what they leave behind must not reach
 * another file. `node test/run.ts --list` prints the jobs.
 */
export const batchSeconds = 40;

/** One `node --test` process: its files and the database kinds they run with. */
export interface Job {
  files: string[];
  kinds: string[];
  weight: number;
}

/** Whether a file may share a process with others of its folder (see batchSeconds). */
export function sharesProcess(name: string, source: string): boolean {
  const weight = seconds[name] ?? Number.POSITIVE_INFINITY;
  if (!(weight < splitAboveSeconds)) return false;
  if (/\bprocess\.env(\.\w+|\[[^\]]+\])\s*(=[^=]|\?\?=)|\bdelete\s+process\.env/.test(source)) return false;
  return slowReasons(name, source).every((reason) => reason.rule === 'seconds');
}

/**
 * The jobs, longest first: a per-kind file measured at `splitAboveSeconds` or more becomes one
 * job per kind, so its halves run side by side; files that share a process (sharesProcess) are
 * gathered by folder up to `batchSeconds`; every other file is a job with every kind. `names`
 * are paths from test/; `source` reads a file's text.
 */
export function planJobs(names: string[], kinds: string[], source: (name: string) => string): Job[] {
  const jobs: Job[] = [];
  const filling = new Map<string, Job>();
  for (const name of names) {
    const weight = seconds[name] ?? Number.POSITIVE_INFINITY;
    if (perKindFiles.has(name) && kinds.length > 1 && weight >= splitAboveSeconds) {
      for (const kind of kinds) jobs.push({ files: [name], kinds: [kind], weight: weight / kinds.length });
      continue;
    }
    if (!sharesProcess(name, source(name))) {
      jobs.push({ files: [name], kinds: [...kinds], weight });
      continue;
    }
    const folder = posix.dirname(name);
    const batch = filling.get(folder);
    if (batch && batch.weight + weight <= batchSeconds) {
      batch.files.push(name);
      batch.weight += weight;
    } else {
      const fresh = { files: [name], kinds: [...kinds], weight };
      filling.set(folder, fresh);
      jobs.push(fresh);
    }
  }
  return jobs.sort((a, b) => b.weight - a.weight);
}

/**
 * What `npm run test:fast` (`node test/run.ts --fast`) leaves out, read from each file's own
 * source (its imports), not from a list: a file is slow when it starts what a developer's
 * quick run should not wait for. The rest (routes, pages, rules and PDF work in the test
 * process, tools such as pdftotext run to their end) is what a developer runs while working;
 * `npm test` runs everything. `node test/run.ts --explain` prints the rule each file met.
 * - browser: it drives Chromium (imports playwright-core or support/chromium.ts);
 * - signet: it starts `signet` processes (startSignet from support/processes.ts, runSignet
 *   or mainScript from support/cli-process.ts, src/main.ts or npm/npx run by node:child_process);
 * - programs: it runs a program beside itself while it talks to it (node:child_process's
 *   spawn: readers' programs of a guide, processes racing for a lock), or has every page it
 *   checks drawn by four renderers (comparePageRenderings from support/pdf-compare.ts: pdf.js
 *   twice, poppler's and MuPDF's programs); a tool run to its end on one file (pdftotext,
 *   qpdf, pdfsig through support/pdf-tools.ts) is not such a program;
 * - servers: it starts servers of its own (support/throwaway-services.ts: PostgreSQL, Redis);
 * - fuzz: it fuzzes (a file in fuzz/, or the generators of support/fuzz-requests.ts);
 * - seconds: none of those, but `seconds` measured it at `slowAboveSeconds` or more.
 */
export interface SlowReason {
  rule: 'browser' | 'signet' | 'programs' | 'servers' | 'fuzz' | 'seconds';
  because: string;
}

/**
 * A file `seconds` measured this long or longer is slow whatever it starts: set so that the
 * fast files stay under 360 s of that table (3 minutes on two cores; 337 s at 10 in the
 * table of 2026-12-02), as docs/performance.md's issue 50 section measured. Lower it when the fast run grows past
 * 3 minutes again; `--explain` shows what it takes out.
 */
export const slowAboveSeconds = 10;

/** Modules whose import (of any name, or of one of `names`) starts something. */
const starters: { module: string; names?: string[]; rule: SlowReason['rule'] }[] = [
  { module: 'playwright-core', rule: 'browser' },
  { module: 'support/chromium.ts', rule: 'browser' },
  { module: 'support/processes.ts', names: ['startSignet'], rule: 'signet' },
  { module: 'support/cli-process.ts', names: ['runSignet', 'mainScript'], rule: 'signet' },
  { module: 'support/pdf-compare.ts', names: ['comparePageRenderings'], rule: 'programs' },
  { module: 'support/throwaway-services.ts', rule: 'servers' },
  { module: 'support/fuzz-requests.ts', rule: 'fuzz' },
];

/**
 * The modules a file imports and the values it takes from each (`*`: a default or namespace
 * import, a dynamic `import('…')` or a bare `import '…'`; types start nothing and are left
 * out), a relative module named by its path from test/ ('support/processes.ts').
 */
function importsOf(name: string, source: string): Map<string, Set<string>> {
  const imports = new Map<string, Set<string>>();
  const add = (specifier: string, values: string[]) => {
    const module = specifier.startsWith('.') ? posix.join(posix.dirname(name), specifier) : specifier;
    imports.set(module, new Set([...(imports.get(module) ?? []), ...values]));
  };
  for (const [, clause = '', specifier = ''] of source.matchAll(
    /^import\s+(?!type\s)([^;']*?)\s*from\s*'([^']+)';/gm,
  )) {
    const named = (/\{([^}]*)\}/.exec(clause)?.[1] ?? '')
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part && !part.startsWith('type '))
      .map((part) => part.split(/\s+as\s+/)[0] as string);
    const whole = /[\w$*]/.test(clause.replace(/\{[^}]*\}/, ''));
    add(specifier, whole ? [...named, '*'] : named);
  }
  for (const [, specifier = ''] of source.matchAll(/^import\s+'([^']+)';/gm)) add(specifier, ['*']);
  for (const [, specifier = ''] of source.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) add(specifier, ['*']);
  return imports;
}

/** Why `npm run test:fast` leaves a file out: every rule it meets (none: it runs). */
export function slowReasons(name: string, source: string): SlowReason[] {
  const reasons: SlowReason[] = [];
  const imports = importsOf(name, source);
  for (const { module, names, rule } of starters) {
    const taken = imports.get(module);
    if (!taken?.size) continue;
    const matched = names ? names.filter((each) => taken.has(each)) : [];
    if (!names || taken.has('*')) reasons.push({ rule, because: `imports ${module}` });
    else if (matched.length) reasons.push({ rule, because: `imports ${matched.join(', ')} from ${module}` });
  }
  const childProcess = imports.get('node:child_process');
  if (childProcess?.size) {
    if (/'main\.ts'/.test(source))
      reasons.push({ rule: 'signet', because: 'runs src/main.ts (node:child_process)' });
    const npm = [...source.matchAll(/'(npm|npx)'/g)].map(([, command]) => command);
    if (npm.length)
      reasons.push({
        rule: 'signet',
        because: `runs ${[...new Set(npm)].join(' and ')} (node:child_process)`,
      });
    if (childProcess.has('spawn'))
      reasons.push({ rule: 'programs', because: 'imports spawn from node:child_process' });
  }
  if (name.startsWith('fuzz/')) reasons.push({ rule: 'fuzz', because: 'a file of fuzz/' });
  const measured = seconds[name];
  if (!reasons.length && measured !== undefined && measured >= slowAboveSeconds)
    reasons.push({
      rule: 'seconds',
      because: `${measured} s measured, slowAboveSeconds is ${slowAboveSeconds}`,
    });
  return reasons;
}
