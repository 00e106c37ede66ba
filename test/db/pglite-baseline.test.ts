// A new embedded database made from the installation's baseline (db/pglite-baseline.ts) is
// the database initdb and every migration would have made: same tables, columns, indexes,
// constraints, functions and migrations recorded. Baselines made at once by two processes
// leave one, and a cache that cannot be written leaves the caller to create the database as
// before.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { baselineName, createFromBaseline, ensureBaseline } from '../../src/db/pglite-baseline.ts';
import { createPGliteDialect } from '../../src/db/pglite-dialect.ts';
import { pgliteExtensions } from '../../src/db/pglite-extensions.ts';

/** What a schema is made of, as text a test can compare. */
async function schemaOf(pglite: PGlite): Promise<unknown> {
  const rows = async (sql: string) => (await pglite.query(sql)).rows;
  return {
    columns: await rows(
      `select table_name, column_name, data_type, is_nullable, column_default from information_schema.columns
       where table_schema = 'public' order by table_name, column_name`,
    ),
    indexes: await rows(
      `select indexname, indexdef from pg_indexes where schemaname = 'public' order by indexname`,
    ),
    constraints: await rows(
      `select conrelid::regclass::text as on_table, conname, pg_get_constraintdef(oid) as definition
       from pg_constraint where connamespace = 'public'::regnamespace order by on_table, conname`,
    ),
    functions: await rows(
      `select proname, pg_get_functiondef(oid) as definition from pg_proc
       where pronamespace = 'public'::regnamespace order by proname`,
    ),
    migrations: await rows('select name from kysely_migration order by name'),
  };
}

describe('the embedded database baseline', () => {
  const dir = mkdtempSync(join(tmpdir(), 'signet-baseline-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a database copied from the baseline has the schema initdb and the migrations make', async () => {
    const cacheDir = join(dir, 'cache');
    const copied = join(dir, 'copied');
    assert.deepEqual(await createFromBaseline(copied, cacheDir), Object.keys(migrations));
    assert.deepEqual(readdirSync(dir).sort(), ['cache', 'copied']);
    const fromBaseline = await PGlite.create({ dataDir: copied, ...pgliteExtensions });
    const fromInitdb = await PGlite.create(pgliteExtensions);
    try {
      await migrateToLatest(new Kysely({ dialect: createPGliteDialect(fromInitdb) }));
      // The migrator, run on the copy as every start runs it, finds nothing to do.
      assert.deepEqual(await migrateToLatest(new Kysely({ dialect: createPGliteDialect(fromBaseline) })), []);
      const schema = (await schemaOf(fromBaseline)) as { migrations: Array<{ name: string }> };
      assert.deepEqual(
        schema.migrations.map((row) => row.name),
        Object.keys(migrations),
      );
      assert.deepEqual(schema, await schemaOf(fromInitdb));
    } finally {
      await fromBaseline.close();
      await fromInitdb.close();
    }
  });

  test('two processes making the baseline at once leave one, and nothing half made', async () => {
    const cacheDir = join(dir, 'race');
    const [a, b] = await Promise.all([ensureBaseline(cacheDir), ensureBaseline(cacheDir)]);
    assert.equal(a, b);
    assert.deepEqual(readdirSync(cacheDir), [baselineName()]);
    assert.ok(existsSync(join(a, 'PG_VERSION')));
  });

  test('a cache that cannot be written: no database is made, so the caller runs initdb', async () => {
    const blocked = join(dir, 'not-a-folder');
    writeFileSync(blocked, '');
    const pgdata = join(dir, 'fallback');
    assert.equal(await createFromBaseline(pgdata, join(blocked, 'cache')), null);
    assert.equal(existsSync(pgdata), false);
    assert.equal(existsSync(`${pgdata}.creating`), false);
  });
});
