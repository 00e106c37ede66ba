// The template forms as the services' input, and the services' sentences keyed by the forms'
// inputs: the roles table (the new-template form's, and "Change the roles" on a template's
// page: `t{i}_name`, `t{i}_role`, `t{i}_method`, `t{i}_order`, `t{i}_was` (the place of the
// role the row was; empty on a new row), `t{i}_remove`), and the documents' defaults
// (`title`, `body`, `expiresInDays`, `remindEveryDays`, as on the new-document form).
import type { RecipientRole, SigningMethod } from '../db/schema.ts';
import type { Translator } from '../i18n/messages.ts';
import { type KeyedSentence, type Problems, sentenceIn } from '../i18n/refusals.ts';
import type { FieldErrors } from '../input-error.ts';
import { maxRecipients } from '../sending/draft-input.ts';
import type { RoleChange, TemplateDefaults } from '../templates/template-edits.ts';
import type { TemplateDetail } from '../templates/templates.service.ts';
import { type Form, formText } from '../ui/forms.ts';
import { expiryChoices, expiryOf, field, renumbered, rowCount } from './document-form.ts';

/** The roles table's input ids. */
export const roleInput = {
  name: (i: number) => `t${i}_name`,
  role: (i: number) => `t${i}_role`,
  method: (i: number) => `t${i}_method`,
  order: (i: number) => `t${i}_order`,
  language: (i: number) => `t${i}_language`,
  was: (i: number) => `t${i}_was`,
  remove: (i: number) => `t${i}_remove`,
};

/** Rows of the roles table: the count the form carries (`roleRows`), 3 when it carries none. */
export const roleRowsOf = (form: Form) => rowCount(form, 'roleRows', 3, maxRecipients);

/** The roles typed in, each with the row it came from (blank new rows and removed rows left out). */
export function rolesOf(form: Form, roleCount: number): { roles: RoleChange[]; rows: number[] } {
  const roles: RoleChange[] = [];
  const rows: number[] = [];
  for (let i = 0; i < roleCount; i += 1) {
    const was = field(form, roleInput.was(i));
    const name = field(form, roleInput.name(i));
    if (field(form, roleInput.remove(i)) === 'yes' || (was === '' && name === '')) continue;
    roles.push({
      was: /^\d{1,3}$/.test(was) ? Number(was) : null,
      name,
      role: (field(form, roleInput.role(i)) || 'signer') as RecipientRole,
      signingMethod: (field(form, roleInput.method(i)) || 'standard') as SigningMethod,
      signingOrder: Number(field(form, roleInput.order(i)) || '1'),
      language: field(form, roleInput.language(i)) || null,
    });
    rows.push(i);
  }
  return { roles, rows };
}

/** A template's roles as the roles table shows them. */
export function rolesFormOf(template: Pick<TemplateDetail, 'roles'>): Form {
  const form: Form = { roleRows: String(Math.min(template.roles.length + 2, maxRecipients)) };
  template.roles.forEach((r, i) => {
    form[roleInput.was(i)] = String(i);
    form[roleInput.name(i)] = r.name;
    form[roleInput.role(i)] = r.role;
    form[roleInput.method(i)] = r.signingMethod;
    form[roleInput.order(i)] = String(r.signingOrder);
    form[roleInput.language(i)] = r.language ?? '';
  });
  return form;
}

/** The documents' defaults typed in; `keep` keeps an expiry the form's choices do not hold. */
export function defaultsOf(form: Form, keptExpiry?: number): TemplateDefaults {
  const reminders = field(form, 'remindEveryDays');
  return {
    title: field(form, 'title'),
    body: formText(form, 'body'),
    expiresInSeconds: expiryOf(form, keptExpiry),
    remindEveryDays: reminders === '' ? null : Number(reminders),
  };
}

/** A template's defaults as the defaults form shows them. */
export function defaultsFormOf(template: TemplateDetail): Form {
  const days = template.expiresInSeconds / 86_400;
  const known = expiryChoices.includes(days as (typeof expiryChoices)[number]);
  return {
    title: template.title,
    body: template.text,
    remindEveryDays: template.remindEveryDays === null ? '' : String(template.remindEveryDays),
    expiresInDays: known ? String(days) : 'keep',
    ...(known ? {} : { expiresAsSet: String(template.expiresInSeconds) }),
  };
}

/** Which input of a role row holds each role member the service names. */
const roleInputOf: Record<string, (i: number) => string> = {
  name: roleInput.name,
  role: roleInput.role,
  signingMethod: roleInput.method,
  signingOrder: roleInput.order,
  language: roleInput.language,
};

/**
 * The service's problems (`roles[1].name`, `expiry`) in `tr`'s language, keyed by the form's
 * inputs (`t2_name`, `expiresInDays`; the form's rows count blank and removed rows too, and
 * the sentences number the roles so). A sentence with no input of its own goes to `roles`
 * (the table) or stays under its key.
 */
export function templateFormErrors(problems: Problems, rows: number[], tr: Translator): FieldErrors {
  const placed: FieldErrors = {};
  const place = (key: string, problem: KeyedSentence | string) => {
    const sentence = sentenceIn(problem, tr);
    placed[key] = placed[key] ? `${placed[key]} ${sentence}` : sentence;
  };
  for (const [key, problem] of Object.entries(problems)) {
    const role = /^roles\[(\d+)\]\.(\w+)$/.exec(key);
    const row = role ? rows[Number(role[1])] : undefined;
    const input = role ? roleInputOf[role[2] as string] : undefined;
    if (role && row !== undefined && input)
      place(input(row), renumbered(problem, 'row', Number(role[1]) + 1, row + 1, 'Role'));
    else if (key === 'expiry') place('expiresInDays', problem);
    else if (key.startsWith('roles')) place('roles', problem);
    else place(key, problem);
  }
  return placed;
}
