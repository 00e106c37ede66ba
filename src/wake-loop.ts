// The wake loop every background job runs on (expiry and mail in worker/worker.ts, the
// webhook dispatcher in webhooks/; it lives here, below both): one pass at a time; a wake
// during a pass runs exactly one more pass after it; with an interval, a pass also runs
// that long after the previous one ended. A pass that fails is reported to `onError` and
// the loop goes on. stop() waits for the pass in flight and runs no other.
export interface WakeLoop {
  /** Run a pass now, or right after the one in flight. */
  wake(): void;
  /** Like wake(), but wakes within the same tick share one pass. */
  wakeSoon(): void;
  /** Whether a pass is running or queued. */
  busy(): boolean;
  /** Resolves once no pass is running or queued. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export interface WakeLoopOptions {
  pass: () => Promise<unknown>;
  onError: (error: unknown) => void;
  /** Also run this long after each pass ends; without it, only wakes run passes. */
  intervalMs?: number;
  /** Run the first pass at once (default true). */
  startNow?: boolean;
}

export function createWakeLoop(options: WakeLoopOptions): WakeLoop {
  let running: Promise<void> | null = null;
  let again = false;
  let soon = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  function schedule(delayMs: number) {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(run, delayMs);
  }

  function run() {
    // A wake before the interval's timer fires replaces it: left pending, it would run an
    // extra pass, and after stop() keep the process alive until it fired.
    if (timer) clearTimeout(timer);
    timer = null;
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = options
      .pass()
      .then(
        () => {},
        (error: unknown) => options.onError(error),
      )
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          run();
        } else if (options.intervalMs !== undefined) schedule(options.intervalMs);
      });
  }

  if (options.startNow ?? true) schedule(0);
  return {
    wake: run,
    wakeSoon() {
      if (soon) return;
      soon = true;
      setImmediate(() => {
        soon = false;
        run();
      });
    },
    busy: () => running !== null || again || soon,
    async idle() {
      while (running || again || soon) {
        if (running) await running;
        else await new Promise((resolve) => setImmediate(resolve));
      }
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}
