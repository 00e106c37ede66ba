// The examples of the contract's webhook endpoints: the example workspace's endpoint (and a
// second one, paused), its secret shown once, a rotation, and a delivery of the example
// document's completion with its attempts, written as the API answers them.
import { eventIds } from '../documents/documents.examples.ts';

const endpointId = '7e1f3a5c-9b2d-4e6f-a8c0-2d4b6f8a1c3e';
const deliveryId = '9b6f2d4a-8c1e-3a5b-b7d9-0e2c4a6f8b1d';

const endpoint = {
  id: endpointId,
  url: 'https://hooks.northwind.example/signet',
  events: ['document.completed', 'document.declined'],
  enabled: true,
  description: 'CRM sync',
  createdAt: '2026-03-01T10:00:00.000Z',
  failureCount: 0,
  disabledReason: null,
};

export const endpointExample = endpoint;
/** A second endpoint, paused by Signet after 20 consecutive failures. */
export const pausedEndpointExample = {
  ...endpoint,
  id: '2c4e6a8b-0d1f-4a3c-9e5b-7d9f1b3c5e6a',
  url: 'https://erp.northwind.example/hooks/signet',
  events: ['document.sent'],
  enabled: false,
  description: null,
  failureCount: 20,
  disabledReason: 'failures',
};
export const createdEndpointExample = {
  ...endpoint,
  secret: 'whsec_Zt4mQ8vX2nR6kB1yH9cW3pL7dF5sJ0gA-uE_oT2iN4e',
};
export const createEndpointBodyExample = {
  url: endpoint.url,
  events: endpoint.events,
  description: endpoint.description,
};
export const updateEndpointBodyExamples = {
  rename: { summary: 'Change the description', value: { description: 'CRM sync (production)' } },
  resume: { summary: 'Switch a paused endpoint back on', value: { enabled: true } },
};

/** A rotation at 2026-03-05T09:00:00.000Z with the default overlap of 24 hours. */
export const rotatedEndpointExample = {
  ...endpoint,
  secret: 'whsec_Pq7wE3rT9yU1iO5pA8sD2fG6hJ0kL4zX-cV_bN3mQ1w',
  previousSecretExpiresAt: '2026-03-06T09:00:00.000Z',
};
export const rotateSecretBodyExamples = {
  default: { summary: 'The previous secret signs too for 24 hours', value: {} },
  leaked: { summary: 'A leaked secret: stop it at once', value: { overlapHours: 0 } },
  week: { summary: 'A week to switch every receiver', value: { overlapHours: 168 } },
};

export const deliveryExample = {
  id: deliveryId,
  eventId: eventIds.completed,
  eventType: 'document.completed',
  status: 'delivered',
  attempts: 2,
  createdAt: '2026-03-03T16:02:14.519Z',
  nextAttemptAt: null,
  deliveredAt: '2026-03-03T16:12:30.884Z',
  attemptLog: [
    {
      attempt: 1,
      startedAt: '2026-03-03T16:02:14.640Z',
      durationMs: 10003,
      statusCode: null,
      errorClass: 'timeout',
    },
    {
      attempt: 2,
      startedAt: '2026-03-03T16:12:30.712Z',
      durationMs: 172,
      statusCode: 200,
      errorClass: null,
    },
  ],
};

export const resendResultExample = {
  deliveryId,
  attempt: 5,
  delivered: true,
  statusCode: 204,
  errorClass: null,
  durationMs: 143,
};

export const deletedExample = { id: endpointId, deleted: true };
