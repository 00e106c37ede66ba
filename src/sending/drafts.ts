// Drafts: create one (its PDF and fields stored with it, or nothing), read it back as its
// edit form shows it, edit it whole, delete it. Each change to an existing draft holds the
// document's row lock and is refused once the document has been sent. The input's checks
// are in draft-input.ts.

import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database, DocumentStatus, PageSize } from '../db/schema.ts';
import {
  deleteDocument,
  deleteRecipients,
  type FullRecipientRow,
  findFullDocument,
  findFullRecipients,
  insertDocuments,
  insertRecipients,
  lockDocument,
  updateDocument,
} from '../documents/documents.repository.ts';
import { canTransition, DocumentActionError } from '../documents/lifecycle.ts';
import { countUpload } from '../documents/upload-usage.ts';
import { computeValueAmount } from '../documents/value.ts';
import { checkFields, type PlacedField } from '../fields/field-rules.ts';
import { findFields, insertFields, replaceFields } from '../fields/fields.repository.ts';
import { pageSizesOf, sameEmail } from '../fields/fields.service.ts';
import { deleteFileIfUnused, findDocumentFiles } from '../files/files.repository.ts';
import { addFileFacts, type StoredBytes, storeBytesFirst, storeFile } from '../files/files.service.ts';
import { ApiError } from '../http/errors.ts';
import { parseLanguage } from '../i18n/languages.ts';
import { normalizeEmail } from '../mail/address.ts';
import { drawableText } from '../pdf/fonts.ts';
import type { PdfFacts } from '../pdf/inspect.ts';
import { findWorkspace } from '../workspaces/workspaces.repository.ts';
import { fieldRows } from './draft-fields.ts';
import {
  type CheckedInput,
  type CreateDocumentInput,
  checkDocumentInput,
  defaultExpirySeconds,
  type KeptPdf,
  type RecipientInput,
  startDocumentCheck,
} from './draft-input.ts';

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
      language: r.language ? parseLanguage(r.language) : null,
      signed_at: null,
      created_at: kept?.created_at ?? now,
    };
  });
}

/**
 * The uploaded PDF (checked by checkDocumentInput), counted in the workspace's uploads of
 * the day (refused past them) and stored in the caller's transaction; null without one.
 * `written`: its bytes, already written while it was inspected (createDocument).
 */
async function storeOriginal(
  trx: Transaction<Database>,
  ctx: Context,
  workspaceId: string,
  upload: {
    file: Uint8Array | null | undefined;
    kept?: KeptPdf | null;
    pdf: PdfFacts | null;
    now: Date;
    written?: StoredBytes | null;
  },
): Promise<{ sha256: string } | null> {
  const { file, kept, pdf, now, written } = upload;
  // A kept PDF was stored and counted when it was kept.
  if (!file && kept) return { sha256: kept.sha256 };
  if (!file || !pdf) return null;
  await countUpload(trx, ctx, workspaceId, file.byteLength, now);
  const facts = { pages: pdf.pages, pageSizes: pdf.pageSizes, now, drawPagesFor: workspaceId };
  if (written) return addFileFacts(trx, written, facts);
  return storeFile(trx, { data: file, mediaType: 'application/pdf', ...facts });
}

/**
 * How long past the write of an upload's bytes its inspection may keep the transaction (and
 * its connection, PGlite's only one) waiting; past it, the write is rolled back and done
 * again once the inspection is over, outside any transaction.
 */
const inspectionGraceMs = 250;

/** Thrown in createDocument's transaction: the inspection outlasted the write by the grace. */
class StillInspecting extends Error {}

/**
 * The checked input, once the upload's bytes (if `writing`) are written: the check's
 * refusal first, then the write's failure; StillInspecting when the check is not over
 * `graceMs` after the write. Exported for its test, which holds the check.
 */
export async function checkedBesideWrite(
  checked: Promise<CheckedInput>,
  writing: Promise<StoredBytes> | null,
  graceMs: number,
): Promise<{ input: CheckedInput; written: StoredBytes | null }> {
  const [write] = await Promise.allSettled([writing]);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), graceMs);
  });
  try {
    const input = await Promise.race([checked, late]);
    if (input === 'late') throw new StillInspecting();
    if (write.status === 'rejected') throw write.reason;
    return { input, written: write.value };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `write` in a transaction; when the upload's inspection outlasted the write of its
 * bytes (StillInspecting), the connection is given back while the inspection goes on, and
 * `write` runs again once it is over. Exported for its test, which holds the check.
 */
export async function writeBesideInspection(
  ctx: Context,
  checked: Promise<CheckedInput>,
  write: (trx: Transaction<Database>) => Promise<void>,
  documentId: string,
): Promise<void> {
  try {
    await ctx.db.transaction().execute(write);
  } catch (error) {
    if (!(error instanceof StillInspecting)) throw error;
    ctx.log.debug(
      { documentId },
      'the upload was still being inspected after its bytes were written: written again once inspected',
    );
    await checked;
    await ctx.db.transaction().execute(write);
  }
}

/** A new draft's id (the one given, or a new one), its time, and its recipients' rows. */
function newDraftRows(ctx: Context, input: CreateDocumentInput, id = ctx.ids.uuid()) {
  const now = ctx.clock.now();
  const recipients = recipientRows(
    ctx,
    { workspaceId: input.workspaceId, documentId: id },
    input.recipients,
    now,
  );
  return { id, now, recipients };
}

/** A new draft's input once checked, with its rows to be: createDocument's, or checkDraft's. */
export interface CheckedDraft {
  id: string;
  input: CreateDocumentInput;
  now: Date;
  recipients: ReturnType<typeof recipientRows>;
  fields: PlacedField[];
  pricing: CheckedInput['pricing'];
  pdf: CheckedInput['pdf'];
}

/** New drafts' documents, recipients and fields, each kind in one statement. */
async function insertDrafts(
  trx: Transaction<Database>,
  ctx: Context,
  drafts: Array<CheckedDraft & { originalSha256: string | null }>,
): Promise<void> {
  await insertDocuments(
    trx,
    drafts.map(({ id, input, now, pricing, originalSha256 }) => ({
      id,
      workspace_id: input.workspaceId,
      created_by: input.createdBy ?? null,
      title: drawableText(input.title.trim()),
      body: drawableText(input.body ?? ''),
      status: 'draft' as const,
      created_at: now,
      sent_at: null,
      signed_at: null,
      expires_at: null,
      pricing: pricing ? JSON.stringify(pricing) : null,
      value_amount: pricing ? computeValueAmount(pricing) : null,
      value_currency: pricing?.currency ?? null,
      expires_in_seconds: input.expiresInSeconds ?? defaultExpirySeconds,
      original_sha256: originalSha256,
      remind_every_days: input.remindEveryDays ?? null,
      language: input.language ? parseLanguage(input.language) : null,
      delivery: input.delivery ?? 'email',
      template_id: input.templateId ?? null,
      made_via: input.madeVia ?? null,
    })),
  );
  await insertRecipients(
    trx,
    drafts.flatMap((d) => d.recipients),
  );
  await insertFields(
    trx,
    drafts.flatMap((d) => fieldRows(ctx, { workspaceId: d.input.workspaceId, documentId: d.id }, d.fields)),
  );
}

/**
 * createDocument's checks of an input without an upload (a template's stored PDF, a kept
 * one, or none), with nothing stored: the draft createDrafts stores, or the InputError
 * createDocument would throw. `id`: the new document's id.
 */
export async function checkDraft(
  ctx: Context,
  input: CreateDocumentInput,
  options: { id?: string } = {},
): Promise<CheckedDraft> {
  if (input.file) throw new Error('checkDraft takes no upload: createDocument inspects and stores it');
  const { pricing, pdf } = await checkDocumentInput(ctx, input.workspaceId, input);
  const { id, now, recipients } = newDraftRows(ctx, input, options.id);
  const fields = checkFields(input.fields ?? [], { recipients, pages: pdf?.pageSizes ?? null }, sameEmail);
  return { id, input, now, recipients, fields, pricing, pdf };
}

/**
 * Checked drafts (checkDraft) stored in the caller's transaction, as createDocument stores
 * one, their rows written together (a bulk send's batch, templates/bulk-send.ts).
 */
export async function createDrafts(
  trx: Transaction<Database>,
  ctx: Context,
  drafts: CheckedDraft[],
): Promise<void> {
  for (const workspaceId of new Set(drafts.map((d) => d.input.workspaceId)))
    if (!(await findWorkspace(trx, workspaceId))) throw new ApiError('not-found');
  const stored: Array<CheckedDraft & { originalSha256: string | null }> = [];
  for (const draft of drafts) {
    const { input, pdf, now } = draft;
    const original = await storeOriginal(trx, ctx, input.workspaceId, {
      file: null,
      kept: input.kept,
      pdf,
      now,
    });
    stored.push({ ...draft, originalSha256: original?.sha256 ?? null });
  }
  await insertDrafts(trx, ctx, stored);
}

/**
 * A new draft document, with its PDF when one is given (checked by pdf/inspect.ts) and the
 * fields on its pages; all of it is stored, or nothing. The PDF's bytes are written while it
 * is inspected (the longer of the two is what a create takes), in the same transaction, so a
 * refused file is rolled back with the rest. `options.first` runs in the storing transaction
 * once the input is checked, before anything else is stored (the API's Idempotency-Key
 * claim, api-writes.ts): what it throws stores nothing. `options.last` runs in it once all is
 * stored (a bulk send's row marked created, templates/bulk-send.ts): what it throws stores
 * nothing either. `options.id`: the new document's id.
 * `options.graceMs`: inspectionGraceMs unless a test says otherwise.
 */
export async function createDocument(
  ctx: Context,
  input: CreateDocumentInput,
  options: {
    id?: string;
    first?: (trx: Transaction<Database>) => Promise<void>;
    last?: (trx: Transaction<Database>) => Promise<void>;
    graceMs?: number;
  } = {},
): Promise<{ id: string }> {
  const check = await startDocumentCheck(ctx, input.workspaceId, input);
  // Nothing to write beside it: a refusal is known, or there is no inspection to wait for.
  if (!check.inspecting) await check.checked;
  const { id, now, recipients } = newDraftRows(ctx, input, options.id);
  const write = async (trx: Transaction<Database>) => {
    if (!(await findWorkspace(trx, input.workspaceId))) throw new ApiError('not-found');
    const file = check.inspecting ? input.file : null;
    const { input: checked, written } = await checkedBesideWrite(
      check.checked,
      file ? storeBytesFirst(trx, { data: file, mediaType: 'application/pdf', now }) : null,
      options.graceMs ?? inspectionGraceMs,
    );
    const { pricing, pdf } = checked;
    const fields = checkFields(input.fields ?? [], { recipients, pages: pdf?.pageSizes ?? null }, sameEmail);
    await options.first?.(trx);
    // The file and the document land together or not at all.
    const original = await storeOriginal(trx, ctx, input.workspaceId, {
      file: input.file,
      kept: input.kept,
      pdf,
      now,
      written,
    });
    await insertDrafts(trx, ctx, [
      { id, input, now, recipients, fields, pricing, pdf, originalSha256: original?.sha256 ?? null },
    ]);
    await options.last?.(trx);
  };
  await writeBesideInspection(ctx, check.checked, write, id);
  return { id };
}

/**
 * Deletes a draft, with its recipients and fields, and its PDF and page images unless another
 * document or a template uses the same bytes (a sent document keeps its history).
 */
export async function deleteDraft(ctx: Context, workspaceId: string, documentId: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const document = await lockDocument(trx, workspaceId, documentId);
    if (!document) throw new ApiError('not-found');
    if (!canTransition(document.status, 'edit')) throw new DocumentActionError('not-a-draft');
    await deleteDocument(trx, workspaceId, documentId);
    if (document.original_sha256) await deleteFileIfUnused(trx, document.original_sha256);
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
        language: r.language,
      })),
    pricing: document.pricing,
    expiresInSeconds: document.expires_in_seconds,
    remindEveryDays: document.remind_every_days,
    language: document.language,
    pages: file?.pages ?? null,
  };
}

/**
 * A draft edited as a whole, as the new-document form sends it (every problem at once, as
 * when it was created; nothing changes on a refusal). Recipients are matched by email: one
 * who stays keeps their id and their fields; the fields of one removed, or made a viewer,
 * go with them. A new PDF (or one kept from a refused form) replaces the old one and removes every field (they were placed on
 * the old pages). Returns how many fields were removed, for the sender to be told. With
 * `input.fields` (the API's replacement of a draft as a whole), the fields are those instead,
 * checked against the new recipients and the PDF's pages, in the same transaction; with
 * `input.delivery`, that too.
 */
export async function editDraft(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  input: Omit<CreateDocumentInput, 'workspaceId'>,
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
    const kept = input.fields
      ? replacementFields(ctx, { workspaceId, documentId }, input.fields, {
          recipients,
          pages:
            pdf?.pageSizes ??
            (document.original_sha256 ? await pageSizesOf(trx, document.original_sha256) : null),
        })
      : input.file || input.kept
        ? []
        : fields.filter((f) => signers.has(f.recipient_id));
    const original = await storeOriginal(trx, ctx, workspaceId, {
      file: input.file,
      kept: input.kept,
      pdf,
      now,
    });
    await updateDocument(trx, workspaceId, documentId, {
      title: drawableText(input.title.trim()),
      body: drawableText(input.body ?? ''),
      pricing: pricing ? JSON.stringify(pricing) : null,
      value_amount: pricing ? computeValueAmount(pricing) : null,
      value_currency: pricing?.currency ?? null,
      expires_in_seconds: input.expiresInSeconds ?? document.expires_in_seconds,
      remind_every_days: input.remindEveryDays ?? null,
      ...(input.language === undefined
        ? {}
        : { language: input.language ? parseLanguage(input.language) : null }),
      ...(original ? { original_sha256: original.sha256, original_from_text: false } : {}),
      ...(input.delivery ? { delivery: input.delivery } : {}),
    });
    // The PDF it had is gone with the change, unless something else uses the same bytes.
    if (original && document.original_sha256 && document.original_sha256 !== original.sha256)
      await deleteFileIfUnused(trx, document.original_sha256);
    // Recipients go (their fields with them, by the foreign key) and come back; kept fields too.
    await deleteRecipients(trx, workspaceId, documentId);
    await insertRecipients(trx, recipients);
    await replaceFields(
      trx,
      workspaceId,
      documentId,
      kept.map((f, position) => ({ ...f, position })),
    );
    return { fieldsRemoved: input.fields ? 0 : fields.length - kept.length };
  });
}

/** A draft's fields replaced whole: checked against its recipients and pages (InputError on `fields`). */
function replacementFields(
  ctx: Context,
  document: { workspaceId: string; documentId: string },
  raw: unknown[],
  on: {
    recipients: Array<{ id: string; email: string; role: 'signer' | 'viewer' }>;
    pages: PageSize[] | null;
  },
) {
  return fieldRows(ctx, document, checkFields(raw, on, sameEmail));
}
