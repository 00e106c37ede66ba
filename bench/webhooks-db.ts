// `npm run bench:webhooks-db`: the database work of the delivery engine alone, per event,
// with no HTTP: bursts of events are committed, then fanned out and claimed
// (fanOutAndClaim, 256 events a statement) and recorded as delivered (recordSuccesses,
// 200 a batch), as a worker under load does. Prints, per burst, the CPU that PostgreSQL's
// backends and this process used per event and the WAL written per event: the steady
// measure of what a schema or query change saves, which the full benchmark's noise hides.
// Asserts nothing.
//
// Env: SIGNET_BENCH_POSTGRES_URL, SIGNET_BENCH_BURST (10000), SIGNET_BENCH_ROUNDS (5).
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { createContext, createLogger } from '../src/context.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import type { Database } from '../src/db/schema.ts';
import { findFullDocument } from '../src/documents/documents.repository.ts';
import { recordDocumentEvent } from '../src/documents/events.ts';
import { createDocument } from '../src/documents/signing.service.ts';
import { fanOutAndClaim } from '../src/webhooks/deliveries.repository.ts';
import { recordSuccesses } from '../src/webhooks/dispatcher.ts';
import { createEndpoint } from '../src/webhooks/endpoints.service.ts';
import { createWorkspace } from '../src/workspaces/workspaces.service.ts';

const adminUrl = process.env.SIGNET_BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
const burst = Number(process.env.SIGNET_BENCH_BURST ?? 10_000);
const roundCount = Number(process.env.SIGNET_BENCH_ROUNDS ?? 5);
const database = `signet_bench_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString();

async function admin(text: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(text).finally(() => client.end());
}

/** CPU (ms) used so far by PostgreSQL's processes, read from /proc (Linux). */
function postgresCpuMs(): number {
  let total = 0;
  for (const name of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() !== 'postgres') continue;
      const fields = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      total += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {}
  }
  return total;
}

/**
 * What autovacuum does between bursts on a server where it is on (the default; the
 * PostgreSQL of this project's machines runs with it off): dead rows of the last burst
 * cleared, statistics brought up to date (so prepared statements are planned for the
 * tables' real size). Run while nothing is measured; its CPU is in no figure.
 */
async function vacuumEngineTables(db: Kysely<Database>) {
  for (const table of [
    'outbox',
    'webhook_events',
    'webhook_deliveries',
    'webhook_attempts',
    'webhook_endpoints',
  ]) {
    await sql.raw(`vacuum (analyze) ${table}`).execute(db);
  }
}

await admin(`create database ${database}`);
const handle = await openDatabase({ url: databaseUrl, dataDir: null });
try {
  await migrateToLatest(handle.db);
  const ctx = await createContext(loadConfig({ SIGNET_WEBHOOK_ALLOW_UNSAFE: '1' }), handle.db, {
    log: createLogger('warn'),
  });
  const workspace = await createWorkspace(ctx, { name: 'Bench', plan: 'max' });
  await createEndpoint(ctx, workspace.id, { url: 'http://127.0.0.1:9/hooks', events: ['document.opened'] });
  const { id: documentId } = await createDocument(ctx, {
    workspaceId: workspace.id,
    title: 'Bench agreement',
    recipients: [
      {
        email: 'bench@x.example',
        fullName: 'Bench',
        role: 'signer',
        signingMethod: 'standard',
        signingOrder: 1,
      },
    ],
    // The same document as bench:webhooks, so the bodies are the same size.
    pricing: {
      currency: 'EUR',
      pricesIncludeVat: false,
      items: [{ name: 'Work', quantity: '1', unitPrice: '100', vatRate: '21', billing: { type: 'one-off' } }],
    },
  });
  const document = await findFullDocument(ctx.db, workspace.id, documentId);
  if (!document) throw new Error('bench document missing');
  const walBytes = async () =>
    BigInt(
      (
        await sql<{ lsn: string }>`select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as lsn`.execute(
          ctx.db,
        )
      ).rows[0]?.lsn.split('.')[0] ?? '0',
    );
  const result = {
    ok: true,
    statusCode: 200,
    errorClass: null,
    address: '127.0.0.1',
    durationMs: 1,
    responseBody: 'ok',
  };

  console.log(`\nwebhook engine, database work only: bursts of ${burst} events, one endpoint\n`);
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
        leaseUntil: new Date(now.getTime() + 20_000),
        events: 256,
        claim: 256,
        caps: { perEndpoint: 256, reduced: [] },
      });
      if (fanned.events === 0) break;
      for (let i = 0; i < fanned.claimed.length; i += 200) {
        const batch = fanned.claimed.slice(i, i + 200);
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
  await admin(`drop database if exists ${database} with (force)`);
}
