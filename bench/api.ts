// `npm run bench:api`: how fast GET /v1/documents is on 100,000 documents in PostgreSQL,
// against a bare Fastify route running the same SQL, measured side by side in one run.
// Prints throughput, p50/p99 latency and the ratios; asserts nothing.
//
// Env: SIGNET_BENCH_POSTGRES_URL (admin connection, default postgres://root@127.0.0.1:5432/test),
// SIGNET_BENCH_DOCUMENTS (100000), SIGNET_BENCH_SECONDS (5 per run),
// SIGNET_BENCH_ROUNDS (3 interleaved rounds; the median round is reported), SIGNET_BENCH_CONNECTIONS (50).
//
// The measuring parts are exported for `npm run bench` (bench/all.ts); importing this file
// runs nothing.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { createContext, createLogger } from '../src/context.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { seedWorkspace } from '../src/demo/seed.ts';
import { benchDatabase } from './webhook-setup.ts';

const root = join(import.meta.dirname, '..');

/** A TCP port free on 127.0.0.1 at the time of asking. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  server.close();
  await once(server, 'close');
  return port;
}

/** Starts `node <args>` in the project folder and waits until its stdout matches `readyPattern`. */
/**
 * The seal's key-encryption key of every bench server on PostgreSQL (a worker there does not
 * start without one; a data folder makes its own). A fixed value: the benches' databases are
 * thrown away.
 */
export const benchSealKey = Buffer.alloc(32, 7).toString('base64');

export async function startChild(
  args: string[],
  env: Record<string, string>,
  readyPattern: RegExp,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...(env.DATABASE_URL ? { SIGNET_SEAL_KEY: benchSealKey } : {}), ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  // Two minutes: a machine busy with other work starts a server slowly.
  const deadline = Date.now() + 120_000;
  while (!readyPattern.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`server did not start: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return child;
}

export async function stopChild(child: ChildProcess) {
  child.kill('SIGTERM');
  if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
}

export interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** GET when left out. */
  method?: 'POST';
  /** Each request's body, made afresh for each (runAtRate only). */
  nextBody?: () => Buffer;
  /** The one status that counts as answered (runAtRate only); any 2xx when left out. */
  expect?: number;
}

/** One closed-loop autocannon run: `connections` connections, each sending as fast as answered. */
export async function run(target: Target, duration: number, connections: number): Promise<Figures> {
  const result = await autocannon({ url: target.url, connections, duration, headers: target.headers });
  return {
    name: target.name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/**
 * Runs the targets in interleaved rounds (A B C, A B C, …) and keeps each one's median
 * round, so drift in a shared machine's speed falls on every target alike.
 */
export async function measure(
  targets: Target[],
  options: { seconds: number; rounds: number; connections: number },
): Promise<Figures[]> {
  for (const target of targets) await run(target, 2, options.connections); // warm-up: JIT, pools, caches
  const rounds: Figures[][] = targets.map(() => []);
  for (let round = 0; round < options.rounds; round++) {
    for (const [i, target] of targets.entries())
      rounds[i]?.push(await run(target, options.seconds, options.connections));
  }
  return rounds.map((figures) => ({
    name: figures[0]?.name ?? '',
    rps: median(figures.map((f) => f.rps)),
    p50: median(figures.map((f) => f.p50)),
    p99: median(figures.map((f) => f.p99)),
    non2xx: figures.reduce((sum, f) => sum + f.non2xx, 0),
    errors: figures.reduce((sum, f) => sum + f.errors, 0),
  }));
}

/** The latencies (ms) of one fixed-rate run, with what was offered and what was answered. */
export interface RateRun {
  name: string;
  /** Requests per second offered (the slices' overallRate summed). */
  offered: number;
  /** Requests per second answered inside the measured window. */
  achieved: number;
  latencies: number[];
  /** Answers inside the window that were not the expected status (any non-2xx when none is). */
  non2xx: number;
  errors: number;
  /** Every status answered inside the window, and how often. */
  statuses: Map<number, number>;
  /** The first few refused answers' bodies (status: body), to print. */
  refused: string[];
  /** Every answer of the run, inside the window or not (for costs per request). */
  answered: number;
}

/**
 * GET `target` at a fixed offered rate for `seconds`, with autocannon's `overallRate`.
 *
 * What `overallRate` does (autocannon 9, lib/run.js and lib/httpClient.js): the rate is
 * divided among the connections, and each connection sends its share of a second
 * back-to-back, as fast as it is answered, from the start of each second, then waits for
 * the next second; every connection's second starts at the same moment. With 50 connections
 * in one instance the whole second's load therefore arrives at once (measured: all of it in
 * the first 100 ms of each second): saturation again, in bursts. So the load is cut into
 * `slices` instances of one connection each, with overallRate = rate / slices, started
 * 1000 / slices ms apart: the offered requests are spread evenly over every second.
 *
 * The latencies are the raw ones of each answer (autocannon's 'response' event), with its
 * coordinated-omission correction off: that correction records each answer with an
 * expected interval of ceil(1 / rate) = 1 ms, which adds n − 1 made-up samples to every
 * n ms answer. At half the ceiling's throughput there is no omission to correct: the
 * achieved rate is printed beside the offered one to show it.
 * Only answers inside a window in which every slice runs (seconds after the first second)
 * are counted.
 */
export async function runAtRate(
  target: Target,
  options: { rate: number; seconds: number; slices: number },
): Promise<RateRun> {
  const perSlice = Math.max(1, Math.round(options.rate / options.slices));
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const refused: string[] = [];
  let non2xx = 0;
  let errors = 0;
  let answered = 0;
  const started = performance.now();
  const windowStart = started + 1000;
  const windowEnd = windowStart + options.seconds * 1000;
  const inWindow = () => {
    const now = performance.now();
    return now >= windowStart && now < windowEnd;
  };
  const accepted = (status: number) =>
    target.expect === undefined ? status >= 200 && status < 300 : status === target.expect;
  await Promise.all(
    Array.from({ length: options.slices }, async (_, slice) => {
      await new Promise((resolve) => setTimeout(resolve, (slice * 1000) / options.slices));
      const instance = autocannon({
        url: target.url,
        headers: target.headers,
        connections: 1,
        overallRate: perSlice,
        ignoreCoordinatedOmission: true,
        // Runs until every later slice has run its `seconds` too.
        duration: options.seconds + 1 + 0.1,
        ...requestsOf(target, (status, body) => {
          if (!accepted(status) && refused.length < 5 && inWindow()) refused.push(`${status}: ${body}`);
        }),
      });
      // The 'response' event carries each answer's latency (not in the type definitions).
      (instance as unknown as NodeJS.EventEmitter).on(
        'response',
        (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
          answered++;
          if (!inWindow()) return;
          statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
          if (accepted(statusCode)) latencies.push(responseTime);
          else non2xx++;
        },
      );
      const result = await instance;
      errors += result.errors;
    }),
  );
  return {
    name: target.name,
    offered: perSlice * options.slices,
    achieved: (latencies.length + non2xx) / options.seconds,
    latencies,
    non2xx,
    errors,
    statuses,
    refused,
    answered,
  };
}

/**
 * autocannon's `requests` for a target with a method and a body made afresh for each request
 * (its `setupRequest`), each answer's body handed to `onAnswer`; nothing for a plain GET.
 */
export function requestsOf(
  target: Target,
  onAnswer: (status: number, body: string) => void,
): { requests?: autocannon.Request[] } {
  const { method, nextBody } = target;
  if (!method && !nextBody) return {};
  return {
    requests: [
      {
        method: method ?? 'GET',
        setupRequest: (request: autocannon.Request) =>
          nextBody ? { ...request, body: nextBody() } : request,
        onResponse: (status: number, body: string) => onAnswer(status, body),
      },
    ],
  };
}

export interface SeededApi {
  signetUrl: string;
  bareUrl: string;
  headers: Record<string, string>;
  seedSeconds: number;
  /** The process ids of `signet serve` and of the bare route (for CPU readings). */
  pids: { signet: number; bare: number };
  /** The cursor of page `page` (`limit` per page), walked to the way a client would. */
  cursorOfPage(page: number, limit: number): Promise<string>;
  close(): Promise<void>;
}

/**
 * A fresh database on the server of `adminUrl`, seeded with `documents` documents through
 * the same code as `signet seed`; `signet serve` and the bare route started on free ports.
 * close() stops both and drops the database.
 */
export async function startSeededApi(options: { adminUrl: string; documents: number }): Promise<SeededApi> {
  const { documents } = options;
  const database = benchDatabase(options.adminUrl);
  await database.create();
  let signet: ChildProcess | null = null;
  let bare: ChildProcess | null = null;
  const close = async () => {
    if (signet) await stopChild(signet);
    if (bare) await stopChild(bare);
    await database.drop();
  };
  try {
    const handle = await openDatabase({ url: database.url, dataDir: null, poolSize: 4 });
    await migrateToLatest(handle.db);
    const ctx = await createContext(loadConfig({}), handle.db, { log: createLogger('warn') });
    const seedStarted = Date.now();
    const seeded = await seedWorkspace(ctx, {
      documents,
      onProgress: (done) => {
        if (done % 10_000 === 0 || done === documents) process.stderr.write(`seeded ${done}/${documents}\n`);
      },
    });
    process.stderr.write('\n');
    // Fresh statistics, as autovacuum would have gathered on a database that grew over time.
    await sql`vacuum analyze`.execute(handle.db);
    await handle.close();
    const seedSeconds = (Date.now() - seedStarted) / 1000;

    const headers = { authorization: `Bearer ${seeded.apiKey.secret}` };
    const serverEnv = {
      DATABASE_URL: database.url,
      LOG_LEVEL: 'warn',
      SIGNET_RATE_LIMIT_BURST: '1000000000',
      SIGNET_RATE_LIMIT_REFILL_PER_SECOND: '1000000000',
    };
    const signetPort = await freePort();
    signet = await startChild(
      ['src/main.ts', 'serve'],
      { ...serverEnv, PORT: String(signetPort) },
      /Signet is running/,
    );
    const barePort = await freePort();
    bare = await startChild(
      ['bench/bare-server.ts'],
      { ...serverEnv, PORT: String(barePort), WORKSPACE_ID: seeded.workspace.id },
      /ready/,
    );
    const signetUrl = `http://127.0.0.1:${signetPort}`;
    return {
      signetUrl,
      bareUrl: `http://127.0.0.1:${barePort}`,
      headers,
      seedSeconds,
      pids: { signet: signet.pid ?? 0, bare: bare.pid ?? 0 },
      async cursorOfPage(page, limit) {
        let cursor: string | null = null;
        for (let at = 1; at < page; at++) {
          const res = await fetch(
            `${signetUrl}/v1/documents?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
            { headers },
          );
          cursor = ((await res.json()) as { nextCursor: string | null }).nextCursor;
          if (!cursor) throw new Error(`ran out of pages at ${at}`);
        }
        if (!cursor) throw new Error('page 1 has no cursor');
        return cursor;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function main() {
  const adminUrl = process.env.SIGNET_BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
  const documents = Number(process.env.SIGNET_BENCH_DOCUMENTS ?? 100_000);
  const seconds = Number(process.env.SIGNET_BENCH_SECONDS ?? 5);
  const roundCount = Number(process.env.SIGNET_BENCH_ROUNDS ?? 3);
  const connections = Number(process.env.SIGNET_BENCH_CONNECTIONS ?? 50);

  const started = Date.now();
  const api = await startSeededApi({ adminUrl, documents });
  try {
    // Walk to page 1,000 (25 per page) the way a client would, to get its cursor.
    const cursor = await api.cursorOfPage(1000, 25);

    const results = await measure(
      [
        { name: 'bare Fastify + same SQL', url: `${api.bareUrl}/v1/documents`, headers: {} },
        {
          name: 'signet GET /v1/documents',
          url: `${api.signetUrl}/v1/documents?limit=25`,
          headers: api.headers,
        },
        {
          name: 'signet page 1,000 (cursor)',
          url: `${api.signetUrl}/v1/documents?limit=25&cursor=${cursor}`,
          headers: api.headers,
        },
      ],
      { seconds, rounds: roundCount, connections },
    );
    const [baseline, page1, page1000] = results as [Figures, Figures, Figures];

    const pad = (s: string | number, n: number) => String(s).padStart(n);
    console.log(
      `\n${documents.toLocaleString('en')} documents seeded in ${api.seedSeconds.toFixed(1)} s; ${connections} connections; median of ${roundCount} interleaved ${seconds} s runs\n`,
    );
    console.log(
      `${'run'.padEnd(30)}${pad('req/s', 10)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('non-2xx', 9)}${pad('errors', 8)}`,
    );
    for (const r of results) {
      console.log(
        `${r.name.padEnd(30)}${pad(r.rps.toFixed(0), 10)}${pad(r.p50, 9)}${pad(r.p99, 9)}${pad(r.non2xx, 9)}${pad(r.errors, 8)}`,
      );
    }
    console.log('');
    console.log(
      `throughput ratio signet / bare:        ${(page1.rps / baseline.rps).toFixed(2)}   (target >= 0.6)`,
    );
    console.log(`p99 latency signet page 1:             ${page1.p99} ms   (target <= 25 ms)`);
    console.log(
      `page 1,000 vs page 1 (p50 latency):    ${(page1000.p50 / Math.max(page1.p50, 0.001)).toFixed(2)}x  (target <= 1.2x)`,
    );
    console.log(
      `page 1,000 vs page 1 (throughput):     ${(page1.rps / page1000.rps).toFixed(2)}x  (target <= 1.2x)`,
    );
    console.log(`total ${(Date.now() - started) / 1000} s`);
  } finally {
    await api.close();
  }
}

if (import.meta.main) await main();
