// The seal's heavy work (laying out the certificate, embedding its faces, hashing and
// signing the file) runs in a worker thread of its own, so a process that also answers
// the API and the pages keeps answering while it seals: the layout alone is hundreds of
// milliseconds of CPU. One thread per process, started on first use, seals one document at
// a time; a thread that dies is replaced for the next seal. Its heap is capped
// (SEAL_HEAP_MB): a file that needs more fails its attempt (retried on the seal schedule)
// instead of taking the process's memory; what it decodes is bounded before it is loaded
// (the decode budget, in loadForSealing).
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { type Certificate, certify } from '../pdf/certificate.ts';
import type { FieldStamp } from '../pdf/fields.ts';
import { loadForSealing, type SealInfo, sealLoaded } from '../pdf/seal.ts';
import type { SealIdentity } from '../pdf/seal-identity.ts';
import { createTsaTimestamper } from '../pdf/timestamp.ts';

export interface SealJob {
  original: Uint8Array;
  certificate: Certificate;
  /** Each filled field's value, drawn at its rectangle on the original pages. */
  stamps: FieldStamp[];
  identity: SealIdentity;
  info: SealInfo;
  /** A time-stamp authority: the seal then carries a signature time-stamp (B-T). */
  tsaUrl: string | null;
  /** Its pinned certificates (SIGNET_SEAL_TSA_CERT_FILE): a token signed by any other is refused. */
  tsaCertificates: Uint8Array[];
}

export interface SealedFile {
  data: Uint8Array;
  pages: number;
}

/**
 * The work itself: the fields' values drawn on the original pages and the certificate
 * appended (one incremental update), then the whole sealed (a second), both to the one
 * loaded document, so the original is parsed once.
 */
export async function sealDocumentFile(job: SealJob): Promise<SealedFile> {
  const doc = await loadForSealing(job.original);
  await certify(doc, job.certificate, job.stamps);
  const data = await sealLoaded(
    doc,
    job.identity,
    job.info,
    job.tsaUrl
      ? {
          timestamp: createTsaTimestamper(job.tsaUrl, {
            ...(job.tsaCertificates.length ? { pinned: job.tsaCertificates } : {}),
          }),
        }
      : {},
  );
  return { data, pages: doc.getPageCount() };
}

type Reply = { id: number; sealed: SealedFile } | { id: number; error: string };

// pdf-lib's reading of the largest upload (25 MB, 500 pages) and the certificate's layout
// take a few hundred megabytes.
export const SEAL_HEAP_MB = 1024;

let thread: Worker | null = null;
let nextId = 0;
const waiting = new Map<number, { resolve: (file: SealedFile) => void; reject: (error: Error) => void }>();

function sealThread(): Worker {
  if (thread) return thread;
  const started = new Worker(new URL(import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: SEAL_HEAP_MB },
  });
  // An idle seal thread does not keep the process alive.
  started.unref();
  started.on('message', (reply: Reply) => {
    const job = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (!job) return;
    if ('error' in reply) job.reject(new Error(reply.error));
    else job.resolve(reply.sealed);
    if (waiting.size === 0) started.unref();
  });
  const fail = (error: Error) => {
    if (thread === started) thread = null;
    for (const [id, job] of waiting) {
      waiting.delete(id);
      job.reject(error);
    }
  };
  started.on('error', fail);
  started.on('exit', (code) => fail(new Error(`the seal thread stopped (exit code ${code})`)));
  thread = started;
  return started;
}

/** Seals in this process's seal thread. */
export function sealInThread(job: SealJob): Promise<SealedFile> {
  const worker = sealThread();
  const id = nextId++;
  return new Promise<SealedFile>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    // While a seal is in hand the thread keeps the process alive, so it finishes.
    worker.ref();
    worker.postMessage({ id, job });
  });
}

// In the thread: seal what the process sends, one job after another.
if (!isMainThread && parentPort) {
  const port = parentPort;
  let queue: Promise<void> = Promise.resolve();
  port.on('message', ({ id, job }: { id: number; job: SealJob }) => {
    queue = queue.then(async () => {
      try {
        const sealed = await sealDocumentFile(job);
        port.postMessage({ id, sealed } satisfies Reply, [sealed.data.buffer as ArrayBuffer]);
      } catch (error) {
        port.postMessage({ id, error: (error as Error)?.message ?? String(error) } satisfies Reply);
      }
    });
  });
}
