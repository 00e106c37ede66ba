// What a database outage is and what the process does about it, in one place:
// - `isDatabaseUnavailable(error)`: the connection failed (refused, reset, timed out,
//   terminated by a server shutting down or starting up, too many connections), as
//   opposed to a query that failed. The API answers these 503 `unavailable`, pages a plain
//   503 page, and the worker backs off.
// - `createOutageMonitor`: logs an outage once when it starts and once when it ends,
//   never once per request or attempt; while it lasts it probes the database every second
//   and, when it answers again, tells its listeners (the worker's loops look for work at
//   once). No restart is ever needed.
import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './schema.ts';

/** Node's socket errors that mean the server cannot be reached. */
const connectionErrnos = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOENT', // a Unix socket whose server is gone (the data folder's owner)
]);

/**
 * SQLSTATEs of a server that will not serve now: class 08 (connection exception),
 * admin/crash shutdown, "the database system is starting up", too many connections.
 */
const unavailableStates = /^(08...|57P01|57P02|57P03|53300)$/;

/** Messages pg uses for connections that ended or never started (no code attached). */
const connectionMessages =
  /^(Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated unexpectedly|Client was closed and is not queryable|Cannot use a pool after calling end on the pool)/i;

/** Seconds a client is told to wait (Retry-After) while the database is unreachable. */
export const unavailableRetryAfterSeconds = 5;

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof AggregateError && error.errors.some(isDatabaseUnavailable)) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (connectionErrnos.has(code) || unavailableStates.test(code))) return true;
  if (connectionMessages.test(error.message)) return true;
  return error.cause !== undefined && error.cause !== error && isDatabaseUnavailable(error.cause);
}

export interface OutageMonitor {
  /** Whether the database is believed unreachable now. */
  readonly down: boolean;
  /**
   * Notes a failure. Returns true (and starts the outage when none is under way) when the
   * error means the database is unreachable; false for any other error, which the caller
   * handles as it would have.
   */
  report(error: unknown): boolean;
  /** Called with no argument when the database answers again after an outage. */
  onRecovered(listener: () => void): () => void;
  close(): void;
}

export interface OutageMonitorOptions {
  db: Kysely<Database>;
  log: Logger;
  /** Wall time (the outage's length is real time even under a test clock). */
  now?: () => number;
  probeIntervalMs?: number;
  /** Told when an outage starts (true) and ends (false): the metrics gauge. */
  onChange?: (down: boolean) => void;
}

export function createOutageMonitor(options: OutageMonitorOptions): OutageMonitor {
  const now = options.now ?? Date.now;
  const probeIntervalMs = options.probeIntervalMs ?? 1000;
  const listeners = new Set<() => void>();
  let downSince: number | null = null;
  let failures = 0;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  function probeLater() {
    if (closed || timer) return;
    timer = setTimeout(probe, probeIntervalMs);
    timer.unref();
  }

  function probe() {
    timer = null;
    sql`select 1`.execute(options.db).then(recovered, (error: unknown) => {
      if (!isDatabaseUnavailable(error)) {
        // Reachable but failing otherwise: the outage of the connection is over.
        recovered();
        return;
      }
      probeLater();
    });
  }

  function recovered() {
    if (downSince === null || closed) return;
    options.log.info(
      { outageMs: now() - downSince, failuresDuringOutage: failures },
      'database reachable again',
    );
    downSince = null;
    failures = 0;
    options.onChange?.(false);
    for (const listener of listeners) listener();
  }

  return {
    get down() {
      return downSince !== null;
    },
    report(error) {
      if (!isDatabaseUnavailable(error)) return false;
      failures++;
      if (downSince === null) {
        downSince = now();
        options.log.error(
          { err: error },
          'database unreachable: answering 503 and retrying until it returns (logged once per outage)',
        );
        options.onChange?.(true);
        probeLater();
      }
      return true;
    },
    onRecovered(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

/**
 * Runs `write` until it lands: while the database is unreachable it waits (250 ms,
 * doubling to 5 s) and tries again, so an outcome computed during an outage is recorded
 * when the server returns instead of being lost. Gives up (rethrows) on any other error,
 * or when `stopped()` says the process is going away.
 */
export async function retryWhileUnavailable<T>(
  outage: OutageMonitor,
  write: () => Promise<T>,
  stopped: () => boolean,
): Promise<T> {
  let waitMs = 250;
  for (;;) {
    try {
      return await write();
    } catch (error) {
      if (!outage.report(error) || stopped()) throw error;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      waitMs = Math.min(waitMs * 2, 5000);
    }
  }
}
