// The tests' factories for what many suites build the same way: fields, template roles,
// templates and the PDFs they are made from, written once so that a suite says only what is
// particular to it (issue 50: these were copied into four to nine files). Each makes exactly
// what its copies made, byte for byte where bytes matter (a file is stored by its SHA-256, so
// a PDF made twice alike is one file): `blankPdf` has no random part, `pagesPdf`
// (harness.ts) has one. Documents (`createDraftDocument`, `createSentDocument`,
// `createTestDocument`) and recipients (`recipient`) stay in harness.ts beside the database.
import { PDFDocument } from '@cantoo/pdf-lib';
import type { Context } from '../../src/context.ts';
import { renderTextDocument } from '../../src/pdf/text-document.ts';
import type { TemplateInput, TemplateRoleInput } from '../../src/templates/template-input.ts';
import { createTemplate } from '../../src/templates/templates.service.ts';
import { pagesPdf } from './harness.ts';

/**
 * Where a field sits: its page (from 1) and its box in PDF points from the lower left of the
 * page as displayed. The field's other keys (`label`, `required`, `senderFills`, `value`…)
 * travel beside it as the API takes them; the type is a string, since some tests send a
 * type that does not exist.
 */
export interface FieldBox {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Whose a field is: a template's role (by name) or a document's recipient (by email). */
export type FieldOwner = { role: string } | { recipient: string };

/**
 * The signature box most tests ask for: 180 × 40 points at (72, 72) on page 1, for a
 * template's role (`{ role: 'Client' }`) or a document's recipient (`{ recipient: email }`);
 * `more` moves it or adds to it.
 */
export function signatureField<O extends FieldOwner>(
  owner: O,
  more: Partial<FieldBox> & Record<string, unknown> = {},
) {
  return {
    ...owner,
    type: 'signature' as const,
    page: 1,
    x: 72,
    y: 72,
    width: 180,
    height: 40,
    ...more,
  };
}

/**
 * The fee a template asks of whoever uses it: `role`'s text field labelled Fee, 180 × 20
 * points at (72, 140) on page 1, above `signatureField`'s box; the sender fills it in.
 */
export function senderFeeField(role = 'Client', more: Record<string, unknown> = {}) {
  return {
    role,
    type: 'text' as const,
    page: 1,
    x: 72,
    y: 140,
    width: 180,
    height: 20,
    label: 'Fee',
    senderFills: true,
    ...more,
  };
}

/**
 * A template field in the services agreement's layout: `role`'s field of `type` on page 1,
 * 72 points from the left and `y` up, 160 × 24 points, unless `more` says otherwise.
 */
export function templateField<T extends string>(
  role: string,
  type: T,
  y: number,
  more: Record<string, unknown> = {},
) {
  return { role, type, page: 1, x: 72, y, width: 160, height: 24, ...more };
}

/** A template role as most tests write one: a signer of the first group, standard signing, unless `more` says otherwise. */
export function templateRole(
  name: string,
  more: Partial<Omit<TemplateRoleInput, 'name'>> = {},
): TemplateRoleInput {
  return { name, role: 'signer', signingOrder: 1, signingMethod: 'standard', ...more };
}

/** The services agreement's roles: Client, then Company, sign in that order; Accountant receives a copy. */
export const servicesRoles: TemplateRoleInput[] = [
  templateRole('Client'),
  templateRole('Company', { signingOrder: 2 }),
  templateRole('Accountant', { role: 'viewer', signingOrder: 3 }),
];

/**
 * The services agreement's fields: each signer's signature and the Price (asked of the
 * template's user, on both signers' parts), the Client's Insured box (asked, optional); with
 * `startDate`, an optional Start date asked of the user as well, after the Client's Price.
 */
export function servicesFields({ startDate = false }: { startDate?: boolean } = {}) {
  return [
    templateField('Client', 'signature', 100, { height: 40 }),
    templateField('Client', 'text', 200, { label: 'Price', senderFills: true }),
    ...(startDate
      ? [templateField('Client', 'text', 240, { label: 'Start date', senderFills: true, required: false })]
      : []),
    templateField('Client', 'checkbox', 280, {
      label: 'Insured',
      senderFills: true,
      width: 12,
      height: 12,
      required: false,
    }),
    templateField('Company', 'signature', 100, { height: 40, x: 320 }),
    templateField('Company', 'text', 200, { label: 'Price', senderFills: true, x: 320 }),
  ];
}

/**
 * The services agreement as a template (`servicesRoles`, `servicesFields()`, valid 14 days,
 * on a two-page `pagesPdf`), with any part of its input replaced by `replace`.
 */
export async function createServicesTemplate(
  ctx: Context,
  workspaceId: string,
  replace: Partial<Omit<TemplateInput, 'workspaceId'>> = {},
): Promise<{ id: string }> {
  return createTemplate(ctx, {
    workspaceId,
    name: 'Services agreement',
    title: 'Services agreement',
    body: 'Please sign.',
    roles: servicesRoles,
    fields: servicesFields(),
    expiresInSeconds: 14 * 86_400,
    ...replace,
    file: 'file' in replace || 'kept' in replace ? replace.file : await pagesPdf(2),
  });
}

/**
 * The services agreement as a bulk send uses it: Client and Company sign in parallel (both
 * named on each row of the spreadsheet), each a signature, the Client's Price asked of the
 * sender; one page that says Services.
 */
export async function createBulkTemplate(ctx: Context, workspaceId: string): Promise<{ id: string }> {
  return createServicesTemplate(ctx, workspaceId, {
    roles: [templateRole('Client'), templateRole('Company')],
    fields: [
      templateField('Client', 'signature', 100, { height: 40 }),
      templateField('Client', 'text', 200, { label: 'Price', senderFills: true }),
      templateField('Company', 'signature', 100, { height: 40, x: 320 }),
    ],
    file: await labelledPdf('Services'),
  });
}

/**
 * A waiver, the template a public link takes: one blank page, the first role's
 * `signatureField`, valid 7 days; its roles sign in the order given (Customer alone unless
 * `roles` says otherwise).
 */
export async function createWaiverTemplate(
  ctx: Context,
  workspaceId: string,
  {
    title = 'Climbing waiver',
    roles = ['Customer'],
    language = null,
  }: { title?: string; roles?: string[]; language?: string | null } = {},
): Promise<{ id: string }> {
  return createTemplate(ctx, {
    workspaceId,
    name: 'Waiver',
    title,
    // The first role (the public link's signer) in `language`, if given.
    roles: roles.map((name, i) =>
      templateRole(name, { signingOrder: i + 1, language: i === 0 ? language : null }),
    ),
    fields: [signatureField({ role: roles[0] as string })],
    expiresInSeconds: 7 * 24 * 3600,
    file: await blankPdf(),
  });
}

/** An A4 PDF of `pages` empty pages, as pdf-lib saves it: two made in the same second are the same bytes. */
export async function blankPdf(pages = 1): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  for (let i = 0; i < pages; i += 1) pdf.addPage([595, 842]);
  return Buffer.from(await pdf.save());
}

/** A one-page A4 PDF with `text` near its top in pdf-lib's default font. */
export async function labelledPdf(text: string): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  pdf.addPage([595, 842]).drawText(text, { x: 72, y: 760 });
  return Buffer.from(await pdf.save());
}

/**
 * A PDF as Signet makes one from a text (renderTextDocument, no pricing): Northwind's
 * one-page Agreement of 1 March 2026 unless `input` says otherwise. The same input makes the
 * same bytes.
 */
export async function textPdf(
  input: { title?: string; body?: string; workspaceName?: string; createdAt?: Date } = {},
): Promise<Buffer> {
  const { data } = await renderTextDocument({
    title: input.title ?? 'Agreement',
    body: input.body ?? 'Terms.',
    workspaceName: input.workspaceName ?? 'Northwind',
    pricing: null,
    createdAt: input.createdAt ?? new Date('2026-03-01T00:00:00Z'),
  });
  return Buffer.from(data);
}
