// Documents that really get signed: create, send, open, sign, decline, expire, and the
// one-time codes of the email-code method. Every change locks the document row, goes
// through the state machine (lifecycle.ts) and records its event (events.ts) in the same
// transaction. The CLI, the signing pages and the expiry job all call these functions.

import { createHash, timingSafeEqual } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import { notifyChannel } from '../db/notify.ts';
import type { Database, DocumentStatus, RecipientRole, SigningMethod } from '../db/schema.ts';
import {
  deleteDocument,
  deleteRecipients,
  type FullDocumentRow,
  type FullRecipientRow,
  findDueReminders,
  findFullDocument,
  findFullRecipients,
  findRecipientByTokenHash,
  insertDocuments,
  insertRecipients,
  lockDocument,
  lockDueDocuments,
  updateDocument,
  updateRecipient,
} from '../documents/documents.repository.ts';
import { documentUrl } from '../documents/documents.service.ts';
import { type ClientInfo, recordDocumentEvent } from '../documents/events.ts';
import {
  canTransition,
  DocumentActionError,
  isActive,
  isEverySignerDone,
  isSameName,
  nextStatus,
  type Refusal,
  signersAhead,
} from '../documents/lifecycle.ts';
import { checkPricingBlock, describePricingError, pricingErrorKey } from '../documents/pricing.ts';
import { countUpload, uploadAllowanceProblem } from '../documents/upload-usage.ts';
import { computeValueAmount, type PricingBlock } from '../documents/value.ts';
import { checkFields, fillFields } from '../fields/field-rules.ts';
import { fillField, findFields, findRecipientFields, replaceFields } from '../fields/fields.repository.ts';
import { fieldRows, listFields, pageSizesOf, sameEmail } from '../fields/fields.service.ts';
import { findDocumentFiles } from '../files/files.repository.ts';
import { storeFile } from '../files/files.service.ts';
import { ApiError } from '../http/errors.ts';
import { type FieldErrors, InputError } from '../input-error.ts';
import { emailKey, isEmailAddress, normalizeEmail } from '../mail/address.ts';
import { queueMail } from '../mail/mail.service.ts';
import { findMails } from '../mail/mails.repository.ts';
import {
  declinedMail,
  reminderMail,
  signingCodeMail,
  signingLinkIn,
  signingRequestMail,
  withdrawnMail,
} from '../mail/templates.ts';
import { drawableText, drawingProblem } from '../pdf/fonts.ts';
import { type PdfFacts, tooLargeSentence } from '../pdf/inspect.ts';
import { inspectPdfInThread } from '../pdf/inspect-thread.ts';
import { checkSignatureImage } from '../pdf/signature-image.ts';
import { renderOriginal } from '../sealing/original.ts';
import { sealChannel } from '../sealing/sealing.repository.ts';
import { findOwnerEmails, findWorkspace } from '../workspaces/workspaces.repository.ts';

export const defaultExpirySeconds = 30 * 24 * 60 * 60;
export const codeValidityMs = 10 * 60_000;
export const codeResendIntervalMs = 60_000;
export const maxCodeAttempts = 5;
export const maxRecipients = 20;

export interface RecipientInput {
  email: string;
  fullName: string;
  role: RecipientRole;
  signingMethod: SigningMethod;
  signingOrder: number;
}

export interface CreateDocumentInput {
  workspaceId: string;
  title: string;
  body?: string;
  recipients: RecipientInput[];
  /** Untrusted pricing input, validated by checkPricingBlock; null for none. */
  pricing: unknown;
  /** How long after sending the document can be signed (default 30 days). */
  expiresInSeconds?: number;
  /** Remind pending signers every this many days until it expires (autoReminderChoices); none by default. */
  remindEveryDays?: number | null;
  /** The PDF to be signed; without one, the text body is made into a PDF when it is sent. */
  file?: Uint8Array | null;
  /** The upload was cut off at SIGNET_MAX_UPLOAD_BYTES: refused with the rest of the input's problems. */
  fileTooLarge?: boolean;
  /** Fields on the PDF's pages (untrusted JSON, checked by fields/field-rules.ts). */
  fields?: unknown[];
}

/**
 * Every problem of a new document's input at once, a sentence per field (input-error.ts):
 * `title`, `body`, `expiry`, `recipients` (the list as a whole), `recipients[i].email` (and
 * `.fullName`, `.role`, `.signingMethod`, `.signingOrder`), `pricing` and `pricing.<path>`
 * (pricing.ts names the path). A form shows each beside its input; the CLI prints them all.
 */
function validateCreateInput(
  input: Omit<CreateDocumentInput, 'workspaceId'>,
  errors: FieldErrors,
): PricingBlock | null {
  const title = input.title.trim();
  if (!title || title.length > 200) errors.title = 'Title must be 1 to 200 characters.';
  else {
    const problem = drawingProblem('The title', title);
    if (problem) errors.title = problem;
  }
  if ((input.body ?? '').length > 50_000) errors.body = 'Text must be at most 50,000 characters.';
  else {
    const problem = drawingProblem('The text', input.body ?? '');
    if (problem) errors.body = problem;
  }
  if (input.recipients.length < 1 || input.recipients.length > maxRecipients) {
    errors.recipients = `A document has 1 to ${maxRecipients} recipients.`;
  } else if (!input.recipients.some((r) => r.role === 'signer')) {
    errors.recipients = 'A document needs at least one signer.';
  }
  const emails = new Set<string>();
  for (const [i, r] of input.recipients.entries()) {
    const where = `Recipient ${i + 1}`;
    const key = (field: keyof RecipientInput) => `recipients[${i}].${field}`;
    if (!isEmailAddress(r.email)) errors[key('email')] = `${where}: the email address is not valid.`;
    else if (emails.has(emailKey(r.email)))
      errors[key('email')] = `${where}: ${normalizeEmail(r.email)} is listed twice.`;
    emails.add(emailKey(r.email));
    if (!r.fullName.trim() || r.fullName.trim().length > 200) {
      errors[key('fullName')] = `${where}: full name must be 1 to 200 characters.`;
    } else {
      const problem = drawingProblem(`${where}: the full name`, r.fullName);
      if (problem) errors[key('fullName')] = problem;
    }
    if (r.role !== 'signer' && r.role !== 'viewer')
      errors[key('role')] = `${where}: role must be signer or viewer.`;
    if (r.signingMethod !== 'standard' && r.signingMethod !== 'email-code') {
      errors[key('signingMethod')] = `${where}: signing method must be standard or email-code.`;
    }
    if (!Number.isInteger(r.signingOrder) || r.signingOrder < 1 || r.signingOrder > 100) {
      errors[key('signingOrder')] = `${where}: signing order must be a whole number from 1 to 100.`;
    }
  }
  const expires = input.expiresInSeconds ?? defaultExpirySeconds;
  if (!Number.isInteger(expires) || expires < 60 || expires > 365 * 24 * 60 * 60) {
    errors.expiry = 'Expiry must be between 1 minute and 365 days.';
  }
  const remind = input.remindEveryDays ?? null;
  if (remind !== null && !autoReminderChoices.includes(remind as (typeof autoReminderChoices)[number])) {
    errors.remindEveryDays = `Automatic reminders go every ${autoReminderChoices.join(', ')} days, or never.`;
  }
  if (input.pricing === null || input.pricing === undefined) return null;
  const checked = checkPricingBlock(input.pricing);
  if ('block' in checked) return checked.block;
  for (const error of checked.errors) errors[pricingErrorKey(error)] = describePricingError(error);
  return null;
}

/** A document's input checked whole (the file included): the InputError names every problem. */
async function checkDocumentInput(
  ctx: Context,
  workspaceId: string,
  input: Omit<CreateDocumentInput, 'workspaceId'>,
): Promise<{ pricing: PricingBlock | null; pdf: PdfFacts | null }> {
  const errors: FieldErrors = {};
  const pricing = validateCreateInput(input, errors);
  let pdf: PdfFacts | null = null;
  // Past the workspace's bytes for the day, a file is not even inspected.
  const overToday = input.file && (await uploadAllowanceProblem(ctx, workspaceId, input.file.byteLength));
  if (input.fileTooLarge) errors.file = tooLargeSentence(ctx.config.maxUploadBytes);
  else if (overToday) errors.file = overToday;
  else if (input.file) {
    try {
      // In an inspection thread: a hostile file cannot hold up this process's requests.
      pdf = await inspectPdfInThread(input.file, { maxBytes: ctx.config.maxUploadBytes });
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      Object.assign(errors, error.fields);
    }
  }
  if (Object.keys(errors).length > 0) throw new InputError(errors);
  return { pricing, pdf };
}

/**
 * A document's recipient rows as typed; one already on the draft (`before`, matched by
 * email) keeps its id, so its fields stay its own.
 */
function recipientRows(
  ctx: Context,
  document: { workspaceId: string; documentId: string },
  recipients: RecipientInput[],
  now: Date,
  before: FullRecipientRow[] = [],
) {
  return recipients.map((r, position) => {
    const kept = before.find((old) => sameEmail(old.email, r.email));
    return {
      id: kept?.id ?? ctx.ids.uuid(),
      workspace_id: document.workspaceId,
      document_id: document.documentId,
      position,
      email: normalizeEmail(r.email),
      full_name: drawableText(r.fullName.trim()),
      role: r.role,
      signing_method: r.signingMethod,
      signing_order: r.signingOrder,
      signed_at: null,
      created_at: kept?.created_at ?? now,
    };
  });
}

/**
 * The uploaded PDF (checked by checkDocumentInput), counted in the workspace's uploads of
 * the day (refused past them) and stored in the caller's transaction; null without one.
 */
async function storeOriginal(
  trx: Transaction<Database>,
  ctx: Context,
  workspaceId: string,
  upload: { file: Uint8Array | null | undefined; pdf: PdfFacts | null; now: Date },
) {
  const { file, pdf, now } = upload;
  if (!file || !pdf) return null;
  await countUpload(trx, ctx, workspaceId, file.byteLength, now);
  return storeFile(trx, {
    data: file,
    mediaType: 'application/pdf',
    pages: pdf.pages,
    pageSizes: pdf.pageSizes,
    now,
  });
}

/**
 * A new draft document, with its PDF when one is given (checked by pdf/inspect.ts) and the
 * fields on its pages; all of it is stored, or nothing.
 */
export async function createDocument(ctx: Context, input: CreateDocumentInput): Promise<{ id: string }> {
  const { pricing, pdf } = await checkDocumentInput(ctx, input.workspaceId, input);
  const now = ctx.clock.now();
  const id = ctx.ids.uuid();
  const recipients = recipientRows(
    ctx,
    { workspaceId: input.workspaceId, documentId: id },
    input.recipients,
    now,
  );
  const fields = checkFields(input.fields ?? [], { recipients, pages: pdf?.pageSizes ?? null }, sameEmail);
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await findWorkspace(trx, input.workspaceId))) throw new ApiError('not-found');
    // The file and the document land together or not at all.
    const original = await storeOriginal(trx, ctx, input.workspaceId, { file: input.file, pdf, now });
    await insertDocuments(trx, [
      {
        id,
        workspace_id: input.workspaceId,
        title: drawableText(input.title.trim()),
        body: drawableText(input.body ?? ''),
        status: 'draft',
        created_at: now,
        sent_at: null,
        signed_at: null,
        expires_at: null,
        pricing: pricing ? JSON.stringify(pricing) : null,
        value_amount: pricing ? computeValueAmount(pricing) : null,
        value_currency: pricing?.currency ?? null,
        expires_in_seconds: input.expiresInSeconds ?? defaultExpirySeconds,
        original_sha256: original?.sha256 ?? null,
        remind_every_days: input.remindEveryDays ?? null,
      },
    ]);
    await insertRecipients(trx, recipients);
    await replaceFields(
      trx,
      input.workspaceId,
      id,
      fieldRows(ctx, { workspaceId: input.workspaceId, documentId: id }, fields),
    );
  });
  return { id };
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function signingLink(ctx: Context, documentId: string, token: string): string {
  return `${documentUrl(ctx, documentId)}/${token}`;
}

interface Locked {
  document: FullDocumentRow;
  recipients: FullRecipientRow[];
}

/**
 * Runs `change` on the locked document. A document whose expiry has passed is expired
 * first (and that is committed) whatever the action was; the action is then refused.
 */
async function withDocument<T>(
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

async function expireLocked(trx: Transaction<Database>, ctx: Context, document: FullDocumentRow, now: Date) {
  const status = nextStatus(document.status, 'expire');
  await updateDocument(trx, document.workspace_id, document.id, { status });
  await recordDocumentEvent(trx, ctx, {
    document: { ...document, status },
    type: 'document.expired',
    recipient: null,
    at: now,
  });
}

/**
 * draft -> sent: the first signing group (the lowest order, with its viewers) gets its
 * personal links by mail, the later ones as their turn comes (inviteAll); the document starts
 * to expire. A document without a PDF gets one made from its text (made before the row is
 * locked: rendering takes a while, and a draft's text does not change).
 */
export async function sendDocument(
  ctx: Context,
  workspaceId: string,
  documentId: string,
): Promise<{ eventId: string }> {
  const rendered = await renderOriginal(ctx, workspaceId, documentId);
  return withDocument(ctx, workspaceId, documentId, async (trx, { document, recipients }, now) => {
    const status = nextStatus(document.status, 'send');
    if (!recipients.some((r) => r.role === 'signer')) throw new DocumentActionError('no-signers');
    const expiresAt = new Date(now.getTime() + document.expires_in_seconds * 1000);
    const original =
      document.original_sha256 ??
      (rendered && (await storeFile(trx, { ...rendered, mediaType: 'application/pdf', now })).sha256);
    if (!original) throw new Error(`document ${document.id} has neither a PDF nor a text to make one of`);
    const fromText = document.original_from_text || document.original_sha256 === null;
    const sent = {
      ...document,
      status,
      sent_at: now,
      expires_at: expiresAt,
      original_sha256: original,
      original_from_text: fromText,
    };
    await updateDocument(trx, document.workspace_id, document.id, {
      status,
      sent_at: now,
      expires_at: expiresAt,
      original_sha256: original,
      original_from_text: fromText,
    });
    const event = await recordDocumentEvent(trx, ctx, {
      document: sent,
      type: 'document.sent',
      recipient: null,
      at: now,
    });
    await inviteAll(trx, ctx, sent, recipients);
    return { eventId: event.id };
  });
}

/**
 * Mails their personal link to every recipient whose turn has come and who has no link
 * yet: at send, the lowest signing order's group; after each signature, the next group once
 * every signer ahead of it has signed (a viewer is mailed with its order's group). A link is
 * made when it is mailed; only its hash is kept, so nobody can act before their turn.
 */
async function inviteAll(
  trx: Transaction<Database>,
  ctx: Context,
  document: Pick<FullDocumentRow, 'id' | 'workspace_id' | 'title' | 'expires_at'>,
  recipients: FullRecipientRow[],
): Promise<void> {
  const due = recipients.filter((r) => r.token_hash === null && signersAhead(recipients, r).length === 0);
  if (due.length === 0) return;
  const workspace = await findWorkspace(trx, document.workspace_id);
  for (const recipient of due) {
    const token = ctx.ids.randomBytes(32).toString('base64url');
    recipient.token_hash = hashToken(token);
    recipient.invited_at = ctx.clock.now();
    await updateRecipient(trx, recipient.workspace_id, recipient.id, {
      token_hash: recipient.token_hash,
      invited_at: recipient.invited_at,
    });
    const mail = signingRequestMail({
      recipientName: recipient.full_name,
      documentTitle: document.title,
      workspaceName: workspace?.name ?? 'Signet',
      link: signingLink(ctx, document.id, token),
      role: recipient.role,
      expiresAt: document.expires_at,
    });
    await mailRecipient(trx, ctx, document, recipient, mail);
  }
}

/** Queues `mail` to a recipient of the document, in the caller's transaction. */
function mailRecipient(
  trx: Transaction<Database>,
  ctx: Context,
  document: Pick<FullDocumentRow, 'id' | 'workspace_id'>,
  recipient: Pick<FullRecipientRow, 'id' | 'email'>,
  mail: { subject: string; text: string },
): Promise<void> {
  return queueMail(trx, ctx, {
    workspaceId: document.workspace_id,
    documentId: document.id,
    recipientId: recipient.id,
    to: recipient.email,
    ...mail,
  });
}

/** Who a signing link belongs to: the recipient, or null for a link that is not one of ours. */
export async function findSigningSession(
  ctx: Context,
  documentId: string,
  token: string,
): Promise<{ workspaceId: string; documentId: string; recipientId: string } | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const row = await findRecipientByTokenHash(ctx.db, documentId, hashToken(token));
  return row ? { workspaceId: row.workspace_id, documentId: row.document_id, recipientId: row.id } : null;
}

export type SigningSession = NonNullable<Awaited<ReturnType<typeof findSigningSession>>>;

function recipientOf(locked: Locked, session: SigningSession): FullRecipientRow {
  const recipient = locked.recipients.find((r) => r.id === session.recipientId);
  if (!recipient) throw new ApiError('not-found');
  return recipient;
}

async function recordOpened(
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

/**
 * A recipient opened their link: the first time (while the document awaits signatures)
 * records document.opened for them and moves a sent document to viewed.
 */
export async function openDocument(
  ctx: Context,
  session: SigningSession,
  client?: ClientInfo,
): Promise<void> {
  try {
    await withDocument(ctx, session.workspaceId, session.documentId, async (trx, locked, now) => {
      await recordOpened(trx, ctx, locked, recipientOf(locked, session), now, client);
    });
  } catch (error) {
    // Opening an overdue document expires it; the page then shows it as expired.
    if (!(error instanceof DocumentActionError && error.refusal === 'expired')) throw error;
  }
}

function checkCanSign(locked: Locked, recipient: FullRecipientRow): void {
  if (!isActive(locked.document.status)) throw new DocumentActionError('not-allowed');
  if (recipient.role !== 'signer') throw new DocumentActionError('not-a-signer');
  if (recipient.signed_at !== null) throw new DocumentActionError('already-signed');
  if (signersAhead(locked.recipients, recipient).length > 0) throw new DocumentActionError('not-your-turn');
}

function hashCode(recipientId: string, code: string): string {
  return createHash('sha256').update(`${recipientId}:${code}`).digest('hex');
}

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
  const nameProblem = drawingProblem('Your name', input.fullName);
  if (nameProblem) throw new InputError({ fullName: nameProblem });
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
      const fillable = fields.map((f) => ({ ...f, maxLength: f.max_length }));
      // The name as the sender wrote it (the typed one matches it, but for case and spaces).
      const values = fillFields(fillable, input.fields ?? {}, {
        name: recipient.full_name,
        email: recipient.email,
        date: dateSigned(now),
      });
      if (recipient.signing_method === 'email-code') {
        const refusal = await checkCode(trx, recipient, input.code ?? '', now);
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
      const completed = isEverySignerDone(locked.recipients);
      const status = nextStatus(document.status, completed ? 'complete' : 'sign');
      document = { ...document, status, ...(completed ? { signed_at: now } : {}) };
      await updateDocument(
        trx,
        document.workspace_id,
        document.id,
        completed ? { status, signed_at: now, seal_due_at: now } : { status },
      );
      const signed = await recordDocumentEvent(trx, ctx, {
        document,
        type: 'document.signed',
        recipient,
        at: now,
        client: input.client,
      });
      // Wakes a worker to seal it, in whichever process, when this transaction commits.
      if (completed) await notifyChannel(trx, sealChannel);
      else await inviteAll(trx, ctx, document, locked.recipients);
      return { refused: null, completed, eventId: signed.id };
    },
  );
  if (outcome.refused) throw new DocumentActionError(outcome.refused);
  return { completed: outcome.completed, eventId: outcome.eventId };
}

async function checkCode(
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
export async function requestSigningCode(ctx: Context, session: SigningSession): Promise<{ sentTo: string }> {
  return withDocument(ctx, session.workspaceId, session.documentId, async (trx, locked, now) => {
    const recipient = recipientOf(locked, session);
    if (recipient.signing_method !== 'email-code') throw new DocumentActionError('not-email-code');
    checkCanSign(locked, recipient);
    if (recipient.code_sent_at && now.getTime() - recipient.code_sent_at.getTime() < codeResendIntervalMs) {
      throw new DocumentActionError('code-too-soon');
    }
    const code = randomSixDigits(ctx);
    await updateRecipient(trx, recipient.workspace_id, recipient.id, {
      code_hash: hashCode(recipient.id, code),
      code_expires_at: new Date(now.getTime() + codeValidityMs),
      code_attempts: 0,
      code_sent_at: now,
    });
    const workspace = await findWorkspace(trx, session.workspaceId);
    const mail = signingCodeMail({
      code,
      documentTitle: locked.document.title,
      workspaceName: workspace?.name ?? 'Signet',
      validMinutes: codeValidityMs / 60_000,
    });
    await queueMail(trx, ctx, {
      workspaceId: session.workspaceId,
      documentId: session.documentId,
      recipientId: recipient.id,
      to: recipient.email,
      ...mail,
    });
    return { sentTo: recipient.email };
  });
}

/** Uniform over 000000–999999 (rejection sampling, no modulo bias). */
function randomSixDigits(ctx: Context): string {
  for (;;) {
    const n = ctx.ids.randomBytes(4).readUInt32BE(0);
    if (n < 4_294_000_000) return String(n % 1_000_000).padStart(6, '0');
  }
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
    });
    const mail = declinedMail({
      documentTitle: document.title,
      recipientName: recipient.full_name,
      recipientEmail: recipient.email,
      reason,
      documentLink: `${ctx.config.publicUrl}/documents/${document.id}`,
    });
    for (const owner of await findOwnerEmails(trx, document.workspace_id)) {
      await queueMail(trx, ctx, {
        workspaceId: document.workspace_id,
        documentId: document.id,
        recipientId: null,
        to: owner,
        ...mail,
      });
    }
    return { eventId: event.id };
  });
}

/**
 * The sender withdraws a document that is still being signed: it ends at once as `expired`
 * (document.expired, as when its time runs out), its links only say it was withdrawn, and
 * every recipient who had been mailed it is told.
 */
export async function withdrawDocument(
  ctx: Context,
  workspaceId: string,
  documentId: string,
): Promise<{ eventId: string }> {
  return withDocument(ctx, workspaceId, documentId, async (trx, locked, now) => {
    const status = nextStatus(locked.document.status, 'withdraw');
    const document = { ...locked.document, status, expires_at: now, withdrawn_at: now };
    await updateDocument(trx, workspaceId, documentId, { status, expires_at: now, withdrawn_at: now });
    const event = await recordDocumentEvent(trx, ctx, {
      document,
      type: 'document.expired',
      recipient: null,
      at: now,
    });
    const workspace = await findWorkspace(trx, workspaceId);
    for (const recipient of locked.recipients.filter((r) => r.token_hash !== null)) {
      const mail = withdrawnMail({
        recipientName: recipient.full_name,
        documentTitle: document.title,
        workspaceName: workspace?.name ?? 'Signet',
      });
      await mailRecipient(trx, ctx, document, recipient, mail);
    }
    return { eventId: event.id };
  });
}

/** Deletes a draft, with its recipients and fields (a sent document keeps its history). */
export async function deleteDraft(ctx: Context, workspaceId: string, documentId: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const document = await lockDocument(trx, workspaceId, documentId);
    if (!document) throw new ApiError('not-found');
    if (!canTransition(document.status, 'edit')) throw new DocumentActionError('not-a-draft');
    await deleteDocument(trx, workspaceId, documentId);
  });
}

/** A draft as its form shows it for editing: what createDocument took, and its PDF's facts. */
export async function findDraftInput(
  ctx: Context,
  workspaceId: string,
  documentId: string,
): Promise<
  | (Omit<CreateDocumentInput, 'workspaceId' | 'file'> & { status: DocumentStatus; pages: number | null })
  | null
> {
  const document = await findFullDocument(ctx.db, workspaceId, documentId);
  if (!document) return null;
  const recipients = await findFullRecipients(ctx.db, workspaceId, documentId);
  const file = (await findDocumentFiles(ctx.db, workspaceId, documentId)).find((f) => f.kind === 'original');
  return {
    status: document.status,
    title: document.title,
    body: document.body,
    recipients: [...recipients]
      .sort((a, b) => a.position - b.position)
      .map((r) => ({
        email: r.email,
        fullName: r.full_name,
        role: r.role,
        signingMethod: r.signing_method,
        signingOrder: r.signing_order,
      })),
    pricing: document.pricing,
    expiresInSeconds: document.expires_in_seconds,
    remindEveryDays: document.remind_every_days,
    pages: file?.pages ?? null,
  };
}

/**
 * A draft edited as a whole, as the new-document form sends it (every problem at once, as
 * when it was created; nothing changes on a refusal). Recipients are matched by email: one
 * who stays keeps their id and their fields; the fields of one removed, or made a viewer,
 * go with them. A new PDF replaces the old one and removes every field (they were placed on
 * the old pages). Returns how many fields were removed, for the sender to be told.
 */
export async function editDraft(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  input: Omit<CreateDocumentInput, 'workspaceId' | 'fields'>,
): Promise<{ fieldsRemoved: number }> {
  const { pricing, pdf } = await checkDocumentInput(ctx, workspaceId, input);
  return ctx.db.transaction().execute(async (trx) => {
    const document = await lockDocument(trx, workspaceId, documentId);
    if (!document) throw new ApiError('not-found');
    if (!canTransition(document.status, 'edit')) throw new DocumentActionError('not-a-draft');
    const now = ctx.clock.now();
    const before = await findFullRecipients(trx, workspaceId, documentId);
    const recipients = recipientRows(ctx, { workspaceId, documentId }, input.recipients, now, before);
    const signers = new Set(recipients.filter((r) => r.role === 'signer').map((r) => r.id));
    const fields = await findFields(trx, workspaceId, documentId);
    const kept = input.file ? [] : fields.filter((f) => signers.has(f.recipient_id));
    const original = await storeOriginal(trx, ctx, workspaceId, { file: input.file, pdf, now });
    await updateDocument(trx, workspaceId, documentId, {
      title: drawableText(input.title.trim()),
      body: drawableText(input.body ?? ''),
      pricing: pricing ? JSON.stringify(pricing) : null,
      value_amount: pricing ? computeValueAmount(pricing) : null,
      value_currency: pricing?.currency ?? null,
      expires_in_seconds: input.expiresInSeconds ?? document.expires_in_seconds,
      remind_every_days: input.remindEveryDays ?? null,
      ...(original ? { original_sha256: original.sha256, original_from_text: false } : {}),
    });
    // Recipients go (their fields with them, by the foreign key) and come back; kept fields too.
    await deleteRecipients(trx, workspaceId, documentId);
    await insertRecipients(trx, recipients);
    await replaceFields(
      trx,
      workspaceId,
      documentId,
      kept.map((f, position) => ({ ...f, position })),
    );
    return { fieldsRemoved: fields.length - kept.length };
  });
}

/** How often the sender may remind one signer. */
export const reminderIntervalMs = 60 * 60_000;

/**
 * Mails a signer whose turn it is, and who has not signed, their link again: at most once
 * an hour (a refusal says when the next may go).
 */
export async function remindRecipient(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  recipientId: string,
): Promise<{ sentTo: string }> {
  return withDocument(ctx, workspaceId, documentId, async (trx, locked, now) => {
    const recipient = locked.recipients.find((r) => r.id === recipientId);
    if (!recipient) throw new ApiError('not-found');
    if (!isActive(locked.document.status)) throw new DocumentActionError('not-allowed');
    if (!isRemindable(locked, recipient)) throw new DocumentActionError('not-remindable');
    const last = recipient.reminded_at?.getTime() ?? Number.NEGATIVE_INFINITY;
    if (now.getTime() - last < reminderIntervalMs) throw new DocumentActionError('reminded-recently');
    if (!(await remindLocked(trx, ctx, locked, recipient, now)))
      throw new DocumentActionError('not-remindable');
    return { sentTo: recipient.email };
  });
}

/** A signer who has their link, has not signed, and whose turn it is. */
function isRemindable(locked: Locked, recipient: FullRecipientRow): boolean {
  return (
    recipient.role === 'signer' &&
    recipient.signed_at === null &&
    recipient.token_hash !== null &&
    signersAhead(locked.recipients, recipient).length === 0
  );
}

/**
 * Queues the reminder and records it. The link is the one they were mailed, read back from
 * that mail (only its hash is kept), so their first mail's link keeps working. False when
 * no mail of theirs holds a link (nothing is sent).
 */
async function remindLocked(
  trx: Transaction<Database>,
  ctx: Context,
  locked: Locked,
  recipient: FullRecipientRow,
  now: Date,
): Promise<boolean> {
  const { document } = locked;
  const [invitation] = await findMails(trx, { documentId: document.id, to: recipient.email, limit: 50 }).then(
    (mails) => mails.filter((m) => signingLinkIn(m.text_body)).slice(-1),
  );
  const link = invitation && signingLinkIn(invitation.text_body);
  if (!link) return false;
  const workspace = await findWorkspace(trx, document.workspace_id);
  const mail = reminderMail({
    recipientName: recipient.full_name,
    documentTitle: document.title,
    workspaceName: workspace?.name ?? 'Signet',
    link,
    expiresAt: document.expires_at,
  });
  await mailRecipient(trx, ctx, document, recipient, mail);
  await updateRecipient(trx, document.workspace_id, recipient.id, { reminded_at: now });
  recipient.reminded_at = now;
  return true;
}

/** How often a document may remind its signers by itself, in days: the form's choices. */
export const autoReminderChoices = [1, 2, 3, 5, 7, 14] as const;

/**
 * The worker's pass of automatic reminders: every signer due one (findDueReminders) gets
 * their link again, each under their document's lock and checked again there (a signature
 * or a reminder from the sender may have come first). Returns how many were sent.
 */
export async function remindDueSigners(ctx: Context, batchSize = 100): Promise<number> {
  let sent = 0;
  for (;;) {
    const due = await findDueReminders(ctx.db, ctx.clock.now(), batchSize);
    let sentNow = 0;
    for (const { workspaceId, documentId, recipientId } of due) {
      const reminded = await withDocument(ctx, workspaceId, documentId, async (trx, locked, now) => {
        const recipient = locked.recipients.find((r) => r.id === recipientId);
        const every = locked.document.remind_every_days;
        if (!recipient || every === null || !isActive(locked.document.status)) return false;
        if (!isRemindable(locked, recipient)) return false;
        const since = recipient.reminded_at ?? recipient.invited_at ?? locked.document.sent_at;
        if (since && now.getTime() - since.getTime() < every * 86_400_000) return false;
        return remindLocked(trx, ctx, locked, recipient, now);
      }).catch((error: unknown) => {
        // Overdue: withDocument expired it, and a document that has ended reminds nobody.
        if (error instanceof DocumentActionError && error.refusal === 'expired') return false;
        throw error;
      });
      if (reminded) sentNow++;
    }
    sent += sentNow;
    // A full batch of rows that all turned out not due (or had no link to send) must not loop.
    if (due.length < batchSize || sentNow === 0) return sent;
  }
}

/** Expires every active document whose expiry has passed; returns how many. */
export async function expireDueDocuments(ctx: Context, batchSize = 100): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = await ctx.db.transaction().execute(async (trx) => {
      const now = ctx.clock.now();
      const due = await lockDueDocuments(trx, now, batchSize);
      for (const { id, workspace_id } of due) {
        const document = await lockDocument(trx, workspace_id, id);
        if (document) await expireLocked(trx, ctx, document, now);
      }
      return due.length;
    });
    total += expired;
    if (expired < batchSize) return total;
  }
}

/** Everything the signing page shows, read in one go. */
export async function loadSigningView(ctx: Context, session: SigningSession) {
  const document = await findFullDocument(ctx.db, session.workspaceId, session.documentId);
  if (!document) throw new ApiError('not-found');
  const recipients = await findFullRecipients(ctx.db, session.workspaceId, session.documentId);
  const recipient = recipients.find((r) => r.id === session.recipientId);
  if (!recipient) throw new ApiError('not-found');
  const files = await findDocumentFiles(ctx.db, session.workspaceId, session.documentId);
  const fields = await listFields(ctx.db, session.workspaceId, session.documentId);
  // Fields are drawn over the page images, which need the pages' sizes.
  const pageSizes =
    fields.length > 0 && document.original_sha256 ? await pageSizesOf(ctx.db, document.original_sha256) : [];
  const workspace = await findWorkspace(ctx.db, session.workspaceId);
  return {
    document,
    recipients,
    recipient,
    files,
    fields,
    pageSizes,
    senderName: workspace?.name ?? 'Signet',
  };
}
