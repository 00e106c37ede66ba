// What bench:webhooks and bench:webhooks-db share: a fresh database, the workspace,
// endpoint and document whose events they deliver (the same bodies in both), the
// stand-in for autovacuum, and the measures: WAL position and CPU read from /proc.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import type { Context } from '../src/context.ts';
import type { Database } from '../src/db/schema.ts';
import { createDocument } from '../src/sending/drafts.ts';
import { createEndpoint } from '../src/webhooks/endpoints.service.ts';
import { createWorkspace } from '../src/workspaces/workspaces.service.ts';

/**
 * Now, in milliseconds since the epoch, to a fraction of a millisecond: the same clock in
 * every process of a bench (the receiver's arrivals are compared with commit times taken
 * here), finer than Date.now()'s whole milliseconds. bench/receiver.ts has its own copy.
 */
export const epochMs = () => performance.timeOrigin + performance.now();

/** A fresh database's name and URL on the server of `adminUrl`, and admin statements there. */
export function benchDatabase(adminUrl: string) {
  const name = `signet_bench_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(text).finally(() => client.end());
  };
  return {
    name,
    url: Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString(),
    create: () => admin(`create database ${name}`),
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}

/** One priced document of the workspace, the body of every bench event. */
export async function createBenchDocument(ctx: Context, workspaceId: string): Promise<string> {
  const { id } = await createDocument(ctx, {
    workspaceId,
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
    pricing: {
      currency: 'EUR',
      pricesIncludeVat: false,
      items: [{ name: 'Work', quantity: '1', unitPrice: '100', vatRate: '21', billing: { type: 'one-off' } }],
    },
  });
  return id;
}

/** One Max workspace, one endpoint at `url` for document.opened, one priced document. */
export async function createBenchScene(ctx: Context, url: string) {
  const workspace = await createWorkspace(ctx, { name: 'Bench', plan: 'max' });
  const endpoint = await createEndpoint(ctx, workspace.id, { url, events: ['document.opened'] });
  const documentId = await createBenchDocument(ctx, workspace.id);
  return { workspace, endpoint, documentId };
}

/**
 * What autovacuum does between bursts on a server where it is on (the default; the
 * PostgreSQL of this project's machines runs with it off): dead rows of the last burst
 * cleared, statistics brought up to date (so prepared statements are planned for the
 * tables' real size). Run while nothing is measured; its CPU is in no figure.
 */
export async function vacuumEngineTables(db: Kysely<Database>) {
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

/** Where the WAL ends (bytes) and how many checkpoints have run: the database's write volume. */
export async function walPosition(db: Kysely<Database>): Promise<{ lsn: bigint; checkpoints: number }> {
  const result = await sql<{ lsn: string; checkpoints: number }>`
    select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as lsn,
           (select (checkpoints_timed + checkpoints_req)::int from pg_stat_bgwriter) as checkpoints
  `.execute(db);
  const row = result.rows[0] as { lsn: string; checkpoints: number };
  return { lsn: BigInt(row.lsn.split('.')[0] as string), checkpoints: row.checkpoints };
}

/**
 * CPU time (ms, user and system) a process has used so far, read from /proc (Linux);
 * null when it cannot be read.
 */
export function processCpuMs(pid: number): { user: number; system: number } | null {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th,
    // in ticks of 10 ms (USER_HZ is 100 on Linux).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
  } catch {
    return null;
  }
}

/** PostgreSQL's processes on this machine, autovacuum workers marked (throws without /proc). */
export function postgresProcesses(): Array<{ pid: number; autovacuum: boolean }> {
  const found: Array<{ pid: number; autovacuum: boolean }> = [];
  for (const name of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() !== 'postgres') continue;
      const autovacuum = readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('autovacuum worker');
      found.push({ pid: Number(name), autovacuum });
    } catch {}
  }
  return found;
}
