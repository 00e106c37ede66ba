// Who may reach and remove an endpoint on its pages (src/web/endpoints.pages.ts) over real
// HTTP: deleting asks first and the POST deletes; every endpoint route answers a member of
// another workspace the same 404 page; every form refuses a POST without a CSRF token or
// with another session's. Shared setup: web-endpoints-setup.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { escapeHtml } from '../../src/ui/html.ts';
import { listEndpointDeliveries, sendPing } from '../../src/webhooks/deliveries.service.ts';
import { callApi, describeEachDatabase } from '../support/harness.ts';
import {
  assertPage,
  assertRedirect,
  type PostOptions,
  type WebResponse,
  withoutCsrf,
} from '../support/web-client.ts';
import {
  createOnPage,
  endpointOf,
  endpointPath,
  endpointsOf,
  endpointsPath,
  type Fields,
  integrations,
  logIn,
  newMember,
  receiverFor,
  sentences,
  storedSecrets,
  useEndpointPages,
} from './web-endpoints-setup.ts';

describeEachDatabase('webhook endpoint pages: deleting, isolation and CSRF', (kind) => {
  const { h } = useEndpointPages(kind);

  test('GET …/delete asks for confirmation and deletes nothing; POST deletes the endpoint (the API answers 404) and returns to the integrations page', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    const created = await createOnPage(m, { url: `${receiver.url}/doomed`, events: ['document.sent'] });
    await m.browser.post(`${endpointPath(created.id)}/test`);
    const confirm = await m.browser.get(`${endpointPath(created.id)}/delete`);
    assertPage(confirm, 200);
    assert.ok(confirm.text.includes('<h1>Delete this endpoint?</h1>'));
    assert.ok(confirm.text.includes(`<strong>${escapeHtml(created.url)}</strong>`));
    assert.ok(confirm.text.includes(`<form method="post" action="${endpointPath(created.id)}/delete">`));
    assert.equal((await endpointOf(h, m, created.id)).id, created.id, 'GET deleted the endpoint');

    const deleted = await m.browser.post(`${endpointPath(created.id)}/delete`);
    assertRedirect(deleted, `${integrations}?done=endpoint-deleted`);
    const api = await callApi(h, 'GET', `/v1/webhook-endpoints/${created.id}`, { key: m.apiKey });
    assert.deepEqual([api.status, api.body], [404, { ok: false, error: 'not-found' }]);
    assert.deepEqual(await listEndpointDeliveries(h.ctx, m.workspaceId, created.id), []);

    const list = await m.browser.get(deleted.location as string);
    assertPage(list, 200);
    assert.ok(list.text.includes('The endpoint was deleted with its delivery log.'));
    assert.ok(!list.text.includes(endpointPath(created.id)), 'the deleted endpoint is still listed');
    assertPage(await m.browser.get(endpointPath(created.id)), 404);
  });

  test("every endpoint route answers a member of workspace B the same 404 page for A's endpoint (and delivery), a random UUID or a non-UUID, and leaves A's endpoint alone", async (t) => {
    const a = await newMember(h);
    const b = await newMember(h);
    const receiverA = await receiverFor(t);
    const receiverB = await receiverFor(t);
    const endpointA = await createOnPage(a, { url: `${receiverA.url}/a`, events: ['document.sent'] });
    const endpointB = await createOnPage(b, { url: `${receiverB.url}/b`, events: ['document.sent'] });
    const deliveryA = (await sendPing(h.ctx, a.workspaceId, endpointA.id)).deliveryId;
    assert.equal(receiverA.requests.length, 1);
    const snapshot = await endpointOf(h, a, endpointA.id);
    const secretsBefore = await storedSecrets(h, endpointA.id);
    const deliveriesBefore = await listEndpointDeliveries(h.ctx, a.workspaceId, endpointA.id);

    const routes: Array<{ method: 'GET' | 'POST'; path: (e: string, d: string) => string; fields?: Fields }> =
      [
        { method: 'GET', path: (e) => endpointPath(e) },
        {
          method: 'POST',
          path: (e) => endpointPath(e),
          fields: { url: `${receiverB.url}/stolen`, events: ['document.signed'], description: 'taken over' },
        },
        { method: 'POST', path: (e) => `${endpointPath(e)}/enabled`, fields: { enabled: 'false' } },
        { method: 'POST', path: (e) => `${endpointPath(e)}/test` },
        { method: 'POST', path: (e) => `${endpointPath(e)}/rotate`, fields: { overlap: '0' } },
        { method: 'GET', path: (e) => `${endpointPath(e)}/delete` },
        { method: 'POST', path: (e) => `${endpointPath(e)}/delete` },
        { method: 'GET', path: (e, d) => `${endpointPath(e)}/deliveries/${d}` },
      ];
    const targets = [
      { name: "workspace A's endpoint and delivery", endpoint: endpointA.id, delivery: deliveryA },
      {
        name: "A's ids in capitals",
        endpoint: endpointA.id.toUpperCase(),
        delivery: deliveryA.toUpperCase(),
      },
      { name: 'a random UUID', endpoint: randomUUID(), delivery: randomUUID() },
      { name: 'not a UUID', endpoint: 'not-a-uuid', delivery: 'not-a-uuid' },
    ];
    assertPage(await b.browser.get(integrations), 200);
    let reference: string | null = null;
    const check = (res: WebResponse, label: string) => {
      assertPage(res, 404, label);
      reference ??= withoutCsrf(res.text);
      assert.equal(withoutCsrf(res.text), reference, `${label}: another page than the other 404s`);
    };
    for (const route of routes) {
      for (const target of targets) {
        const path = route.path(target.endpoint, target.delivery);
        const res =
          route.method === 'GET' ? await b.browser.get(path) : await b.browser.post(path, route.fields ?? {});
        check(res, `${route.method} ${path} (${target.name})`);
      }
    }
    // B's own endpoint with A's delivery id, and A's endpoint with a delivery id of B's.
    const deliveryB = (await sendPing(h.ctx, b.workspaceId, endpointB.id)).deliveryId;
    check(
      await b.browser.get(`${endpointPath(endpointB.id)}/deliveries/${deliveryA}`),
      "B's endpoint, A's delivery",
    );
    check(
      await b.browser.get(`${endpointPath(endpointA.id)}/deliveries/${deliveryB}`),
      "A's endpoint, B's delivery",
    );
    assert.ok(reference, 'no 404 page');
    assert.match(reference, /<h1>Not found<\/h1>/);
    assert.ok(!(reference as string).includes(endpointA.url), "the 404 page names A's endpoint");

    assert.deepEqual(await endpointOf(h, a, endpointA.id), snapshot, "A's endpoint changed");
    assert.deepEqual(await storedSecrets(h, endpointA.id), secretsBefore, "A's secret rotated");
    assert.equal(receiverA.requests.length, 1, "a ping reached A's receiver");
    assert.deepEqual(await listEndpointDeliveries(h.ctx, a.workspaceId, endpointA.id), deliveriesBefore);
    const aPage = await a.browser.get(endpointPath(endpointA.id));
    assertPage(aPage, 200);
    assert.ok(aPage.text.includes('<span class="badge badge-success">Enabled</span>'));
    assert.equal((await endpointOf(h, b, endpointB.id)).url, endpointB.url, "B's own endpoint changed");
  });

  test("every endpoint form refuses a POST without a token, with another session's token, or without the CSRF cookie: 403, nothing changed", async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    const created = await createOnPage(m, { url: `${receiver.url}/hook`, events: ['document.sent'] });
    // A second session of the same user, in another browser.
    const other = await logIn(h, m.email);
    assertPage(await other.get(endpointPath(created.id)), 200);
    const otherToken = other.csrfToken;
    const otherCookie = other.cookies.get('signet_csrf');
    assert.ok(otherToken && otherCookie);

    const routes: Array<{ path: string; fields: Fields }> = [
      { path: endpointsPath, fields: { url: `${receiver.url}/second`, events: ['document.sent'] } },
      {
        path: endpointPath(created.id),
        fields: { url: `${receiver.url}/moved`, events: ['document.signed'], description: 'moved' },
      },
      { path: `${endpointPath(created.id)}/enabled`, fields: { enabled: 'false' } },
      { path: `${endpointPath(created.id)}/test`, fields: {} },
      { path: `${endpointPath(created.id)}/rotate`, fields: { overlap: '0' } },
      { path: `${endpointPath(created.id)}/delete`, fields: {} },
    ];
    const variants: Array<{ name: string; options: PostOptions }> = [
      { name: 'no token', options: { csrf: false } },
      { name: "another session's token", options: { csrf: otherToken } },
      {
        name: "another session's token and CSRF cookie",
        options: { csrf: otherToken, cookies: { signet_csrf: otherCookie } },
      },
      { name: 'its own token without the CSRF cookie', options: { cookies: { signet_csrf: null } } },
    ];
    const before = await endpointsOf(h, m);
    const secretsBefore = await storedSecrets(h, created.id);
    for (const route of routes) {
      for (const variant of variants) {
        assertPage(await m.browser.get(endpointPath(created.id)), 200);
        const res = await m.browser.post(route.path, route.fields, variant.options);
        assertPage(res, 403, `POST ${route.path} with ${variant.name}`);
        assert.ok(res.text.includes(sentences.formExpired), `POST ${route.path} with ${variant.name}`);
      }
    }
    assert.deepEqual(await endpointsOf(h, m), before, 'a refused form changed an endpoint');
    assert.deepEqual(await storedSecrets(h, created.id), secretsBefore, 'a refused form rotated the secret');
    assert.equal(receiver.requests.length, 0, 'a refused Test sent a ping');
    assert.deepEqual(await listEndpointDeliveries(h.ctx, m.workspaceId, created.id), []);

    // The same forms with the page's own token go through.
    const expected = [303, 303, 303, 303, 303, 303];
    for (const [i, route] of routes.entries()) {
      assertPage(await m.browser.get(endpointPath(created.id)), 200);
      const res = await m.browser.post(route.path, route.fields);
      assert.equal(res.status, expected[i], `POST ${route.path} with its token: ${res.text.slice(0, 300)}`);
    }
    assert.equal(receiver.requests.length, 1);
    assert.deepEqual(
      (await endpointsOf(h, m)).map((e) => e.url),
      [new URL(`${receiver.url}/second`).href],
    );
  });
});
