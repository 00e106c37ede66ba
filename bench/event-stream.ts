// `npm run bench:stream`: GET /v1/events/stream (src/webhooks/event-stream.ts) on
// PostgreSQL, against a ceiling measured in the same run, in alternation round by round:
//  1. Latency: events committed one per transaction through recordDocumentEvent (so the
//     outbox NOTIFY fires, as for any event) at a steady 50/s; for each, the time from its
//     commit to its arrival on an open stream (p50, p99, all rounds pooled).
//  2. Burst: N events committed in one transaction (the same way); the time from the
//     commit until the last of them arrived, and N over that time.
// The stream is served by the real `signet serve --role api` in its own process, read by
// bench/stream-reader.ts in another with the SSE parser of `signet listen --api-url`. The
// ceiling is the same reader process LISTENing on the outbox channel and running, on each
// NOTIFY, the stream's own query (findWebhookEventsSince) from the newest event it has
// seen: the database's own notify-and-read, with nothing of the stream around it (HTTP,
// the per-pass key check, SSE framing, the 5 s overlap the stream reads again each pass).
// Both read the same webhook_events rows of the same workspace. The API key and the
// workspace are Max (the stream's plan); no webhook endpoint, no worker: nothing else reads
// the outbox meanwhile.
// 3. Secret rotation (bench/rotation.ts): building a signed request with one secret and
//    with two (a rotation's overlap), on an event body of this database.
//
// Env: SIGNET_BENCH_POSTGRES_URL, SIGNET_BENCH_SECONDS (5, each steady run),
// SIGNET_BENCH_ROUNDS (3 interleaved rounds of each pair), SIGNET_BENCH_STREAM_RATE (50
// events/s), SIGNET_BENCH_STREAM_BURST (2000 events), SIGNET_BENCH_ROTATION_ITERATIONS
// (20000 requests a side a round). Asserts nothing.
//
// The measuring parts are exported for `npm run bench` (bench/all.ts); importing this file
// runs nothing.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createContext, createLogger } from '../src/context.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createApiKey } from '../src/keys/keys.service.ts';
import { createWorkspace } from '../src/workspaces/workspaces.service.ts';
import { freePort, median, startChild, stopChild } from './api.ts';
import { measureRotation, rotationDetails } from './rotation.ts';
import { benchDatabase, createBenchDocument, epochMs, processCpuMs } from './webhook-setup.ts';
import { commitEvents, percentile } from './webhooks.ts';

export type StreamSide = 'stream' | 'bare';

export interface StreamSteadyRun {
  events: number;
  latencies: number[];
  missing: number;
}

export interface StreamBurstRun {
  events: number;
  /** Events that arrived (all of them unless the reader stalled). */
  arrived: number;
  /** From the commit to the last arrival (ms). */
  allMs: number;
  /** Arrived events per second over that time. */
  rate: number;
  /** CPU time (ms) the server process used from the commit to the end of the wait. */
  serverCpuMs: number;
}

/** Asks the reader something over IPC (one question at a time). */
function ask<T>(reader: ChildProcess, message: object): Promise<T> {
  return new Promise((resolve) => {
    reader.once('message', (answer: T) => resolve(answer));
    reader.send(message);
  });
}

async function until(due: number) {
  const wait = due - epochMs();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/**
 * Waits until `expected` events have arrived, or none has for `quietMs` (a stalled
 * reader), and returns their arrival times by id. Meanwhile it asks for a count only.
 */
async function arrivalsOf(reader: ChildProcess, expected: number, quietMs: number) {
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const { count } = await ask<{ count: number }>(reader, { type: 'count' });
    if (count !== last) {
      last = count;
      lastChange = Date.now();
    }
    if (count >= expected || Date.now() - lastChange > quietMs) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const { arrivals } = await ask<{ arrivals: Array<[string, number]> }>(reader, { type: 'arrivals' });
  return new Map(arrivals);
}

export type StreamBench = Awaited<ReturnType<typeof startStreamBench>>;

/**
 * The scene: a fresh database, a Max workspace with an API key and a document, `signet
 * serve --role api` and the reader process. Returns the measures; close() stops both and
 * drops the database.
 */
export async function startStreamBench(options: { adminUrl: string }) {
  const database = benchDatabase(options.adminUrl);
  await database.create();
  const handle = await openDatabase({ url: database.url, dataDir: null, poolSize: 4 });
  const reader = fork(join(import.meta.dirname, 'stream-reader.ts'), {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let server: ChildProcess | null = null;
  let closed = false;
  async function close() {
    if (closed) return;
    closed = true;
    if (reader.connected) reader.send({ type: 'exit' });
    if (server) await stopChild(server);
    await handle.close();
    await database.drop();
  }
  try {
    await once(reader, 'message'); // up
    await migrateToLatest(handle.db);
    const ctx = await createContext(loadConfig({}), handle.db, { log: createLogger('warn') });
    const workspace = await createWorkspace(ctx, { name: 'Bench', plan: 'max' });
    const key = await createApiKey(ctx, { workspaceId: workspace.id, name: 'Bench stream' });
    const documentId = await createBenchDocument(ctx, workspace.id);
    const port = await freePort();
    server = await startChild(
      ['src/main.ts', 'serve', '--role', 'api'],
      {
        DATABASE_URL: database.url,
        LOG_LEVEL: 'warn',
        PORT: String(port),
        SIGNET_RATE_LIMIT_BURST: '1000000000',
        SIGNET_RATE_LIMIT_REFILL_PER_SECOND: '1000000000',
      },
      /Signet is running/,
    );
    const streamUrl = `http://127.0.0.1:${port}/v1/events/stream`;
    const serverPid = server.pid ?? 0;
    /** The server's CPU time so far (ms; NaN where /proc cannot be read). */
    const serverCpuMs = () => {
      const used = processCpuMs(serverPid);
      return used ? used.user + used.system : Number.NaN;
    };

    async function open(side: StreamSide) {
      const answer = await ask<{ started?: true; error?: string }>(
        reader,
        side === 'stream'
          ? { type: 'start', mode: 'stream', url: streamUrl, apiKey: key.secret }
          : { type: 'start', mode: 'bare', databaseUrl: database.url, workspaceId: workspace.id },
      );
      if (answer.error) throw new Error(`${side} reader: ${answer.error}`);
    }
    const shut = () => ask(reader, { type: 'stop' });

    const measures = {
      close,

      /** One event per transaction, 1/rate apart, for `seconds`; commit -> arrival on `side`. */
      async steady(side: StreamSide, rate: number, seconds: number): Promise<StreamSteadyRun> {
        await open(side);
        try {
          const committed: Array<[string, number]> = [];
          const started = epochMs();
          for (let i = 0; i < rate * seconds; i++) {
            await until(started + (i * 1000) / rate);
            committed.push(...(await commitEvents(ctx, workspace.id, documentId, 1, 1)));
          }
          const arrivals = await arrivalsOf(reader, committed.length, 3_000);
          const latencies = committed.map(([id, at]) => (arrivals.get(id) ?? Number.NaN) - at);
          return {
            events: committed.length,
            latencies: latencies.filter(Number.isFinite),
            missing: latencies.filter(Number.isNaN).length,
          };
        } finally {
          await shut();
        }
      },

      /** `events` events committed in one transaction; commit -> the last arrival on `side`. */
      async burst(side: StreamSide, events: number): Promise<StreamBurstRun> {
        await open(side);
        try {
          const committed = await commitEvents(ctx, workspace.id, documentId, events, events);
          const at = committed[0]?.[1] ?? epochMs();
          const cpuBefore = serverCpuMs();
          const arrivals = await arrivalsOf(reader, committed.length, 3_000);
          const serverCpu = serverCpuMs() - cpuBefore;
          const arrived = committed.filter(([id]) => arrivals.has(id)).length;
          const last = Math.max(...committed.map(([id]) => arrivals.get(id) ?? Number.NEGATIVE_INFINITY));
          const allMs = last - at;
          return { events, arrived, allMs, rate: arrived / (allMs / 1000), serverCpuMs: serverCpu };
        } finally {
          await shut();
        }
      },

      /** An event body as the engine stores and sends it (for the rotation's measure). */
      async samplePayload(): Promise<string> {
        const [committed] = await commitEvents(ctx, workspace.id, documentId, 1, 1);
        const row = await handle.db
          .selectFrom('webhook_events')
          .select('payload')
          .where('id', '=', committed?.[0] ?? '')
          .executeTakeFirstOrThrow();
        return JSON.stringify(row.payload);
      },
    };
    // Warm-up, uncounted: JIT, connections, prepared statements on both sides.
    for (const side of ['stream', 'bare'] as const) await measures.steady(side, 50, 1);
    return measures;
  } catch (error) {
    await close();
    throw error;
  }
}

/** The figures of interleaved rounds: latency percentiles pooled, bursts by their median. */
export function streamFigures(runs: {
  steady: Record<StreamSide, StreamSteadyRun[]>;
  bursts: Record<StreamSide, StreamBurstRun[]>;
}) {
  const steadyOf = (list: StreamSteadyRun[]) => {
    const latencies = list.flatMap((run) => run.latencies);
    return {
      events: list.reduce((sum, run) => sum + run.events, 0),
      missing: list.reduce((sum, run) => sum + run.missing, 0),
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.reduce((max, value) => Math.max(max, value), Number.NEGATIVE_INFINITY),
    };
  };
  const burstOf = (list: StreamBurstRun[]) => ({
    allMs: median(list.map((run) => run.allMs)),
    rate: median(list.map((run) => run.rate)),
    stalled: list.filter((run) => run.arrived < run.events),
  });
  const stream = { steady: steadyOf(runs.steady.stream), burst: burstOf(runs.bursts.stream) };
  const bare = { steady: steadyOf(runs.steady.bare), burst: burstOf(runs.bursts.bare) };
  // Per round, the stream's burst rate over the ceiling's of the same round.
  const burstRatio = median(
    runs.bursts.stream.map((run, i) => run.rate / (runs.bursts.bare[i]?.rate ?? Number.NaN)),
  );
  return { stream, bare, burstRatio };
}

/** Runs both measures in interleaved rounds, stream first in each. */
export async function runStreamRounds(
  bench: StreamBench,
  options: { rate: number; seconds: number; burst: number; rounds: number },
  progress: (line: string) => void = () => {},
) {
  const steady: Record<StreamSide, StreamSteadyRun[]> = { stream: [], bare: [] };
  const bursts: Record<StreamSide, StreamBurstRun[]> = { stream: [], bare: [] };
  for (let round = 0; round < options.rounds; round++) {
    for (const side of ['stream', 'bare'] as const) {
      progress(
        `event stream: round ${round + 1}, ${side}: ${options.rate} events/s for ${options.seconds} s`,
      );
      steady[side].push(await bench.steady(side, options.rate, options.seconds));
    }
  }
  for (let round = 0; round < options.rounds; round++) {
    for (const side of ['stream', 'bare'] as const) {
      progress(`event stream: round ${round + 1}, ${side}: a burst of ${options.burst} events`);
      bursts[side].push(await bench.burst(side, options.burst));
    }
  }
  return { steady, bursts };
}

export type StreamRounds = Awaited<ReturnType<typeof runStreamRounds>>;

/** The detail lines of `npm run bench` and of bench:stream. */
export function streamDetails(
  rounds: StreamRounds,
  options: { rate: number; seconds: number; burst: number },
) {
  const figures = streamFigures(rounds);
  const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : 'n/a');
  const side = (name: StreamSide) => figures[name].steady;
  const lines = [
    `Event stream, commit -> arrival at ${options.rate} events/s, ${rounds.steady.stream.length} × ${options.seconds} s each side, alternating: GET /v1/events/stream ${side('stream').events} events (${side('stream').missing} not arrived), p50 ${ms(side('stream').p50)} ms, p99 ${ms(side('stream').p99)} ms, max ${ms(side('stream').max)} ms; bare LISTEN + findWebhookEventsSince ${side('bare').events} events (${side('bare').missing} not arrived), p50 ${ms(side('bare').p50)} ms, p99 ${ms(side('bare').p99)} ms, max ${ms(side('bare').max)} ms`,
  ];
  for (const [n, stream] of rounds.bursts.stream.entries()) {
    const bare = rounds.bursts.bare[n] as StreamBurstRun;
    const of = (run: StreamBurstRun) =>
      run.arrived < run.events
        ? `STALLED: ${run.arrived} of ${run.events} arrived (the last ${ms(run.allMs)} ms after the commit, none in the 3 s after; the server used ${run.serverCpuMs.toFixed(0)} ms of CPU meanwhile)`
        : `all ${run.events} in ${ms(run.allMs)} ms (${run.rate.toFixed(0)} events/s)`;
    lines.push(`Event stream burst round ${n + 1}: stream ${of(stream)}; bare ${of(bare)}`);
  }
  return lines;
}

/** The rows of bench/all.ts's table. */
export function streamRows(
  rounds: StreamRounds,
  options: { rate: number; burst: number },
): Array<[string, string, string, string]> {
  const { stream, bare, burstRatio } = streamFigures(rounds);
  const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : 'n/a');
  const burst = options.burst.toLocaleString('en');
  const stalled = stream.burst.stalled;
  // Percentiles of the events that arrived; a stream that lost some says so beside them.
  const lost = stream.steady.missing
    ? ` (${stream.steady.missing} of ${stream.steady.events} never arrived)`
    : '';
  return [
    [
      `Event stream, commit -> arrival p50 at ${options.rate} events/s (ms; ceiling: LISTEN/NOTIFY-woken reader running the stream's query)`,
      `${ms(stream.steady.p50)}${lost}`,
      ms(bare.steady.p50),
      (stream.steady.p50 / bare.steady.p50).toFixed(1),
    ],
    [
      `Event stream, commit -> arrival p99 at ${options.rate} events/s (ms; ceiling: the same reader)`,
      `${ms(stream.steady.p99)}${lost}`,
      ms(bare.steady.p99),
      (stream.steady.p99 / bare.steady.p99).toFixed(1),
    ],
    [
      `Event stream, a burst of ${burst} events in one commit, until all arrived (events/s; ceiling: the same reader; ratio: median of the rounds')`,
      stalled.length
        ? `stalled ${stalled.length}/${rounds.bursts.stream.length} (${Math.max(...stalled.map((r) => r.arrived))} of ${burst})`
        : stream.burst.rate.toFixed(0),
      bare.burst.rate.toFixed(0),
      stalled.length ? 'n/a' : burstRatio.toFixed(2),
    ],
  ];
}

async function main() {
  const adminUrl = process.env.SIGNET_BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
  const seconds = Number(process.env.SIGNET_BENCH_SECONDS ?? 5);
  const rounds = Number(process.env.SIGNET_BENCH_ROUNDS ?? 3);
  const rate = Number(process.env.SIGNET_BENCH_STREAM_RATE ?? 50);
  const burst = Number(process.env.SIGNET_BENCH_STREAM_BURST ?? 2000);
  const iterations = Number(process.env.SIGNET_BENCH_ROTATION_ITERATIONS ?? 20_000);
  const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);

  const started = Date.now();
  const bench = await startStreamBench({ adminUrl });
  let measured: StreamRounds;
  let payload: string;
  try {
    measured = await runStreamRounds(bench, { rate, seconds, burst, rounds }, progress);
    payload = await bench.samplePayload();
  } finally {
    await bench.close();
  }
  progress('secret rotation: a signed request with one secret and with two');
  const rotation = measureRotation({ payload, rounds, iterations });

  console.log(`\nGET /v1/events/stream on PostgreSQL (signet serve --role api), reader in its own process\n`);
  for (const line of streamDetails(measured, { rate, seconds, burst })) console.log(line);
  console.log(rotationDetails(rotation));
  console.log('\n| Figure | Measured | Ceiling (same run) | Ratio |');
  console.log('|---|---:|---:|---:|');
  for (const [figure, value, ceiling, ratio] of streamRows(measured, { rate, burst }))
    console.log(`| ${figure} | ${value} | ${ceiling} | ${ratio} |`);
  console.log(
    `| Signing during a rotation's overlap, two secrets (us per request built; ceiling: one secret) | ${rotation.two.toFixed(2)} | ${rotation.one.toFixed(2)} | ${rotation.ratio.toFixed(2)} |`,
  );
  console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

if (import.meta.main) await main();
