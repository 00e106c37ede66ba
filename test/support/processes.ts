// `signet serve` as separate processes, for tests that run several of them on one
// PostgreSQL database: each is a child of the Node that runs the tests, started on a port
// of its own (PORT=0, the address read from what it prints), watched until it says it
// runs, its log kept, and stopped (SIGTERM, then SIGKILL) by the suite's `after`.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { DatabaseHandle } from '../../src/db/connect.ts';
import { mainScript } from './cli-process.ts';
import { postgresAdminUrl, testSealKey } from './harness.ts';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` every 20 ms; fails the test naming `what` after `timeoutMs`. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The URL of a database `createTestDatabase('postgres')` made, for DATABASE_URL. */
export async function databaseUrlOf(database: DatabaseHandle): Promise<string> {
  const { name } = await database.db
    .selectNoFrom((eb) => eb.fn<string>('current_database', []).as('name'))
    .executeTakeFirstOrThrow();
  return Object.assign(new URL(postgresAdminUrl), { pathname: `/${name}` }).toString();
}

/** A TCP port nothing listens on right now (for listeners that cannot report theirs). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface SignetProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Where it serves HTTP (role api or all); null for a worker. */
  readonly url: string | null;
  /** Every line it wrote, standard output and error, in order. */
  readonly lines: string[];
  /** Its log lines at level error or above, and anything on standard error but Node's process warnings. */
  problems(): string[];
  /** SIGTERM, and SIGKILL after `graceMs`; resolves with the exit code (null when killed). */
  stop(graceMs?: number): Promise<number | null>;
}

const runningLine = /^Signet is running at (\S+)$/;
const workerLine = /^Signet worker is running/;

/**
 * Starts `signet serve --role <role>` with `env` added to this process's environment and
 * resolves once it is serving; rejects with its output if it exits or takes longer than
 * `timeoutMs`.
 */
export async function startSignet(
  name: string,
  role: 'api' | 'worker' | 'all',
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<SignetProcess> {
  const child = spawn(process.execPath, [mainScript, 'serve', '--role', role], {
    // On PostgreSQL, the tests' seal key: a worker there without one does not start (a data
    // folder makes its own).
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      ...(env.DATABASE_URL ? { SIGNET_SEAL_KEY: testSealKey } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Never outlive the test process, whatever happens to it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = once(child, 'exit').then(([code]) => {
    process.off('exit', killOnExit);
    return code as number | null;
  });
  const lines: string[] = [];
  const stderr: string[] = [];
  let url: string | null = null;
  let ready: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    ready = resolve;
  });

  function collect(stream: NodeJS.ReadableStream, into: string[][]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts) {
        for (const list of into) list.push(line);
        const running = runningLine.exec(line);
        if (running) {
          url = running[1] as string;
          ready();
        } else if (workerLine.test(line)) ready();
      }
    });
  }
  collect(child.stdout as NodeJS.ReadableStream, [lines]);
  collect(child.stderr as NodeJS.ReadableStream, [lines, stderr]);

  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      started,
      exited.then((code) => {
        throw new Error(`${name} exited with ${code} before it was serving:\n${lines.join('\n')}`);
      }),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${name} was not serving after ${timeoutMs} ms:\n${lines.join('\n')}`)),
          timeoutMs,
        );
      }),
    ]);
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw error;
  } finally {
    clearTimeout(timer);
  }

  return {
    name,
    child,
    url,
    lines,
    problems() {
      const logged = lines.filter((line) => {
        if (!line.startsWith('{')) return false;
        try {
          return ((JSON.parse(line) as { level?: number }).level ?? 0) >= 50;
        } catch {
          return false;
        }
      });
      // Node's own warnings ("(node:123) [CODE] …Warning: …" and the hint after them) are not failures.
      const unexpected = stderr.filter((line) => line.trim() !== '' && !/^\((node:\d+|Use `node)/.test(line));
      return [...logged, ...unexpected];
    },
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
