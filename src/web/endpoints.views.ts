// The views of webhook endpoints: the integrations page's endpoints card, the pause
// banner (spec: shown when 20 consecutive failures paused an endpoint), the endpoint form,
// the hourly chart (inline SVG, drawn here: bars need no chart library), the delivery log.

import { type Translator, translator } from '../i18n/messages.ts';
import { csrfField, fieldError, invalidAttrs, notice } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { richText } from '../ui/rich-text.ts';
import type {
  DeliveryDetail,
  DeliveryView,
  HourlyAttempts,
  PingResult,
} from '../webhooks/deliveries.service.ts';
import {
  maxEndpointsPerWorkspace,
  subscribableEventTypes,
  type WebhookEndpoint,
} from '../webhooks/endpoints.service.ts';
import { failuresBeforePause } from '../webhooks/schedule.ts';
import { formatTime } from './layout.ts';

export type EndpointErrors = Partial<Record<'url' | 'events' | 'description' | 'form' | 'overlap', string>>;

/** How long the old secret may keep signing after a rotation: the form's choices (the API takes 0–168 hours). */
export const overlapChoices = [
  { hours: 0, label: 'Stop the old secret now' },
  { hours: 1, label: '1 hour' },
  { hours: 24, label: '24 hours' },
  { hours: 72, label: '3 days' },
  { hours: 168, label: '7 days' },
] as const;

export function stateBadge(endpoint: WebhookEndpoint): SafeHtml {
  if (endpoint.enabled) return html`<span class="badge badge-success">Enabled</span>`;
  return endpoint.disabledReason === 'failures'
    ? html`<span class="badge badge-danger">Paused</span>`
    : html`<span class="badge badge-neutral">Disabled</span>`;
}

/** The banner of an endpoint paused by failures (spec: shown in the web application). */
export function pauseBanner(
  endpoint: WebhookEndpoint,
  csrf: string,
  showLink: boolean,
  timeZone: string,
  /** The page's language: a banner on a page in the catalogues is in the member's. */
  tr: Translator = translator('en'),
): SafeHtml {
  if (endpoint.enabled || endpoint.disabledReason !== 'failures') return html``;
  const failures = failuresBeforePause;
  const off = endpoint.pausedAt
    ? tr.t('app.paused.since', { time: formatTime(endpoint.pausedAt, timeZone), failures })
    : tr.t('app.paused.off', { failures });
  return html`<div class="notice notice-error" role="alert">
<p><strong>${tr.t('app.paused.heading', { url: endpoint.url })}</strong> ${off}</p>
<p>${richText(tr, 'app.paused.missed', {}, { code: (content) => html`<code>${content}</code>` })}</p>
<form method="post" action="/settings/integrations/endpoints/${endpoint.id}/enabled" class="actions">${csrfField(csrf)}<input type="hidden" name="enabled" value="true"><button class="button button-primary button-small" type="submit">${tr.t('app.paused.enable')}</button>${showLink ? html`<a href="/settings/integrations/endpoints/${endpoint.id}">${tr.t('app.paused.deliveries')}</a>` : ''}</form>
</div>`;
}

export function endpointFields(
  values: { url: string; events: string[]; description: string },
  errors: EndpointErrors,
  idPrefix: string,
): SafeHtml {
  return html`<div class="field">
<label for="${idPrefix}-url">URL</label>
<span class="hint">A public https address on port 443.</span>
<input id="${idPrefix}-url" name="url" type="url" value="${values.url}" required ${invalidAttrs(`${idPrefix}-url`, errors.url)}>
${fieldError(`${idPrefix}-url`, errors.url)}
</div>
<fieldset class="field" ${invalidAttrs(`${idPrefix}-events`, errors.events)}>
<legend class="label">Events (1 to 5)</legend>
${subscribableEventTypes.map(
  (type) =>
    html`<label class="checkbox"><input type="checkbox" name="events" value="${type}"${values.events.includes(type) ? html` checked` : ''}> <code>${type}</code></label>`,
)}
${fieldError(`${idPrefix}-events`, errors.events)}
</fieldset>
<div class="field">
<label for="${idPrefix}-description">Description <span class="muted">(optional)</span></label>
<input id="${idPrefix}-description" name="description" type="text" maxlength="500" value="${values.description}" ${invalidAttrs(`${idPrefix}-description`, errors.description)}>
${fieldError(`${idPrefix}-description`, errors.description)}
</div>`;
}

/** The endpoints card of the integrations page. */
export function endpointsSection(
  endpoints: WebhookEndpoint[],
  csrf: string,
  form: { values: { url: string; events: string[]; description: string }; errors: EndpointErrors },
  timeZone: string,
): SafeHtml {
  return html`<section class="card" aria-labelledby="endpoints-title">
<div class="section-title"><h2 id="endpoints-title">Webhook endpoints</h2><span class="muted small">${endpoints.length} of ${maxEndpointsPerWorkspace}</span></div>
<p class="muted">Signet sends a signed POST to each endpoint when one of its events happens.</p>
${endpoints.map((e) => pauseBanner(e, csrf, true, timeZone))}
${
  endpoints.length
    ? html`<ul class="recipients">${endpoints.map(
        (e) =>
          html`<li><div><a class="recipient-name" href="/settings/integrations/endpoints/${e.id}">${e.url}</a><div class="small muted">${e.events.join(', ')}${e.description ? html` · ${e.description}` : ''}</div></div><div class="state">${stateBadge(e)}${e.failureCount ? html`<span>${e.failureCount} consecutive failures</span>` : ''}</div></li>`,
      )}</ul>`
    : html`<div class="empty"><p><strong>No webhook endpoints yet.</strong></p><p class="muted">Add one below to be told when documents are sent, opened, signed, completed or declined.</p></div>`
}
<form method="post" action="/settings/integrations/endpoints" novalidate>
${csrfField(csrf)}
<h3>Add an endpoint</h3>
${form.errors.form ? notice('error', form.errors.form) : ''}
${endpointFields(form.values, form.errors, 'new-endpoint')}
<div class="actions"><button class="button button-primary" type="submit">Add endpoint</button></div>
</form>
</section>`;
}

export function outcomeText(result: PingResult): string {
  if (result.ok) return `The ping was delivered: HTTP ${result.statusCode} in ${result.durationMs} ms.`;
  const status = result.statusCode ? ` (HTTP ${result.statusCode})` : '';
  return `The ping failed: ${result.errorClass}${status} after ${result.durationMs} ms${result.refusal ? `: ${result.refusal}` : ''}.`;
}

export function chart(hours: HourlyAttempts[]): SafeHtml {
  const max = Math.max(1, ...hours.map((h) => h.delivered + h.failed));
  const width = 24 * 20;
  const height = 120;
  const total = hours.reduce((sum, h) => ({ d: sum.d + h.delivered, f: sum.f + h.failed }), { d: 0, f: 0 });
  const bars = hours.map((h, i) => {
    const delivered = (h.delivered / max) * (height - 20);
    const failed = (h.failed / max) * (height - 20);
    const x = i * 20 + 3;
    return html`<g><title>${h.hour.slice(11, 16)} UTC: ${h.delivered} delivered, ${h.failed} failed</title>
<rect x="${x}" y="${height - delivered}" width="14" height="${delivered}" fill="#146c2e"></rect>
<rect x="${x}" y="${height - delivered - failed}" width="14" height="${failed}" fill="#b42318"></rect></g>`;
  });
  return html`<figure class="chart">
<svg viewBox="0 0 ${width} ${height}" width="100%" height="${height}" role="img" aria-labelledby="chart-caption" preserveAspectRatio="none">${bars}</svg>
<figcaption id="chart-caption" class="small muted">Attempts per hour over the last 24 hours: ${total.d} delivered (green), ${total.f} failed (red).</figcaption>
</figure>`;
}

export function deliveryState(d: DeliveryView, timeZone: string): SafeHtml {
  if (d.eventType === 'ping') {
    return html`<span class="badge ${d.status === 'delivered' ? 'badge-success' : 'badge-danger'}">ping ${d.status === 'delivered' ? 'delivered' : 'failed'}</span>`;
  }
  if (d.status === 'delivered') return html`<span class="badge badge-success">delivered</span>`;
  if (d.status === 'dropped') return html`<span class="badge badge-danger">dropped</span>`;
  return html`<span class="badge badge-pending">retrying</span>${d.nextAttemptAt ? html` <span class="small">next at ${formatTime(d.nextAttemptAt, timeZone)}</span>` : ''}`;
}

/** A dropped delivery (not a ping) can be sent again by hand (deliveries.service.ts: resendDelivery). */
function isResendable(d: DeliveryView): boolean {
  return d.status === 'dropped' && d.eventType !== 'ping';
}

/** The outcome of a resend, from the attempt it added: the delivery's last. */
function resendOutcome(detail: DeliveryDetail): SafeHtml {
  const attempt = detail.attemptLog.at(-1);
  if (!attempt) return html``;
  if (detail.status === 'delivered')
    return notice(
      'success',
      `Resent: delivered, HTTP ${attempt.statusCode} in ${attempt.durationMs} ms (attempt ${attempt.attempt}).`,
    );
  const status = attempt.statusCode ? ` (HTTP ${attempt.statusCode})` : '';
  return notice(
    'error',
    `Resent, and it failed again: ${attempt.errorClass}${status} after ${attempt.durationMs} ms (attempt ${attempt.attempt}). The delivery stays dropped.`,
  );
}

export function attemptLine(a: DeliveryView['attemptLog'][number], timeZone: string): SafeHtml {
  return html`<li>#${a.attempt} ${formatTime(a.startedAt, timeZone)}: <strong>${a.statusCode ?? a.errorClass}</strong> in ${a.durationMs} ms${a.responseBody ? html` <code class="small">${a.responseBody.slice(0, 120)}</code>` : ''}</li>`;
}

export function deliveryLog(
  endpointId: string,
  deliveries: DeliveryView[],
  nextCursor: string | null,
  cursor: string | null,
  timeZone: string,
) {
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Delivery log">
<table>
<thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">State</th><th scope="col">Attempts</th></tr></thead>
<tbody>
${deliveries.map(
  (d) => html`<tr>
<td><a href="/settings/integrations/endpoints/${endpointId}/deliveries/${d.id}">${formatTime(d.createdAt, timeZone)}</a></td>
<td><code>${d.eventType}</code><div class="small muted">event ${d.eventId}<br>delivery ${d.id}</div></td>
<td>${deliveryState(d, timeZone)}${isResendable(d) ? html`<div class="small"><a href="/settings/integrations/endpoints/${endpointId}/deliveries/${d.id}#resend">Resend…</a></div>` : ''}</td>
<td><ul class="plain small">${d.attemptLog.map((a) => attemptLine(a, timeZone))}</ul></td>
</tr>`,
)}
</tbody>
</table>
</div>
${deliveries.length === 0 ? html`<p class="muted">No deliveries yet. Press Test to send a ping.</p>` : ''}
<nav class="pager" aria-label="Delivery log pages">${cursor ? html`<a href="/settings/integrations/endpoints/${endpointId}#log">Newest</a>` : ''}${nextCursor ? html`<a href="/settings/integrations/endpoints/${endpointId}?cursor=${encodeURIComponent(nextCursor)}#log">Older deliveries</a>` : ''}</nav>`;
}

const savedNotices: Record<string, string> = {
  saved: 'Your changes were saved.',
  enabled: 'The endpoint is on again; its failure count is back to 0.',
  disabled: 'The endpoint is off: nothing is sent to it until you turn it back on.',
  rotated: 'The signing secret was rotated.',
};

export interface EndpointView {
  endpoint: WebhookEndpoint;
  log: { deliveries: DeliveryView[]; nextCursor: string | null };
  cursor: string | null;
  hours: HourlyAttempts[];
  values: { url: string; events: string[]; description: string };
  errors: EndpointErrors;
  ping?: PingResult | undefined;
  done?: string | undefined;
  /** The secret a rotation just made, shown on this answer only. */
  rotated?: string | undefined;
  now: Date;
  /** The workspace's time zone. */
  timeZone: string;
}

function endpointStatus({ endpoint, ping, done, timeZone }: EndpointView, csrf: string): SafeHtml {
  return html`<p><a href="/settings/integrations">← Integrations</a></p>
<h1 class="url-title">${endpoint.url}</h1>
${done && savedNotices[done] ? notice('success', savedNotices[done] as string) : ''}
${ping ? notice(ping.ok ? 'success' : 'error', outcomeText(ping)) : ''}
${pauseBanner(endpoint, csrf, false, timeZone)}
<div class="card">
<div class="section-title"><h2>Status</h2>${stateBadge(endpoint)}</div>
<p>${endpoint.failureCount} consecutive failures (the endpoint is paused at 20).</p>
<div class="actions">
<form method="post" action="/settings/integrations/endpoints/${endpoint.id}/test">${csrfField(csrf)}<button class="button button-secondary" type="submit">Test: send a ping</button></form>
<form method="post" action="/settings/integrations/endpoints/${endpoint.id}/enabled">${csrfField(csrf)}<input type="hidden" name="enabled" value="${endpoint.enabled ? 'false' : 'true'}"><button class="button ${endpoint.enabled ? 'button-secondary' : 'button-primary'}" type="submit">${endpoint.enabled ? 'Turn off' : 'Turn on'}</button></form>
</div>
</div>
`;
}

/** The signing secret: a rotated one shown once, the overlap in force, and the rotate form. */
function secretSection({ endpoint, rotated, errors, now, timeZone }: EndpointView, csrf: string): SafeHtml {
  const until = endpoint.previousSecretExpiresAt;
  const overlapping = until !== null && new Date(until).getTime() > now.getTime();
  return html`<section class="card" id="secret" aria-labelledby="secret-title">
<h2 id="secret-title">Signing secret</h2>
${
  rotated
    ? html`<div role="status">
<p><strong>Your new signing secret. Copy it now: it cannot be shown again.</strong></p>
<div class="secret"><code id="rotated-secret">${rotated}</code><button class="button button-secondary button-small" type="button" data-copy="rotated-secret">Copy</button></div>
</div>`
    : ''
}
${
  overlapping
    ? html`<p>Deliveries carry two signatures, one with the new secret and one with the previous, until <strong>${formatTime(until, timeZone)}</strong>. Put the new secret in your receiver before then.</p>`
    : html`<p>Every delivery is signed with this endpoint's secret, which was shown once. Lost it, or leaked it? Rotate it: a new secret is shown once, and the old one can keep working for a while, so your receiver misses nothing while you switch.</p>`
}
<form method="post" action="/settings/integrations/endpoints/${endpoint.id}/rotate" class="actions" novalidate>${csrfField(csrf)}
<label for="overlap">The old secret keeps working for</label>
<select id="overlap" name="overlap" ${invalidAttrs('overlap', errors.overlap)}>${overlapChoices.map((c) => html`<option value="${String(c.hours)}"${c.hours === 24 ? html` selected` : ''}>${c.label}</option>`)}</select>${fieldError('overlap', errors.overlap)}
<button class="button button-secondary" type="submit">Rotate secret</button>
</form>
${overlapping ? html`<p class="small muted">Rotating again now ends the current overlap at once: only the newest secret and the one before it ever sign.</p>` : ''}
</section>`;
}

/** An endpoint's page: status, Test and the switch, the hourly chart, the log, the secret, its settings. */
export function endpointView(view: EndpointView, csrf: string): SafeHtml {
  const { endpoint, log, cursor, hours, values, errors } = view;
  return html`${endpointStatus(view, csrf)}
<section class="card" id="log" aria-labelledby="log-title">
<h2 id="log-title">Deliveries</h2>
${chart(hours)}
${deliveryLog(endpoint.id, log.deliveries, log.nextCursor, cursor, view.timeZone)}
</section>
${secretSection(view, csrf)}
<section class="card" aria-labelledby="settings-title">
<h2 id="settings-title">Settings</h2>
<form method="post" action="/settings/integrations/endpoints/${endpoint.id}" novalidate>
${csrfField(csrf)}
${endpointFields(values, errors, 'endpoint')}
<div class="actions"><button class="button button-primary" type="submit">Save changes</button><a href="/settings/integrations/endpoints/${endpoint.id}/delete">Delete this endpoint</a></div>
</form>
</section>`;
}

export function deleteEndpointView(endpoint: WebhookEndpoint, csrf: string): SafeHtml {
  return html`<div class="card narrow">
<h1>Delete this endpoint?</h1>
<p><strong>${endpoint.url}</strong> stops receiving webhooks at once, and its delivery log is deleted with it. Its secret cannot be brought back: a new endpoint gets a new secret.</p>
<form method="post" action="/settings/integrations/endpoints/${endpoint.id}/delete">${csrfField(csrf)}
<div class="actions"><button class="button button-danger" type="submit">Delete endpoint</button><a href="/settings/integrations/endpoints/${endpoint.id}">Cancel</a></div></form>
</div>`;
}

function attemptSections(detail: DeliveryDetail, endpoint: WebhookEndpoint, timeZone: string): SafeHtml {
  return html`${detail.requests.map((r) => {
    const attempt = detail.attemptLog.find((a) => a.attempt === r.attempt);
    return html`<section class="card" aria-labelledby="attempt-${r.attempt}">
<h2 id="attempt-${r.attempt}">Attempt ${r.attempt}: ${attempt?.statusCode ?? attempt?.errorClass} in ${attempt?.durationMs} ms</h2>
<p class="small muted">POST ${endpoint.url} at ${attempt ? formatTime(attempt.startedAt, timeZone) : ''}${attempt?.address ? ` to ${attempt.address}` : ''}</p>
<pre class="shell">${Object.entries(r.headers).map(([name, value]) => `${name}: ${value}\n`)}</pre>
${r.signedBeforeRotation ? html`<p class="small muted">Its <code>x-service-signature</code> was made with a secret rotated since, so it cannot be shown again.</p>` : ''}
${attempt?.responseBody ? html`<h3>Response (first 4 KB)</h3><pre class="shell">${attempt.responseBody}</pre>` : ''}
</section>`;
  })}
`;
}

/** A delivery's page: the exact body and each attempt's request, rebuilt for checking by hand. */
export function deliveryView(
  detail: DeliveryDetail,
  endpoint: WebhookEndpoint,
  csrf: string,
  outcome: { resent: boolean; refusal?: string | undefined },
  timeZone: string,
): SafeHtml {
  return html`<p><a href="/settings/integrations/endpoints/${endpoint.id}#log">← ${endpoint.url}</a></p>
<h1>Delivery of <code>${detail.eventType}</code></h1>
${outcome.resent ? resendOutcome(detail) : ''}
${outcome.refusal ? notice('error', outcome.refusal) : ''}
<div class="card">
<dl class="meta">
<div><dt>Delivery id</dt><dd><code>${detail.id}</code></dd></div>
<div><dt>Event id</dt><dd><code>${detail.eventId}</code></dd></div>
<div><dt>Created</dt><dd>${formatTime(detail.createdAt, timeZone)}</dd></div>
<div><dt>State</dt><dd>${deliveryState(detail, timeZone)}</dd></div>
</dl>
${
  isResendable(detail) && detail.body !== null
    ? html`<form method="post" action="/settings/integrations/endpoints/${endpoint.id}/deliveries/${detail.id}/resend" class="actions" id="resend">${csrfField(csrf)}<button class="button button-secondary" type="submit">Resend now</button><span class="small muted">The same delivery id and body, signed anew, as attempt ${detail.attempts + 1}. It does not count toward pausing the endpoint.</span></form>`
    : ''
}
</div>
<section class="card" aria-labelledby="body-title">
<h2 id="body-title">Body</h2>
${detail.body === null ? html`<p class="muted">The body was pruned with the retention period.</p>` : html`<pre class="shell" id="delivery-body">${detail.body}</pre><button class="button button-secondary button-small" type="button" data-copy="delivery-body">Copy body</button>`}
</section>
${attemptSections(detail, endpoint, timeZone)}
<p class="small muted">To check a signature by hand: HMAC-SHA256 with the endpoint's secret over <code>&lt;t&gt;.&lt;body&gt;</code>, in hex, equals <code>v1</code>. See the API guide.</p>`;
}
