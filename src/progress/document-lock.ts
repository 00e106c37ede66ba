// The document lock every change to a sent or draft document takes: `withDocument` locks the
// row, expires an overdue document first (committed, then the action is refused), and hands
// the change the document and its recipients as read under the lock. `expireLocked` is the
// one way a document ends by time (the lock and the expiry job both use it). The sender's
// actions (sending/) and the recipient's (signing/) all change documents through here, so
// it lives below both (progress/): neither side imports the other.

import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import {
  type FullDocumentRow,
  type FullRecipientRow,
  findFullRecipients,
  lockDocument,
  updateDocument,
} from '../documents/documents.repository.ts';
import { recordDocumentEvent } from '../documents/events.ts';
import { DocumentActionError, isActive, nextStatus } from '../documents/lifecycle.ts';
import { ApiError } from '../http/errors.ts';

/** A document and its recipients, read under the document's row lock. */
export interface Locked {
  document: FullDocumentRow;
  recipients: FullRecipientRow[];
}

/**
 * Runs `change` on the locked document. A document whose expiry has passed is expired
 * first (and that is committed) whatever the action was; the action is then refused.
 */
export async function withDocument<T>(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  change: (trx: Transaction<Database>, locked: Locked, now: Date) => Promise<T>,
): Promise<T> {
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    const document = await lockDocument(trx, workspaceId, documentId);
    if (!document) throw new ApiError('not-found');
    const now = ctx.clock.now();
    if (isActive(document.status) && document.expires_at && document.expires_at <= now) {
      await expireLocked(trx, ctx, document, now);
      return { expired: true as const };
    }
    const recipients = await findFullRecipients(trx, workspaceId, documentId);
    return { expired: false as const, value: await change(trx, { document, recipients }, now) };
  });
  if (outcome.expired) throw new DocumentActionError('expired');
  return outcome.value;
}

/** The document ends by time (`expired`, document.expired), in the caller's transaction under its lock. */
export async function expireLocked(
  trx: Transaction<Database>,
  ctx: Context,
  document: FullDocumentRow,
  now: Date,
) {
  const status = nextStatus(document.status, 'expire');
  await updateDocument(trx, document.workspace_id, document.id, { status });
  await recordDocumentEvent(trx, ctx, {
    document: { ...document, status },
    type: 'document.expired',
    recipient: null,
    at: now,
  });
}
