// **The** open rule (issue 36, docs/web-app.md "Decisions"): a recipient has opened the
// document when a person viewed it, not when something fetched their link. Fetching the
// link's page (its HTML alone: a mail scanner, a link preview, curl) is recorded once as
// history (link.fetched) and changes nothing else. The document is opened, document.opened
// recorded and delivered, and a sent document moves to viewed, when:
//   - an image of one of its pages is fetched through the link (only something that renders
//     the page loads its images), or
//   - the recipient posts anything through the link (a code asked for, a signature, a decline).
// HEAD requests never count.

import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import {
  type FullDocumentRow,
  type FullRecipientRow,
  findRecipientOpenedAt,
  updateDocument,
  updateRecipient,
} from '../documents/documents.repository.ts';
import { type ClientInfo, recordDocumentEvent, recordHistoryEvent } from '../documents/events.ts';
import { DocumentActionError, isActive, nextStatus } from '../documents/lifecycle.ts';
import { type Locked, withDocument } from '../progress/document-lock.ts';
import { recipientOf, type SigningSession } from './session.ts';

/**
 * Under the document's lock: the recipient's first opening (while it awaits signatures)
 * records document.opened for them and moves a sent document to viewed. Returns the
 * document as it is now.
 */
export async function recordOpened(
  trx: Transaction<Database>,
  ctx: Context,
  locked: Locked,
  recipient: FullRecipientRow,
  now: Date,
  client: ClientInfo | undefined,
): Promise<FullDocumentRow> {
  if (recipient.opened_at !== null || !isActive(locked.document.status)) return locked.document;
  const status = nextStatus(locked.document.status, 'open');
  const document = { ...locked.document, status };
  if (status !== locked.document.status)
    await updateDocument(trx, document.workspace_id, document.id, { status });
  await updateRecipient(trx, recipient.workspace_id, recipient.id, { opened_at: now });
  recipient.opened_at = now;
  await recordDocumentEvent(trx, ctx, { document, type: 'document.opened', recipient, at: now, client });
  return document;
}

/** Runs `change` under the lock; an overdue document is expired by it, and nothing else happens. */
async function underLock(
  ctx: Context,
  session: SigningSession,
  change: (trx: Transaction<Database>, locked: Locked, now: Date) => Promise<unknown>,
): Promise<void> {
  try {
    await withDocument(ctx, session.workspaceId, session.documentId, change);
  } catch (error) {
    // Opening an overdue document expires it; the page then shows it as expired.
    if (!(error instanceof DocumentActionError && error.refusal === 'expired')) throw error;
  }
}

/** The recipient viewed the document (a page image fetched through their link): opened, the first time. */
export async function openDocument(
  ctx: Context,
  session: SigningSession,
  client?: ClientInfo,
): Promise<void> {
  // Every page image asks: once opened, without taking the lock.
  if ((await findRecipientOpenedAt(ctx.db, session.workspaceId, session.recipientId)) !== null) return;
  await underLock(ctx, session, (trx, locked, now) =>
    recordOpened(trx, ctx, locked, recipientOf(locked, session), now, client),
  );
}

/**
 * The link's page was fetched (a GET of its HTML): not an opening. The first fetch before
 * any opening is recorded as link.fetched (history only); an overdue document expires.
 */
export async function fetchLink(ctx: Context, session: SigningSession, client?: ClientInfo): Promise<void> {
  await underLock(ctx, session, async (trx, locked, now) => {
    const recipient = recipientOf(locked, session);
    if (recipient.opened_at !== null || recipient.link_fetched_at !== null) return;
    if (!isActive(locked.document.status)) return;
    await updateRecipient(trx, recipient.workspace_id, recipient.id, { link_fetched_at: now });
    recipient.link_fetched_at = now;
    await recordHistoryEvent(trx, ctx, {
      document: locked.document,
      type: 'link.fetched',
      recipient,
      at: now,
      client,
    });
  });
}
