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
// The thread loads this very module, as the seal thread does (seal-thread.ts): it inherits
// the process's flags (type stripping, --conditions), so it works under the test runner too.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { InputError } from '../input-error.ts';
import { checkDecodeBudget } from './decode-budget.ts';
import { inspectPdf, type PdfFacts } from './inspect.ts';

export const INSPECT_HEAP_MB = 512;
export const INSPECT_TIMEOUT_MS = 20_000;
export const INSPECT_THREADS = 2;
export const INSPECT_IDLE_MS = 10_000;
// Below this a thread cannot even start: V8 aborts the whole process while creating it.
export const MIN_INSPECT_HEAP_MB = 16;

export const tooComplexSentence =
  'This PDF is too complex to check safely (reading it takes more memory or time than allowed); export it again from the program that made it.';

interface InspectOptions {
  maxBytes: number;
  /** For tests: a shorter time, a smaller heap or a shorter idle time than the defaults. */
  timeoutMs?: number;
  heapMb?: number;
  idleMs?: number;
}

type JobInput = { data: Uint8Array } & ({ kind: 'inspect'; maxBytes: number } | { kind: 'budget' });
type Job = JobInput & { id: number };

type Reply =
  | { id: number; facts: PdfFacts }
  | { id: number; budget: string | null }
  | { id: number; fields: Record<string, string> }
  | { id: number; error: string };

interface Slot {
  worker: Worker;
  heapMb: number;
  busy: boolean;
  idle?: NodeJS.Timeout;
  /** Settles the job in hand: with the thread's reply, or with the error that ended it. */
  settle?: (reply: Reply | Error) => void;
}

const slots: Slot[] = [];
const waiting: Array<() => void> = [];
let nextId = 0;

function endSlot(slot: Slot): void {
  const at = slots.indexOf(slot);
  if (at < 0) return;
  slots.splice(at, 1);
  clearTimeout(slot.idle);
  void slot.worker.terminate();
  // A place is free: the next upload in line may start a thread.
  waiting.shift()?.();
}

function startSlot(heapMb: number): Slot {
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { role: 'inspect-pdf' },
    resourceLimits: { maxOldGenerationSizeMb: heapMb },
  });
  const slot: Slot = { worker, heapMb, busy: false };
  worker.on('message', (reply: Reply) => slot.settle?.(reply));
  // `on`, not `once`: an 'error' no one listens to would crash the process.
  worker.on('error', (error) => {
    slot.settle?.(error);
    endSlot(slot);
  });
  worker.on('exit', (code) => {
    slot.settle?.(new Error(`the inspection thread stopped (exit code ${code})`));
    endSlot(slot);
  });
  slots.push(slot);
  return slot;
}

/** A thread for one job: an idle one, a new one while there is room, or the next one free. */
async function takeSlot(heapMb: number): Promise<Slot> {
  for (;;) {
    const idle = slots.find((slot) => !slot.busy && slot.heapMb === heapMb);
    if (idle) {
      clearTimeout(idle.idle);
      idle.busy = true;
      return idle;
    }
    if (slots.length < INSPECT_THREADS) {
      const slot = startSlot(heapMb);
      slot.busy = true;
      return slot;
    }
    // All places taken; an idle thread of another heap size gives its place up.
    const other = slots.find((slot) => !slot.busy);
    if (other) endSlot(other);
    else await new Promise<void>((resolve) => waiting.push(resolve));
  }
}

function release(slot: Slot, idleMs: number): void {
  slot.busy = false;
  slot.settle = undefined;
  slot.worker.unref();
  slot.idle = setTimeout(() => retire(slot), idleMs);
  slot.idle.unref();
  waiting.shift()?.();
}

/**
 * Ends a thread left idle (with it, whatever its heap grew to); the last one of the default
 * heap is replaced by a fresh one, which waits for the next job without a timer (and, like
 * every idle thread, never keeps the process alive).
 */
function retire(slot: Slot): void {
  endSlot(slot);
  if (slot.heapMb === INSPECT_HEAP_MB && slots.length === 0) startSlot(INSPECT_HEAP_MB).worker.unref();
}

/** How many inspection threads are running now (busy or idle). */
export function inspectionThreads(): number {
  return slots.length;
}

/** The running inspection threads' ids (tests tell a fresh thread from a used one). */
export function inspectionThreadIds(): number[] {
  return slots.map((slot) => slot.worker.threadId);
}

/**
 * inspectPdf in an inspection thread: the facts, or the InputError that refuses the file
 * (its own, or tooComplexSentence when the thread ran out of time or memory).
 */
export async function inspectPdfInThread(data: Uint8Array, options: InspectOptions): Promise<PdfFacts> {
  return (await startInspection(data, options)).facts;
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
  const { reply } = await startJob({ kind: 'inspect', data, maxBytes: options.maxBytes }, options);
  const facts = reply.then((answer) => {
    if ('facts' in answer) return answer.facts;
    if ('fields' in answer) throw new InputError(answer.fields);
    throw new Error('error' in answer ? answer.error : 'the inspection thread answered something else');
  });
  facts.catch(() => {});
  return { facts };
}

/**
 * checkDecodeBudget in an inspection thread: null, or the sentence that refuses the file
 * (tooComplexSentence when the thread ran out of time or memory).
 */
export async function decodeBudgetInThread(data: Uint8Array): Promise<string | null> {
  try {
    const reply = await (await startJob({ kind: 'budget', data }, {})).reply;
    if ('budget' in reply) return reply.budget;
    throw new Error('error' in reply ? reply.error : 'the inspection thread answered something else');
  } catch (error) {
    if (error instanceof InputError) return error.fields.file ?? tooComplexSentence;
    throw error;
  }
}

/**
 * Hands one job to a thread of its own heap size: resolves once the thread has it, with the
 * reply to come within the job's time (wrapped, so that the reply is not awaited here).
 */
async function startJob(
  job: JobInput,
  options: Pick<InspectOptions, 'timeoutMs' | 'heapMb' | 'idleMs'>,
): Promise<{ reply: Promise<Reply> }> {
  const heapMb = options.heapMb ?? INSPECT_HEAP_MB;
  if (!(heapMb >= MIN_INSPECT_HEAP_MB)) {
    throw new RangeError(`heapMb must be at least ${MIN_INSPECT_HEAP_MB}, not ${heapMb}.`);
  }
  const timeoutMs = options.timeoutMs ?? INSPECT_TIMEOUT_MS;
  const slot = await takeSlot(heapMb);
  const id = nextId++;
  const answered = new Promise<Reply | Error | 'timeout'>((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), timeoutMs);
    slot.settle = (answer) => {
      clearTimeout(timer);
      resolve(answer);
    };
    // While a job is in hand the thread keeps the process alive, so it finishes.
    slot.worker.ref();
    // Copied, not transferred: the caller stores these very bytes once they pass.
    slot.worker.postMessage({ ...job, id } as Job);
  });
  const reply = answered.then((answer) => {
    if (answer === 'timeout' || answer instanceof Error) {
      slot.settle = undefined;
      endSlot(slot);
      const outOfMemory =
        answer instanceof Error && (answer as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      if (answer === 'timeout' || outOfMemory) throw new InputError({ file: tooComplexSentence });
      throw answer;
    }
    release(slot, options.idleMs ?? INSPECT_IDLE_MS);
    return answer;
  });
  reply.catch(() => {});
  return { reply };
}

// In the thread: inspect what the process sends, one file after another.
if (!isMainThread && parentPort && (workerData as { role?: string } | null)?.role === 'inspect-pdf') {
  const port = parentPort;
  port.on('message', async (job: Job) => {
    const { id } = job;
    try {
      port.postMessage(
        (job.kind === 'budget'
          ? { id, budget: checkDecodeBudget(job.data) }
          : { id, facts: await inspectPdf(job.data, { maxBytes: job.maxBytes }) }) satisfies Reply,
      );
    } catch (error) {
      port.postMessage(
        (error instanceof InputError
          ? { id, fields: error.fields }
          : { id, error: (error as Error)?.message ?? String(error) }) satisfies Reply,
      );
    }
  });
}
