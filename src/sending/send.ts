// Sending: draft -> sent. The document's PDF is made from its text when it has none, the
// document starts to expire, and the first signing group is invited (invitations.ts).

import type { Context } from '../context.ts';
import { updateDocument } from '../documents/documents.repository.ts';
import { recordDocumentEvent } from '../documents/events.ts';
import { DocumentActionError, nextStatus } from '../documents/lifecycle.ts';
import { storeFile } from '../files/files.service.ts';
import { renderOriginal } from '../sealing/original.ts';
import { withDocument } from './document-lock.ts';
import { inviteAll } from './invitations.ts';

/**
 * draft -> sent: the first signing group (the lowest order, with its viewers) gets its
 * personal links by mail, the later ones as their turn comes (inviteAll); the document starts
 * to expire. A document without a PDF gets one made from its text (made before the row is
 * locked: rendering takes a while, and a draft's text does not change).
 */
export async function sendDocument(
  ctx: Context,
  workspaceId: string,
  documentId: string,
): Promise<{ eventId: string }> {
  const rendered = await renderOriginal(ctx, workspaceId, documentId);
  return withDocument(ctx, workspaceId, documentId, async (trx, { document, recipients }, now) => {
    const status = nextStatus(document.status, 'send');
    if (!recipients.some((r) => r.role === 'signer')) throw new DocumentActionError('no-signers');
    const expiresAt = new Date(now.getTime() + document.expires_in_seconds * 1000);
    const original =
      document.original_sha256 ??
      (rendered &&
        (await storeFile(trx, { ...rendered, mediaType: 'application/pdf', now, drawPagesFor: workspaceId }))
          .sha256);
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
    await updateDocument(trx, document.workspace_id, document.id, {
      status,
      sent_at: now,
      expires_at: expiresAt,
      original_sha256: original,
      original_from_text: fromText,
    });
    const event = await recordDocumentEvent(trx, ctx, {
      document: sent,
      type: 'document.sent',
      recipient: null,
      at: now,
    });
    await inviteAll(trx, ctx, sent, recipients);
    return { eventId: event.id };
  });
}
