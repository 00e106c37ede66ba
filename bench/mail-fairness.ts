// `npm run bench:mail-fairness` (and a part of `npm run bench`): the mail outbox's fairness
// (issue 49 §2). How long a one-time signing code's mail waits, queued → received by an SMTP
// server, while another workspace's bulk send of 1,000 rows is going out, beside the same
// wait on a quiet outbox, both measured in the same run. Goal: at most 2 × the quiet wait
// and under 10 s (before, one shared queue at one pace held it back minutes).
//  - Signet: a fresh PostgreSQL database, `signet serve --role worker` in a process of its
//    own (the real mail path: its wake loops, NOTIFY, claims, the pace counted in the table,
//    nodemailer over SMTP), at the default pace (SIGNET_MAIL_PER_MINUTE unset: 600), mailing
//    an SMTP receiver in this process that notes when each mail arrives. A code is asked for
//    in this process with the service the signing page's post calls (requestSigningCode), on
//    the same database: the mail row it queues is what the worker sends, and its created_at
//    (this process's clock, as the receiver's) starts the wait.
//  - Quiet: workspace B's signers ask for a code one after the other on an outbox with
//    nothing else in it.
//  - Under load: workspace A confirms a bulk send of 1,000 rows from a template (the
//    worker makes and sends a document a row, 25 rows a transaction, and queues each row's
//    invitation, bulk); once its first invitations arrive, more of B's signers ask for a
//    code, spread over the first half minute of the send (while the worker is still making
//    rows, then while bulk mail fills the pace).
// Asserts nothing: prints. Env: SIGNET_BENCH_POSTGRES_URL (admin connection),
// SIGNET_BENCH_FAIRNESS_ROWS (1,000).

import type { ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { loadConfig } from '../src/config.ts';
import { type Context, createContext, createLogger } from '../src/context.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { translator } from '../src/i18n/messages.ts';
import { urgentReserve } from '../src/mail/mail.service.ts';
import { createDocument } from '../src/sending/drafts.ts';
import { sendDocument } from '../src/sending/send.ts';
import { findMailedSigningLinks } from '../src/sending/signing-links.ts';
import { requestSigningCode } from '../src/signing/codes.ts';
import { findSigningSession, type SigningSession } from '../src/signing/session.ts';
import { startBulkSend } from '../src/templates/bulk-send.ts';
import { createWorkspace } from '../src/workspaces/workspaces.service.ts';
import { median, startChild, stopChild } from './api.ts';
import { makeTemplate, spreadsheet } from './bulk-send.ts';
import { benchDatabase } from './webhook-setup.ts';

/** What the one-time code mail's subject starts with, in English (i18n/catalogues/en.json). */
const codeSubjectPrefix = translator('en').t('mail.code.subject', { title: '' });

const adminUrl = process.env.SIGNET_BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
const rowCount = Number(process.env.SIGNET_BENCH_FAIRNESS_ROWS ?? 1000);
/** Codes asked on the quiet outbox, and when (ms after the bulk send's first mail) under load. */
const quietAsks = 5;
const loadedOffsetsMs = [0, 500, 1000, 2000, 3000, 5000, 8000, 13_000, 20_000, 30_000];
const progress = (line: string) => process.stderr.write(`[bench mail-fairness] ${line}\n`);

export interface MailFairnessFigures {
  rows: number;
  pace: number;
  /** Each code's wait, queued → received (ms). */
  quietMs: number[];
  loadedMs: number[];
  /** Bulk invitations received when each loaded code was asked for. */
  bulkReceivedAtAsk: number[];
  /** Bulk invitations received by the end, and over how long (ms from the first). */
  bulkReceived: number;
  /** The bulk send's invitations queued by the end (the rest of its rows not yet made). */
  bulkQueued: number;
  bulkSpanMs: number;
}

/** An SMTP server on loopback that notes when each mail arrives, by addressee. */
async function startReceiver() {
  const arrivals: Array<{ to: string; at: number; isCode: boolean }> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const at = Date.now();
        const raw = Buffer.concat(chunks).toString('utf8');
        // The code mail's subject as the catalogue words it (its title after the prefix).
        const isCode = raw.includes(`Subject: ${codeSubjectPrefix}`);
        for (const to of session.envelope.rcptTo) arrivals.push({ to: to.address, at, isCode });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    arrivals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

async function until(condition: () => boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Workspace B's signers, each of a document of their own, their invitations received. */
async function codeSigners(ctx: Context, receiver: Receiver, count: number): Promise<SigningSession[]> {
  const workspace = await createWorkspace(ctx, { name: 'Victim', plan: 'max' });
  const sessions: SigningSession[] = [];
  for (let i = 0; i < count; i++) {
    const email = `signer${i}@victim.example`;
    const { id } = await createDocument(ctx, {
      workspaceId: workspace.id,
      title: `Contract ${i}`,
      body: 'Please sign.',
      pricing: null,
      recipients: [
        { email, fullName: `Signer ${i}`, role: 'signer', signingMethod: 'email-code', signingOrder: 1 },
      ],
    });
    await sendDocument(ctx, workspace.id, id);
    const recipients = await ctx.db
      .selectFrom('recipients')
      .select(['id', 'email'])
      .where('document_id', '=', id)
      .execute();
    const link = (await findMailedSigningLinks(ctx, workspace.id, { id, recipients })).values().next().value;
    const session =
      link && (await findSigningSession(ctx, id, new URL(link).pathname.split('/').pop() ?? ''));
    if (!session) throw new Error(`no signing link for ${email}`);
    sessions.push(session);
  }
  await until(
    () => receiver.arrivals.filter((a) => a.to.endsWith('@victim.example')).length >= count,
    60_000,
    "the victim's invitations",
  );
  return sessions;
}

/** One code asked for and received: its wait from the mail's row to its arrival (ms). */
async function codeWait(ctx: Context, receiver: Receiver, session: SigningSession): Promise<number> {
  const { sentTo } = await requestSigningCode(ctx, session);
  await until(
    () => receiver.arrivals.some((a) => a.to === sentTo && a.isCode),
    120_000,
    `the code to ${sentTo}`,
  );
  const mail = await ctx.db
    .selectFrom('mails')
    .select('created_at')
    .where('recipient_id', '=', session.recipientId)
    .where('subject', 'like', `${codeSubjectPrefix}%`)
    .executeTakeFirstOrThrow();
  const arrived = receiver.arrivals.find((a) => a.to === sentTo && a.isCode)?.at ?? Number.NaN;
  return arrived - mail.created_at.getTime();
}

export async function measureMailFairness(): Promise<MailFairnessFigures> {
  const database = benchDatabase(adminUrl);
  await database.create();
  const handle = await openDatabase({ url: database.url, dataDir: null, poolSize: 4 });
  const receiver = await startReceiver();
  let worker: ChildProcess | null = null;
  try {
    await migrateToLatest(handle.db);
    const config = loadConfig({
      SIGNET_UPLOAD_BYTES_PER_DAY: String(2 ** 50),
      SIGNET_BULK_MAX_ROWS: String(rowCount),
      SMTP_URL: receiver.url,
    });
    const ctx = await createContext(config, handle.db, { log: createLogger('warn') });
    worker = await startChild(
      ['src/main.ts', 'serve', '--role', 'worker'],
      {
        DATABASE_URL: database.url,
        LOG_LEVEL: 'warn',
        SIGNET_BULK_MAX_ROWS: String(rowCount),
        SMTP_URL: receiver.url,
      },
      /worker is running/,
    );
    progress(`${quietAsks + loadedOffsetsMs.length} signers of workspace B, invited`);
    const sessions = await codeSigners(ctx, receiver, quietAsks + loadedOffsetsMs.length);
    const quiet = sessions.slice(0, quietAsks);
    const loaded = sessions.slice(quietAsks);

    progress(`${quietAsks} codes on a quiet outbox`);
    const quietMs: number[] = [];
    for (const session of quiet) {
      quietMs.push(await codeWait(ctx, receiver, session));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    progress(`workspace A confirms a bulk send of ${rowCount} rows`);
    const bulkWorkspace = await createWorkspace(ctx, { name: 'Bulk', plan: 'max' });
    const template = await makeTemplate(ctx, bulkWorkspace.id);
    await startBulkSend(ctx, {
      workspaceId: bulkWorkspace.id,
      templateId: template.id,
      userId: null,
      fileName: 'clients.csv',
      data: spreadsheet(template, rowCount),
    });
    const bulkArrivals = () => receiver.arrivals.filter((a) => a.to.endsWith('@example.com'));
    await until(() => bulkArrivals().length > 0, 60_000, "the bulk send's first invitation");
    const firstBulk = bulkArrivals()[0]?.at ?? Date.now();
    progress(`${loaded.length} codes while it goes out, over ${loadedOffsetsMs.at(-1)} ms`);
    const waits = await Promise.all(
      loaded.map(async (session, i) => {
        const offset = loadedOffsetsMs[i] ?? 0;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, firstBulk + offset - Date.now())));
        const receivedAtAsk = bulkArrivals().length;
        return { wait: await codeWait(ctx, receiver, session), receivedAtAsk };
      }),
    );
    const bulk = bulkArrivals();
    const queued = await ctx.db
      .selectFrom('mails')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('workspace_id', '=', bulkWorkspace.id)
      .executeTakeFirstOrThrow();
    return {
      bulkQueued: Number(queued.n),
      rows: rowCount,
      pace: config.mailPerMinute,
      quietMs,
      loadedMs: waits.map((w) => w.wait),
      bulkReceivedAtAsk: waits.map((w) => w.receivedAtAsk),
      bulkReceived: bulk.length,
      bulkSpanMs: (bulk.at(-1)?.at ?? firstBulk) - firstBulk,
    };
  } finally {
    if (worker) await stopChild(worker);
    await receiver.close();
    await handle.close();
    await database.drop();
  }
}

const maximum = (values: number[]) => values.reduce((max, v) => Math.max(max, v), Number.NEGATIVE_INFINITY);

export function mailFairnessRows(f: MailFairnessFigures): Array<[string, string, string, string]> {
  const loaded = median(f.loadedMs);
  const quiet = median(f.quietMs);
  return [
    [
      `Mail fairness: a one-time code's mail, queued → received by SMTP, while another workspace bulk-sends ${f.rows.toLocaleString('en')} rows (ms, median of ${f.loadedMs.length}; ceiling: the same wait on a quiet outbox; goal ≤ 2 × and < 10 s)`,
      loaded.toFixed(0),
      quiet.toFixed(0),
      (loaded / quiet).toFixed(2),
    ],
    [
      "Mail fairness: the slowest of those codes (ms; ceiling: the quiet outbox's median)",
      maximum(f.loadedMs).toFixed(0),
      quiet.toFixed(0),
      (maximum(f.loadedMs) / quiet).toFixed(2),
    ],
  ];
}

export function mailFairnessDetails(f: MailFairnessFigures): string[] {
  const list = (values: number[]) => values.map((v) => v.toFixed(0)).join(', ');
  return [
    `pace ${f.pace} mails a minute (the default); quiet outbox, each code's wait (ms): ${list(f.quietMs)}`,
    `under the bulk send (ms): ${list(f.loadedMs)}; bulk invitations already received at each ask: ${f.bulkReceivedAtAsk.join(', ')}`,
    `the bulk send's invitations queued by the end: ${f.bulkQueued.toLocaleString('en')}, received: ${f.bulkReceived.toLocaleString('en')} over ${(f.bulkSpanMs / 1000).toFixed(1)} s (the pace less the part kept for urgent mail: ${f.pace - urgentReserve(f.pace)} a minute)`,
  ];
}

async function main() {
  const started = Date.now();
  const figures = await measureMailFairness();
  console.log(`\nnpm run bench:mail-fairness: ${new Date().toISOString()}\n`);
  for (const line of mailFairnessDetails(figures)) console.log(`  ${line}`);
  console.log('\n| Figure | Measured | Ceiling (same run) | Ratio |');
  console.log('|---|---:|---:|---:|');
  for (const [figure, measured, ceilingValue, ratio] of mailFairnessRows(figures))
    console.log(`| ${figure} | ${measured} | ${ceilingValue} | ${ratio} |`);
  console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

if (import.meta.main) await main();
