// The contract of the webhook endpoints (endpoints.routes.ts): list, register (its secret shown
// once), read, change and delete an endpoint, rotate its secret, its delivery log and a
// resend. Each operation sits beside the route that serves it, built from the schemas that
// validate the requests and serialise the answers (endpoints.schemas.ts); its examples are
// endpoints.examples.ts.
import {
  bodyRefusals,
  cursorParameter,
  envelope,
  idempotencyParameter,
  idParameter,
  json,
  jsonBody,
  limitParameter,
  type Operation,
  one,
  success,
} from '../http/openapi-parts.ts';
import {
  createdEndpointExample,
  createEndpointBodyExample,
  deletedExample,
  deliveryExample,
  endpointExample,
  pausedEndpointExample,
  resendResultExample,
  rotatedEndpointExample,
  rotateSecretBodyExamples,
  updateEndpointBodyExamples,
} from './endpoints.examples.ts';
import {
  AttemptSchema,
  CreatedEndpointSchema,
  CreateEndpointBody,
  DeletedSchema,
  DeliverySchema,
  EndpointSchema,
  ResendResultSchema,
  RotatedEndpointSchema,
  RotateSecretBody,
  UpdateEndpointBody,
} from './endpoints.schemas.ts';

export const listEndpointsOperation: Operation = {
  method: 'GET',
  path: '/webhook-endpoints',
  operationId: 'listWebhookEndpoints',
  tag: 'Webhook endpoints',
  summary: 'The workspace’s webhook endpoints (never their secrets)',
  description: 'All of them in one page (at most 10), oldest first.',
  answers: success(
    200,
    'All of them (at most 10); `nextCursor` is always null.',
    envelope(json(EndpointSchema), true),
    one('endpoints', { ok: true, data: [endpointExample, pausedEndpointExample], nextCursor: null }),
  ),
  errors: ['invalid-query'],
};

export const createEndpointOperation: Operation = {
  method: 'POST',
  path: '/webhook-endpoints',
  operationId: 'createWebhookEndpoint',
  tag: 'Webhook endpoints',
  summary: 'Registers an endpoint; the response is the only one that holds its secret',
  description: `Checked in this order: the body is JSON (\`invalid-json\`) with exactly the allowed fields and types, nothing coerced (\`invalid-body\`); \`url\` is an absolute URL of at most 2,048 characters (\`invalid-url\`); its destination is public HTTPS on port 443, every address its host resolves to public unicast (\`unsafe-url\`); then the limit of 10 endpoints (409 \`limit-reached\`).

Keep the \`secret\`: it verifies the signature of every delivery, and **no later answer shows it**. A lost or leaked secret is replaced with \`rotate-secret\`, which keeps the endpoint and its log.`,
  parameters: [
    idempotencyParameter(
      'Optional: 1 to 255 visible ASCII characters. The same key and body within 24 hours answers the first 201 again, secret included (with `Idempotent-Replayed: true`), instead of creating a second endpoint; the kept answer is stored encrypted. If that endpoint was deleted since, the repeat is 404 `not-found`. The same key with another body is 409 `idempotency-key-reused`. Refusals are not remembered.',
    ),
  ],
  requestBody: jsonBody(CreateEndpointBody, one('create', createEndpointBodyExample)),
  answers: success(
    201,
    'Created, with its secret.',
    envelope(json(CreatedEndpointSchema)),
    one('created', { ok: true, data: createdEndpointExample }),
    {
      'Idempotent-Replayed': {
        description:
          '`true` when this is the kept answer to an earlier request with the same `Idempotency-Key` and body; absent otherwise.',
        schema: { type: 'string', const: 'true' },
      },
    },
  ),
  errors: [
    'invalid-query',
    'invalid-json',
    'invalid-body',
    'invalid-url',
    'unsafe-url',
    'limit-reached',
    'invalid-idempotency-key',
    'idempotency-key-reused',
    'not-found',
    'payload-too-large',
    'unsupported-media-type',
  ],
};

export const getEndpointOperation: Operation = {
  method: 'GET',
  path: '/webhook-endpoints/{id}',
  operationId: 'getWebhookEndpoint',
  tag: 'Webhook endpoints',
  summary: 'One endpoint (never its secret)',
  description: 'An endpoint of another workspace is `not-found`, as one that does not exist.',
  parameters: [idParameter],
  answers: success(
    200,
    'The endpoint.',
    envelope(json(EndpointSchema)),
    one('endpoint', { ok: true, data: endpointExample }),
  ),
  errors: ['invalid-id', 'invalid-query', 'not-found'],
};

export const updateEndpointOperation: Operation = {
  method: 'PATCH',
  path: '/webhook-endpoints/{id}',
  operationId: 'updateWebhookEndpoint',
  tag: 'Webhook endpoints',
  summary: 'Changes the fields sent; `enabled: true` on a paused endpoint clears its failure count',
  description:
    'Send only the fields to change (`{}` changes nothing); `description: null` clears it. The body is checked as for a create, before the endpoint is looked up: a malformed body is refused the same for every id.',
  parameters: [idParameter],
  requestBody: jsonBody(UpdateEndpointBody, updateEndpointBodyExamples),
  answers: success(
    200,
    'The endpoint as changed.',
    envelope(json(EndpointSchema)),
    one('resumed', { ok: true, data: endpointExample }),
  ),
  errors: [
    'invalid-id',
    'invalid-query',
    'not-found',
    'invalid-json',
    'invalid-body',
    'invalid-url',
    'unsafe-url',
    'payload-too-large',
    'unsupported-media-type',
  ],
};

export const deleteEndpointOperation: Operation = {
  method: 'DELETE',
  path: '/webhook-endpoints/{id}',
  operationId: 'deleteWebhookEndpoint',
  tag: 'Webhook endpoints',
  summary: 'Deletes the endpoint and its delivery log (a lost or leaked secret: rotate it instead)',
  description:
    'Nothing more is sent to it, including retries that were pending. It takes no body; one sent is read all the same, so a body that is not JSON, too large or of another type is refused as for any body.',
  parameters: [idParameter],
  answers: success(
    200,
    'Deleted.',
    envelope(json(DeletedSchema)),
    one('deleted', { ok: true, data: deletedExample }),
  ),
  errors: ['invalid-id', 'invalid-query', 'not-found', ...bodyRefusals],
};

export const rotateSecretOperation: Operation = {
  method: 'POST',
  path: '/webhook-endpoints/{id}/rotate-secret',
  operationId: 'rotateWebhookEndpointSecret',
  tag: 'Webhook endpoints',
  summary:
    'A new signing secret, shown once; the previous one keeps signing too for an overlap, so receivers switch without missing a delivery',
  description:
    'For `overlapHours` (whole hours, 0 to 168; 24 when the body is absent or `{}`) every delivery, retry, resend and ping carries one `v1=` per secret in `X-Service-Signature`, the new one first: `t=<timestamp>,v1=<new>,v1=<previous>`. A receiver that accepts any valid `v1=` keeps working while it switches. `overlapHours: 0` stops the previous secret at once (a leaked one). Rotating again during an overlap ends it: at most two secrets ever sign. Neither the secret nor the overlap appears in later answers.',
  parameters: [idParameter],
  requestBody: { ...jsonBody(RotateSecretBody, rotateSecretBodyExamples), required: false },
  answers: success(
    200,
    'The endpoint with its new `secret`, and `previousSecretExpiresAt`: when the previous secret stops signing (null with `overlapHours: 0`).',
    envelope(json(RotatedEndpointSchema)),
    one('rotated', { ok: true, data: rotatedEndpointExample }),
  ),
  errors: ['invalid-id', 'invalid-query', 'not-found', 'invalid-body', ...bodyRefusals],
};

export const listDeliveriesOperation: Operation = {
  method: 'GET',
  path: '/webhook-endpoints/{id}/deliveries',
  operationId: 'listWebhookDeliveries',
  tag: 'Webhook endpoints',
  summary:
    "The endpoint's deliveries, newest first, with each attempt's outcome (the receiver's answers stay in the web application)",
  description:
    'A delivery is `pending` (its next attempt is due at `nextAttemptAt`), `delivered`, or `dropped` after 4 failed attempts (or while its endpoint was paused): a dropped one can be sent again with the resend below.',
  parameters: [idParameter, limitParameter(50), cursorParameter('The `nextCursor` of the previous page.')],
  answers: success(
    200,
    'A page of deliveries.',
    envelope(json(DeliverySchema), true),
    one('deliveries', { ok: true, data: [deliveryExample], nextCursor: null }),
  ),
  errors: ['invalid-id', 'invalid-query', 'invalid-cursor', 'not-found'],
};

export const resendDeliveryOperation: Operation = {
  method: 'POST',
  path: '/webhook-endpoints/{id}/deliveries/{deliveryId}/resend',
  operationId: 'resendWebhookDelivery',
  tag: 'Webhook endpoints',
  summary:
    'Sends a dropped delivery once more, now: the same X-Service-Delivery-Id and body, signed anew, recorded as its next attempt',
  description:
    'Works on a paused endpoint too and never counts toward pausing. A delivery that is pending, delivered, being resent at that moment, or whose body retention removed is 409 `delivery-not-resendable`. Events that happened while an endpoint was paused were never made into deliveries: nothing here replays them. It takes no body; one sent is read all the same, and refused when it is not JSON, too large or of another type.',
  parameters: [
    idParameter,
    { ...idParameter, name: 'deliveryId', description: "The delivery's id (a UUID)." },
  ],
  answers: success(
    200,
    "The attempt's outcome; `delivered` tells whether the receiver took it.",
    envelope(json(ResendResultSchema)),
    one('delivered', { ok: true, data: resendResultExample }),
  ),
  errors: ['invalid-id', 'invalid-query', 'not-found', 'delivery-not-resendable', ...bodyRefusals],
};

/** The named objects of the endpoints; wherever one appears inline in the contract it becomes a `$ref`. */
export const endpointComponents = {
  WebhookEndpoint: EndpointSchema,
  CreatedWebhookEndpoint: CreatedEndpointSchema,
  RotatedWebhookEndpoint: RotatedEndpointSchema,
  DeletedWebhookEndpoint: DeletedSchema,
  WebhookDelivery: DeliverySchema,
  DeliveryAttempt: AttemptSchema,
  ResendResult: ResendResultSchema,
};
