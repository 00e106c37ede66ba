// Making and changing a webhook endpoint on its pages (src/web/endpoints.pages.ts) over real
// HTTP, as a browser submits the forms: creation with the signing secret shown once (no-store)
// and its rotation; every refusal in the sentence the page shows next to its field, held to
// the API's error code for the same input; editing, and an invalid edit that changes nothing;
// and the destination rules with SIGNET_WEBHOOK_ALLOW_UNSAFE off (a second harness). Shared
// setup: web-endpoints-setup.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { escapeHtml } from '../../src/ui/html.ts';
import { sendPing } from '../../src/webhooks/deliveries.service.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.service.ts';
import { allEventTypes, describeEachDatabase, useHarness } from '../support/harness.ts';
import { header, type ReceivedRequest, verifySignature } from '../support/receiver.ts';
import { assertPage, assertRedirect } from '../support/web-client.ts';
import {
  assertFieldError,
  assertRefused,
  checkedEvents,
  createdIdOf,
  createOnPage,
  endpointOf,
  endpointPath,
  endpointsOf,
  endpointsPath,
  type Fields,
  hour,
  inputValue,
  integrations,
  type Member,
  newMember,
  newSecretOf,
  type Refusal,
  receiverFor,
  sentences,
  useEndpointPages,
} from './web-endpoints-setup.ts';

describeEachDatabase('webhook endpoint pages: creating and editing', (kind) => {
  const { h, refusalMember } = useEndpointPages(kind);

  test('creating an endpoint redirects to a page that shows the signing secret once (no-store); a reload and later pages never show it', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    const url = `${receiver.url}/hooks/signet?source=web`;
    assertPage(await m.browser.get(integrations), 200);
    assertRedirect(
      await m.browser.post(endpointsPath, {
        url,
        events: ['document.sent', 'document.completed'],
        description: 'CRM sync',
      }),
      `${integrations}?done=endpoint-created`,
    );
    const res = await m.browser.get(`${integrations}?done=endpoint-created`);
    assertPage(res, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const secret = newSecretOf(res.text);
    assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    const id = createdIdOf(res.text);

    const [endpoint] = await endpointsOf(h, m);
    assert.ok(endpoint);
    const { createdAt: _, ...rest } = endpoint;
    assert.deepEqual(rest, {
      id,
      url: new URL(url).href,
      events: ['document.sent', 'document.completed'],
      enabled: true,
      description: 'CRM sync',
      failureCount: 0,
      disabledReason: null,
    });

    for (const path of [`${integrations}?done=endpoint-created`, integrations, endpointPath(id)]) {
      const later = await m.browser.get(path);
      assertPage(later, 200, path);
      assert.ok(later.text.includes(escapeHtml(new URL(url).href)), `${path} does not show the endpoint`);
      assert.ok(!later.text.includes(secret), `${path} shows the secret again`);
      assert.ok(!later.text.includes('id="new-secret"'), `${path} has a secret box`);
    }
  });

  test("rotating the secret on the endpoint's page shows the new one once and until when the old one signs too; deliveries carry both; a reload never shows it", async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    const created = await createOnPage(m, { url: `${receiver.url}/hooks`, events: ['document.sent'] });
    const page = await m.browser.get(endpointPath(created.id));
    assertPage(page, 200);
    assert.ok(page.text.includes('<option value="24" selected>24 hours</option>'), 'the default overlap');

    // A choice the form does not offer: 400 beside the select, nothing rotated.
    const refused = await m.browser.post(`${endpointPath(created.id)}/rotate`, { overlap: '5' });
    assertPage(refused, 400);
    assertFieldError(refused.text, 'overlap', 'Choose how long the old secret keeps working.');

    assertPage(await m.browser.get(endpointPath(created.id)), 200);
    assertRedirect(
      await m.browser.post(`${endpointPath(created.id)}/rotate`, { overlap: '72' }),
      `${endpointPath(created.id)}?done=rotated#secret`,
    );
    const shown = await m.browser.get(`${endpointPath(created.id)}?done=rotated`);
    assertPage(shown, 200);
    assert.equal(shown.headers.get('cache-control'), 'no-store');
    const secret = /<code id="rotated-secret">([^<]*)<\/code>/.exec(shown.text)?.[1];
    assert.ok(secret && secret !== created.secret, 'no new secret on the page');
    assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.ok(shown.text.includes('The signing secret was rotated.'));
    assert.match(
      shown.text,
      /Deliveries carry two signatures, one with the new secret and one with the previous, until <strong>/,
    );

    const ping = await sendPing(h.ctx, m.workspaceId, created.id);
    assert.equal(ping.ok, true);
    const request = receiver.requests.at(-1) as ReceivedRequest;
    const signature = header(request, 'x-service-signature');
    assert.ok(verifySignature(secret, signature, request.body), 'the new secret');
    assert.ok(verifySignature(created.secret, signature, request.body), 'the old secret, during the overlap');

    const again = await m.browser.get(`${endpointPath(created.id)}?done=rotated`);
    assertPage(again, 200);
    assert.ok(!again.text.includes(secret), 'a reload shows the secret again');
    assert.ok(!again.text.includes('id="rotated-secret"'));

    // After three days the page no longer speaks of two signatures, and only the new one signs.
    h.clock.advance(72 * hour);
    const later = await m.browser.get(endpointPath(created.id));
    assert.ok(!later.text.includes('Deliveries carry two signatures'));
    await sendPing(h.ctx, m.workspaceId, created.id);
    const last = receiver.requests.at(-1) as ReceivedRequest;
    assert.ok(verifySignature(secret, header(last, 'x-service-signature'), last.body));
    assert.ok(!verifySignature(created.secret, header(last, 'x-service-signature'), last.body));
  });

  test('no events: 400 "Choose between 1 and 5 events.", nothing created; the API answers invalid-body', async (t) => {
    const receiver = await receiverFor(t);
    await assertRefused(h, await refusalMember(), {
      fields: { url: `${receiver.url}/hook`, description: 'no events' },
      status: 400,
      field: 'events',
      sentence: sentences.events,
      api: { status: 400, code: 'invalid-body' },
    });
  });

  test('six events (all six types, or five and a duplicate): 400 "Choose between 1 and 5 events.", nothing created; the API answers invalid-body', async (t) => {
    const receiver = await receiverFor(t);
    const m = await refusalMember();
    for (const events of [allEventTypes, [...allEventTypes.slice(0, 5), 'document.sent']]) {
      await assertRefused(h, m, {
        fields: { url: `${receiver.url}/hook`, events },
        status: 400,
        field: 'events',
        sentence: sentences.events,
        api: { status: 400, code: 'invalid-body' },
      });
    }
  });

  test('ping as an event: 400 "ping cannot be subscribed", nothing created; the API answers invalid-body', async (t) => {
    const receiver = await receiverFor(t);
    const m = await refusalMember();
    for (const events of [['ping'], ['document.sent', 'ping']]) {
      await assertRefused(h, m, {
        fields: { url: `${receiver.url}/hook`, events },
        status: 400,
        field: 'events',
        sentence: sentences.ping,
        api: { status: 400, code: 'invalid-body' },
      });
    }
  });

  test('a URL that is not a URL: 400 with the invalid-url sentence, nothing created; the API answers invalid-url', async () => {
    const m = await refusalMember();
    for (const url of ['not a url', 'hooks.example.com/signet', 'https://']) {
      await assertRefused(h, m, {
        fields: { url, events: ['document.signed'] },
        status: 400,
        field: 'url',
        sentence: sentences.invalidUrl,
        api: { status: 400, code: 'invalid-url' },
      });
    }
  });

  test('an empty URL: 400 "Enter the URL that receives the webhooks.", nothing created; the API answers invalid-url', async () => {
    await assertRefused(h, await refusalMember(), {
      fields: { url: '', events: ['document.signed'] },
      status: 400,
      field: 'url',
      sentence: sentences.noUrl,
      api: { status: 400, code: 'invalid-url' },
    });
  });

  test('a description over 500 characters: 400 "Use at most 500 characters.", nothing created; the API answers invalid-body; 500 is accepted', async (t) => {
    const receiver = await receiverFor(t);
    const m = await refusalMember();
    await assertRefused(h, m, {
      fields: { url: `${receiver.url}/hook`, events: ['document.sent'], description: 'd'.repeat(501) },
      status: 400,
      field: 'description',
      sentence: sentences.description,
      api: { status: 400, code: 'invalid-body' },
    });
    const created = await createOnPage(m, {
      url: `${receiver.url}/hook`,
      events: ['document.sent'],
      description: 'd'.repeat(500),
    });
    assert.equal((await endpointOf(h, m, created.id)).description, 'd'.repeat(500));
  });

  test('the 11th endpoint: 409 with the limit sentence, nothing created; the API answers 409 limit-reached', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    for (let i = 0; i < 10; i++) {
      await createEndpoint(h.ctx, m.workspaceId, {
        url: `${receiver.url}/hook-${i}`,
        events: ['document.sent'],
      });
    }
    assert.match((await m.browser.get(integrations)).text, /10 of 10/);
    await assertRefused(h, m, {
      fields: { url: `${receiver.url}/hook-10`, events: ['document.sent'], description: 'one too many' },
      status: 409,
      field: 'form',
      sentence: sentences.limit,
      api: { status: 409, code: 'limit-reached' },
    });
    assert.equal((await endpointsOf(h, m)).length, 10);
  });

  test('editing changes the URL, the events and the description (the API shows the change); an empty description removes it', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    const created = await createOnPage(m, {
      url: `${receiver.url}/old`,
      events: ['document.sent'],
      description: 'before',
    });
    const page = await m.browser.get(endpointPath(created.id));
    assertPage(page, 200);
    assert.equal(inputValue(page.text, 'endpoint-url'), created.url);
    assert.deepEqual(checkedEvents(page.text), ['document.sent']);
    assert.equal(inputValue(page.text, 'endpoint-description'), 'before');

    const newUrl = `${receiver.url}/new?tenant=42&v=2`;
    const events = ['document.signed', 'document.declined', 'document.expired'];
    const saved = await m.browser.post(endpointPath(created.id), {
      url: newUrl,
      events,
      description: 'after',
    });
    assertRedirect(saved, `${endpointPath(created.id)}?done=saved`);
    const changed = await endpointOf(h, m, created.id);
    assert.deepEqual(
      [changed.url, changed.events, changed.description],
      [new URL(newUrl).href, events, 'after'],
    );
    assert.equal(changed.enabled, true);

    const after = await m.browser.get(saved.location as string);
    assertPage(after, 200);
    assert.ok(after.text.includes('Your changes were saved.'));
    assert.equal(inputValue(after.text, 'endpoint-url'), new URL(newUrl).href);
    assert.deepEqual(checkedEvents(after.text), events);

    assertRedirect(
      await m.browser.post(endpointPath(created.id), {
        url: newUrl,
        events: ['document.completed'],
        description: '',
      }),
      `${endpointPath(created.id)}?done=saved`,
    );
    const cleared = await endpointOf(h, m, created.id);
    assert.deepEqual([cleared.events, cleared.description], [['document.completed'], null]);
  });

  test('an invalid edit re-renders the endpoint page with 400 and the sentence, and changes nothing', async (t) => {
    const m = await newMember(h);
    const receiver = await receiverFor(t);
    const created = await createOnPage(m, {
      url: `${receiver.url}/kept`,
      events: ['document.sent', 'document.signed'],
      description: 'kept',
    });
    const before = await endpointOf(h, m, created.id);
    const moved = `${receiver.url}/moved`;
    const cases: Array<{ fields: Fields; field: 'url' | 'events' | 'description'; sentence: string }> = [
      { fields: { url: moved, description: 'x' }, field: 'events', sentence: sentences.events },
      { fields: { url: moved, events: allEventTypes }, field: 'events', sentence: sentences.events },
      {
        fields: { url: moved, events: ['document.sent', 'ping'] },
        field: 'events',
        sentence: sentences.ping,
      },
      {
        fields: { url: 'not a url', events: ['document.opened'] },
        field: 'url',
        sentence: sentences.invalidUrl,
      },
      { fields: { url: '', events: ['document.opened'] }, field: 'url', sentence: sentences.noUrl },
      {
        fields: { url: moved, events: ['document.opened'], description: 'x'.repeat(501) },
        field: 'description',
        sentence: sentences.description,
      },
    ];
    for (const c of cases) {
      assertPage(await m.browser.get(endpointPath(created.id)), 200);
      const res = await m.browser.post(endpointPath(created.id), c.fields);
      assertPage(res, 400, JSON.stringify(c.fields).slice(0, 100));
      assertFieldError(res.text, `endpoint-${c.field}`, c.sentence);
      assert.equal(inputValue(res.text, 'endpoint-url'), c.fields.url);
      assert.ok(
        res.text.includes(`<h1 class="url-title">${escapeHtml(created.url)}</h1>`),
        'the title changed',
      );
      assert.deepEqual(await endpointOf(h, m, created.id), before, 'a refused edit changed the endpoint');
    }
  });

  // --- Destination rules, with SIGNET_WEBHOOK_ALLOW_UNSAFE off ---------------------------

  describe('with SIGNET_WEBHOOK_ALLOW_UNSAFE off', () => {
    const strict = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
    let strictShared: Promise<Member> | undefined;
    const strictMember = () => {
      strictShared ??= newMember(strict);
      return strictShared;
    };
    const unsafe = (url: string): Refusal => ({
      fields: { url, events: ['document.sent'] },
      status: 400,
      field: 'url',
      sentence: sentences.unsafeUrl,
      api: { status: 400, code: 'unsafe-url' },
    });

    test('an http URL: 400 with the unsafe-url sentence, nothing created; the API answers unsafe-url', async () => {
      await assertRefused(strict, await strictMember(), unsafe('http://hooks.example.com/signet'));
    });

    test('a private address: 400 with the unsafe-url sentence, nothing created; the API answers unsafe-url', async () => {
      const m = await strictMember();
      for (const url of [
        'https://10.0.0.7/signet',
        'https://192.168.1.20/signet',
        'https://127.0.0.1/signet',
      ]) {
        await assertRefused(strict, m, unsafe(url));
      }
    });

    test('port 8443: 400 with the unsafe-url sentence, nothing created; the API answers unsafe-url', async () => {
      await assertRefused(strict, await strictMember(), unsafe('https://hooks.example.com:8443/signet'));
    });

    test('a public https URL on port 443 is accepted (the same member, the same form)', async () => {
      const m = await strictMember();
      const created = await createOnPage(m, {
        url: 'https://hooks.example.com/signet',
        events: ['document.sent'],
      });
      assert.equal((await endpointOf(strict, m, created.id)).url, 'https://hooks.example.com/signet');
    });
  });
});
