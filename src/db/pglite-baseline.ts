// A new embedded database starts as a copy of a baseline instead of running initdb and every
// migration: a PGlite data folder at the latest schema, made once per installation (by
// `npm install`'s postinstall, or by the first new data folder that finds none) and kept in
// `node_modules/.cache/signet-pglite/`, like a PostgreSQL package runs initdb at install.
// initdb in WebAssembly was most of a first start (~1.6 s), and the migrations run on a
// new process's cold WebAssembly cost most of a second more; copying the result costs a
// tenth of that.
//
// A baseline is named by what made it: PGlite's version and the text of every migration
// file. A new migration or another PGlite is another name, so a baseline that no longer
// fits is never used: the next new data folder makes the current one (and removes the old).
// The migrator still runs after opening, as on every start; its table, copied with the rest,
// says which migrations the copy holds. When there is none and none can be made (a
// read-only installation, such as the container image), PGlite runs initdb in the data
// folder and the migrator applies every migration, as before.
//
//   node_modules/.cache/signet-pglite/
//     schema-<pglite version>-<hash>/      the baseline: a closed PGDATA folder
//     schema-*.building-<pid>-<random>/    one being made (renamed when complete)
//
// PostgreSQL servers (DATABASE_URL) never use it: their databases are migrated as before.
import { createHash, randomBytes } from 'node:crypto';
import {
  constants,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { migrateToLatest } from './migrate.ts';
import { migrations } from './migrations/index.ts';
import { createPGliteDialect } from './pglite-dialect.ts';
import { pgliteExtensions } from './pglite-extensions.ts';

const migrationsDir = join(import.meta.dirname, 'migrations');

/** The folder of the installed PGlite package (where its package.json is). */
function pglitePackageDir(): string {
  let dir = dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

/** The installation's cache: beside the node_modules that holds PGlite. */
export function defaultBaselineCacheDir(): string {
  const pglite = pglitePackageDir();
  // node_modules/@electric-sql/pglite -> node_modules
  return join(dirname(dirname(pglite)), '.cache', 'signet-pglite');
}

/** The baseline's name: PGlite's version and a hash of every migration file's text. */
export function baselineName(): string {
  const { version } = JSON.parse(readFileSync(join(pglitePackageDir(), 'package.json'), 'utf8')) as {
    version: string;
  };
  const hash = createHash('sha256');
  for (const file of readdirSync(migrationsDir).sort()) {
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(migrationsDir, file)))
      .update('\0');
  }
  return `schema-${version}-${hash.digest('hex').slice(0, 16)}`;
}

/**
 * The current baseline's folder, made now if missing (initdb and migrations, in a folder of
 * its own renamed into place when complete, so concurrent makers and readers never see half
 * of one; baselines of other names are removed then). Throws when it cannot be made;
 * callers fall back to initdb in the data folder.
 */
export async function ensureBaseline(cacheDir = defaultBaselineCacheDir()): Promise<string> {
  const name = baselineName();
  const baseline = join(cacheDir, name);
  if (existsSync(join(baseline, 'PG_VERSION'))) return baseline;
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const building = `${baseline}.building-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const pglite = await PGlite.create({ dataDir: building, ...pgliteExtensions });
    try {
      await migrateToLatest(new Kysely({ dialect: createPGliteDialect(pglite) }));
    } finally {
      await pglite.close();
    }
    try {
      renameSync(building, baseline);
    } catch (error) {
      // Another process made it first: theirs is as good.
      if (!existsSync(join(baseline, 'PG_VERSION'))) throw error;
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  for (const entry of readdirSync(cacheDir)) {
    const stale = entry !== name && !entry.includes('.building-');
    if (stale) rmSync(join(cacheDir, entry), { recursive: true, force: true });
  }
  return baseline;
}

/**
 * Creates `pgdata` (which must not exist) as a copy of the baseline: copied beside it, then
 * renamed, so a start cut short leaves no half database. Returns the migrations the new
 * database holds (every one), or null when no baseline can be had: the caller then lets
 * PGlite create the database (initdb) and the migrator apply them.
 */
export async function createFromBaseline(pgdata: string, cacheDir?: string): Promise<string[] | null> {
  let baseline: string;
  try {
    baseline = await ensureBaseline(cacheDir);
  } catch {
    return null;
  }
  const partial = `${pgdata}.creating`;
  try {
    rmSync(partial, { recursive: true, force: true });
    // A clone where the file system can (Btrfs, XFS, APFS): no bytes written until changed.
    cpSync(baseline, partial, { recursive: true, mode: constants.COPYFILE_FICLONE });
    renameSync(partial, pgdata);
    return Object.keys(migrations);
  } catch {
    rmSync(partial, { recursive: true, force: true });
    return null;
  }
}

// `node src/db/pglite-baseline.ts`: make the installation's baseline now (npm's postinstall).
if (import.meta.main) {
  const started = performance.now();
  const baseline = await ensureBaseline();
  process.stdout.write(
    `signet: embedded database baseline ready in ${Math.round(performance.now() - started)} ms (${baseline})\n`,
  );
}
