// The markup of Settings › Integrations, in the member's language: API keys (the new key's
// secret shown once), the webhook endpoints section, and the revoke confirmation.
import type { SessionUser } from '../accounts/accounts.service.ts';
import type { MessageKey, Translator } from '../i18n/messages.ts';
import type { FieldErrors } from '../input-error.ts';
import { type ApiKeyScope, apiKeyScopes } from '../keys/api-key-scope.ts';
import { type ApiKey, type CreatedApiKey, maxActiveKeysPerWorkspace } from '../keys/keys.service.ts';
import { csrfField, type Form, fieldError, formList, formText, invalidAttrs, notice } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { richText } from '../ui/rich-text.ts';
import type { WebhookEndpoint } from '../webhooks/endpoints.service.ts';
import { type EndpointErrors, endpointsSection, timeElement } from './endpoints.views.ts';

const code = (content: SafeHtml) => html`<code>${content}</code>`;

/** What each scope is called, and what it allows. */
const scopeWords: Record<ApiKeyScope, { label: MessageKey; sentence: MessageKey }> = {
  read: { label: 'integrations.scope.read', sentence: 'integrations.scope.readSentence' },
  write: { label: 'integrations.scope.write', sentence: 'integrations.scope.writeSentence' },
};

function planNotice(member: SessionUser, tr: Translator): SafeHtml {
  if (member.plan === 'max') return html``;
  const next =
    member.role === 'owner'
      ? html`<a href="/settings/billing">${tr.t('integrations.plan.switch')}</a>`
      : tr.t('integrations.plan.askOwner');
  return notice('info', html`${richText(tr, 'integrations.plan.free', {}, { code })} ${next}`);
}

function keysTable(keys: ApiKey[], timeZone: string, tr: Translator): SafeHtml {
  const hidden = (content: SafeHtml) => html`<span class="visually-hidden">${content}</span>`;
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="${tr.t('integrations.keys.heading')}">
<table>
<thead><tr><th scope="col">${tr.t('integrations.keys.name')}</th><th scope="col">${tr.t('integrations.keys.key')}</th><th scope="col">${tr.t('integrations.keys.access')}</th><th scope="col">${tr.t('integrations.keys.created')}</th><th scope="col">${tr.t('integrations.keys.lastUsed')}</th><th scope="col">${tr.t('integrations.keys.status')}</th><th scope="col"><span class="visually-hidden">${tr.t('integrations.keys.actions')}</span></th></tr></thead>
<tbody>
${keys.map(
  (key) => html`<tr>
<td>${key.name}</td>
<td><code>sgn_…${key.hint}</code></td>
<td>${tr.t(scopeWords[key.scope].label)}</td>
<td>${timeElement(key.createdAt, timeZone)}</td>
<td>${key.lastUsedAt ? timeElement(key.lastUsedAt, timeZone) : html`<span class="muted">${tr.t('integrations.keys.never')}</span>`}</td>
<td>${key.revokedAt ? html`<span class="badge badge-neutral">${richText(tr, 'integrations.keys.revokedAt', { time: timeElement(key.revokedAt, timeZone) })}</span>` : html`<span class="badge badge-success">${tr.t('integrations.keys.active')}</span>`}</td>
<td>${key.revokedAt ? '' : html`<a href="/settings/integrations/keys/${key.id}/revoke">${richText(tr, 'integrations.keys.revoke', { name: key.name }, { hidden })}</a>`}</td>
</tr>`,
)}
</tbody>
</table>
</div>`;
}

function curlLine(baseUrl: string, secret: string): SafeHtml {
  return html`<pre class="shell" id="curl-line" dir="ltr">curl -H "Authorization: Bearer ${secret}" "${baseUrl}/v1/documents?limit=3"</pre>`;
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

const doneNotices: Record<string, MessageKey> = {
  revoked: 'integrations.done.revoked',
  'endpoint-deleted': 'endpoints.done.deleted',
  // Shown instead of the secret when the page is loaded again: it was shown once.
  'key-created': 'integrations.done.keyCreated',
  'endpoint-created': 'endpoints.done.created',
};

function formValues(form: Form | undefined) {
  return {
    url: formText(form, 'url'),
    events: formList(form, 'events'),
    description: formText(form, 'description'),
  };
}

/** The secrets a form just created: shown on this answer only. */
function newSecrets({ created, createdEndpoint, publicUrl }: IntegrationsView, tr: Translator): SafeHtml {
  const open = (id: string) => (content: SafeHtml) =>
    html`<a href="/settings/integrations/endpoints/${id}">${content}</a>`;
  return html`${
    createdEndpoint
      ? html`<div class="card" role="status">
<h2>${tr.t('endpoints.new.heading')}</h2>
<p>${richText(tr, 'endpoints.new.intro', { url: createdEndpoint.url })}</p>
<div class="secret"><code id="new-secret">${createdEndpoint.secret}</code><button class="button button-secondary button-small" type="button" data-copy="new-secret">${tr.t('integrations.copy')}</button></div>
<p>${richText(tr, 'endpoints.new.open', {}, { open: open(createdEndpoint.id) })}</p>
</div>`
      : ''
  }
${
  created
    ? html`<div class="card" role="status">
<h2>${tr.t('integrations.new.heading', { name: created.name })}</h2>
<p>${richText(tr, 'integrations.new.intro')}</p>
<div class="secret"><code id="new-key">${created.secret}</code><button class="button button-secondary button-small" type="button" data-copy="new-key">${tr.t('integrations.copy')}</button></div>
<p class="small muted">${tr.t('integrations.new.try')}</p>
${curlLine(publicUrl, created.secret)}
</div>`
    : ''
}
`;
}

/** Owners choose what a new key may do; each choice says what it allows. */
function scopeChoice(form: Form | undefined, error: string | undefined, tr: Translator): SafeHtml {
  const chosen = formText(form, 'scope') || 'read';
  return html`<fieldset class="field"${error ? html` aria-describedby="key-scope-error"` : ''}><legend class="label">${tr.t('integrations.keys.access')}</legend>
${apiKeyScopes.map(
  (scope) =>
    html`<label class="checkbox"><input type="radio" name="scope" value="${scope}"${scope === chosen ? html` checked` : ''}> <span><strong>${tr.t(scopeWords[scope].label)}</strong>: <span class="muted">${tr.t(scopeWords[scope].sentence)}</span></span></label>`,
)}
</fieldset>
${fieldError('key-scope', error)}`;
}

function keysSection(view: IntegrationsView, csrf: string, tr: Translator): SafeHtml {
  const { keys, publicUrl, errors = {} } = view;
  const active = keys.filter((k) => !k.revokedAt).length;
  return html`<section class="card" aria-labelledby="keys-title">
<div class="section-title"><h2 id="keys-title">${tr.t('integrations.keys.heading')}</h2><span class="muted small">${tr.t('integrations.keys.count', { active, max: maxActiveKeysPerWorkspace })}</span></div>
${
  keys.length
    ? keysTable(keys, view.member.timeZone, tr)
    : html`<div class="empty"><p><strong>${tr.t('integrations.keys.none')}</strong></p><p class="muted">${tr.t('integrations.keys.noneHint')}</p>${curlLine(publicUrl, 'sgn_…')}</div>`
}
<form method="post" action="/settings/integrations/keys" novalidate>
${csrfField(csrf)}
<h3>${tr.t('integrations.create.heading')}</h3>
${errors.form ? notice('error', errors.form) : ''}
<div class="field">
<label for="key-name">${tr.t('integrations.keys.name')}</label>
<span class="hint" id="key-name-hint">${tr.t('integrations.create.hint')}</span>
<input id="key-name" name="name" type="text" maxlength="100" value="${formText(view.form, 'name')}" required ${invalidAttrs('key-name', errors.name)}>
${fieldError('key-name', errors.name)}
</div>
${view.member.role === 'owner' ? scopeChoice(view.form, errors.scope, tr) : html`<p class="muted small">${tr.t('integrations.create.memberScope')}</p>${fieldError('key-scope', errors.scope)}`}
<div class="actions"><button class="button button-primary" type="submit">${tr.t('integrations.create.submit')}</button></div>
</form>
</section>
`;
}

export function integrationsView(view: IntegrationsView, csrf: string, tr: Translator): SafeHtml {
  const { member, endpoints } = view;
  const done = view.done ? doneNotices[view.done] : undefined;
  return html`<h1>${tr.t('app.nav.integrations')}</h1>
<p class="muted">${richText(tr, 'integrations.intro', { workspace: member.workspaceName, url: `${view.publicUrl}/v1` }, { code })}</p>
${planNotice(member, tr)}
${done && !view.created && !view.createdEndpoint ? notice('success', tr.t(done)) : ''}
${newSecrets(view, tr)}
${keysSection(view, csrf, tr)}
${endpointsSection(
  endpoints,
  csrf,
  {
    values: formValues(view.endpointForm?.form),
    errors: view.endpointForm?.errors ?? {},
  },
  member.timeZone,
  tr,
)}`;
}

export function revokeKeyView(key: ApiKey, csrf: string, timeZone: string, tr: Translator): SafeHtml {
  return html`<div class="card narrow">
<h1>${tr.t('integrations.revoke.heading', { name: key.name })}</h1>
${
  key.revokedAt
    ? html`<p>${richText(tr, 'integrations.revoke.already', { time: timeElement(key.revokedAt, timeZone) })}</p><p><a href="/settings/integrations">${tr.t('integrations.revoke.back')}</a></p>`
    : html`<p>${richText(tr, 'integrations.revoke.explain', { hint: `sgn_…${key.hint}` }, { code })}</p>
<form method="post" action="/settings/integrations/keys/${key.id}/revoke">
${csrfField(csrf)}
<div class="actions"><button class="button button-danger" type="submit">${tr.t('integrations.revoke.submit')}</button><a href="/settings/integrations">${tr.t('doc.confirm.cancel')}</a></div>
</form>`
}
</div>`;
}
