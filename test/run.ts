// `npm test`: the whole suite on every database kind under test (default: PGlite and the
// PostgreSQL server at SIGNET_TEST_POSTGRES_URL). For PostgreSQL it migrates one template
// database first, so each test file clones a fresh database from it in milliseconds, and
// drops the template (and anything a crashed file left behind) at the end. For PGlite it
// migrates one in-memory database and dumps its data folder to a temporary file, which every
// suite's PGlite opens instead of running initdb and the migrations again (about 0.2 s
// instead of 1.7 s each); the file is removed at the end. It then runs the files two at a
// time (SIGNET_TEST_CONCURRENCY), longest first, each kind of a per-kind file in a process
// of its own (suite-plan.ts), and sums the counts: `# tests N` at the end is the whole run's.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { BackendMutex, createPGliteDialect } from '../src/db/pglite-dialect.ts';
import { pgliteExtensions } from '../src/db/pglite-extensions.ts';
import { pgliteCodecs } from '../src/db/pglite-folder.ts';
import type { Database } from '../src/db/schema.ts';
import { type Job, planJobs, slowReasons } from './suite-plan.ts';
import { databaseKinds, postgresAdminUrl } from './support/databases.ts';

const testDir = import.meta.dirname;
// `npm test -- test/webhooks/x.test.ts …` runs those files, `npm test -- test/webhooks` every
// file of a folder; arguments that start with a dash (`--test-name-pattern=…`, `--test-only`)
// go to every `node --test`.
// `--fast` (`npm run test:fast`) leaves out the files suite-plan.ts's slowReasons finds slow
// (what each file's imports start). `--list` prints the processes the run would start, each
// with its files and database kinds (with `--fast`, the fast ones), and their count;
// `--explain` prints every file with the rule that makes it slow, if any. Neither runs anything.
const ownFlags = new Set(['--fast', '--list', '--explain']);
const fast = process.argv.includes('--fast');
const list = process.argv.includes('--list');
const explain = process.argv.includes('--explain');
const nodeFlags = process.argv.slice(2).filter((arg) => arg.startsWith('-') && !ownFlags.has(arg));
const requested = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
// Every *.test.ts under test/, in the folders that mirror src/ (fixtures/ and the ignored
// output/ hold none); suite-plan.ts names a file by its path from test/ ('webhooks/….test.ts').
const planName = (file: string) => relative(testDir, resolve(file)).split(sep).join('/');
function testFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((path) => join(dir, path))
    .filter((file) => file.endsWith('.test.ts') && !/^(fixtures|output)\//.test(planName(file)))
    .sort();
}
const isSlow = (file: string) => slowReasons(planName(file), readFileSync(file, 'utf8')).length > 0;
const files = requested.length
  ? requested.flatMap((arg) => (statSync(arg).isDirectory() ? testFilesUnder(arg) : [arg]))
  : testFilesUnder(testDir).filter((file) => !(fast && isSlow(file)));
if (explain) {
  let slow = 0;
  for (const file of requested.length ? files : testFilesUnder(testDir)) {
    const reasons = slowReasons(planName(file), readFileSync(file, 'utf8'));
    if (reasons.length) slow += 1;
    const why = reasons.map(({ rule, because }) => `${rule}: ${because}`).join('; ');
    process.stdout.write(
      `${reasons.length ? 'slow' : 'fast'}  ${planName(file)}${why ? `  (${why})` : ''}\n`,
    );
  }
  process.stdout.write(
    `# slow ${slow}, fast ${(requested.length ? files : testFilesUnder(testDir)).length - slow}\n`,
  );
  process.exit(0);
}
// The jobs (suite-plan.ts's planJobs): a file alone, a per-kind file's kinds side by side, or
// small files of one folder in one process; the longest first.
const byName = new Map(files.map((file) => [planName(file), file]));
const jobs = planJobs([...byName.keys()], databaseKinds, (name) =>
  readFileSync(byName.get(name) as string, 'utf8'),
).map((job) => ({ ...job, files: job.files.map((name) => byName.get(name) as string) }));
if (list) {
  for (const job of jobs)
    process.stdout.write(`${job.files.map(planName).join(' ')} [${job.kinds.join(',')}]\n`);
  process.stdout.write(`# files ${files.length}, processes ${jobs.length}\n`);
  process.exit(0);
}

async function admin(query: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresAdminUrl });
  await client.connect();
  await client.query(query).finally(() => client.end());
}

const runId = randomUUID().replaceAll('-', '').slice(0, 10);
const template = `signet_template_${runId}`;
const databasePrefix = `signet_test_${runId}_`;
const usesPostgres = databaseKinds.includes('postgres');
const usesPGlite = databaseKinds.includes('pglite');
const pgliteSnapshotDir = usesPGlite ? mkdtempSync(join(tmpdir(), 'signet-test-pglite-')) : null;
const pgliteSnapshot = pgliteSnapshotDir ? join(pgliteSnapshotDir, 'migrated.tar') : '';

async function preparePostgresTemplate(): Promise<void> {
  await admin(`create database ${template}`);
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${template}`;
  const handle = await openDatabase({ url: url.toString(), dataDir: null, poolSize: 1 });
  await migrateToLatest(handle.db);
  await handle.close();
}

async function preparePGliteSnapshot(): Promise<void> {
  const pglite = await PGlite.create({ ...pgliteCodecs, ...pgliteExtensions });
  const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite, new BackendMutex()) });
  await migrateToLatest(db);
  await pglite.exec('checkpoint');
  const image = await pglite.dumpDataDir('none');
  writeFileSync(pgliteSnapshot, Buffer.from(await image.arrayBuffer()));
  await db.destroy();
  if (!pglite.closed) await pglite.close();
}

await Promise.all([
  usesPostgres ? preparePostgresTemplate() : undefined,
  usesPGlite ? preparePGliteSnapshot() : undefined,
]);

/**
 * CPU seconds (user and system) of this process's children that have ended, with what they
 * waited for (Chromium, `signet` processes): Linux's /proc/self/stat, in clock ticks of
 * 1/100 s; null elsewhere. Read as each job ends, the growth since the last read is that
 * job's CPU (unless two jobs end at the same moment). PostgreSQL's own CPU is not in it.
 */
function endedChildrenCpu(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[13]) + Number(fields[14]);
    return Number.isFinite(ticks) ? ticks / 100 : null;
  } catch {
    return null;
  }
}
let childrenCpu = endedChildrenCpu();

const concurrency = Number(process.env.SIGNET_TEST_CONCURRENCY ?? 2);
const totals = { tests: 0, suites: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
const failed: string[] = [];
const timings: string[] = [];
const started = performance.now();

// --conditions=@signet/source: workspace packages (@signet/client) load from their TypeScript
// source (the project's own condition: a consumer's `development` gets the built files).
// Each job's output is printed whole when it ends (one job alone streams), then its counts
// are added to the run's.
async function runJob(job: Job, stream: boolean): Promise<void> {
  const jobStarted = performance.now();
  let { code, output } = await runJobOnce(job, stream);
  // V8 aborting its own process (nodejs/node#64500, open: the JIT page registry of WebAssembly
  // code loses track under PGlite's instance churn) is no test's failure: the job runs once
  // more, and the run says so. Any other failure, or the same abort twice, fails the job.
  if (code !== 0 && v8JitAbort.test(output)) {
    process.stdout.write(`\n# ${labelOf(job)}: V8 aborted the process (nodejs/node#64500); run once more\n`);
    ({ code, output } = await runJobOnce(job, stream));
  }
  const label = labelOf(job);
  if (!stream) process.stdout.write(`\n# ${label}\n${output}`);
  for (const [, key, value] of output.matchAll(/^ℹ (\w+) (\d+)$/gm))
    if (key && key in totals) totals[key as keyof typeof totals] += Number(value);
  const jobSeconds = (performance.now() - jobStarted) / 1000;
  const cpuNow = endedChildrenCpu();
  const cpu =
    cpuNow !== null && childrenCpu !== null ? `${(cpuNow - childrenCpu).toFixed(1).padStart(7)} s` : '';
  childrenCpu = cpuNow;
  timings.push(`${jobSeconds.toFixed(1).padStart(7)} s ${cpu}  ${label}`);
  if (code !== 0) failed.push(label);
}

/** V8's own abort in its WebAssembly code registry: its exact check, nothing broader. */
const v8JitAbort = /Check failed: jit_page_->allocations_\.erase\(addr\) == 1/;

const labelOf = (job: Job) =>
  `${job.files.map((file) => relative(process.cwd(), file)).join(' ')} [${job.kinds.join(',')}]`;

/** One run of a job's files in a process of their own: its exit code and its whole output. */
async function runJobOnce(job: Job, stream: boolean): Promise<{ code: number; output: string }> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@signet/source',
      '--test',
      '--test-reporter=spec',
      ...(job.files.length > 1 ? ['--test-isolation=none'] : []),
      ...nodeFlags,
      ...job.files,
    ],
    {
      stdio: stream ? ['ignore', 'pipe', 'inherit'] : ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        SIGNET_TEST_DATABASES: job.kinds.join(','),
        SIGNET_TEST_PG_TEMPLATE: usesPostgres ? template : '',
        SIGNET_TEST_PG_PREFIX: databasePrefix,
        SIGNET_TEST_PGLITE_SNAPSHOT: pgliteSnapshot,
        // Node's compile cache, where `signet` keeps it (main.ts): a test process importing the
        // app compiles none of its modules again (about a second of CPU each, ~100 per run).
        NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'node-compile-cache'),
      },
    },
  );
  const chunks: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    if (stream) process.stdout.write(chunk);
    chunks.push(chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk));
  const code: number = await new Promise((resolve) =>
    child.on('close', (c, signal) => resolve(c ?? (signal ? 1 : 0))),
  );
  return { code, output: Buffer.concat(chunks).toString('utf8') };
}

const queue = [...jobs];
await Promise.all(
  Array.from({ length: Math.min(concurrency, jobs.length) }, async () => {
    for (let job = queue.shift(); job; job = queue.shift()) await runJob(job, jobs.length === 1);
  }),
);
const code = failed.length ? 1 : 0;
if (jobs.length > 1) {
  process.stdout.write(
    `\n# jobs, longest first: wall time, then CPU (the job's process and what it started)\n${timings.sort().reverse().join('\n')}\n`,
  );
  for (const label of failed) process.stdout.write(`# failed: ${label}\n`);
  for (const [key, value] of Object.entries(totals)) process.stdout.write(`# ${key} ${value}\n`);
  process.stdout.write(`# duration_s ${((performance.now() - started) / 1000).toFixed(1)}\n`);
  const cpuEnd = endedChildrenCpu();
  if (cpuEnd !== null) process.stdout.write(`# cpu_s ${cpuEnd.toFixed(1)} (the jobs' processes)\n`);
}

if (usesPostgres) {
  const client = new pg.Client({ connectionString: postgresAdminUrl });
  await client.connect();
  const leftovers = await client.query<{ datname: string }>(
    'select datname from pg_database where datname like $1',
    [`${databasePrefix}%`],
  );
  for (const { datname } of leftovers.rows)
    await client.query(`drop database if exists ${datname} with (force)`);
  await client.query(`drop database if exists ${template} with (force)`);
  await client.end();
}
if (pgliteSnapshotDir) rmSync(pgliteSnapshotDir, { recursive: true, force: true });
process.exit(code);
