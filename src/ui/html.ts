// A tiny, safe HTML templating helper for server-rendered pages. `html` is a tagged template
// that escapes every interpolated value unless it is already SafeHtml, so user input cannot
// become markup. SafeHtml can only be made by `html` or `raw` (the class is not exported as a
// value, and a plain object such as `{ __html: '<script>' }` from parsed JSON is not SafeHtml),
// so escaping cannot be skipped by accident. Interpolations are meant for element content and
// double-quoted attribute values; never interpolate into an unquoted attribute, a URL
// attribute that could take a `javascript:` URL, or inside <style>/<script>.

class SafeHtml {
  readonly #html: string;

  constructor(markup: string) {
    this.#html = markup;
  }

  get html(): string {
    return this.#html;
  }
}

export type { SafeHtml };

/** What may be interpolated: booleans, null and undefined render as nothing (so `${cond && html`…`}` works). */
export type HtmlValue =
  | SafeHtml
  | string
  | number
  | bigint
  | boolean
  | null
  | undefined
  | readonly HtmlValue[];

const entities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes `& < > " '`, safe for element content and quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => entities[c] ?? c);
}

function renderValue(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.html;
  if (value === null || value === undefined || typeof value === 'boolean') return '';
  if (Array.isArray(value)) return value.map((v: HtmlValue) => renderValue(v)).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    out += renderValue(values[i]) + (strings[i + 1] ?? '');
  }
  return new SafeHtml(out);
}

/** Marks a string as trusted markup, without escaping. Only for constant, trusted text such as CSS. */
export function raw(s: string): SafeHtml {
  return new SafeHtml(s);
}

export function renderToString(x: SafeHtml): string {
  return x.html;
}
