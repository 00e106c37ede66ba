// Stored files (migration 0013): a row in `files` and its bytes in 1 MiB chunks. Files are
// content-addressed, so the same bytes are stored once whoever uploads them; a file is only
// ever reached through a document of the caller's workspace, never by its hash alone.
import { type Kysely, sql, type Transaction } from 'kysely';
import { notifyChannel } from '../db/notify.ts';
import type { Database, PageSize } from '../db/schema.ts';
import type { Held } from '../queue/lease.ts';
import { pageImageQueue } from './page-image-queue.ts';

type Db = Kysely<Database> | Transaction<Database>;

export const chunkBytes = 1 << 20;

export interface FileRow {
  sha256: string;
  bytes: number;
  mediaType: string;
  pages: number | null;
  chunkCount: number;
}

/**
 * Inserts the file and its chunks unless a file with this hash exists; in the caller's
 * transaction, so the row and every chunk land together or not at all.
 */
export async function insertFile(
  trx: Transaction<Database>,
  file: FileRow & { data: Uint8Array; createdAt: Date; pageSizes: PageSize[] | null },
): Promise<boolean> {
  const inserted = await trx
    .insertInto('files')
    .values({
      sha256: file.sha256,
      bytes: file.bytes,
      media_type: file.mediaType,
      pages: file.pages,
      chunk_count: file.chunkCount,
      created_at: file.createdAt,
      page_sizes: file.pageSizes && JSON.stringify(file.pageSizes),
    })
    .onConflict((oc) => oc.column('sha256').doNothing())
    .returning('sha256')
    .executeTakeFirst();
  if (!inserted) return false;
  for (let seq = 0; seq < file.chunkCount; seq += 1) {
    const start = seq * chunkBytes;
    // A view, not a copy: the upload is held in memory once.
    const data = Buffer.from(
      file.data.buffer,
      file.data.byteOffset + start,
      Math.min(chunkBytes, file.bytes - start),
    );
    await trx.insertInto('file_chunks').values({ sha256: file.sha256, seq, data }).execute();
  }
  return true;
}

/** The facts of a file stored before they were known (files.service.ts storeBytesFirst). */
export async function setFileFacts(
  trx: Transaction<Database>,
  sha256: string,
  facts: { pages: number | null; pageSizes: PageSize[] | null },
): Promise<void> {
  await trx
    .updateTable('files')
    .set({ pages: facts.pages, page_sizes: facts.pageSizes && JSON.stringify(facts.pageSizes) })
    .where('sha256', '=', sha256)
    .execute();
}

export async function findFile(db: Db, sha256: string): Promise<FileRow | undefined> {
  const row = await db
    .selectFrom('files')
    .select(['sha256', 'bytes', 'media_type', 'pages', 'chunk_count'])
    .where('sha256', '=', sha256)
    .executeTakeFirst();
  return (
    row && {
      sha256: row.sha256,
      bytes: Number(row.bytes),
      mediaType: row.media_type,
      pages: row.pages,
      chunkCount: row.chunk_count,
    }
  );
}

export async function findChunk(db: Db, sha256: string, seq: number): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom('file_chunks')
    .select('data')
    .where('sha256', '=', sha256)
    .where('seq', '=', seq)
    .executeTakeFirst();
  return row && asBuffer(row.data);
}

/** bytea arrives as a Buffer from pg and as a Uint8Array from PGlite: one view of either. */
export function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

export async function findPageImage(
  db: Db,
  key: { sha256: string; page: number; width: number },
): Promise<{ png: Buffer; height: number } | undefined> {
  const row = await db
    .selectFrom('page_images')
    .select(['png', 'height'])
    .where('sha256', '=', key.sha256)
    .where('page', '=', key.page)
    .where('width', '=', key.width)
    .executeTakeFirst();
  return row && { png: asBuffer(row.png), height: row.height };
}

export async function insertPageImage(
  db: Db,
  image: { sha256: string; page: number; width: number; height: number; png: Buffer },
): Promise<void> {
  await db
    .insertInto('page_images')
    .values(image)
    .onConflict((oc) => oc.columns(['sha256', 'page', 'width']).doNothing())
    .execute();
}

/**
 * The recorded failure to draw `page` of the file, or to open the file at all (page 0), if
 * any; the page's own row first.
 */
export async function findPageImageFailure(
  db: Db,
  key: { sha256: string; page: number },
): Promise<{ page: number; reason: string; renderer: string } | undefined> {
  return db
    .selectFrom('page_image_failures')
    .select(['page', 'reason', 'renderer'])
    .where('sha256', '=', key.sha256)
    .where('page', 'in', [0, key.page])
    .orderBy('page', 'desc')
    .executeTakeFirst();
}

/** Records that a page (or, as page 0, the whole file) could not be drawn; the last word wins. */
export async function recordPageImageFailure(
  db: Db,
  failure: { sha256: string; page: number; width: number; reason: string; renderer: string; failedAt: Date },
): Promise<void> {
  const row = {
    sha256: failure.sha256,
    page: failure.page,
    width: failure.width,
    reason: failure.reason,
    renderer: failure.renderer,
    failed_at: failure.failedAt,
  };
  await db
    .insertInto('page_image_failures')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['sha256', 'page']).doUpdateSet({
        width: row.width,
        reason: row.reason,
        renderer: row.renderer,
        failed_at: row.failed_at,
      }),
    )
    .execute();
}

/** A document's original or sealed file and its title, by the document's id alone (a signed download link names no workspace). */
export async function findDownloadable(
  db: Db,
  documentId: string,
  kind: 'original' | 'sealed',
): Promise<{ title: string; file: FileRow } | undefined> {
  const row = await db
    .selectFrom('documents')
    .innerJoin(
      'files',
      'files.sha256',
      kind === 'original' ? 'documents.original_sha256' : 'documents.sealed_sha256',
    )
    .select([
      'documents.title',
      'files.sha256',
      'files.bytes',
      'files.media_type',
      'files.pages',
      'files.chunk_count',
    ])
    .where('documents.id', '=', documentId)
    .executeTakeFirst();
  return (
    row && {
      title: row.title,
      file: {
        sha256: row.sha256,
        bytes: Number(row.bytes),
        mediaType: row.media_type,
        pages: row.pages,
        chunkCount: row.chunk_count,
      },
    }
  );
}

/** The files of a document, original first: for its detail (API, pages). */
export async function findDocumentFiles(
  db: Db,
  workspaceId: string,
  documentId: string,
): Promise<Array<FileRow & { kind: 'original' | 'sealed' }>> {
  const rows = await db
    .selectFrom('documents')
    .innerJoin('files', (join) =>
      join.on((eb) =>
        eb.or([
          eb('files.sha256', '=', eb.ref('documents.original_sha256')),
          eb('files.sha256', '=', eb.ref('documents.sealed_sha256')),
        ]),
      ),
    )
    .select([
      'documents.original_sha256',
      'files.sha256',
      'files.bytes',
      'files.media_type',
      'files.pages',
      'files.chunk_count',
    ])
    .where('documents.workspace_id', '=', workspaceId)
    .where('documents.id', '=', documentId)
    .execute();
  return rows
    .map((row) => ({
      kind: row.sha256 === row.original_sha256 ? ('original' as const) : ('sealed' as const),
      sha256: row.sha256,
      bytes: Number(row.bytes),
      mediaType: row.media_type,
      pages: row.pages,
      chunkCount: row.chunk_count,
    }))
    .sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'original' ? -1 : 1));
}

/** A file's page sizes, kept on its row once worked out (fields/fields.service.ts: pageSizesOf). */
export async function findPageSizes(db: Db, sha256: string): Promise<PageSize[] | null | undefined> {
  const row = await db
    .selectFrom('files')
    .select('page_sizes')
    .where('sha256', '=', sha256)
    .executeTakeFirst();
  return row ? row.page_sizes : undefined;
}

export async function storePageSizes(db: Db, sha256: string, sizes: PageSize[]): Promise<void> {
  await db
    .updateTable('files')
    .set({ page_sizes: JSON.stringify(sizes) })
    .where('sha256', '=', sha256)
    .execute();
}

// ---------------------------------------------------------------------------------------
// The background drawing queue (migration 0026; files/background-pages.ts).

/** Wakes every worker's background drawing once the storing transaction commits. */
export const pageImageChannel = 'signet_page_images';

/** Queues the pages of a stored PDF to be drawn in `workspaceId`'s turns (once per pair). */
export async function queuePageImages(
  db: Db,
  job: { sha256: string; workspaceId: string; now: Date },
): Promise<void> {
  await db
    .insertInto('page_image_queue')
    .values({ sha256: job.sha256, workspace_id: job.workspaceId, queued_at: job.now, due_at: job.now })
    .onConflict((oc) => oc.columns(['sha256', 'workspace_id']).doNothing())
    .execute();
  await notifyChannel(db, pageImageChannel);
}

export interface PageImageJob {
  sha256: string;
  workspaceId: string;
  nextStep: number;
  pages: number;
  /** The claim's lease (page-image-queue.ts). */
  held: Held;
}

/**
 * Claims the queued file due first until `until` (another worker skips it meanwhile): a file
 * not begun before one begun, then by `due_at`.
 */
export async function claimPageImageJob(
  db: Kysely<Database>,
  now: Date,
  until: Date,
): Promise<PageImageJob | null> {
  const [claimed] = await pageImageQueue.claim<{
    sha256: string;
    workspace_id: string;
    next_step: number;
    pages: number | null;
  }>(db, {
    now,
    until,
    limit: 1,
    // A file none of whose pages is drawn yet first: its sender is likely to open it now.
    orderBy: sql`next_step > 0, due_at, queued_at`,
    returning: sql`q.next_step, (select f.pages from files f where f.sha256 = q.sha256) as pages`,
  });
  if (!claimed) return null;
  const { row, held } = claimed;
  return {
    sha256: row.sha256,
    workspaceId: row.workspace_id,
    nextStep: row.next_step,
    pages: row.pages ?? 0,
    held,
  };
}

/**
 * Where a claimed file's drawing goes on, at the back of the queue (`due_at` after every
 * other row's, and not before `now`); the lease ends (if it is still this worker's).
 */
export async function requeuePageImageJob(
  db: Db,
  job: Pick<PageImageJob, 'held'>,
  nextStep: number,
  now: Date,
): Promise<void> {
  await pageImageQueue.release(db, [job.held], {
    now,
    set: sql`next_step = ${nextStep}, due_at = greatest(${now}::timestamptz, (select max(due_at) from page_image_queue) + interval '1 millisecond')`,
  });
}

/** A file whose pages are all drawn (or given up) leaves the queue. */
export async function finishPageImageJob(db: Db, job: Pick<PageImageJob, 'sha256' | 'workspaceId'>) {
  await db
    .deleteFrom('page_image_queue')
    .where('sha256', '=', job.sha256)
    .where('workspace_id', '=', job.workspaceId)
    .execute();
}

/**
 * Deletes a stored file that nothing refers to any more: no document (original or sealed),
 * template, mail or kept upload of any workspace, since the same bytes are stored once for
 * everyone. Its chunks, page images and their queue go with it (on delete cascade). In the
 * caller's transaction, behind a savepoint: a document that another transaction made with the
 * same bytes meanwhile makes the foreign key refuse the delete, and the file simply stays.
 */
export async function deleteFileIfUnused(trx: Transaction<Database>, sha256: string): Promise<boolean> {
  await sql`savepoint delete_file`.execute(trx);
  try {
    const deleted = await trx
      .deleteFrom('files')
      .where('sha256', '=', sha256)
      .where(({ not, exists, selectFrom, or }) =>
        not(
          or([
            exists(
              selectFrom('documents')
                .select(sql`1`.as('used'))
                .where((d) => d.or([d('original_sha256', '=', sha256), d('sealed_sha256', '=', sha256)])),
            ),
            exists(selectFrom('templates').select(sql`1`.as('used')).where('original_sha256', '=', sha256)),
            exists(selectFrom('mails').select(sql`1`.as('used')).where('attachment_sha256', '=', sha256)),
            exists(selectFrom('kept_uploads').select(sql`1`.as('used')).where('file_sha256', '=', sha256)),
          ]),
        ),
      )
      .returning('sha256')
      .executeTakeFirst();
    await sql`release savepoint delete_file`.execute(trx);
    return deleted !== undefined;
  } catch (error) {
    if ((error as { code?: unknown }).code !== '23503') throw error; // foreign_key_violation
    await sql`rollback to savepoint delete_file`.execute(trx);
    return false;
  }
}
