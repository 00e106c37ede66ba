// The database kinds under test and the PostgreSQL server's address, read from the
// environment; a module of its own so test/run.ts has them without loading the app.
import type { DatabaseKind } from '../../src/db/handle.ts';

export const postgresAdminUrl = process.env.SIGNET_TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';

export const databaseKinds = (process.env.SIGNET_TEST_DATABASES ?? 'pglite,postgres')
  .split(',')
  .map((kind) => kind.trim())
  .filter((kind): kind is DatabaseKind => kind === 'pglite' || kind === 'postgres');
