// What an endpoint's pages show of its deliveries (src/web/endpoints.pages.ts) over real
// HTTP: the Test button's one signed ping and its outcome; 20 failures in a row pausing the
// endpoint (the banner on both pages, cleared by turning it back on) and the switch; the
// delivery log (newest first, 20 a page, no duplicates or gaps), a delivery's exact request
// and a dropped one resent. Deliveries go through the real path (deliverDue, sendPing) with
// the test clock, to local receivers. Shared setup: web-endpoints-setup.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { triggerEvent } from '../../src/demo/trigger.ts';
import { escapeHtml } from '../../src/ui/html.ts';
import { listEndpointDeliveries, sendPing } from '../../src/webhooks/deliveries.service.ts';
import { deliverDue } from '../../src/webhooks/dispatcher.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.service.ts';
import { describeEachDatabase } from '../support/harness.ts';
import { header, type ReceivedRequest, verifySignature } from '../support/receiver.ts';
import { assertPage, assertRedirect } from '../support/web-client.ts';
import {
  answer,
  bannersOf,
  createOnPage,
  endpointOf,
  endpointPath,
  hour,
  integrations,
  logIn,
  logRows,
  minute,
  newAccount,
  newMember,
  pagerLink,
  pressTest,
  receiverFor,
  second,
  shownAttempts,
  shownMinute,
  unescapeHtml,
  useEndpointPages,
} from './web-endpoints-setup.ts';

describeEachDatabase('webhook endpoint pages: Test, pauses and deliveries', (kind) => {
  const { h } = useEndpointPages(kind);

  test('the Test button sends one ping signed with the secret and shows "delivered: HTTP 200", or the failure; the log lists both pings with their status codes', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t, answer(200, 'pong'));
    const created = await createOnPage(m, { url: `${receiver.url}/hook`, events: ['document.completed'] });
    assertPage(await m.browser.get(endpointPath(created.id)), 200);

    const delivered = await pressTest(m, created.id);
    assert.match(
      delivered.text,
      /<div class="notice notice-success" role="status">The ping was delivered: HTTP 200 in \d+ ms\.<\/div>/,
    );
    assert.equal(receiver.requests.length, 1);
    const ping = receiver.requests[0] as ReceivedRequest;
    assert.equal(ping.method, 'POST');
    assert.equal(ping.url, '/hook');
    assert.equal(header(ping, 'x-service-event'), 'ping');
    assert.equal(JSON.parse(ping.body).type, 'ping');
    const signature = header(ping, 'x-service-signature');
    assert.ok(verifySignature(created.secret, signature, ping.body), `${signature} does not verify`);
    assert.equal(verifySignature(created.secret, signature, `${ping.body} `), false);

    h.clock.advance(minute);
    receiver.setHandler(answer(503, 'maintenance'));
    const failed = await pressTest(m, created.id);
    assert.match(
      failed.text,
      /<div class="notice notice-error" role="alert">The ping failed: http-status \(HTTP 503\) after \d+ ms\.<\/div>/,
    );
    assert.equal(receiver.requests.length, 2);
    const failedPing = receiver.requests[1] as ReceivedRequest;
    assert.ok(verifySignature(created.secret, header(failedPing, 'x-service-signature'), failedPing.body));

    const log = logRows((await m.browser.get(endpointPath(created.id))).text);
    assert.deepEqual(log, [
      {
        deliveryId: header(failedPing, 'x-service-delivery-id'),
        eventType: 'ping',
        state: 'ping failed',
        attempts: ['503'],
      },
      {
        deliveryId: header(ping, 'x-service-delivery-id'),
        eventType: 'ping',
        state: 'ping delivered',
        attempts: ['200'],
      },
    ]);
    // A ping never counts towards the pause.
    assert.equal((await endpointOf(h, m, created.id)).failureCount, 0);
  });

  test('20 consecutive failures pause the endpoint: both pages show the banner; turning it back on clears the failure count and the banner', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t, answer(500, 'down'));
    const created = await createOnPage(m, { url: `${receiver.url}/hook`, events: ['document.sent'] });
    for (let i = 0; i < 19; i++) await triggerEvent(h.ctx, m.workspaceId, 'document.sent');
    await deliverDue(h.ctx);
    assert.equal(receiver.requests.length, 19);
    assert.deepEqual(
      await endpointOf(h, m, created.id).then((e) => [e.enabled, e.failureCount, e.disabledReason]),
      [true, 19, null],
    );
    assert.deepEqual(bannersOf((await m.browser.get(integrations)).text), [], 'a banner before the pause');

    h.clock.advance(second);
    const pausedAt = h.clock.now().toISOString();
    await triggerEvent(h.ctx, m.workspaceId, 'document.sent');
    await deliverDue(h.ctx);
    assert.equal(receiver.requests.length, 20);
    assert.deepEqual(
      await endpointOf(h, m, created.id).then((e) => [e.enabled, e.failureCount, e.disabledReason]),
      [false, 20, 'failures'],
    );

    // Every other page of the workspace carries the banner too, and the owners got one mail.
    for (const path of ['/documents', '/documents/new', '/settings/account']) {
      const page = await m.browser.get(path);
      assertPage(page, 200, path);
      const [banner, ...more] = bannersOf(page.text);
      assert.equal(more.length, 0, path);
      assert.ok(
        banner?.includes(`<strong>${escapeHtml(created.url)} is paused.</strong>`),
        `${path}: ${banner}`,
      );
    }
    const owners = await h.ctx.db
      .selectFrom('mails')
      .select(['to_address', 'subject'])
      .where('workspace_id', '=', m.workspaceId)
      .where('subject', 'like', 'Webhook endpoint paused:%')
      .execute();
    assert.equal(owners.length, 1, 'one mail to the owner');
    assert.equal(owners[0]?.subject, `Webhook endpoint paused: ${created.url}`);

    const pages = { integrations, endpoint: endpointPath(created.id) };
    for (const [name, path] of Object.entries(pages)) {
      const page = await m.browser.get(path);
      assertPage(page, 200, path);
      const banners = bannersOf(page.text);
      assert.equal(banners.length, 1, `${name} page: banners ${banners.length}`);
      const banner = banners[0] as string;
      assert.ok(banner.includes(`<strong>${escapeHtml(created.url)} is paused.</strong>`), banner);
      assert.ok(
        banner.includes(
          `switched it off on ${shownMinute(pausedAt)} after 20 consecutive failed deliveries.`,
        ),
        banner,
      );
      assert.ok(banner.includes('Events that happened while it was paused are not sent later'), banner);
      assert.ok(banner.includes('<code>GET /v1/documents</code>'), banner);
      assert.ok(
        banner.includes(`action="${endpointPath(created.id)}/enabled"`) &&
          banner.includes('<input type="hidden" name="enabled" value="true">'),
        'the banner has no switch',
      );
      assert.equal(
        banner.includes(`<a href="${endpointPath(created.id)}">See its deliveries</a>`),
        name === 'integrations',
      );
      assert.ok(
        page.text.includes('<span class="badge badge-danger">Paused</span>'),
        `${name}: no Paused badge`,
      );
    }

    assertPage(await m.browser.get(endpointPath(created.id)), 200);
    const on = await m.browser.post(`${endpointPath(created.id)}/enabled`, { enabled: 'true' });
    assertRedirect(on, `${endpointPath(created.id)}?done=enabled`);
    const reenabled = await endpointOf(h, m, created.id);
    assert.deepEqual([reenabled.enabled, reenabled.failureCount, reenabled.disabledReason], [true, 0, null]);
    const onPage = await m.browser.get(on.location as string);
    assertPage(onPage, 200);
    assert.ok(onPage.text.includes('The endpoint is on again; its failure count is back to 0.'));
    assert.ok(onPage.text.includes('<p>0 consecutive failures'));
    assert.deepEqual(bannersOf((await m.browser.get('/documents')).text), [], 'the banner left every page');
    for (const page of [onPage, await m.browser.get(integrations)]) {
      assert.deepEqual(bannersOf(page.text), [], 'the banner is still there');
      assert.ok(!page.text.includes('is paused.'));
      assert.ok(page.text.includes('<span class="badge badge-success">Enabled</span>'));
    }

    // Back on: the next event is delivered; the ones missed while paused are not replayed.
    receiver.setHandler(answer(200));
    const { eventId } = await triggerEvent(h.ctx, m.workspaceId, 'document.sent');
    await deliverDue(h.ctx);
    assert.equal(receiver.requests.length, 21);
    assert.equal(JSON.parse((receiver.requests[20] as ReceivedRequest).body).id, eventId);
  });

  test('the switch turns an endpoint off without a pause banner, and on again', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    const created = await createOnPage(m, { url: `${receiver.url}/hook`, events: ['document.sent'] });
    const page = await m.browser.get(endpointPath(created.id));
    assert.ok(page.text.includes('<input type="hidden" name="enabled" value="false">'), 'no Turn off switch');
    const off = await m.browser.post(`${endpointPath(created.id)}/enabled`, { enabled: 'false' });
    assertRedirect(off, `${endpointPath(created.id)}?done=disabled`);
    const disabled = await endpointOf(h, m, created.id);
    assert.deepEqual([disabled.enabled, disabled.failureCount, disabled.disabledReason], [false, 0, null]);

    const offPage = await m.browser.get(off.location as string);
    assertPage(offPage, 200);
    assert.ok(offPage.text.includes('The endpoint is off: nothing is sent to it until you turn it back on.'));
    for (const shown of [offPage, await m.browser.get(integrations)]) {
      assert.deepEqual(bannersOf(shown.text), [], 'a pause banner for an endpoint switched off by hand');
      assert.ok(!shown.text.includes('is paused.'));
      assert.ok(shown.text.includes('<span class="badge badge-neutral">Disabled</span>'));
    }
    // Nothing is sent to it while it is off.
    await triggerEvent(h.ctx, m.workspaceId, 'document.sent');
    await deliverDue(h.ctx);
    assert.equal(receiver.requests.length, 0);

    assert.ok(
      offPage.text.includes('<input type="hidden" name="enabled" value="true">'),
      'no Turn on switch',
    );
    assertRedirect(
      await m.browser.post(`${endpointPath(created.id)}/enabled`, { enabled: 'true' }),
      `${endpointPath(created.id)}?done=enabled`,
    );
    assert.equal((await endpointOf(h, m, created.id)).enabled, true);
  });

  test('the delivery log is newest first, 20 a page, and "Older deliveries" leads to the rest with no duplicates and no gaps; the chart caption counts the last 24 hours', async (t) => {
    const account = await newAccount(h);
    const receiver = await receiverFor(t);
    const endpoint = await createEndpoint(h.ctx, account.workspaceId, {
      url: `${receiver.url}/log`,
      events: ['document.sent'],
    });
    // From a whole hour on, so every recent attempt falls in one hour of the chart.
    h.clock.set(new Date(Math.ceil((h.clock.now().getTime() + 1) / hour) * hour));
    const start = h.clock.now().getTime();
    const created: string[] = [];

    // Older than 24 hours: in the log, not in the chart.
    for (const status of [200, 500, 200]) {
      receiver.setHandler(answer(status));
      created.push((await sendPing(h.ctx, account.workspaceId, endpoint.id)).deliveryId);
      h.clock.advance(minute);
    }
    h.clock.set(new Date(start + 30 * hour));
    const recentHour = h.clock.now().toISOString();

    // A document.sent delivered at the second attempt (503, then 200).
    receiver.setHandler(answer(503));
    await triggerEvent(h.ctx, account.workspaceId, 'document.sent');
    await deliverDue(h.ctx);
    h.clock.advance(6 * minute);
    receiver.setHandler(answer(200));
    await deliverDue(h.ctx);
    const eventRequests = receiver.requests.slice(3);
    assert.equal(eventRequests.length, 2);
    const eventDelivery = header(eventRequests[0] as ReceivedRequest, 'x-service-delivery-id');
    assert.equal(header(eventRequests[1] as ReceivedRequest, 'x-service-delivery-id'), eventDelivery);
    created.push(eventDelivery);

    // 22 pings, every third one failing: 14 delivered, 8 failed.
    for (let i = 0; i < 22; i++) {
      h.clock.advance(minute);
      receiver.setHandler(answer(i % 3 === 0 ? 500 : 200));
      created.push((await sendPing(h.ctx, account.workspaceId, endpoint.id)).deliveryId);
    }
    assert.equal(created.length, 26);

    // Logged in only now: a session idles out after 12 hours.
    const browser = await logIn(h, account.email);
    const first = await browser.get(endpointPath(endpoint.id));
    assertPage(first, 200);
    const firstRows = logRows(first.text);
    assert.equal(firstRows.length, 20);
    assert.equal(pagerLink(first.text, 'Newest'), null);
    const older = pagerLink(first.text, 'Older deliveries');
    assert.ok(older, 'no "Older deliveries" link');
    assert.ok(older.startsWith(`${endpointPath(endpoint.id)}?cursor=`), older);

    const secondPage = await browser.get(older);
    assertPage(secondPage, 200);
    const secondRows = logRows(secondPage.text);
    assert.equal(pagerLink(secondPage.text, 'Older deliveries'), null, 'a third page of 26 deliveries');
    assert.equal(pagerLink(secondPage.text, 'Newest'), endpointPath(endpoint.id));
    assert.deepEqual(
      [...firstRows, ...secondRows].map((r) => r.deliveryId),
      created.toReversed(),
      'the log is not every delivery, newest first, once',
    );
    const eventRow = [...firstRows, ...secondRows].find((r) => r.deliveryId === eventDelivery);
    assert.deepEqual(eventRow, {
      deliveryId: eventDelivery,
      eventType: 'document.sent',
      state: 'delivered',
      attempts: ['503', '200'],
    });

    // The chart: only attempts of the last 24 hours, all in one hour.
    for (const page of [first, secondPage]) {
      assert.ok(
        page.text.includes(
          '<figcaption id="chart-caption" class="small muted">Attempts per hour over the last 24 hours: 15 delivered (green), 9 failed (red).</figcaption>',
        ),
        /<figcaption[^>]*>[^<]*<\/figcaption>/.exec(page.text)?.[0],
      );
      const bars = [
        ...page.text.matchAll(/<title>(\d{2}:\d{2}) UTC: (\d+) delivered, (\d+) failed<\/title>/g),
      ];
      assert.equal(bars.length, 24);
      assert.deepEqual(
        bars.filter((b) => b[2] !== '0' || b[3] !== '0').map((b) => b.slice(1)),
        [[recentHour.slice(11, 16), '15', '9']],
      );
    }
  });

  test('deliveries created in the same millisecond are paged with no duplicates and no gaps', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    const created = await createOnPage(m, { url: `${receiver.url}/same-time`, events: ['document.sent'] });
    const ids = new Set<string>();
    for (let i = 0; i < 25; i++) ids.add((await sendPing(h.ctx, m.workspaceId, created.id)).deliveryId);
    const first = await m.browser.get(endpointPath(created.id));
    const firstRows = logRows(first.text);
    const older = pagerLink(first.text, 'Older deliveries');
    assert.ok(older, 'no "Older deliveries" link');
    const secondPage = await m.browser.get(older);
    assertPage(secondPage, 200);
    const secondRows = logRows(secondPage.text);
    assert.deepEqual([firstRows.length, secondRows.length], [20, 5]);
    assert.equal(pagerLink(secondPage.text, 'Older deliveries'), null);
    const shown = [...firstRows, ...secondRows].map((r) => r.deliveryId);
    assert.equal(new Set(shown).size, shown.length, 'a delivery is on both pages');
    assert.deepEqual(new Set(shown), ids);
  });

  test("a delivery's page shows the exact body the receiver got and, for each attempt, the headers it sent with the same X-Service-Signature", async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t, answer(503, 'busy'));
    const created = await createOnPage(m, {
      url: `${receiver.url}/hook?x=<1>&y="2"`,
      events: ['document.sent'],
    });
    await triggerEvent(h.ctx, m.workspaceId, 'document.sent');
    await deliverDue(h.ctx);
    h.clock.advance(6 * minute);
    receiver.setHandler(answer(200, 'thanks'));
    await deliverDue(h.ctx);
    assert.equal(receiver.requests.length, 2);
    const deliveryId = header(receiver.requests[0] as ReceivedRequest, 'x-service-delivery-id');

    const [row] = logRows((await m.browser.get(endpointPath(created.id))).text);
    assert.equal(row?.deliveryId, deliveryId);
    const page = await m.browser.get(`${endpointPath(created.id)}/deliveries/${deliveryId}`);
    assertPage(page, 200);
    const shownBody = /<pre class="shell" id="delivery-body" dir="ltr">([^<]*)<\/pre>/.exec(page.text)?.[1];
    assert.ok(shownBody !== undefined, 'no body on the page');
    assert.equal(unescapeHtml(shownBody), (receiver.requests[0] as ReceivedRequest).body);
    assert.equal(unescapeHtml(shownBody), (receiver.requests[1] as ReceivedRequest).body);

    const attempts = shownAttempts(page.text);
    assert.deepEqual(
      attempts.map((a) => a.attempt),
      [1, 2],
    );
    for (const [i, shown] of attempts.entries()) {
      const got = receiver.requests[i] as ReceivedRequest;
      assert.match(shown.heading, i === 0 ? /^Attempt 1: 503 in \d+ ms$/ : /^Attempt 2: 200 in \d+ ms$/);
      assert.ok(shown.headers.has('x-service-signature'), 'no signature shown');
      for (const [name, value] of shown.headers)
        assert.equal(value, header(got, name), `attempt ${i + 1}: ${name}`);
      for (const name of ['content-type', 'user-agent', 'x-service-event', 'x-service-delivery-id']) {
        assert.ok(shown.headers.has(name), `attempt ${i + 1}: ${name} not shown`);
      }
      assert.ok(
        verifySignature(created.secret, shown.headers.get('x-service-signature'), unescapeHtml(shownBody)),
      );
    }
    assert.notEqual(
      attempts[0]?.headers.get('x-service-signature'),
      attempts[1]?.headers.get('x-service-signature'),
    );

    // A ping's page: its one attempt, as the receiver got it.
    await pressTest(m, created.id);
    const pingRequest = receiver.requests[2] as ReceivedRequest;
    const pingPage = await m.browser.get(
      `${endpointPath(created.id)}/deliveries/${header(pingRequest, 'x-service-delivery-id')}`,
    );
    assertPage(pingPage, 200);
    assert.equal(
      unescapeHtml(
        /<pre class="shell" id="delivery-body" dir="ltr">([^<]*)<\/pre>/.exec(pingPage.text)?.[1] ?? '',
      ),
      pingRequest.body,
    );
    const [pingAttempt, ...more] = shownAttempts(pingPage.text);
    assert.equal(more.length, 0);
    assert.equal(pingAttempt?.headers.get('x-service-signature'), header(pingRequest, 'x-service-signature'));
  });

  test('a dropped delivery is resent from its page: the same delivery id, the outcome shown after the redirect, a reload sends nothing', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t, answer(500, 'down'));
    const created = await createOnPage(m, { url: `${receiver.url}/hook`, events: ['document.sent'] });
    await triggerEvent(h.ctx, m.workspaceId, 'document.sent');
    await deliverDue(h.ctx);
    for (const delay of [5 * minute, 30 * minute, 120 * minute]) {
      h.clock.advance(delay);
      await deliverDue(h.ctx);
    }
    const [dropped] = await listEndpointDeliveries(h.ctx, m.workspaceId, created.id);
    assert.equal(dropped?.status, 'dropped');
    const log = await m.browser.get(endpointPath(created.id));
    const deliveryPath = `${endpointPath(created.id)}/deliveries/${dropped?.id}`;
    assert.ok(log.text.includes(`<a href="${deliveryPath}#resend">Resend…</a>`), 'the log offers it');
    const page = await m.browser.get(deliveryPath);
    assert.match(page.text, /<button class="button button-secondary" type="submit">Resend now<\/button>/);
    assert.match(page.text, /as attempt 5\./);

    receiver.setHandler(answer(200, 'thanks'));
    const resent = await m.browser.post(`${deliveryPath}/resend`);
    assertRedirect(resent, `${deliveryPath}?done=resent`);
    for (let reload = 0; reload < 2; reload++) {
      const after = await m.browser.get(`${deliveryPath}?done=resent`);
      assert.match(after.text, /Resent: delivered, HTTP 200 in \d+ ms \(attempt 5\)\./);
      assert.ok(!after.text.includes('Resend now'), 'delivered: nothing left to resend');
    }
    assert.equal(receiver.requests.length, 5, 'one resend, whatever the reloads');
    assert.equal(header(receiver.requests[4] as ReceivedRequest, 'x-service-delivery-id'), dropped?.id);
    const again = await m.browser.post(`${deliveryPath}/resend`);
    assertPage(again, 409);
    assert.match(again.text, /This delivery cannot be resent/);

    const stranger = await newMember(h);
    assertPage(await stranger.browser.get(integrations), 200);
    assertPage(await stranger.browser.post(`${deliveryPath}/resend`), 404);
    assert.equal(receiver.requests.length, 5);
  });
});
