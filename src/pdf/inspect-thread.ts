// Upload inspection (inspect.ts: the decode budget, pdf-lib's reading, active content, pages)
// off the event loop that answers requests, where a runaway can be stopped. Reading a hostile
// file took the process's only thread for 30 seconds and 3.8 GB before the decode budget
// existed; the budget bounds what is known, and the thread bounds the rest:
// - each inspection runs in a worker thread whose heap is capped (INSPECT_HEAP_MB) and gets
//   INSPECT_TIMEOUT_MS; past either, the thread is ended and the upload refused with a
//   sentence;
// - at most INSPECT_THREADS threads at once (one per core of the smallest machine we run on);
//   further uploads wait their turn;
// - a thread is kept for the next upload (starting one cost 535 ms on the 2-core machine:
//   module loading and a cold first read) and ended after INSPECT_IDLE_MS without work,
//   which gives back the memory its reading grew; the last one is replaced by a fresh thread
//   that waits for the next upload, so a sender's first upload after a pause does not pay
//   the start (it did: the create benchmark's slowest answers were these starts);
// - a file is handed over in two steps where its caller has work to do meanwhile
//   (`startInspection`: once a thread has it, the facts to come).
// Page images of a stored file ask the same threads for the decode budget alone
// (`decodeBudgetInThread`): files stored before the budget existed were never measured.
// The threads are a pool of src/thread-pool.ts (heap cap, time-out counted once the thread's
// modules are loaded, FIFO wait, idle end, the warm replacement); the thread loads this very
// module, as the seal thread does (seal-thread.ts), so it inherits the process's flags.
import { type KeyedSentence, refusalOf } from '../i18n/refusals.ts';
import { InputError, type InputErrorDetails } from '../input-error.ts';
import { createThreadPool, type JobOutcome, MIN_THREAD_HEAP_MB, serveJobs } from '../thread-pool.ts';
import { checkDecodeBudget } from './decode-budget.ts';
import { inspectPdf, type PdfFacts } from './inspect.ts';

export const INSPECT_HEAP_MB = 512;
export const INSPECT_TIMEOUT_MS = 20_000;
export const INSPECT_THREADS = 2;
export const INSPECT_IDLE_MS = 10_000;
// Below this a thread cannot even start: V8 aborts the whole process while creating it.
export const MIN_INSPECT_HEAP_MB = MIN_THREAD_HEAP_MB;

export const tooComplexRefusal: KeyedSentence = { key: 'upload.tooComplex' };

interface InspectOptions {
  maxBytes: number;
  /** For tests: a shorter time, a smaller heap or a shorter idle time than the defaults. */
  timeoutMs?: number;
  heapMb?: number;
  idleMs?: number;
}

type Job = { data: Uint8Array } & ({ kind: 'inspect'; maxBytes: number } | { kind: 'budget' });

type Reply =
  | { facts: PdfFacts }
  | { budget: KeyedSentence | null }
  | { fields: Record<string, string>; details: InputErrorDetails };

const role = 'inspect-pdf';
const pool = createThreadPool<Job, Reply>({
  url: new URL(import.meta.url),
  role,
  threads: INSPECT_THREADS,
  heapMb: INSPECT_HEAP_MB,
  timeoutMs: INSPECT_TIMEOUT_MS,
  idleMs: INSPECT_IDLE_MS,
  keepWarm: true,
});

/** How many inspection threads are running now (busy or idle). */
export function inspectionThreads(): number {
  return pool.threadIds().length;
}

/** The running inspection threads' ids (tests tell a fresh thread from a used one). */
export function inspectionThreadIds(): number[] {
  return pool.threadIds();
}

/**
 * inspectPdf in an inspection thread: the facts, or the InputError that refuses the file
 * (its own, or tooComplexRefusal when the thread ran out of time or memory).
 */
export async function inspectPdfInThread(data: Uint8Array, options: InspectOptions): Promise<PdfFacts> {
  return (await startInspection(data, options)).facts;
}

/** The thread's reply, or the InputError of a thread that ran out of time or memory. */
function replyOf(outcome: JobOutcome<Reply>): Reply {
  if ('stopped' in outcome) throw refusalOf({ file: tooComplexRefusal });
  return outcome.value;
}

/**
 * inspectPdfInThread in two steps: resolves once a thread has the file (after waiting for a
 * free one), with its facts to come. What waits for the facts may do other work meanwhile
 * (drafts.ts writes the file's bytes); `facts` is never left rejected unobserved.
 */
export async function startInspection(
  data: Uint8Array,
  options: InspectOptions,
): Promise<{ facts: Promise<PdfFacts> }> {
  const { maxBytes, ...bounds } = options;
  // Copied, not transferred: the caller stores these very bytes once they pass.
  const { outcome } = await pool.start({ kind: 'inspect', data, maxBytes }, bounds);
  const facts = outcome.then((answer) => {
    const reply = replyOf(answer);
    if ('facts' in reply) return reply.facts;
    if ('fields' in reply) throw new InputError(reply.fields, reply.details);
    throw new Error('the inspection thread answered something else');
  });
  facts.catch(() => {});
  return { facts };
}

/**
 * checkDecodeBudget in an inspection thread: null, or the sentence that refuses the file
 * (tooComplexRefusal when the thread ran out of time or memory).
 */
export async function decodeBudgetInThread(data: Uint8Array): Promise<KeyedSentence | null> {
  try {
    const reply = replyOf(await pool.run({ kind: 'budget', data }));
    if ('budget' in reply) return reply.budget;
    throw new Error('the inspection thread answered something else');
  } catch (error) {
    if (error instanceof InputError) return tooComplexRefusal;
    throw error;
  }
}

// In the thread: inspect what the process sends, one file after another.
serveJobs<Job, Reply>(role, async (job) => {
  try {
    return job.kind === 'budget'
      ? { budget: checkDecodeBudget(job.data) }
      : { facts: await inspectPdf(job.data, { maxBytes: job.maxBytes }) };
  } catch (error) {
    if (error instanceof InputError) return { fields: error.fields, details: error.details };
    throw error;
  }
});
