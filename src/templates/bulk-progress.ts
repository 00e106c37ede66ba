// A bulk send's progress (issue 38): its counts (created, sent, failed, and mailed: the rows
// whose document's invitation the mail outbox delivered), its failed rows with their
// sentences, the results file, and a template's bulk sends. Reads only; the sending is
// bulk-send.ts's.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { type BulkResult, bulkResultsCsv } from './bulk-csv.ts';

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
  /** Rows whose document's first invitation mail was delivered (the outbox's status). */
  mailed: number;
  finished: boolean;
}

export interface BulkFailedRow {
  row: number;
  error: string;
}

/** A bulk send's counts; not-found for another workspace's. */
export async function bulkSendProgress(
  ctx: Context,
  workspaceId: string,
  id: string,
): Promise<BulkSendSummary> {
  const [found] = await summaries(ctx.db, workspaceId, { id });
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

async function summaries(
  db: Kysely<Database>,
  workspaceId: string,
  where: { id?: string; templateId?: string; limit?: number },
): Promise<BulkSendSummary[]> {
  const rows = await db
    .selectFrom('bulk_sends as b')
    .select([
      'b.id',
      'b.template_id',
      'b.template_name',
      'b.file_name',
      'b.created_at',
      'b.total',
      'b.finished_at',
      countOf(sql`r.status in ('created', 'sent')`).as('created'),
      countOf(sql`r.status = 'sent'`).as('sent'),
      countOf(sql`r.status = 'failed'`).as('failed'),
      countOf(mailedSql).as('mailed'),
    ])
    .where('b.workspace_id', '=', workspaceId)
    .$if(where.id !== undefined, (q) => q.where('b.id', '=', where.id as string))
    .$if(where.templateId !== undefined, (q) => q.where('b.template_id', '=', where.templateId as string))
    .orderBy('b.created_at', 'desc')
    .orderBy('b.id', 'desc')
    .limit(where.limit ?? 1)
    .execute();
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
    mailed: Number(r.mailed),
    finished: r.finished_at !== null,
  }));
}

/** A delivered mail of the row's document: its first is the invitation (later ones come after it). */
// mails has no index on document_id (migrations 0002): the workspace's index narrows the scan.
const mailedSql = sql`r.document_id is not null and exists (
  select 1 from mails m
  where m.workspace_id = r.workspace_id and m.document_id = r.document_id and m.status in ('sent', 'logged')
)`;

/** How many of the bulk send's rows (`r`) meet `condition`. */
function countOf(condition: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`(select count(*) from bulk_send_rows r where r.bulk_send_id = b.id and ${condition})`;
}

/** The failed rows of a bulk send, each with its sentence, in row order. */
export async function failedBulkRows(
  ctx: Context,
  workspaceId: string,
  id: string,
  limit = 100,
): Promise<BulkFailedRow[]> {
  const rows = await ctx.db
    .selectFrom('bulk_send_rows')
    .select(['row_number', 'error'])
    .where('workspace_id', '=', workspaceId)
    .where('bulk_send_id', '=', id)
    .where('status', '=', 'failed')
    .orderBy('row_number')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ row: r.row_number, error: r.error ?? '' }));
}

/** The results file of a bulk send: a line per row, with who its signing links went to and how. */
export async function bulkSendResultsCsv(ctx: Context, workspaceId: string, id: string): Promise<string> {
  await bulkSendProgress(ctx, workspaceId, id);
  const rows = await ctx.db
    .selectFrom('bulk_send_rows as r')
    .leftJoin('recipients as p', (join) =>
      join.onRef('p.document_id', '=', 'r.document_id').onRef('p.workspace_id', '=', 'r.workspace_id'),
    )
    .select([
      'r.row_number',
      'r.status',
      'r.document_id',
      'r.error',
      'p.id as recipient_id',
      'p.full_name',
      'p.email',
    ])
    .where('r.workspace_id', '=', workspaceId)
    .where('r.bulk_send_id', '=', id)
    .orderBy('r.row_number')
    .orderBy('p.signing_order')
    .execute();
  const firstMails = await firstMailStatuses(ctx.db, workspaceId, id);
  const results = new Map<number, BulkResult & { people: string[] }>();
  for (const r of rows) {
    const result = results.get(r.row_number) ?? {
      row: r.row_number,
      documentId: r.document_id,
      status: r.status === 'failed' ? `failed: ${r.error ?? ''}` : r.status,
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

/**
 * The status of each recipient's first mail (their invitation) in the bulk send's documents,
 * read in one query: mails has no index on recipient_id, so one look-up per recipient would
 * scan it once each.
 */
async function firstMailStatuses(db: Kysely<Database>, workspaceId: string, id: string) {
  const mails = await db
    .selectFrom('mails')
    .select(['recipient_id', 'status'])
    .where('workspace_id', '=', workspaceId)
    .where('document_id', 'in', (eb) =>
      eb
        .selectFrom('bulk_send_rows')
        .select('document_id')
        .where('bulk_send_id', '=', id)
        .where('document_id', 'is not', null),
    )
    .orderBy('created_at', 'desc')
    .execute();
  // Newest first, so the first mail of each recipient is the one left in the map.
  return new Map(mails.map((m) => [m.recipient_id ?? '', m.status]));
}

/** How a recipient's first mail stands, in a word of the results file. */
function deliveryWord(status: string | null): string {
  if (status === 'sent' || status === 'logged') return 'mailed';
  if (status === 'pending') return 'queued';
  if (status === 'failed') return 'mail failed';
  return 'not invited yet';
}
