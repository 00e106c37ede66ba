// Completion: the last signer's signature ends the signing. The document is completed (the
// state machine's `complete`: status signed, signedAt) and its seal owed (`seal_due_at`, the
// row the sealing queue claims), and a worker in whichever process is woken on `sealChannel`
// when the transaction commits. The recipient's side completes documents (signing/), the
// worker listens (worker/) and seals them (sealing/): the rule and the channel live here,
// below all three, so none of them imports another for it.

import type { Transaction } from 'kysely';
import { notifyChannel } from '../db/notify.ts';
import type { Database } from '../db/schema.ts';
import { type FullDocumentRow, updateDocument } from '../documents/documents.repository.ts';
import { nextStatus } from '../documents/lifecycle.ts';

/** NOTIFYed when a seal becomes owed: any process's worker wakes at once. */
export const sealChannel = 'signet_seal';

/**
 * Completes `document`, read under its lock (progress/document-lock.ts), in the caller's
 * transaction: status signed, signed at `now`, its seal owed from `now`. The caller has
 * found every signer done (lifecycle.ts `isEverySignerDone`). A status the state machine
 * does not complete from (a draft, or a document already signed, declined or expired) is
 * refused with `not-allowed` before anything is written: a document completes once.
 * `record` writes the event of the change that completed it (the last `document.signed`),
 * given the document as completed; the seal's NOTIFY follows it, so a worker hears the
 * outbox's channel first and the seal's after, as every signature has always sent them.
 */
export async function completeDocument<T>(
  trx: Transaction<Database>,
  document: FullDocumentRow,
  now: Date,
  record: (completed: FullDocumentRow) => Promise<T>,
): Promise<T> {
  const status = nextStatus(document.status, 'complete');
  await updateDocument(trx, document.workspace_id, document.id, { status, signed_at: now, seal_due_at: now });
  const recorded = await record({ ...document, status, signed_at: now });
  // Wakes a worker to seal it, in whichever process, when this transaction commits.
  await notifyChannel(trx, sealChannel);
  return recorded;
}
