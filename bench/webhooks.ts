// `npm run bench:webhooks`: the delivery engine on PostgreSQL, measured side by side with
// a bare undici loop posting the same signed payloads to the same local receiver.
//  1. Latency: events committed at a steady 200/s for 10 s; for each, the time from its
//     commit to the arrival of its first attempt at the receiver (p50, p99).
//  2. Throughput: in interleaved rounds (after two uncounted warm-up rounds), a bare undici
//     loop posts a burst's payloads, then the workers, paused meanwhile, fan the burst
//     (waiting in the outbox) out and deliver it; events per second against requests per
//     second, the median of the rounds, with the CPU per event (and the kernel's part of it)
//     that the workers, PostgreSQL (its autovacuum apart) and the receiver used (and the
//     receiver's per request of the bare loop, beside it), and the WAL written per event
//     (the database's write volume, steadier than CPU here).
// The worker is the real `signet serve --role worker` in its own process. Asserts nothing.
//
// Env: SIGNET_BENCH_POSTGRES_URL, SIGNET_BENCH_RATE (200), SIGNET_BENCH_SECONDS (10),
// SIGNET_BENCH_BURST (10000), SIGNET_BENCH_ROUNDS (5), SIGNET_BENCH_CONCURRENCY (32),
// SIGNET_BENCH_WORKERS (1), SIGNET_BENCH_PROFILE (CPU profiles of the workers).
//
// The measuring parts are exported for `npm run bench` (bench/all.ts): startWebhookBench()
// sets the scene up and returns the measures; importing this file runs nothing.
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { sql } from 'kysely';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.ts';
import { type Context, createContext, createLogger } from '../src/context.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { findFullDocument } from '../src/documents/documents.repository.ts';
import { recordDocumentEvent } from '../src/documents/events.ts';
import { signatureHeader } from '../src/webhooks/signature.ts';
import { benchSealKey } from './api.ts';
import {
  benchDatabase,
  createBenchScene,
  epochMs,
  postgresProcesses,
  processCpuMs,
  vacuumEngineTables,
  walPosition,
} from './webhook-setup.ts';

const root = join(import.meta.dirname, '..');

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/** Asks the receiver something over IPC (one question at a time). */
function askReceiver<T>(receiver: ChildProcess, type: 'arrivals' | 'count'): Promise<T> {
  return new Promise((resolve) => {
    receiver.once('message', (message: T) => resolve(message));
    receiver.send({ type });
  });
}

const askArrivals = async (receiver: ChildProcess) =>
  (await askReceiver<{ arrivals: Array<[string, number]> }>(receiver, 'arrivals')).arrivals;

/**
 * Waits until `expected` distinct events have arrived (or the time is up) and adds their
 * arrival times to `into`. Meanwhile it asks only for a count: the list itself, sent over
 * IPC while the engine works, cost the receiver and this process CPU on the cores being
 * measured (the bare loop is never polled while it runs).
 */
async function waitForArrivals(
  receiver: ChildProcess,
  expected: number,
  into: Map<string, number>,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { count } = await askReceiver<{ count: number }>(receiver, 'count');
    if (into.size + count >= expected || Date.now() >= deadline) {
      for (const [id, at] of await askArrivals(receiver)) if (!into.has(id)) into.set(id, at);
      if (into.size >= expected || Date.now() >= deadline) return into;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Commits `count` events, `perTransaction` at a time; returns each event id with its commit time. */
export async function commitEvents(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  count: number,
  perTransaction: number,
) {
  const document = await findFullDocument(ctx.db, workspaceId, documentId);
  if (!document) throw new Error('bench document missing');
  const committed: Array<[string, number]> = [];
  for (let done = 0; done < count; done += perTransaction) {
    const ids = await ctx.db.transaction().execute(async (trx) => {
      const batch: string[] = [];
      for (let i = 0; i < Math.min(perTransaction, count - done); i++) {
        const event = await recordDocumentEvent(trx, ctx, {
          document,
          type: 'document.opened',
          recipient: null,
          at: ctx.clock.now(),
        });
        batch.push(event.id);
      }
      return batch;
    });
    const at = epochMs();
    for (const id of ids) committed.push([id, at]);
  }
  return committed;
}

type Role = 'worker' | 'postgres' | 'autovacuum' | 'receiver';
type CpuSnapshot = Map<number, { role: Role; user: number; system: number }>;

/** CPU used between two snapshots, by role (a process that exited meanwhile is not counted). */
function cpuUsed(before: CpuSnapshot, after: CpuSnapshot) {
  const used = new Map<Role, { user: number; system: number }>();
  for (const [pid, now] of after) {
    const then = before.get(pid) ?? { user: 0, system: 0 };
    const sum = used.get(now.role) ?? { user: 0, system: 0 };
    used.set(now.role, {
      user: sum.user + now.user - then.user,
      system: sum.system + now.system - then.system,
    });
  }
  return used;
}

/** Sleeps until `due` (epoch ms), if it is still ahead. */
async function until(due: number) {
  const wait = due - epochMs();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

export interface WebhookBenchOptions {
  adminUrl: string;
  /** Attempts in flight, in all (the bare loop's connections). */
  concurrency: number;
  /** `signet serve --role worker` processes, sharing `concurrency`. */
  workerCount: number;
  /** CPU profiles of the workers into /tmp/signet-worker-profile. */
  profile?: boolean;
}

/** Latencies (ms) from each event's commit (or the bare loop's timestamp) to its arrival. */
export interface SteadyRun {
  events: number;
  seconds: number;
  latencies: number[];
  missing: number;
}

export type ThroughputRound = Awaited<ReturnType<WebhookBench['throughputRound']>>;
export type WebhookBench = Awaited<ReturnType<typeof startWebhookBench>>;

/**
 * The scene of the webhook benches: a fresh database, the receiver in its own process, a
 * Max workspace with one endpoint at the receiver, and the workers running (warmed up by
 * 200 events). Returns the measures; close() stops everything and drops the database.
 */
export async function startWebhookBench(options: WebhookBenchOptions) {
  const { concurrency, workerCount } = options;
  const database = benchDatabase(options.adminUrl);
  await database.create();
  const handle = await openDatabase({ url: database.url, dataDir: null, poolSize: 4 });
  const receiver = fork(join(import.meta.dirname, 'receiver.ts'), {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const receiverPid = receiver.pid ?? 0;
  let workers: ChildProcess[] = [];

  /**
   * CPU time (ms, user and system) used so far by the worker, the receiver and each
   * PostgreSQL process, read from /proc (Linux; null elsewhere): where the burst's CPU goes.
   */
  function cpuSnapshot(): CpuSnapshot | null {
    const snapshot: CpuSnapshot = new Map();
    const read = (pid: number, role: Role) => {
      const used = processCpuMs(pid);
      if (used) snapshot.set(pid, { role, ...used });
    };
    try {
      // PostgreSQL's own housekeeping of the tables the burst churned, apart.
      for (const { pid, autovacuum } of postgresProcesses())
        read(pid, autovacuum ? 'autovacuum' : 'postgres');
    } catch {
      return null;
    }
    for (const worker of workers) if (worker.pid) read(worker.pid, 'worker');
    read(receiverPid, 'receiver');
    return snapshot;
  }

  /**
   * The real `signet serve --role worker`, in processes of their own: `workerCount` of
   * them, sharing the concurrency of the bare loop between them.
   */
  async function startWorkers() {
    workers = Array.from({ length: workerCount }, (_, i) =>
      spawn(
        process.execPath,
        [
          ...(options.profile ? ['--cpu-prof', '--cpu-prof-dir=/tmp/signet-worker-profile'] : []),
          'src/main.ts',
          'serve',
          '--role',
          'worker',
        ],
        {
          cwd: root,
          env: {
            ...process.env,
            DATABASE_URL: database.url,
            SIGNET_SEAL_KEY: benchSealKey,
            LOG_LEVEL: 'error',
            SIGNET_WEBHOOK_ALLOW_UNSAFE: '1',
            SIGNET_WEBHOOK_CONCURRENCY: String(Math.ceil((concurrency - i) / workerCount)),
            SIGNET_WEBHOOK_ENDPOINT_CONCURRENCY: String(Math.ceil((concurrency - i) / workerCount)),
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      ),
    );
    await Promise.all(
      workers.map(
        (started) =>
          new Promise<void>((resolve) =>
            started.stdout?.on('data', (chunk) => String(chunk).includes('worker is running') && resolve()),
          ),
      ),
    );
  }

  async function stopWorkers() {
    const stopping = workers;
    workers = [];
    for (const worker of stopping) worker.kill('SIGTERM');
    await Promise.all(
      stopping.map((worker) =>
        worker.exitCode === null && worker.signalCode === null ? once(worker, 'exit') : null,
      ),
    );
  }

  let closed = false;
  async function close() {
    if (closed) return;
    closed = true;
    await stopWorkers();
    if (receiver.connected) receiver.send({ type: 'stop' });
    await handle.close();
    await database.drop();
  }

  try {
    await migrateToLatest(handle.db);
    const ctx = await createContext(loadConfig({ SIGNET_WEBHOOK_ALLOW_UNSAFE: '1' }), handle.db, {
      log: createLogger('warn'),
    });
    const [{ port }] = (await once(receiver, 'message')) as [{ port: number }];
    const url = `http://127.0.0.1:${port}/hooks`;

    const { workspace, endpoint, documentId } = await createBenchScene(ctx, url);

    await startWorkers();

    // Warm-up: JIT, connections, prepared statements.
    const warm = await commitEvents(ctx, workspace.id, documentId, 200, 10);
    await waitForArrivals(receiver, warm.length, new Map(), 30_000);
    // An event body as the engine sends it, for the bare loop's steady posts.
    const sample = await handle.db
      .selectFrom('webhook_events')
      .select('payload')
      .where('id', '=', warm[0]?.[0] ?? '')
      .executeTakeFirstOrThrow();

    /** The receiver's CPU time so far (ms, user and system; NaN where /proc cannot be read). */
    const receiverCpuMs = () => {
      const used = processCpuMs(receiverPid);
      return used ? used.user + used.system : Number.NaN;
    };

    /** One signed POST to the receiver, as the engine sends it; resolves when answered. */
    async function post(dispatcher: Agent, body: string) {
      const timestamp = new Date().toISOString();
      const response = await request(url, {
        method: 'POST',
        dispatcher,
        body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Service-Webhooks/1.0',
          'x-service-event': 'document.opened',
          'x-service-delivery-id': randomUUID(),
          'x-service-signature': signatureHeader(endpoint.secret, timestamp, body),
        },
      });
      await response.body.dump();
    }

    /** The baseline: the same payloads posted by a bare undici loop; rate and CPU per request. */
    async function bareLoop(payloads: string[]) {
      const dispatcher = new Agent({ connections: concurrency });
      let next = 0;
      const started = Date.now();
      const cpu = process.cpuUsage();
      const receiverBefore = receiverCpuMs();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < payloads.length) await post(dispatcher, payloads[next++] as string);
        }),
      );
      const { user, system } = process.cpuUsage(cpu);
      const receiverUsed = receiverCpuMs() - receiverBefore;
      const rate = payloads.length / ((Date.now() - started) / 1000);
      await dispatcher.close();
      await askArrivals(receiver);
      return {
        rate,
        cpuMicrosPerRequest: (user + system) / payloads.length,
        kernelMicrosPerRequest: system / payloads.length,
        // The receiver's CPU per request of the bare loop, to set beside its CPU per event of
        // the engine's: the same requests should cost it the same.
        receiverMicrosPerRequest: (receiverUsed * 1000) / payloads.length,
      };
    }

    return {
      workerCount,
      concurrency,
      stopWorkers,
      close,

      /**
       * Latency at a steady rate: one event per transaction, spaced 1/rate apart, for
       * `seconds`; for each, the time from its commit to its first attempt's arrival.
       */
      async steady(rate: number, seconds: number): Promise<SteadyRun> {
        const steady: Array<[string, number]> = [];
        const started = epochMs();
        for (let i = 0; i < rate * seconds; i++) {
          await until(started + (i * 1000) / rate);
          steady.push(...(await commitEvents(ctx, workspace.id, documentId, 1, 1)));
        }
        const steadySeconds = (epochMs() - started) / 1000;
        const arrivals = await waitForArrivals(receiver, steady.length, new Map(), 60_000);
        const latencies = steady.map(([id, committedAt]) => (arrivals.get(id) ?? Number.NaN) - committedAt);
        return {
          events: steady.length,
          seconds: steadySeconds,
          latencies: latencies.filter(Number.isFinite),
          missing: latencies.filter(Number.isNaN).length,
        };
      },

      /**
       * The ceiling of steady(): the same receiver hit at the same rate by a bare undici
       * loop, each request sent right after a timestamp taken in this process (an event body
       * as the engine sends it, signed the same way, under a fresh id); the time from that
       * timestamp to the request's arrival. Open loop: a slow answer delays no later send.
       */
      async bareSteady(rate: number, seconds: number): Promise<SteadyRun> {
        const dispatcher = new Agent({ connections: concurrency });
        const sent: Array<[string, number]> = [];
        const posts: Array<Promise<void>> = [];
        const started = epochMs();
        for (let i = 0; i < rate * seconds; i++) {
          await until(started + (i * 1000) / rate);
          const id = randomUUID();
          sent.push([id, epochMs()]);
          posts.push(post(dispatcher, JSON.stringify({ ...(sample.payload as object), id })));
        }
        const steadySeconds = (epochMs() - started) / 1000;
        await Promise.all(posts);
        await dispatcher.close();
        const arrivals = await waitForArrivals(receiver, sent.length, new Map(), 60_000);
        const latencies = sent.map(([id, at]) => (arrivals.get(id) ?? Number.NaN) - at);
        return {
          events: sent.length,
          seconds: steadySeconds,
          latencies: latencies.filter(Number.isFinite),
          missing: latencies.filter(Number.isNaN).length,
        };
      },

      /**
       * One throughput round. The burst waits in the outbox while the workers are paused
       * (SIGSTOP: committing it is the generator's cost, not the engine's, and the workers
       * stay warm, as the bare loop does); a bare undici loop posts the same payloads (the
       * outbox bodies), signed the same way, at the same concurrency, to the same receiver;
       * then the workers resume (SIGCONT), fan the burst out and deliver it, the rate taken
       * between the first and the last arrival.
       */
      async throughputRound(burst: number) {
        for (const worker of workers) worker.kill('SIGSTOP');
        const burstEvents = await commitEvents(ctx, workspace.id, documentId, burst, 50);
        await vacuumEngineTables(handle.db);
        const payloads = (
          await handle.db
            .selectFrom('webhook_events')
            .select('payload')
            .where(
              'id',
              'in',
              burstEvents.map(([id]) => id),
            )
            .execute()
        ).map((row) => JSON.stringify(row.payload));
        const bare = await bareLoop(payloads);

        const walBefore = await walPosition(handle.db);
        const cpuBefore = cpuSnapshot();
        const resumedAt = epochMs();
        for (const worker of workers) worker.kill('SIGCONT');
        const burstArrivals = await waitForArrivals(receiver, burstEvents.length, new Map(), 120_000);
        const cpuAfter = cpuSnapshot();
        const walAfter = await walPosition(handle.db);
        const times = [...burstArrivals.values()];
        const signet = (burstArrivals.size - 1) / ((Math.max(...times) - Math.min(...times)) / 1000);
        const cpu = cpuBefore && cpuAfter ? cpuUsed(cpuBefore, cpuAfter) : null;
        if (cpu)
          for (const [role, used] of cpu)
            cpu.set(role, { user: used.user / burstArrivals.size, system: used.system / burstArrivals.size });
        return {
          signet,
          // Not in the rate: the workers waking up and the burst's first claim.
          firstArrivalMs: Math.round(Math.min(...times) - resumedAt),
          bare: bare.rate,
          bareCpu: bare.cpuMicrosPerRequest,
          bareKernel: bare.kernelMicrosPerRequest,
          bareReceiver: bare.receiverMicrosPerRequest,
          cpu,
          walBytes: Number(walAfter.lsn - walBefore.lsn) / burstArrivals.size,
          checkpoints: walAfter.checkpoints - walBefore.checkpoints,
        };
      },

      /** Attempts recorded, and the failed ones by error class and status (with why). */
      async attempts() {
        const attempts = await sql<{ n: number }>`select count(*)::int as n from webhook_attempts`.execute(
          handle.db,
        );
        const failed = await sql<{ error_class: string; status_code: number | null; n: number }>`
          select error_class, status_code, count(*)::int as n from webhook_attempts
          where error_class is not null group by 1, 2 order by 3 desc
        `.execute(handle.db);
        return {
          recorded: attempts.rows[0]?.n ?? 0,
          failures: failed.rows.map(
            (r) => `${r.n} ${r.error_class}${r.status_code ? ` ${r.status_code}` : ''}`,
          ),
        };
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function main() {
  const adminUrl = process.env.SIGNET_BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
  const rate = Number(process.env.SIGNET_BENCH_RATE ?? 200);
  const seconds = Number(process.env.SIGNET_BENCH_SECONDS ?? 10);
  const burst = Number(process.env.SIGNET_BENCH_BURST ?? 10_000);
  const concurrency = Number(process.env.SIGNET_BENCH_CONCURRENCY ?? 32);
  const workerCount = Number(process.env.SIGNET_BENCH_WORKERS ?? 1);
  const roundCount = Number(process.env.SIGNET_BENCH_ROUNDS ?? 5);

  const bench = await startWebhookBench({
    adminUrl,
    concurrency,
    workerCount,
    profile: Boolean(process.env.SIGNET_BENCH_PROFILE),
  });
  try {
    // 1. Latency at a steady rate.
    const steady = await bench.steady(rate, seconds);
    const latencies = steady.latencies.map(Math.round);

    // 2. Throughput, in interleaved rounds (the machine's speed drifts; each round measures
    // both sides within seconds of each other). Two first rounds warm both sides up (JIT,
    // heap, connections, the large-batch paths the latency phase does not reach) and are
    // not counted: either side measured a round still short of its pace.
    const warmUp = [await bench.throughputRound(burst), await bench.throughputRound(burst)];
    const rounds: ThroughputRound[] = [];
    for (let round = 0; round < roundCount; round++) rounds.push(await bench.throughputRound(burst));

    await bench.stopWorkers(); // they write the outcomes they still hold as they stop
    const attempts = await bench.attempts();
    console.log(
      `\nwebhook engine on PostgreSQL: ${workerCount} worker process(es) (concurrency ${concurrency} in all), receiver in its own process\n`,
    );
    console.log(
      `steady ${rate} events/s for ${steady.seconds.toFixed(1)} s: ${steady.events} events, ${steady.missing} not delivered`,
    );
    console.log(
      `  event commit -> first attempt received: p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${Math.max(...latencies)} ms   (target p99 <= 250 ms)`,
    );
    console.log(
      `bursts of ${burst} events waiting in the outbox, ${roundCount} rounds (bare loop, then the paused workers resumed):`,
    );
    console.log(
      `  warm-up rounds, not counted: signet ${warmUp.map((r) => r.signet.toFixed(0)).join(', ')} events/s, bare ${warmUp.map((r) => r.bare.toFixed(0)).join(', ')} requests/s`,
    );
    const us = (ms: number) => `${(ms * 1000).toFixed(0)} us`;
    for (const [n, r] of rounds.entries()) {
      const cpu = r.cpu
        ? (['worker', 'postgres', 'autovacuum', 'receiver'] as const)
            .map((role) => {
              const { user, system } = r.cpu?.get(role) ?? { user: 0, system: 0 };
              return `${role} ${us(user + system)} (kernel ${us(system)})`;
            })
            .join(', ')
        : 'n/a';
      console.log(
        `  round ${n + 1}: signet ${r.signet.toFixed(0)} events/s, bare ${r.bare.toFixed(0)} requests/s, ratio ${(r.signet / r.bare).toFixed(2)} (first delivery ${r.firstArrivalMs} ms after resuming); CPU per event: ${cpu}; WAL ${r.walBytes.toFixed(0)} bytes per event${r.checkpoints > 0 ? ` (a checkpoint ran)` : ''}; bare loop ${r.bareCpu.toFixed(0)} us per request (kernel ${r.bareKernel.toFixed(0)} us), its receiver ${r.bareReceiver.toFixed(0)} us`,
      );
    }
    const median = (values: number[]) => percentile(values, 50);
    const signetRate = median(rounds.map((r) => r.signet));
    const bareRate = median(rounds.map((r) => r.bare));
    console.log(`  signet fan-out + delivery:  ${signetRate.toFixed(0)} events/s (median of the rounds)`);
    console.log(`  bare undici loop:           ${bareRate.toFixed(0)} requests/s (median of the rounds)`);
    console.log(
      `  ratio signet / bare:        ${median(rounds.map((r) => r.signet / r.bare)).toFixed(2)} (median of the rounds' ratios)   (target >= 0.5)`,
    );
    // A first attempt that failed (and waits for its retry) shows here, with why.
    console.log(`attempts recorded: ${attempts.recorded}; failed: ${attempts.failures.join(', ') || 'none'}`);
  } finally {
    await bench.close();
  }
}

if (import.meta.main) await main();
