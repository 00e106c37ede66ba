// The queue of owed seals: a document whose `seal_due_at` is set (the last signature set
// it) waits for a worker. A claim moves `seal_due_at` a lease into the future, so a worker
// that dies mid-seal leaves it to be claimed again, and concurrent workers skip each
// other's claims. The lease is short and renewed while the holder works (`renewSealLease`),
// so a dead holder's seal is taken over within seconds, not at the end of a long lease.
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

export interface SealClaim {
  id: string;
  workspaceId: string;
  /** Including this one. */
  attempts: number;
  /** Until when the claim is this worker's: the `seal_due_at` it wrote. */
  leaseUntil: Date;
}

export async function claimDueSeal(
  db: Kysely<Database>,
  now: Date,
  leaseMs: number,
): Promise<SealClaim | null> {
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('documents')
      .select(['id', 'workspace_id'])
      .where('seal_due_at', '<=', now)
      .orderBy('seal_due_at')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!due) return null;
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const claimed = await trx
      .updateTable('documents')
      .set({ seal_due_at: leaseUntil, seal_attempts: sql`seal_attempts + 1` })
      .where('id', '=', due.id)
      .returning('seal_attempts')
      .executeTakeFirstOrThrow();
    return { id: due.id, workspaceId: due.workspace_id, attempts: claimed.seal_attempts, leaseUntil };
  });
}

/**
 * Extends the claim's lease to `now + leaseMs` if it is still this worker's (its
 * `seal_due_at` is the one it wrote); false when it is not (taken over after it ran out, or
 * the seal is no longer owed).
 */
export async function renewSealLease(
  db: Kysely<Database>,
  claim: SealClaim,
  now: Date,
  leaseMs: number,
): Promise<boolean> {
  const leaseUntil = new Date(now.getTime() + leaseMs);
  const renewed = await db
    .updateTable('documents')
    .set({ seal_due_at: leaseUntil })
    .where('workspace_id', '=', claim.workspaceId)
    .where('id', '=', claim.id)
    .where('seal_due_at', '=', claim.leaseUntil)
    .executeTakeFirst();
  if (renewed.numUpdatedRows === 0n) return false;
  claim.leaseUntil = leaseUntil;
  return true;
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
    .set({ seal_due_at: retryAt, seal_error: error?.slice(0, 1000) ?? null })
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
