// The field editor's markup (/documents/{id}/fields, and a template's /templates/{id}/fields):
// the pages with their fields drawn over them, a form to add a field, and one form per field
// to move, resize, retype, reassign or delete it. Every change is an ordinary form post, so
// the editor works with a keyboard alone and without JavaScript; /assets/field-editor.js adds
// drawing, dragging and resizing on the pages, which fill in the same forms and send them.
// A draft's fields go to its signers (by email) and may hold a value its sender fills in; a
// template's go to its signing roles (by name) and may be marked as asked of whoever uses it.
// Every word is the member's language's (`tr`): the types by `field.type.*`, the rest by
// `editor.*`; a checkbox's "Filled in by you" takes that language's yes or no (`yesNoWords`).
import { type FieldInput, maxLabelLength } from '../fields/field-rules.ts';
import { type FieldType, fieldTypes, maxTextLength } from '../fields/field-types.ts';
import type { Translator } from '../i18n/messages.ts';
import { csrfField, type Form, fieldError, formText, invalidAttrs } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { richText } from '../ui/rich-text.ts';

/** A field as the sender describes it, with its id and its signer's colour. */
export type EditorField = FieldInput & {
  id: string;
  /** The recipient's place among the signers: their colour on the pages. */
  tone: number;
  /** A template's field: whoever uses the template gives its value. */
  senderFills?: boolean;
};

/** What the fields are placed on: a draft, or a template (its fields go to roles). */
export interface EditorSubject {
  kind: 'document' | 'template';
  /** Its page's address (`/documents/{id}`): the editor is at `{base}/fields`. */
  base: string;
  title: string;
  editable: boolean;
}

export interface FieldEditorView {
  subject: EditorSubject;
  /** The original's pages: their images and displayed sizes in points. */
  pages: Array<{ number: number; src: string; width: number; height: number }>;
  /** Who a field can go to: a draft's signers (by email) or a template's signing roles (by name). */
  signers: Array<{ value: string; label: string }>;
  fields: EditorField[];
  /** What the add form holds (after a refusal, what was typed). */
  add: Form;
  /** Sentences: `add` for the add form, a field's id for its form. */
  errors: Record<string, string>;
}

const round = (n: number) => String(Math.round(n * 100) / 100);

/** A type as the member's language names it ("Date signed"). */
const typeName = (type: FieldType, tr: Translator) => tr.t(`field.type.${type}`);

/** A field's name on the page: its type, and its label when it has one ("Text “Company”"). */
const nameOf = (field: EditorField, tr: Translator) =>
  field.label
    ? tr.t('editor.field.named', { type: typeName(field.type, tr), label: field.label })
    : typeName(field.type, tr);

/** The words a checkbox's "Filled in by you" takes in `tr`'s language (the form posts them as typed). */
export function yesNoWords(tr: Translator): { yes: string; no: string } {
  return { yes: tr.t('editor.yes'), no: tr.t('editor.no') };
}

/** A yes-or-no choice's option, said in the member's language (its value stays `yes` or `no`). */
const yesNo = (tr: Translator) => (value: string) => yesNoWords(tr)[value === 'yes' ? 'yes' : 'no'];

function options<T extends string>(
  values: readonly T[],
  chosen: string,
  label: (value: T) => string,
): SafeHtml {
  return html`${values.map((v) => html`<option value="${v}"${v === chosen ? html` selected` : null}>${label(v)}</option>`)}`;
}

/** A draft's "Filled in by you": the value its sender gives the field, or nothing. */
function valueInput(id: string, value: string, tr: Translator): SafeHtml {
  return html`<div class="field"><label for="${id}">${tr.t('editor.input.value')} <span class="muted">${tr.t('editor.input.valueHint', yesNoWords(tr))}</span></label><input id="${id}" name="value" type="text" maxlength="${maxTextLength}" value="${value}"></div>`;
}

/** A template's "Asked when used": whoever uses the template gives the value (a text or a checkbox). */
function askedInput(id: string, chosen: string, tr: Translator): SafeHtml {
  return html`<div class="field"><label for="${id}">${tr.t('editor.input.asked')} <span class="muted">${tr.t('editor.input.askedHint')}</span></label><select id="${id}" name="senderFills">${options(['no', 'yes'], chosen, yesNo(tr))}</select></div>`;
}

/** The inputs of one field (the add form's and each field's form share them). */
function fieldInputs(
  view: FieldEditorView,
  prefix: string,
  values: Form,
  error: string | undefined,
  tr: Translator,
): SafeHtml {
  const value = (name: string, fallback: string) => formText(values, name) || fallback;
  const id = (name: string) => `${prefix}-${name}`;
  const pages = view.pages.map((p) => String(p.number));
  const signer = (value: string) => view.signers.find((s) => s.value === value)?.label ?? value;
  const template = view.subject.kind === 'template';
  const number = (name: 'x' | 'y' | 'width' | 'height', fallback: string) =>
    html`<div class="field field-number"><label for="${id(name)}">${tr.t(`editor.input.${name}`)}</label><input id="${id(name)}" name="${name}" type="number" step="any" min="0" required value="${value(name, fallback)}" data-coordinate="${name}" ${invalidAttrs(prefix, error)}></div>`;
  return html`<div class="field-grid">
<div class="field"><label for="${id('recipient')}">${tr.t(template ? 'editor.input.role' : 'editor.input.signer')}</label><select id="${id('recipient')}" name="recipient">${options(
    view.signers.map((s) => s.value),
    value('recipient', view.signers[0]?.value ?? ''),
    signer,
  )}</select></div>
<div class="field"><label for="${id('type')}">${tr.t('editor.input.type')}</label><select id="${id('type')}" name="type">${options(
    fieldTypes,
    value('type', 'signature'),
    (t) => typeName(t, tr),
  )}</select></div>
<div class="field field-number"><label for="${id('page')}">${tr.t('editor.input.page')}</label><select id="${id('page')}" name="page" data-coordinate="page">${options(pages, value('page', '1'), (p) => p)}</select></div>
${number('x', '72')}${number('y', '72')}${number('width', '180')}${number('height', '36')}
<div class="field"><label for="${id('required')}">${tr.t('editor.input.required')}</label><select id="${id('required')}" name="required">${options(['yes', 'no'], value('required', 'yes'), yesNo(tr))}</select></div>
<div class="field"><label for="${id('label')}">${tr.t('editor.input.label')} <span class="muted">${tr.t('form.optional')}</span></label><input id="${id('label')}" name="label" type="text" maxlength="${maxLabelLength}" value="${value('label', '')}"></div>
<div class="field field-number"><label for="${id('maxLength')}">${tr.t('editor.input.maxLength')} <span class="muted">${tr.t('editor.input.maxLengthHint')}</span></label><input id="${id('maxLength')}" name="maxLength" type="number" min="1" max="${maxTextLength}" value="${value('maxLength', '')}"></div>
${template ? askedInput(id('senderFills'), value('senderFills', 'no'), tr) : valueInput(id('value'), value('value', ''), tr)}
</div>
${fieldError(prefix, error)}`;
}

function addForm(view: FieldEditorView, csrf: string, tr: Translator): SafeHtml {
  const first = view.pages[0];
  const positions = first
    ? tr.t('editor.add.positionsSized', {
        width: Number(round(first.width)),
        height: Number(round(first.height)),
      })
    : tr.t('editor.add.positions');
  return html`<section class="card" aria-labelledby="add-title">
<h2 id="add-title">${tr.t('editor.add.title')}</h2>
<p class="small muted">${positions} ${tr.t('editor.add.draw', { kind: view.subject.kind })}</p>
<form method="post" action="${view.subject.base}/fields" id="add-field" data-add-field>
${csrfField(csrf)}<input type="hidden" name="back" value="">
${fieldInputs(view, 'add', view.add, view.errors.add, tr)}
<div class="actions"><button class="button button-primary" type="submit">${tr.t('editor.add.submit')}</button></div>
</form>
</section>`;
}

function fieldItem(view: FieldEditorView, field: EditorField, csrf: string, tr: Translator): SafeHtml {
  const values: Form = {
    recipient: field.recipient,
    type: field.type,
    page: String(field.page),
    x: round(field.x),
    y: round(field.y),
    width: round(field.width),
    height: round(field.height),
    required: field.required ? 'yes' : 'no',
    label: field.label ?? '',
    maxLength: field.maxLength === null ? '' : String(field.maxLength),
    value: typeof field.value === 'boolean' ? yesNo(tr)(field.value ? 'yes' : 'no') : (field.value ?? ''),
    senderFills: field.senderFills ? 'yes' : 'no',
  };
  const name = nameOf(field, tr);
  const where = { name, page: field.page };
  const action = `${view.subject.base}/fields/${field.id}`;
  return html`<li class="field-item tone-${field.tone % 6}" id="field-${field.id}">
<form method="post" action="${action}" data-field-form="${field.id}" aria-label="${tr.t('editor.field.form', where)}">
${csrfField(csrf)}<input type="hidden" name="back" value="">
<h3 class="small">${name} <span class="muted">${richText(tr, 'editor.field.where', { page: field.page, recipient: html`<bdi>${field.recipient}</bdi>` })}</span></h3>
${fieldInputs(view, `f-${field.id}`, values, view.errors[field.id], tr)}
<div class="actions"><button class="button button-secondary button-small" type="submit">${tr.t('form.save')}</button></div>
</form>
<form method="post" action="${action}/delete" class="actions">${csrfField(csrf)}<button class="button button-danger button-small" type="submit" aria-label="${tr.t('editor.field.deleteLabel', where)}">${tr.t('editor.field.delete')}</button></form>
</li>`;
}

/** Pages drawn at once; the rest are asked for as they come near the screen. */
const eagerPages = 2;

/**
 * An image's width and height attributes in the page's proportions (the image is 1200 px
 * wide), so the page takes its place before its image arrives and nothing jumps.
 */
function imageSize(page: { width: number; height: number }): SafeHtml {
  const width = 1200;
  return html`width="${width}" height="${Math.max(1, Math.round((width * page.height) / page.width))}"`;
}

/**
 * The pages with the fields over them (the SVG is in the page's own points, y from the top).
 * A PDF's page has no reading direction: each tag starts at its box's left edge, in a page
 * that reads right to left too (`direction="ltr"`; the text itself is still set as it reads).
 */
function pagesSection(view: FieldEditorView, tr: Translator): SafeHtml {
  return html`<section class="card editor-pages-section" aria-labelledby="pages-title">
<h2 id="pages-title">${tr.t('editor.pages.title')}</h2>
<ol class="pages editor-pages">${view.pages.map((p) => {
    const caption = tr.t('editor.pages.page', { page: p.number, count: view.pages.length });
    return html`<li><figure><div class="page-frame" data-page="${p.number}" data-width="${p.width}" data-height="${p.height}">
<img src="${p.src}" alt="${caption}" draggable="false" ${imageSize(p)} loading="${p.number <= eagerPages ? 'eager' : 'lazy'}">
<svg class="field-layer" viewBox="0 0 ${p.width} ${p.height}" preserveAspectRatio="none" direction="ltr" aria-hidden="true" focusable="false" data-layer="${p.number}">${fieldShapes(view, p, tr)}</svg>
</div><figcaption class="small muted">${caption}</figcaption></figure></li>`;
  })}</ol>
</section>`;
}

/** The list of the fields with a form each (the script puts a new one in place of the old). */
export function fieldListSection(view: FieldEditorView, csrf: string, tr: Translator): SafeHtml {
  const count = view.fields.length;
  return html`<section class="card" aria-labelledby="list-title" data-field-list>
<h2 id="list-title">${tr.t('editor.list.title', { count })}</h2>
${count === 0 ? html`<p class="muted">${tr.t('editor.list.none')}</p>` : html`<ol class="field-list">${view.fields.map((f) => fieldItem(view, f, csrf, tr))}</ol>`}
</section>`;
}

/** The shapes of a page's fields, in the page's own points with y from the top. */
export function fieldShapes(
  view: FieldEditorView,
  page: { number: number; height: number },
  tr: Translator,
): SafeHtml {
  return html`${view.fields
    .filter((f) => f.page === page.number)
    .map(
      (f) =>
        html`<g class="field-shape tone-${f.tone % 6}" data-field="${f.id}"><rect class="field-box" x="${f.x}" y="${page.height - f.y - f.height}" width="${f.width}" height="${f.height}"></rect><text x="${f.x + 3}" y="${page.height - f.y - f.height + 11}" class="field-tag">${typeName(f.type, tr)}</text>${
          view.subject.editable
            ? html`<rect class="field-handle" x="${f.x + f.width - 7}" y="${page.height - f.y - 7}" width="7" height="7"></rect>`
            : null
        }</g>`,
    )}`;
}

export function fieldEditorView(
  view: FieldEditorView,
  csrf: string,
  message: SafeHtml | null,
  tr: Translator,
): SafeHtml {
  const { subject } = view;
  return html`<p><a href="${subject.base}">← ${subject.title}</a></p>
<h1>${tr.t('editor.heading')}</h1>
${message}
<p class="muted">${tr.t(subject.kind === 'template' ? 'editor.intro.template' : 'editor.intro.document', { asked: tr.t('editor.input.asked') })}</p>
<div class="field-editor" data-field-editor="${subject.editable ? 'on' : 'off'}">
<div class="editor-side">
${subject.editable ? addForm(view, csrf, tr) : html`<p class="notice notice-info" role="status">${tr.t('editor.sent')}</p>`}
${fieldListSection(view, csrf, tr)}
</div>
${pagesSection(view, tr)}
</div>`;
}
