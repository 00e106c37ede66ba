// Storing and reading files: a whole file is written in the caller's transaction (so a
// document never points to half a file), read back whole for the PDF work, or streamed
// chunk by chunk to a client so a download never holds the file in memory; what a download
// link answers (`findDownload`: the file and its name).
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Kysely, Transaction } from 'kysely';
import type { Database, PageSize } from '../db/schema.ts';
import { type FileKind, pdfFileName } from './download-links.ts';
import {
  chunkBytes,
  type FileRow,
  findChunk,
  findDownloadable,
  findFile,
  insertFile,
  queuePageImages,
  setFileFacts,
} from './files.repository.ts';

export type { FileRow };

export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

interface DrawnFor {
  /**
   * The workspace a PDF is stored for: its pages are queued to be drawn in the background
   * in that workspace's turns (files/background-pages.ts), so they exist before anyone
   * asks for them. Left out for files nobody looks at page by page (a sealed file).
   */
  drawPagesFor?: string;
}

/** A PDF's facts as its file row keeps them (pdf/inspect.ts works them out). */
interface FileFacts {
  pages: number | null;
  /** A PDF's pages as displayed, when known (fields are placed on them). */
  pageSizes?: PageSize[];
}

/** Stores `data` (if these bytes are not stored yet) and returns what identifies it. */
export async function storeFile(
  trx: Transaction<Database>,
  input: { data: Uint8Array; mediaType: string; now: Date } & FileFacts & DrawnFor,
): Promise<FileRow> {
  const file = fileRowOf(input.data, input.mediaType, input.pages);
  await insertFile(trx, {
    ...file,
    data: input.data,
    createdAt: input.now,
    pageSizes: input.pageSizes ?? null,
  });
  await queueDrawing(trx, file, input);
  return file;
}

/** Bytes stored before their facts are known (storeBytesFirst), to be completed by addFileFacts. */
export interface StoredBytes {
  file: FileRow;
  /** This transaction inserted the row (the bytes were not stored before). */
  inserted: boolean;
}

/**
 * storeFile in two steps, for an upload whose facts are still being worked out (its
 * inspection, in a thread): the row and the bytes now, the facts with addFileFacts once
 * known, in the same transaction, so no other transaction ever sees a file without them.
 */
export async function storeBytesFirst(
  trx: Transaction<Database>,
  input: { data: Uint8Array; mediaType: string; now: Date },
): Promise<StoredBytes> {
  const file = fileRowOf(input.data, input.mediaType, null);
  const inserted = await insertFile(trx, {
    ...file,
    data: input.data,
    createdAt: input.now,
    pageSizes: null,
  });
  return { file, inserted };
}

/** The second step of storeBytesFirst: the file's facts on its row, and its pages queued. */
export async function addFileFacts(
  trx: Transaction<Database>,
  stored: StoredBytes,
  input: { now: Date } & FileFacts & DrawnFor,
): Promise<FileRow> {
  const file = { ...stored.file, pages: input.pages };
  if (stored.inserted)
    await setFileFacts(trx, file.sha256, { pages: input.pages, pageSizes: input.pageSizes ?? null });
  await queueDrawing(trx, file, input);
  return file;
}

function fileRowOf(data: Uint8Array, mediaType: string, pages: number | null): FileRow {
  return {
    sha256: sha256Hex(data),
    bytes: data.byteLength,
    mediaType,
    pages,
    chunkCount: Math.ceil(data.byteLength / chunkBytes),
  };
}

async function queueDrawing(trx: Transaction<Database>, file: FileRow, input: { now: Date } & DrawnFor) {
  if (input.drawPagesFor && file.pages) {
    await queuePageImages(trx, { sha256: file.sha256, workspaceId: input.drawPagesFor, now: input.now });
  }
}

/** The whole file in one buffer (for parsing and sealing), or undefined. */
export async function readFile(db: Kysely<Database>, sha256: string): Promise<Buffer | undefined> {
  const file = await findFile(db, sha256);
  return file && readFileOf(db, file);
}

/** The bytes of a file whose row the caller already holds, in one buffer. */
export async function readFileOf(db: Kysely<Database>, file: FileRow): Promise<Buffer> {
  const data = Buffer.allocUnsafe(file.bytes);
  for (let seq = 0; seq < file.chunkCount; seq += 1) {
    const chunk = await findChunk(db, file.sha256, seq);
    if (!chunk) throw new Error(`file ${file.sha256} lacks chunk ${seq}`);
    chunk.copy(data, seq * chunkBytes);
  }
  return data;
}

/** The file as a stream that reads one chunk at a time, as the client takes them. */
export function fileStream(db: Kysely<Database>, file: FileRow): Readable {
  async function* chunks() {
    for (let seq = 0; seq < file.chunkCount; seq += 1) {
      const chunk = await findChunk(db, file.sha256, seq);
      if (!chunk) throw new Error(`file ${file.sha256} lacks chunk ${seq}`);
      yield chunk;
    }
  }
  return Readable.from(chunks(), { objectMode: false, highWaterMark: 1 });
}

/**
 * What a download link (download.routes.ts, once its signature is checked) answers: the
 * document's original or sealed file and the name it is saved under; undefined when the
 * document does not exist or has no such file (yet).
 */
export async function findDownload(
  db: Kysely<Database>,
  documentId: string,
  kind: FileKind,
): Promise<{ fileName: string; file: FileRow } | undefined> {
  const found = await findDownloadable(db, documentId, kind);
  return found && { fileName: pdfFileName(found.title, kind), file: found.file };
}
