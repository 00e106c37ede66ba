// The live contract test's cases for webhook endpoints, their deliveries and the event
// stream (openapi-live.test.ts runs them last): list, create, get, update, rotate the secret,
// the delivery log and a resend, streamEvents' refusals, and deleting the endpoint, the very
// last case; each status and error code the contract documents for them. What a case is:
// contract-cases.ts.
import type { Case, CaseKit } from './contract-cases.ts';

/** The webhook operations, from listWebhookEndpoints to deleting the endpoint (last). */
export function webhookCases({ call, keyCases, bodyCases, randomId, deadEndpoint, live }: CaseKit): Case[] {
  return [
    ['listWebhookEndpoints', '200', () => call('GET', '/v1/webhook-endpoints')],
    [
      'listWebhookEndpoints',
      'invalid-query',
      () => call('GET', '/v1/webhook-endpoints?x=1'),
      'invalid-query',
    ],
    ...keyCases('listWebhookEndpoints', 'GET', () => '/v1/webhook-endpoints'),
    [
      'createWebhookEndpoint',
      '201',
      () =>
        call('POST', '/v1/webhook-endpoints', {
          body: { url: 'https://api.example.org/hooks', events: ['document.signed'] },
        }),
    ],
    [
      'createWebhookEndpoint',
      'invalid-json',
      () => call('POST', '/v1/webhook-endpoints', { body: '{' }),
      'invalid-json',
    ],
    [
      'createWebhookEndpoint',
      'invalid-body',
      () =>
        call('POST', '/v1/webhook-endpoints', { body: { url: 'https://hooks.example.com/x', events: [] } }),
      'invalid-body',
    ],
    [
      'createWebhookEndpoint',
      'invalid-url',
      () => call('POST', '/v1/webhook-endpoints', { body: { url: 'not a url', events: ['document.sent'] } }),
      'invalid-url',
    ],
    [
      'createWebhookEndpoint',
      'unsafe-url',
      () =>
        call('POST', '/v1/webhook-endpoints', {
          body: { url: 'https://127.0.0.1/x', events: ['document.sent'] },
        }),
      'unsafe-url',
    ],
    [
      'createWebhookEndpoint',
      'invalid-query',
      () =>
        call('POST', '/v1/webhook-endpoints?x=1', {
          body: { url: 'https://hooks.example.com/x', events: ['document.sent'] },
        }),
      'invalid-query',
    ],
    [
      'createWebhookEndpoint',
      'payload-too-large',
      () =>
        call('POST', '/v1/webhook-endpoints', {
          body: {
            url: 'https://hooks.example.com/x',
            events: ['document.sent'],
            description: 'x'.repeat(1_100_000),
          },
        }),
      'payload-too-large',
    ],
    [
      'createWebhookEndpoint',
      'unsupported-media-type',
      () =>
        call('POST', '/v1/webhook-endpoints', { body: 'url=x', headers: { 'content-type': 'text/plain' } }),
      'unsupported-media-type',
    ],
    ...keyCases('createWebhookEndpoint', 'POST', () => '/v1/webhook-endpoints', {}),
    ['getWebhookEndpoint', '200', () => call('GET', `/v1/webhook-endpoints/${live.endpointId}`)],
    ['getWebhookEndpoint', 'invalid-id', () => call('GET', '/v1/webhook-endpoints/nope'), 'invalid-id'],
    [
      'getWebhookEndpoint',
      'not-found',
      () => call('GET', `/v1/webhook-endpoints/${randomId()}`),
      'not-found',
    ],
    ...keyCases('getWebhookEndpoint', 'GET', () => `/v1/webhook-endpoints/${live.endpointId}`),
    [
      'updateWebhookEndpoint',
      '200',
      () => call('PATCH', `/v1/webhook-endpoints/${live.endpointId}`, { body: { description: 'CRM' } }),
    ],
    [
      'updateWebhookEndpoint',
      'invalid-json',
      () => call('PATCH', `/v1/webhook-endpoints/${live.endpointId}`, { body: '[' }),
      'invalid-json',
    ],
    [
      'updateWebhookEndpoint',
      'invalid-body',
      () => call('PATCH', `/v1/webhook-endpoints/${live.endpointId}`, { body: { enabled: 'yes' } }),
      'invalid-body',
    ],
    [
      'updateWebhookEndpoint',
      'invalid-url',
      () => call('PATCH', `/v1/webhook-endpoints/${live.endpointId}`, { body: { url: 'nope' } }),
      'invalid-url',
    ],
    [
      'updateWebhookEndpoint',
      'unsafe-url',
      () =>
        call('PATCH', `/v1/webhook-endpoints/${live.endpointId}`, { body: { url: 'https://10.0.0.1/x' } }),
      'unsafe-url',
    ],
    [
      'updateWebhookEndpoint',
      'not-found',
      () => call('PATCH', `/v1/webhook-endpoints/${randomId()}`, { body: { description: 'x' } }),
      'not-found',
    ],
    [
      'updateWebhookEndpoint',
      'payload-too-large',
      () =>
        call('PATCH', `/v1/webhook-endpoints/${live.endpointId}`, {
          body: { description: 'x'.repeat(1_100_000) },
        }),
      'payload-too-large',
    ],
    [
      'updateWebhookEndpoint',
      'unsupported-media-type',
      () =>
        call('PATCH', `/v1/webhook-endpoints/${live.endpointId}`, {
          body: 'x',
          headers: { 'content-type': 'text/plain' },
        }),
      'unsupported-media-type',
    ],
    ...keyCases('updateWebhookEndpoint', 'PATCH', () => `/v1/webhook-endpoints/${live.endpointId}`, {}),
    [
      'rotateWebhookEndpointSecret',
      '200',
      () =>
        call('POST', `/v1/webhook-endpoints/${live.endpointId}/rotate-secret`, { body: { overlapHours: 1 } }),
    ],
    [
      'rotateWebhookEndpointSecret',
      'invalid-json',
      () => call('POST', `/v1/webhook-endpoints/${live.endpointId}/rotate-secret`, { body: '{' }),
      'invalid-json',
    ],
    [
      'rotateWebhookEndpointSecret',
      'invalid-body',
      () =>
        call('POST', `/v1/webhook-endpoints/${live.endpointId}/rotate-secret`, {
          body: { overlapHours: 169 },
        }),
      'invalid-body',
    ],
    [
      'rotateWebhookEndpointSecret',
      'invalid-id',
      () => call('POST', '/v1/webhook-endpoints/nope/rotate-secret'),
      'invalid-id',
    ],
    [
      'rotateWebhookEndpointSecret',
      'invalid-query',
      () => call('POST', `/v1/webhook-endpoints/${live.endpointId}/rotate-secret?x=1`),
      'invalid-query',
    ],
    [
      'rotateWebhookEndpointSecret',
      'not-found',
      () => call('POST', `/v1/webhook-endpoints/${randomId()}/rotate-secret`),
      'not-found',
    ],
    [
      'rotateWebhookEndpointSecret',
      'payload-too-large',
      () =>
        call('POST', `/v1/webhook-endpoints/${live.endpointId}/rotate-secret`, {
          body: { overlapHours: 1, pad: 'x'.repeat(1_100_000) },
        }),
      'payload-too-large',
    ],
    [
      'rotateWebhookEndpointSecret',
      'unsupported-media-type',
      () =>
        call('POST', `/v1/webhook-endpoints/${live.endpointId}/rotate-secret`, {
          body: 'x',
          headers: { 'content-type': 'text/plain' },
        }),
      'unsupported-media-type',
    ],
    ...keyCases(
      'rotateWebhookEndpointSecret',
      'POST',
      () => `/v1/webhook-endpoints/${live.endpointId}/rotate-secret`,
    ),
    [
      'listWebhookDeliveries',
      '200',
      () => call('GET', `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries?limit=1`),
    ],
    [
      'listWebhookDeliveries',
      'invalid-query',
      () => call('GET', `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries?limit=0`),
      'invalid-query',
    ],
    [
      'listWebhookDeliveries',
      'invalid-cursor',
      () => call('GET', `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries?cursor=abc`),
      'invalid-cursor',
    ],
    [
      'listWebhookDeliveries',
      'invalid-id',
      () => call('GET', '/v1/webhook-endpoints/nope/deliveries'),
      'invalid-id',
    ],
    [
      'listWebhookDeliveries',
      'not-found',
      () => call('GET', `/v1/webhook-endpoints/${randomId()}/deliveries`),
      'not-found',
    ],
    ...keyCases('listWebhookDeliveries', 'GET', () => `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries`),
    [
      'resendWebhookDelivery',
      '200',
      () =>
        call('POST', `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries/${deadEndpoint.dropped}/resend`),
    ],
    [
      'resendWebhookDelivery',
      'delivery-not-resendable',
      () =>
        call('POST', `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries/${deadEndpoint.delivered}/resend`),
      'delivery-not-resendable',
    ],
    [
      'resendWebhookDelivery',
      'invalid-id',
      () => call('POST', `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries/nope/resend`),
      'invalid-id',
    ],
    [
      'resendWebhookDelivery',
      'invalid-query',
      () =>
        call(
          'POST',
          `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries/${deadEndpoint.dropped}/resend?x=1`,
        ),
      'invalid-query',
    ],
    [
      'resendWebhookDelivery',
      'not-found',
      () => call('POST', `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries/${randomId()}/resend`),
      'not-found',
    ],
    ...keyCases(
      'resendWebhookDelivery',
      'POST',
      () => `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries/${deadEndpoint.dropped}/resend`,
    ),
    ...bodyCases(
      'resendWebhookDelivery',
      'POST',
      () => `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries/${deadEndpoint.dropped}/resend`,
    ),
    ...bodyCases('deleteWebhookEndpoint', 'DELETE', () => `/v1/webhook-endpoints/${live.endpointId}`),
    ['deleteWebhookEndpoint', 'invalid-id', () => call('DELETE', '/v1/webhook-endpoints/nope'), 'invalid-id'],
    [
      'deleteWebhookEndpoint',
      'invalid-query',
      () => call('DELETE', `/v1/webhook-endpoints/${live.endpointId}?x=1`),
      'invalid-query',
    ],
    [
      'deleteWebhookEndpoint',
      'not-found',
      () => call('DELETE', `/v1/webhook-endpoints/${randomId()}`),
      'not-found',
    ],
    ...keyCases('deleteWebhookEndpoint', 'DELETE', () => `/v1/webhook-endpoints/${live.endpointId}`),
    [
      'streamEvents',
      'invalid-query',
      () => call('GET', '/v1/events/stream?types=document.archived'),
      'invalid-query',
    ],
    ...keyCases('streamEvents', 'GET', () => '/v1/events/stream'),
    ['deleteWebhookEndpoint', '200', () => call('DELETE', `/v1/webhook-endpoints/${live.endpointId}`)],
  ];
}
