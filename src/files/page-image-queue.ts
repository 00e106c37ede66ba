// The queue of page images drawn ahead of time (background-pages.ts), declared over the
// claim-and-lease module (queue/lease.ts): a row of `page_image_queue` (migration 0026) per
// stored PDF and workspace, claimed a few pages at a time with a short lease renewed while
// the pages are drawn, so a crashed worker's file is drawn by another within seconds; a
// clean stop, or the end of a claim's pages, releases it to the back of the queue.
import { defineQueue } from '../queue/lease.ts';

export const pageImageQueue = defineQueue({
  name: 'page image',
  working: 'drawing pages',
  table: 'page_image_queue',
  key: ['sha256', 'workspace_id'],
  lease: 'locked_until',
  due: 'due_at',
  leaseMs: 10_000,
  // A page's turn is at most 10 s; the drawing runs in a thread, so the beat keeps time.
  heartbeatMs: 3_000,
});
