// `npm test`: the whole suite on every database kind under test (default: PGlite and the
// PostgreSQL server at SIGNET_TEST_POSTGRES_URL). For PostgreSQL it migrates one template
// database first, so each test file clones a fresh database from it in milliseconds, and
// drops the template (and anything a crashed file left behind) at the end.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
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
process.exit(code);
