// The markup of Settings › Integrations: API keys (the new key's secret shown once), the
// webhook endpoints section, and the revoke confirmation.
import type { SessionUser } from '../accounts/accounts.service.ts';
import type { FieldErrors } from '../input-error.ts';
import { apiKeyScopeLabels, apiKeyScopeSentences, apiKeyScopes } from '../keys/api-key-scope.ts';
import { type ApiKey, type CreatedApiKey, maxActiveKeysPerWorkspace } from '../keys/keys.service.ts';
import { csrfField, type Form, fieldError, formList, formText, invalidAttrs, notice } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import type { WebhookEndpoint } from '../webhooks/endpoints.service.ts';
import { type EndpointErrors, endpointsSection } from './endpoints.views.ts';
import { formatTime } from './layout.ts';

function planNotice(member: SessionUser): SafeHtml {
  if (member.plan === 'max') return html``;
  return notice(
    'info',
    html`This workspace is on the Free plan: you can create keys now, but the API answers <code>403 plan-required</code> until the workspace is on Max. ${member.role === 'owner' ? html`<a href="/settings/billing">Switch to Max</a>` : 'An owner can switch it in Billing.'}`,
  );
}

function keysTable(keys: ApiKey[], timeZone: string): SafeHtml {
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="API keys">
<table>
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Access</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${keys.map(
  (key) => html`<tr>
<td>${key.name}</td>
<td><code>sgn_…${key.hint}</code></td>
<td>${apiKeyScopeLabels[key.scope]}</td>
<td>${formatTime(key.createdAt, timeZone)}</td>
<td>${key.lastUsedAt ? formatTime(key.lastUsedAt, timeZone) : html`<span class="muted">never</span>`}</td>
<td>${key.revokedAt ? html`<span class="badge badge-neutral">Revoked ${formatTime(key.revokedAt, timeZone)}</span>` : html`<span class="badge badge-success">Active</span>`}</td>
<td>${key.revokedAt ? '' : html`<a href="/settings/integrations/keys/${key.id}/revoke">Revoke<span class="visually-hidden"> ${key.name}</span></a>`}</td>
</tr>`,
)}
</tbody>
</table>
</div>`;
}

function curlLine(baseUrl: string, secret: string): SafeHtml {
  return html`<pre class="shell" id="curl-line">curl -H "Authorization: Bearer ${secret}" "${baseUrl}/v1/documents?limit=3"</pre>`;
}

export interface IntegrationsPageOptions {
  form?: Form;
  errors?: FieldErrors;
  created?: CreatedApiKey;
  done?: string;
  /** The add-endpoint form as posted, with what was wrong with it. */
  endpointForm?: { form: Form; errors: EndpointErrors };
  createdEndpoint?: WebhookEndpoint & { secret: string };
}

export interface IntegrationsView extends IntegrationsPageOptions {
  member: SessionUser;
  publicUrl: string;
  keys: ApiKey[];
  endpoints: WebhookEndpoint[];
}

const doneNotices: Record<string, string> = {
  revoked: 'The key was revoked. Requests with it are refused from now on.',
  'endpoint-deleted': 'The endpoint was deleted with its delivery log.',
  // Shown instead of the secret when the page is loaded again: it was shown once.
  'key-created':
    'The key was created. Its secret was shown once, when it was made, and cannot be shown again.',
  'endpoint-created':
    'The endpoint was created. Its signing secret was shown once, when it was made, and cannot be shown again.',
};

function formValues(form: Form | undefined) {
  return {
    url: formText(form, 'url'),
    events: formList(form, 'events'),
    description: formText(form, 'description'),
  };
}

/** The secrets a form just created: shown on this answer only. */
function newSecrets({ created, createdEndpoint, publicUrl }: IntegrationsView): SafeHtml {
  return html`${
    createdEndpoint
      ? html`<div class="card" role="status">
<h2>Your new endpoint's signing secret</h2>
<p>Webhooks to <strong>${createdEndpoint.url}</strong> are signed with this secret. <strong>Copy it now: it cannot be shown again.</strong> If you lose it, rotate it on the endpoint's page.</p>
<div class="secret"><code id="new-secret">${createdEndpoint.secret}</code><button class="button button-secondary button-small" type="button" data-copy="new-secret">Copy</button></div>
<p><a href="/settings/integrations/endpoints/${createdEndpoint.id}">Open the endpoint</a> to send a test ping.</p>
</div>`
      : ''
  }
${
  created
    ? html`<div class="card" role="status">
<h2>Your new API key “${created.name}”</h2>
<p><strong>Copy it now: it cannot be shown again.</strong> Signet keeps only a hash of it. If you lose it, revoke it and create another.</p>
<div class="secret"><code id="new-key">${created.secret}</code><button class="button button-secondary button-small" type="button" data-copy="new-key">Copy</button></div>
<p class="small muted">Try it:</p>
${curlLine(publicUrl, created.secret)}
</div>`
    : ''
}
`;
}

/** Owners choose what a new key may do; each choice says what it allows. */
function scopeChoice(form: Form | undefined, error: string | undefined): SafeHtml {
  const chosen = formText(form, 'scope') || 'read';
  return html`<fieldset class="field"${error ? html` aria-describedby="key-scope-error"` : ''}><legend class="label">Access</legend>
${apiKeyScopes.map(
  (scope) =>
    html`<label class="checkbox"><input type="radio" name="scope" value="${scope}"${scope === chosen ? html` checked` : ''}> <span><strong>${apiKeyScopeLabels[scope]}</strong>: <span class="muted">${apiKeyScopeSentences[scope]}</span></span></label>`,
)}
</fieldset>
${fieldError('key-scope', error)}`;
}

function keysSection(view: IntegrationsView, csrf: string): SafeHtml {
  const { keys, publicUrl, errors = {} } = view;
  const active = keys.filter((k) => !k.revokedAt).length;
  return html`<section class="card" aria-labelledby="keys-title">
<div class="section-title"><h2 id="keys-title">API keys</h2><span class="muted small">${active} of ${maxActiveKeysPerWorkspace} active</span></div>
${
  keys.length
    ? keysTable(keys, view.member.timeZone)
    : html`<div class="empty"><p><strong>No API keys yet.</strong></p><p class="muted">Create one below, then list your documents with:</p>${curlLine(publicUrl, 'sgn_…')}</div>`
}
<form method="post" action="/settings/integrations/keys" novalidate>
${csrfField(csrf)}
<h3>Create a key</h3>
${errors.form ? notice('error', errors.form) : ''}
<div class="field">
<label for="key-name">Name</label>
<span class="hint" id="key-name-hint">What uses it, for example “CRM sync”.</span>
<input id="key-name" name="name" type="text" maxlength="100" value="${formText(view.form, 'name')}" required ${invalidAttrs('key-name', errors.name)}>
${fieldError('key-name', errors.name)}
</div>
${view.member.role === 'owner' ? scopeChoice(view.form, errors.scope) : html`<p class="muted small">Keys you create read only. ${apiKeyScopeSentences.read} An owner can create a key that also writes.</p>${fieldError('key-scope', errors.scope)}`}
<div class="actions"><button class="button button-primary" type="submit">Create API key</button></div>
</form>
</section>
`;
}

export function integrationsView(view: IntegrationsView, csrf: string): SafeHtml {
  const { member, endpoints } = view;
  return html`<h1>Integrations</h1>
<p class="muted">API keys read every document of ${member.workspaceName} through the REST API at <code>${view.publicUrl}/v1</code>; a read-and-write key also creates and sends documents. Keep them on your servers: never in a browser app or a public repository.</p>
${planNotice(member)}
${view.done && doneNotices[view.done] && !view.created && !view.createdEndpoint ? notice('success', doneNotices[view.done] as string) : ''}
${newSecrets(view)}
${keysSection(view, csrf)}
${endpointsSection(
  endpoints,
  csrf,
  {
    values: formValues(view.endpointForm?.form),
    errors: view.endpointForm?.errors ?? {},
  },
  member.timeZone,
)}`;
}

export function revokeKeyView(key: ApiKey, csrf: string, timeZone: string): SafeHtml {
  return html`<div class="card narrow">
<h1>Revoke “${key.name}”?</h1>
${
  key.revokedAt
    ? html`<p>This key was revoked on ${formatTime(key.revokedAt, timeZone)}.</p><p><a href="/settings/integrations">Back to Integrations</a></p>`
    : html`<p>Requests with <code>sgn_…${key.hint}</code> are refused with <code>401 invalid-api-key</code> from the moment you confirm, in every Signet process. This cannot be undone.</p>
<form method="post" action="/settings/integrations/keys/${key.id}/revoke">
${csrfField(csrf)}
<div class="actions"><button class="button button-danger" type="submit">Revoke key</button><a href="/settings/integrations">Cancel</a></div>
</form>`
}
</div>`;
}
