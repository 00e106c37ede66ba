// The embedded database: PGlite in memory (tests) or in a data folder. A folder has one
// owner at a time (data-dir-lock.ts). Opening one:
//
//   nobody owns it ............ take the lock, open PGlite on data/pgdata
//   `signet serve` owns it .... connect through its socket with `pg` (unless exclusive:
//                               then refuse, naming the owner)
//   a command owns it ......... wait for it to finish (seconds), then as above
//   its owner died ............ take the stale lock over; PostgreSQL recovers from its WAL
//   owned on another host ..... refuse: we cannot tell whether it lives
//
// so no two processes ever write the same files, and every command works while the
// server runs, through one code path: Kysely over SQL.
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { adoptLegacyLayout, dataDirLayout, ensureDataDir, pgSocketName } from './data-dir.ts';
import { type DataDirLock, type LockOwner, ownerLiveness, tryLockDataDir } from './data-dir-lock.ts';
import type { DatabaseHandle, DatabaseOptions, Subscription } from './handle.ts';
import { getPgTypeParser } from './pg-types.ts';
import { createFromBaseline } from './pglite-baseline.ts';
import { BackendMutex, createPGliteDialect } from './pglite-dialect.ts';
import { pgliteExtensions } from './pglite-extensions.ts';
import { type SharedDatabase, sharePGlite } from './pglite-share.ts';
import type { Database } from './schema.ts';

/** The folder cannot be used now; the message says by whom and what to do, in one line. */
export class DataDirBusyError extends Error {}

/** Who owns a data folder, for one-line refusals: command, pid, host and since when. */
export function describeOwner(owner: LockOwner): string {
  return `"signet ${owner.command}" (pid ${owner.pid} on ${owner.hostname}, since ${owner.startedAt})`;
}

const pollMs = 100;

const byteaOid = 17;

/**
 * How PGlite carries bytea (stored files, page images): as one hex string made and read by
 * Buffer. PGlite's own codec goes byte by byte (an array of two-digit strings, one parseInt
 * per byte): 25 MB took seconds and 600 MB of memory; this takes milliseconds.
 */
export const pgliteCodecs = {
  serializers: {
    [byteaOid]: (value: Uint8Array) =>
      `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`,
  },
  parsers: { [byteaOid]: (text: string) => Buffer.from(text.slice(2), 'hex') },
};

export async function openPGlite(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (!options.dataDir) {
    if (options.reuse) return ownPGlite(options.reuse.pglite, null, null, options.reuse.release);
    const loadDataDir = options.snapshot ? { loadDataDir: options.snapshot } : {};
    return ownPGlite(
      await PGlite.create({ ...pgliteCodecs, ...pgliteExtensions, ...loadDataDir }),
      null,
      null,
    );
  }
  const layout = dataDirLayout(options.dataDir);
  ensureDataDir(layout);
  const purpose = options.purpose ?? 'command';
  const waitMs = options.waitMs ?? 30_000;
  const deadline = Date.now() + waitMs;
  for (;;) {
    const attempt = await tryLockDataDir(layout.lockFile, purpose);
    if (attempt.acquired) {
      try {
        adoptLegacyLayout(layout);
        // A new database: a copy of the installation's baseline rather than initdb.
        const createdWith = existsSync(layout.pgdata) ? null : await createFromBaseline(layout.pgdata);
        const pglite = await PGlite.create({ dataDir: layout.pgdata, ...pgliteCodecs, ...pgliteExtensions });
        const handle = ownPGlite(pglite, attempt.lock, layout);
        if (createdWith) handle.createdWith = createdWith;
        return handle;
      } catch (error) {
        attempt.lock.release();
        throw error;
      }
    }
    const owner = attempt.owner;
    const where = layout.root;
    if (ownerLiveness(owner) === 'elsewhere') {
      throw new DataDirBusyError(
        `the data folder ${where} is owned by ${describeOwner(owner)}; a data folder serves one machine: stop Signet there, or set SIGNET_DATA_DIR to another folder`,
      );
    }
    if (owner.command !== 'serve' && Date.now() < deadline) {
      // A command holds the folder for seconds; wait for it rather than fail.
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      continue;
    }
    if (options.exclusive) {
      throw new DataDirBusyError(
        `the data folder ${where} is in use by ${describeOwner(owner)}; stop it first, or set SIGNET_DATA_DIR to another folder`,
      );
    }
    if (owner.socketDir === null) {
      if (owner.command === 'serve' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, pollMs)); // still starting
        continue;
      }
      throw new DataDirBusyError(
        `the data folder ${where} is still in use by ${describeOwner(owner)} after ${Math.round(waitMs / 1000)} s; try again when it has finished`,
      );
    }
    return connectToOwner(owner, where);
  }
}

/** This process owns the database: local LISTEN/NOTIFY, and it may share it. */
function ownPGlite(
  pglite: PGlite,
  lock: DataDirLock | null,
  layout: ReturnType<typeof dataDirLayout> | null,
  release?: (pglite: PGlite) => Promise<void>,
) {
  const mutex = new BackendMutex();
  const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite, mutex) });
  // One LISTEN per channel; notifications arrive from this process's own queries (PGlite
  // parses them) and from socket clients' transactions (pglite-share.ts reads them out).
  const listeners = new Map<string, Set<Subscription>>();
  const unlistens = new Map<string, () => Promise<void>>();
  const dispatch = (channel: string, payload: string) => {
    for (const subscription of listeners.get(channel) ?? []) subscription.onNotify(payload);
  };
  let shared: SharedDatabase | null = null;

  const backup = () =>
    mutex.runExclusive(async () => {
      // A checkpoint first, so the snapshot's files are current and its recovery is short.
      await pglite.exec('checkpoint');
      const snapshot = await pglite.dumpDataDir('gzip');
      return new Uint8Array(await snapshot.arrayBuffer());
    });

  const handle: DatabaseHandle = {
    db,
    kind: 'pglite',
    // Call before serving: PGlite runs LISTEN on its single connection.
    subscribe: async (channel, subscription) => {
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        unlistens.set(channel, await pglite.listen(channel, (payload) => dispatch(channel, payload)));
      }
      set.add(subscription);
      subscription.onStateChange(true);
      return async () => {
        subscription.onStateChange(false);
        set.delete(subscription);
      };
    },
    close: async () => {
      try {
        await shared?.close();
        await db.destroy();
        for (const unlisten of unlistens.values()) await unlisten().catch(() => {});
        await (release ? release(pglite) : pglite.close());
      } finally {
        lock?.release();
      }
    },
  };
  if (lock && layout) {
    handle.backup = backup;
    handle.share = async (log) => {
      shared = await sharePGlite(pglite, {
        socketDir: layout.socketDir,
        controlSocket: layout.controlSocket,
        mutex,
        onNotification: (channel, payload) => queueMicrotask(() => dispatch(channel, payload)),
        backup,
        log,
      });
      lock.advertise({ socketDir: layout.socketDir, controlSocket: layout.controlSocket });
    };
  }
  return handle;
}

/** A live server owns the folder: reach its database over its socket, like any PostgreSQL. */
async function connectToOwner(owner: LockOwner, where: string): Promise<DatabaseHandle> {
  const socketDir = owner.socketDir as string;
  // One connection: the owner runs one backend, so a second would only wait for the first.
  // No named prepared statements and no session options: the backend is shared.
  const pool = new pg.Pool({
    host: socketDir,
    user: 'postgres',
    database: 'postgres',
    max: 1,
    connectionTimeoutMillis: 5_000,
    types: { getTypeParser: getPgTypeParser },
  });
  pool.on('error', () => {});
  // As createPgPool's (connect.ts): a client that loses the owner inside a transaction fails
  // its next query instead of crashing the process with an error nobody listens to.
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    await pool.query('select 1');
  } catch (error) {
    await pool.end().catch(() => {});
    throw new DataDirBusyError(
      `the data folder ${where} is owned by ${describeOwner(owner)}, which does not answer on ${join(socketDir, pgSocketName)} (${(error as Error).message}); stop that process and try again`,
    );
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: 'pglite',
    subscribe: () => {
      throw new Error('LISTEN is not available through the data folder owner’s socket');
    },
    backup: () => requestBackup(owner.controlSocket as string),
    close: async () => {
      await db.destroy();
      // Kysely ends the pool only if it ran a query; a backup-only command did not.
      if (!pool.ended) await pool.end();
    },
  };
}

/** Asks the owner for a snapshot over its control socket. */
function requestBackup(controlSocket: string): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath: controlSocket, method: 'POST', path: '/backup', agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          if (response.statusCode !== 200) {
            reject(new Error(`the server could not take the backup: ${body.toString('utf8').trim()}`));
          } else if (Number(response.headers['content-length']) !== body.length) {
            reject(new Error('the backup arrived incomplete'));
          } else {
            resolve(new Uint8Array(body));
          }
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
