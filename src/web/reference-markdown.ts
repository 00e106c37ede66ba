// Markdown of the contract's descriptions, for /docs. The descriptions are ours, but the page
// keeps the discipline of ui/html.ts all the same: raw HTML in the source is shown as text,
// never passed through; a link keeps its href only when it is http(s), a path or a fragment
// (no `javascript:` or `data:`); images are shown as their text. marked escapes the text it
// writes; its output is the only markup this module marks as safe.
import { Marked, type Tokens } from 'marked';
import { escapeHtml, raw, type SafeHtml } from '../ui/html.ts';

const safeHref = /^(?:https?:\/\/|\/(?!\/)|#)/i;

const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text);
    },
    link({ href, title, tokens }: Tokens.Link) {
      const text = this.parser.parseInline(tokens);
      if (!safeHref.test(href)) return text;
      return `<a href="${escapeHtml(href)}"${title ? ` title="${escapeHtml(title)}"` : ''}>${text}</a>`;
    },
    image({ text }: Tokens.Image) {
      return escapeHtml(text);
    },
  },
});

/** Block Markdown (paragraphs, lists, emphasis, code) as HTML. */
export function markdown(text: string): SafeHtml {
  return raw(marked.parse(text, { async: false }));
}

/** Inline Markdown only (emphasis, code, links), for a description within a line or a table cell. */
export function markdownInline(text: string): SafeHtml {
  return raw(marked.parseInline(text, { async: false }));
}
