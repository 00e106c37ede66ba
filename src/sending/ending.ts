// Withdrawal and expiry, the two ways a document being signed ends without its signers:
// the sender withdraws it (it ends as `expired`, and everyone mailed is told), or its time
// runs out (the worker's pass, `expireDueDocuments`; the lock expires an overdue document
// too, progress/document-lock.ts).

import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import { lockDocument, lockDueDocuments, updateDocument } from '../documents/documents.repository.ts';
import { recordDocumentEvent, recordHistoryEvent } from '../documents/events.ts';
import { nextStatus } from '../documents/lifecycle.ts';
import { firstLanguage } from '../i18n/languages.ts';
import { translator } from '../i18n/messages.ts';
import { withdrawnMail } from '../mail/templates.ts';
import { expireLocked, withDocument } from '../progress/document-lock.ts';
import { mailRecipient } from '../progress/recipient-mail.ts';
import { senderNameOf } from '../workspaces/brand.ts';
import { findWorkspace } from '../workspaces/workspaces.repository.ts';

/**
 * The sender withdraws a document that is still being signed: it ends at once as `expired`
 * (document.expired, as when its time runs out), its links only say it was withdrawn, and
 * every recipient who had been mailed it is told. Its history says it was withdrawn, by whom
 * and why (document.withdrawn, history only: the API and webhooks say document.expired).
 */
export async function withdrawDocument(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  input: { by?: string; reason?: string } = {},
  /** Run in the withdrawal's transaction once it is recorded (the API's Idempotency-Key claim). */
  within?: (trx: Transaction<Database>) => Promise<void>,
): Promise<{ eventId: string }> {
  const reason = input.reason?.trim() ? input.reason.trim().slice(0, 1000) : null;
  const detail = [input.by ? `by ${input.by}` : null, reason].filter(Boolean).join(': ') || null;
  return withDocument(ctx, workspaceId, documentId, async (trx, locked, now) => {
    const status = nextStatus(locked.document.status, 'withdraw');
    const document = { ...locked.document, status, expires_at: now, withdrawn_at: now };
    await updateDocument(trx, workspaceId, documentId, { status, expires_at: now, withdrawn_at: now });
    await recordHistoryEvent(trx, ctx, {
      document,
      type: 'document.withdrawn',
      recipient: null,
      at: now,
      detail,
    });
    const event = await recordDocumentEvent(trx, ctx, {
      document,
      type: 'document.expired',
      recipient: null,
      at: now,
    });
    const workspace = await findWorkspace(trx, workspaceId);
    for (const recipient of locked.recipients.filter((r) => r.token_hash !== null)) {
      const mail = withdrawnMail(translator(firstLanguage(recipient.language, workspace?.default_language)), {
        recipientName: recipient.full_name,
        documentTitle: document.title,
        workspaceName: senderNameOf(workspace),
      });
      await mailRecipient(trx, ctx, document, recipient, mail, 'automatic');
    }
    await within?.(trx);
    return { eventId: event.id };
  });
}

/** Expires every active document whose expiry has passed; returns how many. */
export async function expireDueDocuments(ctx: Context, batchSize = 100): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = await ctx.db.transaction().execute(async (trx) => {
      const now = ctx.clock.now();
      const due = await lockDueDocuments(trx, now, batchSize);
      for (const { id, workspace_id } of due) {
        const document = await lockDocument(trx, workspace_id, id);
        if (document) await expireLocked(trx, ctx, document, now);
      }
      return due.length;
    });
    total += expired;
    if (expired < batchSize) return total;
  }
}
