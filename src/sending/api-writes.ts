// The document writes of /v1 (issue 37) as services over the sender's own (drafts.ts,
// send.ts): create (a draft, or sent at once), send, delete. Each answers the document as
// GET /v1/documents/{id} shows it. The web app's rules apply unchanged: these only add the
// API's Idempotency-Key (http/idempotency.ts):
// - the key is claimed in the transaction that stores the change, so a change and its key
//   land together or not at all, and two requests with one key cannot both change anything
//   (the second waits on the key's row, then replays);
// - a repeat (same key, operation and body, within 24 hours) answers the document as it is
//   now, marked replayed, instead of a second document: what a client retrying after a lost
//   answer needs (a stored copy of the first answer would hold download links expired since).
//   A create with `send: true` whose send did not happen (the server stopped between the two)
//   is sent by the repeat. The document deleted since: `not-found`, as for any id of it;
// - the same key with another operation or body: 409 `idempotency-key-reused`; a refused
//   request claims nothing, so a retry runs again.
import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import { type DocumentDetail, getDocument } from '../documents/documents.service.ts';
import { DocumentActionError } from '../documents/lifecycle.ts';
import { ApiError } from '../http/errors.ts';
import { claimIdempotencyKey, findIdempotentAnswer } from '../http/idempotency.repository.ts';
import { type IdempotencyKey, idempotencyWindowMs, openAnswer, sealAnswer } from '../http/idempotency.ts';
import { answering } from './api-input.ts';
import type { CreateDocumentInput } from './draft-input.ts';
import { createDocument, deleteDraft } from './drafts.ts';
import { sendDocument, sendRefusal } from './send.ts';

export interface WriteAnswer {
  document: DocumentDetail;
  /** An Idempotency-Key repeat: nothing was changed by this request. */
  replayed: boolean;
}

/** The document a key already answered, or null; 409 when it answered another request. */
async function answeredBefore(
  ctx: Context,
  workspaceId: string,
  idempotency: IdempotencyKey | null,
): Promise<string | null> {
  if (!idempotency) return null;
  const since = new Date(ctx.clock.now().getTime() - idempotencyWindowMs);
  const first = await findIdempotentAnswer(ctx.db, workspaceId, idempotency.key, since);
  if (!first) return null;
  if (first.request_sha256 !== idempotency.requestSha256) throw new ApiError('idempotency-key-reused');
  const kept = { workspaceId, key: idempotency.key };
  return (JSON.parse(await openAnswer(ctx, kept, first.response)) as { documentId: string }).documentId;
}

/** A replay's answer: the document as it is now (not-found once deleted). */
async function replay(ctx: Context, workspaceId: string, documentId: string): Promise<WriteAnswer> {
  return { document: await getDocument(ctx, workspaceId, documentId), replayed: true };
}

/** Thrown inside a change's transaction when its key turned out to be taken: nothing is stored. */
class KeyTaken extends Error {}

/**
 * The key claimed in the change's transaction (`trx`), its answer naming `documentId`; throws
 * KeyTaken when another request claimed it first (that transaction rolls back).
 */
async function claimer(ctx: Context, workspaceId: string, idempotency: IdempotencyKey, documentId: string) {
  const now = ctx.clock.now();
  const kept = { workspaceId, key: idempotency.key };
  // Sealed before the transaction: the seal's key is read through ctx.db, never inside it.
  const response = await sealAnswer(ctx, kept, JSON.stringify({ documentId }));
  return async (trx: Transaction<Database>) => {
    const row = {
      workspace_id: workspaceId,
      key: idempotency.key,
      request_sha256: idempotency.requestSha256,
      response,
      created_at: now,
    };
    const since = new Date(now.getTime() - idempotencyWindowMs);
    if (!(await claimIdempotencyKey(trx, row, since))) throw new KeyTaken();
  };
}

/**
 * `POST /v1/documents`: a new draft, sent at once with `send`. Every check of the web form
 * applies (the PDF's included); with `send`, a draft with nothing to send is refused before
 * anything is stored.
 */
export async function createDocumentFromApi(
  ctx: Context,
  input: CreateDocumentInput,
  options: { send: boolean; idempotency: IdempotencyKey | null },
): Promise<WriteAnswer> {
  const { workspaceId } = input;
  const { send, idempotency } = options;
  const before = await answeredBefore(ctx, workspaceId, idempotency);
  if (before) return finishReplay(ctx, workspaceId, before, send);
  const id = ctx.ids.uuid();
  const claim = idempotency ? await claimer(ctx, workspaceId, idempotency, id) : null;
  try {
    await answering(() =>
      createDocument(ctx, input, {
        id,
        first: async (trx) => {
          if (send) {
            const made = { original_sha256: input.file ? 'uploaded' : null, body: input.body ?? '' };
            const refusal = sendRefusal({ ...made, pricing: input.pricing ?? null }, input.recipients);
            if (refusal) throw new DocumentActionError(refusal);
          }
          await claim?.(trx);
        },
      }),
    );
  } catch (error) {
    if (!(error instanceof KeyTaken)) throw error;
    const taken = await answeredBefore(ctx, workspaceId, idempotency);
    if (!taken) throw new ApiError('idempotency-key-reused');
    return finishReplay(ctx, workspaceId, taken, send);
  }
  if (send) await answering(() => sendDocument(ctx, workspaceId, id));
  return { document: await getDocument(ctx, workspaceId, id), replayed: false };
}

/** A create repeated: sent now if it asked to be and is still a draft. */
async function finishReplay(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  send: boolean,
): Promise<WriteAnswer> {
  const answer = await replay(ctx, workspaceId, documentId);
  if (!send || answer.document.status !== 'draft') return answer;
  try {
    await sendDocument(ctx, workspaceId, documentId);
  } catch (error) {
    // Sent meanwhile by another repeat: the answer is the document as it is.
    if (!(error instanceof DocumentActionError)) throw error;
  }
  return replay(ctx, workspaceId, documentId);
}

/** `POST /v1/documents/{id}/send`: the draft sent, as the web app's Send does. */
export async function sendDocumentFromApi(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  idempotency: IdempotencyKey | null,
): Promise<WriteAnswer> {
  const before = await answeredBefore(ctx, workspaceId, idempotency);
  if (before) {
    if (before !== documentId) throw new ApiError('idempotency-key-reused');
    return replay(ctx, workspaceId, documentId);
  }
  const claim = idempotency ? await claimer(ctx, workspaceId, idempotency, documentId) : undefined;
  try {
    await answering(() => sendDocument(ctx, workspaceId, documentId, claim));
  } catch (error) {
    if (!(error instanceof KeyTaken)) throw error;
    const taken = await answeredBefore(ctx, workspaceId, idempotency);
    if (taken !== documentId) throw new ApiError('idempotency-key-reused');
    return replay(ctx, workspaceId, documentId);
  }
  return { document: await getDocument(ctx, workspaceId, documentId), replayed: false };
}

/** `DELETE /v1/documents/{id}`: a draft deleted with its recipients and fields. */
export async function deleteDocumentFromApi(
  ctx: Context,
  workspaceId: string,
  documentId: string,
): Promise<{ id: string; deleted: true }> {
  await answering(() => deleteDraft(ctx, workspaceId, documentId));
  return { id: documentId, deleted: true };
}
