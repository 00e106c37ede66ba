// A Kysely dialect for the embedded PGlite database. PGlite is one PostgreSQL backend in
// this process, so the "pool" is a single connection handed out under a mutex: a
// transaction holds it from BEGIN to COMMIT and no other query can interleave. The same
// mutex is taken by the clients that reach this backend through its socket
// (pglite-share.ts), so their transactions and this process's never mix either.
import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/** A FIFO mutex over the one PGlite backend: `acquire` resolves with its release. */
export class BackendMutex {
  #queue: Promise<void> = Promise.resolve();

  acquire(): Promise<() => void> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    return previous.then(() => release);
  }

  async runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }
}

export function createPGliteDialect(pglite: PGlite, mutex = new BackendMutex()): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PGliteDriver(pglite, mutex),
    createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}

class PGliteConnection implements DatabaseConnection {
  readonly #pglite: PGlite;
  constructor(pglite: PGlite) {
    this.#pglite = pglite;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.#pglite.query<R>(query.sql, query.parameters as unknown[]);
    const isWrite = /^\s*(insert|update|delete|merge)\b/i.test(query.sql);
    return {
      rows: result.rows,
      ...(isWrite ? { numAffectedRows: BigInt(result.affectedRows ?? 0) } : {}),
    };
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered by this dialect
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streamQuery is not supported on PGlite');
  }
}

class PGliteDriver implements Driver {
  readonly #connection: PGliteConnection;
  readonly #mutex: BackendMutex;
  #release: (() => void) | null = null;

  constructor(pglite: PGlite, mutex: BackendMutex) {
    this.#connection = new PGliteConnection(pglite);
    this.#mutex = mutex;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    this.#release = await this.#mutex.acquire();
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let statement = 'begin';
    if (settings.isolationLevel) statement += ` isolation level ${settings.isolationLevel}`;
    if (settings.accessMode) statement += ` ${settings.accessMode}`;
    await connection.executeQuery(CompiledQuery.raw(statement));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = null;
    release?.();
  }

  async destroy(): Promise<void> {}
}
