// The contract of what Signet delivers (OpenAPI `webhooks`): one signed POST per document
// event type, and the ping of the Test button, each with the headers every delivery carries
// (signature.ts signs them, dispatcher.ts sends them) and a body of the example document
// (webhooks.examples.ts). No route serves these: they are requests Signet makes.
import {
  CompletedDocumentSchema,
  DocumentSchema,
  RecipientSchema,
  Timestamp,
} from '../documents/documents.schemas.ts';
import { documentEventTypes } from '../documents/events.ts';
import { json, one } from '../http/openapi-parts.ts';
import { webhookBodyExample } from './webhooks.examples.ts';

const deliveryHeaders = {
  'X-Service-Event': {
    description: 'The event type, as `type` in the body.',
    schema: { type: 'string' },
    required: true,
  },
  'X-Service-Delivery-Id': {
    description: 'Unique per delivery (UUID) and the same for every attempt of it: the idempotency key.',
    schema: { type: 'string', format: 'uuid' },
    required: true,
  },
  'X-Service-Signature': {
    description:
      '`t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>" keyed with the endpoint secret>`; `<timestamp>` is the attempt time (ISO 8601 UTC with milliseconds). While a rotated secret\'s overlap lasts, one `v1=` per secret, the new one first: a delivery is authentic when any one matches.',
    schema: { type: 'string', pattern: '^t=[^,]+(,v1=[0-9a-f]{64})+$' },
    required: true,
  },
  'User-Agent': {
    description: 'Always this value.',
    schema: { type: 'string', const: 'Service-Webhooks/1.0' },
    required: true,
  },
};

/** `document.sent` → `documentSent`. */
const camel = (type: string) => type.replace(/[.-](\w)/g, (_, c: string) => c.toUpperCase());

/** The delivery of one event type, as an OpenAPI webhook: its headers, its body and what counts as delivered. */
function webhook(type: string, data: Record<string, unknown>) {
  return {
    post: {
      operationId: `${camel(type)}Webhook`,
      tags: ['Webhooks'],
      summary: type === 'ping' ? 'A test delivery (the Test button)' : `Delivered when ${type} happens`,
      description:
        type === 'ping'
          ? 'Sent only when the **Test** button of an endpoint is used in the web application. Signed like any delivery; it cannot be subscribed to.'
          : `Sent to every enabled endpoint subscribed to \`${type}\`. \`data.document\` is the document as it was when the event happened; \`data.recipient\` is the recipient who caused it, or null.`,
      parameters: Object.entries(deliveryHeaders).map(([name, header]) => ({
        name,
        in: 'header',
        ...header,
      })),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['id', 'type', 'createdAt', 'data'],
              properties: {
                id: { type: 'string', format: 'uuid', description: 'The event id.' },
                type: { type: 'string', const: type },
                createdAt: json(Timestamp),
                data,
              },
            },
            examples: one(type, webhookBodyExample(type)),
          },
        },
      },
      responses: {
        '2XX': {
          description:
            'Delivered. Anything else, a timeout (10 s) or a redirect is a failure, retried 3 times.',
        },
      },
    },
  };
}

/** Every webhook of the contract, by name: each document event type, then the ping. */
export function outgoingWebhooks(): Record<string, unknown> {
  const documentEvent = {
    type: 'object',
    required: ['document', 'recipient'],
    properties: {
      document: json(DocumentSchema),
      recipient: {
        anyOf: [json(RecipientSchema), { type: 'null' }],
        description: 'The recipient who caused the event; null for events no recipient caused.',
      },
    },
  };
  // document.completed's document also carries its files (as in the detail, without links).
  const completedEvent = {
    ...documentEvent,
    properties: { ...documentEvent.properties, document: json(CompletedDocumentSchema) },
  };
  const ping = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
  return Object.fromEntries([
    ...documentEventTypes.map((type) => [
      type,
      webhook(type, type === 'document.completed' ? completedEvent : documentEvent),
    ]),
    ['ping', webhook('ping', ping)],
  ]);
}
