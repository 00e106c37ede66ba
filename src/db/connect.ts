// Opens the one database Signet runs on: PostgreSQL through `pg` when DATABASE_URL is
// set, otherwise the embedded PGlite in a data folder. Both speak the same SQL and run
// the same migrations; callers only ever see a Kysely<Database>.
import { createHash } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DatabaseHandle, DatabaseKind, DatabaseOptions, Subscription } from './handle.ts';
import { getPgTypeParser } from './pg-types.ts';
import { openPGlite } from './pglite-folder.ts';
import type { Database } from './schema.ts';

export type { DatabaseHandle, DatabaseKind, DatabaseOptions, Subscription };

const preparedStatementLimit = 500;
const statementNames = new Map<string, string>();

/**
 * Parameterised reads, CTE statements and batch statements over array parameters
 * (`unnest`) run as named prepared statements, so PostgreSQL parses and plans each query
 * shape once per connection instead of on every call (it doubled the throughput of the
 * list endpoint's SQL; the delivery engine's statements are CTEs and batches). Other
 * writes stay unnamed: multi-row INSERTs have a new text for every row count. At most
 * `preparedStatementLimit` shapes are named.
 */
const preparedShape = /^\s*(select|with)\b|\bunnest\(/i;

function statementNameFor(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < preparedStatementLimit && preparedShape.test(text)) {
    name = `signet_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

class PreparingClient extends pg.Client {}
const unpreparedQuery = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;
PreparingClient.prototype.query = function query(
  this: pg.Client,
  config: unknown,
  values?: unknown,
  callback?: unknown,
) {
  if (typeof config === 'string' && Array.isArray(values) && values.length > 0) {
    const name = statementNameFor(config);
    if (name) return unpreparedQuery.call(this, { name, text: config, values }, callback);
  }
  return unpreparedQuery.call(this, config, values, callback);
} as typeof pg.Client.prototype.query;

/** The pg pool every PostgreSQL connection of Signet (and its benchmark baseline) uses. */
export function createPgPool(url: string, size: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: size,
    Client: PreparingClient,
    // Sessions in UTC, so timestamps arrive as "2026-03-01 12:00:00.123+00" and take the
    // fast path below instead of the general parser (docs/performance.md).
    options: '-c TimeZone=UTC',
    // A server that does not answer at all (not merely refuses) must not hold a request
    // forever: the caller gets an error, and the API answers 503 `unavailable`.
    connectionTimeoutMillis: 5000,
    keepAlive: true,
    types: { getTypeParser: getPgTypeParser },
  });
  // A client that loses its server must not crash the process: idle ones report to the
  // pool, and one checked out between two queries (inside a transaction) would emit an
  // 'error' nobody listens to (pg-pool only listens while a client is idle). The failure
  // still reaches the caller: the client's next query fails as not queryable, which
  // availability.ts counts as an outage.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.url) {
    const pool = createPgPool(options.url, options.poolSize ?? 10);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const url = options.url;
    return {
      db,
      kind: 'postgres',
      subscribe: (channel, s) => listenOnPostgres(url, channel, s),
      poolStats: () => ({
        total: pool.totalCount,
        idle: pool.idleCount,
        waiting: pool.waitingCount,
        max: pool.options.max,
      }),
      close: () => db.destroy(),
    };
  }
  return openPGlite(options);
}

/**
 * A dedicated connection (LISTEN does not survive a pooled client) that reconnects with
 * backoff when it drops, reporting each change so callers can distrust what they cached
 * while notifications could have been missed.
 */
async function listenOnPostgres(url: string, channel: string, subscription: Subscription) {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name: ${channel}`);
  let client: pg.Client | null = null;
  let stopped = false;
  let retryMs = 100;

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (message) => {
      if (message.channel === channel) subscription.onNotify(message.payload ?? '');
    });
    next.on('error', () => {});
    try {
      await next.connect();
      await next.query(`listen ${channel}`);
    } catch (error) {
      await next.end().catch(() => {});
      throw error;
    }
    next.on('end', () => {
      subscription.onStateChange(false);
      if (!stopped) setTimeout(reconnect, retryMs);
    });
    client = next;
    retryMs = 100;
    subscription.onStateChange(true);
  }

  function reconnect() {
    if (stopped) return;
    connect().catch(() => {
      retryMs = Math.min(retryMs * 2, 5000);
      setTimeout(reconnect, retryMs);
    });
  }

  await connect();
  return async () => {
    stopped = true;
    subscription.onStateChange(false);
    await (client as pg.Client | null)?.end().catch(() => {});
  };
}
