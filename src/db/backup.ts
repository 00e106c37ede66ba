// Backups of the embedded database. A backup is PGlite's own snapshot of data/pgdata (a
// gzipped tar, `dumpDataDir`) taken by the folder's owner under the backend mutex after a
// checkpoint, so it is consistent whether the server runs or not (pglite-folder.ts).
// Restoring loads it into a staging folder next to pgdata, brings its schema up to this
// version's migrations and checks it opens, and only then puts it in place: a restore
// that fails leaves the folder as it was.
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { adoptLegacyLayout, dataDirLayout, ensureDataDir } from './data-dir.ts';
import { tryLockDataDir } from './data-dir-lock.ts';
import { migrateToLatest } from './migrate.ts';
import { createPGliteDialect } from './pglite-dialect.ts';
import { pgliteExtensions } from './pglite-extensions.ts';
import { DataDirBusyError, describeOwner, pgliteCodecs } from './pglite-folder.ts';
import type { Database } from './schema.ts';

export class RestoreError extends Error {}

export interface RestoreResult {
  dataDir: string;
  /** Migrations applied on top of the backup (made by an older Signet). */
  applied: string[];
  workspaces: number;
  documents: number;
  /** Where the replaced database was moved (`--force`), or null. */
  replacedTo: string | null;
}

export async function restoreDataDir(
  dataDir: string,
  snapshot: Uint8Array,
  options: { force: boolean; now: Date },
): Promise<RestoreResult> {
  const layout = dataDirLayout(dataDir);
  ensureDataDir(layout);
  const attempt = await tryLockDataDir(layout.lockFile, 'restore');
  if (!attempt.acquired) {
    throw new DataDirBusyError(
      `the data folder ${layout.root} is in use by ${describeOwner(attempt.owner)}; stop it before restoring`,
    );
  }
  try {
    checkSnapshotFormat(snapshot);
    adoptLegacyLayout(layout);
    const hasDatabase = existsSync(join(layout.pgdata, 'PG_VERSION'));
    if (hasDatabase && !options.force) {
      throw new RestoreError(
        `the data folder ${layout.root} already holds a database; restore into an empty folder (SIGNET_DATA_DIR) or pass --force to replace it (the current one is kept beside it)`,
      );
    }
    const staging = `${layout.pgdata}.restoring`;
    rmSync(staging, { recursive: true, force: true });
    let checked: Omit<RestoreResult, 'dataDir' | 'replacedTo'>;
    try {
      checked = await loadAndCheck(staging, snapshot);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      throw error;
    }
    let replacedTo: string | null = null;
    if (hasDatabase) {
      replacedTo = `${layout.pgdata}.replaced-${options.now.toISOString().replace(/[:.]/g, '-')}`;
      renameSync(layout.pgdata, replacedTo);
    }
    renameSync(staging, layout.pgdata);
    return { dataDir: layout.root, replacedTo, ...checked };
  } finally {
    attempt.lock.release();
  }
}

/** A backup is a gzipped tar: refuse anything else before touching the folder. */
function checkSnapshotFormat(snapshot: Uint8Array): void {
  let tar: Buffer;
  try {
    tar = gunzipSync(snapshot);
  } catch {
    throw new RestoreError('not a Signet backup: the file is not gzip-compressed (or is cut short)');
  }
  if (tar.toString('latin1', 257, 262) !== 'ustar')
    throw new RestoreError('not a Signet backup: no tar archive inside');
}

async function loadAndCheck(folder: string, snapshot: Uint8Array) {
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({
      ...pgliteCodecs,
      ...pgliteExtensions,
      dataDir: folder,
      loadDataDir: new Blob([snapshot as Uint8Array<ArrayBuffer>], { type: 'application/gzip' }),
    });
  } catch (error) {
    throw new RestoreError(`the backup could not be loaded: ${(error as Error).message || String(error)}`);
  }
  const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite) });
  try {
    let applied: string[];
    try {
      applied = await migrateToLatest(db);
    } catch (error) {
      throw new RestoreError(
        `the backup's schema does not match this version of Signet (${(error as Error).message}); restore it with the version that made it`,
      );
    }
    const { rows } = await sql<{ workspaces: number; documents: number }>`
      select (select count(*) from workspaces)::int as workspaces,
             (select count(*) from documents)::int as documents`.execute(db);
    const counts = rows[0] ?? { workspaces: 0, documents: 0 };
    return { applied, ...counts };
  } finally {
    await db.destroy();
    await pglite.close();
  }
}
