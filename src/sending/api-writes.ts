// The document writes of /v1 (issue 37) as services over the sender's own (drafts.ts,
// send.ts, reminders.ts, ending.ts, progress/invitations.ts): create (a draft, or sent at once), send,
// delete, remind, withdraw, and a fresh signing link. Each answers the document as
// GET /v1/documents/{id} shows it; a send also answers the signing links it made for a
// document the integrator delivers itself (`delivery: none`: nobody is mailed, and the links
// exist only in that answer). The web app's rules apply unchanged; these add the API's
// Idempotency-Key (http/idempotency.ts) to create, send, remind, withdraw and a fresh link:
// - the key is claimed in the transaction that stores the change, so a change and its key
//   land together or not at all, and two requests with one key cannot both change anything
//   (the second waits on the key's row, or on the document's lock, then replays);
// - a repeat (same key, operation and body, within 24 hours) answers the document as it is
//   now, with the links the first answer gave (kept sealed with the key), marked replayed:
//   what a client retrying after a lost answer needs (a stored copy of the whole first answer
//   would hold download links expired since). A create with `send: true` whose send did not
//   happen (the server stopped between the two) is sent by the repeat. The document deleted
//   since: `not-found`, as for any id of it;
// - the same key with another operation or body (the whole body: a create's `send` too, so
//   a repeat that only adds `send: true` never sends a draft made without it): 409
//   `idempotency-key-reused`; a refused request claims nothing, so a retry runs again.
import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import { findFullRecipients } from '../documents/documents.repository.ts';
import { type DocumentDetail, getDocument } from '../documents/documents.service.ts';
import { DocumentActionError, isActive } from '../documents/lifecycle.ts';
import { ApiError } from '../http/errors.ts';
import {
  claimIdempotencyKey,
  findIdempotentAnswer,
  replaceIdempotentAnswer,
} from '../http/idempotency.repository.ts';
import {
  answerKey,
  type IdempotencyKey,
  idempotencyWindowMs,
  openAnswer,
  sealAnswer,
} from '../http/idempotency.ts';
import { withDocument } from '../progress/document-lock.ts';
import { type InvitedLink, newSigningToken, signingLink } from '../progress/invitations.ts';
import { mailsRecipients } from '../progress/recipient-mail.ts';
import { answering, asApiError } from './api-input.ts';
import type { CreateDocumentInput } from './draft-input.ts';
import { createDocument, deleteDraft, editDraft } from './drafts.ts';
import { withdrawDocument } from './ending.ts';
import { reminderIntervalMs, remindRecipient } from './reminders.ts';
import { sendDocument, sendRefusal } from './send.ts';

/** A write's answer: the document, the links a send made for the integrator to deliver. */
export interface WriteAnswer {
  document: DocumentDetail;
  /** The personal links made by this send for a `delivery: none` document (empty otherwise). */
  signingUrls: InvitedLink[];
  /** An Idempotency-Key repeat: nothing was changed by this request. */
  replayed: boolean;
}

/** What a key keeps (sealed): the document it answered, and the links that answer gave. */
interface KeptAnswer {
  documentId: string;
  signingUrls: InvitedLink[];
}

/** The answer a key already gave, or null; 409 when it answered another request. */
async function answeredBefore(
  ctx: Context,
  workspaceId: string,
  idempotency: IdempotencyKey | null,
): Promise<KeptAnswer | null> {
  if (!idempotency) return null;
  const since = new Date(ctx.clock.now().getTime() - idempotencyWindowMs);
  const first = await findIdempotentAnswer(ctx.db, workspaceId, idempotency.key, since);
  if (!first) return null;
  if (first.request_sha256 !== idempotency.requestSha256) throw new ApiError('idempotency-key-reused');
  const kept = { workspaceId, key: idempotency.key };
  return JSON.parse(await openAnswer(ctx, kept, first.response)) as KeptAnswer;
}

/** A replay's answer: the document as it is now (not-found once deleted), with the links kept. */
async function replay(ctx: Context, workspaceId: string, kept: KeptAnswer): Promise<WriteAnswer> {
  const document = await getDocument(ctx, workspaceId, kept.documentId);
  return { document, signingUrls: kept.signingUrls, replayed: true };
}

/** Thrown inside a change's transaction when its key turned out to be taken: nothing is stored. */
class KeyTaken extends Error {}

/**
 * What claims `idempotency` in a change's transaction, keeping `answer` (sealed: the links
 * in it are secrets); throws KeyTaken when another request claimed it first. The sealing
 * key is read here, before any transaction, so sealing inside one never waits on the database.
 */
async function keyClaim(ctx: Context, workspaceId: string, idempotency: IdempotencyKey | null) {
  if (!idempotency) return null;
  const kept = { workspaceId, key: idempotency.key };
  await answerKey(ctx);
  return {
    claim: async (trx: Transaction<Database>, answer: KeptAnswer) => {
      const now = ctx.clock.now();
      const row = {
        workspace_id: workspaceId,
        key: idempotency.key,
        request_sha256: idempotency.requestSha256,
        response: await sealAnswer(ctx, kept, JSON.stringify(answer)),
        created_at: now,
      };
      const since = new Date(now.getTime() - idempotencyWindowMs);
      if (!(await claimIdempotencyKey(trx, row, since))) throw new KeyTaken();
    },
    replace: async (trx: Transaction<Database>, answer: KeptAnswer) =>
      replaceIdempotentAnswer(
        trx,
        workspaceId,
        idempotency.key,
        await sealAnswer(ctx, kept, JSON.stringify(answer)),
      ),
  };
}

/** Runs `change`; when its key was taken meanwhile (or the change was refused because the first request made it), the first answer. */
async function orReplay(
  ctx: Context,
  workspaceId: string,
  idempotency: IdempotencyKey | null,
  change: () => Promise<WriteAnswer>,
): Promise<WriteAnswer> {
  try {
    return await change();
  } catch (error) {
    if (!idempotency || !(error instanceof KeyTaken || error instanceof ApiError)) throw error;
    const taken = await answeredBefore(ctx, workspaceId, idempotency);
    if (taken) return replay(ctx, workspaceId, taken);
    if (error instanceof KeyTaken) throw new ApiError('idempotency-key-reused');
    throw error;
  }
}

/**
 * A write under its Idempotency-Key: a repeat replays the first answer; otherwise `change`
 * runs with the key to claim in its transaction, and a request that lost the race for the
 * key (or found the change made by it) replays.
 */
async function onceFor(
  ctx: Context,
  workspaceId: string,
  idempotency: IdempotencyKey | null,
  change: (key: Awaited<ReturnType<typeof keyClaim>>) => Promise<WriteAnswer>,
): Promise<WriteAnswer> {
  const before = await answeredBefore(ctx, workspaceId, idempotency);
  if (before) return replay(ctx, workspaceId, before);
  const key = await keyClaim(ctx, workspaceId, idempotency);
  return orReplay(ctx, workspaceId, idempotency, () => change(key));
}

/**
 * Binds a key to a whole request that makes many things (a template's documents, each item
 * under a key of its own): the first request claims it, a repeat of the same request passes,
 * and the same key with another body is 409 `idempotency-key-reused` before any item is
 * made (an item added, or one changed, or `send` added to one, is another request).
 */
export async function bindRequestKey(
  ctx: Context,
  workspaceId: string,
  idempotency: IdempotencyKey | null,
): Promise<void> {
  if (!idempotency) return;
  const key = await keyClaim(ctx, workspaceId, idempotency);
  try {
    await ctx.db.transaction().execute(async (trx) => key?.claim(trx, { documentId: '', signingUrls: [] }));
  } catch (error) {
    if (!(error instanceof KeyTaken)) throw error;
    // Held already: by this same request (a repeat) or, 409, by another one.
    await answeredBefore(ctx, workspaceId, idempotency);
  }
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
  if (before) return finishReplay(ctx, workspaceId, before, send, idempotency);
  const id = ctx.ids.uuid();
  const key = await keyClaim(ctx, workspaceId, idempotency);
  try {
    await answering(() =>
      createDocument(ctx, input, {
        id,
        first: async (trx) => {
          if (send) {
            // A PDF uploaded now, or one already stored (a template's, kept-uploads.ts').
            const pdf = input.file ? 'uploaded' : (input.kept?.sha256 ?? null);
            const made = { original_sha256: pdf, body: input.body ?? '' };
            const refusal = sendRefusal({ ...made, pricing: input.pricing ?? null }, input.recipients);
            if (refusal) throw new DocumentActionError(refusal);
          }
          await key?.claim(trx, { documentId: id, signingUrls: [] });
        },
      }),
    );
  } catch (error) {
    if (!(error instanceof KeyTaken)) throw error;
    const taken = await answeredBefore(ctx, workspaceId, idempotency);
    if (!taken) throw new ApiError('idempotency-key-reused');
    return finishReplay(ctx, workspaceId, taken, send, idempotency);
  }
  const signingUrls = send ? await sendCreated(ctx, workspaceId, id, idempotency, key) : [];
  return { document: await getDocument(ctx, workspaceId, id), signingUrls, replayed: false };
}

/**
 * The send of a document just created with `send`. A repeat of the create may have sent it
 * first (it found the key and a draft, before this send came): then its links, as kept.
 */
async function sendCreated(
  ctx: Context,
  workspaceId: string,
  id: string,
  idempotency: IdempotencyKey | null,
  key: Awaited<ReturnType<typeof keyClaim>>,
): Promise<InvitedLink[]> {
  try {
    const sent = await sendDocument(ctx, workspaceId, id, async (trx, links) => {
      if (links.length > 0) await key?.replace(trx, { documentId: id, signingUrls: links });
    });
    return sent.links;
  } catch (error) {
    const kept =
      error instanceof DocumentActionError ? await answeredBefore(ctx, workspaceId, idempotency) : null;
    if (kept) return kept.signingUrls;
    throw asApiError(error);
  }
}

/** A create repeated: sent now if it asked to be and is still a draft. */
async function finishReplay(
  ctx: Context,
  workspaceId: string,
  kept: KeptAnswer,
  send: boolean,
  idempotency: IdempotencyKey | null,
): Promise<WriteAnswer> {
  const answer = await replay(ctx, workspaceId, kept);
  if (!send || answer.document.status !== 'draft') return answer;
  const key = await keyClaim(ctx, workspaceId, idempotency);
  try {
    const { links } = await sendDocument(ctx, workspaceId, kept.documentId, async (trx, made) => {
      if (made.length > 0) await key?.replace(trx, { documentId: kept.documentId, signingUrls: made });
    });
    return { ...(await replay(ctx, workspaceId, kept)), signingUrls: links };
  } catch (error) {
    // Sent meanwhile by another repeat: the answer is theirs, as kept.
    if (!(error instanceof DocumentActionError)) throw error;
    const now = await answeredBefore(ctx, workspaceId, idempotency);
    return replay(ctx, workspaceId, now ?? kept);
  }
}

/** `POST /v1/documents/{id}/send`: the draft sent, as the web app's Send does. */
export async function sendDocumentFromApi(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  idempotency: IdempotencyKey | null,
): Promise<WriteAnswer> {
  return onceFor(ctx, workspaceId, idempotency, async (key) => {
    const { links } = await answering(() =>
      sendDocument(ctx, workspaceId, documentId, async (trx, made) => {
        await key?.claim(trx, { documentId, signingUrls: made });
      }),
    );
    return { document: await getDocument(ctx, workspaceId, documentId), signingUrls: links, replayed: false };
  });
}

/**
 * `PUT /v1/documents/{id}`: a draft replaced whole, as the edit form does (every check of a
 * create; nothing changes on a refusal), its fields those of the body; without a `file` it keeps
 * its PDF. With `send`, sent at once after, as `POST …/send` (its Idempotency-Key included).
 */
export async function replaceDocumentFromApi(
  ctx: Context,
  documentId: string,
  input: CreateDocumentInput,
  options: { send: boolean; idempotency: IdempotencyKey | null },
): Promise<WriteAnswer> {
  const { workspaceId } = input;
  const before = await answeredBefore(ctx, workspaceId, options.idempotency);
  if (before) return replay(ctx, workspaceId, before);
  await answering(() => editDraft(ctx, workspaceId, documentId, { ...input, fields: input.fields ?? [] }));
  if (options.send) return sendDocumentFromApi(ctx, workspaceId, documentId, options.idempotency);
  return { document: await getDocument(ctx, workspaceId, documentId), signingUrls: [], replayed: false };
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

/**
 * `POST /v1/documents/{id}/recipients/{recipientId}/remind`: the signer mailed their link
 * again, as the web app's Remind does (their turn, not signed, at most once an hour: a
 * refusal within the hour says when the next may go). Under an Idempotency-Key, a repeat
 * answers the document as it is now and mails nothing again.
 */
export async function remindFromApi(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  recipientId: string,
  idempotency: IdempotencyKey | null = null,
): Promise<WriteAnswer> {
  return onceFor(ctx, workspaceId, idempotency, async (key) => {
    try {
      await answering(
        () =>
          remindRecipient(ctx, workspaceId, documentId, recipientId, async (trx) => {
            await key?.claim(trx, { documentId, signingUrls: [] });
          }),
        'active',
      );
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'reminded-recently')) throw error;
      const recipient = (await findFullRecipients(ctx.db, workspaceId, documentId)).find(
        (r) => r.id === recipientId,
      );
      const next = (recipient?.reminded_at?.getTime() ?? 0) + reminderIntervalMs;
      const seconds = Math.max(1, Math.ceil((next - ctx.clock.now().getTime()) / 1000));
      throw new ApiError('reminded-recently', { 'Retry-After': String(seconds) });
    }
    return { document: await getDocument(ctx, workspaceId, documentId), signingUrls: [], replayed: false };
  });
}

/**
 * `POST /v1/documents/{id}/withdraw`: the document ends (expired), as the web app's Withdraw
 * does. Under an Idempotency-Key, a repeat answers the document as it is now (instead of
 * `document-not-active`).
 */
export async function withdrawFromApi(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  input: { by: string; reason?: string },
  idempotency: IdempotencyKey | null = null,
): Promise<WriteAnswer> {
  return onceFor(ctx, workspaceId, idempotency, async (key) => {
    await answering(
      () =>
        withdrawDocument(ctx, workspaceId, documentId, input, async (trx) => {
          await key?.claim(trx, { documentId, signingUrls: [] });
        }),
      'active',
    );
    return { document: await getDocument(ctx, workspaceId, documentId), signingUrls: [], replayed: false };
  });
}

/**
 * `POST /v1/documents/{id}/recipients/{recipientId}/signing-url`: a fresh personal link for
 * a recipient of a document the integrator delivers (`delivery: none`), whose turn has come;
 * the one before stops working at once. A mailed document's links stay the mailed ones
 * (`document-delivered-by-mail`): a fresh one would break the link in the recipient's mail.
 */
export async function renewSigningUrl(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  recipientId: string,
  idempotency: IdempotencyKey | null,
): Promise<WriteAnswer> {
  return onceFor(ctx, workspaceId, idempotency, async (key) => {
    const link = await answering(
      () =>
        withDocument(ctx, workspaceId, documentId, async (trx, { document, recipients }) => {
          const recipient = recipients.find((r) => r.id === recipientId);
          if (!recipient) throw new ApiError('not-found');
          if (!isActive(document.status)) throw new DocumentActionError('not-allowed');
          if (mailsRecipients(document)) throw new ApiError('document-delivered-by-mail');
          if (recipient.token_hash === null) throw new ApiError('recipient-not-invited');
          const { token, tokenHash } = newSigningToken(ctx);
          await trx
            .updateTable('recipients')
            .set({ token_hash: tokenHash })
            .where('workspace_id', '=', workspaceId)
            .where('id', '=', recipientId)
            .execute();
          const made = { recipientId, email: recipient.email, url: signingLink(ctx, documentId, token) };
          await key?.claim(trx, { documentId, signingUrls: [made] });
          return made;
        }),
      'active',
    );
    return {
      document: await getDocument(ctx, workspaceId, documentId),
      signingUrls: [link],
      replayed: false,
    };
  });
}
