// `npm run bench`: the benchmarks in one run, printed as one table, each figure beside its
// ceiling measured in the same run, the two measured in alternation (round by round) so
// that a shared machine's drift falls on both alike. Asserts nothing.
//
//  1. API throughput: GET /v1/documents on a seeded PostgreSQL database, closed loop
//     (bench/api.ts), against a bare Fastify route running the same SQL.
//  2. API p50/p99 at a fixed offered rate of half the bare route's measured throughput
//     (autocannon's overallRate, spread evenly over each second: see runAtRate), both sides.
//  3. Page 1,000 against page 1 (limit 25, following nextCursor as a client would): the
//     throughput of 1., the latency of 2.
//  4. Delivery rate of the webhook engine (`signet serve --role worker`) against a bare
//     undici loop posting the same signed bodies to the same receiver (bench/webhooks.ts).
//  5. Commit-to-first-attempt p50/p99 at a steady 200 events/s, against the same receiver
//     hit at the same rate by a bare undici loop, timed from a timestamp taken just before.
//  6. Embedded cold start: `node src/main.ts serve` on a fresh data folder (PGlite) until
//     GET /healthz answers 200, against a bare node:http server process. The folder's
//     database is a copy of the installation's baseline (src/db/pglite-baseline.ts), as a
//     newcomer's after `npm ci`; the uncounted first round makes it if it is missing.
//  7. PDFs (bench/pdf.ts, in a process of its own): sealing a 1-, 36- and 500-page contract
//     (certificate of completion + PAdES seal) against pdf-lib loading and saving the same
//     file; a page image's first render against pdf.js alone, and from the cache against a
//     SELECT of a row its size; a 25 MB upload through POST /documents against a bare
//     route reading the same body; and the peak RSS growth of each, side by side.
//  8. Event stream (bench/event-stream.ts): GET /v1/events/stream served by `signet serve
//     --role api`, read in a process of its own with the SSE parser of `signet listen`;
//     commit -> arrival p50/p99 at a steady 50 events/s, and a burst of 2,000 events in one
//     commit until all arrived, against a reader LISTENing on the outbox channel that runs
//     the stream's query (findWebhookEventsSince) on each NOTIFY, in the same process.
//  9. Secret rotation (bench/rotation.ts): a delivery's request built and signed with two
//     secrets (a rotation's overlap) against one; what the second secret adds per delivery
//     beside the worker's CPU per event measured in 4.
// 10. Abuse (bench/abuse.ts): one workspace's decompression bombs (1 GiB), drawn-signature
//     PNG bomb and strangers' uploads against a `signet serve`: its peak RSS growth, the
//     slowest /healthz, and another workspace's cached page image p99 beside its quiet p99
//     (goals, not ceilings: under 300 MB, under 1 s, within 2 x).
// 11. The field editor's first page (bench/editor.ts): opening the editor of a freshly
//     uploaded 36-page PDF until page 1's image is served, against the same with every
//     image cached; the time until the worker has drawn every page in the background.
// 12. Creating a document (bench/document-create.ts; issue 37): POST /v1/documents with a
//     1 MB PDF as multipart to `signet serve --role api`, p50/p99 at a fixed rate (a quarter of the
//     slower side's closed-loop throughput), against a bare Fastify route that reads the
//     same body and stores the file with the same storeFile call, alternating round by round;
//     and against the same route inspecting the PDF first (the ceiling issue 37's note proposes).
// 13. A bulk send (bench/bulk-send.ts; issue 38): 1,000 rows from a template, from the
//     confirmed file until every row is sent by `signet serve --role worker` and its first
//     invitation queued, against the same documents, recipients and fields inserted in one
//     transaction; the worker's peak RSS growth.
// 14. Mail fairness (bench/mail-fairness.ts; issue 49): a one-time code's mail, queued →
//     received by SMTP, while another workspace bulk-sends 1,000 rows through `signet serve
//     --role worker` at the default pace, against the same wait on a quiet outbox in the same
//     run (a goal, not only a ceiling: within 2 × and under 10 s).
// 15. A bulk send's preview (bench/bulk-preview.ts; issue 49): the worst-case 10 MB
//     spreadsheets (a flood of empty records; one record of millions of cells) posted to a
//     `signet serve`'s preview page: the refusal's answer time against a valid 5,000-row
//     file's preview, and /healthz's slowest and median answer meanwhile against the idle
//     server's, all in the same run.
// 16. The signing page in a language beside English (bench/signing-language.ts; issue 51):
//     the page rendered in German, Japanese and Arabic against English, alternating round by
//     round (a goal, not only a ceiling: at most 1.1 ×).
// 18. The signing page with its sender's brand beside the same page without one
//     (bench/brand.ts; issue 52), alternating round by round.
//
// Env: SIGNET_BENCH_POSTGRES_URL (admin connection; each part makes a fresh database and
// drops it), SIGNET_BENCH_DOCUMENTS (100000), SIGNET_BENCH_SECONDS (5, each measured run),
// SIGNET_BENCH_ROUNDS (3 interleaved rounds of every pair), SIGNET_BENCH_CONNECTIONS (50),
// SIGNET_BENCH_RATE (200 events/s), SIGNET_BENCH_BURST (10000 events),
// SIGNET_BENCH_WARMUP_ROUNDS (2 uncounted delivery rounds), SIGNET_BENCH_CONCURRENCY (32),
// SIGNET_BENCH_WORKERS (1), SIGNET_BENCH_STREAM_RATE (50 events/s), SIGNET_BENCH_STREAM_BURST
// (2000 events), SIGNET_BENCH_ROTATION_ITERATIONS (20000), and bench/pdf.ts's
// SIGNET_BENCH_PDF_* and bench/document-create.ts's SIGNET_BENCH_CREATE_* (see there).
// A quick run: SIGNET_BENCH_SECONDS=2 SIGNET_BENCH_DOCUMENTS=20000 SIGNET_BENCH_BURST=2000 npm run bench
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { availableParallelism, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { abuseLines, measureAbuse } from './abuse.ts';
import { type Figures, freePort, measure, median, type RateRun, runAtRate, startSeededApi } from './api.ts';
import { measureBrandedSigningPage } from './brand.ts';
import { bulkPreviewDetails, bulkPreviewRows, measureBulkPreview } from './bulk-preview.ts';
import { bulkDetails, bulkRows, measureBulk } from './bulk-send.ts';
import { createDetails, createRows, measureCreate } from './document-create.ts';
import { editorDetails, editorRows, measureEditor } from './editor.ts';
import {
  runStreamRounds,
  type StreamRounds,
  startStreamBench,
  streamDetails,
  streamRows,
} from './event-stream.ts';
import { mailFairnessDetails, mailFairnessRows, measureMailFairness } from './mail-fairness.ts';
import { measureDocumentFormLanguage, measureMemberPagesLanguage } from './member-pages-language.ts';
import { pdfDetails, pdfRows, runPdfBench } from './pdf.ts';
import { measureRotation, rotationDetails } from './rotation.ts';
import { measureSigningLanguage } from './signing-language.ts';
import { percentile, type SteadyRun, startWebhookBench, type ThroughputRound } from './webhooks.ts';

const adminUrl = process.env.SIGNET_BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
const documents = Number(process.env.SIGNET_BENCH_DOCUMENTS ?? 100_000);
const seconds = Number(process.env.SIGNET_BENCH_SECONDS ?? 5);
const roundCount = Number(process.env.SIGNET_BENCH_ROUNDS ?? 3);
const connections = Number(process.env.SIGNET_BENCH_CONNECTIONS ?? 50);
const eventRate = Number(process.env.SIGNET_BENCH_RATE ?? 200);
const burst = Number(process.env.SIGNET_BENCH_BURST ?? 10_000);
const warmUpRounds = Number(process.env.SIGNET_BENCH_WARMUP_ROUNDS ?? 2);
const concurrency = Number(process.env.SIGNET_BENCH_CONCURRENCY ?? 32);
const workerCount = Number(process.env.SIGNET_BENCH_WORKERS ?? 1);
const streamRate = Number(process.env.SIGNET_BENCH_STREAM_RATE ?? 50);
const streamBurst = Number(process.env.SIGNET_BENCH_STREAM_BURST ?? 2000);
const rotationIterations = Number(process.env.SIGNET_BENCH_ROTATION_ITERATIONS ?? 20_000);
const root = join(import.meta.dirname, '..');
// Page 1,000 at 25 a page, or the last page there is when fewer documents are seeded.
const deepPage = Math.min(1000, Math.ceil(documents / 25));
const deep = `page ${deepPage.toLocaleString('en')}`;
const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);

// ---------------------------------------------------------------------------------------
// The machine.

async function machine() {
  const cpuModel =
    /^model name\s*:\s*(.+)$/m.exec(
      (() => {
        try {
          return readFileSync('/proc/cpuinfo', 'utf8');
        } catch {
          return '';
        }
      })(),
    )?.[1] ?? 'unknown';
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  const postgres = await client
    .query<{ version: string }>('select version()')
    .then((result) => /^PostgreSQL [^ ]+/.exec(result.rows[0]?.version ?? '')?.[0] ?? 'unknown')
    .finally(() => client.end());
  return {
    cores: availableParallelism(),
    cpuModel,
    ramGiB: totalmem() / 1024 ** 3,
    node: process.version,
    postgres,
    date: new Date().toISOString().slice(0, 16).replace('T', ' '),
  };
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(', ');

// ---------------------------------------------------------------------------------------
// 6. Cold start.

/** The status of GET `url`, or null when nothing answers (yet). */
function statusOf(url: string): Promise<number | null> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { agent: false, timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? null);
    });
    req.on('error', () => resolve(null));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** Node with a bare http server: the process-start part of any Node server's cold start. */
const bareHttpServer = `require('node:http').createServer((req, res) => res.end('{"status":"ok"}')).listen(Number(process.env.PORT), '127.0.0.1');`;

/**
 * Milliseconds from spawning the process to the first 200 from GET /healthz, polled every
 * 5 ms (the resolution of the figure). Signet runs on `dataDir` (an embedded PGlite
 * database: copied from the installation's baseline, at the latest schema, when the folder
 * is new), no
 * DATABASE_URL, no Redis, no SMTP.
 */
async function startToFirst200(kind: 'signet' | 'bare', dataDir: string): Promise<number> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    SIGNET_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'SMTP_URL', 'SIGNET_METRICS_PORT']) delete env[name];
  const started = performance.now();
  const child = spawn(
    process.execPath,
    kind === 'signet' ? ['src/main.ts', 'serve'] : ['-e', bareHttpServer],
    {
      cwd: root,
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${kind} exited with ${child.exitCode} before answering`);
      if ((await statusOf(`http://127.0.0.1:${port}/healthz`)) === 200) return performance.now() - started;
      if (performance.now() - started > 60_000) throw new Error(`${kind} did not answer within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await stopProcess(child);
  }
}

/**
 * One round: Signet on a fresh data folder (the figure), then Signet again on the same
 * folder (a detail: what the first start's database copy and secrets cost), then
 * the bare node:http process (the ceiling).
 */
async function coldStartRound() {
  const dataDir = mkdtempSync(join(tmpdir(), 'signet-bench-cold-'));
  try {
    const fresh = await startToFirst200('signet', dataDir);
    const restart = await startToFirst200('signet', dataDir);
    const bare = await startToFirst200('bare', dataDir);
    return { fresh, restart, bare };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function stopProcess(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

// ---------------------------------------------------------------------------------------
// The run.

const info = await machine();
const loadBefore = load();
const started = Date.now();
console.log(
  `\nnpm run bench: ${info.date} UTC; ${info.cores} cores (${info.cpuModel}), ${info.ramGiB.toFixed(0)} GiB RAM; Node ${info.node}; ${info.postgres}; load average before: ${loadBefore}`,
);
console.log(
  `${documents.toLocaleString('en')} documents; ${roundCount} interleaved rounds of ${seconds} s; ${connections} connections; webhooks: ${eventRate} events/s, bursts of ${burst.toLocaleString('en')}, concurrency ${concurrency}, ${workerCount} worker process(es)\n`,
);

// 6. Cold start first, while nothing else of the bench runs.
progress('cold start: signet serve on a fresh data folder, and a bare node:http process');
await coldStartRound(); // uncounted: reads the code from disk, fills Node's compile cache (and makes a missing baseline)
const cold: Array<Awaited<ReturnType<typeof coldStartRound>>> = [];
for (let round = 0; round < roundCount; round++) cold.push(await coldStartRound());

// 1–3. The API.
progress(`API: seeding ${documents} documents`);
const api = await startSeededApi({ adminUrl, documents });
let saturated: [Figures, Figures, Figures];
const atRate = new Map<string, RateRun[]>();
try {
  progress(`API: walking to page ${deepPage.toLocaleString('en')}`);
  const cursor = await api.cursorOfPage(deepPage, 25);
  const targets = [
    { name: 'bare', url: `${api.bareUrl}/v1/documents`, headers: {} },
    { name: 'page 1', url: `${api.signetUrl}/v1/documents?limit=25`, headers: api.headers },
    {
      name: deep,
      url: `${api.signetUrl}/v1/documents?limit=25&cursor=${cursor}`,
      headers: api.headers,
    },
  ];
  progress('API: throughput at saturation (closed loop)');
  saturated = (await measure(targets, { seconds, rounds: roundCount, connections })) as typeof saturated;
  // Half the bare route's throughput, in whole requests per second for each of the slices.
  const rate = Math.max(1, Math.round(saturated[0].rps / 2 / connections)) * connections;
  progress(`API: latency at a fixed ${rate} req/s (half the bare route's throughput)`);
  for (let round = 0; round < roundCount; round++) {
    for (const target of targets) {
      const runs = atRate.get(target.name) ?? [];
      runs.push(await runAtRate(target, { rate, seconds, slices: connections }));
      atRate.set(target.name, runs);
    }
  }
} finally {
  await api.close();
}

// 4–5. The webhook engine.
progress('webhooks: setting up (fresh database, receiver, worker)');
const webhooks = await startWebhookBench({ adminUrl, concurrency, workerCount });
const steady = { signet: [] as SteadyRun[], bare: [] as SteadyRun[] };
const delivery: ThroughputRound[] = [];
let attempts: { recorded: number; failures: string[] };
try {
  progress(`webhooks: commit -> first attempt at ${eventRate} events/s`);
  for (let round = 0; round < roundCount; round++) {
    steady.signet.push(await webhooks.steady(eventRate, seconds));
    steady.bare.push(await webhooks.bareSteady(eventRate, seconds));
  }
  progress(`webhooks: delivery rate, bursts of ${burst} (${warmUpRounds} uncounted warm-up rounds)`);
  for (let round = 0; round < warmUpRounds; round++) await webhooks.throughputRound(burst);
  for (let round = 0; round < roundCount; round++) delivery.push(await webhooks.throughputRound(burst));
  await webhooks.stopWorkers(); // they write the outcomes they still hold as they stop
  attempts = await webhooks.attempts();
} finally {
  await webhooks.close();
}

// 8. The event stream; 9. secret rotation, on an event body of the stream's database.
progress('event stream: setting up (fresh database, signet serve --role api, reader)');
const streamBench = await startStreamBench({ adminUrl });
let stream: StreamRounds;
let rotationPayload: string;
try {
  stream = await runStreamRounds(
    streamBench,
    { rate: streamRate, seconds, burst: streamBurst, rounds: roundCount },
    progress,
  );
  rotationPayload = await streamBench.samplePayload();
} finally {
  await streamBench.close();
}
progress('secret rotation: a request signed with one secret and with two');
const rotation = measureRotation({
  payload: rotationPayload,
  rounds: roundCount,
  iterations: rotationIterations,
});

// 16. The signing page in a language beside English.
progress('the signing page in German, Japanese and Arabic beside English');
const signingLanguage = measureSigningLanguage({ rounds: Math.max(3, roundCount), iterations: 2000 });

// 17. A member's document page and the refused new-document form in a language beside English.
progress("a document's page for its sender in German, Polish and Arabic beside English");
const memberLanguage = measureMemberPagesLanguage({ rounds: Math.max(3, roundCount), iterations: 2000 });
progress('the new-document form with its refusals in German, Polish and Arabic beside English');
const formLanguage = measureDocumentFormLanguage({ rounds: Math.max(3, roundCount), iterations: 1000 });

// 18. The signing page with a brand beside the same page without one.
progress('the signing page with its sender’s brand beside the same page without one');
const brand = measureBrandedSigningPage({ rounds: Math.max(3, roundCount), iterations: 2000 });

// 7. PDFs, in a process of their own: its peak RSS is then the PDF work's alone.
progress('PDF: sealing, page images, a 25 MB upload (bench/pdf.ts, in a process of its own)');
const pdf = await runPdfBench();

// 10. Abuse, against a server process of its own.
progress("Abuse: 1 GiB decompression bombs, a PNG bomb, strangers' uploads (bench/abuse.ts)");
const abuse = await measureAbuse();

// 11. The field editor's first page, against a server process of its own.
progress(
  "Editor: a fresh 36-page upload's first page image, and its pages drawn in the background (bench/editor.ts)",
);
const editor = await measureEditor();

// 12. Creating a document through the API, against server processes of its own.
progress(
  'Create: POST /v1/documents with a 1 MB PDF, and a bare route storing it (bench/document-create.ts)',
);
const create = await measureCreate();

// 13. A bulk send of 1,000 rows from a template, against a worker process of its own.
progress('Bulk: 1,000 rows from a template, confirmed file to every document sent (bench/bulk-send.ts)');
const bulk = await measureBulk();

// 14. Mail fairness: a code's mail beside another workspace's bulk send, a worker process of its own.
progress(
  "Mail fairness: a code's mail while another workspace bulk-sends 1,000 rows (bench/mail-fairness.ts)",
);
const mailFairness = await measureMailFairness();
// 15. A bulk send's preview of the worst-case spreadsheets, against a server process of its own.
progress('Bulk preview: the worst-case 10 MB spreadsheets, and /healthz meanwhile (bench/bulk-preview.ts)');
const bulkPreview = await measureBulkPreview();

// ---------------------------------------------------------------------------------------
// The figures.

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : 'n/a');
const pooled = (runs: Array<{ latencies: number[] }>) => runs.flatMap((run) => run.latencies);
const maximum = (values: number[]) =>
  values.reduce((max, value) => Math.max(max, value), Number.NEGATIVE_INFINITY);

const [bare, page1, page1000] = saturated;
const rateOf = (name: string) => {
  const runs = atRate.get(name) ?? [];
  const latencies = pooled(runs);
  return {
    offered: runs[0]?.offered ?? 0,
    achieved: median(runs.map((run) => run.achieved)),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: maximum(latencies),
    samples: latencies.length,
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
  };
};
const fixed = {
  bare: rateOf('bare'),
  page1: rateOf('page 1'),
  page1000: rateOf(deep),
};
const steadyOf = (runs: SteadyRun[]) => {
  const latencies = pooled(runs);
  return {
    events: runs.reduce((sum, run) => sum + run.events, 0),
    missing: runs.reduce((sum, run) => sum + run.missing, 0),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: maximum(latencies),
  };
};
const commit = { signet: steadyOf(steady.signet), bare: steadyOf(steady.bare) };
const deliveryRate = {
  signet: median(delivery.map((r) => r.signet)),
  bare: median(delivery.map((r) => r.bare)),
  ratio: median(delivery.map((r) => r.signet / r.bare)),
};
const coldStart50 = {
  signet: median(cold.map((r) => r.fresh)),
  restart: median(cold.map((r) => r.restart)),
  bare: median(cold.map((r) => r.bare)),
};

console.log('Details');
console.log(
  `  API, closed loop, ${connections} connections (median of ${roundCount} interleaved ${seconds} s runs): bare ${bare.rps.toFixed(0)} req/s (p50 ${bare.p50} ms, p99 ${bare.p99} ms); signet page 1 ${page1.rps.toFixed(0)} req/s (p50 ${page1.p50} ms, p99 ${page1.p99} ms); ${deep} ${page1000.rps.toFixed(0)} req/s (p50 ${page1000.p50} ms, p99 ${page1000.p99} ms); non-2xx ${bare.non2xx + page1.non2xx + page1000.non2xx}, errors ${bare.errors + page1.errors + page1000.errors}`,
);
console.log(
  `  Why a fixed rate: at saturation each of the ${connections} connections always has a request in the system, so by Little's law (L = X W) the mean time in it is W = L / X = ${connections} / ${page1.rps.toFixed(0)} req/s = ${((connections / page1.rps) * 1000).toFixed(1)} ms for signet and ${((connections / bare.rps) * 1000).toFixed(1)} ms for the bare route, whatever the server does: p50 and p99 at saturation measure the queue the load generator keeps full. Offered a fixed rate below the ceiling, the queue stays short and the percentiles are the server's own.`,
);
const fixedNames = { bare: 'bare route', page1: 'signet page 1', page1000: `signet ${deep}` };
for (const [key, figures] of Object.entries(fixed)) {
  const name = fixedNames[key as keyof typeof fixed];
  console.log(
    `  API at a fixed ${figures.offered} req/s (${connections} one-connection autocannon slices, overallRate ${figures.offered / connections} each, started ${(1000 / connections).toFixed(0)} ms apart), ${name}: achieved ${figures.achieved.toFixed(0)} req/s; p50 ${ms(figures.p50)} ms, p99 ${ms(figures.p99)} ms, max ${ms(figures.max)} ms over ${figures.samples} answers; non-2xx ${figures.non2xx}, errors ${figures.errors}`,
  );
}
console.log(
  `  Commit -> first attempt at ${eventRate} events/s, ${roundCount} × ${seconds} s each side, alternating: signet ${commit.signet.events} events (${commit.signet.missing} not delivered), p50 ${ms(commit.signet.p50)} ms, p99 ${ms(commit.signet.p99)} ms, max ${ms(commit.signet.max)} ms; bare undici ${commit.bare.events} posts (${commit.bare.missing} lost), p50 ${ms(commit.bare.p50)} ms, p99 ${ms(commit.bare.p99)} ms, max ${ms(commit.bare.max)} ms`,
);
for (const [n, r] of delivery.entries()) {
  console.log(
    `  Delivery round ${n + 1}: signet ${r.signet.toFixed(0)} events/s, bare ${r.bare.toFixed(0)} requests/s, ratio ${(r.signet / r.bare).toFixed(2)} (first delivery ${r.firstArrivalMs} ms after resuming)`,
  );
}
console.log(`  Attempts recorded: ${attempts.recorded}; failed: ${attempts.failures.join(', ') || 'none'}`);
console.log(
  `  Start to the first 200 on /healthz (ms, ${roundCount} rounds after an uncounted one): signet on a fresh data folder ${cold.map((r) => r.fresh.toFixed(0)).join(', ')}; signet again on the same folder ${cold.map((r) => r.restart.toFixed(0)).join(', ')} (median ${coldStart50.restart.toFixed(0)}); bare node:http ${cold.map((r) => r.bare.toFixed(0)).join(', ')}`,
);
for (const line of streamDetails(stream, { rate: streamRate, seconds, burst: streamBurst }))
  console.log(`  ${line}`);
// The worker's CPU per event in this run's delivery rounds (user and system), to set the
// second secret's cost beside.
const workerMicros = median(
  delivery.map((r) => {
    const used = r.cpu?.get('worker');
    return used ? (used.user + used.system) * 1000 : Number.NaN;
  }),
);
console.log(
  `  ${rotationDetails(rotation)}; the worker used ${Number.isFinite(workerMicros) ? workerMicros.toFixed(0) : 'n/a'} us of CPU per event in this run's delivery rounds (median)`,
);
for (const line of pdfDetails(pdf)) console.log(`  ${line}`);

const rows: Array<[string, string, string, string]> = [
  [
    `API throughput, GET /v1/documents, ${connections} connections (req/s; ceiling: bare Fastify route, same SQL)`,
    page1.rps.toFixed(0),
    bare.rps.toFixed(0),
    (page1.rps / bare.rps).toFixed(2),
  ],
  [
    `API p50 at a fixed ${fixed.page1.offered} req/s, half the ceiling (ms; ceiling: bare route at the same rate)`,
    ms(fixed.page1.p50),
    ms(fixed.bare.p50),
    (fixed.page1.p50 / fixed.bare.p50).toFixed(2),
  ],
  [
    `API p99 at a fixed ${fixed.page1.offered} req/s (ms; ceiling: bare route at the same rate)`,
    ms(fixed.page1.p99),
    ms(fixed.bare.p99),
    (fixed.page1.p99 / fixed.bare.p99).toFixed(2),
  ],
  [
    `${capital(deep)} throughput (req/s; ceiling: page 1)`,
    page1000.rps.toFixed(0),
    page1.rps.toFixed(0),
    (page1000.rps / page1.rps).toFixed(2),
  ],
  [
    `${capital(deep)} p50 at a fixed ${fixed.page1000.offered} req/s (ms; ceiling: page 1)`,
    ms(fixed.page1000.p50),
    ms(fixed.page1.p50),
    (fixed.page1000.p50 / fixed.page1.p50).toFixed(2),
  ],
  [
    `${capital(deep)} p99 at a fixed ${fixed.page1000.offered} req/s (ms; ceiling: page 1)`,
    ms(fixed.page1000.p99),
    ms(fixed.page1.p99),
    (fixed.page1000.p99 / fixed.page1.p99).toFixed(2),
  ],
  [
    `Webhook delivery rate, bursts of ${burst.toLocaleString('en')} (events/s; ceiling: bare undici loop, requests/s; ratio: median of the rounds' ratios)`,
    deliveryRate.signet.toFixed(0),
    deliveryRate.bare.toFixed(0),
    deliveryRate.ratio.toFixed(2),
  ],
  [
    `Commit -> first attempt p50 at ${eventRate} events/s (ms; ceiling: bare undici post, timestamp -> arrival)`,
    ms(commit.signet.p50),
    ms(commit.bare.p50),
    (commit.signet.p50 / commit.bare.p50).toFixed(1),
  ],
  [
    `Commit -> first attempt p99 at ${eventRate} events/s (ms; ceiling: bare undici post)`,
    ms(commit.signet.p99),
    ms(commit.bare.p99),
    (commit.signet.p99 / commit.bare.p99).toFixed(1),
  ],
  [
    `Embedded cold start to the first 200 on /healthz (ms; ceiling: bare node:http process)`,
    coldStart50.signet.toFixed(0),
    coldStart50.bare.toFixed(0),
    (coldStart50.signet / coldStart50.bare).toFixed(1),
  ],
];
rows.push(...streamRows(stream, { rate: streamRate, burst: streamBurst }));
rows.push([
  `Signing during a rotation's overlap, two secrets (us per request built; ceiling: one secret; +${(rotation.two - rotation.one).toFixed(1)} us per delivery)`,
  rotation.two.toFixed(2),
  rotation.one.toFixed(2),
  rotation.ratio.toFixed(2),
]);
rows.push(...pdfRows(pdf));
rows.push(...editorRows(editor));
rows.push(...createRows(create));
rows.push(...bulkRows(bulk));
rows.push(...mailFairnessRows(mailFairness));
rows.push(...bulkPreviewRows(bulkPreview));
for (const { language, micros, ratio } of signingLanguage.languages)
  rows.push([
    `The signing page in ${language} (us per page; ceiling: the same page in English; goal at most 1.1 ×)`,
    micros.toFixed(1),
    signingLanguage.english.toFixed(1),
    ratio.toFixed(2),
  ]);
for (const { language, micros, ratio } of memberLanguage.languages)
  rows.push([
    `A document's page for its sender in ${language} (us per page; ceiling: the same page in English; goal at most 1.1 ×)`,
    micros.toFixed(1),
    memberLanguage.english.toFixed(1),
    ratio.toFixed(2),
  ]);
for (const { language, micros, ratio } of formLanguage.languages)
  rows.push([
    `The new-document form with five refusals in ${language} (us per page; ceiling: the same form in English; goal at most 1.1 ×)`,
    micros.toFixed(1),
    formLanguage.english.toFixed(1),
    ratio.toFixed(2),
  ]);
rows.push([
  'The signing page with its sender’s brand: accent colour, name, “Sent with Signet” (us per page; ceiling: the same page without a brand)',
  brand.branded.toFixed(1),
  brand.plain.toFixed(1),
  brand.ratio.toFixed(2),
]);
console.log('\nRatio = measured / ceiling: for a rate 1.00 is the ceiling and less is slower; for a time');
console.log(
  '1.00 is the ceiling and more is slower (for memory, bigger). A deep page against page 1 should be 1.00 (keyset paging).\n',
);
console.log('| Figure | Measured | Ceiling (same run) | Ratio |');
console.log('|---|---:|---:|---:|');
for (const [figure, measured, ceiling, ratio] of rows)
  console.log(`| ${figure} | ${measured} | ${ceiling} | ${ratio} |`);
console.log('\nAbuse (bench/abuse.ts): each attack beside the quiet run before them; goals from issue 34.\n');
for (const line of abuseLines(abuse)) console.log(line);
console.log('\nThe field editor (bench/editor.ts; issue 36).\n');
for (const line of editorDetails(editor)) console.log(`  ${line}`);
console.log('\nCreating a document through the API (bench/document-create.ts; issue 37).\n');
for (const line of createDetails(create)) console.log(`  ${line}`);
console.log('\nA bulk send from a template (bench/bulk-send.ts; issue 38).\n');
for (const line of bulkDetails(bulk)) console.log(`  ${line}`);
console.log('\nMail fairness (bench/mail-fairness.ts; issue 49).\n');
for (const line of mailFairnessDetails(mailFairness)) console.log(`  ${line}`);
console.log("\nA bulk send's preview of the worst-case spreadsheets (bench/bulk-preview.ts; issue 49).\n");
for (const line of bulkPreviewDetails(bulkPreview)) console.log(`  ${line}`);
console.log(
  `\nload average before: ${loadBefore}; after: ${load()}; total ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
