// Which endpoints get which webhook deliveries, once (spec: Webhook delivery, Webhook endpoint
// enablement): an endpoint switched off, one not subscribed, another workspace's get nothing;
// a batch of successes and a hand-back after the lease ran out recorded right (the claim of
// claims.repository.ts); bodies removed by retention dropped, deleted and switched-off
// endpoints sent nothing more; fan-out makes exactly one delivery per (event, endpoint),
// called twice or concurrently; pruning after 30 days. Shared setup: webhook-delivery-setup.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { triggerEvent } from '../../src/demo/trigger.ts';
import { claimDueDeliveries, releaseDeliveries } from '../../src/webhooks/claims.repository.ts';
import { deliverDue, fanOutEvents } from '../../src/webhooks/dispatcher.ts';
import { removeEndpoint } from '../../src/webhooks/endpoints.service.ts';
import { recordSuccesses } from '../../src/webhooks/outcomes.ts';
import { pruneOldDeliveries } from '../../src/webhooks/schedule.ts';
import { callApi, countRows, describeEachDatabase } from '../support/harness.ts';
import { header } from '../support/receiver.ts';
import {
  answer,
  assertDeletedEndpointGetsNothing,
  bodyOf,
  countAttempts,
  countDeliveries,
  day,
  getEndpointApi,
  minute,
  nameBasedUuid,
  neverAnswer,
  onlyDelivery,
  patchEndpointApi,
  second,
  useDeliveryHarness,
  waitFor,
  withScope,
} from './webhook-delivery-setup.ts';

describeEachDatabase('webhook delivery: who gets what, once', (kind) => {
  const { h } = useDeliveryHarness(kind);

  // --- 6. Who gets nothing -------------------------------------------------------------

  test('an endpoint switched off with PATCH gets no delivery', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked();
      await patchEndpointApi(h, ws, endpoint.id, { enabled: false });
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      h.clock.advance(day);
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 0);
      assert.equal(await countDeliveries(h, endpoint.id), 0);
    }));

  test('an endpoint gets only the event types it subscribes to', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(undefined, ['document.declined']);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await triggerEvent(h.ctx, ws.id, 'document.signed');
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 0);
      assert.equal(await countDeliveries(h, endpoint.id), 0);

      const { eventId } = await triggerEvent(h.ctx, ws.id, 'document.declined');
      await deliverDue(h.ctx);
      assert.deepEqual(
        receiver.requests.map((r) => [header(r, 'x-service-event'), bodyOf(r).id]),
        [['document.declined', eventId]],
      );
    }));

  test("another workspace's events never reach this workspace's endpoint", () =>
    withScope(h, async (s) => {
      const mine = await s.workspace();
      const theirs = await s.workspace();
      const myReceiver = await s.receiver();
      const theirReceiver = await s.receiver();
      const myEndpoint = await s.endpoint(mine, `${myReceiver.url}/hook`);
      await s.endpoint(theirs, `${theirReceiver.url}/hook`);
      const { eventId } = await triggerEvent(h.ctx, theirs.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal(myReceiver.requests.length, 0);
      assert.equal(await countDeliveries(h, myEndpoint.id), 0);
      assert.deepEqual(
        theirReceiver.requests.map((r) => bodyOf(r).id),
        [eventId],
      );
    }));

  test('a batch of successes: settled and reset where pending, history kept where dropped, nothing where deleted', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      const receiver = await s.receiver();
      const [kept, paused, deleted] = [
        await s.endpoint(ws, `${receiver.url}/kept`),
        await s.endpoint(ws, `${receiver.url}/paused`),
        await s.endpoint(ws, `${receiver.url}/deleted`),
      ];
      await h.ctx.db
        .updateTable('webhook_endpoints')
        .set({ failure_count: 3 })
        .where('id', 'in', [kept.id, paused.id])
        .execute();
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await fanOutEvents(h.ctx);
      const now = h.clock.now();
      const claimed = await claimDueDeliveries(h.ctx.db, {
        now,
        until: new Date(now.getTime() + minute),
        limit: 10,
        caps: { perEndpoint: 10, endpoints: [] },
      });
      assert.equal(claimed.length, 3);
      // While the attempts are in flight, one endpoint is switched off and one deleted.
      await patchEndpointApi(h, ws, paused.id, { enabled: false });
      await removeEndpoint(h.ctx, ws.id, deleted.id);

      const result = {
        ok: true,
        statusCode: 200,
        errorClass: null,
        address: '127.0.0.1',
        durationMs: 4,
        responseBody: 'ok',
      };
      await recordSuccesses(
        h.ctx,
        claimed.map((row) => ({ delivery: { ...row, payload: row.payload ?? '' }, startedAt: now, result })),
      );

      const keptDelivery = await onlyDelivery(h, kept);
      assert.equal(keptDelivery.status, 'delivered');
      assert.equal(keptDelivery.deliveredAt, h.clock.now().toISOString());
      assert.deepEqual(
        keptDelivery.attemptLog.map((a) => [
          a.attempt,
          a.statusCode,
          a.address,
          a.durationMs,
          a.responseBody,
        ]),
        [[1, 200, '127.0.0.1', 4, 'ok']],
      );
      assert.equal((await getEndpointApi(h, ws, kept.id)).failureCount, 0, 'a success resets the count');
      const pausedDelivery = await onlyDelivery(h, paused);
      assert.equal(pausedDelivery.status, 'dropped', 'a dropped delivery was settled anyway');
      assert.equal(pausedDelivery.attemptLog.length, 1, 'the attempt of a dropped delivery was not kept');
      assert.equal((await getEndpointApi(h, ws, paused.id)).failureCount, 3);
      assert.equal(await countDeliveries(h, deleted.id), 0);
      assert.equal(await countAttempts(h, deleted.id), 0, 'an attempt was written for a deleted endpoint');
    }));

  test('the engine’s batched success records the attempt, resets the failure count and releases the lease', () =>
    withScope(h, async (s) => {
      // deliverDue runs the production engine: this is the recorder the dispatcher uses.
      const { ws, receiver, endpoint } = await s.hooked();
      await h.ctx.db
        .updateTable('webhook_endpoints')
        .set({ failure_count: 7 })
        .where('id', '=', endpoint.id)
        .execute();
      for (let i = 0; i < 3; i++) await triggerEvent(h.ctx, ws.id, 'document.sent');
      assert.equal(await deliverDue(h.ctx), 3);
      assert.equal(receiver.requests.length, 3);
      const rows = await h.ctx.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'locked_until', 'attempts', 'delivered_at'])
        .where('endpoint_id', '=', endpoint.id)
        .execute();
      assert.equal(rows.length, 3);
      for (const row of rows) {
        assert.equal(row.status, 'delivered');
        assert.equal(row.locked_until, null, 'the lease is released');
        assert.equal(row.attempts, 1);
        assert.equal(row.delivered_at?.toISOString(), h.clock.now().toISOString());
      }
      assert.equal(await countAttempts(h, endpoint.id), 3, 'each attempt is recorded');
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 0, 'a success resets the count');
      assert.equal(await deliverDue(h.ctx), 0, 'nothing is left to send');
    }));

  test('a hand-back after the lease ran out leaves the claim another worker made since', () =>
    withScope(h, async (s) => {
      const { ws } = await s.hooked();
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await fanOutEvents(h.ctx);
      const claim = async (leaseMs: number) => {
        const now = h.clock.now();
        const until = new Date(now.getTime() + leaseMs);
        const claimed = await claimDueDeliveries(h.ctx.db, {
          now,
          until,
          limit: 10,
          caps: { perEndpoint: 10, endpoints: [] },
        });
        assert.equal(claimed.length, 1);
        return { id: (claimed[0] as { id: string }).id, until };
      };
      const row = (id: string) =>
        h.ctx.db
          .selectFrom('webhook_deliveries')
          .select(['attempts', 'locked_until'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();

      const first = await claim(minute); // worker A
      h.clock.advance(minute + second); // A's lease runs out while A still holds the delivery
      const second_ = await claim(minute); // worker B
      assert.equal(second_.id, first.id);
      await releaseDeliveries(h.ctx.db, [first]); // A hands it back, too late
      const afterLate = await row(first.id);
      assert.equal(afterLate.attempts, 2, "B's attempt is still counted");
      assert.equal(afterLate.locked_until?.getTime(), second_.until.getTime(), 'B still holds it');

      await releaseDeliveries(h.ctx.db, [second_]); // B hands it back under its own lease
      const afterOwn = await row(first.id);
      assert.equal(afterOwn.attempts, 1);
      assert.equal(afterOwn.locked_until, null);
    }));

  test('a waiting delivery whose body retention removed is dropped, not sent', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked();
      const { eventId } = await triggerEvent(h.ctx, ws.id, 'document.sent');
      await fanOutEvents(h.ctx);
      await h.ctx.db.deleteFrom('webhook_events').where('id', '=', eventId).execute();
      assert.equal(await deliverDue(h.ctx), 0);
      assert.equal(receiver.requests.length, 0);
      assert.equal((await onlyDelivery(h, endpoint)).status, 'dropped');
    }));

  test('an endpoint deleted between a failed attempt and its retry gets no retry', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(500));
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 1);

      const deleted = await callApi(h, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`, { key: ws.apiKey });
      assert.equal(deleted.status, 200, deleted.text);
      await assertDeletedEndpointGetsNothing(h, receiver, endpoint.id);
    }));

  test('an endpoint deleted while an attempt is in flight gets nothing more', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(neverAnswer);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      const pass = deliverDue(h.ctx);
      await waitFor(() => receiver.requests.length === 1, 2000, 'the first attempt');
      await removeEndpoint(h.ctx, ws.id, endpoint.id);
      await pass;
      await assertDeletedEndpointGetsNothing(h, receiver, endpoint.id);
    }));

  test('a delivery queued for an endpoint as it was switched off is not sent when it is switched back on', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked();
      await patchEndpointApi(h, ws, endpoint.id, { enabled: false });
      // A fan-out that read the endpoint as enabled just before: its delivery lands after the drop.
      const { eventId } = await triggerEvent(h.ctx, ws.id, 'document.sent');
      await fanOutEvents(h.ctx);
      const now = h.clock.now();
      await h.ctx.db
        .insertInto('webhook_deliveries')
        .values({
          id: h.ctx.ids.uuid(),
          workspace_id: ws.id,
          endpoint_id: endpoint.id,
          event_id: eventId,
          event_type: 'document.sent',
          next_attempt_at: now,
          created_at: now,
        })
        .execute();

      await patchEndpointApi(h, ws, endpoint.id, { enabled: true });
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 0, 'an event from while it was off was replayed');
      assert.equal((await onlyDelivery(h, endpoint)).status, 'dropped');
    }));

  test('an endpoint switched off while an attempt is in flight does not retry it after being switched on', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(neverAnswer);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      const pass = deliverDue(h.ctx);
      await waitFor(() => receiver.requests.length === 1, 2000, 'the first attempt');
      await patchEndpointApi(h, ws, endpoint.id, { enabled: false });
      await pass; // the attempt times out after the endpoint was switched off
      const afterPass = await onlyDelivery(h, endpoint);
      const failuresWhileOff = (await getEndpointApi(h, ws, endpoint.id)).failureCount;

      receiver.setHandler(answer(200));
      await patchEndpointApi(h, ws, endpoint.id, { enabled: true });
      h.clock.advance(day);
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 1, 'the delivery dropped by switching off was replayed');
      assert.equal(afterPass.status, 'dropped');
      assert.equal(failuresWhileOff, 0, 'a failure was counted against a switched-off endpoint');
    }));

  // --- 7. Fan-out once -----------------------------------------------------------------

  test('fan-out creates exactly one delivery per (event, endpoint), called twice or concurrently', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      const first = await s.receiver();
      const second = await s.receiver();
      const a = await s.endpoint(ws, `${first.url}/a`);
      const b = await s.endpoint(ws, `${second.url}/b`);
      const pairs = async () =>
        (
          await h.ctx.db
            .selectFrom('webhook_deliveries')
            .select(['event_id', 'endpoint_id'])
            .where('endpoint_id', 'in', [a.id, b.id])
            .execute()
        )
          .map((r) => `${r.event_id}/${r.endpoint_id}`)
          .sort();
      const expected = (eventIds: string[]) =>
        eventIds.flatMap((id) => [`${id}/${a.id}`, `${id}/${b.id}`]).sort();

      const eventIds: string[] = [];
      for (let i = 0; i < 3; i++) eventIds.push((await triggerEvent(h.ctx, ws.id, 'document.sent')).eventId);
      assert.equal(await fanOutEvents(h.ctx), 6);
      assert.equal(await fanOutEvents(h.ctx), 0);
      assert.deepEqual(await pairs(), expected(eventIds));

      for (let i = 0; i < 3; i++) eventIds.push((await triggerEvent(h.ctx, ws.id, 'document.sent')).eventId);
      const created = await Promise.all([fanOutEvents(h.ctx), fanOutEvents(h.ctx)]);
      assert.equal(created[0] + created[1], 6);
      assert.deepEqual(await pairs(), expected(eventIds));

      // The same events in the outbox again (as if written twice) add nothing.
      await h.ctx.db
        .insertInto('outbox')
        .columns(['event_id', 'workspace_id', 'type', 'created_at'])
        .expression(
          h.ctx.db
            .selectFrom('webhook_deliveries')
            .distinctOn('event_id')
            .select(['event_id', 'workspace_id', 'event_type', 'created_at'])
            .where('event_id', 'in', eventIds),
        )
        .execute();
      assert.equal(await fanOutEvents(h.ctx), 0);
      assert.equal(
        (await h.ctx.db.selectFrom('outbox').select('seq').where('event_id', 'in', eventIds).execute())
          .length,
        0,
        'fan-out leaves the events it took in the outbox',
      );
      assert.deepEqual(await pairs(), expected(eventIds));

      await deliverDue(h.ctx);
      for (const receiver of [first, second]) {
        assert.deepEqual(receiver.requests.map((r) => bodyOf(r).id as string).sort(), [...eventIds].sort());
      }
      // Each endpoint's delivery of an event has its own delivery id, named after the two.
      const ids = [...first.requests, ...second.requests].map((r) => header(r, 'x-service-delivery-id'));
      assert.equal(new Set(ids).size, 12);
      for (const [receiver, endpoint] of [
        [first, a],
        [second, b],
      ] as const) {
        for (const request of receiver.requests) {
          assert.equal(
            header(request, 'x-service-delivery-id'),
            nameBasedUuid(endpoint.id, bodyOf(request).id as string),
          );
        }
      }
    }));

  test('deliveries, their attempts and webhook bodies are pruned once older than the retention period (30 days)', () =>
    withScope(h, async (s) => {
      const { ws, endpoint } = await s.hooked();
      const deliveryIds = async () =>
        (
          await h.ctx.db
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('endpoint_id', '=', endpoint.id)
            .orderBy('created_at')
            .execute()
        ).map((r) => r.id);
      const attemptsOf = (id: string) => countRows(h.ctx, 'webhook_attempts', { delivery_id: id });

      const bodies = async () =>
        (
          await h.ctx.db
            .selectFrom('webhook_events')
            .select('id')
            .where('workspace_id', '=', ws.id)
            .orderBy('created_at')
            .execute()
        ).map((r) => r.id);
      const queued = async () =>
        (
          await h.ctx.db.selectFrom('outbox').select('event_id').where('workspace_id', '=', ws.id).execute()
        ).map((r) => r.event_id);

      const oldEvent = (await triggerEvent(h.ctx, ws.id, 'document.sent')).eventId;
      await deliverDue(h.ctx);
      const [old] = await deliveryIds();
      const oldTime = h.clock.now();
      h.clock.advance(30 * day - minute);
      const recentEvent = (await triggerEvent(h.ctx, ws.id, 'document.sent')).eventId;
      await deliverDue(h.ctx);
      const [, recent] = await deliveryIds();
      assert.ok(old && recent);
      assert.equal(await attemptsOf(old), 1);
      assert.deepEqual(await bodies(), [oldEvent, recentEvent]);
      // An event that waited in the outbox all along (no worker ran): queued at the old time.
      await h.ctx.db
        .insertInto('outbox')
        .values({ event_id: oldEvent, workspace_id: ws.id, type: 'document.sent', created_at: oldTime })
        .execute();

      await pruneOldDeliveries(h.ctx);
      assert.deepEqual(await deliveryIds(), [old, recent], 'pruned before 30 days had passed');
      assert.deepEqual(await bodies(), [oldEvent, recentEvent]);
      assert.deepEqual(await queued(), [oldEvent]);
      h.clock.advance(2 * minute);
      await pruneOldDeliveries(h.ctx);
      assert.deepEqual(await deliveryIds(), [recent]);
      assert.equal(await attemptsOf(old), 0, 'the attempts of a pruned delivery are left behind');
      assert.equal(await attemptsOf(recent), 1);
      assert.deepEqual(await bodies(), [recentEvent], 'the old body is left behind');
      assert.deepEqual(await queued(), [], 'an event 30 days in the outbox is still queued');
    }));
});
