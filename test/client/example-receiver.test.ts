// examples/receiver, as an integrator would run it, fed by real deliveries: it verifies
// the signature on the raw body, answers 2xx before doing the work, handles a delivery id
// once however often it arrives, refuses forgeries with 400 and ignores event types it
// does not know.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { WebhookEvent } from '@signet/client';
import { createReceiverServer } from '../../examples/receiver/receiver.ts';
import { sendPing } from '../../src/webhooks/deliveries.service.ts';
import { deliverDue } from '../../src/webhooks/dispatcher.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.service.ts';
import { signatureHeader } from '../../src/webhooks/signature.ts';
import {
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  useHarness,
} from '../support/harness.ts';

describeEachDatabase('the example receiver', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_WEBHOOK_ALLOW_UNSAFE: '1' } });

  test('real deliveries are verified and handled once; forgeries and unknown types are not', async () => {
    let secret = '';
    const handled: Array<{ event: WebhookEvent; deliveryId: string }> = [];
    const server = createReceiverServer({
      secret: () => secret,
      onEvent: (event, deliveryId) => void handled.push({ event, deliveryId }),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const until = async (count: number) => {
      for (let i = 0; i < 100 && handled.length < count; i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(handled.length, count);
    };
    try {
      // Deliveries are signed with the harness clock; the receiver checks against real time.
      h.clock.set(new Date());
      const ws = await createTestWorkspace(h.ctx);
      const endpoint = await createEndpoint(h.ctx, ws.id, { url, events: ['document.sent'] });
      secret = endpoint.secret;

      const ping = await sendPing(h.ctx, ws.id, endpoint.id);
      assert.deepEqual([ping.ok, ping.statusCode], [true, 204]);
      await until(1);
      assert.equal(handled[0]?.event.type, 'ping');

      const document = await createSentDocument(h.ctx, ws.id);
      await deliverDue(h.ctx);
      await until(2);
      const sent = handled[1]?.event;
      assert.ok(sent && sent.type === 'document.sent');
      assert.equal(sent.data.document.id, document.id);

      const post = (body: string, headers: Record<string, string>) =>
        fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
      const at = new Date().toISOString();
      const body = JSON.stringify({
        id: randomUUID(),
        type: 'document.signed',
        createdAt: at,
        data: sent.data,
      });
      const deliveryId = randomUUID();
      const signed = {
        'x-service-signature': signatureHeader(secret, at, body),
        'x-service-delivery-id': deliveryId,
      };
      assert.equal((await post(body, signed)).status, 204);
      assert.equal((await post(body, signed)).status, 204, 'a retry of a handled delivery is still 2xx');
      await until(3);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(handled.filter((h) => h.deliveryId === deliveryId).length, 1, 'handled once');

      const forged = await post(body.replace('document.signed', 'document.declined'), signed);
      assert.equal(forged.status, 400);
      assert.match(await forged.text(), /wrong-signature/);
      assert.equal((await post(body, { 'x-service-delivery-id': randomUUID() })).status, 400);

      const unknown = JSON.stringify({
        id: randomUUID(),
        type: 'document.archived',
        createdAt: at,
        data: {},
      });
      const unknownHeaders = {
        'x-service-signature': signatureHeader(secret, at, unknown),
        'x-service-delivery-id': randomUUID(),
      };
      assert.equal((await post(unknown, unknownHeaders)).status, 204, 'an unknown type is acknowledged');
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(handled.length, 3, 'and ignored');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
