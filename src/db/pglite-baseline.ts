// A new embedded database starts as a copy of a baseline instead of running initdb: a PGlite
// data folder just after initdb, made once per installation (by `npm install`'s
// postinstall, or by the first new data folder that finds none) and kept in
// `node_modules/.cache/signet-pglite/`, like a PostgreSQL package runs initdb at install.
// initdb in WebAssembly was most of a first start (~1.6 s); copying its result is a tenth of
// that. The schema is not in the baseline: the migrator makes it on the copy as it did on
// initdb's folder (~0.1 s for every migration), so a new folder's database, its migrations
// table and `signet migrate`'s report are what they were, and a new migration can never
// meet a baseline that lacks it.
//
// A baseline is named by PGlite's version: another PGlite is another baseline, made by the
// next new data folder. When there is none and none can be made (a read-only installation,
// such as the container image), PGlite runs initdb in the data folder as before.
//
//   node_modules/.cache/signet-pglite/
//     initdb-<pglite version>/             the baseline: a closed PGDATA folder
//     initdb-*.building-<pid>-<random>/    one being made (renamed when complete)
//
// PostgreSQL servers (DATABASE_URL) never use it.
import { randomBytes } from 'node:crypto';
import { constants, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

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

/** The baseline's name: what made it, PGlite's initdb, and PGlite's version. */
export function baselineName(): string {
  const { version } = JSON.parse(readFileSync(join(pglitePackageDir(), 'package.json'), 'utf8')) as {
    version: string;
  };
  return `initdb-${version}`;
}

/**
 * The current baseline's folder, made now if missing (initdb, in a folder of its own renamed
 * into place when complete, so concurrent makers and readers never see half of one). Throws
 * when it cannot be made; callers fall back to initdb in the data folder.
 */
export async function ensureBaseline(cacheDir = defaultBaselineCacheDir()): Promise<string> {
  const baseline = join(cacheDir, baselineName());
  if (existsSync(join(baseline, 'PG_VERSION'))) return baseline;
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const building = `${baseline}.building-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const pglite = await PGlite.create({ dataDir: building });
    await pglite.close();
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
