// `signet backup FILE` and `signet restore FILE [--force]` for the embedded database.
// A backup works while the server runs: the folder's owner takes the snapshot
// (db/pglite-folder.ts). The file is written beside its final name, flushed and renamed,
// so FILE is either the whole backup or not there: the command never reports a backup it
// did not write. PostgreSQL deployments back up with pg_dump (docs/deployment.md).
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Config } from '../config.ts';
import { restoreDataDir } from '../db/backup.ts';
import { openDatabase } from '../db/connect.ts';
import { parseCommandArgs, UsageError } from './args.ts';
import { print } from './context.ts';

function requireEmbedded(config: Config, command: string): void {
  if (config.databaseUrl) {
    throw new UsageError(
      `${command} is for the embedded database; with DATABASE_URL, use pg_dump and pg_restore (see docs/deployment.md)`,
    );
  }
}

function writeFileDurably(path: string, bytes: Uint8Array): void {
  const draft = `${path}.partial-${process.pid}`;
  const fd = openSync(draft, 'w', 0o600);
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(draft, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(draft, path);
}

export async function backupCommand(config: Config, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' } }, ['FILE']);
  requireEmbedded(config, 'signet backup');
  const file = resolve(positionals[0] as string);
  const database = await openDatabase({ url: null, dataDir: config.dataDir, purpose: 'backup' });
  let snapshot: Uint8Array;
  try {
    snapshot = await (database.backup as () => Promise<Uint8Array>)();
  } finally {
    await database.close();
  }
  gunzipSync(snapshot); // a damaged snapshot fails here, before anything is written
  writeFileDurably(file, snapshot);
  print(
    !!values.json,
    { file, bytes: snapshot.length, dataDir: resolve(config.dataDir) },
    `Backed up ${resolve(config.dataDir)} to ${file} (${(snapshot.length / 1_048_576).toFixed(1)} MB)`,
  );
}

export async function restoreCommand(config: Config, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    argv,
    { force: { type: 'boolean' }, json: { type: 'boolean' } },
    ['FILE'],
  );
  requireEmbedded(config, 'signet restore');
  const file = resolve(positionals[0] as string);
  let snapshot: Uint8Array;
  try {
    snapshot = readFileSync(file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  const result = await restoreDataDir(config.dataDir, snapshot, { force: !!values.force, now: new Date() });
  const lines = [
    `Restored ${file} into ${result.dataDir}: ${result.workspaces} workspaces, ${result.documents} documents`,
  ];
  if (result.applied.length) lines.push(`Applied ${result.applied.join(', ')}`);
  if (result.replacedTo) lines.push(`The database it replaced is kept in ${result.replacedTo}`);
  print(!!values.json, { file, ...result }, lines.join('\n'));
}
