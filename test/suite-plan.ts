// How `npm test` (run.ts) spreads the suite over the machine's cores: which files run each
// database kind in a process of its own, and how long each file took, so the longest start
// first and the last to finish is a short one; and which files `npm run test:fast` leaves out. Both lists are measured, not enforced: a file
// missing from `seconds` is started early (a new file is as likely to be slow as not), and a
// file that is not in `perKindFiles` runs once with every kind, as `node --test` runs it.

/**
 * Files whose every test sits in `describeEachDatabase` (or loops over `databaseKinds`):
 * run with SIGNET_TEST_DATABASES set to one kind, once per kind, they run each case exactly
 * once, as one process would. A file with a test outside such a block must not be listed
 * (its test would run twice); `npm test` prints the total count to check against.
 */
export const perKindFiles = new Set([
  'auth.test.ts',
  'browser.test.ts',
  'client-error.test.ts',
  'document-journey.test.ts',
  'documents-detail.test.ts',
  'documents-list.test.ts',
  'event-stream.test.ts',
  'example-receiver.test.ts',
  'fields-journey.test.ts',
  'fields.test.ts',
  'files.test.ts',
  'guides.test.ts',
  'health.test.ts',
  'lifecycle-journey.test.ts',
  'lifecycle-mails.test.ts',
  'mail.test.ts',
  'migrations.test.ts',
  'openapi-live.test.ts',
  'page-images.test.ts',
  'pagination.property.test.ts',
  'sealing.test.ts',
  'secret-rotation.test.ts',
  'signing-documents.test.ts',
  'signing-pages.test.ts',
  'upload-gate.test.ts',
  'upload-limits.test.ts',
  'web-accounts.test.ts',
  'web-browser.test.ts',
  'web-documents.test.ts',
  'web-drafts.test.ts',
  'web-endpoints.test.ts',
  'web-fields.test.ts',
  'web-lifecycle.test.ts',
  'web-members.test.ts',
  'webhook-endpoints.test.ts',
]);

/** Seconds per file (both kinds together), from a full run; see docs/performance.md. */
export const seconds: Record<string, number> = {};

/**
 * What `npm run test:fast` (`node test/run.ts --fast`) leaves out: files that drive Chromium,
 * start `signet` processes or servers of their own (PostgreSQL, Redis, a data folder's first
 * start), pack the client, or fuzz. The rest (every route, page, rule and PDF test, in
 * process) is what a developer runs while working; `npm test` runs everything.
 */
export const slowFiles = new Set([
  'browser.test.ts',
  'cli.test.ts',
  'client-package.test.ts',
  'data-folder.test.ts',
  'document-journey.test.ts',
  'faults.test.ts',
  'fields-journey.test.ts',
  'fuzz.test.ts',
  'lifecycle-journey.test.ts',
  'listen-remote.test.ts',
  'machine-node.test.ts',
  'multi-process.test.ts',
  'seal-takeover.test.ts',
  'shutdown.test.ts',
  'verify.test.ts',
  'web-browser.test.ts',
  'webhook-crash.test.ts',
]);
