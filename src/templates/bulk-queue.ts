// The queue of bulk sends (bulk-send.ts), declared over the claim-and-lease module
// (queue/lease.ts): an unfinished row of `bulk_sends` (migration 0035) is claimed for a batch
// of its rows with a short lease, renewed while the rows are made and sent, so a crashed
// worker's bulk send goes on in another within seconds. Letting it go after a batch writes
// the time into the lease column: bulk sends take turns by when they were let go.
import { defineQueue } from '../queue/lease.ts';

export const bulkQueue = defineQueue({
  name: 'bulk send',
  working: 'sending its rows',
  table: 'bulk_sends',
  key: ['id'],
  lease: 'locked_until',
  endsAs: 'now',
  leaseMs: 10_000,
  heartbeatMs: 3_000,
});
