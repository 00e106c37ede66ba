// Page images drawn ahead of time (issue 36): every PDF stored for a workspace (an upload, a
// text document's PDF when it is sent) is queued in the transaction that stores it
// (`storeFile`'s `drawPagesFor`, migration 0026), and the worker's pass draws its pages into
// `page_images` before anyone asks: each page at the reading width first (the editor and the
// signing page), then each page's thumbnail (the sender's document page).
//
// The drawing goes through the render schedule of page-images.ts like any request: one page
// at a time, in the turns of the workspace that stored the file, so it holds at most one of
// the process's places, a person's request in the same workspace goes before it, and
// another workspace's request waits at most the one turn the schedule promises (a person's
// request for a page the worker has queued takes the job over and goes first). A file is
// drawn a few pages at a claim (`pagesPerClaim`), then goes to the back of the queue, and a
// file not begun goes before one begun, so one 500-page file does not hold back a file
// stored after it, whose sender is likely to open it now. A page that cannot be drawn is
// given up as on request (the placeholder); a file that is gone leaves the queue.
import type { Context } from '../context.ts';
import { whileLeased } from '../queue/heartbeat.ts';
import {
  claimPageImageJob,
  finishPageImageJob,
  type PageImageJob,
  requeuePageImageJob,
} from './files.repository.ts';
import { pageImageQueue } from './page-image-queue.ts';
import { pageImage } from './page-images.ts';

/** Pages drawn for one file before it goes to the back of the queue. */
export const pagesPerClaim = 2;
type PassContext = Pick<Context, 'db' | 'clock' | 'metrics' | 'config' | 'log' | 'outage'>;

/** Step `step` of a file's drawing: its pages at the reading width, then as thumbnails. */
function stepOf(job: PageImageJob, step: number) {
  return {
    page: (step % job.pages) + 1,
    size: step < job.pages ? ('page' as const) : ('thumbnail' as const),
  };
}

/**
 * The worker's pass: draws queued files' pages until the queue is empty (or `stopping()`
 * says so, checked between pages); returns how many images it asked for.
 */
export async function drawQueuedPages(
  ctx: PassContext,
  options: { stopping?: () => boolean } = {},
): Promise<number> {
  const stopping = options.stopping ?? (() => false);
  let drawn = 0;
  while (!stopping()) {
    const now = ctx.clock.now();
    const job = await claimPageImageJob(ctx.db, now, pageImageQueue.leaseFrom(now, ctx.config));
    if (!job) break;
    const steps = job.pages * 2;
    const end = Math.min(steps, job.nextStep + pagesPerClaim);
    let step = job.nextStep;
    try {
      await whileLeased(
        ctx,
        pageImageQueue,
        () => [job.held],
        async () => {
          while (step < end && !stopping()) {
            const { page, size } = stepOf(job, step);
            const image = await pageImage(ctx, job.workspaceId, job.sha256, page, size, { background: true });
            drawn += 1;
            // Null: the file or the page is not there (deleted since): nothing more to draw.
            step = image ? step + 1 : steps;
          }
        },
      );
    } finally {
      // Drawn or not (an error, a stop), the file goes on from where it got to, after the others.
      if (step >= steps) await finishPageImageJob(ctx.db, job);
      else await requeuePageImageJob(ctx.db, job, step, ctx.clock.now());
    }
  }
  return drawn;
}
