// `npm run bench:api`: how fast GET /v1/documents is on 100,000 documents in PostgreSQL,
// against a bare Fastify route running the same SQL, measured side by side in one run.
// Prints throughput, p50/p99 latency and the ratios; asserts nothing.
//
// Env: SIGNET_BENCH_POSTGRES_URL (admin connection, default postgres://root@127.0.0.1:5432/test),
// SIGNET_BENCH_DOCUMENTS (100000), SIGNET_BENCH_SECONDS (5 per run),
// SIGNET_BENCH_ROUNDS (3 interleaved rounds; the median round is reported), SIGNET_BENCH_CONNECTIONS (50).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { createContext, createLogger } from '../src/context.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { seedWorkspace } from '../src/demo/seed.ts';

const adminUrl = process.env.SIGNET_BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
const documents = Number(process.env.SIGNET_BENCH_DOCUMENTS ?? 100_000);
const seconds = Number(process.env.SIGNET_BENCH_SECONDS ?? 5);
const roundCount = Number(process.env.SIGNET_BENCH_ROUNDS ?? 3);
const connections = Number(process.env.SIGNET_BENCH_CONNECTIONS ?? 50);
const root = join(import.meta.dirname, '..');

const database = `signet_bench_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString();

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

async function startChild(
  args: string[],
  env: Record<string, string>,
  readyPattern: RegExp,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  const deadline = Date.now() + 30_000;
  while (!readyPattern.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return child;
}

async function stop(child: ChildProcess) {
  child.kill('SIGTERM');
  if (child.exitCode === null) await once(child, 'exit');
}

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
}

async function run(target: Target, duration: number): Promise<Figures> {
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

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/**
 * Runs the targets in interleaved rounds (A B C, A B C, …) and keeps each one's median
 * round, so drift in a shared machine's speed falls on every target alike.
 */
async function measure(targets: Target[]): Promise<Figures[]> {
  for (const target of targets) await run(target, 2); // warm-up: JIT, pools, caches
  const rounds: Figures[][] = targets.map(() => []);
  for (let round = 0; round < roundCount; round++) {
    for (const [i, target] of targets.entries()) rounds[i]?.push(await run(target, seconds));
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

const started = Date.now();
await admin(`create database ${database}`);
let signet: ChildProcess | null = null;
let bare: ChildProcess | null = null;
try {
  // Seed through the same code as `signet seed`.
  const handle = await openDatabase({ url: databaseUrl, dataDir: null, poolSize: 4 });
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
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    SIGNET_RATE_LIMIT_BURST: '1000000000',
    SIGNET_RATE_LIMIT_REFILL_PER_SECOND: '1000000000',
  };
  signet = await startChild(['src/main.ts', 'serve'], { ...serverEnv, PORT: '4601' }, /Signet is running/);
  bare = await startChild(
    ['bench/bare-server.ts'],
    { ...serverEnv, PORT: '4602', WORKSPACE_ID: seeded.workspace.id },
    /ready/,
  );

  // Walk to page 1,000 (25 per page) the way a client would, to get its cursor.
  let cursor: string | null = null;
  for (let page = 1; page < 1000; page++) {
    const res = await fetch(
      `http://127.0.0.1:4601/v1/documents?limit=25${cursor ? `&cursor=${cursor}` : ''}`,
      { headers },
    );
    cursor = ((await res.json()) as { nextCursor: string | null }).nextCursor;
    if (!cursor) throw new Error(`ran out of pages at ${page}`);
  }

  const results = await measure([
    { name: 'bare Fastify + same SQL', url: 'http://127.0.0.1:4602/v1/documents', headers: {} },
    { name: 'signet GET /v1/documents', url: 'http://127.0.0.1:4601/v1/documents?limit=25', headers },
    {
      name: 'signet page 1,000 (cursor)',
      url: `http://127.0.0.1:4601/v1/documents?limit=25&cursor=${cursor}`,
      headers,
    },
  ]);
  const [baseline, page1, page1000] = results as [Figures, Figures, Figures];

  const pad = (s: string | number, n: number) => String(s).padStart(n);
  console.log(
    `\n${documents.toLocaleString('en')} documents seeded in ${seedSeconds.toFixed(1)} s; ${connections} connections; median of ${roundCount} interleaved ${seconds} s runs\n`,
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
  if (signet) await stop(signet);
  if (bare) await stop(bare);
  await admin(`drop database if exists ${database} with (force)`);
}
