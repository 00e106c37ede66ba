// The examples of what Signet delivers: a webhook body of each event type about the example
// document (documents.examples.ts), as every delivery and the event stream carry it, and the
// start of a stream.
import {
  documentExample,
  eventIds,
  fileExamples,
  recipientExamples,
} from '../documents/documents.examples.ts';

/** A webhook body of `type`, about the example document. */
export function webhookBodyExample(type: string): Record<string, unknown> {
  if (type === 'ping') {
    return {
      id: 'd8f0b2c4-6e9a-4c1b-a3d5-7f9b1d3e5a0c',
      type: 'ping',
      createdAt: '2026-03-01T10:05:00.000Z',
      data: { message: 'Test delivery from Signet: this endpoint can receive webhooks.' },
    };
  }
  const byType: Record<string, { id: string; createdAt: string; recipient: unknown; document: unknown }> = {
    'document.sent': {
      id: eventIds.sent,
      createdAt: '2026-03-02T09:20:41.503Z',
      recipient: null,
      document: { ...documentExample, status: 'sent', signedAt: null },
    },
    'document.opened': {
      id: eventIds.openedAnn,
      createdAt: '2026-03-02T14:28:50.311Z',
      recipient: { ...recipientExamples[0], signedAt: null },
      document: { ...documentExample, status: 'viewed', signedAt: null },
    },
    'document.signed': {
      id: eventIds.signedBob,
      createdAt: '2026-03-03T16:02:11.870Z',
      recipient: recipientExamples[1],
      document: documentExample,
    },
    'document.completed': {
      id: eventIds.completed,
      createdAt: '2026-03-03T16:02:14.519Z',
      recipient: null,
      document: { ...documentExample, files: fileExamples },
    },
    'document.declined': {
      id: '7c9e1a3b-5d8f-4a2c-b46e-8c0a2e4f6b7d',
      createdAt: '2026-03-02T15:40:00.000Z',
      recipient: { ...recipientExamples[1], signedAt: null },
      document: { ...documentExample, status: 'declined', signedAt: null },
    },
    'document.expired': {
      id: '8d0f2b4c-6e9a-4b3d-857f-9d1b3f5a7c8e',
      createdAt: '2026-04-01T09:20:41.503Z',
      recipient: null,
      document: { ...documentExample, status: 'expired', signedAt: null, expiredReason: 'lapsed' },
    },
  };
  const event = byType[type];
  if (!event) throw new Error(`no example for the webhook ${type}`);
  return {
    id: event.id,
    type,
    createdAt: event.createdAt,
    data: { document: event.document, recipient: event.recipient },
  };
}

/** The start of an event stream (GET /v1/events/stream): the ready message, an event, a keep-alive. */
export const eventStreamExample =
  'retry: 2000\nevent: ready\ndata: {"workspaceId":"0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a","secret":"whsec_Vx1o8m9kQ2n3T5r7Y0a2c4e6g8i0k2m4o6q8s0u2w4y","resumedAfter":null}\n\nid: 5f0c2a8e-3b1d-4c6e-9a7f-1d2e3f4a5b6c\nevent: document.signed\ndata: {"id":"5f0c2a8e-3b1d-4c6e-9a7f-1d2e3f4a5b6c","type":"document.signed","createdAt":"2026-03-01T12:00:00.000Z","data":{"document":{…},"recipient":{…}}}\n\n: keep-alive\n\n';
