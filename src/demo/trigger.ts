// `signet trigger EVENT_TYPE`: make one event of a type happen, for real. A sample
// document is created and driven through the same domain functions the signing pages
// use until the event occurs (as a payment platform's CLI triggers test events).
import { setTimeout } from 'node:timers/promises';
import type { Clock, Context } from '../context.ts';
import { findLatestEventId } from '../documents/documents.repository.ts';
import { getDocument, latestEventId } from '../documents/documents.service.ts';
import { type DocumentEventType, documentEventTypes } from '../documents/events.ts';
import { prepareSealKeys } from '../sealing/seal-key.ts';
import { sealDueDocuments } from '../sealing/sealing.service.ts';
import { createDocument } from '../sending/drafts.ts';
import { expireDueDocuments } from '../sending/ending.ts';
import { sendDocument } from '../sending/send.ts';
import type { SigningSession } from '../signing/session.ts';
import { declineDocument, openDocument, signDocument } from '../signing/signing.service.ts';

// How long a command that cannot seal itself waits for a running worker to seal: one that
// runs seals within moments (it is woken by the signature), since a worker that cannot seal
// does not start.
const workerGraceMs = 5_000;

/**
 * Seals the document (document.completed comes with its sealed PDF), or waits for the
 * running server's worker that took it first; its event id. A command that cannot seal (no
 * seal key in its environment) says why within moments unless a worker seals it meanwhile.
 */
async function sealed(ctx: Context, workspaceId: string, documentId: string): Promise<string> {
  const problem = await prepareSealKeys(ctx, { seals: true });
  const deadline = Date.now() + (problem === null ? 60_000 : workerGraceMs);
  for (;;) {
    if (problem === null) await sealDueDocuments(ctx);
    const eventId = await findLatestEventId(ctx.db, workspaceId, documentId, 'document.completed');
    if (eventId) return eventId;
    if (Date.now() > deadline)
      throw new Error(
        problem === null
          ? `document ${documentId} was not sealed within a minute`
          : `document ${documentId} was signed but not sealed: ${problem}`,
      );
    await setTimeout(200);
  }
}

export function isDocumentEventType(value: string): value is DocumentEventType {
  return (documentEventTypes as readonly string[]).includes(value);
}

const expiryForTrigger = 60;

export async function triggerEvent(
  ctx: Context,
  workspaceId: string,
  type: DocumentEventType,
): Promise<{ documentId: string; eventId: string }> {
  // For document.expired the document lives a minute in the past, so it is overdue now
  // and every timestamp of its history is real (nothing dated in the future).
  const past: Clock = { now: () => new Date(ctx.clock.now().getTime() - (expiryForTrigger + 1) * 1000) };
  const setup = type === 'document.expired' ? { ...ctx, clock: past } : ctx;

  const { id } = await createDocument(setup, {
    workspaceId,
    title: `Sample agreement (${type})`,
    body: 'This sample document was created by `signet trigger`.\n\nIt is signed through the same steps as a real one.',
    recipients: [
      {
        email: 'first.signer@example.com',
        fullName: 'First Signer',
        role: 'signer',
        signingMethod: 'standard',
        signingOrder: 1,
      },
      {
        email: 'second.signer@example.com',
        fullName: 'Second Signer',
        role: 'signer',
        signingMethod: 'standard',
        signingOrder: 2,
      },
    ],
    pricing: {
      currency: 'EUR',
      pricesIncludeVat: false,
      items: [
        {
          name: 'Onboarding',
          quantity: '1',
          unitPrice: '1500.00',
          vatRate: '21',
          billing: { type: 'one-off' },
        },
        {
          name: 'Subscription',
          quantity: '1',
          unitPrice: '99.00',
          vatRate: '21',
          billing: { type: 'recurring', interval: 'month', periods: 12 },
        },
      ],
    },
    expiresInSeconds: type === 'document.expired' ? expiryForTrigger : undefined,
  });
  const sent = await sendDocument(setup, workspaceId, id);
  const [first, second] = (await getDocument(ctx, workspaceId, id)).recipients.map(
    (r): SigningSession => ({ workspaceId, documentId: id, recipientId: r.id }),
  ) as [SigningSession, SigningSession];

  switch (type) {
    case 'document.sent':
      return { documentId: id, eventId: sent.eventId };
    case 'document.opened':
      await openDocument(ctx, first);
      break;
    case 'document.signed':
      return {
        documentId: id,
        eventId: (await signDocument(ctx, first, { fullName: 'First Signer', consent: true })).eventId,
      };
    case 'document.completed':
      await signDocument(ctx, first, { fullName: 'First Signer', consent: true });
      await signDocument(ctx, second, { fullName: 'Second Signer', consent: true });
      return { documentId: id, eventId: await sealed(ctx, workspaceId, id) };
    case 'document.declined':
      return {
        documentId: id,
        eventId: (await declineDocument(ctx, first, { reason: 'Triggered by signet trigger' })).eventId,
      };
    case 'document.expired':
      await expireDueDocuments(ctx);
      break;
  }
  return { documentId: id, eventId: await latestEventId(ctx, workspaceId, id, type) };
}
