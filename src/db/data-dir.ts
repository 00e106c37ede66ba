// What lives in an embedded-database data folder (SIGNET_DATA_DIR, `./data` by default):
//
//   data/
//     signet.lock        who owns the folder and how to reach it (data-dir-lock.ts)
//     pgdata/            PGlite's PostgreSQL files: all that a backup holds
//     .s.PGSQL.5432      the owner's PostgreSQL wire socket, while `signet serve` runs
//     signet-control.sock  the owner's control socket (backups), likewise
//     demo.json          the demo workspace's key and login (`npm start`)
//     seal.key           the key that encrypts the seal's private key (sealing/seal-kek.ts),
//                        when neither SIGNET_SEAL_KEY_FILE nor SIGNET_SEAL_KEY is set; not in
//                        pgdata/, so not in a backup: it is backed up apart
//
// Folders made before the lock existed kept PostgreSQL's files directly in data/;
// `adoptLegacyLayout` moves them into pgdata/ once, under the lock, resumably.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface DataDirLayout {
  root: string;
  lockFile: string;
  pgdata: string;
  /** Where the owner's sockets go: the folder itself unless its path is too long for one. */
  socketDir: string;
  controlSocket: string;
}

export const pgSocketName = '.s.PGSQL.5432';
export const sealKeyFileName = 'seal.key';
const controlSocketName = 'signet-control.sock';
/** sun_path holds 108 bytes on Linux (104 on macOS); keep a margin. */
const socketPathLimit = 100;

export function dataDirLayout(dir: string): DataDirLayout {
  const root = resolve(dir);
  let socketDir = root;
  if (join(root, controlSocketName).length > socketPathLimit) {
    const tag = createHash('sha256').update(root).digest('hex').slice(0, 16);
    socketDir = join(tmpdir(), `signet-${tag}`);
  }
  return {
    root,
    lockFile: join(root, 'signet.lock'),
    pgdata: join(root, 'pgdata'),
    socketDir,
    controlSocket: join(socketDir, controlSocketName),
  };
}

/** Creates the folder, readable by its owner only (it holds keys and every document). */
export function ensureDataDir(layout: DataDirLayout): void {
  mkdirSync(layout.root, { recursive: true, mode: 0o700 });
  mkdirSync(layout.socketDir, { recursive: true, mode: 0o700 });
}

/** Names in data/ that are Signet's own, never PostgreSQL's. */
function isSignetEntry(name: string): boolean {
  return (
    name === 'pgdata' ||
    name === 'pgdata.partial' ||
    name === 'demo.json' ||
    name.startsWith(sealKeyFileName) ||
    name === pgSocketName ||
    name === controlSocketName ||
    name.startsWith('signet.lock') ||
    name.startsWith('pgdata.')
  );
}

/**
 * Moves a pre-lock folder's PostgreSQL files into pgdata/. PG_VERSION moves last, so a
 * move cut short by a crash is finished by the next start; the rename of the completed
 * pgdata.partial/ is what makes it count. Call only while holding the folder's lock.
 */
export function adoptLegacyLayout(layout: DataDirLayout): boolean {
  const partial = `${layout.pgdata}.partial`;
  const legacyVersion = join(layout.root, 'PG_VERSION');
  if (existsSync(join(layout.pgdata, 'PG_VERSION'))) return false;
  if (!existsSync(legacyVersion) && !existsSync(join(partial, 'PG_VERSION'))) return false;
  mkdirSync(partial, { recursive: true, mode: 0o700 });
  if (existsSync(legacyVersion)) {
    const names = readdirSync(layout.root).filter((name) => !isSignetEntry(name) && name !== 'PG_VERSION');
    for (const name of names) renameSync(join(layout.root, name), join(partial, name));
    renameSync(legacyVersion, join(partial, 'PG_VERSION'));
  }
  renameSync(partial, layout.pgdata);
  return true;
}
