// The Context every domain function takes: database, clock, ids, logger, config and the
// keys shared between processes. Nothing in src/ reaches for a global instead; tests build
// as many contexts as they like, each with its own clock and database.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/schema.ts';
import { loadServerSecret } from './db/server-secrets.ts';

export interface Clock {
  now(): Date;
}

export interface Ids {
  uuid(): string;
  randomBytes(size: number): Buffer;
}

export interface Context {
  db: Kysely<Database>;
  clock: Clock;
  ids: Ids;
  log: Logger;
  config: Config;
  /** HMAC key for list cursors, shared by every process through the database. */
  cursorKey: Buffer;
}

export const systemClock: Clock = { now: () => new Date() };
export const systemIds: Ids = { uuid: () => randomUUID(), randomBytes: (size) => randomBytes(size) };

/** Header and field names whose values are secrets: pino writes "[redacted]" instead. */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'apiKey',
  'secret',
  '*.secret',
  '*.apiKey',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: redactedPaths, censor: '[redacted]' } });
}

export async function createContext(
  config: Config,
  db: Kysely<Database>,
  overrides: Partial<Pick<Context, 'clock' | 'ids' | 'log'>> = {},
): Promise<Context> {
  const clock = overrides.clock ?? systemClock;
  const ids = overrides.ids ?? systemIds;
  const log = overrides.log ?? createLogger(config.logLevel);
  const cursorKey = await loadServerSecret(db, 'cursor-hmac', { clock, ids });
  return { db, clock, ids, log, config, cursorKey };
}
