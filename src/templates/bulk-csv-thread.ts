// A bulk send's spreadsheet read (bulk-csv.ts readBulkCsv) in a worker thread, so no file
// holds up the requests of the process: read on the request's thread, a 4.2 MB file of empty
// records answered after 37 s while /healthz waited as long (issue 49). readBulkCsv bounds its
// own work (rows, records, cells, characters); the thread bounds the rest:
// - BULK_CSV_TIMEOUT_MS and BULK_CSV_HEAP_MB per read; past either the thread is ended and the
//   file refused with bulk-csv.ts's tooComplexSheet, never a 500;
// - at most BULK_CSV_THREADS reads at once (further ones wait their turn), threads kept
//   BULK_CSV_IDLE_MS for the confirmation that follows a preview, then ended.
import { createThreadPool, serveJobs } from '../thread-pool.ts';
import { type BulkColumn, type BulkSheet, readBulkCsv, tooComplexSheet } from './bulk-csv.ts';

export const BULK_CSV_TIMEOUT_MS = 5_000;
// The file (10 MB at most), the rows kept (only their matched cells) and the faces that check
// a name's letters (pdf/font-faces.ts: parsed once per thread, a CJK face is tens of MB).
export const BULK_CSV_HEAP_MB = 256;
export const BULK_CSV_THREADS = 2;
export const BULK_CSV_IDLE_MS = 60_000;

type Job = { data: Uint8Array; columns: BulkColumn[]; maxRows: number };

const role = 'bulk-csv';
const pool = createThreadPool<Job, BulkSheet>({
  url: new URL(import.meta.url),
  role,
  threads: BULK_CSV_THREADS,
  heapMb: BULK_CSV_HEAP_MB,
  timeoutMs: BULK_CSV_TIMEOUT_MS,
  idleMs: BULK_CSV_IDLE_MS,
});

/**
 * readBulkCsv in a thread of the pool: the same sheet, or the file refused with one problem
 * when reading it took more time or memory than allowed. `timeoutMs` and `heapMb` are for tests.
 */
export async function readBulkCsvInThread(
  data: Uint8Array,
  columns: BulkColumn[],
  options: { maxRows: number; timeoutMs?: number; heapMb?: number },
): Promise<BulkSheet> {
  const { maxRows, ...bounds } = options;
  // Copied to the thread, not transferred: the caller keeps the bytes (the preview sends them back).
  const outcome = await pool.run({ data, columns, maxRows }, bounds);
  return 'value' in outcome ? outcome.value : tooComplexSheet(maxRows);
}

/** The threads reading spreadsheets now (busy or idle). */
export function bulkCsvThreadIds(): number[] {
  return pool.threadIds();
}

serveJobs<Job, BulkSheet>(role, (job) => readBulkCsv(job.data, job.columns, { maxRows: job.maxRows }));
