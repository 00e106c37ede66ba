// A draft's input and its checks: what creating or editing a document takes
// (`CreateDocumentInput`, `RecipientInput`), the limits a form shows (`maxRecipients`,
// `defaultExpirySeconds`), and `checkDocumentInput`, which names every problem of the input
// at once, the uploaded PDF's included (inspected in a thread, within the day's allowance).

import type { Context } from '../context.ts';
import type { Delivery, PageSize, RecipientRole, SigningMethod } from '../db/schema.ts';
import { checkPricingBlock, pricingErrorKey, pricingProblem } from '../documents/pricing.ts';
import { untilNextDay, uploadAllowanceProblem } from '../documents/upload-usage.ts';
import type { PricingBlock } from '../documents/value.ts';
import { languages, parseLanguage } from '../i18n/languages.ts';
import { type KeyedSentence, type Problems, problemsOf, refusalOf } from '../i18n/refusals.ts';
import { InputError, type InputErrorDetails } from '../input-error.ts';
import { emailKey, isEmailAddress, normalizeEmail } from '../mail/address.ts';
import { drawingRefusal } from '../pdf/fonts.ts';
import { type PdfFacts, tooLargeRefusal } from '../pdf/inspect.ts';
import { startInspection } from '../pdf/inspect-thread.ts';
import { autoReminderChoices } from './reminders.ts';

export const defaultExpirySeconds = 30 * 24 * 60 * 60;
export const maxRecipients = 20;

export interface RecipientInput {
  email: string;
  fullName: string;
  role: RecipientRole;
  signingMethod: SigningMethod;
  signingOrder: number;
  /** A BCP 47 tag of i18n/languages.ts (read by parseLanguage); null or absent: the workspace's default. */
  language?: string | null;
}

/** A stored PDF that a draft takes instead of new bytes: the kept upload of a refused form. */
export interface KeptPdf {
  sha256: string;
  pages: number;
  pageSizes: PageSize[];
}

export interface CreateDocumentInput {
  workspaceId: string;
  /** The member who makes it (the web app, a bulk send they started): its recipients' mails reply to them. */
  createdBy?: string | null;
  title: string;
  body?: string;
  recipients: RecipientInput[];
  /** Untrusted pricing input, validated by checkPricingBlock; null for none. */
  pricing: unknown;
  /** How long after sending the document can be signed (default 30 days). */
  expiresInSeconds?: number;
  /** Remind pending signers every this many days until it expires (autoReminderChoices); none by default. */
  remindEveryDays?: number | null;
  /**
   * The certificate of completion's language, a BCP 47 tag of i18n/languages.ts (read by
   * parseLanguage); null or absent: the workspace's default when it is sealed.
   */
  language?: string | null;
  /** The PDF to be signed; without one, the text body is made into a PDF when it is sent. */
  file?: Uint8Array | null;
  /** The upload was cut off at SIGNET_MAX_UPLOAD_BYTES: refused with the rest of the input's problems. */
  fileTooLarge?: boolean;
  /**
   * Without `file`: a PDF kept from a refused form (kept-uploads.ts), already checked, stored
   * and counted in the day's uploads; it becomes the document's PDF as a new file would.
   */
  kept?: KeptPdf | null;
  /** The form named a kept PDF that is gone: refused with the rest of the input's problems. */
  keptMissing?: boolean;
  /** Fields on the PDF's pages (untrusted JSON, checked by fields/field-rules.ts). */
  fields?: unknown[];
  /** `none`: Signet mails no recipient, the integrator delivers the links (the API only); `email` by default. */
  delivery?: Delivery;
  /** The template it is made from (templates/use-template.ts); none by default. */
  templateId?: string | null;
  /** 'public-link': made by a visitor through the template's public link (templates/public-links.ts). */
  madeVia?: 'public-link' | null;
}

/**
 * Every problem of a new document's input at once, a sentence per field (input-error.ts),
 * keyed in the catalogues where a person typing a form can cause it: `title`, `body`,
 * `expiry`, `recipients` (the list as a whole), `recipients[i].email` (and `.fullName`,
 * `.role`, `.signingMethod`, `.signingOrder`, `.language`), `pricing` and `pricing.<path>`
 * (pricing.ts names the path). A form shows each beside its input; the CLI prints them all.
 */
function validateCreateInput(
  input: Omit<CreateDocumentInput, 'workspaceId'>,
  problems: Problems,
): PricingBlock | null {
  // In the form's order: title and text, recipients, then expiry and reminders.
  const settings: Problems = {};
  validateDocumentSettings(input, settings);
  const { expiry, remindEveryDays, language, ...head } = settings;
  Object.assign(problems, head);
  if (input.recipients.length < 1 || input.recipients.length > maxRecipients) {
    problems.recipients = { key: 'draft.problem.recipientCount', values: { max: maxRecipients } };
  } else if (!input.recipients.some((r) => r.role === 'signer')) {
    problems.recipients = { key: 'draft.problem.noSigner' };
  }
  const emails = new Set<string>();
  for (const [i, r] of input.recipients.entries()) {
    const who = whoIs('recipient', i + 1);
    const key = (field: keyof RecipientInput) => `recipients[${i}].${field}`;
    if (!isEmailAddress(r.email)) problems[key('email')] = { key: 'draft.problem.email', parts: { who } };
    else if (emails.has(emailKey(r.email)))
      problems[key('email')] = {
        key: 'draft.problem.emailTwice',
        values: { email: normalizeEmail(r.email) },
        parts: { who },
      };
    emails.add(emailKey(r.email));
    if (!r.fullName.trim() || r.fullName.trim().length > 200) {
      problems[key('fullName')] = { key: 'draft.problem.fullName', values: { max: 200 }, parts: { who } };
    } else {
      const problem = drawingRefusal('fullName', r.fullName, { who });
      if (problem) problems[key('fullName')] = problem;
    }
    checkRecipientSettings(r, who, key, problems);
  }
  Object.assign(
    problems,
    expiry ? { expiry } : {},
    remindEveryDays ? { remindEveryDays } : {},
    language ? { language } : {},
  );
  if (input.pricing === null || input.pricing === undefined) return null;
  const checked = checkPricingBlock(input.pricing);
  if ('block' in checked) return checked.block;
  for (const error of checked.errors) problems[pricingErrorKey(error)] = pricingProblem(error);
  return null;
}

/**
 * Whom a rule is about, as its sentence names them (its `who`): a document's recipient
 * ("Recipient 2") or a template's role ("Role 2"), numbered from 1 (`row`: a form renumbers
 * it as its own rows go); templates/use-template.ts names a recipient by their role instead.
 */
export type Who = KeyedSentence & { values: { row: number } };

export function whoIs(kind: 'recipient' | 'role', row: number): Who {
  return { key: kind === 'role' ? 'who.role' : 'who.recipient', values: { row } };
}

/**
 * **The** rules of how a recipient takes part, whoever they turn out to be (a template's
 * role has them too): language, role, signing method and order, each under `key(...)`.
 */
export function checkRecipientSettings(
  r: Pick<RecipientInput, 'role' | 'signingMethod' | 'signingOrder' | 'language'>,
  who: Who,
  key: (field: 'role' | 'signingMethod' | 'signingOrder' | 'language') => string,
  problems: Problems,
): void {
  const parts = { who };
  if (r.language !== undefined && r.language !== null && r.language !== '' && !parseLanguage(r.language))
    problems[key('language')] = {
      key: 'draft.problem.recipientLanguage',
      values: { languages: languages.join(', ') },
      parts,
    };
  if (r.role !== 'signer' && r.role !== 'viewer')
    problems[key('role')] = { key: 'draft.problem.role', parts };
  if (r.signingMethod !== 'standard' && r.signingMethod !== 'email-code') {
    problems[key('signingMethod')] = { key: 'draft.problem.signingMethod', parts };
  }
  if (!Number.isInteger(r.signingOrder) || r.signingOrder < 1 || r.signingOrder > 100) {
    problems[key('signingOrder')] = { key: 'draft.problem.signingOrder', values: { max: 100 }, parts };
  }
}

/**
 * **The** rules of a document's own settings, whoever it goes to (a template's defaults
 * too): `title`, `body`, `expiry`, `remindEveryDays` and `language`.
 */
export function validateDocumentSettings(
  input: Pick<
    CreateDocumentInput,
    'title' | 'body' | 'expiresInSeconds' | 'remindEveryDays' | 'delivery' | 'language'
  >,
  problems: Problems,
): void {
  const title = input.title.trim();
  if (!title || title.length > 200) problems.title = { key: 'draft.problem.title', values: { max: 200 } };
  else {
    const problem = drawingRefusal('title', title);
    if (problem) problems.title = problem;
  }
  if ((input.body ?? '').length > 50_000)
    problems.body = { key: 'draft.problem.body', values: { max: 50_000 } };
  else {
    const problem = drawingRefusal('text', input.body ?? '');
    if (problem) problems.body = problem;
  }
  const expires = input.expiresInSeconds ?? defaultExpirySeconds;
  if (!Number.isInteger(expires) || expires < 60 || expires > 365 * 24 * 60 * 60) {
    problems.expiry = { key: 'draft.problem.expiry' };
  }
  const remind = input.remindEveryDays ?? null;
  if (remind !== null && !autoReminderChoices.includes(remind as (typeof autoReminderChoices)[number])) {
    problems.remindEveryDays = {
      key: 'draft.problem.remindChoices',
      values: { choices: autoReminderChoices.join(', ') },
    };
  } else if (remind !== null && input.delivery === 'none') {
    problems.remindEveryDays = { key: 'draft.problem.remindNoMail' };
  }
  if (
    input.language !== undefined &&
    input.language !== null &&
    input.language !== '' &&
    !parseLanguage(input.language)
  )
    problems.language = { key: 'draft.problem.language', values: { languages: languages.join(', ') } };
}

/** A document's input once checked: its pricing, and its PDF's facts when it has a PDF. */
export interface CheckedInput {
  pricing: PricingBlock | null;
  pdf: PdfFacts | null;
}

/** A document's input checked whole (the file included): the InputError names every problem. */
export async function checkDocumentInput(
  ctx: Context,
  workspaceId: string,
  input: Omit<CreateDocumentInput, 'workspaceId'>,
): Promise<CheckedInput> {
  return (await startDocumentCheck(ctx, workspaceId, input)).checked;
}

/**
 * checkDocumentInput in two steps: resolves once the input's own checks are done and its
 * upload (if any) is in an inspection thread, with the whole check to come (`checked`, never
 * left rejected unobserved). `inspecting`: nothing is wrong so far and the upload is being
 * inspected, so a caller may write its bytes meanwhile (drafts.ts).
 */
export async function startDocumentCheck(
  ctx: Context,
  workspaceId: string,
  input: Omit<CreateDocumentInput, 'workspaceId'>,
): Promise<{ checked: Promise<CheckedInput>; inspecting: boolean }> {
  const errors: Problems = {};
  const pricing = validateCreateInput(input, errors);
  let facts: Promise<PdfFacts | null> = Promise.resolve(null);
  let inspecting = false;
  if (input.fileTooLarge) errors.file = tooLargeRefusal(ctx.config.maxUploadBytes);
  else if (input.file) {
    try {
      facts = (await startUploadCheck(ctx, workspaceId, input.file)).facts;
      inspecting = Object.keys(errors).length === 0;
    } catch (error) {
      facts = Promise.reject(error);
    }
  } else if (input.kept)
    facts = Promise.resolve({ pages: input.kept.pages, pageSizes: input.kept.pageSizes });
  else if (input.keptMissing) errors.file = keptMissingRefusal;
  const checked = finishCheck(facts, errors, pricing);
  checked.catch(() => {});
  return { checked, inspecting };
}

/** The input's problems with its file's (an InputError naming them all), or the checked input. */
async function finishCheck(
  facts: Promise<PdfFacts | null>,
  problems: Problems,
  pricing: PricingBlock | null,
): Promise<CheckedInput> {
  let pdf: PdfFacts | null = null;
  let overAllowance: InputErrorDetails['overAllowance'];
  try {
    pdf = await facts;
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    Object.assign(problems, problemsOf(error));
    overAllowance = error.details.overAllowance;
  }
  if (Object.keys(problems).length > 0) throw refusalOf(problems, overAllowance ? { overAllowance } : {});
  return { pricing, pdf };
}

/** The form named a kept PDF that is no longer kept (expired, signed out, or never its own). */
export const keptMissingRefusal: KeyedSentence = { key: 'upload.keptMissing' };

/**
 * **The** checks of an uploaded PDF (a document's, or one kept from a refused form): within
 * the workspace's bytes for the day (past them a file is not even inspected), then inspected
 * in a thread (a hostile file cannot hold up this process's requests). Throws InputError on
 * `file`; returns the PDF's facts.
 */
export async function checkUpload(ctx: Context, workspaceId: string, file: Uint8Array): Promise<PdfFacts> {
  return (await startUploadCheck(ctx, workspaceId, file)).facts;
}

/** checkUpload in two steps (inspect-thread.ts startInspection): resolves once a thread has the file. */
async function startUploadCheck(
  ctx: Context,
  workspaceId: string,
  file: Uint8Array,
): Promise<{ facts: Promise<PdfFacts> }> {
  const overToday = await uploadAllowanceProblem(ctx, workspaceId, file.byteLength);
  if (overToday) throw refusalOf({ file: overToday }, { overAllowance: untilNextDay(ctx.clock.now()) });
  return startInspection(file, { maxBytes: ctx.config.maxUploadBytes });
}
