// How `npm test` (run.ts) spreads the suite over the machine's cores: which files run each
// database kind in a process of its own, and how long each file took, so the longest start
// first and the last to finish is a short one; and which files `npm run test:fast` leaves
// out. The lists are measured, not enforced: a file missing from `seconds` is started early
// (a new file is as likely to be slow as not), and a file that is not in `perKindFiles` runs
// once with every kind, as `node --test` runs it.

/**
 * Files whose every test sits in `describeEachDatabase` (or loops over `databaseKinds`):
 * run with SIGNET_TEST_DATABASES set to one kind, once per kind, they run each case exactly
 * once, as one process would. A file with a test outside such a block must not be listed
 * (its test would run twice); `npm test` prints the total count to check against.
 */
export const perKindFiles = new Set([
  'account-security.test.ts',
  'api-journey-browser.test.ts',
  'api-templates.test.ts',
  'api-writes.test.ts',
  'audit-trail.test.ts',
  'auth.test.ts',
  'background-pages.test.ts',
  'browser.test.ts',
  'bulk-send.test.ts',
  'client-error.test.ts',
  'document-journey.test.ts',
  'documents-detail.test.ts',
  'documents-list.test.ts',
  'editor-browser.test.ts',
  'event-stream.test.ts',
  'example-receiver.test.ts',
  'fields-journey.test.ts',
  'fields.test.ts',
  'files.test.ts',
  'guide-send-contract.test.ts',
  'guides.test.ts',
  'health.test.ts',
  'kept-upload-browser.test.ts',
  'lifecycle-journey.test.ts',
  'lifecycle-mails.test.ts',
  'mail.test.ts',
  'migrations.test.ts',
  'openapi-live.test.ts',
  'page-images.test.ts',
  'pagination.property.test.ts',
  'password-reset-browser.test.ts',
  'password-reset.test.ts',
  'public-link-browser.test.ts',
  'public-links.test.ts',
  'pretty-log.test.ts',
  'sealing.test.ts',
  'secret-rotation.test.ts',
  'signing-documents.test.ts',
  'signing-kept-entries.test.ts',
  'signing-pages.test.ts',
  'signing-phone-browser.test.ts',
  'template-journey-browser.test.ts',
  'templates.test.ts',
  'time-zone.test.ts',
  'upload-gate.test.ts',
  'upload-limits.test.ts',
  'web-accounts.test.ts',
  'web-browser.test.ts',
  'web-documents-search.test.ts',
  'web-documents.test.ts',
  'web-drafts.test.ts',
  'web-endpoints.test.ts',
  'web-fields.test.ts',
  'web-lifecycle.test.ts',
  'web-members.test.ts',
  'web-public-link.test.ts',
  'web-search-browser.test.ts',
  'web-send.test.ts',
  'web-templates.test.ts',
  'webhook-delivery.test.ts',
  'webhook-endpoints.test.ts',
]);

/**
 * Seconds per file (both kinds together): the `# jobs, longest first` table of a full
 * `CI=true bash .ci/run` from a clean clone on the 2-core machine on 2026-11-26 (the suite
 * 629.5 s, nothing else running; mail.test.ts's 60 s wait since removed). Files under 5 s
 * are left out. Refresh from that table
 * (a split file's two jobs added up).
 */
export const seconds: Record<string, number> = {
  'webhook-delivery.test.ts': 76,
  'data-folder.test.ts': 58,
  'multi-process.test.ts': 56,
  'web-browser.test.ts': 54,
  'verify.test.ts': 51,
  'account-security.test.ts': 48,
  'document-journey.test.ts': 48,
  'api-journey-browser.test.ts': 26,
  'guide-send-contract.test.ts': 12,
  'api-writes.test.ts': 6,
  'lifecycle-journey.test.ts': 47,
  'fuzz.test.ts': 46,
  'cli.test.ts': 43,
  'page-images.test.ts': 38,
  'cli-documents.test.ts': 37,
  'fields-journey.test.ts': 34,
  'web-accounts.test.ts': 33,
  'sealing.test.ts': 28,
  'seal-key.test.ts': 22,
  'listen-remote.test.ts': 22,
  'faults.test.ts': 21,
  'webhook-crash.test.ts': 19,
  'uploads.test.ts': 19,
  'web-endpoints.test.ts': 18,
  'shutdown.test.ts': 18,
  'seal-takeover.test.ts': 17,
  'openapi-live.test.ts': 16,
  'web-members.test.ts': 15,
  'client.test.ts': 14,
  'rate-limit.test.ts': 14,
  'browser.test.ts': 14,
  'web-documents.test.ts': 14,
  'pdf-bombs.test.ts': 13,
  'event-stream.test.ts': 12,
  'metrics.test.ts': 11,
  'upload-gate.test.ts': 10,
  'webhook-endpoints.test.ts': 10,
  'signing-documents.test.ts': 10,
  'lifecycle.test.ts': 9,
  'pdf-reading.test.ts': 9,
  'pdf-render.test.ts': 8,
  'fields.test.ts': 8,
  'pglite-baseline.test.ts': 8,
  'signing-pages.test.ts': 8,
  'destination.test.ts': 8,
  'cli-webhooks.test.ts': 8,
  'lifecycle-mails.test.ts': 7,
  'guides.test.ts': 7,
  'upload-limits.test.ts': 6,
  'pdf-scripts.test.ts': 6,
  'web-lifecycle.test.ts': 6,
  'web-drafts.test.ts': 6,
  'mail.test.ts': 6,
  'health.test.ts': 6,
  'web-fields.test.ts': 6,
  'openapi.test.ts': 6,
  'envelope.test.ts': 5,
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
  'api-journey-browser.test.ts',
  'browser.test.ts',
  'cli-documents.test.ts',
  'cli-webhooks.test.ts',
  'cli.test.ts',
  'client-package.test.ts',
  'data-folder.test.ts',
  'document-journey.test.ts',
  'editor-browser.test.ts',
  'faults.test.ts',
  'fields-journey.test.ts',
  'fuzz.test.ts',
  'guide-send-contract.test.ts',
  'kept-upload-browser.test.ts',
  'lifecycle-journey.test.ts',
  'listen-remote.test.ts',
  'machine-node.test.ts',
  'multi-process.test.ts',
  'password-reset-browser.test.ts',
  'pretty-log.test.ts',
  'seal-key.test.ts',
  'seal-takeover.test.ts',
  'shutdown.test.ts',
  'signing-phone-browser.test.ts',
  'uploads.test.ts',
  'verify.test.ts',
  'web-browser.test.ts',
  'web-search-browser.test.ts',
  'webhook-crash.test.ts',
]);
