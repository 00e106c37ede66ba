// The mail outbox as a queue, declared over the claim-and-lease module (queue/lease.ts): a
// pending row of `mails` is due at `next_attempt_at`, claimed in a batch with a short lease
// renewed while the batch is sent (mail.service.ts), so a crashed worker's mails are sent
// by another within seconds (at least once: one it was sending may go twice). Attempts are
// counted when an attempt ends (delivered or failed), not at the claim; a failed mail is
// retried after 1, 5, 15, 60 minutes and 6 hours, then marked failed. Which due mails a
// claim takes, and in what order (urgent first, an equal share per workspace), is the
// claim's own statement (mails.repository.ts claimDueMails).
import { defineQueue } from '../queue/lease.ts';

/** How long a claimed mail is this worker's before another may send it. */
export const mailLeaseMs = 10_000;
/** Delays before the 2nd, 3rd, … attempt; after the last one the mail is marked failed. */
export const mailRetryDelaysMs = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000, 6 * 60 * 60_000];

export const mailQueue = defineQueue({
  name: 'mail',
  working: 'sending mail',
  table: 'mails',
  key: ['id'],
  lease: 'locked_until',
  due: 'next_attempt_at',
  attempts: { column: 'attempts', counted: 'outcome' },
  leaseMs: mailLeaseMs,
  heartbeatMs: 3_000,
  retryDelaysMs: mailRetryDelaysMs,
});
