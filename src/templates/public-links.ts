// Public signing links (issue 38): a template with one signing role, and no value asked of
// its user, can be opened by anyone holding its link. The visitor gives a name and an email,
// confirms the email with a six-digit code mailed to it (10 minutes, five wrong tries void
// it; only its hash is kept), and gets a document of their own made from the template and
// sent to them (the invitation mailed, as any), which they sign at once.
// - The link is on or off; renewing it makes a new token, which ends the old link and the
//   codes asked through it. It may carry a most number of uses and an end.
// - A use is counted in the transaction that makes its document, under the template's row
//   lock, so a link of 10 uses makes 10 documents however many visitors confirm at once.
// - Asking for a code is limited per client address (`takePublicLinkAttempt`, the requester's
//   own budget), and every code mail is counted per destination inbox and per workspace
//   (public-link-caps.ts), so a link cannot be made to mail strangers in bulk. Nothing a
//   stranger asks for is counted against the link as a whole (issue 49 §3): the link counts
//   only its confirmed uses, so a flood of requests never shuts it for the next visitor.
// - The confirmation page (`publicLinkRequest`) shows the address masked: whoever else holds
//   its URL does not learn whose it is.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { RateLimiter } from '../http/rate-limiter.ts';
import { firstLanguage, type Language, negotiateLanguage } from '../i18n/languages.ts';
import { type MessageKey, translator } from '../i18n/messages.ts';
import { type KeyedProblem, keyedRefusal, refusalOf } from '../i18n/refusals.ts';
import { isEmailAddress, normalizeEmail } from '../mail/address.ts';
import { queueMail } from '../mail/mail.service.ts';
import { signingCodeMail } from '../mail/templates.ts';
import { drawingRefusal } from '../pdf/fonts.ts';
import { createDocument } from '../sending/drafts.ts';
import { sendDocument } from '../sending/send.ts';
import { findMailedSigningLinks } from '../sending/signing-links.ts';
import { randomSixDigits } from '../signing/codes.ts';
import type { PageBrand } from '../ui/shell.ts';
import { brandOf, senderNameOf } from '../workspaces/brand.ts';
import { findWorkspace } from '../workspaces/workspaces.repository.ts';
import { withCodeMailCounted } from './public-link-caps.ts';
import { findTemplateRoles } from './templates.repository.ts';
import { getTemplate, type TemplateDetail } from './templates.service.ts';
import { askedValues, documentInputOf } from './use-template.ts';

export const publicCodeValidityMs = 10 * 60_000;
/** The same, in minutes, as pages say it. */
export const publicCodeValidityMinutes = publicCodeValidityMs / 60_000;
export const maxPublicCodeAttempts = 5;
/** Codes asked for from one client address: a few, then one every 12 minutes. */
export const perClientAddress = { burst: 5, refillPerSecond: 5 / 3600 };

const hashCode = (requestId: string, code: string) =>
  createHash('sha256').update(`${requestId}:${code}`).digest('hex');

/** Why a template cannot have a public link (a sentence of the catalogues), or null when it can. */
export function publicLinkProblem(template: Pick<TemplateDetail, 'roles'>): MessageKey | null {
  const signers = template.roles.filter((r) => r.role === 'signer');
  if (template.roles.length !== 1 || signers.length !== 1) return 'publicLink.settings.problem.roles';
  if (askedValues(template).length > 0) return 'publicLink.settings.problem.askedValues';
  return null;
}

/** A template's link settings as its page shows them. */
export interface PublicLinkSettings {
  token: string | null;
  maxUses: number | null;
  endsAt: Date | null;
  uses: number;
}

async function lockedTemplate(trx: Transaction<Database>, workspaceId: string, id: string) {
  const row = await trx
    .selectFrom('templates')
    .select(['id', 'public_link_token', 'public_link_max_uses', 'public_link_ends_at', 'public_link_uses'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new ApiError('not-found');
  return row;
}

const newToken = (ctx: Context) => ctx.ids.randomBytes(18).toString('base64url');

/**
 * Turns the link on (a new token when it had none, or `renew`) with its limits, or changes
 * its limits; refused (a keyed InputError on `publicLink`) for a template that cannot have one.
 */
export async function setPublicLink(
  ctx: Context,
  workspaceId: string,
  templateId: string,
  settings: { maxUses: number | null; endsAt: Date | null; renew?: boolean },
): Promise<string> {
  const problem = publicLinkProblem(await getTemplate(ctx, workspaceId, templateId));
  if (problem) throw keyedRefusal([['publicLink', problem]]);
  if (settings.maxUses !== null && !(Number.isInteger(settings.maxUses) && settings.maxUses > 0))
    throw keyedRefusal([['maxUses', 'publicLink.settings.refusal.maxUses']]);
  return ctx.db.transaction().execute(async (trx) => {
    const row = await lockedTemplate(trx, workspaceId, templateId);
    const token = !row.public_link_token || settings.renew ? newToken(ctx) : row.public_link_token;
    await trx
      .updateTable('templates')
      .set({
        public_link_token: token,
        public_link_max_uses: settings.maxUses,
        public_link_ends_at: settings.endsAt,
        ...(row.public_link_token === token ? {} : { public_link_uses: 0 }),
      })
      .where('id', '=', templateId)
      .execute();
    return token;
  });
}

/** Turns the link off: its token no longer opens anything. */
export async function removePublicLink(ctx: Context, workspaceId: string, templateId: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await lockedTemplate(trx, workspaceId, templateId);
    await trx
      .updateTable('templates')
      .set({ public_link_token: null })
      .where('id', '=', templateId)
      .execute();
  });
}

export async function publicLinkSettings(
  ctx: Context,
  workspaceId: string,
  templateId: string,
): Promise<PublicLinkSettings> {
  const row = await ctx.db
    .selectFrom('templates')
    .select(['public_link_token', 'public_link_max_uses', 'public_link_ends_at', 'public_link_uses'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', templateId)
    .executeTakeFirst();
  if (!row) throw new ApiError('not-found');
  return {
    token: row.public_link_token,
    maxUses: row.public_link_max_uses,
    endsAt: row.public_link_ends_at,
    uses: row.public_link_uses,
  };
}

/** Why a link that exists takes no more visitors (a sentence of the catalogues), or null while it does. */
function closedBecause(
  row: { public_link_max_uses: number | null; public_link_ends_at: Date | null; public_link_uses: number },
  now: Date,
): MessageKey | null {
  if (row.public_link_ends_at && row.public_link_ends_at.getTime() <= now.getTime())
    return 'publicLink.closed.ended';
  if (row.public_link_max_uses !== null && row.public_link_uses >= row.public_link_max_uses)
    return 'publicLink.closed.usedUp';
  return null;
}

/** What a visitor of `/t/{token}` sees: the document to sign and who sends it, or why not. */
export interface PublicLinkView {
  workspaceId: string;
  templateId: string;
  title: string;
  /** The sender by its brand's name, else the workspace's. */
  senderName: string;
  /** The sender's brand: the visitor's pages carry it. */
  brand: PageBrand;
  /**
   * A visitor's language when their browser asks for none of Signet's: the language of the
   * link's role (its template's default for the signer), else the workspace's default.
   */
  defaultLanguage: Language;
  /** Why it takes no more visitors (ended, used up), a sentence of the catalogues, or null. */
  closed: MessageKey | null;
}

/** The link's view; not-found for a token that opens nothing (never was, renewed, turned off). */
export async function openPublicLink(ctx: Context, token: string): Promise<PublicLinkView> {
  const row = await ctx.db
    .selectFrom('templates')
    .select([
      'id',
      'workspace_id',
      'title',
      'public_link_max_uses',
      'public_link_ends_at',
      'public_link_uses',
    ])
    .where('public_link_token', '=', token)
    .executeTakeFirst();
  if (!row) throw new ApiError('not-found');
  const workspace = await findWorkspace(ctx.db, row.workspace_id);
  const [role] = await findTemplateRoles(ctx.db, row.workspace_id, row.id);
  return {
    workspaceId: row.workspace_id,
    templateId: row.id,
    title: row.title,
    senderName: senderNameOf(workspace),
    brand: workspace ? brandOf(workspace) : { accent: null, sentWithSignet: true },
    defaultLanguage: firstLanguage(role?.language, workspace?.default_language),
    closed: closedBecause(row, ctx.clock.now()),
  };
}

/**
 * A code asked for through a link, limited per client address only: that budget is the
 * requester's own. A bucket per link would let strangers spend it and shut the link for real
 * visitors; the mails themselves are capped per inbox and per workspace (public-link-caps.ts).
 */
export async function takePublicLinkAttempt(
  limiter: RateLimiter,
  request: { clientIp: string },
  nowMs: number,
): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
  const taken = await limiter.take(`public-link:address:${request.clientIp}`, nowMs, perClientAddress);
  return { allowed: taken.allowed, retryAfterSeconds: taken.allowed ? 0 : taken.retryAfterSeconds };
}

function checkPerson(person: { fullName: string; email: string }): void {
  const problems: KeyedProblem[] = [];
  const name = person.fullName.trim();
  if (!name || name.length > 200) problems.push(['fullName', 'publicLink.refusal.fullName']);
  if (!isEmailAddress(person.email)) problems.push(['email', 'publicLink.refusal.email']);
  if (problems.length > 0) throw keyedRefusal(problems);
  // The font's refusal names the characters no face draws.
  const drawing = drawingRefusal('yourName', name);
  if (drawing) throw refusalOf({ fullName: drawing });
}

/**
 * A visitor's name and email: a code mailed to confirm the email; the request's id. Past a cap
 * of code mails (public-link-caps.ts) nothing is mailed: an InputError on `email` whose
 * `overAllowance` says when to try again.
 */
export async function requestPublicLinkCode(
  ctx: Context,
  token: string,
  person: {
    fullName: string;
    email: string;
    clientIp: string | null;
    /**
     * The visitor's language (their page's: ui/page-language.ts), or their browser's
     * `Accept-Language`: the code mail's language (negotiateLanguage).
     */
    acceptLanguage?: string | undefined;
  },
): Promise<{ requestId: string }> {
  const link = await openPublicLink(ctx, token);
  if (link.closed) throw keyedRefusal([['email', link.closed]]);
  checkPerson(person);
  const id = ctx.ids.uuid();
  const code = randomSixDigits(ctx);
  const now = ctx.clock.now();
  const email = normalizeEmail(person.email);
  const counted = {
    workspaceId: link.workspaceId,
    templateId: link.templateId,
    email,
    senderName: link.senderName,
  };
  await withCodeMailCounted(ctx, counted, async (trx) => {
    await trx
      .insertInto('public_link_requests')
      .values({
        id,
        workspace_id: link.workspaceId,
        template_id: link.templateId,
        link_token: token,
        email,
        full_name: person.fullName.trim(),
        code_hash: hashCode(id, code),
        code_expires_at: new Date(now.getTime() + publicCodeValidityMs),
        client_ip: person.clientIp,
        created_at: now,
      })
      .execute();
    await queueMail(trx, ctx, {
      workspaceId: link.workspaceId,
      documentId: null,
      recipientId: null,
      to: email,
      priority: 'urgent',
      ...signingCodeMail(translator(negotiateLanguage(person.acceptLanguage, link.defaultLanguage)), {
        code,
        documentTitle: link.title,
        workspaceName: link.senderName,
        validMinutes: publicCodeValidityMs / 60_000,
      }),
    });
  });
  return { requestId: id };
}

/**
 * "j•••@example.com": the first character of the address and its domain, enough for its owner
 * to recognise it, not enough for whoever else holds the confirmation page's URL to learn it.
 */
export function maskedAddress(email: string): string {
  const at = email.lastIndexOf('@');
  const first = Array.from(email.slice(0, Math.max(0, at)))[0] ?? '';
  return `${first}•••${email.slice(at)}`;
}

/** Where a request's code went, masked; not-found for another link's request (or a renewed link's). */
export async function publicLinkRequest(
  ctx: Context,
  token: string,
  requestId: string,
): Promise<{ sentTo: string }> {
  const request = await ctx.db
    .selectFrom('public_link_requests')
    .select('email')
    .where('id', '=', requestId)
    .where('link_token', '=', token)
    .executeTakeFirst();
  if (!request) throw new ApiError('not-found');
  return { sentTo: maskedAddress(request.email) };
}

/** The request's code judged (a wrong one counts, committed before the refusal); the request once good. */
async function judgeCode(ctx: Context, token: string, requestId: string, code: string) {
  const now = ctx.clock.now();
  const refusal = await ctx.db.transaction().execute(async (trx) => {
    const request = await trx
      .selectFrom('public_link_requests')
      .selectAll()
      .where('id', '=', requestId)
      .where('link_token', '=', token)
      .forUpdate()
      .executeTakeFirst();
    if (!request) throw new ApiError('not-found');
    if (!/^\d{6}$/.test(code.trim())) return ['publicLink.refusal.codeFormat'] as const;
    if (!request.code_hash || request.code_attempts >= maxPublicCodeAttempts)
      return ['publicLink.refusal.codeVoid'] as const;
    if (request.code_expires_at.getTime() <= now.getTime())
      return ['publicLink.refusal.codeExpired', { minutes: publicCodeValidityMs / 60_000 }] as const;
    const good = timingSafeEqual(
      Buffer.from(request.code_hash),
      Buffer.from(hashCode(requestId, code.trim())),
    );
    if (good) return null;
    await trx
      .updateTable('public_link_requests')
      .set({ code_attempts: request.code_attempts + 1 })
      .where('id', '=', requestId)
      .execute();
    return request.code_attempts + 1 >= maxPublicCodeAttempts
      ? (['publicLink.refusal.codeWrongLast'] as const)
      : (['publicLink.refusal.codeWrong'] as const);
  });
  if (refusal) throw keyedRefusal([['code', ...refusal]]);
}

/**
 * The code confirmed: the visitor's document made from the template (a use counted, the code
 * spent, in the document's own transaction under the template's lock) and sent to them; the
 * path of their signing page.
 */
export async function confirmPublicLinkCode(
  ctx: Context,
  token: string,
  requestId: string,
  code: string,
  /** The visitor's language (their page's): their signing page's and mails'; none: the role's default, else the workspace's. */
  language: Language | null = null,
): Promise<{ documentId: string; signingPath: string }> {
  // A renewed or removed link opens nothing, and ends the codes asked through it.
  const link = await openPublicLink(ctx, token);
  await judgeCode(ctx, token, requestId, code);
  const request = await ctx.db
    .selectFrom('public_link_requests')
    .select(['email', 'full_name'])
    .where('id', '=', requestId)
    .executeTakeFirstOrThrow();
  const template = await getTemplate(ctx, link.workspaceId, link.templateId);
  const role = template.roles[0];
  if (!role || publicLinkProblem(template)) throw keyedRefusal([['code', 'publicLink.closed.unusable']]);
  const input = await documentInputOf(ctx, link.workspaceId, template, {
    recipients: { [role.name]: { email: request.email, fullName: request.full_name } },
  });
  // The visitor's page language, else the role's default (documentInputOf), else the workspace's.
  for (const recipient of input.recipients) recipient.language = language ?? recipient.language;
  const { id } = await createDocument(
    ctx,
    { ...input, madeVia: 'public-link' },
    {
      first: async (trx) => {
        const row = await lockedTemplate(trx, link.workspaceId, link.templateId);
        const closed =
          row.public_link_token !== token ? 'publicLink.closed.renewed' : closedBecause(row, ctx.clock.now());
        if (closed) throw keyedRefusal([['code', closed]]);
        const spent = await trx
          .updateTable('public_link_requests')
          .set({ code_hash: null })
          .where('id', '=', requestId)
          .where('code_hash', 'is not', null)
          .returning('id')
          .executeTakeFirst();
        if (!spent) throw keyedRefusal([['code', 'publicLink.refusal.codeUsed']]);
        await trx
          .updateTable('templates')
          .set({ public_link_uses: row.public_link_uses + 1 })
          .where('id', '=', link.templateId)
          .execute();
      },
    },
  );
  await ctx.db
    .updateTable('public_link_requests')
    .set({ document_id: id })
    .where('id', '=', requestId)
    .execute();
  await sendDocument(ctx, link.workspaceId, id);
  const detail = await ctx.db
    .selectFrom('recipients')
    .select(['id', 'email'])
    .where('document_id', '=', id)
    .execute();
  const links = await findMailedSigningLinks(ctx, link.workspaceId, { id, recipients: detail });
  const url = links.get(detail[0]?.id ?? '');
  if (!url) throw new Error(`document ${id} was sent without a signing link`);
  return { documentId: id, signingPath: new URL(url).pathname };
}
