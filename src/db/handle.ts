// What opening a database hands back (connect.ts for PostgreSQL, pglite-folder.ts for the
// embedded one): types only, so the two openers share them without importing each other.
import type { PGlite } from '@electric-sql/pglite';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './schema.ts';

export type DatabaseKind = 'postgres' | 'pglite';

export interface Subscription {
  /** Called with each NOTIFY payload on the channel. */
  onNotify(payload: string): void;
  /** Whether notifications are flowing; false while a dropped listener reconnects. */
  onStateChange(isListening: boolean): void;
}

export interface DatabaseHandle {
  db: Kysely<Database>;
  kind: DatabaseKind;
  /** LISTEN on a channel: notifications sent with pg_notify by any process reach `subscription`. */
  subscribe(channel: string, subscription: Subscription): Promise<() => Promise<void>>;
  /**
   * PGlite data folder owned by this process: serve it to the folder's other users (the
   * CLI) over Unix sockets until close. Absent elsewhere.
   */
  share?(log: Logger): Promise<void>;
  /** PGlite data folder: a consistent gzipped snapshot, taken by whichever process owns it. */
  backup?(): Promise<Uint8Array>;
  /**
   * PGlite data folder whose database this open created from the installation's baseline
   * (pglite-baseline.ts): the migrations it came with, which `signet migrate` reports as
   * applied like those the migrator applies. Absent elsewhere.
   */
  createdWith?: string[];
  /** PostgreSQL: how many pool connections exist, are idle, and how many callers wait. */
  poolStats?(): { total: number; idle: number; waiting: number; max: number };
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres://… for a server; null for PGlite. */
  url: string | null;
  /** PGlite data folder; null keeps the embedded database in memory (tests). */
  dataDir: string | null;
  poolSize?: number;
  /**
   * PGlite data folder: true to require ownership (`signet serve`, `signet restore`);
   * otherwise a folder a live server owns is reached through its socket.
   */
  exclusive?: boolean;
  /** What this process runs, recorded in the folder's lock (`serve`, `key create`, …). */
  purpose?: string;
  /** How long to wait for a short command that holds the folder (default 30 s). */
  waitMs?: number;
  /**
   * In memory only: start from this dumped data folder (PGlite's `dumpDataDir`) instead of an
   * empty cluster, skipping initdb (the test runner hands every test database one migrated image).
   */
  snapshot?: Blob;
  /**
   * In memory only: an open PGlite to serve instead of a new one, and what `close` does with it
   * instead of closing it (the tests hand each process's databases back to a pool, emptied:
   * opening one costs seconds of CPU, emptying it milliseconds).
   */
  reuse?: { pglite: PGlite; release(pglite: PGlite): Promise<void> };
}
