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
// mail.test.ts qualifies but stays one job for now: its process outlives its 3 s of tests by
// 60 s (a timer is still pending after the NOTIFY worker test's worker.stop()), and a second
// process would wait that out twice.
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
 * Seconds per file (both kinds together): the `# jobs, longest first` table of a full
 * `npm test` on the 2-core machine on 2026-11-26 (1,030 s, with other work running beside
 * it, so they rank the files rather than say what one takes alone). Refresh from that table
 * (a split file's two jobs added up).
 */
export const seconds: Record<string, number> = {
  'data-folder.test.ts': 164,
  'cli.test.ts': 154,
  'web-browser.test.ts': 127,
  'verify.test.ts': 114,
  'listen-remote.test.ts': 90,
  'cli-documents.test.ts': 83,
  'lifecycle-journey.test.ts': 81,
  'seal-key.test.ts': 75,
  'fuzz.test.ts': 75,
  'mail.test.ts': 64,
  'webhook-delivery.test.ts': 63,
  'multi-process.test.ts': 60,
  'account-security.test.ts': 48,
  'pdf-bombs.test.ts': 46,
  'web-members.test.ts': 44,
  'page-images.test.ts': 39,
  'faults.test.ts': 37,
  'uploads.test.ts': 36,
  'openapi-live.test.ts': 36,
  'web-accounts.test.ts': 36,
  'rate-limit.test.ts': 36,
  'document-journey.test.ts': 34,
  'fields-journey.test.ts': 31,
  'browser.test.ts': 28,
  'sealing.test.ts': 25,
  'envelope.test.ts': 22,
  'webhook-crash.test.ts': 21,
  'web-drafts.test.ts': 18,
  'seal-takeover.test.ts': 18,
  'web-endpoints.test.ts': 18,
  'shutdown.test.ts': 17,
  'lifecycle.test.ts': 16,
  'event-stream.test.ts': 16,
  'upload-limits.test.ts': 14,
  'web-documents.test.ts': 14,
  'pdf-reading.test.ts': 14,
  'metrics.test.ts': 13,
  'cli-webhooks.test.ts': 13,
  'fields.test.ts': 13,
  'secret-rotation.test.ts': 13,
  'pdf-scripts.test.ts': 12,
  'client.test.ts': 11,
  'auth.test.ts': 10,
  'client-package.test.ts': 10,
  'upload-gate.test.ts': 10,
  'guides.test.ts': 9,
  'pdf-render.test.ts': 8,
  'web-fields.test.ts': 8,
  'client-error.test.ts': 7,
  'signing-documents.test.ts': 7,
  'signing-pages.test.ts': 7,
  'destination.test.ts': 7,
  'webhook-endpoints.test.ts': 7,
  'lifecycle-mails.test.ts': 7,
  'pagination.property.test.ts': 6,
  'pdf-fields.test.ts': 6,
  'machine-node.test.ts': 6,
  'health.test.ts': 6,
  'pdf-document.test.ts': 5,
  'pdf-seal.test.ts': 5,
  'web-lifecycle.test.ts': 5,
  'migrations.test.ts': 4,
  'key-cache.test.ts': 4,
  'documents-list.test.ts': 4,
  'openapi.test.ts': 4,
  'files.test.ts': 4,
  'example-receiver.test.ts': 3,
  'data-dir-lock.test.ts': 3,
  'documents-detail.test.ts': 3,
  'pricing.test.ts': 2,
  'signing-page.test.ts': 2,
  'pg-array.test.ts': 2,
  'forms.test.ts': 1,
  'cursor.test.ts': 1,
  'deployment-files.test.ts': 1,
  'value.test.ts': 0,
};

/** A per-kind file shorter than this runs as one job: a second process costs a second or two. */
export const splitAboveSeconds = 30;

/**
 * What `npm run test:fast` (`node test/run.ts --fast`) leaves out: files that drive Chromium,
 * start `signet` processes or servers of their own (PostgreSQL, Redis, a data folder's first
 * start), pack the client, or fuzz. The rest (routes, pages, rules and PDF work, run in
 * the test process) is what a developer runs while working; `npm test` runs everything.
 */
export const slowFiles = new Set([
  'browser.test.ts',
  'cli-documents.test.ts',
  'cli-webhooks.test.ts',
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
  'seal-key.test.ts',
  'seal-takeover.test.ts',
  'shutdown.test.ts',
  'uploads.test.ts',
  'verify.test.ts',
  'web-browser.test.ts',
  'webhook-crash.test.ts',
]);
