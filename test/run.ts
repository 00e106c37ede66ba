// `npm test`: the whole suite on every database kind under test (default: PGlite and the
// PostgreSQL server at SIGNET_TEST_POSTGRES_URL). For PostgreSQL it migrates one template
// database first, so each test file clones a fresh database from it in milliseconds, and
// drops the template (and anything a crashed file left behind) at the end. For PGlite it
// migrates one in-memory database and dumps its data folder to a temporary file, which every
// suite's PGlite opens instead of running initdb and the migrations again (about 0.2 s
// instead of 1.7 s each); the file is removed at the end.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { BackendMutex, createPGliteDialect } from '../src/db/pglite-dialect.ts';
import { pgliteCodecs } from '../src/db/pglite-folder.ts';
import type { Database } from '../src/db/schema.ts';
import { databaseKinds, postgresAdminUrl } from './harness.ts';

const testDir = import.meta.dirname;
const requested = process.argv.slice(2);
const files = requested.length
  ? requested
  : readdirSync(testDir)
      .filter((name) => name.endsWith('.test.ts'))
      .sort()
      .map((name) => join(testDir, name));

async function admin(query: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresAdminUrl });
  await client.connect();
  await client.query(query).finally(() => client.end());
}

const runId = randomUUID().replaceAll('-', '').slice(0, 10);
const template = `signet_template_${runId}`;
const databasePrefix = `signet_test_${runId}_`;
const usesPostgres = databaseKinds.includes('postgres');
if (usesPostgres) {
  await admin(`create database ${template}`);
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${template}`;
  const handle = await openDatabase({ url: url.toString(), dataDir: null, poolSize: 1 });
  await migrateToLatest(handle.db);
  await handle.close();
}

let pgliteSnapshotDir: string | null = null;
let pgliteSnapshot = '';
if (databaseKinds.includes('pglite')) {
  pgliteSnapshotDir = mkdtempSync(join(tmpdir(), 'signet-test-pglite-'));
  pgliteSnapshot = join(pgliteSnapshotDir, 'migrated.tar');
  const pglite = await PGlite.create(pgliteCodecs);
  const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite, new BackendMutex()) });
  await migrateToLatest(db);
  await pglite.exec('checkpoint');
  const image = await pglite.dumpDataDir('none');
  writeFileSync(pgliteSnapshot, Buffer.from(await image.arrayBuffer()));
  await db.destroy();
  await pglite.close();
}

// --conditions=@signet/source: workspace packages (@signet/client) load from their TypeScript
// source (the project's own condition: a consumer's `development` gets the built files).
const child = spawn(
  process.execPath,
  ['--conditions=@signet/source', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      SIGNET_TEST_PG_TEMPLATE: usesPostgres ? template : '',
      SIGNET_TEST_PG_PREFIX: databasePrefix,
      SIGNET_TEST_PGLITE_SNAPSHOT: pgliteSnapshot,
    },
  },
);
const code: number = await new Promise((resolve) =>
  child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))),
);

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
