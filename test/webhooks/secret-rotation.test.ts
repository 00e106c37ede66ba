// Rotating an endpoint's signing secret (issue 26, item 3) over real HTTP and real
// deliveries: during the overlap every delivery (events, pings) carries a v1= with the new
// secret and one with the previous, and each verifies (by test/support/receiver.ts's check written
// from the documented scheme, and by @signet/client's verifyWebhook); after it, only the
// new one. A second rotation forgets the oldest secret; overlapHours 0 ends it at once. The
// secret never shows again after the answer that made it; another workspace gets 404.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verifyWebhook, WebhookVerificationError } from '@signet/client';
import { getDeliveryDetail, sendPing } from '../../src/webhooks/deliveries.service.ts';
import { deliverDue } from '../../src/webhooks/dispatcher.ts';
import {
  callApi,
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  type Harness,
  type TestWorkspace,
  useHarness,
} from '../support/harness.ts';
import {
  type ReceivedRequest,
  type Receiver,
  signaturesOf,
  startReceiver,
  verifySignature,
} from '../support/receiver.ts';

const hour = 3_600_000;

interface Rotated {
  id: string;
  secret: string;
  previousSecretExpiresAt: string | null;
}

async function createEndpoint(h: Harness, ws: TestWorkspace, receiver: Receiver) {
  const res = await callApi(h, 'POST', '/v1/webhook-endpoints', {
    key: ws.apiKey,
    body: { url: `${receiver.url}/hooks`, events: ['document.sent'] },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data as { id: string; secret: string };
}

async function rotate(h: Harness, ws: TestWorkspace, id: string, body?: object): Promise<Rotated> {
  const res = await callApi(h, 'POST', `/v1/webhook-endpoints/${id}/rotate-secret`, {
    key: ws.apiKey,
    ...(body ? { body } : {}),
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data as Rotated;
}

/** A document.sent event of the workspace, delivered now: what the receiver got. */
async function nextDelivery(h: Harness, ws: TestWorkspace, receiver: Receiver): Promise<ReceivedRequest> {
  const before = receiver.requests.length;
  await createSentDocument(h.ctx, ws.id);
  await deliverDue(h.ctx);
  assert.equal(receiver.requests.length, before + 1, 'one delivery');
  return receiver.requests.at(-1) as ReceivedRequest;
}

/** Which of `secrets` the delivery verifies with, by both checks (they must agree). */
async function verifiedBy(h: Harness, request: ReceivedRequest, secrets: Record<string, string>) {
  const header = String(request.headers['x-service-signature']);
  const verified: string[] = [];
  for (const [name, secret] of Object.entries(secrets)) {
    const byScheme = verifySignature(secret, header, request.body);
    const byClient = await verifyWebhook(request.body, header, secret, { now: h.clock.now() }).then(
      () => true,
      (error: unknown) => {
        assert.ok(error instanceof WebhookVerificationError);
        assert.equal(error.reason, 'wrong-signature');
        return false;
      },
    );
    assert.equal(byClient, byScheme, `the client and the documented scheme disagree on ${name}`);
    if (byScheme) verified.push(name);
  }
  return { verified, signatures: signaturesOf(header).length };
}

describeEachDatabase('rotating a signing secret', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_WEBHOOK_ALLOW_UNSAFE: '1' } });
  let receiver: Receiver;

  test('setup: a receiver', async () => {
    receiver = await startReceiver();
  });

  test('during the 24-hour default overlap both secrets verify every delivery, new one first; after it only the new one does', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const endpoint = await createEndpoint(h, ws, receiver);
    const old = endpoint.secret;
    assert.deepEqual(await verifiedBy(h, await nextDelivery(h, ws, receiver), { old }), {
      verified: ['old'],
      signatures: 1,
    });

    const rotatedAt = h.clock.now();
    const rotated = await rotate(h, ws, endpoint.id); // no body: the default overlap
    assert.match(rotated.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(rotated.secret, old);
    assert.equal(rotated.id, endpoint.id);
    assert.equal(rotated.previousSecretExpiresAt, new Date(rotatedAt.getTime() + 24 * hour).toISOString());
    const secrets = { old, new: rotated.secret };

    const during = await nextDelivery(h, ws, receiver);
    assert.deepEqual(await verifiedBy(h, during, secrets), { verified: ['old', 'new'], signatures: 2 });
    // The new secret's signature comes first, so a receiver that reads one v1= reads the new one.
    const header = String(during.headers['x-service-signature']);
    assert.ok(verifySignature(rotated.secret, header.replace(/,v1=[0-9a-f]+$/, ''), during.body));

    h.clock.advance(24 * hour - 1000);
    assert.deepEqual(await verifiedBy(h, await nextDelivery(h, ws, receiver), secrets), {
      verified: ['old', 'new'],
      signatures: 2,
    });
    h.clock.advance(1000);
    assert.deepEqual(await verifiedBy(h, await nextDelivery(h, ws, receiver), secrets), {
      verified: ['new'],
      signatures: 1,
    });

    // The secret is never shown again: not by GET, not in the list.
    const got = await callApi(h, 'GET', `/v1/webhook-endpoints/${endpoint.id}`, { key: ws.apiKey });
    const listed = await callApi(h, 'GET', '/v1/webhook-endpoints', { key: ws.apiKey });
    for (const text of [got.text, listed.text]) {
      assert.ok(!text.includes(rotated.secret) && !text.includes(old), 'a secret in a later answer');
      assert.ok(!text.includes('previousSecret'), 'the rotation state in the endpoint object');
    }
  });

  test('overlapHours 0 stops the old secret at once; a second rotation during an overlap forgets the oldest secret; pings are signed the same way', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const endpoint = await createEndpoint(h, ws, receiver);
    const ping = async () => {
      assert.equal((await sendPing(h.ctx, ws.id, endpoint.id)).ok, true);
      return receiver.requests.at(-1) as ReceivedRequest;
    };

    const first = await rotate(h, ws, endpoint.id, { overlapHours: 0 });
    assert.equal(first.previousSecretExpiresAt, null);
    assert.deepEqual(await verifiedBy(h, await ping(), { a: endpoint.secret, b: first.secret }), {
      verified: ['b'],
      signatures: 1,
    });

    const second = await rotate(h, ws, endpoint.id, { overlapHours: 1 });
    h.clock.advance(60_000);
    const third = await rotate(h, ws, endpoint.id, {});
    const all = { a: endpoint.secret, b: first.secret, c: second.secret, d: third.secret };
    assert.deepEqual(await verifiedBy(h, await ping(), all), { verified: ['c', 'd'], signatures: 2 });
    assert.deepEqual(await verifiedBy(h, await nextDelivery(h, ws, receiver), all), {
      verified: ['c', 'd'],
      signatures: 2,
    });
  });

  test("a delivery's page rebuilds the signature of attempts made with the secrets in force, not of those before the rotation", async () => {
    const ws = await createTestWorkspace(h.ctx);
    const endpoint = await createEndpoint(h, ws, receiver);
    const before = await sendPing(h.ctx, ws.id, endpoint.id);
    const sent = receiver.requests.at(-1) as ReceivedRequest;
    const detail = await getDeliveryDetail(h.ctx, ws.id, endpoint.id, before.deliveryId);
    assert.equal(detail.requests[0]?.headers['x-service-signature'], sent.headers['x-service-signature']);
    assert.equal(detail.requests[0]?.signedBeforeRotation, false);

    h.clock.advance(1000);
    await rotate(h, ws, endpoint.id);
    const later = await getDeliveryDetail(h.ctx, ws.id, endpoint.id, before.deliveryId);
    assert.equal(later.requests[0]?.signedBeforeRotation, true);
    assert.equal(later.requests[0]?.headers['x-service-signature'], undefined, 'a signature never sent');

    h.clock.advance(1000);
    const after = await sendPing(h.ctx, ws.id, endpoint.id);
    const afterSent = receiver.requests.at(-1) as ReceivedRequest;
    const afterDetail = await getDeliveryDetail(h.ctx, ws.id, endpoint.id, after.deliveryId);
    assert.equal(
      afterDetail.requests[0]?.headers['x-service-signature'],
      afterSent.headers['x-service-signature'],
    );
  });

  test('a body out of range or of the wrong shape is 400 invalid-body and rotates nothing; another workspace gets 404', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const stranger = await createTestWorkspace(h.ctx);
    const endpoint = await createEndpoint(h, ws, receiver);
    const path = `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`;
    for (const body of [
      { overlapHours: -1 },
      { overlapHours: 169 },
      { overlapHours: 1.5 },
      { overlapHours: '24' },
      { overlapHours: null },
      { overlap: 24 },
      [],
    ]) {
      const res = await callApi(h, 'POST', path, { key: ws.apiKey, body });
      assert.deepEqual(
        [res.status, res.body.ok, res.body.error],
        [400, false, 'invalid-body'],
        JSON.stringify(body),
      );
    }
    const res = await callApi(h, 'POST', path, { key: stranger.apiKey, body: {} });
    assert.deepEqual([res.status, res.body], [404, { ok: false, error: 'not-found' }]);
    assert.deepEqual(await verifiedBy(h, await nextDelivery(h, ws, receiver), { old: endpoint.secret }), {
      verified: ['old'],
      signatures: 1,
    });
    const max = await rotate(h, ws, endpoint.id, { overlapHours: 168 });
    assert.equal(max.previousSecretExpiresAt, new Date(h.clock.now().getTime() + 168 * hour).toISOString());
  });

  test('teardown', async () => {
    await receiver.close();
  });
});
