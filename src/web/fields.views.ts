// The field editor's markup (/documents/{id}/fields): the draft's pages with its fields
// drawn over them, a form to add a field, and one form per field to move, resize, retype,
// reassign or delete it. Every change is an ordinary form post, so the editor works with
// a keyboard alone and without JavaScript; /assets/field-editor.js adds drawing, dragging
// and resizing on the pages, which fill in the same forms and send them.
import { type FieldInput, maxLabelLength } from '../fields/field-rules.ts';
import { fieldTypeSpecs, fieldTypes, maxTextLength } from '../fields/field-types.ts';
import { csrfField, type Form, fieldError, formText, invalidAttrs } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';

/** A field as the sender describes it, with its id and its signer's colour. */
export type EditorField = FieldInput & {
  id: string;
  /** The recipient's place among the signers: their colour on the pages. */
  tone: number;
};

export interface FieldEditorView {
  document: { id: string; title: string; editable: boolean };
  /** The original's pages: their images and displayed sizes in points. */
  pages: Array<{ number: number; src: string; width: number; height: number }>;
  signers: Array<{ email: string; fullName: string }>;
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
  const signer = (email: string) => {
    const found = view.signers.find((s) => s.email === email);
    return found ? `${found.fullName} <${found.email}>` : email;
  };
  const number = (name: string, label: string, fallback: string) =>
    html`<div class="field field-number"><label for="${id(name)}">${label}</label><input id="${id(name)}" name="${name}" type="number" step="any" min="0" required value="${value(name, fallback)}" data-coordinate="${name}" ${invalidAttrs(prefix, error)}></div>`;
  return html`<div class="field-grid">
<div class="field"><label for="${id('recipient')}">Signer</label><select id="${id('recipient')}" name="recipient">${options(
    view.signers.map((s) => s.email),
    value('recipient', view.signers[0]?.email ?? ''),
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
<div class="field"><label for="${id('value')}">Filled in by you <span class="muted">(a text’s text, a checkbox’s yes or no; empty: filled in at signing)</span></label><input id="${id('value')}" name="value" type="text" maxlength="${maxTextLength}" value="${value('value', '')}"></div>
</div>
${fieldError(prefix, error)}`;
}

function addForm(view: FieldEditorView, csrf: string): SafeHtml {
  const first = view.pages[0];
  return html`<section class="card" aria-labelledby="add-title">
<h2 id="add-title">Add a field</h2>
<p class="small muted">Positions are in points (1/72 inch) from the bottom-left corner of the page as it is shown${first ? html`; page 1 is ${round(first.width)} × ${round(first.height)} points` : null}. With a mouse, finger or pen you can also draw a field on a page below: it gets the signer and type chosen here.</p>
<form method="post" action="/documents/${view.document.id}/fields" id="add-field" data-add-field>
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
  };
  const name = `${fieldTypeSpecs[field.type].label}${field.label ? ` “${field.label}”` : ''}`;
  const action = `/documents/${view.document.id}/fields/${field.id}`;
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
          view.document.editable
            ? html`<rect class="field-handle" x="${f.x + f.width - 7}" y="${page.height - f.y - 7}" width="7" height="7"></rect>`
            : null
        }</g>`,
    )}`;
}

export function fieldEditorView(view: FieldEditorView, csrf: string, message: SafeHtml | null): SafeHtml {
  return html`<p><a href="/documents/${view.document.id}">← ${view.document.title}</a></p>
<h1>Fields</h1>
${message}
<p class="muted">Place the fields each signer fills: they are led from one to the next when they sign, and the signed PDF shows every value where you placed it. A document without fields gets its signatures on the certificate of completion.</p>
<div class="field-editor" data-field-editor="${view.document.editable ? 'on' : 'off'}">
<div class="editor-side">
${view.document.editable ? addForm(view, csrf) : html`<p class="notice notice-info" role="status">This document has been sent: its fields can no longer change.</p>`}
${fieldListSection(view, csrf)}
</div>
${pagesSection(view)}
</div>`;
}
