// The recipient's actions on a document (opening it is opening.ts's rule): sign it (the
// last signer's signature completes it and makes the seal owed, progress/completion.ts;
// otherwise the next signing group is invited, progress/invitations.ts), decline it. Every
// change holds the document's row lock (progress/document-lock.ts), goes through the state machine
// (lifecycle.ts) and records its event (events.ts) in the same transaction. One-time codes
// are in codes.ts; who a link belongs to, and what the pages read, in session.ts.

import type { Context } from '../context.ts';
import { updateDocument, updateRecipient } from '../documents/documents.repository.ts';
import { type ClientInfo, recordDocumentEvent } from '../documents/events.ts';
import {
  DocumentActionError,
  isActive,
  isEverySignerDone,
  isSameName,
  nextStatus,
  type Refusal,
} from '../documents/lifecycle.ts';
import { fillFields } from '../fields/field-rules.ts';
import { fillField, findRecipientFields } from '../fields/fields.repository.ts';
import { translator } from '../i18n/messages.ts';
import { refusalOf } from '../i18n/refusals.ts';
import { queueMail } from '../mail/mail.service.ts';
import { declinedMail } from '../mail/templates.ts';
import { drawableText, drawingRefusal } from '../pdf/fonts.ts';
import { checkSignatureImage } from '../pdf/signature-image.ts';
import { completeDocument } from '../progress/completion.ts';
import { withDocument } from '../progress/document-lock.ts';
import { inviteAll } from '../progress/invitations.ts';
import { findOwners } from '../workspaces/workspaces.repository.ts';
import { checkCode } from './codes.ts';
import { recordOpened } from './opening.ts';
import { checkCanSign, recipientOf, type SigningSession } from './session.ts';

/** Opening is opening.ts's rule; here too for the callers that sign, decline and open. */
export { openDocument } from './opening.ts';

/** The signature a signer adopts: their name typed (set in a handwriting face), or drawn. */
export type AdoptedSignature = { kind: 'typed' } | { kind: 'drawn'; png: Buffer };

export interface SignInput {
  fullName: string;
  consent: boolean;
  code?: string;
  /** Typed unless told otherwise. */
  signature?: AdoptedSignature;
  /** What the signer entered in their fields, by field id (initials, text, checkboxes). */
  fields?: Record<string, string | undefined>;
  client?: ClientInfo;
}

/** "2026-11-25": a date-signed field's value, in UTC (documents have no time zone of their own). */
export function dateSigned(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * The signature as it can be drawn, checked before the document's lock is taken (reading a
 * hostile image must hold nothing another request waits for): the drawn image, or null.
 */
async function checkedSignature(input: SignInput): Promise<Buffer | null> {
  // The typed name is drawn as the signature: a letter no face has gets a sentence beside it.
  const nameProblem = drawingRefusal('yourName', input.fullName);
  if (nameProblem) throw refusalOf({ fullName: nameProblem });
  return input.signature?.kind === 'drawn' ? checkSignatureImage(input.signature.png) : null;
}

/**
 * A signer signs. The last signer's signature completes the signing (status signed,
 * signedAt) and makes the seal owed: the worker makes the sealed PDF and records
 * document.completed with it (sealing/sealing.service.ts). Parallel signers are serialised
 * by the row lock, so exactly one of them completes it.
 */
export async function signDocument(
  ctx: Context,
  session: SigningSession,
  input: SignInput,
): Promise<{ completed: boolean; eventId: string }> {
  const drawn = await checkedSignature(input);
  // A wrong code must count even though the signature is refused: that update commits,
  // and the refusal is thrown only after it.
  type Outcome = { refused: Refusal } | { refused: null; completed: boolean; eventId: string };
  const outcome = await withDocument(
    ctx,
    session.workspaceId,
    session.documentId,
    async (trx, locked, now): Promise<Outcome> => {
      const recipient = recipientOf(locked, session);
      checkCanSign(locked, recipient);
      if (!input.consent) throw new DocumentActionError('consent-required');
      if (!isSameName(input.fullName, recipient.full_name)) throw new DocumentActionError('name-mismatch');
      // Before the code is judged: a field to correct does not use up an attempt.
      const fields = await findRecipientFields(trx, recipient.workspace_id, recipient.id);
      // A value the sender gave is not the signer's to change: they sign with it shown.
      const fillable = fields.filter((f) => !f.prefilled).map((f) => ({ ...f, maxLength: f.max_length }));
      // The name as the sender wrote it (the typed one matches it, but for case and spaces).
      const values = fillFields(fillable, input.fields ?? {}, {
        name: recipient.full_name,
        email: recipient.email,
        date: dateSigned(now),
      });
      if (recipient.signing_method === 'email-code') {
        const refusal = await checkCode(trx, ctx, recipient, input.code ?? '', now, input.client);
        if (refusal) return { refused: refusal };
      }

      let document = await recordOpened(trx, ctx, locked, recipient, now, input.client);
      recipient.signed_at = now;
      await updateRecipient(trx, recipient.workspace_id, recipient.id, {
        signed_at: now,
        signature_name: drawableText(input.fullName.trim()),
        signature_kind: drawn ? 'drawn' : 'typed',
        signature_image: drawn,
        code_hash: null,
        code_expires_at: null,
      });
      for (const [id, value] of values) await fillField(trx, recipient.workspace_id, id, value, now);
      for (const f of fields.filter((field) => field.prefilled))
        await fillField(trx, recipient.workspace_id, f.id, f.value, now);
      const recordSigned = (signedDocument: typeof document) =>
        recordDocumentEvent(trx, ctx, {
          document: signedDocument,
          type: 'document.signed',
          recipient,
          at: now,
          client: input.client,
        });
      if (isEverySignerDone(locked.recipients)) {
        const signed = await completeDocument(trx, document, now, recordSigned);
        return { refused: null, completed: true, eventId: signed.id };
      }
      const status = nextStatus(document.status, 'sign');
      document = { ...document, status };
      await updateDocument(trx, document.workspace_id, document.id, { status });
      const signed = await recordSigned(document);
      await inviteAll(trx, ctx, document, locked.recipients, 'automatic'); // nobody waits at a page
      return { refused: null, completed: false, eventId: signed.id };
    },
  );
  if (outcome.refused) throw new DocumentActionError(outcome.refused);
  return { completed: outcome.completed, eventId: outcome.eventId };
}

/** A signer declines, with an optional reason: the document is declined for everyone. */
export async function declineDocument(
  ctx: Context,
  session: SigningSession,
  input: { reason?: string; client?: ClientInfo },
): Promise<{ eventId: string }> {
  const reason = input.reason?.trim() ? input.reason.trim().slice(0, 1000) : null;
  return withDocument(ctx, session.workspaceId, session.documentId, async (trx, locked, now) => {
    const recipient = recipientOf(locked, session);
    if (!isActive(locked.document.status)) throw new DocumentActionError('not-allowed');
    if (recipient.role !== 'signer') throw new DocumentActionError('not-a-signer');
    if (recipient.signed_at !== null) throw new DocumentActionError('already-signed');
    let document = await recordOpened(trx, ctx, locked, recipient, now, input.client);
    const status = nextStatus(document.status, 'decline');
    document = { ...document, status };
    await updateDocument(trx, document.workspace_id, document.id, { status });
    await updateRecipient(trx, recipient.workspace_id, recipient.id, {
      declined_at: now,
      decline_reason: reason,
    });
    const event = await recordDocumentEvent(trx, ctx, {
      document,
      type: 'document.declined',
      recipient,
      at: now,
      client: input.client,
      detail: reason,
    });
    const declined = {
      documentTitle: document.title,
      recipientName: recipient.full_name,
      recipientEmail: recipient.email,
      reason,
      documentLink: `${ctx.config.publicUrl}/documents/${document.id}`,
    };
    // Each owner in their own language.
    for (const owner of await findOwners(trx, document.workspace_id)) {
      await queueMail(trx, ctx, {
        workspaceId: document.workspace_id,
        documentId: document.id,
        recipientId: null,
        to: owner.email,
        priority: 'automatic',
        ...declinedMail(translator(owner.language), declined),
      });
    }
    return { eventId: event.id };
  });
}
