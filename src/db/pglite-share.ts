// The owner of a PGlite data folder shares its database with the folder's other users
// (`signet key create` while `signet serve` runs, …) instead of letting them open the
// files themselves:
//
// - a PostgreSQL wire-protocol socket (`.s.PGSQL.5432`), so a command connects with `pg`
//   exactly as to a PostgreSQL server. `@electric-sql/pglite-socket` frames the protocol;
//   the order of execution is ours (`SessionScheduler`): a client takes the same mutex as
//   this process's own Kysely queries and keeps it until PostgreSQL reports it idle
//   outside a transaction (ReadyForQuery 'I'), so a client's transaction, or its
//   Parse/Bind/Execute before Sync, never interleaves with anything else on the single
//   backend. A client that holds it idle for too long is cut off and rolled back.
// - NOTIFY sent in a client's transaction reaches this process's listeners (API key cache,
//   worker wake-ups): PGlite hands raw protocol output to the socket untouched, so the
//   scheduler reads the NotificationResponse messages out of it and dispatches them.
// - a control socket (HTTP over a Unix socket) for what SQL cannot do: `POST /backup`
//   streams a consistent snapshot of the data folder.
import { chmodSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import type { Logger } from 'pino';
import { pgSocketName } from './data-dir.ts';
import type { BackendMutex } from './pglite-dialect.ts';

export interface ShareOptions {
  socketDir: string;
  controlSocket: string;
  mutex: BackendMutex;
  /** A notification a client's transaction sent. */
  onNotification(channel: string, payload: string): void;
  /** A consistent snapshot of the data folder (gzipped tar). */
  backup(): Promise<Uint8Array>;
  log: Logger;
  /** How long a client may hold the backend without sending anything (default 15 s). */
  idleHoldMs?: number;
}

export interface SharedDatabase {
  close(): Promise<void>;
}

const notificationResponse = 0x41; // 'A'
const readyForQuery = 0x5a; // 'Z'
const terminate = 0x58; // 'X'

/**
 * Reads the backend messages of one exchange as they stream past, in chunks that may cut
 * a message anywhere: keeps the last ReadyForQuery status and hands on notifications.
 */
export class BackendMessageScanner {
  readyStatus: string | null = null;
  #header: Buffer = Buffer.alloc(0);
  #type = 0;
  #remaining = 0;
  #inBody = false;
  #body: Buffer[] = [];
  readonly #onNotification: (channel: string, payload: string) => void;

  constructor(onNotification: (channel: string, payload: string) => void) {
    this.#onNotification = onNotification;
  }

  push(chunk: Uint8Array): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let offset = 0;
    while (offset < bytes.length) {
      if (!this.#inBody) {
        const take = bytes.subarray(offset, offset + 5 - this.#header.length);
        offset += take.length;
        this.#header = Buffer.concat([this.#header, take]);
        if (this.#header.length < 5) return;
        this.#type = this.#header[0] as number;
        this.#remaining = this.#header.readInt32BE(1) - 4;
        this.#header = Buffer.alloc(0);
        this.#inBody = true;
        this.#body = [];
      } else {
        const take = Math.min(this.#remaining, bytes.length - offset);
        if (this.#type === notificationResponse || this.#type === readyForQuery) {
          // A copy: the chunk is a view of PGlite's memory, reused after this call.
          this.#body.push(Buffer.from(bytes.subarray(offset, offset + take)));
        }
        offset += take;
        this.#remaining -= take;
      }
      if (this.#inBody && this.#remaining === 0) this.#finishMessage();
    }
  }

  #finishMessage(): void {
    this.#inBody = false;
    if (this.#type === readyForQuery) {
      this.readyStatus = String.fromCharCode(Buffer.concat(this.#body)[0] ?? 0);
    } else if (this.#type === notificationResponse) {
      // Int32 sender pid, then channel and payload as NUL-terminated strings.
      const body = Buffer.concat(this.#body);
      const channelEnd = body.indexOf(0, 4);
      const payloadEnd = body.indexOf(0, channelEnd + 1);
      if (channelEnd > 0 && payloadEnd > channelEnd) {
        this.#onNotification(
          body.toString('utf8', 4, channelEnd),
          body.toString('utf8', channelEnd + 1, payloadEnd),
        );
      }
    }
    this.#body = [];
  }
}

interface Session {
  handler: PGLiteSocketHandler;
  /** The session's messages run one after another, in the order they arrived. */
  chain: Promise<unknown>;
  release: (() => void) | null;
  closed: boolean;
  idleTimer: NodeJS.Timeout | null;
}

/**
 * Runs the socket clients' protocol messages on the backend, each client holding the
 * backend mutex from its first message until it is idle again. Implements the queue
 * interface PGLiteSocketHandler calls (`enqueue`, `clearQueueForHandler`,
 * `clearTransactionIfNeeded`).
 */
class SessionScheduler {
  readonly #sessions = new Map<number, Session>();
  readonly #pglite: PGlite;
  readonly #options: ShareOptions;

  constructor(pglite: PGlite, options: ShareOptions) {
    this.#pglite = pglite;
    this.#options = options;
  }

  add(handler: PGLiteSocketHandler): void {
    this.#sessions.set(handler.handlerId, {
      handler,
      chain: Promise.resolve(),
      release: null,
      closed: false,
      idleTimer: null,
    });
  }

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    const session = this.#sessions.get(handlerId);
    if (!session || session.closed) return Promise.reject(new Error('session closed'));
    const run = session.chain.catch(() => {}).then(() => this.#run(session, message, onData));
    session.chain = run;
    return run;
  }

  async #run(session: Session, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    if (session.closed) return 0;
    if (session.idleTimer) clearTimeout(session.idleTimer);
    session.idleTimer = null;
    session.release ??= await this.#options.mutex.acquire();
    if (session.closed) {
      this.#releaseOf(session);
      return 0;
    }
    const scanner = new BackendMessageScanner(this.#options.onNotification);
    let bytes = 0;
    try {
      await this.#pglite.runExclusive(() =>
        this.#pglite.execProtocolRawStream(message, {
          onRawData: (data) => {
            bytes += data.length;
            scanner.push(data);
            onData(data);
          },
        }),
      );
    } catch (error) {
      await this.#reset(session);
      throw error;
    }
    if (scanner.readyStatus === 'I' || message[0] === terminate) {
      this.#releaseOf(session);
    } else {
      // Inside a transaction, or between Parse and Sync: keep the backend, but not forever.
      session.idleTimer = setTimeout(() => {
        this.#options.log.warn(
          { client: session.handler.handlerId },
          'a client held the embedded database idle for too long: disconnected and rolled back',
        );
        session.handler.detach(true).catch(() => {});
      }, this.#options.idleHoldMs ?? 15_000);
      session.idleTimer.unref();
    }
    return bytes;
  }

  #releaseOf(session: Session): void {
    const release = session.release;
    session.release = null;
    release?.();
  }

  /** Ends whatever the client left open on the backend, then lets others in. */
  async #reset(session: Session): Promise<void> {
    if (!session.release) return;
    try {
      await this.#pglite.runExclusive(async () => {
        // Sync closes an unfinished extended-protocol exchange; then roll back.
        await this.#pglite.execProtocolRaw(new Uint8Array([0x53, 0, 0, 0, 4]));
        if (this.#pglite.isInTransaction()) await this.#pglite.exec('rollback');
      });
    } catch (error) {
      this.#options.log.error({ err: error }, 'could not reset the embedded database after a client left');
    } finally {
      this.#releaseOf(session);
    }
  }

  clearQueueForHandler(handlerId: number): void {
    const session = this.#sessions.get(handlerId);
    if (session) session.closed = true;
  }

  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    const session = this.#sessions.get(handlerId);
    if (!session) return;
    this.#sessions.delete(handlerId);
    session.closed = true;
    if (session.idleTimer) clearTimeout(session.idleTimer);
    await session.chain.catch(() => {});
    await this.#reset(session);
    // Named statements live in the backend, not the connection: drop the client's.
    await this.#options.mutex
      .runExclusive(() => this.#pglite.exec('deallocate all'))
      .catch((error: unknown) => this.#options.log.error({ err: error }, 'deallocate after a client left'));
  }

  get size(): number {
    return this.#sessions.size;
  }

  detachAll(): Promise<unknown> {
    return Promise.all([...this.#sessions.values()].map((s) => s.handler.detach(true)));
  }
}

function listen(server: NetServer | HttpServer, path: string): Promise<void> {
  rmSync(path, { force: true }); // a socket file left by a dead owner
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      chmodSync(path, 0o600);
      resolve();
    });
  });
}

function closeServer(server: NetServer | HttpServer, path: string): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      rmSync(path, { force: true });
      resolve();
    });
  });
}

const maxClients = 16;

export async function sharePGlite(pglite: PGlite, options: ShareOptions): Promise<SharedDatabase> {
  const scheduler = new SessionScheduler(pglite, options);
  const pgSocket = join(options.socketDir, pgSocketName);
  const wire = createNetServer((socket: Socket) => {
    if (scheduler.size >= maxClients) {
      socket.end();
      return;
    }
    const handler = new PGLiteSocketHandler({
      // The handler only calls enqueue, clearQueueForHandler and clearTransactionIfNeeded.
      queryQueue: scheduler as unknown as ConstructorParameters<typeof PGLiteSocketHandler>[0]['queryQueue'],
      closeOnDetach: true,
    });
    scheduler.add(handler);
    handler.attach(socket).catch(() => socket.destroy());
  });
  const control = createHttpServer((request, response) => {
    if (request.method === 'POST' && request.url === '/backup') {
      options.backup().then(
        (snapshot) => {
          response.writeHead(200, { 'content-type': 'application/gzip', 'content-length': snapshot.length });
          response.end(snapshot);
        },
        (error: unknown) => {
          options.log.error({ err: error }, 'backup failed');
          response.writeHead(500, { 'content-type': 'text/plain' }).end(`${(error as Error).message}\n`);
        },
      );
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
  await listen(wire, pgSocket);
  await listen(control, options.controlSocket);
  return {
    async close() {
      const closed = Promise.all([closeServer(wire, pgSocket), closeServer(control, options.controlSocket)]);
      await scheduler.detachAll();
      await closed;
    },
  };
}
