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

/**
 * Seconds per file (both kinds together): the sum of its suites' times in the junit report
 * of a full `node --test --test-concurrency=2` run on the 2-core machine on 2026-11-26,
 * busy with other work (so they rank the files; they are not what a file takes alone).
 * Refresh from the `# jobs, longest first` table `npm test` prints.
 */
export const seconds: Record<string, number> = {
  'data-folder.test.ts': 416,
  'multi-process.test.ts': 365,
  'fuzz.test.ts': 348,
  'cli.test.ts': 188,
  'verify.test.ts': 143,
  'openapi-live.test.ts': 142,
  'web-browser.test.ts': 135,
  'lifecycle-journey.test.ts': 135,
  'seal-key.test.ts': 128,
  'document-journey.test.ts': 124,
  'web-endpoints.test.ts': 117,
  'page-images.test.ts': 114,
  'fields-journey.test.ts': 114,
  'web-accounts.test.ts': 107,
  'listen-remote.test.ts': 103,
  'web-members.test.ts': 85,
  'pdf-bombs.test.ts': 84,
  'rate-limit.test.ts': 84,
  'envelope.test.ts': 78,
  'faults.test.ts': 73,
  'guides.test.ts': 71,
  'event-stream.test.ts': 69,
  'uploads.test.ts': 67,
  'webhook-delivery.test.ts': 65,
  'openapi.test.ts': 64,
  'webhook-crash.test.ts': 62,
  'account-security.test.ts': 61,
  'destination.test.ts': 60,
  'fields.test.ts': 56,
  'metrics.test.ts': 54,
  'pdf-reading.test.ts': 49,
  'web-lifecycle.test.ts': 48,
  'cli-documents.test.ts': 45,
  'health.test.ts': 43,
  'lifecycle-mails.test.ts': 43,
  'sealing.test.ts': 41,
  'web-documents.test.ts': 40,
  'lifecycle.test.ts': 38,
  'pagination.property.test.ts': 36,
  'pdf-scripts.test.ts': 36,
  'web-fields.test.ts': 36,
  'files.test.ts': 35,
  'key-cache.test.ts': 35,
  'pdf-render.test.ts': 32,
  'web-drafts.test.ts': 31,
  'documents-list.test.ts': 28,
  'seal-takeover.test.ts': 27,
  'signing-pages.test.ts': 27,
  'mail.test.ts': 25,
  'documents-detail.test.ts': 24,
  'webhook-endpoints.test.ts': 23,
  'client.test.ts': 22,
  'example-receiver.test.ts': 22,
  'signing-documents.test.ts': 21,
  'pg-array.test.ts': 20,
  'upload-gate.test.ts': 20,
  'shutdown.test.ts': 18,
  'cli-webhooks.test.ts': 17,
  'migrations.test.ts': 17,
  'pdf-document.test.ts': 13,
  'browser.test.ts': 13,
  'upload-limits.test.ts': 12,
  'pdf-fields.test.ts': 12,
  'machine-node.test.ts': 10,
  'pdf-seal.test.ts': 10,
  'secret-rotation.test.ts': 7,
  'client-package.test.ts': 7,
  'client-error.test.ts': 6,
  'auth.test.ts': 5,
  'data-dir-lock.test.ts': 1,
  'pricing.test.ts': 1,
  'deployment-files.test.ts': 0,
  'cursor.test.ts': 0,
  'value.test.ts': 0,
  'signing-page.test.ts': 0,
  'forms.test.ts': 0,
};

/** A per-kind file shorter than this runs as one job: a second process costs a second or two. */
export const splitAboveSeconds = 30;

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
