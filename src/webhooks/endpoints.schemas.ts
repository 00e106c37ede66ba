// JSON schemas of the webhook-endpoint API: request validation and response
// serialisation. The secret exists only in the create and rotate responses' schemas, so no
// other response can carry it even by mistake.
import { Type } from '@sinclair/typebox';
import { DocumentIdParams, Enum, Timestamp, Uuid } from '../documents/documents.schemas.ts';
import { documentEventTypes } from '../documents/events.ts';
import { errorEnvelope, listEnvelope, okEnvelope } from '../http/envelope.ts';
import { uuidPattern } from '../ids.ts';
import {
  maxDescriptionLength,
  maxEventsPerEndpoint,
  maxOverlapHours,
  subscribableEventTypes,
} from './endpoints.service.ts';

const Events = Type.Array(Enum(subscribableEventTypes), {
  minItems: 1,
  maxItems: maxEventsPerEndpoint,
  uniqueItems: true,
});
/** An event type a delivery carries: a document event, or `ping` (the Test button; never subscribed). */
const DeliveryEventType = Enum([...documentEventTypes, 'ping']);
// PostgreSQL text cannot hold U+0000: refused here as invalid-body rather than failing later.
const Description = Type.Union([
  Type.String({ maxLength: maxDescriptionLength, pattern: '^[^\\u0000]*$' }),
  Type.Null(),
]);

export const CreateEndpointBody = Type.Object(
  { url: Type.String(), events: Events, description: Type.Optional(Description) },
  { additionalProperties: false },
);

export const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(Type.String()),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const EndpointSchema = Type.Object({
  id: Uuid,
  url: Type.String({ description: 'Public HTTPS on port 443, as normalised when stored' }),
  events: Events,
  enabled: Type.Boolean({
    description: 'True on creation; false when switched off, by hand or after 20 consecutive failures',
  }),
  description: Type.Union([Type.String(), Type.Null()], { description: 'Null for none' }),
  createdAt: Timestamp,
  failureCount: Type.Integer({ minimum: 0, description: 'Consecutive failed attempts, across deliveries' }),
  disabledReason: Type.Union([Type.Literal('failures'), Type.Null()], {
    description: '`failures` when Signet paused it; null when enabled or switched off by hand',
  }),
});

export const CreatedEndpointSchema = Type.Composite([
  EndpointSchema,
  Type.Object({
    secret: Type.String({
      description: 'The signing secret (`whsec_…`): in this response only, never again',
    }),
  }),
]);

/** A rotation's answer: the new secret (shown this once) and when the previous one stops signing. */
export const RotatedEndpointSchema = Type.Composite([
  EndpointSchema,
  Type.Object({
    secret: Type.String(),
    previousSecretExpiresAt: Type.Union([Type.String(), Type.Null()]),
  }),
]);

/** The body is optional: no body (or `{}`) keeps the previous secret for 24 hours. */
export const RotateSecretBody = Type.Object(
  { overlapHours: Type.Optional(Type.Integer({ minimum: 0, maximum: maxOverlapHours })) },
  { additionalProperties: false },
);

export const EndpointIdParams = DocumentIdParams;
export const DeliveryParams = Type.Object(
  { id: Type.String({ pattern: uuidPattern }), deliveryId: Type.String({ pattern: uuidPattern }) },
  { additionalProperties: false },
);
const DeliveriesQuery = Type.Object(
  {
    // Query values are strings (nothing is coerced): 1 to 100.
    limit: Type.Optional(Type.String({ pattern: '^(100|[1-9][0-9]?)$' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const AttemptSchema = Type.Object({
  attempt: Type.Integer({ minimum: 1, description: '1 for the first attempt' }),
  startedAt: Timestamp,
  durationMs: Type.Integer({ minimum: 0 }),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  errorClass: Type.Union([Type.String(), Type.Null()]),
});

/** A delivery as the API shows it: what was sent when, and how each attempt ended. */
export const DeliverySchema = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The X-Service-Delivery-Id of every attempt' }),
  eventId: Type.String({ format: 'uuid', description: 'The `id` of the body' }),
  eventType: DeliveryEventType,
  status: Enum(['pending', 'delivered', 'dropped']),
  attempts: Type.Integer({ minimum: 0 }),
  createdAt: Timestamp,
  nextAttemptAt: Type.Union([Timestamp, Type.Null()], {
    description: 'When the next attempt is due; null unless pending',
  }),
  deliveredAt: Type.Union([Timestamp, Type.Null()], { description: 'Null until delivered' }),
  attemptLog: Type.Array(AttemptSchema, { description: 'Oldest first' }),
});

export const ResendResultSchema = Type.Object({
  deliveryId: Uuid,
  attempt: Type.Integer({ minimum: 1 }),
  delivered: Type.Boolean(),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  errorClass: Type.Union([Type.String(), Type.Null()]),
  durationMs: Type.Integer({ minimum: 0 }),
});
export const DeletedSchema = Type.Object({ id: Uuid, deleted: Type.Literal(true) });
const NoQuery = Type.Object({}, { additionalProperties: false });
const errors = { '4xx': errorEnvelope, '5xx': errorEnvelope };

export const createEndpointSchema = {
  querystring: NoQuery,
  body: CreateEndpointBody,
  response: { 201: okEnvelope(CreatedEndpointSchema), ...errors },
};
export const listEndpointsSchema = {
  querystring: NoQuery,
  response: { 200: listEnvelope(EndpointSchema), ...errors },
};
export const getEndpointSchema = {
  params: EndpointIdParams,
  querystring: NoQuery,
  response: { 200: okEnvelope(EndpointSchema), ...errors },
};
export const listDeliveriesSchema = {
  params: EndpointIdParams,
  querystring: DeliveriesQuery,
  response: { 200: listEnvelope(DeliverySchema), ...errors },
};
export const resendDeliverySchema = {
  params: DeliveryParams,
  querystring: NoQuery,
  response: { 200: okEnvelope(ResendResultSchema), ...errors },
};

export const rotateSecretSchema = {
  params: EndpointIdParams,
  querystring: NoQuery,
  body: RotateSecretBody,
  response: { 200: okEnvelope(RotatedEndpointSchema), ...errors },
};

export const updateEndpointSchema = {
  params: EndpointIdParams,
  querystring: NoQuery,
  body: UpdateEndpointBody,
  response: { 200: okEnvelope(EndpointSchema), ...errors },
};
export const deleteEndpointSchema = {
  params: EndpointIdParams,
  querystring: NoQuery,
  response: {
    200: okEnvelope(DeletedSchema),
    ...errors,
  },
};
