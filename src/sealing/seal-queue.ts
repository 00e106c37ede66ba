// The queue of owed seals, declared over the claim-and-lease module (queue/lease.ts): a
// document whose `seal_due_at` is set (the last signature set it) waits for a worker, and
// that column is the lease too, so a claim moves it a lease into the future and a worker
// that dies mid-seal leaves the seal due again when its lease runs out. The lease is short
// and renewed while the seal is made (queue/heartbeat.ts), so a crashed worker's seal is
// taken over within seconds (the worker's seal loop looks every 2 s), while a long seal (a
// 500-page file) keeps its claim. Each claim counts an attempt (`seal_attempts`); a failed
// seal is retried after 1 m … 6 h, then the error stays for the operator.
import { defineQueue } from '../queue/lease.ts';

/** How long a claimed seal is this worker's before another may take it over. */
export const sealLeaseMs = 10_000;
/** Waits before the 2nd, 3rd, … attempt; after the last, the error stays for the operator. */
export const sealRetryDelaysMs = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000];

export const sealQueue = defineQueue({
  name: 'seal',
  working: 'sealing',
  table: 'documents',
  key: ['workspace_id', 'id'],
  lease: 'seal_due_at',
  due: 'seal_due_at',
  attempts: { column: 'seal_attempts', counted: 'claim' },
  leaseMs: sealLeaseMs,
  heartbeatMs: 3_000,
  retryDelaysMs: sealRetryDelaysMs,
});
