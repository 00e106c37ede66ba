// A failing webhook delivery's retries (spec: Delivery outcome and retries, Webhook endpoint
// enablement): retried no sooner than 5 min, 30 min and 2 h after each failure, then dropped;
// a success on a retry stops them; a dropped delivery resent through the API; and the pause
// at exactly 20 consecutive failures (retries dropped, re-enabling replays nothing, a success
// before resets the count). The test clock moves through the schedule. Shared setup:
// webhook-delivery-setup.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { triggerEvent } from '../../src/demo/trigger.ts';
import { deliverDue } from '../../src/webhooks/dispatcher.ts';
import { callApi, describeEachDatabase } from '../support/harness.ts';
import { header, type ReceivedRequest, verifySignature } from '../support/receiver.ts';
import {
  answer,
  bodyOf,
  countDeliveries,
  day,
  deliveriesOf,
  getEndpointApi,
  hour,
  inTurn,
  iso,
  minute,
  onlyDelivery,
  patchEndpointApi,
  second,
  signatureTime,
  useDeliveryHarness,
  withScope,
} from './webhook-delivery-setup.ts';

describeEachDatabase('webhook delivery: retries and the pause', (kind) => {
  const { h } = useDeliveryHarness(kind);

  // --- 4. Retry schedule ---------------------------------------------------------------

  test('a failing delivery is retried no sooner than 5 min, 30 min and 2 h after each failure, then dropped', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(500, 'down'));
      const { eventId } = await triggerEvent(h.ctx, ws.id, 'document.sent');
      const attemptTimes: string[] = [h.clock.now().toISOString()];
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 1);

      let delivery = await onlyDelivery(h, endpoint);
      assert.equal(delivery.status, 'pending');
      assert.equal(delivery.attempts, 1);
      assert.equal(delivery.nextAttemptAt, iso(h.clock.now().getTime() + 5 * minute));

      for (const [attempt, delay] of [
        [2, 5 * minute],
        [3, 30 * minute],
        [4, 2 * hour],
      ] as const) {
        h.clock.advance(delay - second);
        assert.equal(await deliverDue(h.ctx), 0, `attempt ${attempt} went out a second early`);
        assert.equal(receiver.requests.length, attempt - 1);
        h.clock.advance(second);
        attemptTimes.push(h.clock.now().toISOString());
        await deliverDue(h.ctx);
        assert.equal(receiver.requests.length, attempt, `attempt ${attempt} did not go out on time`);
        delivery = await onlyDelivery(h, endpoint);
        assert.equal(delivery.attempts, attempt);
        if (attempt < 4) {
          assert.equal(delivery.status, 'pending');
          const next = attempt === 2 ? 30 * minute : 2 * hour;
          assert.equal(delivery.nextAttemptAt, iso(h.clock.now().getTime() + next));
        }
      }
      assert.equal(delivery.status, 'dropped');
      assert.equal(delivery.nextAttemptAt, null);
      assert.deepEqual(
        delivery.attemptLog.map((a) => [a.attempt, a.startedAt, a.errorClass, a.statusCode]),
        attemptTimes.map((t, i) => [i + 1, t, 'http-status', 500]),
      );

      for (let i = 0; i < 4; i++) {
        h.clock.advance(day / 4);
        await deliverDue(h.ctx);
      }
      assert.equal(receiver.requests.length, 4);

      // Every attempt: the same delivery id and body, each signed at its own time.
      const deliveryIds = new Set(receiver.requests.map((r) => header(r, 'x-service-delivery-id')));
      assert.deepEqual([...deliveryIds], [delivery.id]);
      assert.equal(new Set(receiver.requests.map((r) => r.body)).size, 1);
      assert.equal(bodyOf(receiver.requests[0] as ReceivedRequest).id, eventId);
      receiver.requests.forEach((r, i) => {
        const signature = header(r, 'x-service-signature');
        assert.equal(signatureTime(signature), attemptTimes[i]);
        assert.ok(verifySignature(endpoint.secret, signature, r.body), `attempt ${i + 1} signature`);
      });
    }));

  test('a success on retry 2 marks the delivery delivered and stops the retries', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(
        inTurn(answer(503), answer(500), answer(200, 'finally')),
      );
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      h.clock.advance(5 * minute);
      await deliverDue(h.ctx);
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 2);
      h.clock.advance(30 * minute);
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 3);

      const delivery = await onlyDelivery(h, endpoint);
      assert.equal(delivery.status, 'delivered');
      assert.equal(delivery.attempts, 3);
      assert.equal(delivery.deliveredAt, h.clock.now().toISOString());
      assert.deepEqual(
        delivery.attemptLog.map((a) => [a.attempt, a.statusCode, a.errorClass]),
        [
          [1, 503, 'http-status'],
          [2, 500, 'http-status'],
          [3, 200, null],
        ],
      );
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 0);

      h.clock.advance(day);
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 3);
      assert.equal(new Set(receiver.requests.map((r) => header(r, 'x-service-delivery-id'))).size, 1);
      assert.equal(new Set(receiver.requests.map((r) => r.body)).size, 1);
    }));

  test('a dropped delivery is resent through the API: the same delivery id and body, signed anew, recorded as its next attempt', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(
        inTurn(...Array(4).fill(answer(500, 'down')), answer(200, 'ok')),
      );
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      for (const delay of [5 * minute, 30 * minute, 2 * hour]) {
        h.clock.advance(delay);
        await deliverDue(h.ctx);
      }
      const dropped = await onlyDelivery(h, endpoint);
      assert.equal(dropped.status, 'dropped');
      const path = `/v1/webhook-endpoints/${endpoint.id}/deliveries`;

      // The API's log lists it, with each attempt's outcome but not the receiver's answer.
      const log = await callApi(h, 'GET', path, { key: ws.apiKey });
      assert.equal(log.status, 200, log.text);
      const [listed] = log.body.data as Array<Record<string, unknown> & { attemptLog: object[] }>;
      assert.equal(listed?.id, dropped.id);
      assert.equal(listed?.status, 'dropped');
      assert.equal(listed?.attemptLog.length, 4);
      assert.deepEqual(Object.keys(listed?.attemptLog[0] ?? {}).sort(), [
        'attempt',
        'durationMs',
        'errorClass',
        'startedAt',
        'statusCode',
      ]);
      assert.equal(log.body.nextCursor, null);
      assert.deepEqual((await callApi(h, 'GET', `${path}?cursor=nope`, { key: ws.apiKey })).body, {
        ok: false,
        error: 'invalid-cursor',
      });

      h.clock.advance(day);
      const resent = await callApi(h, 'POST', `${path}/${dropped.id}/resend`, { key: ws.apiKey });
      assert.equal(resent.status, 200, resent.text);
      assert.deepEqual(resent.body.data, {
        deliveryId: dropped.id,
        attempt: 5,
        delivered: true,
        statusCode: 200,
        errorClass: null,
        durationMs: (resent.body.data as { durationMs: number }).durationMs,
      });
      assert.equal(receiver.requests.length, 5);
      const [first, last] = [receiver.requests[0], receiver.requests[4]];
      assert.equal(last?.headers['x-service-delivery-id'], dropped.id, 'the same delivery id');
      assert.equal(last?.body, first?.body, 'the same body, byte for byte');
      assert.notEqual(
        last?.headers['x-service-signature'],
        first?.headers['x-service-signature'],
        'signed anew',
      );
      const after = await onlyDelivery(h, endpoint);
      assert.equal(after.status, 'delivered');
      assert.deepEqual(
        after.attemptLog.map((a) => [a.attempt, a.statusCode]),
        [
          [1, 500],
          [2, 500],
          [3, 500],
          [4, 500],
          [5, 200],
        ],
      );
      // Delivered now: nothing more to resend; another workspace's key sees nothing.
      assert.deepEqual((await callApi(h, 'POST', `${path}/${dropped.id}/resend`, { key: ws.apiKey })).body, {
        ok: false,
        error: 'delivery-not-resendable',
      });
      const stranger = await s.workspace();
      assert.equal(
        (await callApi(h, 'POST', `${path}/${dropped.id}/resend`, { key: stranger.apiKey })).status,
        404,
      );
      assert.equal((await callApi(h, 'GET', path, { key: stranger.apiKey })).status, 404);
      assert.equal(receiver.requests.length, 5, 'nothing sent by the refusals');
    }));

  test('a resend that fails leaves the delivery dropped with one more attempt; a pending delivery is not resent', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(503, 'still down'));
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      const pending = await onlyDelivery(h, endpoint);
      assert.equal(pending.status, 'pending');
      const path = `/v1/webhook-endpoints/${endpoint.id}/deliveries/${pending.id}/resend`;
      assert.deepEqual((await callApi(h, 'POST', path, { key: ws.apiKey })).body, {
        ok: false,
        error: 'delivery-not-resendable',
      });
      for (const delay of [5 * minute, 30 * minute, 2 * hour]) {
        h.clock.advance(delay);
        await deliverDue(h.ctx);
      }
      const failed = await callApi(h, 'POST', path, { key: ws.apiKey });
      assert.equal(failed.status, 200);
      assert.equal((failed.body.data as { delivered: boolean }).delivered, false);
      assert.equal((failed.body.data as { statusCode: number }).statusCode, 503);
      const after = await onlyDelivery(h, endpoint);
      assert.equal(after.status, 'dropped');
      assert.equal(after.attempts, 5);
      assert.equal(receiver.requests.length, 5);
      // The resend does not count toward pausing the endpoint.
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 4);
    }));

  // --- 5. Auto-disable at exactly 20 ---------------------------------------------------

  test('the 20th consecutive failure pauses the endpoint, drops its retries, and re-enabling replays nothing', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(500, 'down'));
      for (let i = 0; i < 19; i++) await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 19);
      let current = await getEndpointApi(h, ws, endpoint.id);
      assert.equal(current.enabled, true);
      assert.equal(current.failureCount, 19);
      assert.equal(current.disabledReason, null);

      h.clock.advance(second);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 20);
      current = await getEndpointApi(h, ws, endpoint.id);
      assert.equal(current.enabled, false);
      assert.equal(current.disabledReason, 'failures');
      assert.equal(current.failureCount, 20);
      const deliveries = await deliveriesOf(h, endpoint);
      assert.equal(deliveries.length, 20);
      assert.deepEqual(new Set(deliveries.map((d) => d.status)), new Set(['dropped']));

      // While it is off: new events create no deliveries, nothing is sent, even much later.
      receiver.setHandler(answer(200));
      for (let i = 0; i < 3; i++) await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal(await countDeliveries(h, endpoint.id), 20);
      for (let i = 0; i < 4; i++) {
        h.clock.advance(hour);
        await deliverDue(h.ctx);
      }
      assert.equal(receiver.requests.length, 20);

      const patched = await patchEndpointApi(h, ws, endpoint.id, { enabled: true });
      assert.equal(patched.enabled, true);
      assert.equal(patched.failureCount, 0);
      assert.equal(patched.disabledReason, null);
      current = await getEndpointApi(h, ws, endpoint.id);
      assert.equal(current.failureCount, 0);
      assert.equal(current.disabledReason, null);

      const { eventId } = await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      for (let i = 0; i < 4; i++) {
        h.clock.advance(hour);
        await deliverDue(h.ctx);
      }
      assert.equal(receiver.requests.length, 21, 'a dropped delivery or a missed event was replayed');
      assert.equal(bodyOf(receiver.requests[20] as ReceivedRequest).id, eventId);
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 0);
    }));

  test('a success before the 20th failure resets failureCount to 0, so failures must be consecutive', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(500));
      for (let i = 0; i < 15; i++) await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 15);

      receiver.setHandler(answer(200));
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 0);

      receiver.setHandler(answer(500));
      for (let i = 0; i < 15; i++) await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      const current = await getEndpointApi(h, ws, endpoint.id);
      assert.equal(current.failureCount, 15);
      assert.equal(current.enabled, true);
    }));

  test('deliveries in flight when the 20th failure pauses the endpoint are dropped too, never replayed', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(500));
      // 25 first attempts at once: the 20th recorded failure pauses the endpoint while
      // the other 5 are still in flight.
      for (let i = 0; i < 25; i++) await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 25);
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).enabled, false);
      const statuses = (await deliveriesOf(h, endpoint)).map((d) => d.status);

      receiver.setHandler(answer(200));
      await patchEndpointApi(h, ws, endpoint.id, { enabled: true });
      h.clock.advance(day);
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 25, 'a delivery dropped by the pause was replayed');
      assert.deepEqual(
        statuses.filter((status) => status !== 'dropped'),
        [],
        'deliveries still pending on a paused endpoint',
      );
    }));
});
