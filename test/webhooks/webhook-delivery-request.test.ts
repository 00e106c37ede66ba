// What a webhook receiver gets (spec: Webhook delivery, Delivery request, Webhook delivery
// signature): each event's request shape, headers and body; the signature, checked by a
// verifier written from the documented scheme (test/support/receiver.ts), not by
// src/webhooks/signature.ts, and by the receiver example of docs/api.md itself; a ping
// (sendPing's outcome, never retried, never an endpoint failure); and the address checked
// again at connect time under the real destination policy (DNS rebinding). Every receiver is
// a local HTTP (or HTTPS) server on 127.0.0.1; every name goes through the fake resolver.
// Shared setup: webhook-delivery-setup.ts.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { triggerEvent } from '../../src/demo/trigger.ts';
import { sendPing } from '../../src/webhooks/deliveries.service.ts';
import { deliverDue } from '../../src/webhooks/dispatcher.ts';
import { rotateEndpointSecret } from '../../src/webhooks/endpoints.service.ts';
import {
  allEventTypes,
  callApi,
  describeEachDatabase,
  listedDocumentKeys,
  testResolver,
  useHarness,
} from '../support/harness.ts';
import { header, type ReceivedRequest, signaturePattern, verifySignature } from '../support/receiver.ts';
import {
  answer,
  bodyOf,
  documentedVerifier,
  getEndpointApi,
  hour,
  iso,
  minute,
  neverAnswer,
  onlyDelivery,
  recipientKeys,
  type Scope,
  signatureTime,
  useDeliveryHarness,
  uuidPattern,
  withScope,
} from './webhook-delivery-setup.ts';

describeEachDatabase('webhook delivery: the request', (kind) => {
  const { h } = useDeliveryHarness(kind);

  // --- 1. Request shape ----------------------------------------------------------------

  async function checkRequestShape(
    s: Scope,
    type: 'document.sent' | 'document.signed' | 'document.completed',
  ): Promise<void> {
    const ws = await s.workspace();
    const receiver = await s.receiver();
    const endpoint = await s.endpoint(ws, `${receiver.url}/hooks/signet?source=delivery-test`, [type]);
    const { documentId, eventId } = await triggerEvent(h.ctx, ws.id, type);
    await deliverDue(h.ctx);

    assert.equal(receiver.requests.length, 1);
    const request = receiver.requests[0] as ReceivedRequest;
    assert.equal(request.method, 'POST');
    assert.equal(request.url, '/hooks/signet?source=delivery-test');
    assert.equal(header(request, 'content-type'), 'application/json');
    assert.equal(header(request, 'user-agent'), 'Service-Webhooks/1.0');
    const body = bodyOf(request);
    assert.equal(header(request, 'x-service-event'), body.type);
    assert.equal(body.type, type);
    assert.match(header(request, 'x-service-delivery-id'), uuidPattern);
    assert.equal(header(request, 'x-service-delivery-id'), (await onlyDelivery(h, endpoint)).id);
    assert.match(header(request, 'x-service-signature'), signaturePattern);

    assert.deepEqual(Object.keys(body).sort(), ['createdAt', 'data', 'id', 'type']);
    assert.deepEqual(Object.keys(body.data).sort(), ['document', 'recipient']);
    assert.equal(body.id, eventId);

    const detail = await callApi(h, 'GET', `/v1/documents/${documentId}`, { key: ws.apiKey });
    assert.equal(detail.status, 200, detail.text);
    // The certificate's language is the detail's alone (docs/api.md): webhooks carry the document as listed.
    const {
      recipients,
      events,
      files,
      language: _language,
      ...document
    } = detail.body.data as Record<string, unknown> & {
      recipients: Array<Record<string, unknown>>;
      events: Array<{ id: string; type: string; createdAt: string }>;
      files: Array<Record<string, unknown>>;
    };
    const event = events.find((e) => e.id === body.id);
    assert.ok(event, `event ${String(body.id)} is not in the document's history`);
    assert.equal(event.type, type);
    assert.equal(body.createdAt, event.createdAt);

    const { files: sentFiles, ...sentDocument } = body.data.document as Record<string, unknown>;
    assert.deepEqual(Object.keys(sentDocument).sort(), listedDocumentKeys);
    assert.deepEqual(sentDocument, document);
    if (type === 'document.completed') {
      // The completed document carries its files as the detail lists them, without the links.
      assert.deepEqual(
        sentFiles,
        files.map(({ downloadUrl: _link, ...file }) => file),
      );
    } else {
      assert.equal(sentFiles, undefined, 'only document.completed carries files');
    }
    if (type === 'document.signed') {
      const recipient = body.data.recipient as Record<string, unknown>;
      assert.deepEqual(Object.keys(recipient).sort(), recipientKeys);
      // As the detail shows the recipient, without what only the detail has: the fields placed
      // for them, and whether and why they declined.
      const {
        fields: _fields,
        declinedAt: _declinedAt,
        declineReason: _declineReason,
        ...listed
      } = recipients.find((r) => r.id === recipient.id) ?? {};
      assert.deepEqual(recipient, listed);
      assert.equal(recipient.email, 'first.signer@example.com');
      assert.equal(recipient.signedAt, body.createdAt);
    } else {
      assert.equal(body.data.recipient, null);
    }
  }

  test('a document.sent delivery is a POST to the endpoint URL with the documented headers and body, recipient null', () =>
    withScope(h, (s) => checkRequestShape(s, 'document.sent')));

  test('a document.signed delivery carries the document as listed and the signer as the read API shows it', () =>
    withScope(h, (s) => checkRequestShape(s, 'document.signed')));

  test('a document.completed delivery carries the completed document and recipient null', () =>
    withScope(h, (s) => checkRequestShape(s, 'document.completed')));

  // --- 2. Signature --------------------------------------------------------------------

  test('the signature verifies with the secret from the create response and is timed at sending', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked();
      const other = await s.endpoint(ws, `${receiver.url}/other`, ['document.declined']);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      h.clock.advance(7 * minute + 123);
      const sentAt = h.clock.now().toISOString();
      await deliverDue(h.ctx);

      assert.equal(receiver.requests.length, 1);
      const request = receiver.requests[0] as ReceivedRequest;
      const signature = header(request, 'x-service-signature');
      assert.equal(signatureTime(signature), sentAt);
      assert.ok(verifySignature(endpoint.secret, signature, request.body), 'signature does not verify');

      // Anything changed on the way makes it fail.
      const tampered = request.body.replace('"document.sent"', '"document.signed"');
      assert.notEqual(tampered, request.body);
      assert.equal(verifySignature(endpoint.secret, signature, tampered), false);
      assert.equal(verifySignature(endpoint.secret, signature, `${request.body} `), false);
      assert.equal(verifySignature(other.secret, signature, request.body), false);
      const otherTime = signature.replace(sentAt, iso(Date.parse(sentAt) + 1));
      assert.equal(verifySignature(endpoint.secret, otherTime, request.body), false);
    }));

  test('the verifier published in docs/api.md accepts a real delivery and refuses tampering, replays and unreadable times', () =>
    withScope(h, async (s) => {
      const verifySignet = await documentedVerifier();
      const { ws, receiver, endpoint } = await s.hooked();
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);

      const request = receiver.requests[0] as ReceivedRequest;
      const signature = header(request, 'x-service-signature');
      const sentAt = Date.parse(signatureTime(signature));
      const { body } = request;
      assert.equal(verifySignet(body, signature, endpoint.secret, sentAt), true);
      assert.equal(verifySignet(Buffer.from(body, 'utf8'), signature, endpoint.secret, sentAt), true);
      // The tolerance is 5 minutes either way, to the millisecond.
      assert.equal(verifySignet(body, signature, endpoint.secret, sentAt + 5 * minute), true);
      assert.equal(verifySignet(body, signature, endpoint.secret, sentAt - 5 * minute), true);
      assert.equal(verifySignet(body, signature, endpoint.secret, sentAt + 5 * minute + 1), false);
      assert.equal(verifySignet(body, signature, endpoint.secret, sentAt - 5 * minute - 1), false);
      assert.equal(verifySignet(`${body} `, signature, endpoint.secret, sentAt), false);
      assert.equal(verifySignet(body, signature, `${endpoint.secret}x`, sentAt), false);
      assert.equal(verifySignet(body, undefined, endpoint.secret, sentAt), false);
      // A correctly signed time that is no date must not slip past the tolerance as NaN.
      const impossible = '2026-13-45T25:61:61.000Z';
      const mac = createHmac('sha256', endpoint.secret).update(`${impossible}.${body}`).digest('hex');
      assert.equal(verifySignet(body, `t=${impossible},v1=${mac}`, endpoint.secret, sentAt), false);

      // During a rotation's overlap: two v1=, and either secret verifies.
      const rotated = await rotateEndpointSecret(h.ctx, ws.id, endpoint.id, 1);
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      const twice = receiver.requests.at(-1) as ReceivedRequest;
      const both = header(twice, 'x-service-signature');
      const at = Date.parse(/^t=([^,]+)/.exec(both)?.[1] ?? '');
      assert.equal(both.split(',v1=').length, 3);
      assert.equal(verifySignet(twice.body, both, endpoint.secret, at), true);
      assert.equal(verifySignet(twice.body, both, rotated.secret, at), true);
      assert.equal(verifySignet(twice.body, both, `${rotated.secret}x`, at), false);
      assert.equal(verifySignet(`${twice.body} `, both, rotated.secret, at), false);
    }));

  // --- 8. Ping -------------------------------------------------------------------------

  test('sendPing sends a signed ping and returns its outcome', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(200, 'pong'));
      const sentAt = h.clock.now().toISOString();
      const result = await sendPing(h.ctx, ws.id, endpoint.id);

      assert.equal(result.ok, true);
      assert.equal(result.statusCode, 200);
      assert.equal(result.errorClass, null);
      assert.equal(typeof result.durationMs, 'number');
      assert.equal(receiver.requests.length, 1);
      const request = receiver.requests[0] as ReceivedRequest;
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/hook');
      assert.equal(header(request, 'content-type'), 'application/json');
      assert.equal(header(request, 'user-agent'), 'Service-Webhooks/1.0');
      assert.equal(header(request, 'x-service-event'), 'ping');
      assert.equal(header(request, 'x-service-delivery-id'), result.deliveryId);
      assert.match(result.deliveryId, uuidPattern);
      const signature = header(request, 'x-service-signature');
      assert.equal(signatureTime(signature), sentAt);
      assert.ok(verifySignature(endpoint.secret, signature, request.body), 'ping signature does not verify');

      const body = bodyOf(request);
      assert.deepEqual(Object.keys(body).sort(), ['createdAt', 'data', 'id', 'type']);
      assert.equal(body.id, result.eventId);
      assert.match(body.id as string, uuidPattern);
      assert.equal(body.type, 'ping');
      assert.equal(body.createdAt, sentAt);
      assert.deepEqual(Object.keys(body.data), ['message']);
      assert.equal(typeof body.data.message, 'string');

      const delivery = await onlyDelivery(h, endpoint);
      assert.equal(delivery.id, result.deliveryId);
      assert.equal(delivery.eventType, 'ping');
      assert.equal(delivery.status, 'delivered');
      assert.equal(delivery.attemptLog[0]?.responseBody, 'pong');
    }));

  test('a failed ping is not retried and does not count as an endpoint failure', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(500, 'broken'));
      const result = await sendPing(h.ctx, ws.id, endpoint.id);
      assert.equal(result.ok, false);
      assert.equal(result.statusCode, 500);
      assert.equal(result.errorClass, 'http-status');

      receiver.setHandler(answer(200));
      for (let i = 0; i < 6; i++) {
        h.clock.advance(hour);
        await deliverDue(h.ctx);
      }
      assert.equal(receiver.requests.length, 1);
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 0);
      const delivery = await onlyDelivery(h, endpoint);
      assert.equal(delivery.status, 'dropped');
      assert.equal(delivery.attempts, 1);
      assert.deepEqual(
        delivery.attemptLog.map((a) => [a.attempt, a.statusCode, a.errorClass, a.responseBody]),
        [[1, 500, 'http-status', 'broken']],
      );
    }));

  test('a ping reaches an endpoint switched off for failures, without switching it back on', () =>
    withScope(h, async (s) => {
      const { ws, receiver, endpoint } = await s.hooked(answer(500));
      for (let i = 0; i < 20; i++) await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).enabled, false);

      receiver.setHandler(answer(200));
      const result = await sendPing(h.ctx, ws.id, endpoint.id);
      assert.equal(result.ok, true);
      assert.equal(receiver.requests.length, 21);
      assert.equal(header(receiver.requests[20] as ReceivedRequest, 'x-service-event'), 'ping');
      const current = await getEndpointApi(h, ws, endpoint.id);
      assert.equal(current.enabled, false);
      assert.equal(current.disabledReason, 'failures');
    }));

  test('a ping to a timing-out receiver reports a timeout', () =>
    withScope(h, async (s) => {
      const { ws, endpoint } = await s.hooked(neverAnswer);
      const result = await sendPing(h.ctx, ws.id, endpoint.id);
      assert.equal(result.ok, false);
      assert.equal(result.statusCode, null);
      assert.equal(result.errorClass, 'timeout');
      assert.equal((await getEndpointApi(h, ws, endpoint.id)).failureCount, 0);
    }));

  test('document events never send a ping, even to endpoints that subscribe to every event type', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      const receiver = await s.receiver();
      // At most 5 types per endpoint: two endpoints cover all six.
      await s.endpoint(ws, `${receiver.url}/first`, allEventTypes.slice(0, 5));
      await s.endpoint(ws, `${receiver.url}/second`, allEventTypes.slice(5));
      for (const type of allEventTypes) await triggerEvent(h.ctx, ws.id, type);
      await deliverDue(h.ctx);

      assert.ok(receiver.requests.length >= allEventTypes.length);
      const types = receiver.requests.map((r) => header(r, 'x-service-event'));
      assert.ok(!types.includes('ping'), `a ping was sent: ${types.join(', ')}`);
      assert.ok(!receiver.requests.some((r) => bodyOf(r).type === 'ping'));
      assert.deepEqual([...new Set(types)].sort(), [...allEventTypes].sort());
    }));
});

// ---------------------------------------------------------------------------------------
// 9. DNS rebinding: the real destination policy (no SIGNET_WEBHOOK_ALLOW_UNSAFE)
// ---------------------------------------------------------------------------------------

describeEachDatabase('webhook delivery checks the address again at connect time', (kind) => {
  const resolver = testResolver({ 'rebind.test-hooks.net': ['93.184.216.40'] });
  const h = useHarness(kind, { env: { SIGNET_WEBHOOK_TIMEOUT: '1s' }, resolver });
  const url = 'https://rebind.test-hooks.net/hook';

  for (const [label, addresses, reported] of [
    ['127.0.0.1', ['127.0.0.1'], '127.0.0.1'],
    ['127.0.0.1 among other loopback addresses', ['127.0.0.1', '127.0.0.2'], '127.0.0.1'],
    ['an IPv4-mapped IPv6 loopback address', ['::ffff:127.0.0.1'], '::ffff:127.0.0.1'],
  ] as const) {
    test(`a name registered as public that now resolves to ${label} is blocked, and nothing is sent`, () =>
      withScope(h, async (s) => {
        const ws = await s.workspace();
        const receiver = await s.receiver();
        resolver.names['rebind.test-hooks.net'] = ['93.184.216.40'];
        const endpoint = await s.endpoint(ws, url);
        assert.equal(endpoint.url, url);

        resolver.names['rebind.test-hooks.net'] = [...addresses];
        await triggerEvent(h.ctx, ws.id, 'document.sent');
        await deliverDue(h.ctx);

        const delivery = await onlyDelivery(h, endpoint);
        assert.equal(delivery.status, 'pending');
        assert.deepEqual(
          delivery.attemptLog.map((a) => [a.attempt, a.address, a.statusCode, a.errorClass, a.responseBody]),
          // No answer to keep: what blocked it is kept instead, for the log to say.
          [
            [
              1,
              reported,
              null,
              'blocked',
              `rebind.test-hooks.net resolves to ${reported}, which is not a public address`,
            ],
          ],
        );
        assert.equal(receiver.requests.length, 0);

        // The retry is judged the same way.
        h.clock.advance(5 * minute);
        await deliverDue(h.ctx);
        const again = await onlyDelivery(h, endpoint);
        assert.equal(again.attemptLog[1]?.errorClass, 'blocked');
        assert.equal(receiver.requests.length, 0);
      }));
  }

  test('a name that stops resolving is a dns failure', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      resolver.names['gone.test-hooks.net'] = ['93.184.216.41'];
      const endpoint = await s.endpoint(ws, 'https://gone.test-hooks.net/hook');
      delete resolver.names['gone.test-hooks.net'];
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);

      const delivery = await onlyDelivery(h, endpoint);
      assert.equal(delivery.status, 'pending');
      assert.deepEqual(
        delivery.attemptLog.map((a) => [a.address, a.statusCode, a.errorClass]),
        [[null, null, 'dns']],
      );
    }));

  test('a name that resolves to no address at all is a dns failure', () =>
    withScope(h, async (s) => {
      const ws = await s.workspace();
      resolver.names['empty.test-hooks.net'] = ['93.184.216.42'];
      const endpoint = await s.endpoint(ws, 'https://empty.test-hooks.net/hook');
      resolver.names['empty.test-hooks.net'] = [];
      await triggerEvent(h.ctx, ws.id, 'document.sent');
      await deliverDue(h.ctx);

      const delivery = await onlyDelivery(h, endpoint);
      assert.equal(delivery.attemptLog[0]?.errorClass, 'dns');
      assert.equal(delivery.attemptLog[0]?.statusCode, null);
    }));
});
