// A small pool of stoppable worker threads for work on untrusted input (a bulk send's CSV,
// templates/bulk-csv-thread.ts): the work runs off the event loop that answers requests,
// and a runaway is ended instead of waited for. The pool owns:
// - the bounds: each thread's heap is capped (`heapMb`, V8's resourceLimits) and each job
//   gets `timeoutMs` from the moment the thread has it; past either the thread is ended and
//   the job's outcome says which bound stopped it (`stopped`), for the caller's sentence;
// - at most `threads` threads at once; further jobs wait their turn, first come first served,
//   so one sender's files do not starve another's;
// - a thread kept for the next job (its modules loaded once) and ended after `idleMs`
//   without work, which gives back the memory its job grew (with `keepWarm`, the last one
//   replaced by a fresh thread that waits for the next job);
// - a job is handed over at once, and its clock starts once its thread has loaded its
//   modules (the thread says so), so a cold start on a loaded machine is not counted
//   against the input; `start` resolves as soon as a thread has the job.
// The thread loads the module that made the pool (`url`), which answers with `serveJobs`:
// it inherits the process's flags (type stripping, --conditions), so it works under the test
// runner too. Used by pdf/inspect-thread.ts (uploads) and templates/bulk-csv-thread.ts.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

// Below this a thread cannot even start: V8 aborts the whole process while creating it.
export const MIN_THREAD_HEAP_MB = 16;

export interface ThreadPoolOptions {
  /** The module the thread runs; it calls `serveJobs(role, …)` at its top level. */
  url: URL;
  role: string;
  threads: number;
  heapMb: number;
  timeoutMs: number;
  idleMs: number;
  /**
   * The last idle thread of `heapMb` is replaced by a fresh one instead of ended, so the first
   * job after a pause does not pay a thread's start (module loading, a cold first read).
   */
  keepWarm?: boolean;
}

/** A job's own bounds, where a caller (a test) needs others than the pool's. */
export interface JobBounds {
  timeoutMs?: number;
  heapMb?: number;
  idleMs?: number;
}

/** What became of a job: the thread's answer, or the bound that ended it. */
export type JobOutcome<R> = { value: R } | { stopped: 'timeout' | 'out-of-memory' };

export interface ThreadPool<J, R> {
  /** The job in a thread of the pool; rejects only when the thread failed otherwise (a bug). */
  run(job: J, bounds?: JobBounds): Promise<JobOutcome<R>>;
  /** `run` in two steps: resolves once a thread has the job (after waiting for a free one). */
  start(job: J, bounds?: JobBounds): Promise<{ outcome: Promise<JobOutcome<R>> }>;
  /** The running threads' ids, busy or idle (tests tell a fresh thread from a used one). */
  threadIds(): number[];
}

type Message = { ready: true } | { id: number; value: unknown } | { id: number; error: string };

interface Slot {
  worker: Worker;
  heapMb: number;
  busy: boolean;
  ready: Promise<void>;
  /** Why the thread ended, when it ended before it was given its job (while it started). */
  failure?: Error;
  idle?: NodeJS.Timeout;
  /** Settles the job in hand: with the thread's message, or with the error that ended it. */
  settle?: (message: Message | Error) => void;
}

export function createThreadPool<J, R>(options: ThreadPoolOptions): ThreadPool<J, R> {
  const slots: Slot[] = [];
  const waiting: Array<() => void> = [];
  let nextId = 0;

  function endSlot(slot: Slot): void {
    const at = slots.indexOf(slot);
    if (at < 0) return;
    slots.splice(at, 1);
    clearTimeout(slot.idle);
    void slot.worker.terminate();
    // A place is free: the next job in line may start a thread.
    waiting.shift()?.();
  }

  function startSlot(heapMb: number): Slot {
    const worker = new Worker(options.url, {
      workerData: { role: options.role },
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
    });
    let isReady: () => void = () => {};
    const slot: Slot = { worker, heapMb, busy: true, ready: new Promise((resolve) => (isReady = resolve)) };
    worker.on('message', (message: Message) => {
      if ('ready' in message) isReady();
      else slot.settle?.(message);
    });
    // `on`, not `once`: an 'error' no one listens to would crash the process.
    worker.on('error', (error) => {
      slot.failure ??= error;
      isReady();
      slot.settle?.(error);
      endSlot(slot);
    });
    worker.on('exit', (code) => {
      const error = new Error(`the ${options.role} thread stopped (exit code ${code})`);
      slot.failure ??= error;
      isReady();
      slot.settle?.(error);
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
      if (slots.length < options.threads) return startSlot(heapMb);
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
   * Ends a thread left idle (with it, whatever its heap grew to); with `keepWarm`, the last one
   * of the pool's heap is replaced by a fresh one, which waits for the next job without a timer
   * (and, like every idle thread, never keeps the process alive).
   */
  function retire(slot: Slot): void {
    endSlot(slot);
    if (!options.keepWarm || slot.heapMb !== options.heapMb || slots.length > 0) return;
    const fresh = startSlot(options.heapMb);
    fresh.busy = false;
    fresh.worker.unref();
  }

  async function start(job: J, bounds: JobBounds = {}): Promise<{ outcome: Promise<JobOutcome<R>> }> {
    const heapMb = bounds.heapMb ?? options.heapMb;
    if (!(heapMb >= MIN_THREAD_HEAP_MB)) {
      throw new RangeError(`heapMb must be at least ${MIN_THREAD_HEAP_MB}, not ${heapMb}.`);
    }
    const slot = await takeSlot(heapMb);
    // While a job is in hand the thread keeps the process alive, so it finishes.
    slot.worker.ref();
    const id = nextId++;
    const answered = new Promise<Message | Error | 'timeout'>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let isSettled = false;
      const settle = (answer: Message | Error | 'timeout') => {
        isSettled = true;
        clearTimeout(timer);
        resolve(answer);
      };
      slot.settle = settle;
      // A thread that ended while it started (out of memory loading its modules) settled nothing.
      if (slot.failure) return settle(slot.failure);
      // Posted at once (a thread still starting reads it once its modules are loaded), and
      // timed from then: the start is not the input's doing.
      slot.worker.postMessage({ id, job });
      void slot.ready.then(() => {
        if (!isSettled) timer = setTimeout(() => settle('timeout'), bounds.timeoutMs ?? options.timeoutMs);
      });
    });
    const outcome = answered.then((answer): JobOutcome<R> => {
      if (answer === 'timeout' || answer instanceof Error) {
        slot.settle = undefined;
        endSlot(slot);
        if (answer === 'timeout') return { stopped: 'timeout' };
        if ((answer as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY')
          return { stopped: 'out-of-memory' };
        throw answer;
      }
      release(slot, bounds.idleMs ?? options.idleMs);
      if ('error' in answer) throw new Error(answer.error);
      return { value: (answer as { value: R }).value };
    });
    // Its caller may do other work before it awaits the outcome: never a rejection unobserved.
    outcome.catch(() => {});
    return { outcome };
  }

  return {
    start,
    run: async (job, bounds) => (await start(job, bounds)).outcome,
    threadIds: () => slots.map((slot) => slot.worker.threadId),
  };
}

/**
 * In a pool's thread: answers each job the process sends with `handle`'s value (structured
 * clone), or with the message of what it threw. Does nothing outside a thread of `role`, so
 * the module that calls it can also be imported by the process itself.
 */
export function serveJobs<J, R>(role: string, handle: (job: J) => R | Promise<R>): void {
  if (isMainThread || !parentPort || (workerData as { role?: string } | null)?.role !== role) return;
  const port = parentPort;
  port.on('message', async ({ id, job }: { id: number; job: J }) => {
    try {
      port.postMessage({ id, value: await handle(job) } satisfies Message);
    } catch (error) {
      port.postMessage({ id, error: (error as Error)?.message ?? String(error) } satisfies Message);
    }
  });
  port.postMessage({ ready: true } satisfies Message);
}
