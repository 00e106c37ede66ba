// Kill -9 mid-job for the queues that had no such test (the mail outbox, bulk sends, page
// images drawn ahead of time; seals: seal-takeover.test.ts, webhook deliveries:
// webhook-crash.test.ts), on both databases: a `signet serve --role worker` is SIGKILLed
// while a mail, a bulk send and a file's pages are each claimed and part done, another
// worker is started on the same installation (PostgreSQL, or the PGlite data folder whose
// stale lock it takes over), and each job is taken over once its short lease runs out and
// finished once: every mail received once, every row of the bulk send made and sent once,
// every page image stored (a page the dead worker was drawing is drawn again: at least
// once). The leases are the queues' own (queue/lease.ts, seconds), so nothing here waits
// for minutes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PDFDocument } from '@cantoo/pdf-lib';
import { type Kysely, sql, type Transaction } from 'kysely';
import { type Config, loadConfig } from '../../src/config.ts';
import { type Context, createContext, createLogger } from '../../src/context.ts';
import type { DatabaseKind } from '../../src/db/connect.ts';
import { type DatabaseHandle, openDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import type { Database } from '../../src/db/schema.ts';
import { storeFile } from '../../src/files/files.service.ts';
import { bulkSendProgress } from '../../src/templates/bulk-progress.ts';
import { startBulkSend } from '../../src/templates/bulk-send.ts';
import { createTemplate } from '../../src/templates/templates.service.ts';
import {
  createEmptyPostgresDatabase,
  createSentDocument,
  createTestWorkspace,
  databaseKinds,
  parallelSigners,
  testSealKey,
} from '../support/harness.ts';
import { type SignetProcess, sleep, startSignet, until } from '../support/processes.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../support/smtp-receiver.ts';

const bulkRows = 2000;
const pdfPages = 60;

/** An SMTP server that takes connections and never greets: a mail sent to it hangs, claimed. */
async function startStallingSmtp(): Promise<{
  url: string;
  connections: () => number;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function pdfOf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 1; i <= pages; i++) doc.addPage([595, 842]).drawText(`Page ${i}`, { x: 72, y: 760, size: 20 });
  return doc.save();
}

/** One installation: a PostgreSQL database, or a PGlite data folder (reached through its owner). */
function installationOf(kind: DatabaseKind) {
  let postgres: Awaited<ReturnType<typeof createEmptyPostgresDatabase>> | null = null;
  const folder = mkdtempSync(join(tmpdir(), 'signet-queue-kill-'));
  const env = (): Record<string, string> =>
    postgres ? { DATABASE_URL: postgres.url, SIGNET_SEAL_KEY: testSealKey } : { SIGNET_DATA_DIR: folder };
  return {
    async create() {
      if (kind === 'postgres') postgres = await createEmptyPostgresDatabase();
    },
    env,
    config: (): Config => loadConfig({ ...env(), SIGNET_PUBLIC_URL: 'https://sign.example.test' }),
    /** A context of the test's own: the folder's owner while no worker runs, else its socket's client. */
    async open(): Promise<{ ctx: Context; close(): Promise<void> }> {
      const config = this.config();
      const database: DatabaseHandle = await openDatabase({
        url: config.databaseUrl,
        dataDir: config.dataDir,
        poolSize: 3,
        purpose: 'test',
      });
      await migrateToLatest(database.db);
      const ctx = await createContext(config, database.db, { log: createLogger('silent') });
      return {
        ctx,
        close: async () => {
          await ctx.close().catch(() => {});
          await database.close().catch(() => {});
        },
      };
    },
    async drop() {
      await postgres?.drop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

for (const kind of databaseKinds) {
  describe(`a worker killed mid-job leaves each queue's job to the next worker [${kind}]`, () => {
    const installation = installationOf(kind);
    const processes: SignetProcess[] = [];
    let stalling: Awaited<ReturnType<typeof startStallingSmtp>>;
    let receiver: SmtpReceiver;
    let mailDocument: string;
    let mailWorkspace: string;
    let bulk: { id: string; workspaceId: string; templateId: string };
    let file: { sha256: string; workspaceId: string };
    const atKill = { rowsSent: 0, imagesStored: 0, pagesStep: 0 };
    let killedAt = 0;
    const finishedAfterKill = { mail: 0, bulk: 0, pages: 0 };

    const common = { LOG_LEVEL: 'warn', SIGNET_DB_POOL_SIZE: '3' };

    before(async () => {
      stalling = await startStallingSmtp();
      receiver = await startSmtpReceiver();
      await installation.create();
      // Migrated, and a template for the bulk send, before any worker runs.
      let templateId: string;
      let sender: string;
      {
        const { ctx, close } = await installation.open();
        try {
          sender = (await createTestWorkspace(ctx)).id;
          templateId = (
            await createTemplate(ctx, {
              workspaceId: sender,
              name: 'Services agreement',
              title: 'Services agreement',
              body: 'Please sign.',
              roles: [{ name: 'Client', role: 'signer', signingOrder: 1, signingMethod: 'standard' }],
              fields: [{ role: 'Client', type: 'signature', page: 1, x: 72, y: 100, width: 160, height: 40 }],
              expiresInSeconds: 14 * 86_400,
              file: Buffer.from(await pdfOf(1)),
            })
          ).id;
        } finally {
          await close();
        }
      }

      // The first worker's mail server never answers: the mail it claims stays claimed.
      const first = await startSignet('worker 1', 'worker', {
        ...common,
        ...installation.env(),
        SMTP_URL: stalling.url,
      });
      processes.push(first);
      const watching = await installation.open();
      try {
        const { ctx } = watching;
        const { db } = ctx;
        // The jobs, each waking the worker as it commits: a document's invitations, a file to
        // draw, a bulk send; the worker is then killed while it holds each of them part done.
        const mailing = await createTestWorkspace(ctx);
        mailWorkspace = mailing.id;
        mailDocument = (await createSentDocument(ctx, mailing.id, { recipients: parallelSigners })).id;
        const pages = await createTestWorkspace(ctx);
        const pdf = await pdfOf(pdfPages);
        const stored = await db.transaction().execute((trx) =>
          storeFile(trx, {
            data: pdf,
            mediaType: 'application/pdf',
            pages: pdfPages,
            now: ctx.clock.now(),
            drawPagesFor: pages.id,
          }),
        );
        file = { sha256: stored.sha256, workspaceId: pages.id };
        const lines = Array.from({ length: bulkRows }, (_, i) => `c${i}@client.example,Client ${i}`);
        const started = await startBulkSend(ctx, {
          workspaceId: sender,
          templateId,
          userId: null,
          fileName: 'clients.csv',
          data: new TextEncoder().encode(['Client email,Client name', ...lines].join('\n')),
        });
        bulk = { id: started.id, workspaceId: sender, templateId };

        const leased = (end: Date | null) => end !== null && end.getTime() > Date.now();
        const seen: Record<string, unknown> = {};
        /** Whether each job is claimed (leased) and part done, as `reader` sees them now. */
        const held = async (reader: Kysely<Database> | Transaction<Database>) => {
          const mails = await reader
            .selectFrom('mails')
            .select(['locked_until', 'status'])
            .where('document_id', '=', mailDocument)
            .execute();
          const send = await reader
            .selectFrom('bulk_sends')
            .select(['locked_until', 'finished_at'])
            .where('id', '=', bulk.id)
            .executeTakeFirstOrThrow();
          const sent = await reader
            .selectFrom('bulk_send_rows')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('bulk_send_id', '=', bulk.id)
            .where('status', '=', 'sent')
            .executeTakeFirstOrThrow();
          atKill.rowsSent = Number(sent.n);
          const queued = await reader
            .selectFrom('page_image_queue')
            .select(['locked_until', 'next_step'])
            .where('sha256', '=', file.sha256)
            .executeTakeFirst();
          atKill.pagesStep = queued?.next_step ?? 0;
          atKill.imagesStored = await imagesOf(reader);
          Object.assign(seen, {
            mails,
            connections: stalling.connections(),
            send,
            atKill,
            queued: queued ?? null,
          });
          return {
            mail: stalling.connections() > 0 && mails.every((m) => leased(m.locked_until)),
            bulk: send.finished_at === null && atKill.rowsSent >= 25 && leased(send.locked_until),
            pages: queued !== undefined && queued.next_step >= 2 && leased(queued.locked_until),
          };
        };
        const allHeld = async (reader: Kysely<Database> | Transaction<Database>) => {
          const { mail, bulk: rows, pages: images } = await held(reader);
          return mail && rows && images;
        };
        const explained = (error: Error) => {
          throw new Error(`${error.message}: ${JSON.stringify(seen)}\n${first.lines.join('\n')}`);
        };
        await until(() => allHeld(db), 60_000, 'each job claimed and part done by the first worker').catch(
          explained,
        );
        // Killed while it holds them: the test holds the rows the next step of the bulk send
        // (its template, which each new document refers to) and of the drawing (the file, which
        // each stored image refers to) must lock, so the worker waits there, claims held (on
        // PGlite, whose one backend the test's transaction holds, the worker waits altogether:
        // what the transaction reads is what the worker holds as it dies).
        let killed = false;
        const deadline = Date.now() + 30_000;
        while (!killed) {
          await db
            .transaction()
            .execute(async (trx) => {
              await sql`select id from templates where id = ${templateId} for update`.execute(trx);
              await sql`select sha256 from files where sha256 = ${file.sha256} for update`.execute(trx);
              for (let look = 0; look < 25 && !killed; look++) {
                if (await allHeld(trx)) {
                  first.child.kill('SIGKILL');
                  killed = true;
                  killedAt = Date.now();
                } else await sleep(20);
              }
              throw new Error('rolled back');
            })
            .catch((error: Error) => {
              // Rolled back on purpose; or, on PGlite, its connection went with the killed owner.
              if (!killed && error.message !== 'rolled back') throw error;
            });
          if (!killed && Date.now() > deadline)
            explained(new Error('the first worker was never seen holding each job'));
        }
      } finally {
        await watching.close();
      }
      assert.equal(await first.stop(), null, 'killed');

      const second = await startSignet('worker 2', 'worker', {
        ...common,
        ...installation.env(),
        SMTP_URL: receiver.url,
      });
      processes.push(second);
      const checking = await installation.open();
      try {
        const { db } = checking.ctx;
        await until(
          async () => {
            const now = Date.now() - killedAt;
            if (!finishedAfterKill.mail) {
              const mails = await db
                .selectFrom('mails')
                .select('status')
                .where('document_id', '=', mailDocument)
                .execute();
              if (mails.every((m) => m.status === 'sent')) finishedAfterKill.mail = now;
            }
            if (!finishedAfterKill.bulk) {
              const progress = await bulkSendProgress(checking.ctx, bulk.workspaceId, bulk.id);
              if (progress.finished) finishedAfterKill.bulk = now;
            }
            if (!finishedAfterKill.pages) {
              const queued = await db
                .selectFrom('page_image_queue')
                .select('sha256')
                .where('sha256', '=', file.sha256)
                .executeTakeFirst();
              if (!queued) finishedAfterKill.pages = now;
            }
            return finishedAfterKill.mail > 0 && finishedAfterKill.bulk > 0 && finishedAfterKill.pages > 0;
          },
          120_000,
          'the second worker to finish the mail, the bulk send and the pages',
        );
      } finally {
        await checking.close();
      }
      process.stdout.write(
        `# [${kind}] killed with ${atKill.rowsSent} of ${bulkRows} rows sent and ${atKill.pagesStep} of ${
          pdfPages * 2
        } images drawn (${atKill.imagesStored} stored); finished after the kill: mail ${finishedAfterKill.mail} ms, bulk send ${
          finishedAfterKill.bulk
        } ms, pages ${finishedAfterKill.pages} ms\n`,
      );
    });

    after(async () => {
      const second = processes[1];
      // A clean stop at the end: the mail batch in hand finishes and the rest is let go.
      if (second) assert.equal(await second.stop(), 0);
      await Promise.all(processes.map((p) => p.stop(1_000)));
      await stalling?.close();
      await receiver?.close();
      await installation.drop();
    });

    async function imagesOf(reader: Kysely<Database> | Transaction<Database>): Promise<number> {
      const row = await reader
        .selectFrom('page_images')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('sha256', '=', file.sha256)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }

    /** A context on the installation for one test's checks (the second worker owns a data folder). */
    async function checked<T>(fn: (ctx: Context) => Promise<T>): Promise<T> {
      const { ctx, close } = await installation.open();
      try {
        return await fn(ctx);
      } finally {
        await close();
      }
    }

    test('the mail outbox: a mail claimed by the killed worker is sent by the next, once, within a lease or two', () =>
      checked(async (ctx) => {
        const mails = await ctx.db
          .selectFrom('mails')
          .select(['to_address', 'status', 'attempts', 'locked_until'])
          .where('document_id', '=', mailDocument)
          .orderBy('to_address')
          .execute();
        assert.deepEqual(
          mails.map((m) => [m.to_address, m.status, m.attempts, m.locked_until]),
          parallelSigners.map((r) => [r.email, 'sent', 1, null]),
          'each sent on the one attempt that reached a mail server (the killed one never did)',
        );
        const received = receiver.received
          .flatMap((r) => r.to)
          .filter((to) => mails.some((m) => m.to_address === to));
        assert.deepEqual(
          received.sort(),
          parallelSigners.map((r) => r.email).sort(),
          'each received exactly once',
        );
        assert.ok(mailWorkspace);
        assert.ok(finishedAfterKill.mail < 30_000, `sent ${finishedAfterKill.mail} ms after the kill`);
      }));

    test('the next worker logs no error', () => {
      assert.deepEqual(processes[1]?.problems(), []);
    });

    test('bulk sends: the bulk send the killed worker held is finished by the next, every row made and sent once', () =>
      checked(async (ctx) => {
        assert.ok(atKill.rowsSent < bulkRows, 'killed mid-send');
        const progress = await bulkSendProgress(ctx, bulk.workspaceId, bulk.id);
        assert.deepEqual([progress.sent, progress.failed, progress.finished], [bulkRows, 0, true]);
        const documents = await ctx.db
          .selectFrom('documents')
          .select(['id', 'status'])
          .where('template_id', '=', bulk.templateId)
          .execute();
        assert.equal(documents.length, bulkRows, 'one document a row, none made twice');
        assert.ok(documents.every((d) => d.status === 'sent'));
        const rows = await ctx.db
          .selectFrom('bulk_send_rows')
          .select(['document_id'])
          .where('bulk_send_id', '=', bulk.id)
          .execute();
        assert.equal(new Set(rows.map((r) => r.document_id)).size, bulkRows);
        const invitations = await ctx.db
          .selectFrom('mails')
          .select((eb) => ['to_address', eb.fn.countAll<string>().as('n')])
          .where('workspace_id', '=', bulk.workspaceId)
          .groupBy('to_address')
          .execute();
        assert.equal(invitations.length, bulkRows);
        assert.ok(
          invitations.every((i) => Number(i.n) === 1),
          'each row’s invitation queued once',
        );
        assert.ok(finishedAfterKill.bulk < 60_000, `finished ${finishedAfterKill.bulk} ms after the kill`);
      }));

    test('page images: the file the killed worker was drawing is drawn to its end by the next, each image stored once', () =>
      checked(async (ctx) => {
        assert.ok(atKill.pagesStep < pdfPages * 2, 'killed mid-drawing');
        const images = await ctx.db
          .selectFrom('page_images')
          .select(['page', 'width'])
          .where('sha256', '=', file.sha256)
          .execute();
        assert.equal(images.length, pdfPages * 2);
        for (const width of [1200, 240])
          assert.deepEqual(
            images
              .filter((i) => i.width === width)
              .map((i) => i.page)
              .sort((a, b) => a - b),
            Array.from({ length: pdfPages }, (_, i) => i + 1),
          );
        const failures = await ctx.db
          .selectFrom('page_image_failures')
          .select('page')
          .where('sha256', '=', file.sha256)
          .execute();
        assert.deepEqual(failures, [], 'no page given up');
        assert.ok(finishedAfterKill.pages < 90_000, `finished ${finishedAfterKill.pages} ms after the kill`);
      }));
  });
}
