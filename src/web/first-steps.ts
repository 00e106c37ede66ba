// The first-steps panel on Documents: what a new workspace does first (upload a PDF, place
// fields, send). It shows while the workspace has no document at all, whatever the list's
// filters, and goes away by itself with the first draft: nothing to dismiss or remember.
import { workspaceNeedsFirstSteps } from '../accounts/accounts.service.ts';
import type { Context } from '../context.ts';
import { html, type SafeHtml } from '../ui/html.ts';

export const firstStepsView = html`<section class="card first-steps" aria-labelledby="first-steps-title">
<h2 id="first-steps-title">Your first document in three steps</h2>
<ol>
<li><a href="/documents/new"><strong>Upload a PDF</strong></a> and add who signs it, in order, and who only gets a copy.</li>
<li><strong>Place fields</strong> on its pages: a signature, a date or initials for each signer (their signature goes on the certificate otherwise).</li>
<li><strong>Send</strong> it: each signer gets a mail with their own link, and you get the sealed PDF when all have signed.</li>
</ol>
<p class="muted small">Sending from your own software instead? Make an API key under <a href="/settings/integrations">Integrations</a>.</p>
</section>`;

/** The panel for this workspace: shown until its first document exists. */
export async function firstStepsPanel(ctx: Context, workspaceId: string): Promise<SafeHtml | ''> {
  return (await workspaceNeedsFirstSteps(ctx, workspaceId)) ? firstStepsView : '';
}
