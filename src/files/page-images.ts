// Page images: each page of a stored PDF drawn once per width, kept in `page_images`, and
// served from there ever after (the signing page shows a document's pages without
// JavaScript; the sender's page shows thumbnails). Two widths only, so the cache stays
// small and every image is reused: a page to read and a thumbnail.
//
// Drawing is the costly part (a parse of the whole file, then about 150 ms a page), and a
// browser asks for every image of a page at once. So this process draws one file at a
// time, in one render session that every waiting request of that file shares, and closes
// it once nobody has asked for a while: 36 images of one document cost one parse, and
// never 36 parsers side by side.
import type { Context } from '../context.ts';
import { openForRendering, RenderError, type RenderSession } from '../pdf/render.ts';
import { findFile, findPageImage, insertPageImage } from './files.repository.ts';
import { readFile } from './files.service.ts';

export const pageImageWidths = { page: 1200, thumbnail: 240 } as const;
export type PageImageSize = keyof typeof pageImageWidths;

export function isPageImageSize(value: unknown): value is PageImageSize {
  return value === 'page' || value === 'thumbnail';
}

/** How long a file's render session stays open after its last drawing. */
const sessionIdleMs = 5_000;

// Every drawing of this process runs in turn, on the render session of the file being drawn
// (kept open while its pages are asked for, closed when another file's turn comes or when
// it has been idle a while).
let queue: Promise<unknown> = Promise.resolve();
let open: { sha256: string; session: RenderSession; idle: NodeJS.Timeout | null } | null = null;
// One drawing per page and width at a time: the same image asked for twice is drawn once.
const inFlight = new Map<string, Promise<Buffer | null>>();

function inTurn<T>(work: () => Promise<T>): Promise<T> {
  const result = queue.then(work, work);
  queue = result.catch(() => {});
  return result;
}

async function closeOpen(): Promise<void> {
  const closing = open;
  open = null;
  if (closing?.idle) clearTimeout(closing.idle);
  await closing?.session.close();
}

/** Runs `work` on `sha256`'s render session, in this process's turn. */
function withSession<T>(
  ctx: Pick<Context, 'db'>,
  sha256: string,
  work: (session: RenderSession) => Promise<T>,
): Promise<T> {
  return inTurn(async () => {
    if (open?.sha256 !== sha256) {
      await closeOpen();
      const data = await readFile(ctx.db, sha256);
      if (!data) throw new Error(`file ${sha256} is missing`);
      open = { sha256, session: await openForRendering(data), idle: null };
    }
    const current = open;
    if (current.idle) clearTimeout(current.idle);
    try {
      return await work(current.session);
    } catch (error) {
      // A session whose parser timed out or ran out of memory is over: the next opens anew.
      if (error instanceof RenderError) await closeOpen();
      throw error;
    } finally {
      current.idle = setTimeout(() => {
        if (open === current) void inTurn(closeOpen);
      }, sessionIdleMs).unref();
    }
  });
}

/**
 * The PNG of `page` of the stored file `sha256` at `size`, rendered and stored on first
 * use; null when the file or the page does not exist. A page pdf.js cannot draw (in time,
 * or within its memory) rejects with the RenderError: the page says so, nothing is kept.
 */
export function pageImage(
  ctx: Pick<Context, 'db'>,
  sha256: string,
  page: number,
  size: PageImageSize,
): Promise<Buffer | null> {
  const width = pageImageWidths[size];
  const key = `${sha256}:${page}:${width}`;
  let pending = inFlight.get(key);
  if (!pending) {
    pending = loadOrRender(ctx, sha256, page, width).finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  return pending;
}

async function loadOrRender(
  ctx: Pick<Context, 'db'>,
  sha256: string,
  page: number,
  width: number,
): Promise<Buffer | null> {
  const cached = await findPageImage(ctx.db, { sha256, page, width });
  if (cached) return cached.png;
  const file = await findFile(ctx.db, sha256);
  if (!file?.pages || page < 1 || page > file.pages) return null;
  return withSession(ctx, sha256, async (session) => {
    // Another request may have stored it while this one waited for its turn.
    const stored = await findPageImage(ctx.db, { sha256, page, width });
    if (stored) return stored.png;
    const size = await session.renderSize(page, { width });
    const png = Buffer.from(await session.renderPng(page, { width }));
    await insertPageImage(ctx.db, { sha256, page, width, height: size.height, png });
    return png;
  });
}
