// The one-time codes of the email-code method: a signer asks for a code (mailed, valid ten
// minutes, one a minute at most) and signs with it; five wrong tries void it. Only the
// code's hash is kept. Each code mailed, refused or accepted is a history event
// (documents/event-types.ts): the certificate and the owner's timeline list them.

import { createHash, timingSafeEqual } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import { type FullRecipientRow, updateRecipient } from '../documents/documents.repository.ts';
import { type ClientInfo, recordHistoryEvent } from '../documents/events.ts';
import { DocumentActionError, type Refusal } from '../documents/lifecycle.ts';
import { firstLanguage } from '../i18n/languages.ts';
import { translator } from '../i18n/messages.ts';
import { queueMail } from '../mail/mail.service.ts';
import { signingCodeMail } from '../mail/templates.ts';
import { withDocument } from '../progress/document-lock.ts';
import { senderNameOf } from '../workspaces/brand.ts';
import { findReplyAddress, findWorkspace } from '../workspaces/workspaces.repository.ts';
import { recordOpened } from './opening.ts';
import { checkCanSign, recipientOf, type SigningSession } from './session.ts';

export const codeValidityMs = 10 * 60_000;
export const codeResendIntervalMs = 60_000;
export const maxCodeAttempts = 5;

function hashCode(recipientId: string, code: string): string {
  return createHash('sha256').update(`${recipientId}:${code}`).digest('hex');
}

/** Why a code was refused, as the history says it. */
const refusedDetail: Partial<Record<Refusal, string>> = {
  'code-invalid': 'wrong code',
  'code-expired': 'expired code',
  'code-attempts-exceeded': 'too many wrong codes: the code is void',
};

/**
 * Judges the code a signer entered; a wrong one counts against the code's tries. Every
 * judgement of a code that was mailed is recorded (code.accepted, code.refused with why);
 * a form posted without a six-digit code is a sentence to correct, not a refused code.
 */
export async function checkCode(
  trx: Transaction<Database>,
  ctx: Context,
  recipient: FullRecipientRow,
  code: string,
  now: Date,
  client?: ClientInfo,
): Promise<Refusal | null> {
  const refusal = await judgeCode(trx, recipient, code, now);
  if (refusal === 'code-required') return refusal;
  const document = { id: recipient.document_id, workspace_id: recipient.workspace_id };
  const detail =
    refusal === 'code-invalid'
      ? `wrong code (${recipient.code_attempts + 1} of ${maxCodeAttempts} tries)`
      : refusal && refusedDetail[refusal];
  await recordHistoryEvent(trx, ctx, {
    document,
    type: refusal ? 'code.refused' : 'code.accepted',
    recipient,
    at: now,
    client,
    detail: detail ?? null,
  });
  return refusal;
}

async function judgeCode(
  trx: Transaction<Database>,
  recipient: FullRecipientRow,
  code: string,
  now: Date,
): Promise<Refusal | null> {
  if (!/^\d{6}$/.test(code.trim()) || recipient.code_sent_at === null) return 'code-required';
  if (recipient.code_attempts >= maxCodeAttempts) return 'code-attempts-exceeded';
  if (!recipient.code_hash || !recipient.code_expires_at || recipient.code_expires_at <= now)
    return 'code-expired';
  const matches = timingSafeEqual(
    Buffer.from(hashCode(recipient.id, code.trim()), 'hex'),
    Buffer.from(recipient.code_hash, 'hex'),
  );
  if (matches) return null;
  const attempts = recipient.code_attempts + 1;
  await updateRecipient(trx, recipient.workspace_id, recipient.id, {
    code_attempts: attempts,
    // Out of attempts: the code is void and a new one must be sent.
    ...(attempts >= maxCodeAttempts ? { code_hash: null, code_expires_at: null } : {}),
  });
  return attempts >= maxCodeAttempts ? 'code-attempts-exceeded' : 'code-invalid';
}

/** Mails a fresh six-digit code to an email-code signer whose turn it is. */
export async function requestSigningCode(
  ctx: Context,
  session: SigningSession,
  client?: ClientInfo,
): Promise<{ sentTo: string }> {
  return withDocument(ctx, session.workspaceId, session.documentId, async (trx, locked, now) => {
    const recipient = recipientOf(locked, session);
    if (recipient.signing_method !== 'email-code') throw new DocumentActionError('not-email-code');
    checkCanSign(locked, recipient);
    if (recipient.code_sent_at && now.getTime() - recipient.code_sent_at.getTime() < codeResendIntervalMs) {
      throw new DocumentActionError('code-too-soon');
    }
    // Asking for a code is posting through the link: the recipient has the document open.
    await recordOpened(trx, ctx, locked, recipient, now, client);
    const code = randomSixDigits(ctx);
    await updateRecipient(trx, recipient.workspace_id, recipient.id, {
      code_hash: hashCode(recipient.id, code),
      code_expires_at: new Date(now.getTime() + codeValidityMs),
      code_attempts: 0,
      code_sent_at: now,
    });
    const workspace = await findWorkspace(trx, session.workspaceId);
    const mail = signingCodeMail(translator(firstLanguage(recipient.language, workspace?.default_language)), {
      code,
      documentTitle: locked.document.title,
      workspaceName: senderNameOf(workspace),
      validMinutes: codeValidityMs / 60_000,
    });
    await queueMail(trx, ctx, {
      workspaceId: session.workspaceId,
      documentId: session.documentId,
      recipientId: recipient.id,
      to: recipient.email,
      // The signer has the page open and waits for the code to sign with.
      priority: 'urgent',
      replyTo: await findReplyAddress(trx, session.workspaceId, locked.document.created_by),
      ...mail,
    });
    await recordHistoryEvent(trx, ctx, {
      document: locked.document,
      type: 'code.sent',
      recipient,
      at: now,
      client,
    });
    return { sentTo: recipient.email };
  });
}

/** Uniform over 000000–999999 (rejection sampling, no modulo bias). */
export function randomSixDigits(ctx: Context): string {
  for (;;) {
    const n = ctx.ids.randomBytes(4).readUInt32BE(0);
    if (n < 4_294_000_000) return String(n % 1_000_000).padStart(6, '0');
  }
}
