// Document events: each one is written to the document's history and to the outbox in
// the transaction of the change that caused it, so a change never exists without its
// event and an event never exists without its change. The webhook body is stored as it
// was at that moment (spec, Webhook delivery body), and the event queued for fan-out.
import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import { notifyChannel } from '../db/notify.ts';
import type { Database } from '../db/schema.ts';
import { type FullDocumentRow, insertEvents, type RecipientRow } from './documents.repository.ts';
import {
  type Document,
  type DocumentFile,
  documentRowToDocument,
  type Recipient,
  recipientRowToRecipient,
} from './documents.service.ts';
import {
  type DocumentEventType,
  documentEventTypes,
  type HistoryEventType,
  historyEventTypes,
} from './event-types.ts';
import { outboxChannel, queueWebhookEvents } from './outbox.repository.ts';

export { type DocumentEventType, documentEventTypes, type HistoryEventType, historyEventTypes };

/** Who caused an event, as the certificate of completion shows it (the API never does). */
export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

export interface EventBody {
  id: string;
  type: DocumentEventType;
  createdAt: string;
  /** document.completed's document carries its files (no download URLs: a body is kept and resent). */
  data: { document: Document & { files?: DocumentFile[] }; recipient: Recipient | null };
}

type DocumentEventInput = {
  document: FullDocumentRow;
  type: DocumentEventType;
  recipient: (RecipientRow & { email: string }) | null;
  at: Date;
  client?: ClientInfo;
  files?: DocumentFile[];
  /** What the history says beside it (a decline's reason); never in the webhook body. */
  detail?: string | null;
};

/** Records `type` for `document` (its state after the change) and queues it for delivery. */
export async function recordDocumentEvent(
  trx: Transaction<Database>,
  ctx: Context,
  input: DocumentEventInput,
): Promise<EventBody> {
  return (await recordDocumentEvents(trx, ctx, [input]))[0] as EventBody;
}

/**
 * recordDocumentEvent for several changes of one transaction (a bulk send's batch): their
 * history rows, webhook bodies and outbox rows written together, the channel NOTIFYed once.
 */
export async function recordDocumentEvents(
  trx: Transaction<Database>,
  ctx: Context,
  inputs: DocumentEventInput[],
): Promise<EventBody[]> {
  if (inputs.length === 0) return [];
  const bodies = inputs.map(
    (input): EventBody => ({
      id: ctx.ids.uuid(),
      type: input.type,
      createdAt: input.at.toISOString(),
      data: {
        document: {
          ...documentRowToDocument(ctx, input.document),
          ...(input.files ? { files: input.files } : {}),
        },
        recipient: input.recipient ? recipientRowToRecipient(input.recipient) : null,
      },
    }),
  );
  await insertEvents(
    trx,
    inputs.map((input, i) => historyRow((bodies[i] as EventBody).id, input)),
  );
  await queueWebhookEvents(
    trx,
    inputs.map((input, i) => ({
      id: (bodies[i] as EventBody).id,
      workspace_id: input.document.workspace_id,
      type: input.type,
      payload: JSON.stringify(bodies[i]),
      created_at: input.at,
    })),
  );
  // Wakes the webhook dispatchers of every process when this transaction commits.
  await notifyChannel(trx, outboxChannel);
  return bodies;
}

/** The history's row of an event of either kind. */
function historyRow(
  id: string,
  input: {
    document: Pick<FullDocumentRow, 'id' | 'workspace_id'>;
    type: DocumentEventType | HistoryEventType;
    recipient: { id: string; email: string } | null;
    at: Date;
    client?: ClientInfo;
    detail?: string | null;
  },
) {
  return {
    id,
    workspace_id: input.document.workspace_id,
    document_id: input.document.id,
    type: input.type,
    recipient_id: input.recipient?.id ?? null,
    recipient_email: input.recipient?.email ?? null,
    created_at: input.at,
    client_ip: input.client?.ip ?? null,
    // A user agent is the client's to write: kept, but bounded.
    user_agent: input.client?.userAgent?.slice(0, 500) ?? null,
    detail: input.detail?.slice(0, 1000) ?? null,
  };
}

/**
 * Records a history-only event (event-types.ts): in the document's history, in the
 * transaction of what it tells, and nowhere else: no webhook body, no outbox row.
 */
export async function recordHistoryEvent(
  trx: Transaction<Database>,
  ctx: Context,
  input: {
    document: Pick<FullDocumentRow, 'id' | 'workspace_id'>;
    type: HistoryEventType;
    recipient: { id: string; email: string } | null;
    at: Date;
    client?: ClientInfo;
    detail?: string | null;
  },
): Promise<void> {
  if (!(historyEventTypes as readonly string[]).includes(input.type))
    throw new Error(`not a history event: ${input.type}`);
  await insertEvents(trx, [historyRow(ctx.ids.uuid(), input)]);
}
