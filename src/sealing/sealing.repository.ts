// The seal queue's claims (its declaration: seal-queue.ts) and the audit events the
// certificate lists. A claim takes the document whose seal is due first; its holder renews
// the lease while it works and writes the outcome with `markSealFailed` or the seal itself.
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Held } from '../queue/lease.ts';
import { sealQueue } from './seal-queue.ts';

type Db = Kysely<Database> | Transaction<Database>;

export interface SealClaim {
  id: string;
  workspaceId: string;
  /** Including this one. */
  attempts: number;
  /** The claim's lease (its `until` is the `seal_due_at` this worker wrote). */
  held: Held;
}

/** Claims the document whose seal is due first, for `leaseMs`. */
export async function claimDueSeal(
  db: Kysely<Database>,
  now: Date,
  leaseMs: number,
): Promise<SealClaim | null> {
  const [claimed] = await sealQueue.claim<{ id: string; workspace_id: string; attempts: number }>(db, {
    now,
    until: new Date(now.getTime() + leaseMs),
    limit: 1,
    orderBy: sql`seal_due_at`,
    returning: sql`q.seal_attempts as attempts`,
  });
  if (!claimed) return null;
  const { row, held } = claimed;
  return { id: row.id, workspaceId: row.workspace_id, attempts: row.attempts, held };
}

/**
 * Extends the claim's lease to `now + leaseMs` if it is still this worker's; false when it is
 * not (taken over after it ran out, or the seal is no longer owed).
 */
export async function renewSealLease(
  db: Kysely<Database>,
  claim: SealClaim,
  now: Date,
  leaseMs: number,
): Promise<boolean> {
  return (await sealQueue.renew(db, [claim.held], new Date(now.getTime() + leaseMs))) === 1;
}

/**
 * The seal failed (`error`), or turned out not to be owed (null): when to try again (null:
 * never; the error stays for the operator).
 */
export async function markSealFailed(
  db: Db,
  claim: SealClaim,
  error: string | null,
  retryAt: Date | null,
): Promise<void> {
  await db
    .updateTable('documents')
    .set({ ...sealQueue.retrying(retryAt), seal_error: error?.slice(0, 1000) ?? null })
    .where('workspace_id', '=', claim.workspaceId)
    .where('id', '=', claim.id)
    .execute();
}

/** A document's history with who caused each event: for the certificate only. */
export async function findAuditEvents(db: Db, workspaceId: string, documentId: string) {
  return db
    .selectFrom('document_events')
    .select(['type', 'recipient_id', 'recipient_email', 'created_at', 'client_ip', 'user_agent', 'detail'])
    .where('workspace_id', '=', workspaceId)
    .where('document_id', '=', documentId)
    .orderBy('created_at')
    .orderBy('seq')
    .execute();
}

/** Owners of a workspace: they get the completion mail with the recipients. */

/**
 * The document a seal names, by its id alone: for /verify, where a file carrying this
 * installation's valid seal is itself the proof that it belongs to that document, whoever
 * uploads it (so no workspace narrows the look-up).
 */
export async function findSealedDocument(db: Db, id: string) {
  return db
    .selectFrom('documents')
    .select(['id', 'title', 'sealed_sha256'])
    .where('id', '=', id)
    .executeTakeFirst();
}
