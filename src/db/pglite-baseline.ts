// A new embedded database starts as a copy of a baseline instead of running initdb: a PGlite
// data folder, initdb done and every migration applied, made once per installation (by
// `npm install`'s postinstall, or by the first new data folder that finds none) and kept in
// `node_modules/.cache/signet-pglite/`, like a PostgreSQL package runs initdb at install.
// initdb in WebAssembly is most of a first start (~1.6 s); copying the folder and opening
// it is a restart's cost.
//
// A baseline is named by what made it: PGlite's version and the text of every migration
// file. A new migration or another PGlite is another name, so a baseline that no longer
// fits is never used: the next new data folder makes the current one. The migrator still
// runs after opening (its table, copied with the rest, says which migrations the copy holds),
// as on any start. When there is none and none can be made (a read-only installation, such
// as the container image), a new database is created as before (initdb, then migrations).
//
//   node_modules/.cache/signet-pglite/
//     <pglite version>-<hash of the migrations>/   the baseline: a closed PGDATA folder
//     *.building-<pid>-<random>/                    one being made (renamed when complete)
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
import { createPGliteDialect } from './pglite-dialect.ts';

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
  return `${version}-${hash.digest('hex').slice(0, 16)}`;
}

/**
 * The current baseline's folder, made now if missing (initdb and migrations, in a folder of
 * its own renamed into place when complete, so concurrent makers and readers never see half
 * of one). Throws when it cannot be made; callers fall back to initdb.
 */
export async function ensureBaseline(cacheDir = defaultBaselineCacheDir()): Promise<string> {
  const baseline = join(cacheDir, baselineName());
  if (existsSync(join(baseline, 'PG_VERSION'))) return baseline;
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const building = `${baseline}.building-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const pglite = await PGlite.create({ dataDir: building });
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
  return baseline;
}

/**
 * Creates `pgdata` (which must not exist) as a copy of the baseline: copied beside it, then
 * renamed, so a start cut short leaves no half database. Returns false when no baseline can
 * be had; the caller then lets PGlite create the database (initdb).
 */
export async function createFromBaseline(pgdata: string, cacheDir?: string): Promise<boolean> {
  let baseline: string;
  try {
    baseline = await ensureBaseline(cacheDir);
  } catch {
    return false;
  }
  const partial = `${pgdata}.creating`;
  try {
    rmSync(partial, { recursive: true, force: true });
    // A clone where the file system can (Btrfs, XFS, APFS): no bytes written until changed.
    cpSync(baseline, partial, { recursive: true, mode: constants.COPYFILE_FICLONE });
    renameSync(partial, pgdata);
    return true;
  } catch {
    rmSync(partial, { recursive: true, force: true });
    return false;
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
