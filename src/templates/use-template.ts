// Using a template (issue 38): each role's person and the values the template asks of its
// user become an ordinary document (sending/'s createDocument, the same checks as any), its
// PDF the template's own stored file (shared, never copied: no upload is counted), its fields
// at the template's positions, a field the user fills in prefilled with their value.
// - `recipients` names each role's person by the role's name (case aside); every role needs
//   one, and no one else is taken.
// - `values` gives the fields the user fills in by their label: fields with one label share
//   the value (a start date on page 1 and page 5). A required one needs a value; an
//   optional one left out is left empty (a checkbox unticked), never given to the signer.
// - A refusal names the member at fault as the user wrote it: `recipients["Client"].email`,
//   `values["Price"]` (so the API's pointer is `/recipients/Client/email`, `/values/Price`);
//   its sentences are keys of the catalogues (template.use.*, and the document's own rules'
//   said of the role: `who.named`).
import type { Context } from '../context.ts';
import type { Delivery, PageSize } from '../db/schema.ts';
import { pageSizesOf } from '../fields/fields.service.ts';
import { pointerToken } from '../http/error-handler.ts';
import { type KeyedSentence, type Problems, problemsOf, refusalOf } from '../i18n/refusals.ts';
import type { InputError } from '../input-error.ts';
import type { CreateDocumentInput } from '../sending/draft-input.ts';
import type { TemplateDetail, TemplateField, TemplateRole } from './templates.service.ts';

export interface UseTemplateInput {
  /** Each role's person, by the role's name. */
  recipients: Record<string, { email: string; fullName: string; language?: string | null }>;
  /** The values of the fields the user fills in, by their label. */
  values?: Record<string, string | boolean>;
  /** The document's own title and message, instead of the template's. */
  title?: string;
  body?: string;
  delivery?: Delivery;
}

const roleKey = (name: string, member?: 'email' | 'fullName') =>
  `recipients[${JSON.stringify(name)}]${member ? `.${member}` : ''}`;
const valueKey = (label: string) => `values[${JSON.stringify(label)}]`;
const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The labels whose values the template asks of its user, each once, with whether one is required. */
export function askedValues(
  template: Pick<TemplateDetail, 'roles'>,
): Array<{ label: string; type: TemplateField['type']; required: boolean; maxLength: number | null }> {
  const asked = new Map<
    string,
    { label: string; type: TemplateField['type']; required: boolean; maxLength: number | null }
  >();
  for (const field of template.roles.flatMap((r) => r.fields)) {
    if (!field.senderFills || !field.label) continue;
    const key = field.label.toLowerCase();
    const before = asked.get(key);
    asked.set(key, {
      label: before?.label ?? field.label,
      type: field.type,
      required: (before?.required ?? false) || field.required,
      maxLength: before?.maxLength ?? field.maxLength,
    });
  }
  return [...asked.values()];
}

/** Each role's person, or the problems: a role left out, a name that is no role. */
function peopleOf(roles: TemplateRole[], given: UseTemplateInput['recipients'], errors: Problems) {
  for (const name of Object.keys(given)) {
    if (!roles.some((r) => same(r.name, name)))
      errors[roleKey(name)] = {
        key: 'template.use.notARole',
        values: { name, roles: roles.map((r) => r.name).join(', ') },
      };
  }
  return roles.map((role) => {
    const entry = Object.entries(given).find(([name]) => same(name, role.name))?.[1];
    if (!entry) errors[roleKey(role.name)] = { key: 'template.use.givePerson', values: { role: role.name } };
    // Their own language, else their role's default (null: the workspace's when mailed).
    const language = entry?.language || role.language;
    return { role, email: entry?.email ?? '', fullName: entry?.fullName ?? '', language };
  });
}

/** The value each asked label gets (text, or a checkbox's true or false), or the problems. */
function valuesOf(template: TemplateDetail, given: Record<string, string | boolean>, errors: Problems) {
  const asked = askedValues(template);
  for (const label of Object.keys(given)) {
    if (!asked.some((a) => same(a.label, label)))
      errors[valueKey(label)] = {
        key: 'template.use.notAsked',
        values: { label, count: asked.length, asked: asked.map((a) => `“${a.label}”`).join(', ') },
      };
  }
  const values = new Map<string, string | boolean>();
  for (const a of asked) {
    const value = Object.entries(given).find(([label]) => same(label, a.label))?.[1];
    const empty = value === undefined || value === '' || value === false;
    if (a.required && empty)
      errors[valueKey(a.label)] = {
        key: a.type === 'checkbox' ? 'template.use.tick' : 'template.use.giveValue',
        values: { label: a.label },
      };
    values.set(a.label.toLowerCase(), value ?? (a.type === 'checkbox' ? false : ''));
  }
  return values;
}

/**
 * The document a template makes for `input` (the input createDocument takes), or the
 * InputError naming what is missing or unknown. `pageSizes`: the template's PDF's, when the
 * caller read them already (a bulk send reads them once for all its rows).
 */
export async function documentInputOf(
  ctx: Context,
  workspaceId: string,
  template: TemplateDetail,
  input: UseTemplateInput,
  pageSizes?: PageSize[],
): Promise<CreateDocumentInput> {
  const errors: Problems = {};
  const people = peopleOf(template.roles, input.recipients, errors);
  const values = valuesOf(template, input.values ?? {}, errors);
  if (Object.keys(errors).length > 0) throw refusalOf(errors);
  const emailOf = new Map(people.map((p) => [p.role.id, p.email]));
  const delivery = input.delivery ?? 'email';
  return {
    workspaceId,
    templateId: template.id,
    title: input.title ?? template.title,
    body: input.body ?? template.text,
    recipients: people.map((p) => ({
      email: p.email,
      fullName: p.fullName,
      role: p.role.role,
      signingOrder: p.role.signingOrder,
      signingMethod: p.role.signingMethod,
      language: p.language,
    })),
    pricing: null,
    expiresInSeconds: template.expiresInSeconds,
    remindEveryDays: delivery === 'none' ? null : template.remindEveryDays,
    delivery,
    kept: {
      sha256: template.file.sha256,
      pages: template.file.pages,
      pageSizes: pageSizes ?? (await pageSizesOf(ctx.db, template.file.sha256)),
    },
    fields: template.roles.flatMap((role) =>
      role.fields.map(({ id: _id, senderFills, ...placed }) => ({
        ...placed,
        recipient: emailOf.get(role.id),
        value: senderFills && placed.label ? (values.get(placed.label.toLowerCase()) ?? null) : null,
      })),
    ),
  };
}

/**
 * A refusal of the document made from a template, named as its user wrote it: a recipient's
 * problem under its role's name (and said of it: "Client: the email address is not valid."),
 * a field's value under its label.
 */
export function asTemplateUseError(error: InputError, template: TemplateDetail): InputError {
  const roles = template.roles;
  const fields = roles.flatMap((r) => r.fields);
  const renamed: Problems = {};
  const pointers: Record<string, string> = {};
  for (const [key, problem] of Object.entries(problemsOf(error))) {
    const recipient = /^recipients\[(\d+)\]\.(\w+)$/.exec(key);
    const pointer = error.details.pointers?.[key];
    const field = key === 'fields' && pointer ? /^\/fields\/(\d+)/.exec(pointer) : null;
    if (recipient) {
      const role = roles[Number(recipient[1])];
      // "Recipient 2: the email address is not valid." says which by the role's name instead.
      if (role) renamed[roleKey(role.name, recipient[2] as 'email')] = namedAfter(problem, role.name);
      else renamed[key] = problem;
    } else if (field) {
      const label = fields[Number(field[1])]?.label;
      renamed[label ? valueKey(label) : key] = problem;
    } else {
      renamed[key] = problem;
      if (pointer) pointers[key] = pointer;
    }
  }
  const { messages: _messages, ...details } = error.details;
  return refusalOf(renamed, { ...details, pointers });
}

/** A recipient's problem said of their role (`who.named`) instead of their row. */
function namedAfter(problem: KeyedSentence | string, role: string): KeyedSentence | string {
  if (typeof problem === 'string') return problem.replace(/^Recipient \d+:/, `${role}:`);
  if (!problem.parts?.who) return problem;
  return { ...problem, parts: { ...problem.parts, who: { key: 'who.named', values: { name: role } } } };
}

/**
 * asTemplateUseError for the API, where the document's refusal is already a JSON Pointer:
 * `/recipients/0/email` → `/recipients/Client/email`, `/fields/3/value` → `/values/Price`.
 */
export function templatePointer(pointer: string, template: TemplateDetail): string {
  const recipient = /^\/recipients\/(\d+)(\/.*)?$/.exec(pointer);
  const role = recipient ? template.roles[Number(recipient[1])] : undefined;
  if (recipient && role) return `/recipients/${pointerToken(role.name)}${recipient[2] ?? ''}`;
  const field = /^\/fields\/(\d+)/.exec(pointer);
  const label = field ? template.roles.flatMap((r) => r.fields)[Number(field[1])]?.label : undefined;
  if (label) return `/values/${pointerToken(label)}`;
  return pointer;
}
