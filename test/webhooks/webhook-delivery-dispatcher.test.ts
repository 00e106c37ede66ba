// The running webhook dispatcher (startDispatcher) on the real clock: it checks the address at
// connect time too, reaches a receiver well under a second after the event commits (woken by
// NOTIFY), records a lone success without waiting for a batch, and no receiver that never
// answers starves another endpoint (per-endpoint concurrency, the overall one, a backlog
// larger than it). Shared setup: webhook-delivery-setup.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Context, systemClock } from '../../src/context.ts';
import { triggerEvent } from '../../src/demo/trigger.ts';
import type { DeliveryView } from '../../src/webhooks/deliveries.service.ts';
import { startDispatcher } from '../../src/webhooks/dispatcher.ts';
import { describeEachDatabase, testResolver, useHarness } from '../support/harness.ts';
import { header, type ReceivedRequest, type Receiver, verifySignature } from '../support/receiver.ts';
import {
  answer,
  bodyOf,
  deliveriesOf,
  minute,
  neverAnswer,
  type Scope,
  waitFor,
  withScope,
} from './webhook-delivery-setup.ts';

// ---------------------------------------------------------------------------------------
// 11, 12. The running dispatcher, on the real clock
// ---------------------------------------------------------------------------------------

describeEachDatabase('the running webhook dispatcher', (kind) => {
  const resolver = testResolver();
  const h = useHarness(kind, {
    env: { SIGNET_WEBHOOK_ALLOW_UNSAFE: '1', SIGNET_WEBHOOK_TIMEOUT: '2s' },
    resolver,
  });
  const live = (): Context => ({ ...h.ctx, clock: systemClock });

  test('the running dispatcher checks the address at connect time too: a name now resolving to 127.0.0.1 is blocked', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      const receiver = await s.receiver();
      resolver.names['rebind-live.test-hooks.net'] = ['93.184.216.43'];
      const endpoint = await s.endpoint(ws, 'https://rebind-live.test-hooks.net/hook');
      resolver.names['rebind-live.test-hooks.net'] = ['127.0.0.1'];
      // The production policy (no SIGNET_WEBHOOK_ALLOW_UNSAFE) on the same database.
      const ctx = live();
      const strict: Context = {
        ...ctx,
        config: { ...ctx.config, webhooks: { ...ctx.config.webhooks, allowUnsafe: false } },
      };
      const dispatcher = await startDispatcher(strict, { subscribe: h.subscribe });
      try {
        await triggerEvent(strict, ws.id, 'document.sent');
        let attempts: DeliveryView['attemptLog'] = [];
        const deadline = Date.now() + 3000;
        while (attempts.length === 0 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          attempts = (await deliveriesOf(h, endpoint))[0]?.attemptLog ?? [];
        }
        assert.deepEqual(
          attempts.map((a) => [a.attempt, a.address, a.statusCode, a.errorClass]),
          [[1, '127.0.0.1', null, 'blocked']],
        );
        assert.equal(receiver.requests.length, 0);
      } finally {
        await dispatcher.stop();
      }
    }));

  /** A workspace with one endpoint at a fresh receiver, and a dispatcher running on the real clock. */
  async function liveScene(s: Scope) {
    const ctx = live();
    const { ws, receiver, endpoint } = await s.hooked();
    const dispatcher = await startDispatcher(ctx, { subscribe: h.subscribe });
    return { ctx, ws, receiver, endpoint, dispatcher };
  }

  test('the first attempt reaches the receiver well under 1 s after the event commits, woken by NOTIFY', () =>
    withScope(h, async (s) => {
      assert.equal(h.config.webhooks.sweepIntervalMs, 10 * minute);
      const { ctx, ws, receiver, endpoint, dispatcher } = await liveScene(s);
      try {
        await dispatcher.idle();
        for (let i = 0; i < 3; i++) {
          const started = Date.now();
          const { eventId } = await triggerEvent(ctx, ws.id, 'document.sent');
          await waitFor(() => receiver.requests.length === i + 1, 3000, `delivery ${i + 1}`);
          const request = receiver.requests[i] as ReceivedRequest;
          const latency = request.receivedAt - started;
          assert.ok(latency < 1000, `delivery ${i + 1} took ${latency} ms`);
          assert.equal(bodyOf(request).id, eventId);
          assert.ok(verifySignature(endpoint.secret, header(request, 'x-service-signature'), request.body));
        }
        await dispatcher.idle();
        const deliveries = await deliveriesOf(h, endpoint);
        assert.deepEqual(
          deliveries.map((d) => [d.status, d.attempts]),
          [
            ['delivered', 1],
            ['delivered', 1],
            ['delivered', 1],
          ],
        );
      } finally {
        await dispatcher.stop();
      }
    }));

  test('a lone success is recorded without waiting for a full batch', () =>
    withScope(h, async (s) => {
      const { ctx, ws, receiver, endpoint, dispatcher } = await liveScene(s);
      try {
        await triggerEvent(ctx, ws.id, 'document.sent');
        await waitFor(() => receiver.requests.length === 1, 3000, 'the delivery');
        // No idle() here: that would write the batch itself.
        let statuses: string[] = [];
        await waitFor(
          async () => {
            statuses = (await deliveriesOf(h, endpoint)).map((d) => d.status);
            return statuses.join() === 'delivered';
          },
          2000,
          () => `the delivery to be recorded delivered (it is ${statuses.join() || 'missing'})`,
        );
      } finally {
        await dispatcher.stop();
      }
    }));

  async function slowReceiversCannotStarveOthers(
    slowCount: number,
    concurrency: number | null,
  ): Promise<void> {
    await withScope(h, async (s) => {
      assert.equal(h.config.webhooks.perEndpointConcurrency, 4);
      const ctx = live();
      const config =
        concurrency === null
          ? ctx.config
          : { ...ctx.config, webhooks: { ...ctx.config.webhooks, concurrency } };
      const ws = await s.workspace();
      const slow: Receiver[] = [];
      const slowEndpoints: string[] = [];
      for (let i = 0; i < slowCount; i++) {
        const receiver = await s.receiver(neverAnswer);
        slow.push(receiver);
        slowEndpoints.push((await s.endpoint(ws, `${receiver.url}/slow-${i}`)).id);
      }
      const fast = await s.receiver(answer(200));
      const b = await s.endpoint(ws, `${fast.url}/b`);
      for (let i = 0; i < 20; i++) await triggerEvent(ctx, ws.id, 'document.sent');
      const slowCounts = () => slow.map((r) => r.requests.length).join('/');

      const started = Date.now();
      const dispatcher = await startDispatcher({ ...ctx, config }, { subscribe: h.subscribe });
      try {
        await waitFor(
          () => fast.requests.length === 20,
          1500,
          () =>
            `B to receive all 20 deliveries (B got ${fast.requests.length}, slow ones got ${slowCounts()})`,
        );
        const elapsed = Date.now() - started;
        assert.ok(elapsed < 1500, `B took ${elapsed} ms`);
        // The slow endpoints' first attempts are still hanging: at most 4 each, none finished.
        for (const receiver of slow) {
          assert.ok(
            receiver.requests.length >= 1 && receiver.requests.length <= 4,
            `slow receivers got ${slowCounts()}`,
          );
        }
        const attemptsOfSlow = await h.ctx.db
          .selectFrom('webhook_attempts')
          .select('attempt')
          .where('endpoint_id', 'in', slowEndpoints)
          .execute();
        assert.equal(attemptsOfSlow.length, 0);
        assert.equal(new Set(fast.requests.map((r) => bodyOf(r).id)).size, 20);
      } finally {
        await dispatcher.stop();
      }
      const deliveredToB = (await deliveriesOf(h, b)).filter((d) => d.status === 'delivered');
      assert.equal(deliveredToB.length, 20);
    });
  }

  test('a receiver that never answers cannot starve another endpoint (per-endpoint concurrency 4)', () =>
    slowReceiversCannotStarveOthers(1, null));

  test('three receivers that never answer cannot starve a fourth endpoint (default concurrency)', () =>
    slowReceiversCannotStarveOthers(3, null));

  test('a slow endpoint cannot starve another even when its backlog exceeds the overall concurrency', () =>
    slowReceiversCannotStarveOthers(1, 8));
});
