// A catalogue's message with markup, as escaped HTML: `<b>…</b>` in a message is <strong>,
// a value may be markup of its own (a <time> element), and everything else (the message's
// words, the values given as text) is escaped, so a translation cannot inject markup.
import type { MessageKey, Translator } from '../i18n/messages.ts';
import { html, type SafeHtml } from './html.ts';

type Tag = (content: SafeHtml) => SafeHtml;

/** The tags a message may use, and what each becomes. */
const tags: Record<string, Tag> = {
  b: (content) => html`<strong>${content}</strong>`,
};

export function richText(
  tr: Translator,
  key: MessageKey,
  values: Record<string, string | number | SafeHtml> = {},
  /** Tags of this message only (`<link>…</link>`: an anchor whose address the page knows). */
  own: Record<string, Tag> = {},
): SafeHtml {
  const handlers = Object.fromEntries(
    Object.entries({ ...tags, ...own }).map(([name, tag]) => [
      name,
      (chunks: Array<string | SafeHtml>) => tag(html`${chunks}`),
    ]),
  );
  const parts = tr.rich<SafeHtml>(key, { ...(values as Record<string, string | number>), ...handlers });
  return html`${parts}`;
}
