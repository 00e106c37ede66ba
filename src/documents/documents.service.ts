// The document read API (spec, GET /documents and GET /documents/{id}): pages, cursors,
// and turning rows into API objects.
import type { Context } from '../context.ts';
import type { DocumentStatus, RecipientRole } from '../db/schema.ts';
import { fieldTypeSpecs } from '../fields/field-types.ts';
import { findFields, type FieldRow as StoredField } from '../fields/fields.repository.ts';
import type { DocumentField } from '../fields/fields.schemas.ts';
import { downloadUrl, type FileKind } from '../files/download-links.ts';
import { type FileRow, findDocumentFiles } from '../files/files.repository.ts';
import { ApiError } from '../http/errors.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import {
  type DocumentRow,
  type EventRow,
  findDocument,
  findDocumentsPage,
  findDocumentWorkspaceId,
  findEvents,
  findFullDocument,
  findFullRecipients,
  findHistory,
  findLatestEventId,
  findRecipients,
  insertDocuments,
  insertEvents,
  insertRecipients,
  type NewDocumentRow,
  type NewEventRow,
  type NewRecipientRow,
  type RecipientRow,
} from './documents.repository.ts';
import { documentEventTypes, historyLabel } from './event-types.ts';
import { type ExpiredReason, expiredReasonOf, isActive, signersAhead } from './lifecycle.ts';
import { type Money, type PricingBlock, valueFromColumns } from './value.ts';

export interface Document {
  id: string;
  title: string;
  status: DocumentStatus;
  url: string;
  createdAt: string;
  sentAt: string | null;
  signedAt: string | null;
  expiresAt: string | null;
  /** When the sender withdrew it (an `expired` document ended by them), else null. */
  withdrawnAt: string | null;
  /** Why an `expired` document ended (`withdrawn` or `lapsed`); null for every other status. */
  expiredReason: ExpiredReason | null;
  value: Money | null;
}

export interface Recipient {
  id: string;
  email: string;
  fullName: string;
  role: string;
  signingMethod: string;
  signingOrder: number;
  signedAt: string | null;
  language: string | null;
}

export interface DocumentEvent {
  id: string;
  type: string;
  recipientEmail: string | null;
  createdAt: string;
}

/** A document's PDF as the API describes it (webhook bodies leave out the URL). */
export interface DocumentFile {
  kind: FileKind;
  sha256: string;
  bytes: number;
  pages: number | null;
}

export interface DocumentDetail extends Document {
  /** The certificate's language as the sender chose it; null: the workspace's default. */
  language: string | null;
  recipients: Array<
    Recipient & { declinedAt: string | null; declineReason: string | null; fields: DocumentField[] }
  >;
  events: DocumentEvent[];
  /** The original PDF once there is one (uploaded, or made when sent), and the sealed PDF once made. */
  files: Array<DocumentFile & { downloadUrl: string }>;
}

/** The public signing address of a document; recipients' personal links live under it. */
export function documentUrl(ctx: Context, documentId: string): string {
  return `${ctx.config.publicUrl}/sign/${documentId}`;
}

export function documentRowToDocument(ctx: Context, row: DocumentRow): Document {
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    url: documentUrl(ctx, row.id),
    createdAt: row.created_at.toISOString(),
    sentAt: row.sent_at?.toISOString() ?? null,
    signedAt: row.signed_at?.toISOString() ?? null,
    expiresAt: row.expires_at?.toISOString() ?? null,
    withdrawnAt: row.withdrawn_at?.toISOString() ?? null,
    expiredReason: expiredReasonOf(row.status, row.withdrawn_at),
    value: valueFromColumns(row.value_amount, row.value_currency),
  };
}

export function recipientRowToRecipient(row: RecipientRow): Recipient {
  return {
    id: row.id,
    email: row.email,
    fullName: row.full_name,
    role: row.role,
    signingMethod: row.signing_method,
    signingOrder: row.signing_order,
    signedAt: row.signed_at?.toISOString() ?? null,
    language: row.language,
  };
}

function eventRowToEvent(row: EventRow): DocumentEvent {
  return {
    id: row.id,
    type: row.type,
    recipientEmail: row.recipient_email,
    createdAt: row.created_at.toISOString(),
  };
}

function fieldRowToField(row: StoredField): DocumentField {
  return {
    id: row.id,
    type: row.type,
    page: row.page,
    x: row.x,
    y: row.y,
    width: row.width,
    height: row.height,
    required: row.required,
    label: row.label,
    filled: row.filled_at !== null || row.prefilled,
    value: row.filled_at === null && !row.prefilled ? null : fieldTypeSpecs[row.type].apiValue(row.value),
    filledAt: row.filled_at?.toISOString() ?? null,
    prefilled: row.prefilled,
  };
}

export function fileToDocumentFile(file: FileRow & { kind: FileKind }): DocumentFile {
  return { kind: file.kind, sha256: file.sha256, bytes: file.bytes, pages: file.pages };
}

export interface ListDocumentsInput {
  workspaceId: string;
  limit: number;
  cursor: string | null;
  status: DocumentStatus | null;
  /** The web app's search (title, recipient name or address); the API has none. */
  search?: string | null;
}

export async function listDocuments(
  ctx: Context,
  input: ListDocumentsInput,
): Promise<{ documents: Document[]; nextCursor: string | null }> {
  const now = ctx.clock.now();
  const scope = { workspaceId: input.workspaceId, status: input.status, search: input.search || null };
  const after = input.cursor === null ? null : decodeCursor(ctx.cursorKey, input.cursor, scope, now);
  if (input.cursor !== null && after === null) throw new ApiError('invalid-cursor');
  // One row more than asked tells whether a next page exists without a count.
  const rows = await findDocumentsPage(ctx.db, { ...scope, after, limit: input.limit + 1 });
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > input.limit && last
      ? encodeCursor(ctx.cursorKey, { createdAt: last.created_at, id: last.id }, scope, now)
      : null;
  return { documents: page.map((row) => documentRowToDocument(ctx, row)), nextCursor };
}

export async function getDocument(ctx: Context, workspaceId: string, id: string): Promise<DocumentDetail> {
  const row = await findDocument(ctx.db, workspaceId, id);
  if (!row) throw new ApiError('not-found');
  const [recipients, events, files, fields] = await Promise.all([
    findRecipients(ctx.db, workspaceId, id),
    findEvents(ctx.db, workspaceId, id),
    findDocumentFiles(ctx.db, workspaceId, id),
    findFields(ctx.db, workspaceId, id),
  ]);
  return {
    ...documentRowToDocument(ctx, row),
    language: row.language,
    recipients: recipients.map((recipient) => ({
      ...recipientRowToRecipient(recipient),
      declinedAt: recipient.declined_at?.toISOString() ?? null,
      declineReason: recipient.declined_at ? recipient.decline_reason : null,
      fields: fields.filter((f) => f.recipient_id === recipient.id).map(fieldRowToField),
    })),
    events: events.map(eventRowToEvent),
    files: files.map((file) => ({
      ...fileToDocumentFile(file),
      downloadUrl: downloadUrl(ctx, id, file.kind),
    })),
  };
}

/** The workspace a document belongs to (operators' commands name documents by id alone). */
export async function workspaceOfDocument(ctx: Context, id: string): Promise<string> {
  const workspaceId = await findDocumentWorkspaceId(ctx.db, id);
  if (!workspaceId) throw new ApiError('not-found');
  return workspaceId;
}

/** The id of the latest event of `type` in a document's history. */
export async function latestEventId(ctx: Context, workspaceId: string, documentId: string, type: string) {
  const id = await findLatestEventId(ctx.db, workspaceId, documentId, type);
  if (!id) throw new Error(`document ${documentId} has no ${type} event`);
  return id;
}

/**
 * Writes complete documents with their recipients and history as they are, in one
 * transaction: the bulk import behind `signet seed` and the demo (100,000 in seconds),
 * where going through each lifecycle step would take hours.
 */
export async function importDocuments(
  ctx: Context,
  graphs: Array<{ document: NewDocumentRow; recipients: NewRecipientRow[]; events: NewEventRow[] }>,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await insertDocuments(
      trx,
      graphs.map((g) => g.document),
    );
    await insertRecipients(
      trx,
      graphs.flatMap((g) => g.recipients),
    );
    await insertEvents(
      trx,
      graphs.flatMap((g) => g.events),
    );
  });
}

/** The document as its owner sees it in the web application: the detail, body and pricing block. */
/**
 * Where a recipient stands, as the sender's document page shows it: `queued` is mailed
 * only when the signers of lower orders have all signed (their turn has not come).
 */
export type RecipientProgress = 'signed' | 'opened' | 'waiting' | 'queued' | 'not-sent';

type ProgressRecipient = Pick<
  DocumentDetail['recipients'][number],
  'id' | 'email' | 'signedAt' | 'role' | 'signingOrder'
>;

export function recipientProgress(
  document: Pick<DocumentDetail, 'status' | 'events'> & { recipients: ProgressRecipient[] },
  recipient: ProgressRecipient,
): RecipientProgress {
  if (recipient.signedAt) return 'signed';
  if (document.events.some((e) => e.type === 'document.opened' && e.recipientEmail === recipient.email))
    return 'opened';
  if (document.status === 'draft') return 'not-sent';
  const state = (r: ProgressRecipient) => ({
    id: r.id,
    role: r.role as RecipientRole,
    signing_order: r.signingOrder,
    signed_at: r.signedAt === null ? null : new Date(r.signedAt),
  });
  const ahead = signersAhead(document.recipients.map(state), state(recipient));
  return ahead.length > 0 && isActive(document.status) ? 'queued' : 'waiting';
}

/** An event of the whole history (both kinds, event-types.ts), as the owner's timeline shows it. */
export interface HistoryEntry {
  type: string;
  /** "Reminder sent (automatic)", "Declined: reason": in English (the CLI); a page says it with historyLabel. */
  label: string;
  /** What the event's row adds (a reason, a reminder's kind), as historyLabel reads it. */
  detail: string | null;
  /** One of the spec's webhook events (the API lists it, endpoints receive it), else history only. */
  webhook: boolean;
  recipientEmail: string | null;
  createdAt: string;
}

/** What the owner's page says of a recipient beyond the API's fields. */
export interface RecipientAudit {
  /** When their first mail (their link) was queued; null if none was (yet). */
  invitedAt: string | null;
  linkFetchedAt: string | null;
  openedAt: string | null;
  declinedAt: string | null;
  declineReason: string | null;
}

export interface OwnerDocument extends DocumentDetail {
  body: string;
  pricing: PricingBlock | null;
  remindEveryDays: number | null;
  history: HistoryEntry[];
  audit: Map<string, RecipientAudit>;
}

const iso = (at: Date | null) => at?.toISOString() ?? null;

export async function getDocumentForOwner(
  ctx: Context,
  workspaceId: string,
  id: string,
): Promise<OwnerDocument> {
  const [detail, full, recipients, history] = await Promise.all([
    getDocument(ctx, workspaceId, id),
    findFullDocument(ctx.db, workspaceId, id),
    findFullRecipients(ctx.db, workspaceId, id),
    findHistory(ctx.db, workspaceId, id),
  ]);
  if (!full) throw new ApiError('not-found');
  return {
    ...detail,
    body: full.body,
    pricing: full.pricing as PricingBlock | null,
    remindEveryDays: full.remind_every_days,
    history: history.map((e) => ({
      type: e.type,
      label: historyLabel(e.type, e.detail),
      detail: e.detail,
      webhook: (documentEventTypes as readonly string[]).includes(e.type),
      recipientEmail: e.recipient_email,
      createdAt: e.created_at.toISOString(),
    })),
    audit: new Map(
      recipients.map((r) => [
        r.id,
        {
          invitedAt: iso(r.invited_at),
          linkFetchedAt: iso(r.link_fetched_at),
          openedAt: iso(r.opened_at),
          declinedAt: iso(r.declined_at),
          declineReason: r.decline_reason,
        },
      ]),
    ),
  };
}
