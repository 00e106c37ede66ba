// A bulk send's progress (issue 38): its counts (created, sent, failed, and mailed: the rows
// whose document's invitation the mail outbox delivered), its failed rows with their
// sentences, the results file, and a template's bulk sends. Reads only; the sending is
// bulk-send.ts's.
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database, RowReason } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Translator } from '../i18n/messages.ts';
import { sentenceIn } from '../i18n/refusals.ts';
import { type BulkResult, bulkResultsCsv } from './bulk-csv.ts';
import {
  findBulkResultRows,
  findBulkSendCounts,
  findFailedBulkRows,
  findFirstMailStatuses,
} from './bulk-sends.repository.ts';

export interface BulkSendSummary {
  id: string;
  templateId: string | null;
  templateName: string;
  fileName: string;
  createdAt: Date;
  total: number;
  created: number;
  sent: number;
  failed: number;
  /** Rows of the file its check refused (not in `total`): stored for the results file. */
  refused: number;
  /** Rows whose document's first invitation mail was delivered (the outbox's status). */
  mailed: number;
  finished: boolean;
}

export interface BulkFailedRow {
  row: number;
  /** Why it failed: each sentence keyed, or English where its rule has none (and for rows failed before reasons were kept). */
  reason: RowReason;
}

/** A stored row's reason: its sentences, else its English `error` (a row failed before migration 0044). */
function reasonOf(r: { reason: RowReason | null; error: string | null }): RowReason {
  return Array.isArray(r.reason) && r.reason.length > 0 ? r.reason : [r.error ?? ''];
}

/** A reason in `tr`'s language, its sentences one after another. */
export function reasonIn(reason: RowReason, tr: Translator): string {
  return reason.map((sentence) => sentenceIn(sentence, tr)).join(' ');
}

/** A bulk send's counts; not-found for another workspace's. */
export async function bulkSendProgress(
  ctx: Context,
  workspaceId: string,
  id: string,
): Promise<BulkSendSummary> {
  const found = await bulkSendSummary(ctx.db, workspaceId, id);
  if (!found) throw new ApiError('not-found');
  return found;
}

/** The workspace's bulk sends of a template, newest first (at most `limit`). */
export async function listBulkSends(
  ctx: Context,
  workspaceId: string,
  templateId: string,
  limit = 20,
): Promise<BulkSendSummary[]> {
  return summaries(ctx.db, workspaceId, { templateId, limit });
}

/** A bulk send's counts read in `db` (a transaction's), or null for none of the workspace's. */
export async function bulkSendSummary(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
): Promise<BulkSendSummary | null> {
  const [found] = await summaries(db, workspaceId, { id });
  return found ?? null;
}

async function summaries(
  db: Kysely<Database>,
  workspaceId: string,
  where: { id?: string; templateId?: string; limit?: number },
): Promise<BulkSendSummary[]> {
  const rows = await findBulkSendCounts(db, workspaceId, where);
  return rows.map((r) => ({
    id: r.id,
    templateId: r.template_id,
    templateName: r.template_name,
    fileName: r.file_name,
    createdAt: new Date(r.created_at),
    total: r.total,
    created: Number(r.created),
    sent: Number(r.sent),
    failed: Number(r.failed),
    refused: Number(r.refused),
    mailed: Number(r.mailed),
    finished: r.finished_at !== null,
  }));
}

/** The failed rows of a bulk send, each with its sentence, in row order. */
export async function failedBulkRows(
  ctx: Context,
  workspaceId: string,
  id: string,
  limit = 100,
): Promise<BulkFailedRow[]> {
  const rows = await findFailedBulkRows(ctx.db, workspaceId, id, limit);
  return rows.map((r) => ({ row: r.row_number, reason: reasonOf(r) }));
}

/**
 * The results file of a bulk send: a line per row of the file, with who its signing links went
 * to and how; a row the check refused with its problems (`refused: …`), said in `tr`'s
 * language (the status and delivery words are the file's own, in English, like its headers).
 */
export async function bulkSendResultsCsv(
  ctx: Context,
  workspaceId: string,
  id: string,
  tr: Translator,
): Promise<string> {
  await bulkSendProgress(ctx, workspaceId, id);
  const rows = await findBulkResultRows(ctx.db, workspaceId, id);
  const firstMails = await findFirstMailStatuses(ctx.db, workspaceId, id);
  const results = new Map<number, BulkResult & { people: string[] }>();
  for (const r of rows) {
    const result = results.get(r.row_number) ?? {
      row: r.row_number,
      documentId: r.document_id,
      status:
        r.status === 'failed' || r.status === 'refused'
          ? `${r.status}: ${reasonIn(reasonOf(r), tr)}`
          : r.status,
      delivery: '',
      people: [],
    };
    if (r.email)
      result.people.push(
        `${r.full_name} <${r.email}>: ${deliveryWord(firstMails.get(r.recipient_id ?? '') ?? null)}`,
      );
    results.set(r.row_number, result);
  }
  return bulkResultsCsv(
    [...results.values()].map(({ people, ...r }) => ({ ...r, delivery: people.join('; ') })),
  );
}

/** How a recipient's first mail stands, in a word of the results file. */
function deliveryWord(status: string | null): string {
  if (status === 'sent' || status === 'logged') return 'mailed';
  if (status === 'pending') return 'queued';
  if (status === 'failed') return 'mail failed';
  return 'not invited yet';
}
