// `npm run bench:webhooks-db`: the delivery engine's database work alone, without HTTP:
// bursts of events committed to the outbox, then fanned out and claimed, and recorded as
// delivered, in batches the size the dispatcher uses under load; PostgreSQL's CPU, this
// process's CPU and the WAL written, per event.
//
// Env: SIGNET_BENCH_POSTGRES_URL, SIGNET_BENCH_BURST (10000), SIGNET_BENCH_ROUNDS (5),
// SIGNET_BENCH_CLAIM (512 deliveries a claim), SIGNET_BENCH_RECORD (256 successes a record).
import { loadConfig } from '../src/config.ts';
import { createContext, createLogger } from '../src/context.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { findFullDocument } from '../src/documents/documents.repository.ts';
import { recordDocumentEvent } from '../src/documents/events.ts';
import { fanOutAndClaim } from '../src/webhooks/claims.repository.ts';
import { recordSuccesses } from '../src/webhooks/outcomes.ts';
import {
  benchDatabase,
  createBenchScene,
  postgresProcesses,
  processCpuMs,
  vacuumEngineTables,
  walPosition,
} from './webhook-setup.ts';

const adminUrl = process.env.SIGNET_BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
const burst = Number(process.env.SIGNET_BENCH_BURST ?? 10_000);
const roundCount = Number(process.env.SIGNET_BENCH_ROUNDS ?? 5);
const claimSize = Number(process.env.SIGNET_BENCH_CLAIM ?? 512);
const recordSize = Number(process.env.SIGNET_BENCH_RECORD ?? 256);
const database = benchDatabase(adminUrl);
const databaseUrl = database.url;

/** CPU (ms) used so far by PostgreSQL's processes, read from /proc (Linux). */
function postgresCpuMs(): number {
  let total = 0;
  for (const { pid } of postgresProcesses()) {
    const used = processCpuMs(pid);
    if (used) total += used.user + used.system;
  }
  return total;
}

await database.create();
const handle = await openDatabase({ url: databaseUrl, dataDir: null });
try {
  await migrateToLatest(handle.db);
  const ctx = await createContext(loadConfig({ SIGNET_WEBHOOK_ALLOW_UNSAFE: '1' }), handle.db, {
    log: createLogger('warn'),
  });
  const { workspace, documentId } = await createBenchScene(ctx, 'http://127.0.0.1:9/hooks');
  const document = await findFullDocument(ctx.db, workspace.id, documentId);
  if (!document) throw new Error('bench document missing');
  const walBytes = async () => (await walPosition(ctx.db)).lsn;
  const result = {
    ok: true,
    statusCode: 200,
    errorClass: null,
    address: '127.0.0.1',
    durationMs: 1,
    responseBody: 'ok',
  };

  console.log(
    `\nwebhook engine, database work only: bursts of ${burst} events, one endpoint, claims of ${claimSize}, records of ${recordSize}\n`,
  );
  for (let round = 0; round < roundCount; round++) {
    for (let done = 0; done < burst; done += 50) {
      await ctx.db.transaction().execute(async (trx) => {
        for (let i = 0; i < 50; i++) {
          await recordDocumentEvent(trx, ctx, {
            document,
            type: 'document.opened',
            recipient: null,
            at: ctx.clock.now(),
          });
        }
      });
    }
    await vacuumEngineTables(ctx.db);
    const wal = await walBytes();
    const postgres = postgresCpuMs();
    const cpu = process.cpuUsage();
    const started = Date.now();
    let delivered = 0;
    for (;;) {
      const now = ctx.clock.now();
      const fanned = await fanOutAndClaim(ctx.db, {
        now,
        until: new Date(now.getTime() + 20_000),
        events: claimSize,
        claim: claimSize,
        caps: { perEndpoint: claimSize, endpoints: [] },
      });
      if (fanned.events === 0) break;
      for (let i = 0; i < fanned.claimed.length; i += recordSize) {
        const batch = fanned.claimed.slice(i, i + recordSize);
        await recordSuccesses(
          ctx,
          batch.map((delivery) => ({ delivery, startedAt: now, result })),
        );
      }
      delivered += fanned.claimed.length;
    }
    const ms = Date.now() - started;
    const own = process.cpuUsage(cpu);
    const postgresUs = ((postgresCpuMs() - postgres) * 1000) / delivered;
    const walPerEvent = Number((await walBytes()) - wal) / delivered;
    console.log(
      `  round ${round + 1}: ${delivered} events in ${ms} ms; per event: PostgreSQL ${postgresUs.toFixed(0)} us, ` +
        `this process ${((own.user + own.system) / delivered).toFixed(0)} us, WAL ${walPerEvent.toFixed(0)} bytes`,
    );
  }
} finally {
  await handle.close();
  await database.drop();
}
