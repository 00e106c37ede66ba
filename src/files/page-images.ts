// Page images: each page of a stored PDF drawn once per width, kept in `page_images`, and
// served from there ever after (the signing page shows a document's pages without
// JavaScript; the sender's page shows thumbnails). Two widths only, so the cache stays
// small and every image is reused: a page to read and a thumbnail.
import type { Context } from '../context.ts';
import { openForRendering } from '../pdf/render.ts';
import { findFile, findPageImage, insertPageImage } from './files.repository.ts';
import { readFile } from './files.service.ts';

export const pageImageWidths = { page: 1200, thumbnail: 240 } as const;
export type PageImageSize = keyof typeof pageImageWidths;

export function isPageImageSize(value: unknown): value is PageImageSize {
  return value === 'page' || value === 'thumbnail';
}

// One rendering per page and width at a time in this process: a page asked for by several
// requests at once (a signer's browser loads every image of the page together) is drawn once.
const inFlight = new Map<string, Promise<Buffer | null>>();

/**
 * The PNG of `page` of the stored file `sha256` at `size`, rendered and stored on first
 * use; null when the file or the page does not exist.
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
  const data = await readFile(ctx.db, sha256);
  if (!data) return null;
  const session = await openForRendering(data);
  try {
    const size = await session.renderSize(page, { width });
    const png = Buffer.from(await session.renderPng(page, { width }));
    await insertPageImage(ctx.db, { sha256, page, width, height: size.height, png });
    return png;
  } finally {
    await session.close();
  }
}
