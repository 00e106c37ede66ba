// How the outcome of a webhook delivery's attempt is judged and recorded (spec: Delivery
// outcome and retries): 2xx delivered; a redirect, an error status, a timeout, a refused
// connection or a TLS failure recorded as the failure it is; only the first 4 KB of an answer
// kept, an endless body cut off; and the delivery log (newest first, every attempt and its
// details, timeouts and refused connections without a status code). Receivers are local
// servers on 127.0.0.1, the clock the test's. Shared setup: webhook-delivery-setup.ts.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { triggerEvent } from '../../src/demo/trigger.ts';
import { listEndpointDeliveries } from '../../src/webhooks/deliveries.service.ts';
import { deliverDue } from '../../src/webhooks/dispatcher.ts';
import { describeEachDatabase } from '../support/harness.ts';
import { header } from '../support/receiver.ts';
import {
  answer,
  assertFirstAttemptFails,
  closeOf,
  day,
  getEndpointApi,
  inTurn,
  iso,
  minute,
  neverAnswer,
  onlyDelivery,
  selfSigned,
  useDeliveryHarness,
  uuidPattern,
  withScope,
} from './webhook-delivery-setup.ts';

describeEachDatabase('webhook delivery: outcomes', (kind) => {
  const { h } = useDeliveryHarness(kind);

  // --- 3. Outcomes ---------------------------------------------------------------------

  for (const status of [200, 201, 204]) {
    test(`a ${status} answer delivers the event in one attempt and leaves failureCount at 0`, () =>
      withScope(h, async (s) => {
        const { ws, receiver, endpoint } = await s.hooked(answer(status, status === 204 ? '' : 'thanks'));
        await triggerEvent(h.ctx, ws.id, 'document.sent');
        await deliverDue(h.ctx);

        const delivery = await onlyDelivery(h, endpoint);
        assert.equal(delivery.status, 'delivered');
        assert.equal(delivery.attempts, 1);
        assert.equal(delivery.deliveredAt, h.clock.now().toISOString());
        assert.equal(delivery.nextAttemptAt, null);
        assert.equal(delivery.attemptLog.length, 1);
        assert.equal(delivery.attemptLog[0]?.statusCode, status);
        assert.equal(delivery.attemptLog[0]?.errorClass, null);
        assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 0);

        h.clock.advance(day);
        await deliverDue(h.ctx);
        assert.equal(receiver.requests.length, 1);
      }));
  }

  for (const status of [301, 302, 307]) {
    test(`a ${status} with a Location is a redirect failure and the Location is not followed`, () =>
      withScope(h, async (s) => {
        const ws = await s.workspace();
        const target = await s.receiver();
        const receiver = await s.receiver(answer(status, '', { location: `${target.url}/moved` }));
        const endpoint = await s.endpoint(ws, `${receiver.url}/hook`);
        await triggerEvent(h.ctx, ws.id, 'document.sent');
        await deliverDue(h.ctx);

        assert.equal(receiver.requests.length, 1);
        assert.equal(target.requests.length, 0);
        const delivery = await onlyDelivery(h, endpoint);
        assert.equal(delivery.status, 'pending');
        assert.equal(delivery.attemptLog[0]?.errorClass, 'redirect');
        assert.equal(delivery.attemptLog[0]?.statusCode, status);
        assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 1);
      }));
  }

  for (const status of [400, 404, 500, 503]) {
    test(`a ${status} answer is an http-status failure with ${status} recorded`, () =>
      withScope(h, async (s) => {
        const { ws, endpoint } = await s.hooked(answer(status, `nope ${status}`));
        await triggerEvent(h.ctx, ws.id, 'document.sent');
        await deliverDue(h.ctx);

        const delivery = await onlyDelivery(h, endpoint);
        assert.equal(delivery.status, 'pending');
        assert.equal(delivery.attempts, 1);
        assert.deepEqual(
          delivery.attemptLog.map((a) => [a.attempt, a.statusCode, a.errorClass, a.responseBody]),
          [[1, status, 'http-status', `nope ${status}`]],
        );
        assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 1);
      }));
  }

  test('a receiver that never answers is a timeout failure after about 1 s (SIGNET_WEBHOOK_TIMEOUT)', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      // By the order of events, not a stopwatch: the sender gave up and closed the
      // connection (the receiver sees it close) before deliverDue returned.
      let closed: Promise<void> | undefined;
      const receiver = await s.receiver((_request, response: ServerResponse) => {
        closed = closeOf(response);
      });
      const endpoint = await s.endpoint(ws, `${receiver.url}/hook`);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      const started = performance.now();
      await deliverDue(h.ctx);
      const elapsed = performance.now() - started;

      assert.equal(receiver.requests.length, 1);
      assert.ok(elapsed >= 950, `deliverDue waited the whole timeout (${elapsed} ms)`);
      await closed; // the sender closed the connection it gave up on
      const delivery = await onlyDelivery(h, endpoint);
      assert.equal(delivery.status, 'pending');
      const [attempt] = delivery.attemptLog;
      assert.equal(attempt?.errorClass, 'timeout');
      assert.equal(attempt?.statusCode, null);
      assert.equal(attempt?.responseBody, null);
      assert.ok((attempt?.durationMs ?? 0) >= 950, `durationMs ${attempt?.durationMs}`);
    }));

  test('a refused connection (a closed receiver) is a connect failure', () =>
    withScope(h, async (s) => {
      const receiver = await s.receiver();
      await receiver.close();
      await assertFirstAttemptFails(h, s, `${receiver.url}/hook`, 'connect');
    }));

  test('an https URL whose server answers in plain HTTP is a tls failure, and nothing is received', () =>
    withScope(h, async (s) => {
      const receiver = await s.receiver();
      await assertFirstAttemptFails(h, s, `${receiver.url.replace('http:', 'https:')}/hook`, 'tls');
      assert.equal(receiver.requests.length, 0);
    }));

  test('a certificate no client trusts (self-signed) is a tls failure, and nothing is received', () =>
    withScope(h, async (s) => {
      const receiver = await s.receiver(answer(200, 'ok'), { tls: selfSigned });
      await assertFirstAttemptFails(h, s, `${receiver.url}/hook`, 'tls');
      assert.equal(receiver.requests.length, 0);
    }));

  test('only the first 4096 bytes of a 100 KB response body are recorded', () =>
    withScope(h, async (s) => {
      const big = 'abcdefghij'.repeat(10 * 1024);
      const { ws, endpoint } = await s.hooked(answer(500, big));
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);

      const [attempt] = (await onlyDelivery(h, endpoint)).attemptLog;
      assert.equal(attempt?.statusCode, 500);
      assert.equal(Buffer.byteLength(attempt?.responseBody ?? ''), 4096);
      assert.equal(attempt?.responseBody, big.slice(0, 4096));
    }));

  test('a receiver streaming an endless body is cut off after 4 KB and the attempt is recorded', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      const chunk = Buffer.alloc(16 * 1024, 'x');
      // Cut off means the sender closed the stream: the receiver sees its answer close
      // before deliverDue returns (by the order of events, not a stopwatch).
      let cutOff: Promise<void> | undefined;
      const receiver = await s.receiver((_request, response: ServerResponse) => {
        cutOff = closeOf(response);
        response.writeHead(200, { 'content-type': 'text/plain' });
        const pump = () => {
          while (!response.destroyed && response.write(chunk)) {}
          if (!response.destroyed) response.once('drain', pump);
        };
        pump();
      });
      const endpoint = await s.endpoint(ws, `${receiver.url}/hook`);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      const memoryBefore = process.memoryUsage().rss;
      await deliverDue(h.ctx);

      await cutOff; // the sender closed the endless answer
      assert.ok(process.memoryUsage().rss - memoryBefore < 200 * 1024 * 1024, 'memory grew by over 200 MB');
      const [attempt] = (await onlyDelivery(h, endpoint)).attemptLog;
      assert.equal(attempt?.statusCode, 200);
      assert.equal(attempt?.responseBody?.length, 4096);
    }));

  test('a receiver trickling an endless body is cut off at the timeout and the attempt is recorded', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      // Cut off at the timeout: the receiver's answer is closed by the sender before
      // deliverDue returns, after at least the timeout (order of events, not a stopwatch).
      let cutOff: Promise<void> | undefined;
      const receiver = await s.receiver((_request, response: ServerResponse) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => response.write('x'), 20);
        response.on('close', () => clearInterval(timer));
        cutOff = closeOf(response);
      });
      const endpoint = await s.endpoint(ws, `${receiver.url}/hook`);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);

      await cutOff; // the sender closed the trickling answer
      const delivery = await onlyDelivery(h, endpoint);
      assert.equal(delivery.attemptLog.length, 1);
      const [attempt] = delivery.attemptLog;
      assert.ok(
        (attempt?.durationMs ?? 0) >= 950,
        `cut at the timeout, not before: ${attempt?.durationMs} ms`,
      );
      assert.ok((attempt?.responseBody?.length ?? 0) <= 4096);
    }));

  // --- 10. Delivery log ----------------------------------------------------------------

  test('the delivery log lists deliveries newest first with every attempt and its details', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(
        inTurn(answer(200, 'accepted'), answer(503, 'busy'), answer(200, 'ok now'), answer(404, 'missing')),
      );
      const t0 = h.clock.now().getTime();
      const a = await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      h.clock.advance(minute);
      const b = await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      h.clock.advance(5 * minute);
      await deliverDue(h.ctx);
      h.clock.advance(minute);
      const c = await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal(receiver.requests.length, 4);

      const log = await listEndpointDeliveries(h.ctx, ws.id, endpoint.id);
      const shape = log.map((d) => ({
        eventId: d.eventId,
        eventType: d.eventType,
        status: d.status,
        attempts: d.attempts,
        createdAt: d.createdAt,
        nextAttemptAt: d.nextAttemptAt,
        deliveredAt: d.deliveredAt,
        attemptLog: d.attemptLog.map(({ durationMs: _, ...rest }) => rest),
      }));
      const attempt = (n: number, at: number, statusCode: number, responseBody: string) => ({
        attempt: n,
        startedAt: iso(at),
        address: '127.0.0.1',
        statusCode,
        errorClass: statusCode < 300 ? null : 'http-status',
        responseBody,
      });
      assert.deepEqual(shape, [
        {
          eventId: c.eventId,
          eventType: 'document.sent',
          status: 'pending',
          attempts: 1,
          createdAt: iso(t0 + 7 * minute),
          nextAttemptAt: iso(t0 + 12 * minute),
          deliveredAt: null,
          attemptLog: [attempt(1, t0 + 7 * minute, 404, 'missing')],
        },
        {
          eventId: b.eventId,
          eventType: 'document.sent',
          status: 'delivered',
          attempts: 2,
          createdAt: iso(t0 + minute),
          nextAttemptAt: null,
          deliveredAt: iso(t0 + 6 * minute),
          attemptLog: [attempt(1, t0 + minute, 503, 'busy'), attempt(2, t0 + 6 * minute, 200, 'ok now')],
        },
        {
          eventId: a.eventId,
          eventType: 'document.sent',
          status: 'delivered',
          attempts: 1,
          createdAt: iso(t0),
          nextAttemptAt: null,
          deliveredAt: iso(t0),
          attemptLog: [attempt(1, t0, 200, 'accepted')],
        },
      ]);
      for (const delivery of log) {
        assert.match(delivery.id, uuidPattern);
        for (const entry of delivery.attemptLog) {
          assert.ok(Number.isInteger(entry.durationMs) && entry.durationMs >= 0 && entry.durationMs < 1000);
        }
      }
      // The log shows the delivery ids the receiver saw.
      assert.deepEqual(
        receiver.requests.map((r) => header(r, 'x-service-delivery-id')),
        [log[2]?.id, log[1]?.id, log[1]?.id, log[0]?.id],
      );
    }));

  test('the delivery log records timeouts and refused connections without a status code or body', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(neverAnswer);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      await receiver.close();
      h.clock.advance(5 * minute);
      await deliverDue(h.ctx);

      const delivery = await onlyDelivery(h, endpoint);
      assert.deepEqual(
        delivery.attemptLog.map((a) => [a.attempt, a.address, a.statusCode, a.errorClass, a.responseBody]),
        [
          [1, '127.0.0.1', null, 'timeout', null],
          [2, '127.0.0.1', null, 'connect', null],
        ],
      );
    }));
});
