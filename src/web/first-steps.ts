// The first-steps panel on Documents: what a new workspace does first (upload a PDF, place
// fields, send). It shows while the workspace has no document at all, whatever the list's
// filters, and goes away by itself with the first draft: nothing to dismiss or remember.
import { workspaceNeedsFirstSteps } from '../accounts/accounts.service.ts';
import type { Context } from '../context.ts';
import type { Translator } from '../i18n/messages.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { richText } from '../ui/rich-text.ts';

const steps = {
  upload: (content: SafeHtml) => html`<a href="/documents/new"><strong>${content}</strong></a>`,
  integrations: (content: SafeHtml) => html`<a href="/settings/integrations">${content}</a>`,
};

/** The panel in the member's language. */
export function firstStepsView(tr: Translator): SafeHtml {
  return html`<section class="card first-steps" aria-labelledby="first-steps-title">
<h2 id="first-steps-title">${tr.t('docs.firstSteps.heading')}</h2>
<ol>
<li>${richText(tr, 'docs.firstSteps.upload', {}, steps)}</li>
<li>${richText(tr, 'docs.firstSteps.fields')}</li>
<li>${richText(tr, 'docs.firstSteps.send')}</li>
</ol>
<p class="muted small">${richText(tr, 'docs.firstSteps.api', {}, steps)}</p>
</section>`;
}

/** The panel for this workspace (shown until its first document exists), or null. */
export async function firstStepsPanel(
  ctx: Context,
  workspaceId: string,
): Promise<((tr: Translator) => SafeHtml) | null> {
  return (await workspaceNeedsFirstSteps(ctx, workspaceId)) ? firstStepsView : null;
}
