// Bulk sends (issue 38): a template sent to every good row of a spreadsheet. The sender's
// file is read (bulk-csv.ts) for a preview, read again when confirmed and stored with its good
// rows; the worker (`sendDueBulkRows`) makes and sends a document per row with the services a
// single document uses, a batch of rows in one transaction (their forms for several
// documents). Each row's progress is written in the transaction of the change it records
// (migration 0035), so a restart in the middle loses nothing and sends nothing twice.
// Its progress and results are read by bulk-progress.ts.
import { setImmediate } from 'node:timers/promises';
import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import { notifyChannel } from '../db/notify.ts';
import type { Database, PageSize, RowReason } from '../db/schema.ts';
import { findDocument } from '../documents/documents.repository.ts';
import { DocumentActionError, refusalKeys } from '../documents/lifecycle.ts';
import { pageSizesOf } from '../fields/fields.service.ts';
import { ApiError } from '../http/errors.ts';
import { firstLanguage } from '../i18n/languages.ts';
import { type KeyedSentence, translator } from '../i18n/messages.ts';
import { problemsOf, refusalOf } from '../i18n/refusals.ts';
import { InputError } from '../input-error.ts';
import { queueMail } from '../mail/mail.service.ts';
import { bulkSendEndMail } from '../mail/templates.ts';
import { whileLeased } from '../queue/heartbeat.ts';
import { type CheckedDraft, checkDraft, createDocument, createDrafts } from '../sending/drafts.ts';
import { sendDocument, sendDrafts } from '../sending/send.ts';
import type { BulkColumn, BulkProblem, BulkRow, BulkSheet } from './bulk-csv.ts';
import { readBulkCsvInThread } from './bulk-csv-thread.ts';
import { bulkSendSummary } from './bulk-progress.ts';
import { bulkQueue } from './bulk-queue.ts';
import {
  type BulkClaim,
  type BulkRowChange,
  claimBulkSend,
  findOpenBulkRows,
  finishOrReleaseBulkSend,
  insertBulkSend,
  markBulkRowsSent,
  moveBulkRow,
  type OpenBulkRow,
} from './bulk-sends.repository.ts';
import { getTemplate, type TemplateDetail } from './templates.service.ts';
import { askedValues, asTemplateUseError, documentInputOf, type UseTemplateInput } from './use-template.ts';

/** NOTIFYed when a bulk send is stored: a worker starts on it at once. */
export const bulkChannel = 'signet_bulk';

/**
 * Rows made, sent and marked sent in one transaction (sendBatch): all of them or none, so a
 * restart loses nothing and sends nothing twice, and each kind of row of the batch is
 * written with one statement (drafts.ts createDrafts, send.ts sendDrafts): about 1 statement
 * a row instead of 23.5 when each row had its two transactions. `npm run bench:bulk`, 1,000
 * rows on the shared 2-core machine (load 4 to 10): 2.5 to 8.1 s, 1.5 to 3.1 × the ceiling
 * (median 1.9 ×, 11 runs), where four rows at once in their own transactions took 11.7 to
 * 25.2 s, 7.4 to 16.2 × (8.1 s, 7.2 × quiet); 10 rows a transaction took 7.3 s (5.5 ×),
 * 50 took 15.8 s (2.2 ×, 113 MB of RSS), one run each under load 10 (docs/performance.md).
 */
const rowsAtOnce = 25;
/** Rows one claim works through before the bulk send is let go (another may take it). */
const batchRows = 50;

/**
 * The columns of a template's spreadsheet: each role's email, name and language (which may be
 * left out: the role's default, else the workspace's), then each asked value.
 */
export function columnsOf(template: Pick<TemplateDetail, 'roles'>): BulkColumn[] {
  const people = template.roles.flatMap((role): BulkColumn[] => [
    { key: `email:${role.name}`, header: `${role.name} email`, kind: 'email', required: true },
    { key: `name:${role.name}`, header: `${role.name} name`, kind: 'name', required: true },
    { key: `language:${role.name}`, header: `${role.name} language`, kind: 'language', required: false },
  ]);
  const values = askedValues(template).map(
    (asked): BulkColumn => ({
      key: `value:${asked.label}`,
      header: asked.label,
      kind: asked.type === 'date' ? 'date' : asked.type === 'checkbox' ? 'checkbox' : 'text',
      required: asked.required,
      ...(asked.maxLength === null ? {} : { maxLength: asked.maxLength }),
    }),
  );
  return [...people, ...values];
}

/** A good row as use-template.ts takes it. */
function useInputOf(template: Pick<TemplateDetail, 'roles'>, row: BulkRow): UseTemplateInput {
  const recipients: UseTemplateInput['recipients'] = {};
  for (const role of template.roles) {
    recipients[role.name] = {
      email: String(row.values[`email:${role.name}`] ?? ''),
      fullName: String(row.values[`name:${role.name}`] ?? ''),
      language: String(row.values[`language:${role.name}`] ?? '') || null,
    };
  }
  const values: Record<string, string | boolean> = {};
  for (const asked of askedValues(template)) values[asked.label] = row.values[`value:${asked.label}`] ?? '';
  return { recipients, values };
}

export interface BulkPreviewRow {
  row: number;
  /** Each role's person; `language` as the row gives it (null: the role's default, else the workspace's). */
  people: Array<{ role: string; email: string; fullName: string; language: string | null }>;
  values: Array<{ label: string; value: string | boolean }>;
}

export interface BulkPreview {
  template: TemplateDetail;
  /** The file's data rows (empty ones not counted), and how many of them can be sent. */
  totalRows: number;
  goodRows: number;
  /** Why the file cannot be sent at all (no good row, a problem of the whole file), or null. */
  refusal: KeyedSentence | null;
  problems: BulkProblem[];
  /** What the sender should look at in rows that are sent all the same (a person on two rows). */
  warnings: BulkProblem[];
  ignoredColumns: string[];
  /** The first good rows as they will be sent. */
  firstRows: BulkPreviewRow[];
}

const previewRows = 10;

/** What the preview page shows of a spreadsheet for a template; nothing is stored. */
export async function previewBulkSend(
  ctx: Context,
  workspaceId: string,
  templateId: string,
  file: Uint8Array,
): Promise<BulkPreview> {
  const template = await getTemplate(ctx, workspaceId, templateId);
  const sheet = await readBulkCsvInThread(file, columnsOf(template), { maxRows: ctx.config.bulkMaxRows });
  return {
    template,
    totalRows: sheet.totalRows,
    goodRows: sheet.rows.length,
    refusal: sheetRefusal(sheet),
    problems: sheet.problems,
    warnings: sheet.warnings,
    ignoredColumns: sheet.ignoredColumns,
    firstRows: sheet.rows.slice(0, previewRows).map((row) => {
      const input = useInputOf(template, row);
      return {
        row: row.row,
        people: template.roles.map((role) => ({
          role: role.name,
          email: input.recipients[role.name]?.email ?? '',
          fullName: input.recipients[role.name]?.fullName ?? '',
          language: input.recipients[role.name]?.language ?? null,
        })),
        values: Object.entries(input.values ?? {}).map(([label, value]) => ({ label, value })),
      };
    }),
  };
}

/**
 * Why no row of the file is sent: none is good, or the file as a whole has a problem (too
 * many rows, a column missing): sending the rows read would send part of a file by surprise.
 */
function sheetRefusal(sheet: BulkSheet): KeyedSentence | null {
  const whole = sheet.problems.find((p) => p.row === null || p.row === 1);
  if (whole) return whole.sentence;
  return sheet.rows.length === 0 ? { key: 'bulk.problem.noGoodRow' } : null;
}

export interface StartBulkSendInput {
  workspaceId: string;
  templateId: string;
  userId: string | null;
  fileName: string;
  data: Uint8Array;
}

/**
 * Stores a confirmed bulk send with its good rows, and its refused rows with their problems
 * (for the results file), all in one transaction, and wakes the worker. The file is read
 * again here: a preview kept in the browser is never trusted. An InputError (`file`) when no
 * row can be sent.
 */
export async function startBulkSend(ctx: Context, input: StartBulkSendInput): Promise<{ id: string }> {
  const template = await getTemplate(ctx, input.workspaceId, input.templateId);
  const sheet = await readBulkCsvInThread(input.data, columnsOf(template), {
    maxRows: ctx.config.bulkMaxRows,
  });
  const refusal = sheetRefusal(sheet);
  if (refusal) throw refusalOf({ file: { key: 'bulk.problem.nothingSent', parts: { refusal } } });
  const id = ctx.ids.uuid();
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await insertBulkSend(
      trx,
      {
        id,
        workspace_id: input.workspaceId,
        template_id: template.id,
        template_name: template.name,
        file_name: input.fileName.slice(0, 255),
        created_by: input.userId,
        total: sheet.rows.length,
        created_at: now,
      },
      [
        ...sheet.rows.map((row) => ({ row: row.row, input: JSON.stringify(useInputOf(template, row)) })),
        ...refusedRows(sheet),
      ],
    );
    await notifyChannel(trx, bulkChannel);
  });
  return { id };
}

/**
 * Each row the check refused, with its problems' sentences (a file's own problems refuse it
 * whole): the results file's, as the rows the worker fails (bulk-progress.ts).
 */
function refusedRows(sheet: BulkSheet): Array<{ row: number; refusal: RowReason }> {
  const byRow = new Map<number, RowReason>();
  for (const problem of sheet.problems) {
    if (problem.row === null || problem.row < 2) continue;
    byRow.set(problem.row, [...(byRow.get(problem.row) ?? []), problem.sentence]);
  }
  return [...byRow].map(([row, refusal]) => ({ row, refusal }));
}

/** Thrown in a row's transaction when its status is no longer the one read: undone, skipped. */
class RowMovedOn extends Error {}

/** The row moved on in `trx` from `from`; RowMovedOn when it had already moved (another worker). */
async function moveRow(
  trx: Transaction<Database>,
  row: { bulkSendId: string; row: number },
  from: 'pending' | 'created',
  set: BulkRowChange,
): Promise<void> {
  if (!(await moveBulkRow(trx, row, from, set))) throw new RowMovedOn();
}

export interface BulkPassOptions {
  /** At most this many rows in the pass (default: one batch). */
  limit?: number;
  /** Checked between batches: a stop lets the batch in hand finish and starts no other. */
  stopping?: () => boolean;
}

/**
 * One pass of the worker: claims an unfinished bulk send (another worker's lease is skipped
 * until it runs out) and works through a batch of its open rows, in row order. Returns the
 * rows it moved on (0: nothing to do).
 */
export async function sendDueBulkRows(ctx: Context, options: BulkPassOptions = {}): Promise<number> {
  const now = ctx.clock.now();
  const claim = await claimBulkSend(ctx.db, now, bulkQueue.leaseFrom(now, ctx.config));
  if (!claim) return 0;
  let done = 0;
  // The lease renewed while the rows go out; one taken over (its lease ran out) is left to
  // its new holder at the next transaction of rows, each of which moves its rows only once.
  await whileLeased(
    ctx,
    bulkQueue,
    () => [claim.held],
    async () => {
      const template = await templateOf(ctx, claim);
      // The same for every row: read once, not once a row.
      const pageSizes = template ? await pageSizesOf(ctx.db, template.file.sha256) : [];
      const open = await findOpenBulkRows(ctx.db, claim.id, Math.min(options.limit ?? batchRows, batchRows));
      for (let at = 0; at < open.length && !claim.held.lost; at += rowsAtOnce) {
        if (options.stopping?.()) break;
        const rows = open.slice(at, at + rowsAtOnce);
        await sendRows(ctx, claim, template && { template, pageSizes }, rows);
        done += rows.length;
        // PGlite answers in microtasks: without a turn of the event loop between rows, a long
        // bulk send would keep every request of this process (and its sockets) waiting.
        await setImmediate();
      }
    },
  );
  if (!claim.held.lost) await endPass(ctx, claim);
  return done;
}

/**
 * A pass ends: the claim let go, and when that finished the bulk send, its end mailed to the
 * member who started it (still a member of the workspace), in their language, else the
 * workspace's, in the same transaction: a crash before the commit leaves the send unfinished,
 * to be finished, and mailed, by the next pass.
 */
async function endPass(ctx: Context, claim: BulkClaim): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await finishOrReleaseBulkSend(trx, claim, ctx.clock.now());
    // Only the claim's holder finishes a send, and a finished one is never claimed again.
    const summary = await bulkSendSummary(trx, claim.workspaceId, claim.id);
    if (!summary?.finished) return;
    const starter = await trx
      .selectFrom('bulk_sends as b')
      .innerJoin('memberships as m', (join) =>
        join.onRef('m.user_id', '=', 'b.created_by').onRef('m.workspace_id', '=', 'b.workspace_id'),
      )
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .innerJoin('workspaces as w', 'w.id', 'b.workspace_id')
      .select(['u.email', 'u.language', 'w.default_language'])
      .where('b.id', '=', claim.id)
      .executeTakeFirst();
    if (!starter) return;
    await queueMail(trx, ctx, {
      workspaceId: claim.workspaceId,
      documentId: null,
      recipientId: null,
      to: starter.email,
      priority: 'automatic',
      ...bulkSendEndMail(translator(firstLanguage(starter.language, starter.default_language)), {
        file: summary.fileName,
        template: summary.templateName,
        sent: summary.sent,
        failed: summary.failed,
        refused: summary.refused,
        link: `${ctx.config.publicUrl}/bulk/${claim.id}`,
      }),
    });
  });
}

/** The bulk send's template, with its PDF's page sizes. */
type RowTemplate = { template: TemplateDetail; pageSizes: PageSize[] };

/**
 * Rows made and sent together: the pending ones whose input passes createDocument's checks
 * in one transaction (sendBatch); the others, and all of them when the batch is undone, one
 * at a time, each to its own outcome (sendRow).
 */
async function sendRows(
  ctx: Context,
  claim: BulkClaim,
  template: RowTemplate | null,
  rows: OpenBulkRow[],
): Promise<void> {
  const batch: Array<{ open: OpenBulkRow; draft: CheckedDraft }> = [];
  for (const open of rows) {
    const draft = template && open.status === 'pending' ? await checkedRow(ctx, claim, template, open) : null;
    if (draft) batch.push({ open, draft });
  }
  const sent = batch.length > 0 && (await sendBatch(ctx, claim, batch));
  for (const open of rows) {
    if (sent && batch.some((b) => b.open === open)) continue;
    await sendRow(ctx, claim, template, open);
  }
}

/** The row's draft, checked; null when refused (sendRow fails it with the refusal's reason). */
async function checkedRow(
  ctx: Context,
  claim: BulkClaim,
  template: RowTemplate,
  open: OpenBulkRow,
): Promise<CheckedDraft | null> {
  try {
    return await checkDraft(ctx, await rowDocumentInput(ctx, claim, template, open.input));
  } catch (error) {
    if (refusalReason(error) === null) throw error;
    return null;
  }
}

/**
 * Checked pending rows made, sent and marked sent in one transaction: all of them or none.
 * False when it was undone by a refusal of one of them, or a row another worker moved on.
 */
async function sendBatch(
  ctx: Context,
  claim: BulkClaim,
  batch: Array<{ open: OpenBulkRow; draft: CheckedDraft }>,
): Promise<boolean> {
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await createDrafts(
        trx,
        ctx,
        batch.map((b) => b.draft),
      );
      await sendDrafts(
        trx,
        ctx,
        claim.workspaceId,
        batch.map((b) => b.draft.id),
        'bulk',
      );
      const rows = batch.map((b) => ({ row: b.open.row_number, documentId: b.draft.id }));
      if (!(await markBulkRowsSent(trx, claim.id, rows))) throw new RowMovedOn();
    });
    return true;
  } catch (error) {
    if (error instanceof RowMovedOn || refusalReason(error) !== null) return false;
    throw error;
  }
}

/** The bulk send's template, or null when it was deleted since (its pending rows then fail). */
async function templateOf(ctx: Context, claim: BulkClaim): Promise<TemplateDetail | null> {
  if (!claim.templateId) return null;
  try {
    return await getTemplate(ctx, claim.workspaceId, claim.templateId);
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
}

const deletedTemplate: RowReason = [{ key: 'bulk.rowFailed.templateDeleted' }];

/** A pending row made and sent, or a created row sent; a refusal of its checks marks it failed. */
async function sendRow(
  ctx: Context,
  claim: BulkClaim,
  template: RowTemplate | null,
  open: OpenBulkRow,
): Promise<void> {
  const row = { bulkSendId: claim.id, row: open.row_number };
  let stage = open.status === 'pending' ? ('pending' as const) : ('created' as const);
  try {
    let documentId = open.document_id;
    if (stage === 'pending') {
      if (!template) return await failRow(ctx, row, 'pending', deletedTemplate);
      const id = ctx.ids.uuid();
      await createDocument(ctx, await rowDocumentInput(ctx, claim, template, open.input), {
        id,
        last: (trx) => moveRow(trx, row, 'pending', { status: 'created', document_id: id }),
      }).catch((error: unknown) => {
        // "Recipient 2: …" as the spreadsheet says it: "Company: …".
        throw error instanceof InputError ? asTemplateUseError(error, template.template) : error;
      });
      documentId = id;
      stage = 'created';
    }
    if (!documentId) return await failRow(ctx, row, 'created', deletedDocument);
    await sendCreated(ctx, claim, row, documentId);
  } catch (error) {
    if (error instanceof RowMovedOn) return;
    const reason = refusalReason(error);
    if (reason === null) throw error;
    await failRow(ctx, row, stage, reason);
  }
}

const deletedDocument: RowReason = [{ key: 'bulk.rowFailed.documentDeleted' }];

async function rowDocumentInput(ctx: Context, claim: BulkClaim, of: RowTemplate, input: unknown) {
  const { template, pageSizes } = of;
  try {
    const document = await documentInputOf(
      ctx,
      claim.workspaceId,
      template,
      input as UseTemplateInput,
      pageSizes,
    );
    return { ...document, createdBy: claim.createdBy };
  } catch (error) {
    throw error instanceof InputError ? asTemplateUseError(error, template) : error;
  }
}

/** Sends a created row's draft; one already sent (a restart after its send) is marked sent. */
async function sendCreated(
  ctx: Context,
  claim: BulkClaim,
  row: { bulkSendId: string; row: number },
  documentId: string,
): Promise<void> {
  try {
    await sendDocument(
      ctx,
      claim.workspaceId,
      documentId,
      (trx) => moveRow(trx, row, 'created', { status: 'sent' }),
      'bulk',
    );
  } catch (error) {
    if (!(error instanceof DocumentActionError) && !(error instanceof ApiError)) throw error;
    const document = await findDocument(ctx.db, claim.workspaceId, documentId);
    if (!document) return failRow(ctx, row, 'created', deletedDocument);
    if (document.status === 'draft') throw error;
    await ctx.db.transaction().execute((trx) => moveRow(trx, row, 'created', { status: 'sent' }));
  }
}

/** The reason of a refusal of the row's own checks, or null for any other failure (retried). */
function refusalReason(error: unknown): RowReason | null {
  if (error instanceof InputError) {
    const problems = Object.values(problemsOf(error));
    return problems.length > 0 ? problems : [error.message];
  }
  if (error instanceof DocumentActionError) return [{ key: refusalKeys[error.refusal] }];
  return null;
}

async function failRow(
  ctx: Context,
  row: { bulkSendId: string; row: number },
  from: 'pending' | 'created',
  reason: RowReason,
): Promise<void> {
  try {
    await ctx.db.transaction().execute((trx) => moveRow(trx, row, from, { status: 'failed', reason }));
  } catch (error) {
    // Another worker moved it on meanwhile (a lease that ran out): its word stands.
    if (!(error instanceof RowMovedOn)) throw error;
  }
}
