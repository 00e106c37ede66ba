// `npm run bench:bulk` (and a part of `npm run bench`): a bulk send of 1,000 rows from a
// template (issue 38), from the confirmed spreadsheet to every document created and every
// first mail queued, beside a ceiling measured in the same run.
//  - Signet: a fresh PostgreSQL database, a template (a 2-page PDF, two signing roles in
//    order, a signature field each, a value asked of the sender), a spreadsheet of N rows
//    (bulk-csv.ts's own template of columns, each row another client). The clock starts when
//    `startBulkSend` is called with the file (as the confirmation's post calls it) and stops
//    when every row is `sent` and every document's first invitation is in the mail outbox;
//    the rows are made and sent by `signet serve --role worker` in a process of its own,
//    woken by the bulk send's NOTIFY, as in production. Its RSS is sampled every 50 ms: the
//    peak growth over its RSS before the file was confirmed.
//  - The ceiling: the same documents, recipients and fields written in this process with the
//    repository functions (insertDocuments, insertRecipients, replaceFields), in one
//    transaction, no worker: the rows a bulk send leaves, without the lifecycle that makes
//    each (its checks, its send, its events, mails and webhooks, a transaction per row so a
//    restart loses nothing).
// Asserts nothing: prints. Env: SIGNET_BENCH_POSTGRES_URL (admin connection),
// SIGNET_BENCH_BULK_ROWS (1,000).
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../src/config.ts';
import { type Context, createContext, createLogger } from '../src/context.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { insertDocuments, insertRecipients } from '../src/documents/documents.repository.ts';
import { replaceFields } from '../src/fields/fields.repository.ts';
import { renderTextDocument } from '../src/pdf/text-document.ts';
import { bulkCsvTemplate } from '../src/templates/bulk-csv.ts';
import { columnsOf, startBulkSend } from '../src/templates/bulk-send.ts';
import { createTemplate, getTemplate } from '../src/templates/templates.service.ts';
import { createWorkspace } from '../src/workspaces/workspaces.service.ts';
import { startChild, stopChild } from './api.ts';
import { benchDatabase } from './webhook-setup.ts';

const adminUrl = process.env.SIGNET_BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
const rowCount = Number(process.env.SIGNET_BENCH_BULK_ROWS ?? 1000);
const progress = (line: string) => process.stderr.write(`[bench bulk] ${line}\n`);

export interface BulkFigures {
  rows: number;
  /** Confirmed file → every row sent and every first invitation queued (ms). */
  bulkMs: number;
  /** The same rows written in one transaction with the repository functions (ms). */
  ceilingMs: number;
  /** The worker's RSS before, and its peak growth while sending (MB). */
  workerRssMb: number;
  workerPeakGrowthMb: number;
  documents: number;
  mails: number;
}

function rssKb(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

async function templatePdf(): Promise<Buffer> {
  const made = await renderTextDocument({
    title: 'Services agreement',
    body: 'The parties agree on the services described below.\n\n'.repeat(40),
    workspaceName: 'Northwind',
    pricing: null,
    createdAt: new Date('2026-11-01T00:00:00Z'),
  });
  return Buffer.from(made.data);
}

/** The spreadsheet: the template's columns, each row a client of its own. */
export function spreadsheet(ctxTemplate: Parameters<typeof columnsOf>[0], rows: number): Buffer {
  const header = bulkCsvTemplate(columnsOf(ctxTemplate)).split('\r\n')[0] as string;
  const lines = [header];
  for (let i = 1; i <= rows; i++) {
    // Each role's language left empty (the role's own, the workspace's default): as before it existed.
    lines.push(`client${i}@example.com,Client ${i},,ceo@northwind.example,Dana Ceo,,${100 + i} EUR`);
  }
  return Buffer.from(`${lines.join('\r\n')}\r\n`);
}

export async function makeTemplate(ctx: Context, workspaceId: string) {
  const place = (role: string, y: number, extra: object = {}) => ({
    role,
    type: 'signature',
    page: 1,
    x: 72,
    y,
    width: 180,
    height: 40,
    ...extra,
  });
  const { id } = await createTemplate(ctx, {
    workspaceId,
    name: 'Services agreement',
    title: 'Services agreement',
    body: 'Please sign.',
    roles: [
      { name: 'Client', role: 'signer', signingOrder: 1, signingMethod: 'standard' },
      { name: 'Company', role: 'signer', signingOrder: 2, signingMethod: 'standard' },
    ],
    fields: [
      place('Client', 100),
      place('Company', 100, { x: 320 }),
      place('Client', 200, { type: 'text', height: 20, label: 'Fee', senderFills: true }),
    ],
    expiresInSeconds: 30 * 24 * 3600,
    file: await templatePdf(),
  });
  return getTemplate(ctx, workspaceId, id);
}

/** Until every row is sent and every document's first invitation is queued. */
async function untilSent(ctx: Context, bulkId: string, rows: number, sample: () => void) {
  for (;;) {
    sample();
    const sent = await ctx.db
      .selectFrom('bulk_send_rows')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('bulk_send_id', '=', bulkId)
      .where('status', 'in', ['sent', 'failed'])
      .executeTakeFirstOrThrow();
    if (Number(sent.n) >= rows) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The ceiling: the rows a bulk send leaves, written at once with the repository functions. */
async function ceiling(
  ctx: Context,
  workspaceId: string,
  template: Awaited<ReturnType<typeof makeTemplate>>,
) {
  const now = ctx.clock.now();
  const started = performance.now();
  await ctx.db.transaction().execute(async (trx) => {
    const documents = Array.from({ length: rowCount }, (_, i) => ({
      id: ctx.ids.uuid(),
      workspace_id: workspaceId,
      title: template.title,
      body: template.text,
      status: 'sent' as const,
      created_at: now,
      sent_at: now,
      signed_at: null,
      expires_at: new Date(now.getTime() + template.expiresInSeconds * 1000),
      pricing: null,
      value_amount: null,
      value_currency: null,
      expires_in_seconds: template.expiresInSeconds,
      original_sha256: template.file.sha256,
      remind_every_days: null,
      template_id: template.id,
      row: i + 1,
    }));
    await insertDocuments(
      trx,
      documents.map(({ row: _row, ...document }) => document),
    );
    const recipients = documents.flatMap((document) =>
      template.roles.map((role, position) => ({
        id: ctx.ids.uuid(),
        workspace_id: workspaceId,
        document_id: document.id,
        position,
        email: role.name === 'Client' ? `client${document.row}@example.com` : 'ceo@northwind.example',
        full_name: role.name === 'Client' ? `Client ${document.row}` : 'Dana Ceo',
        role: role.role,
        signing_method: role.signingMethod,
        signing_order: role.signingOrder,
        signed_at: null,
        created_at: now,
      })),
    );
    await insertRecipients(trx, recipients);
    for (const document of documents) {
      const mine = recipients.filter((r) => r.document_id === document.id);
      const fields = template.roles.flatMap((role, r) =>
        role.fields.map((f) => ({
          id: ctx.ids.uuid(),
          workspace_id: workspaceId,
          document_id: document.id,
          recipient_id: mine[r]?.id as string,
          position: 0,
          type: f.type,
          page: f.page,
          x: f.x,
          y: f.y,
          width: f.width,
          height: f.height,
          required: f.required,
          label: f.label,
          max_length: f.maxLength,
          value: f.senderFills ? `${100 + document.row} EUR` : null,
          prefilled: f.senderFills,
        })),
      );
      await replaceFields(
        trx,
        workspaceId,
        document.id,
        fields.map((f, position) => ({ ...f, position })),
      );
    }
  });
  return performance.now() - started;
}

export async function measureBulk(): Promise<BulkFigures> {
  const database = benchDatabase(adminUrl);
  await database.create();
  const handle = await openDatabase({ url: database.url, dataDir: null, poolSize: 4 });
  let worker: ChildProcess | null = null;
  try {
    await migrateToLatest(handle.db);
    const config = loadConfig({
      SIGNET_UPLOAD_BYTES_PER_DAY: String(2 ** 50),
      SIGNET_BULK_MAX_ROWS: String(rowCount),
    });
    const ctx = await createContext(config, handle.db, { log: createLogger('warn') });
    const workspace = await createWorkspace(ctx, { name: 'Bench', plan: 'max' });
    const template = await makeTemplate(ctx, workspace.id);
    const file = spreadsheet(template, rowCount);
    progress(`a worker process, then ${rowCount} rows confirmed`);
    worker = await startChild(
      ['src/main.ts', 'serve', '--role', 'worker'],
      { DATABASE_URL: database.url, LOG_LEVEL: 'warn', SIGNET_BULK_MAX_ROWS: String(rowCount) },
      /worker is running/,
    );
    const pid = worker.pid ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = rssKb(pid);
    let peak = before;
    const started = performance.now();
    const { id } = await startBulkSend(ctx, {
      workspaceId: workspace.id,
      templateId: template.id,
      userId: null,
      fileName: 'clients.csv',
      data: file,
    });
    await untilSent(ctx, id, rowCount, () => {
      peak = Math.max(peak, rssKb(pid));
    });
    const bulkMs = performance.now() - started;
    const count = async (table: 'documents' | 'mails') =>
      Number(
        (
          await handle.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const documents = await count('documents');
    const mails = await count('mails');
    progress('the ceiling: the same rows in one transaction');
    const ceilingMs = await ceiling(ctx, workspace.id, template);
    return {
      rows: rowCount,
      bulkMs,
      ceilingMs,
      workerRssMb: before / 1024,
      workerPeakGrowthMb: (peak - before) / 1024,
      documents,
      mails,
    };
  } finally {
    if (worker) await stopChild(worker);
    await handle.close();
    await database.drop();
  }
}

export function bulkRows(f: BulkFigures): Array<[string, string, string, string]> {
  return [
    [
      `Bulk send of ${f.rows.toLocaleString('en')} rows from a template: confirmed file → every document sent and its first mail queued (ms; ceiling: the same documents, recipients and fields inserted in one transaction; goal ≤ 3 ×)`,
      f.bulkMs.toFixed(0),
      f.ceilingMs.toFixed(0),
      (f.bulkMs / f.ceilingMs).toFixed(2),
    ],
    [
      'Bulk send: the worker’s peak RSS growth (MB; goal < 100; ceiling: its RSS before)',
      f.workerPeakGrowthMb.toFixed(1),
      f.workerRssMb.toFixed(1),
      (f.workerPeakGrowthMb / f.workerRssMb).toFixed(2),
    ],
  ];
}

export function bulkDetails(f: BulkFigures): string[] {
  return [
    `${f.rows.toLocaleString('en')} rows: ${(f.bulkMs / f.rows).toFixed(1)} ms a row (${((f.rows * 1000) / f.bulkMs).toFixed(0)} rows/s); documents the bulk send made ${f.documents.toLocaleString('en')}, mails it queued ${f.mails.toLocaleString('en')} (each row's first signer's invitation)`,
    `the worker's RSS before ${f.workerRssMb.toFixed(0)} MB, peak growth ${f.workerPeakGrowthMb.toFixed(1)} MB`,
  ];
}

async function main() {
  const started = Date.now();
  const figures = await measureBulk();
  console.log(`\nnpm run bench:bulk: ${new Date().toISOString()}\n`);
  for (const line of bulkDetails(figures)) console.log(`  ${line}`);
  console.log('\n| Figure | Measured | Ceiling (same run) | Ratio |');
  console.log('|---|---:|---:|---:|');
  for (const [figure, measured, ceilingValue, ratio] of bulkRows(figures))
    console.log(`| ${figure} | ${measured} | ${ceilingValue} | ${ratio} |`);
  console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

if (import.meta.main) await main();
