// Completing a document: when the last signer has signed, a worker (never the signer's
// request) appends the certificate of completion to the original PDF, seals the whole
// file with the installation's seal (PAdES B-B, an incremental update), stores it, and in
// that same transaction records document.completed and queues the completion mails. So a
// receiver that hears document.completed can fetch the sealed file at once.
import type { Context } from '../context.ts';
import {
  type FullDocumentRow,
  type FullRecipientRow,
  findFullDocument,
  findFullRecipients,
  lockDocument,
  updateDocument,
} from '../documents/documents.repository.ts';
import { fileToDocumentFile } from '../documents/documents.service.ts';
import { historyLabel } from '../documents/event-types.ts';
import { recordDocumentEvent } from '../documents/events.ts';
import { type AdoptedSignature, fieldTypeSpecs } from '../fields/field-types.ts';
import type { FieldRow } from '../fields/fields.repository.ts';
import { listFields } from '../fields/fields.service.ts';
import { findFile } from '../files/files.repository.ts';
import { readFileOf, storeFile } from '../files/files.service.ts';
import { firstLanguage } from '../i18n/languages.ts';
import { type Translator, translator } from '../i18n/messages.ts';
import type { Certificate, CertificateField, CertificateRecipient } from '../pdf/certificate.ts';
import type { FieldStamp } from '../pdf/fields.ts';
import { whileLeased } from '../queue/heartbeat.ts';
import { findWorkspace } from '../workspaces/workspaces.repository.ts';
import { queueCompletionMails } from './completion-mail.ts';
import { currentSeal } from './seal-key.ts';
import { lockSealForUse } from './seal-keys.repository.ts';
import { sealLeaseMs, sealQueue } from './seal-queue.ts';
import { sealInThread } from './seal-thread.ts';
import { claimDueSeal, findAuditEvents, markSealFailed, type SealClaim } from './sealing.repository.ts';
import { pinnedTsaCertificates } from './tsa.ts';

export { sealLeaseMs, sealRetryDelaysMs } from './seal-queue.ts';

/** Seals every document whose seal is due; returns how many were attempted. */
export async function sealDueDocuments(ctx: Context, limit = 10): Promise<number> {
  let attempted = 0;
  while (attempted < limit) {
    const claim = await claimDueSeal(ctx.db, ctx.clock.now(), sealLeaseMs);
    if (!claim) break;
    attempted += 1;
    try {
      // The lease renewed while the seal is made; a renewal that fails is logged and the seal
      // goes on: its own transaction keeps the first stored seal if another worker finished first.
      await whileLeased(
        ctx,
        sealQueue,
        () => [claim.held],
        () => sealDocument(ctx, claim),
        {
          documentId: claim.id,
        },
      );
    } catch (error) {
      const retryAt = sealQueue.retryAt(claim.attempts, ctx.clock.now());
      ctx.log.error({ err: error, documentId: claim.id, attempt: claim.attempts, retryAt }, 'sealing failed');
      await markSealFailed(ctx.db, claim, (error as Error)?.message ?? String(error), retryAt);
    }
  }
  return attempted;
}

/** The signature a signer adopted, as their signature fields and the certificate show it. */
function adoptedSignature(recipient: FullRecipientRow): AdoptedSignature {
  return recipient.signature_kind === 'drawn' && recipient.signature_image
    ? { kind: 'drawn', png: recipient.signature_image }
    : { kind: 'typed', name: recipient.signature_name ?? recipient.full_name };
}

/**
 * What each filled field shows in the sealed PDF, drawn at its rectangle with the primitive
 * its type names (fields/field-types.ts → pdf/fields.ts).
 */
function stampsOf(fields: FieldRow[], recipients: FullRecipientRow[]): FieldStamp[] {
  const stamps: FieldStamp[] = [];
  for (const field of fields) {
    const recipient = recipients.find((r) => r.id === field.recipient_id);
    if (!field.filled_at || !recipient?.signed_at) continue;
    const content = fieldTypeSpecs[field.type].draw(field.value, adoptedSignature(recipient));
    if (content)
      stamps.push({
        page: field.page,
        x: field.x,
        y: field.y,
        width: field.width,
        height: field.height,
        content,
      });
  }
  return stamps;
}

/** The fields a recipient filled, as the certificate lists them (each in its type's wording). */
function certificateFields(
  fields: FieldRow[],
  recipient: FullRecipientRow,
  tr: Translator,
): CertificateField[] {
  return fields
    .filter((f) => f.recipient_id === recipient.id && f.filled_at !== null)
    .map((f) => ({
      name: tr.t(`field.type.${f.type}`),
      label: f.label,
      page: f.page,
      value: fieldTypeSpecs[f.type].certificateValue(f.value, tr),
      bySender: f.prefilled,
    }));
}

/**
 * When a recipient was first mailed: their invitation (progress/invitations.ts), or, for a viewer never
 * invited (a later order than every signer), only the completion mail queued with this seal.
 */
function sentOf(recipient: FullRecipientRow, sealedAt: Date): CertificateRecipient['sent'] {
  if (recipient.invited_at) return { at: recipient.invited_at, completionMailOnly: false };
  return recipient.role === 'viewer' ? { at: sealedAt, completionMailOnly: true } : null;
}

function recipientOf(
  recipient: FullRecipientRow,
  events: Awaited<ReturnType<typeof findAuditEvents>>,
  fields: FieldRow[],
  sealedAt: Date,
  tr: Translator,
): CertificateRecipient {
  const own = events.filter((e) => e.recipient_id === recipient.id);
  const acted =
    own.findLast((e) => e.type === 'document.signed' || e.type === 'document.declined') ?? own.at(-1);
  const signature = recipient.signed_at === null ? null : adoptedSignature(recipient);
  return {
    fullName: recipient.full_name,
    email: recipient.email,
    role: recipient.role,
    signingMethod: recipient.signing_method,
    sent: sentOf(recipient, sealedAt),
    openedAt: recipient.opened_at,
    signedAt: recipient.signed_at,
    declinedAt: recipient.declined_at,
    clientIp: acted?.client_ip ?? null,
    userAgent: acted?.user_agent ?? null,
    signature,
    fields: certificateFields(fields, recipient, tr),
  };
}

/** Everything the certificate of completion says of a document. */
async function certificateOf(
  ctx: Context,
  document: FullDocumentRow,
  original: { sha256: string; pages: number },
  sealedAt: Date,
) {
  const recipients = await findFullRecipients(ctx.db, document.workspace_id, document.id);
  const events = await findAuditEvents(ctx.db, document.workspace_id, document.id);
  const workspace = await findWorkspace(ctx.db, document.workspace_id);
  const fields = await listFields(ctx.db, document.workspace_id, document.id);
  // The document's language, else the workspace's default (issue 51), else English.
  const language = firstLanguage(document.language, workspace?.default_language);
  const tr = translator(language);
  const certificate: Certificate = {
    documentId: document.id,
    title: document.title,
    workspaceName: workspace?.name ?? 'Signet',
    originalSha256: original.sha256,
    originalPages: original.pages,
    sentAt: document.sent_at,
    completedAt: document.signed_at ?? ctx.clock.now(),
    recipients: recipients.map((r) => recipientOf(r, events, fields, sealedAt, tr)),
    events: events.map((e) => ({
      at: e.created_at,
      label: historyLabel(e.type, e.detail, tr),
      recipientEmail: e.recipient_email,
      clientIp: e.client_ip,
      userAgent: e.user_agent,
    })),
    verifyUrl: `${ctx.config.publicUrl}/verify`,
    language,
  };
  return { certificate, recipients, stamps: stampsOf(fields, recipients) };
}

async function sealDocument(ctx: Context, claim: SealClaim): Promise<void> {
  const document = await findFullDocument(ctx.db, claim.workspaceId, claim.id);
  if (document?.sealed_sha256) {
    // Sealed by an earlier attempt whose lease ran out while it worked: nothing is owed.
    await markSealFailed(ctx.db, claim, null, null);
    return;
  }
  if (document?.status !== 'signed' || !document.original_sha256) {
    await markSealFailed(ctx.db, claim, 'nothing to seal: the document is not signed or has no PDF', null);
    return;
  }
  const originalFile = await findFile(ctx.db, document.original_sha256);
  if (!originalFile) throw new Error(`the original file ${document.original_sha256} is missing`);
  const original = await readFileOf(ctx.db, originalFile);
  const sealedAt = ctx.clock.now();
  const { certificate, recipients, stamps } = await certificateOf(
    ctx,
    document,
    { sha256: originalFile.sha256, pages: originalFile.pages ?? 0 },
    sealedAt,
  );
  const seal = await currentSeal(ctx);
  // In the process's seal thread: the API and pages of this process keep answering meanwhile.
  const certified = await sealInThread({
    original,
    certificate,
    stamps,
    identity: seal.identity,
    info: {
      signedAt: sealedAt,
      name: 'Signet',
      reason: `Completed and sealed by Signet: document ${document.id}`,
      location: new URL(ctx.config.publicUrl).hostname,
      contactInfo: ctx.config.publicUrl,
      fieldName: `Signet seal ${document.id}`,
    },
    // With a time-stamp authority the seal also carries a signature time-stamp (PAdES B-T).
    tsaUrl: ctx.config.seal.tsaUrl,
    tsaCertificates: await pinnedTsaCertificates(ctx),
  });
  const sealed = certified.data;
  await ctx.db.transaction().execute(async (trx) => {
    const locked = await lockDocument(trx, document.workspace_id, document.id);
    // Another worker finished first (its lease ran out while this one worked): keep theirs.
    if (!locked || locked.sealed_sha256) return;
    // A seal retired while this one worked (`signet seal rotate` in another process) vouches
    // only for what it sealed before: this attempt fails, and the retry seals with the new one.
    // The lock makes a rotation wait until this file is recorded as sealed by the old seal.
    if (await lockSealForUse(trx, seal.fingerprint)) {
      throw new Error(
        'the seal was retired while this document was being sealed; it will be sealed with the current seal',
      );
    }
    const file = await storeFile(trx, {
      data: sealed,
      mediaType: 'application/pdf',
      pages: certified.pages,
      now: sealedAt,
    });
    await updateDocument(trx, locked.workspace_id, locked.id, {
      sealed_sha256: file.sha256,
      sealed_by: seal.fingerprint,
      ...sealQueue.leaseEnded(),
      seal_error: null,
    });
    const completed = { ...locked, sealed_sha256: file.sha256 };
    await recordDocumentEvent(trx, ctx, {
      document: completed,
      type: 'document.completed',
      recipient: null,
      at: sealedAt,
      files: [
        fileToDocumentFile({ ...originalFile, kind: 'original' }),
        fileToDocumentFile({ ...file, kind: 'sealed' }),
      ],
    });
    await queueCompletionMails(trx, ctx, { document: completed, recipients, sealed: file });
  });
}
