// Completion (src/progress/completion.ts): `completeDocument` marks a document completed
// (status signed, signedAt) with its seal owed (`seal_due_at`), and wakes a worker of any
// process on the seal's channel once the transaction commits, never before and never for a
// transaction rolled back. A status the state machine does not complete from (a draft, a
// document already signed, declined or expired) is refused with nothing written: a document
// completes once. The last signer's signature (signing/) is its caller. On both databases.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DocumentActionError } from '../../src/documents/lifecycle.ts';
import { completeDocument, sealChannel } from '../../src/progress/completion.ts';
import { withDocument } from '../../src/progress/document-lock.ts';
import { withdrawDocument } from '../../src/sending/ending.ts';
import { declineDocument, signDocument } from '../../src/signing/signing.service.ts';
import {
  createDraftDocument,
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  linkFor,
  storedEventBody,
  useHarness,
} from '../support/harness.ts';

describeEachDatabase('completing a document', (kind) => {
  const h = useHarness(kind);

  /** The seal channel as a worker hears it: how many NOTIFYs so far, and the next one awaited. */
  async function listenForSeals() {
    let heard = 0;
    const waiting: Array<() => void> = [];
    const stop = await h.subscribe(sealChannel, {
      onNotify: () => {
        heard += 1;
        for (const wake of waiting.splice(0)) wake();
      },
      onStateChange: () => {},
    });
    return {
      heard: () => heard,
      /** Resolves once the count reaches `count` (fails after 10 s rather than hanging). */
      async until(count: number) {
        const deadline = Date.now() + 10_000;
        while (heard < count) {
          const left = deadline - Date.now();
          assert.ok(left > 0, `heard ${heard} seal notifications, waited for ${count}`);
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, left);
            waiting.push(() => {
              clearTimeout(timer);
              resolve();
            });
          });
        }
      },
      stop,
    };
  }

  /** What is stored of the document's completion. */
  async function stored(workspaceId: string, id: string) {
    const row = await h.ctx.db
      .selectFrom('documents')
      .select(['status', 'signed_at', 'seal_due_at'])
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return { status: row.status, signedAt: row.signed_at, sealDueAt: row.seal_due_at };
  }

  /** Completes the document under its lock; what `record` was handed, and what it returned. */
  async function complete(workspaceId: string, id: string) {
    const recorded: Array<{ status: string; signedAt: Date | null }> = [];
    const result = await withDocument(h.ctx, workspaceId, id, (trx, locked, now) =>
      completeDocument(trx, locked.document, now, async (completed) => {
        recorded.push({ status: completed.status, signedAt: completed.signed_at });
        return 'the event';
      }),
    );
    return { result, recorded };
  }

  test('a document completes: status signed, signed and seal owed at the lock’s now, and a worker is woken at commit', async () => {
    const seals = await listenForSeals();
    try {
      const ws = await createTestWorkspace(h.ctx);
      const { id } = await createSentDocument(h.ctx, ws.id);
      h.clock.advance(60_000);
      const now = h.clock.now();
      let heardInside = -1;
      const result = await withDocument(h.ctx, ws.id, id, async (trx, locked, lockNow) => {
        const recorded = await completeDocument(trx, locked.document, lockNow, async (completed) => {
          assert.equal(completed.status, 'signed', 'the event is recorded with the document as completed');
          assert.deepEqual(completed.signed_at, now);
          return 'the event';
        });
        heardInside = seals.heard();
        return recorded;
      });
      assert.equal(result, 'the event', 'what the event recorder returns is handed back');
      assert.equal(heardInside, 0, 'nothing is heard before the transaction commits');
      await seals.until(1);
      assert.deepEqual(await stored(ws.id, id), { status: 'signed', signedAt: now, sealDueAt: now });
    } finally {
      await seals.stop();
    }
  });

  test('a completion rolled back writes nothing and wakes nobody', async () => {
    const seals = await listenForSeals();
    try {
      const ws = await createTestWorkspace(h.ctx);
      const rolledBack = await createSentDocument(h.ctx, ws.id);
      const before = await stored(ws.id, rolledBack.id);
      await assert.rejects(
        withDocument(h.ctx, ws.id, rolledBack.id, async (trx, locked, now) => {
          await completeDocument(trx, locked.document, now, async () => null);
          throw new Error('the change that completes it fails after');
        }),
        /fails after/,
      );
      assert.deepEqual(await stored(ws.id, rolledBack.id), before);
      // Notifications arrive in commit order: once the next completion's is heard, the
      // rolled-back one would have been heard before it.
      const next = await createSentDocument(h.ctx, ws.id);
      await complete(ws.id, next.id);
      await seals.until(1);
      assert.equal(seals.heard(), 1);
    } finally {
      await seals.stop();
    }
  });

  test('a document completes once: a draft, a signed, a declined or a withdrawn one is refused with nothing written', async () => {
    const seals = await listenForSeals();
    try {
      const ws = await createTestWorkspace(h.ctx);
      const draft = await createDraftDocument(h.ctx, ws.id);
      const completed = await createSentDocument(h.ctx, ws.id);
      await complete(ws.id, completed.id);
      await seals.until(1);
      const declined = await createSentDocument(h.ctx, ws.id);
      const signer = declined.links.get('ann@client.example')?.session;
      assert.ok(signer);
      await declineDocument(h.ctx, signer, {});
      const withdrawn = await createSentDocument(h.ctx, ws.id);
      await withdrawDocument(h.ctx, ws.id, withdrawn.id);
      h.clock.advance(60_000);

      const cases = [
        { id: draft.id, status: 'draft' },
        { id: completed.id, status: 'signed' },
        { id: declined.id, status: 'declined' },
        { id: withdrawn.id, status: 'expired' },
      ];
      for (const { id, status } of cases) {
        const before = await stored(ws.id, id);
        assert.equal(before.status, status);
        let recorded = false;
        await assert.rejects(
          withDocument(h.ctx, ws.id, id, (trx, locked, now) =>
            completeDocument(trx, locked.document, now, async () => {
              recorded = true;
            }),
          ),
          (error) => error instanceof DocumentActionError && error.refusal === 'not-allowed',
          status,
        );
        assert.equal(recorded, false, `${status}: no event`);
        assert.deepEqual(await stored(ws.id, id), before, `${status}: nothing written`);
      }
      const last = await createSentDocument(h.ctx, ws.id);
      await complete(ws.id, last.id);
      await seals.until(2);
      assert.equal(seals.heard(), 2, 'the refusals woke nobody');
    } finally {
      await seals.stop();
    }
  });

  test('the last signer’s signature completes the document through it; an earlier one invites the next instead', async () => {
    const seals = await listenForSeals();
    try {
      const ws = await createTestWorkspace(h.ctx);
      const { id, links } = await createSentDocument(h.ctx, ws.id);
      const ann = links.get('ann@client.example')?.session;
      assert.ok(ann);
      const first = await signDocument(h.ctx, ann, { fullName: 'Ann Lee', consent: true });
      assert.equal(first.completed, false);
      assert.equal((await stored(ws.id, id)).sealDueAt, null, 'no seal owed before the last signature');
      h.clock.advance(60_000);
      const bob = (await linkFor(h.ctx, id, 'bob@client.example')).session;
      const last = await signDocument(h.ctx, bob, { fullName: 'Bob Ray', consent: true });
      assert.equal(last.completed, true);
      await seals.until(1);
      const now = h.clock.now();
      assert.deepEqual(await stored(ws.id, id), { status: 'signed', signedAt: now, sealDueAt: now });
      const signed = await h.ctx.db
        .selectFrom('webhook_events')
        .select('payload')
        .where('id', '=', last.eventId)
        .executeTakeFirstOrThrow();
      const body = (typeof signed.payload === 'string' ? JSON.parse(signed.payload) : signed.payload) as {
        type: string;
        data: { document: { status: string; signedAt: string | null } };
      };
      assert.equal(body.type, 'document.signed');
      assert.equal(body.data.document.status, 'signed', 'the last document.signed shows it completed');
      assert.equal(body.data.document.signedAt, now.toISOString());
      const firstBody = await storedEventBody<{ data: { document: { status: string } } }>(
        h.ctx,
        ws.id,
        'document.signed',
      );
      assert.equal(firstBody.data.document.status, 'viewed', 'the first signature left it being signed');
    } finally {
      await seals.stop();
    }
  });
});
