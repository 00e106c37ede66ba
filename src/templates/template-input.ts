// What a template takes (`TemplateInput`: its PDF, its roles, its fields, the defaults of the
// documents made from it) and `checkTemplateInput`, which names every problem at once, as
// sending/draft-input.ts does for a document, with the same rules where they are the same:
// the title, text, expiry and reminders (`validateDocumentSettings`), a role's kind, order
// and method (`checkRecipientSettings`), the fields' placement (fields/field-rules.ts, a
// role standing where a recipient would) and the PDF's checks (`checkUpload`).
// Error keys: `name`, `title`, `body`, `expiry`, `remindEveryDays`, `roles`,
// `roles[i].name` (…`.role`, `.signingMethod`, `.signingOrder`), `fields` (with a pointer to
// the field), `file`.
import type { Context } from '../context.ts';
import type { PageSize, RecipientRole, SigningMethod } from '../db/schema.ts';
import {
  checkFields,
  fieldsProblem,
  numberedProblem,
  type PlacedField,
  typeWord,
  valueTakers,
} from '../fields/field-rules.ts';
import { fieldTypeSpecs } from '../fields/field-types.ts';
import { type KeyedSentence, type Problems, problemsOf, refusalOf } from '../i18n/refusals.ts';
import { InputError } from '../input-error.ts';
import { tooLargeRefusal } from '../pdf/inspect.ts';
import {
  checkRecipientSettings,
  checkUpload,
  type KeptPdf,
  maxRecipients,
  validateDocumentSettings,
  whoIs,
} from '../sending/draft-input.ts';

export const maxRoleNameLength = 60;
export const maxTemplateNameLength = 200;

export interface TemplateRoleInput {
  /** "Client": how the role is named on the template, its use form and a bulk spreadsheet's columns. */
  name: string;
  role: RecipientRole;
  signingOrder: number;
  signingMethod: SigningMethod;
  /** The default language of the recipient in this role (i18n/languages.ts); null or absent: the workspace's. */
  language?: string | null;
}

export interface TemplateInput {
  workspaceId: string;
  name: string;
  /** The default title and message of the documents made from it. */
  title: string;
  body?: string;
  roles: TemplateRoleInput[];
  /**
   * Untrusted JSON, each as a document's field (field-rules.ts) with `role` (a role's name)
   * instead of `recipient`, and `senderFills`: whoever uses the template gives its value.
   */
  fields?: unknown[];
  expiresInSeconds: number;
  remindEveryDays?: number | null;
  /** A new PDF (checked and counted in the day's uploads as a document's). */
  file?: Uint8Array | null;
  fileTooLarge?: boolean;
  /** Without `file`: a PDF already stored (the template's own, or the document's it is saved from). */
  kept?: KeptPdf | null;
}

/** A template field checked: placed on a role (its id in `recipientId`), and whether the sender fills it. */
export interface PlacedTemplateField extends PlacedField {
  senderFills: boolean;
}

export interface CheckedTemplate {
  /** Each role with the id it is stored under. */
  roles: Array<TemplateRoleInput & { id: string }>;
  fields: PlacedTemplateField[];
  /** The PDF's facts (a new one's, or the kept one's). */
  pdf: { pages: number; pageSizes: PageSize[] };
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

function checkRoles(roles: TemplateRoleInput[], errors: Problems): void {
  if (roles.length < 1 || roles.length > maxRecipients) {
    errors.roles = { key: 'template.problem.roleCount', values: { max: maxRecipients } };
  } else if (!roles.some((r) => r.role === 'signer')) {
    errors.roles = { key: 'template.problem.noSigner' };
  }
  const names: string[] = [];
  for (const [i, r] of roles.entries()) {
    const who = whoIs('role', i + 1);
    const key = (field: keyof TemplateRoleInput) => `roles[${i}].${field}`;
    const name = r.name.trim();
    if (!name || name.length > maxRoleNameLength) {
      errors[key('name')] = {
        key: 'template.problem.roleName',
        values: { max: maxRoleNameLength },
        parts: { who },
      };
    } else if (names.some((other) => sameName(other, name))) {
      errors[key('name')] = { key: 'template.problem.roleNameTaken', values: { name }, parts: { who } };
    }
    names.push(name);
    checkRecipientSettings(r, who, key, errors);
  }
}

/** **The** template name rule's sentence (templates.service.ts renames by it too). */
export const templateNameProblem: KeyedSentence = {
  key: 'template.problem.name',
  values: { max: maxTemplateNameLength },
};

/** The raw fields as field-rules.ts reads them (the role's name where a recipient's email goes), and who fills each. */
function fieldsOf(raw: unknown[]): { asDocument: unknown[]; senderFills: unknown[] } {
  const asDocument = raw.map((item) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
    const { role, senderFills: _senderFills, ...rest } = item as Record<string, unknown>;
    return { ...rest, recipient: role };
  });
  const senderFills = raw.map((item) =>
    typeof item === 'object' && item !== null ? (item as Record<string, unknown>).senderFills : undefined,
  );
  return { asDocument, senderFills };
}

/** The fields checked against the roles and pages (InputError on `fields`, pointing at the first bad one). */
function checkTemplateFields(
  raw: unknown[],
  roles: CheckedTemplate['roles'],
  pages: PageSize[],
): PlacedTemplateField[] {
  const { asDocument, senderFills } = fieldsOf(raw);
  const placed = checkFields(
    asDocument,
    {
      recipients: roles.map((r) => ({ id: r.id, email: r.name, role: r.role })),
      pages,
      of: 'template',
    },
    sameName,
  );
  const problems: KeyedSentence[] = [];
  const pointers: string[] = [];
  const fields = placed.map((field, i) => {
    const fills = senderFills[i] ?? false;
    let problem: KeyedSentence | null = null;
    if (typeof fills !== 'boolean') problem = { key: 'editor.problem.senderFillsKind' };
    else if (fills && !fieldTypeSpecs[field.type].senderValue) {
      problem = {
        key: 'editor.problem.notAskable',
        parts: { type: typeWord(field.type) },
        lists: { takers: valueTakers() },
      };
    } else if (fills && !field.label) {
      problem = { key: 'editor.problem.askedNeedsLabel' };
    } else if (field.prefilled) {
      problem = { key: 'editor.problem.templateValue' };
    }
    if (problem) {
      problems.push(numberedProblem(i, problem));
      pointers.push(`/fields/${i}`);
    }
    return { ...field, senderFills: fills === true };
  });
  if (problems.length > 0)
    throw refusalOf(
      { fields: fieldsProblem(problems.slice(0, 5)) },
      { pointers: { fields: pointers[0] ?? '/fields' } },
    );
  return fields;
}

/**
 * A template's input checked whole: every problem at once (the PDF's included, inspected in a
 * thread as a document's). The fields are checked once the roles and the PDF are good.
 */
export async function checkTemplateInput(ctx: Context, input: TemplateInput): Promise<CheckedTemplate> {
  const errors: Problems = {};
  const name = input.name.trim();
  if (!name || name.length > maxTemplateNameLength) errors.name = templateNameProblem;
  validateDocumentSettings({ ...input, delivery: 'email' }, errors);
  checkRoles(input.roles, errors);
  let pdf: CheckedTemplate['pdf'] | null = input.kept
    ? { pages: input.kept.pages, pageSizes: input.kept.pageSizes }
    : null;
  let overAllowance: { retryAfterSeconds: number } | undefined;
  if (input.fileTooLarge) errors.file = tooLargeRefusal(ctx.config.maxUploadBytes);
  else if (input.file) {
    try {
      pdf = await checkUpload(ctx, input.workspaceId, input.file);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      Object.assign(errors, problemsOf(error));
      overAllowance = error.details.overAllowance;
    }
  } else if (!pdf) errors.file = { key: 'upload.templateNeedsPdf' };
  if (Object.keys(errors).length > 0) throw refusalOf(errors, overAllowance ? { overAllowance } : {});
  const roles = input.roles.map((r) => ({ ...r, name: r.name.trim(), id: ctx.ids.uuid() }));
  const checked = pdf as CheckedTemplate['pdf'];
  return { roles, fields: checkTemplateFields(input.fields ?? [], roles, checked.pageSizes), pdf: checked };
}
