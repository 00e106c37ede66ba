// The views of webhook endpoints, in the member's language: the integrations page's endpoints
// card, the pause banner (spec: shown when 20 consecutive failures paused an endpoint), the
// endpoint form, the hourly chart (inline SVG, drawn here: bars need no chart library), the
// delivery log. What the delivery worker wrote of an attempt (a destination rule's refusal,
// in English) and what a receiver answered are data: shown as they are, the worker's marked
// `lang="en"`; an attempt's error class (`timeout`, `http-status`) is the API's code.

import { type MessageKey, type Translator, translator } from '../i18n/messages.ts';
import { csrfField, fieldError, invalidAttrs, notice } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { richText } from '../ui/rich-text.ts';
import type {
  DeliveryAttemptView,
  DeliveryDetail,
  DeliveryView,
  HourlyAttempts,
  PingResult,
} from '../webhooks/deliveries.service.ts';
import {
  maxEndpointsPerWorkspace,
  maxEventsPerEndpoint,
  subscribableEventTypes,
  type WebhookEndpoint,
} from '../webhooks/endpoints.service.ts';
import { failuresBeforePause } from '../webhooks/schedule.ts';
import { durationText } from './form-parts.views.ts';
import { formatTime } from './layout.ts';

export type EndpointErrors = Partial<Record<'url' | 'events' | 'description' | 'form' | 'overlap', string>>;

/** How long the old secret may keep signing after a rotation: the form's choices (the API takes 0–168 hours). */
export const overlapChoices = [
  { hours: 0 },
  { hours: 1, duration: { unit: 'hour', count: 1 } },
  { hours: 24, duration: { unit: 'hour', count: 24 } },
  { hours: 72, duration: { unit: 'day', count: 3 } },
  { hours: 168, duration: { unit: 'day', count: 7 } },
] as const;

const code = (content: SafeHtml) => html`<code>${content}</code>`;
/**
 * A time as the pages show it ("2026-03-01 12:00 UTC"), kept whole and left to right inside a
 * right-to-left sentence or column.
 */
export const timeElement = (iso: string, timeZone: string): SafeHtml =>
  html`<time datetime="${iso}" dir="ltr">${formatTime(iso, timeZone)}</time>`;
/** Text the delivery worker wrote, in English whatever the page's language. */
const english = (content: SafeHtml | string) => html`<span lang="en">${content}</span>`;

export function stateBadge(endpoint: WebhookEndpoint, tr: Translator): SafeHtml {
  if (endpoint.enabled)
    return html`<span class="badge badge-success">${tr.t('endpoints.state.enabled')}</span>`;
  return endpoint.disabledReason === 'failures'
    ? html`<span class="badge badge-danger">${tr.t('endpoints.state.paused')}</span>`
    : html`<span class="badge badge-neutral">${tr.t('endpoints.state.disabled')}</span>`;
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
  tr: Translator,
): SafeHtml {
  return html`<div class="field">
<label for="${idPrefix}-url">${tr.t('endpoints.field.url')}</label>
<span class="hint">${tr.t('endpoints.field.urlHint')}</span>
<input id="${idPrefix}-url" name="url" type="url" dir="ltr" value="${values.url}" required ${invalidAttrs(`${idPrefix}-url`, errors.url)}>
${fieldError(`${idPrefix}-url`, errors.url)}
</div>
<fieldset class="field" ${invalidAttrs(`${idPrefix}-events`, errors.events)}>
<legend class="label">${tr.t('endpoints.field.events', { max: maxEventsPerEndpoint })}</legend>
${subscribableEventTypes.map(
  (type) =>
    html`<label class="checkbox"><input type="checkbox" name="events" value="${type}"${values.events.includes(type) ? html` checked` : ''}> <code>${type}</code></label>`,
)}
${fieldError(`${idPrefix}-events`, errors.events)}
</fieldset>
<div class="field">
<label for="${idPrefix}-description">${tr.t('endpoints.field.description')} <span class="muted">${tr.t('form.optional')}</span></label>
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
  tr: Translator,
): SafeHtml {
  return html`<section class="card" aria-labelledby="endpoints-title">
<div class="section-title"><h2 id="endpoints-title">${tr.t('endpoints.heading')}</h2><span class="muted small">${tr.t('endpoints.count', { count: endpoints.length, max: maxEndpointsPerWorkspace })}</span></div>
<p class="muted">${tr.t('endpoints.intro')}</p>
${endpoints.map((e) => pauseBanner(e, csrf, true, timeZone, tr))}
${
  endpoints.length
    ? html`<ul class="recipients">${endpoints.map(
        (e) =>
          html`<li><div><a class="recipient-name" href="/settings/integrations/endpoints/${e.id}">${e.url}</a><div class="small muted">${e.events.join(', ')}${e.description ? html` · ${e.description}` : ''}</div></div><div class="state">${stateBadge(e, tr)}${e.failureCount ? html`<span>${tr.t('endpoints.failures', { failures: e.failureCount })}</span>` : ''}</div></li>`,
      )}</ul>`
    : html`<div class="empty"><p><strong>${tr.t('endpoints.none')}</strong></p><p class="muted">${tr.t('endpoints.noneHint')}</p></div>`
}
<form method="post" action="/settings/integrations/endpoints" novalidate>
${csrfField(csrf)}
<h3>${tr.t('endpoints.add.heading')}</h3>
${form.errors.form ? notice('error', form.errors.form) : ''}
${endpointFields(form.values, form.errors, 'new-endpoint', tr)}
<div class="actions"><button class="button button-primary" type="submit">${tr.t('endpoints.add.submit')}</button></div>
</form>
</section>`;
}

/** What an attempt came to: its HTTP status, else its error class (the API's code). */
function attemptResult(attempt: { statusCode: number | null; errorClass: string | null }): string {
  return attempt.statusCode === null ? (attempt.errorClass ?? '') : String(attempt.statusCode);
}

/** A failure in words: the error class, the HTTP status where there was one. */
function failureValues(result: { statusCode: number | null; errorClass: string | null; durationMs: number }) {
  return {
    error: result.errorClass ?? '',
    ms: result.durationMs,
    ...(result.statusCode === null ? {} : { status: String(result.statusCode) }),
  };
}

/** What the Test button's ping came to; the destination rule that refused it is the worker's English. */
export function outcomeText(result: PingResult, tr: Translator): SafeHtml {
  if (result.ok)
    return html`${tr.t('endpoints.ping.delivered', { status: String(result.statusCode), ms: result.durationMs })}`;
  const values = failureValues(result);
  if (result.refusal)
    return richText(tr, 'endpoints.ping.refused', { ...values, refusal: result.refusal }, { en: english });
  return html`${tr.t(values.status === undefined ? 'endpoints.ping.failed' : 'endpoints.ping.failedHttp', values)}`;
}

export function chart(hours: HourlyAttempts[], tr: Translator): SafeHtml {
  const max = Math.max(1, ...hours.map((h) => h.delivered + h.failed));
  const width = 24 * 20;
  const height = 120;
  const total = hours.reduce((sum, h) => ({ d: sum.d + h.delivered, f: sum.f + h.failed }), { d: 0, f: 0 });
  const bars = hours.map((h, i) => {
    const delivered = (h.delivered / max) * (height - 20);
    const failed = (h.failed / max) * (height - 20);
    const x = i * 20 + 3;
    return html`<g><title>${tr.t('endpoints.chart.hour', { hour: h.hour.slice(11, 16), delivered: h.delivered, failed: h.failed })}</title>
<rect x="${x}" y="${height - delivered}" width="14" height="${delivered}" fill="#146c2e"></rect>
<rect x="${x}" y="${height - delivered - failed}" width="14" height="${failed}" fill="#b42318"></rect></g>`;
  });
  // The hours run left to right whatever the page's direction, as a clock's do.
  return html`<figure class="chart">
<svg viewBox="0 0 ${width} ${height}" width="100%" height="${height}" role="img" aria-labelledby="chart-caption" preserveAspectRatio="none">${bars}</svg>
<figcaption id="chart-caption" class="small muted">${tr.t('endpoints.chart.caption', { delivered: total.d, failed: total.f })}</figcaption>
</figure>`;
}

export function deliveryState(d: DeliveryView, timeZone: string, tr: Translator): SafeHtml {
  if (d.eventType === 'ping') {
    return d.status === 'delivered'
      ? html`<span class="badge badge-success">${tr.t('endpoints.delivery.pingDelivered')}</span>`
      : html`<span class="badge badge-danger">${tr.t('endpoints.delivery.pingFailed')}</span>`;
  }
  if (d.status === 'delivered')
    return html`<span class="badge badge-success">${tr.t('endpoints.delivery.delivered')}</span>`;
  if (d.status === 'dropped')
    return html`<span class="badge badge-danger">${tr.t('endpoints.delivery.dropped')}</span>`;
  return html`<span class="badge badge-pending">${tr.t('endpoints.delivery.retrying')}</span>${d.nextAttemptAt ? html` <span class="small">${richText(tr, 'endpoints.delivery.nextAt', { time: timeElement(d.nextAttemptAt, timeZone) })}</span>` : ''}`;
}

/** A dropped delivery (not a ping) can be sent again by hand (deliveries.service.ts: resendDelivery). */
function isResendable(d: DeliveryView): boolean {
  return d.status === 'dropped' && d.eventType !== 'ping';
}

/** The outcome of a resend, from the attempt it added: the delivery's last. */
function resendOutcome(detail: DeliveryDetail, tr: Translator): SafeHtml {
  const attempt = detail.attemptLog.at(-1);
  if (!attempt) return html``;
  if (detail.status === 'delivered')
    return notice(
      'success',
      tr.t('endpoints.resent.delivered', {
        status: String(attempt.statusCode),
        ms: attempt.durationMs,
        attempt: attempt.attempt,
      }),
    );
  const values = { ...failureValues(attempt), attempt: attempt.attempt };
  const key: MessageKey =
    values.status === undefined ? 'endpoints.resent.failed' : 'endpoints.resent.failedHttp';
  return notice('error', tr.t(key, values));
}

/** What an attempt left as text: a receiver's answer as it came, a destination rule's refusal in English. */
function attemptText(a: DeliveryAttemptView, text: string): SafeHtml {
  return a.errorClass === 'blocked' ? english(text) : html`${text}`;
}

export function attemptLine(a: DeliveryAttemptView, timeZone: string, tr: Translator): SafeHtml {
  const line = richText(tr, 'endpoints.attempt.line', {
    attempt: a.attempt,
    time: timeElement(a.startedAt, timeZone),
    result: attemptResult(a),
    ms: a.durationMs,
  });
  return html`<li>${line}${a.responseBody ? html` <code class="small">${attemptText(a, a.responseBody.slice(0, 120))}</code>` : ''}</li>`;
}

export function deliveryLog(
  endpointId: string,
  deliveries: DeliveryView[],
  nextCursor: string | null,
  cursor: string | null,
  timeZone: string,
  tr: Translator,
) {
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="${tr.t('endpoints.log.label')}">
<table>
<thead><tr><th scope="col">${tr.t('endpoints.log.created')}</th><th scope="col">${tr.t('endpoints.log.event')}</th><th scope="col">${tr.t('endpoints.log.state')}</th><th scope="col">${tr.t('endpoints.log.attempts')}</th></tr></thead>
<tbody>
${deliveries.map(
  (d) => html`<tr>
<td><a href="/settings/integrations/endpoints/${endpointId}/deliveries/${d.id}">${timeElement(d.createdAt, timeZone)}</a></td>
<td><code>${d.eventType}</code><div class="small muted">${tr.t('endpoints.log.eventId', { id: d.eventId })}<br>${tr.t('endpoints.log.deliveryId', { id: d.id })}</div></td>
<td>${deliveryState(d, timeZone, tr)}${isResendable(d) ? html`<div class="small"><a href="/settings/integrations/endpoints/${endpointId}/deliveries/${d.id}#resend">${tr.t('endpoints.log.resend')}</a></div>` : ''}</td>
<td><ul class="plain small">${d.attemptLog.map((a) => attemptLine(a, timeZone, tr))}</ul></td>
</tr>`,
)}
</tbody>
</table>
</div>
${deliveries.length === 0 ? html`<p class="muted">${tr.t('endpoints.log.none')}</p>` : ''}
<nav class="pager" aria-label="${tr.t('endpoints.log.pages')}">${cursor ? html`<a href="/settings/integrations/endpoints/${endpointId}#log">${tr.t('docs.pager.newest')}</a>` : ''}${nextCursor ? html`<a href="/settings/integrations/endpoints/${endpointId}?cursor=${encodeURIComponent(nextCursor)}#log">${tr.t('endpoints.log.older')}</a>` : ''}</nav>`;
}

const savedNotices: Record<string, MessageKey> = {
  saved: 'endpoints.done.saved',
  enabled: 'endpoints.done.enabled',
  disabled: 'endpoints.done.disabled',
  rotated: 'endpoints.done.rotated',
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

function endpointStatus(
  { endpoint, ping, done, timeZone }: EndpointView,
  csrf: string,
  tr: Translator,
): SafeHtml {
  const saved = done ? savedNotices[done] : undefined;
  return html`<p><a href="/settings/integrations">${tr.t('endpoints.back')}</a></p>
<h1 class="url-title">${endpoint.url}</h1>
${saved ? notice('success', tr.t(saved)) : ''}
${ping ? notice(ping.ok ? 'success' : 'error', outcomeText(ping, tr)) : ''}
${pauseBanner(endpoint, csrf, false, timeZone, tr)}
<div class="card">
<div class="section-title"><h2>${tr.t('endpoints.status.heading')}</h2>${stateBadge(endpoint, tr)}</div>
<p>${tr.t('endpoints.status.failures', { failures: endpoint.failureCount, max: failuresBeforePause })}</p>
<div class="actions">
<form method="post" action="/settings/integrations/endpoints/${endpoint.id}/test">${csrfField(csrf)}<button class="button button-secondary" type="submit">${tr.t('endpoints.status.test')}</button></form>
<form method="post" action="/settings/integrations/endpoints/${endpoint.id}/enabled">${csrfField(csrf)}<input type="hidden" name="enabled" value="${endpoint.enabled ? 'false' : 'true'}"><button class="button ${endpoint.enabled ? 'button-secondary' : 'button-primary'}" type="submit">${tr.t(endpoint.enabled ? 'endpoints.status.turnOff' : 'endpoints.status.turnOn')}</button></form>
</div>
</div>
`;
}

function overlapLabel(choice: (typeof overlapChoices)[number], tr: Translator): string {
  return 'duration' in choice ? durationText(choice.duration, tr) : tr.t('endpoints.secret.overlapNow');
}

/** The signing secret: a rotated one shown once, the overlap in force, and the rotate form. */
function secretSection(
  { endpoint, rotated, errors, now, timeZone }: EndpointView,
  csrf: string,
  tr: Translator,
): SafeHtml {
  const until = endpoint.previousSecretExpiresAt;
  const overlapping = until !== null && new Date(until).getTime() > now.getTime();
  return html`<section class="card" id="secret" aria-labelledby="secret-title">
<h2 id="secret-title">${tr.t('endpoints.secret.heading')}</h2>
${
  rotated
    ? html`<div role="status">
<p><strong>${tr.t('endpoints.secret.new')}</strong></p>
<div class="secret"><code id="rotated-secret">${rotated}</code><button class="button button-secondary button-small" type="button" data-copy="rotated-secret">${tr.t('integrations.copy')}</button></div>
</div>`
    : ''
}
${
  overlapping
    ? html`<p>${richText(tr, 'endpoints.secret.overlapping', { time: timeElement(until, timeZone) })}</p>`
    : html`<p>${tr.t('endpoints.secret.explain')}</p>`
}
<form method="post" action="/settings/integrations/endpoints/${endpoint.id}/rotate" class="actions" novalidate>${csrfField(csrf)}
<label for="overlap">${tr.t('endpoints.secret.overlapLabel')}</label>
<select id="overlap" name="overlap" ${invalidAttrs('overlap', errors.overlap)}>${overlapChoices.map((c) => html`<option value="${String(c.hours)}"${c.hours === 24 ? html` selected` : ''}>${overlapLabel(c, tr)}</option>`)}</select>${fieldError('overlap', errors.overlap)}
<button class="button button-secondary" type="submit">${tr.t('endpoints.secret.rotate')}</button>
</form>
${overlapping ? html`<p class="small muted">${tr.t('endpoints.secret.rotateAgain')}</p>` : ''}
</section>`;
}

/** An endpoint's page: status, Test and the switch, the hourly chart, the log, the secret, its settings. */
export function endpointView(view: EndpointView, csrf: string, tr: Translator): SafeHtml {
  const { endpoint, log, cursor, hours, values, errors } = view;
  return html`${endpointStatus(view, csrf, tr)}
<section class="card" id="log" aria-labelledby="log-title">
<h2 id="log-title">${tr.t('endpoints.log.heading')}</h2>
${chart(hours, tr)}
${deliveryLog(endpoint.id, log.deliveries, log.nextCursor, cursor, view.timeZone, tr)}
</section>
${secretSection(view, csrf, tr)}
<section class="card" aria-labelledby="settings-title">
<h2 id="settings-title">${tr.t('endpoints.settings.heading')}</h2>
<form method="post" action="/settings/integrations/endpoints/${endpoint.id}" novalidate>
${csrfField(csrf)}
${endpointFields(values, errors, 'endpoint', tr)}
<div class="actions"><button class="button button-primary" type="submit">${tr.t('endpoints.settings.save')}</button><a href="/settings/integrations/endpoints/${endpoint.id}/delete">${tr.t('endpoints.settings.delete')}</a></div>
</form>
</section>`;
}

export function deleteEndpointView(endpoint: WebhookEndpoint, csrf: string, tr: Translator): SafeHtml {
  return html`<div class="card narrow">
<h1>${tr.t('endpoints.delete.heading')}</h1>
<p>${richText(tr, 'endpoints.delete.explain', { url: endpoint.url })}</p>
<form method="post" action="/settings/integrations/endpoints/${endpoint.id}/delete">${csrfField(csrf)}
<div class="actions"><button class="button button-danger" type="submit">${tr.t('endpoints.delete.submit')}</button><a href="/settings/integrations/endpoints/${endpoint.id}">${tr.t('doc.confirm.cancel')}</a></div></form>
</div>`;
}

function attemptSections(
  detail: DeliveryDetail,
  endpoint: WebhookEndpoint,
  timeZone: string,
  tr: Translator,
): SafeHtml {
  return html`${detail.requests.map((r) => {
    const attempt = detail.attemptLog.find((a) => a.attempt === r.attempt);
    const heading = attempt
      ? tr.t('endpoints.attempt.heading', {
          attempt: r.attempt,
          result: attemptResult(attempt),
          ms: attempt.durationMs,
        })
      : '';
    const at = attempt ? timeElement(attempt.startedAt, timeZone) : '';
    const request = attempt?.address
      ? richText(tr, 'endpoints.attempt.requestTo', { url: endpoint.url, time: at, address: attempt.address })
      : richText(tr, 'endpoints.attempt.request', { url: endpoint.url, time: at });
    const refused = attempt?.errorClass === 'blocked';
    return html`<section class="card" aria-labelledby="attempt-${r.attempt}">
<h2 id="attempt-${r.attempt}">${heading}</h2>
<p class="small muted">${request}</p>
<pre class="shell" dir="ltr">${Object.entries(r.headers).map(([name, value]) => `${name}: ${value}\n`)}</pre>
${r.signedBeforeRotation ? html`<p class="small muted">${richText(tr, 'endpoints.attempt.rotatedSignature', {}, { code })}</p>` : ''}
${attempt?.responseBody ? html`<h3>${tr.t(refused ? 'endpoints.attempt.refusal' : 'endpoints.attempt.response')}</h3><pre class="shell" dir="ltr"${refused ? html` lang="en"` : ''}>${attempt.responseBody}</pre>` : ''}
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
  tr: Translator,
): SafeHtml {
  return html`<p><a href="/settings/integrations/endpoints/${endpoint.id}#log">${tr.t('endpoints.delivery.back', { url: endpoint.url })}</a></p>
<h1>${richText(tr, 'endpoints.delivery.heading', { type: detail.eventType }, { code })}</h1>
${outcome.resent ? resendOutcome(detail, tr) : ''}
${outcome.refusal ? notice('error', outcome.refusal) : ''}
<div class="card">
<dl class="meta">
<div><dt>${tr.t('endpoints.delivery.id')}</dt><dd><code>${detail.id}</code></dd></div>
<div><dt>${tr.t('endpoints.delivery.eventId')}</dt><dd><code>${detail.eventId}</code></dd></div>
<div><dt>${tr.t('endpoints.delivery.created')}</dt><dd>${timeElement(detail.createdAt, timeZone)}</dd></div>
<div><dt>${tr.t('endpoints.delivery.state')}</dt><dd>${deliveryState(detail, timeZone, tr)}</dd></div>
</dl>
${
  isResendable(detail) && detail.body !== null
    ? html`<form method="post" action="/settings/integrations/endpoints/${endpoint.id}/deliveries/${detail.id}/resend" class="actions" id="resend">${csrfField(csrf)}<button class="button button-secondary" type="submit">${tr.t('endpoints.delivery.resend')}</button><span class="small muted">${tr.t('endpoints.delivery.resendHint', { attempt: detail.attempts + 1 })}</span></form>`
    : ''
}
</div>
<section class="card" aria-labelledby="body-title">
<h2 id="body-title">${tr.t('endpoints.delivery.body')}</h2>
${detail.body === null ? html`<p class="muted">${tr.t('endpoints.delivery.pruned')}</p>` : html`<pre class="shell" id="delivery-body" dir="ltr">${detail.body}</pre><button class="button button-secondary button-small" type="button" data-copy="delivery-body">${tr.t('endpoints.delivery.copyBody')}</button>`}
</section>
${attemptSections(detail, endpoint, timeZone, tr)}
<p class="small muted">${richText(tr, 'endpoints.delivery.checkByHand', { signed: '<t>.<body>' }, { code })}</p>`;
}
