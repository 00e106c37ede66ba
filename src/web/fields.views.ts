// The field editor's markup (/documents/{id}/fields, and a template's /templates/{id}/fields):
// the pages with their fields drawn over them, a form to add a field, and one form per field
// to move, resize, retype, reassign or delete it. Every change is an ordinary form post, so
// the editor works with a keyboard alone and without JavaScript; /assets/field-editor.js adds
// drawing, dragging and resizing on the pages, which fill in the same forms and send them.
// A draft's fields go to its signers (by email) and may hold a value its sender fills in; a
// template's go to its signing roles (by name) and may be marked as asked of whoever uses it.
import { type FieldInput, maxLabelLength } from '../fields/field-rules.ts';
import { fieldTypeSpecs, fieldTypes, maxTextLength } from '../fields/field-types.ts';
import { csrfField, type Form, fieldError, formText, invalidAttrs } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';

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

function options<T extends string>(
  values: readonly T[],
  chosen: string,
  label: (value: T) => string,
): SafeHtml {
  return html`${values.map((v) => html`<option value="${v}"${v === chosen ? html` selected` : null}>${label(v)}</option>`)}`;
}

/** A draft's "Filled in by you": the value its sender gives the field, or nothing. */
function valueInput(id: string, value: string): SafeHtml {
  return html`<div class="field"><label for="${id}">Filled in by you <span class="muted">(a text’s text, a checkbox’s yes or no; empty: filled in at signing)</span></label><input id="${id}" name="value" type="text" maxlength="${maxTextLength}" value="${value}"></div>`;
}

/** A template's "Asked when used": whoever uses the template gives the value (a text or a checkbox). */
function askedInput(id: string, chosen: string): SafeHtml {
  return html`<div class="field"><label for="${id}">Asked when used <span class="muted">(text, checkbox)</span></label><select id="${id}" name="senderFills">${options(['no', 'yes'], chosen, (v) => v)}</select></div>`;
}

/** The inputs of one field (the add form's and each field's form share them). */
function fieldInputs(
  view: FieldEditorView,
  prefix: string,
  values: Form,
  error: string | undefined,
): SafeHtml {
  const value = (name: string, fallback: string) => formText(values, name) || fallback;
  const id = (name: string) => `${prefix}-${name}`;
  const pages = view.pages.map((p) => String(p.number));
  const signer = (value: string) => view.signers.find((s) => s.value === value)?.label ?? value;
  const template = view.subject.kind === 'template';
  const number = (name: string, label: string, fallback: string) =>
    html`<div class="field field-number"><label for="${id(name)}">${label}</label><input id="${id(name)}" name="${name}" type="number" step="any" min="0" required value="${value(name, fallback)}" data-coordinate="${name}" ${invalidAttrs(prefix, error)}></div>`;
  return html`<div class="field-grid">
<div class="field"><label for="${id('recipient')}">${template ? 'Role' : 'Signer'}</label><select id="${id('recipient')}" name="recipient">${options(
    view.signers.map((s) => s.value),
    value('recipient', view.signers[0]?.value ?? ''),
    signer,
  )}</select></div>
<div class="field"><label for="${id('type')}">Type</label><select id="${id('type')}" name="type">${options(
    fieldTypes,
    value('type', 'signature'),
    (t) => fieldTypeSpecs[t].label,
  )}</select></div>
<div class="field field-number"><label for="${id('page')}">Page</label><select id="${id('page')}" name="page" data-coordinate="page">${options(pages, value('page', '1'), (p) => p)}</select></div>
${number('x', 'x (pt)', '72')}${number('y', 'y (pt)', '72')}${number('width', 'Width (pt)', '180')}${number('height', 'Height (pt)', '36')}
<div class="field"><label for="${id('required')}">Required</label><select id="${id('required')}" name="required">${options(['yes', 'no'], value('required', 'yes'), (r) => r)}</select></div>
<div class="field"><label for="${id('label')}">Label <span class="muted">(optional)</span></label><input id="${id('label')}" name="label" type="text" maxlength="${maxLabelLength}" value="${value('label', '')}"></div>
<div class="field field-number"><label for="${id('maxLength')}">Max length <span class="muted">(text)</span></label><input id="${id('maxLength')}" name="maxLength" type="number" min="1" max="${maxTextLength}" value="${value('maxLength', '')}"></div>
${template ? askedInput(id('senderFills'), value('senderFills', 'no')) : valueInput(id('value'), value('value', ''))}
</div>
${fieldError(prefix, error)}`;
}

function addForm(view: FieldEditorView, csrf: string): SafeHtml {
  const first = view.pages[0];
  return html`<section class="card" aria-labelledby="add-title">
<h2 id="add-title">Add a field</h2>
<p class="small muted">Positions are in points (1/72 inch) from the bottom-left corner of the page as it is shown${first ? html`; page 1 is ${round(first.width)} × ${round(first.height)} points` : null}. With a mouse, finger or pen you can also draw a field on a page below: it gets the ${view.subject.kind === 'template' ? 'role' : 'signer'} and type chosen here.</p>
<form method="post" action="${view.subject.base}/fields" id="add-field" data-add-field>
${csrfField(csrf)}<input type="hidden" name="back" value="">
${fieldInputs(view, 'add', view.add, view.errors.add)}
<div class="actions"><button class="button button-primary" type="submit">Add field</button></div>
</form>
</section>`;
}

function fieldItem(view: FieldEditorView, field: EditorField, csrf: string): SafeHtml {
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
    value: typeof field.value === 'boolean' ? (field.value ? 'yes' : 'no') : (field.value ?? ''),
    senderFills: field.senderFills ? 'yes' : 'no',
  };
  const name = `${fieldTypeSpecs[field.type].label}${field.label ? ` “${field.label}”` : ''}`;
  const action = `${view.subject.base}/fields/${field.id}`;
  return html`<li class="field-item tone-${field.tone % 6}" id="field-${field.id}">
<form method="post" action="${action}" data-field-form="${field.id}" aria-label="${name}, page ${field.page}">
${csrfField(csrf)}<input type="hidden" name="back" value="">
<h3 class="small">${name} <span class="muted">· page ${field.page} · ${field.recipient}</span></h3>
${fieldInputs(view, `f-${field.id}`, values, view.errors[field.id])}
<div class="actions"><button class="button button-secondary button-small" type="submit">Save</button></div>
</form>
<form method="post" action="${action}/delete" class="actions">${csrfField(csrf)}<button class="button button-danger button-small" type="submit" aria-label="Delete ${name} on page ${field.page}">Delete</button></form>
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

/** The pages with the fields over them (the SVG is in the page's own points, y from the top). */
function pagesSection(view: FieldEditorView): SafeHtml {
  return html`<section class="card editor-pages-section" aria-labelledby="pages-title">
<h2 id="pages-title">Pages</h2>
<ol class="pages editor-pages">${view.pages.map(
    (
      p,
    ) => html`<li><figure><div class="page-frame" data-page="${p.number}" data-width="${p.width}" data-height="${p.height}">
<img src="${p.src}" alt="Page ${p.number} of ${view.pages.length}" draggable="false" ${imageSize(p)} loading="${p.number <= eagerPages ? 'eager' : 'lazy'}">
<svg class="field-layer" viewBox="0 0 ${p.width} ${p.height}" preserveAspectRatio="none" aria-hidden="true" focusable="false" data-layer="${p.number}">${fieldShapes(view, p)}</svg>
</div><figcaption class="small muted">Page ${p.number} of ${view.pages.length}</figcaption></figure></li>`,
  )}</ol>
</section>`;
}

/** The list of the fields with a form each (the script puts a new one in place of the old). */
export function fieldListSection(view: FieldEditorView, csrf: string): SafeHtml {
  const count = view.fields.length;
  return html`<section class="card" aria-labelledby="list-title" data-field-list>
<h2 id="list-title">${count} ${count === 1 ? 'field' : 'fields'}</h2>
${count === 0 ? html`<p class="muted">No fields yet.</p>` : html`<ol class="field-list">${view.fields.map((f) => fieldItem(view, f, csrf))}</ol>`}
</section>`;
}

/** The shapes of a page's fields, in the page's own points with y from the top. */
export function fieldShapes(view: FieldEditorView, page: { number: number; height: number }): SafeHtml {
  return html`${view.fields
    .filter((f) => f.page === page.number)
    .map(
      (f) =>
        html`<g class="field-shape tone-${f.tone % 6}" data-field="${f.id}"><rect class="field-box" x="${f.x}" y="${page.height - f.y - f.height}" width="${f.width}" height="${f.height}"></rect><text x="${f.x + 3}" y="${page.height - f.y - f.height + 11}" class="field-tag">${fieldTypeSpecs[f.type].label}</text>${
          view.subject.editable
            ? html`<rect class="field-handle" x="${f.x + f.width - 7}" y="${page.height - f.y - 7}" width="7" height="7"></rect>`
            : null
        }</g>`,
    )}`;
}

/** The sentence above the editor: what the fields do, for a draft or a template. */
function introOf(subject: EditorSubject): string {
  if (subject.kind === 'template')
    return 'Place the fields of each signing role: every document made from the template gets them at these places, for the people named when it is used. A text or checkbox field marked “Asked when used” is filled in by whoever uses the template (give it a label: it names the question).';
  return 'Place the fields each signer fills: they are led from one to the next when they sign, and the signed PDF shows every value where you placed it. A document without fields gets its signatures on the certificate of completion.';
}

export function fieldEditorView(view: FieldEditorView, csrf: string, message: SafeHtml | null): SafeHtml {
  const { subject } = view;
  return html`<p><a href="${subject.base}">← ${subject.title}</a></p>
<h1>Fields</h1>
${message}
<p class="muted">${introOf(subject)}</p>
<div class="field-editor" data-field-editor="${subject.editable ? 'on' : 'off'}">
<div class="editor-side">
${subject.editable ? addForm(view, csrf) : html`<p class="notice notice-info" role="status">This document has been sent: its fields can no longer change.</p>`}
${fieldListSection(view, csrf)}
</div>
${pagesSection(view)}
</div>`;
}
