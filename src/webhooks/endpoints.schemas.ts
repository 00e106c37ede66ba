// JSON schemas of the webhook-endpoint API: request validation and response
// serialisation. The secret exists only in the create and rotate responses' schemas, so no
// other response can carry it even by mistake.
import { Type } from '@sinclair/typebox';
import { DocumentIdParams, uuidPattern } from '../documents/documents.schemas.ts';
import { errorEnvelope, listEnvelope, okEnvelope } from '../http/envelope.ts';
import { maxOverlapHours, subscribableEventTypes } from './endpoints.service.ts';

const EventType = Type.Union(subscribableEventTypes.map((type) => Type.Literal(type)));
const Events = Type.Array(EventType, { minItems: 1, maxItems: 5, uniqueItems: true });
// PostgreSQL text cannot hold U+0000: refused here as invalid-body rather than failing later.
const Description = Type.Union([Type.String({ maxLength: 500, pattern: '^[^\\u0000]*$' }), Type.Null()]);

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
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  description: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  failureCount: Type.Integer(),
  disabledReason: Type.Union([Type.Literal('failures'), Type.Null()]),
});

export const CreatedEndpointSchema = Type.Composite([EndpointSchema, Type.Object({ secret: Type.String() })]);

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

const Attempt = Type.Object({
  attempt: Type.Integer(),
  startedAt: Type.String(),
  durationMs: Type.Integer(),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  errorClass: Type.Union([Type.String(), Type.Null()]),
});

/** A delivery as the API shows it: what was sent when, and how each attempt ended. */
export const DeliverySchema = Type.Object({
  id: Type.String(),
  eventId: Type.String(),
  eventType: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('dropped')]),
  attempts: Type.Integer(),
  createdAt: Type.String(),
  nextAttemptAt: Type.Union([Type.String(), Type.Null()]),
  deliveredAt: Type.Union([Type.String(), Type.Null()]),
  attemptLog: Type.Array(Attempt),
});

export const ResendResultSchema = Type.Object({
  deliveryId: Type.String(),
  attempt: Type.Integer(),
  delivered: Type.Boolean(),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  errorClass: Type.Union([Type.String(), Type.Null()]),
  durationMs: Type.Integer(),
});
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
    200: okEnvelope(Type.Object({ id: Type.String(), deleted: Type.Literal(true) })),
    ...errors,
  },
};
