// Sending: draft -> sent. The document's PDF is made from its text when it has none, the
// document starts to expire, and the first signing group is invited (progress/invitations.ts).
// `sendRefusal` is **the** rule of what may be sent (the web's confirmation page, the CLI
// and the web's send alike); `sendPreview` is what the confirmation page shows goes out.

import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import {
  findRecipientsOfDocuments,
  lockDocuments,
  setDocumentsSent,
} from '../documents/documents.repository.ts';
import { getDocumentForOwner } from '../documents/documents.service.ts';
import { recordDocumentEvents } from '../documents/events.ts';
import { DocumentActionError, nextStatus, type Refusal } from '../documents/lifecycle.ts';
import { type FieldType, fieldTypes } from '../fields/field-types.ts';
import { storeFile } from '../files/files.service.ts';
import { ApiError } from '../http/errors.ts';
import type { MailPriority } from '../mail/priority.ts';
import { type Locked, withDocument } from '../progress/document-lock.ts';
import { type InvitedLink, inviteEach } from '../progress/invitations.ts';
import { renderOriginal } from '../sealing/original.ts';

/**
 * draft -> sent: the first signing group (the lowest order, with its viewers) gets its
 * personal links by mail, the later ones as their turn comes (inviteAll); the document starts
 * to expire. A document without a PDF gets one made from its text (made before the row is
 * locked: rendering takes a while, and a draft's text does not change). `last` runs in the
 * same transaction once it is sent, with the links made (the API's Idempotency-Key claim,
 * api-writes.ts): what it throws undoes the send. Its invitations are urgent (a person sent
 * it, by the web, the CLI, the API or a public link, and its signers are often waiting for
 * it) unless the caller says otherwise (a bulk send's row: `bulk`).
 */
export async function sendDocument(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  last?: (trx: Transaction<Database>, links: InvitedLink[]) => Promise<void>,
  invitations: MailPriority = 'urgent',
): Promise<{ eventId: string; links: InvitedLink[] }> {
  const rendered = await renderOriginal(ctx, workspaceId, documentId);
  return withDocument(ctx, workspaceId, documentId, async (trx, locked, now) => {
    const [sent] = await sendLocked(trx, ctx, [{ ...locked, rendered }], now, invitations);
    if (!sent) throw new Error(`document ${documentId} was not sent`);
    await last?.(trx, sent.links);
    return sent;
  });
}

/**
 * Drafts made in `trx` (drafts.ts's createDrafts, a bulk send's batch) sent in it, as
 * sendDocument sends one: locked and read together, their events, links and mails written
 * together. Each has its PDF already (a template's). What it throws undoes the transaction.
 * Their invitations go at `invitations`' priority (a bulk send's: `bulk`).
 */
export async function sendDrafts(
  trx: Transaction<Database>,
  ctx: Context,
  workspaceId: string,
  documentIds: string[],
  invitations: MailPriority,
): Promise<Array<{ eventId: string; links: InvitedLink[] }>> {
  const documents = new Map((await lockDocuments(trx, workspaceId, documentIds)).map((d) => [d.id, d]));
  const recipients = Map.groupBy(
    await findRecipientsOfDocuments(trx, workspaceId, documentIds),
    (r) => r.document_id,
  );
  const locked = documentIds.map((id) => {
    const document = documents.get(id);
    if (!document) throw new ApiError('not-found');
    return { document, recipients: recipients.get(id) ?? [], rendered: null };
  });
  return sendLocked(trx, ctx, locked, ctx.clock.now(), invitations);
}

/**
 * **The** send, draft -> sent, of documents locked in `trx` (withDocument, sendDrafts), with
 * the PDF made of each one's text when it has none (`rendered`).
 */
async function sendLocked(
  trx: Transaction<Database>,
  ctx: Context,
  documents: Array<Locked & { rendered: Awaited<ReturnType<typeof renderOriginal>> }>,
  now: Date,
  invitations: MailPriority,
): Promise<Array<{ eventId: string; links: InvitedLink[] }>> {
  const sents = [];
  for (const { document, recipients, rendered } of documents) {
    const status = nextStatus(document.status, 'send');
    const refusal = sendRefusal(document, recipients);
    if (refusal) throw new DocumentActionError(refusal);
    const expiresAt = new Date(now.getTime() + document.expires_in_seconds * 1000);
    const original =
      document.original_sha256 ??
      (rendered &&
        (
          await storeFile(trx, {
            ...rendered,
            mediaType: 'application/pdf',
            now,
            drawPagesFor: document.workspace_id,
          })
        ).sha256);
    if (!original) throw new Error(`document ${document.id} has neither a PDF nor a text to make one of`);
    const fromText = document.original_from_text || document.original_sha256 === null;
    const sent = {
      ...document,
      status,
      sent_at: now,
      expires_at: expiresAt,
      original_sha256: original,
      original_from_text: fromText,
    };
    sents.push({ document: sent, recipients });
  }
  await setDocumentsSent(
    trx,
    sents.map(({ document }) => document),
  );
  const events = await recordDocumentEvents(
    trx,
    ctx,
    sents.map(({ document }) => ({ document, type: 'document.sent' as const, recipient: null, at: now })),
  );
  const links = await inviteEach(trx, ctx, sents, invitations);
  return events.map((event, i) => ({ eventId: event.id, links: links[i] ?? [] }));
}

/**
 * Why a draft cannot be sent as it stands, or null: it needs a signer, and something to sign:
 * a PDF, or a text or a pricing table to make one of (a title alone is not a document).
 */
export function sendRefusal(
  document: { original_sha256: string | null; body: string; pricing: unknown },
  recipients: ReadonlyArray<{ role: string }>,
): Refusal | null {
  if (!recipients.some((r) => r.role === 'signer')) return 'no-signers';
  const nothingToMake = document.body.trim() === '' && document.pricing === null;
  if (document.original_sha256 === null && nothingToMake) return 'nothing-to-send';
  return null;
}

/** One recipient as the confirmation shows them: who, how, and the fields they fill. */
export interface SendPreviewRecipient {
  id: string;
  fullName: string;
  email: string;
  role: string;
  signingMethod: string;
  /** The fields placed for them, by type, in the types' order (none for a viewer). */
  fields: Array<{ type: FieldType; count: number }>;
  /** A signer with no signature field: their signature appears only on the certificate. */
  noSignatureField: boolean;
}

/** What sending a draft would send: the confirmation page's content (web/send.pages.ts). */
export interface SendPreview {
  id: string;
  title: string;
  status: string;
  /** The PDF's page count, or null when the text is made into the PDF at sending. */
  pages: number | null;
  /** Recipients in signing order: each group is mailed when the one before it has signed. */
  groups: Array<{ order: number; recipients: SendPreviewRecipient[] }>;
  fieldCount: number;
  /** Why it cannot be sent (sendRefusal's refusal), or null. */
  refusal: Refusal | null;
}

/** The draft's send, as its sender is asked to confirm it; read only. */
export async function sendPreview(
  ctx: Context,
  workspaceId: string,
  documentId: string,
): Promise<SendPreview> {
  const document = await getDocumentForOwner(ctx, workspaceId, documentId);
  const original = document.files.find((f) => f.kind === 'original');
  const groups = new Map<number, SendPreviewRecipient[]>();
  for (const r of document.recipients) {
    const counts = fieldTypes
      .map((type) => ({ type, count: r.fields.filter((f) => f.type === type).length }))
      .filter((c) => c.count > 0);
    const recipient = {
      id: r.id,
      fullName: r.fullName,
      email: r.email,
      role: r.role,
      signingMethod: r.signingMethod,
      fields: counts,
      noSignatureField: r.role === 'signer' && !counts.some((c) => c.type === 'signature'),
    };
    groups.set(r.signingOrder, [...(groups.get(r.signingOrder) ?? []), recipient]);
  }
  return {
    id: document.id,
    title: document.title,
    status: document.status,
    pages: original?.pages ?? null,
    groups: [...groups.entries()]
      .sort(([a], [b]) => a - b)
      .map(([order, recipients]) => ({ order, recipients })),
    fieldCount: document.recipients.reduce((sum, r) => sum + r.fields.length, 0),
    refusal: sendRefusal(
      { original_sha256: original?.sha256 ?? null, body: document.body, pricing: document.pricing },
      document.recipients,
    ),
  };
}
