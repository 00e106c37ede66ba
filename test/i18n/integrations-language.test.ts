// Settings › Integrations in the member's language (issue 51), on both databases: API keys
// (created, shown once, revoked) and webhook endpoints (created, edited, their secret, the
// Test button, a delivery's page, deleted), with their notices and refusals, read in Polish
// by an owner who chose it. A destination rule's refusal that the delivery worker wrote is
// data in English: shown as it is, marked lang="en". In the pseudo-language no view of the
// area leaves an English word but the values it shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionUser } from '../../src/accounts/accounts.service.ts';
import { translator } from '../../src/i18n/messages.ts';
import type { ApiKey } from '../../src/keys/keys.service.ts';
import { listApiKeys } from '../../src/keys/keys.service.ts';
import { renderToString } from '../../src/ui/html.ts';
import {
  deleteEndpointView,
  deliveryView,
  endpointView,
  outcomeText,
} from '../../src/web/endpoints.views.ts';
import { integrationsView, revokeKeyView } from '../../src/web/integrations.views.ts';
import type { DeliveryDetail, DeliveryView, HourlyAttempts } from '../../src/webhooks/deliveries.service.ts';
import { subscribableEventTypes, type WebhookEndpoint } from '../../src/webhooks/endpoints.service.ts';
import { describeEachDatabase, testResolver, useHarness } from '../support/harness.ts';
import { englishLeft, pseudoTranslator, readableText } from '../support/pseudo-language.ts';
import { assertPage, assertRedirect, errorBeside, escaped, webPeople } from '../support/web-client.ts';

const integrations = '/settings/integrations';
// English sentences of the area: none may be left on a Polish page once it is translated.
const english =
  /Give the key a name|Create API key|Revoke key|Webhook endpoints|Choose between|Your changes were saved|Signing secret|The ping failed|Delete this endpoint|consecutive failure/;

describeEachDatabase('Settings › Integrations in the member’s language', (kind) => {
  // Names resolve as this table says: a name turned private after registration is refused
  // at send time (DNS rebinding), which makes a `blocked` ping without any network.
  const resolver = testResolver({ 'hooks.kowalski.test': ['93.184.216.40'] });
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' }, resolver });
  const people = webPeople(h, '10.61');
  const pl = translator('pl');

  const polishOwner = (plan: 'free' | 'max' = 'max') => people.speakingOwner('pl', plan);

  test('an owner who chose Polish creates, reads and revokes an API key in Polish', async () => {
    const { owner, client } = await polishOwner('free');
    const page = await client.get(integrations);
    assertPage(page, 200);
    assert.match(page.text, /<html lang="pl" dir="ltr">/);
    assert.ok(page.text.includes(`<title>${escaped(pl.t('app.nav.integrations'))}`), 'the title');
    assert.ok(page.text.includes(`<h1>${escaped(pl.t('app.nav.integrations'))}</h1>`));
    assert.ok(page.text.includes(escaped(pl.t('integrations.keys.none'))));
    assert.ok(page.text.includes(escaped(pl.t('integrations.plan.switch'))));

    const refused = await client.post(`${integrations}/keys`, { name: '  ', scope: 'read' });
    assertPage(refused, 400);
    assert.equal(errorBeside(refused.text, 'key-name'), pl.t('integrations.refusal.name'));
    const tooLong = await client.post(`${integrations}/keys`, { name: 'x'.repeat(101), scope: 'read' });
    assert.equal(errorBeside(tooLong.text, 'key-name'), pl.t('integrations.refusal.nameLong', { max: 100 }));

    assertRedirect(
      await client.post(`${integrations}/keys`, { name: 'Synchronizacja CRM', scope: 'write' }),
      `${integrations}?done=key-created`,
    );
    const created = await client.get(`${integrations}?done=key-created`);
    assert.ok(
      created.text.includes(escaped(pl.t('integrations.new.heading', { name: 'Synchronizacja CRM' }))),
    );
    assert.ok(created.text.includes(escaped(pl.t('integrations.scope.write'))));
    const reloaded = await client.get(`${integrations}?done=key-created`);
    assert.ok(reloaded.text.includes(escaped(pl.t('integrations.done.keyCreated'))));

    const [key] = await listApiKeys(h.ctx, owner.workspaceId);
    assert.ok(key);
    const confirm = await client.get(`${integrations}/keys/${key.id}/revoke`);
    assertPage(confirm, 200);
    assert.ok(confirm.text.includes(`<title>${escaped(pl.t('integrations.revoke.title'))}`));
    assert.ok(confirm.text.includes(escaped(pl.t('integrations.revoke.heading', { name: key.name }))));
    assertRedirect(
      await client.post(`${integrations}/keys/${key.id}/revoke`),
      `${integrations}?done=revoked`,
    );
    const revoked = await client.get(`${integrations}?done=revoked`);
    assert.ok(revoked.text.includes(escaped(pl.t('integrations.done.revoked'))));
    assert.ok(!english.test(refused.text + created.text + revoked.text + confirm.text), 'no English left');
  });

  test('a member who chose Polish is told in Polish that only an owner makes a key that writes', async () => {
    const { owner } = await polishOwner();
    const member = await people.newMember(owner);
    await h.ctx.db.updateTable('users').set({ language: 'pl' }).where('id', '=', member.userId).execute();
    const client = await people.signedIn(member);
    assertPage(await client.get(integrations), 200);
    const refused = await client.post(`${integrations}/keys`, { name: 'Raporty', scope: 'write' });
    assertPage(refused, 400);
    assert.equal(errorBeside(refused.text, 'key-scope'), pl.t('integrations.refusal.ownerWrites'));
    assert.ok(refused.text.includes(escaped(pl.t('integrations.create.memberScope'))));
  });

  test('an owner who chose Polish sets up a webhook endpoint in Polish; the worker’s refusal stays English, marked so', async () => {
    const { client } = await polishOwner();
    assertPage(await client.get(integrations), 200);
    const none = await client.post(`${integrations}/endpoints`, { url: 'https://hooks.kowalski.test/in' });
    assertPage(none, 400);
    assert.equal(errorBeside(none.text, 'new-endpoint-events'), pl.t('endpoints.refusal.events', { max: 5 }));
    const unsafe = await client.post(`${integrations}/endpoints`, {
      url: 'https://localhost/in',
      events: 'document.completed',
    });
    assertPage(unsafe, 400);
    assert.equal(errorBeside(unsafe.text, 'new-endpoint-url'), pl.t('endpoints.refusal.unsafeUrl'));
    const invalid = await client.post(`${integrations}/endpoints`, {
      url: 'no url',
      events: 'document.signed',
    });
    assert.equal(errorBeside(invalid.text, 'new-endpoint-url'), pl.t('endpoints.refusal.invalidUrl'));

    const url = 'https://hooks.kowalski.test/in';
    assertRedirect(
      await client.post(`${integrations}/endpoints`, {
        url,
        events: ['document.completed', 'document.signed'],
      }),
      `${integrations}?done=endpoint-created`,
    );
    const created = await client.get(`${integrations}?done=endpoint-created`);
    assert.ok(created.text.includes(escaped(pl.t('endpoints.new.heading'))));
    const id = /href="\/settings\/integrations\/endpoints\/([0-9a-f-]{36})"/.exec(created.text)?.[1];
    assert.ok(id, 'no link to the new endpoint');
    const path = `${integrations}/endpoints/${id}`;

    const page = await client.get(path);
    assertPage(page, 200);
    assert.match(page.text, /<html lang="pl" dir="ltr">/);
    assert.ok(page.text.includes(escaped(pl.t('endpoints.status.heading'))));
    assert.ok(page.text.includes(escaped(pl.t('endpoints.secret.heading'))));
    const long = await client.post(path, { url, events: 'document.completed', description: 'x'.repeat(501) });
    assertPage(long, 400);
    assert.equal(
      errorBeside(long.text, 'endpoint-description'),
      pl.t('endpoints.refusal.description', { max: 500 }),
    );
    assertRedirect(
      await client.post(path, { url, events: 'document.completed', description: 'CRM' }),
      `${path}?done=saved`,
    );
    const saved = await client.get(`${path}?done=saved`);
    assert.ok(saved.text.includes(escaped(pl.t('endpoints.done.saved'))));
    const badOverlap = await client.post(`${path}/rotate`, { overlap: '5' });
    assertPage(badOverlap, 400);
    assert.equal(errorBeside(badOverlap.text, 'overlap'), pl.t('endpoints.refusal.overlap'));

    // The name now resolves to a private address: the ping is refused at send time.
    resolver.names['hooks.kowalski.test'] = ['10.0.0.7'];
    const test_ = await client.post(`${path}/test`);
    assert.equal(test_.status, 303);
    const pinged = await client.get(test_.location as string);
    assertPage(pinged, 200);
    const deliveryId = /ping=([0-9a-f-]{36})/.exec(test_.location as string)?.[1] as string;
    const stored = await h.ctx.db
      .selectFrom('webhook_attempts')
      .select(['duration_ms', 'response_body'])
      .where('delivery_id', '=', deliveryId)
      .executeTakeFirstOrThrow();
    assert.match(stored.response_body ?? '', /10\.0\.0\.7/);
    const outcome = outcomeText(
      {
        deliveryId,
        eventId: '',
        ok: false,
        statusCode: null,
        errorClass: 'blocked',
        durationMs: stored.duration_ms,
        refusal: stored.response_body as string,
      },
      pl,
    );
    assert.ok(pinged.text.includes(renderToString(outcome)), 'the ping’s outcome in Polish');
    assert.ok(
      pinged.text.includes(`<span lang="en">${escaped(stored.response_body as string)}</span>`),
      'the destination rule’s refusal as the worker wrote it, marked English',
    );
    const delivery = await client.get(`${path}/deliveries/${deliveryId}`);
    assertPage(delivery, 200);
    assert.ok(
      delivery.text.includes(`<title>${escaped(pl.t('endpoints.delivery.title', { id: deliveryId }))}`),
    );
    assert.ok(delivery.text.includes(escaped(pl.t('endpoints.delivery.pingFailed'))));
    assert.ok(
      delivery.text.includes(
        `<h3>${escaped(pl.t('endpoints.attempt.refusal'))}</h3><pre class="shell" dir="ltr" lang="en">`,
      ),
    );

    const confirm = await client.get(`${path}/delete`);
    assert.ok(confirm.text.includes(`<title>${escaped(pl.t('endpoints.delete.title'))}`));
    assert.ok(confirm.text.includes(escaped(pl.t('endpoints.delete.heading'))));
    assertRedirect(await client.post(`${path}/delete`), `${integrations}?done=endpoint-deleted`);
    const deleted = await client.get(`${integrations}?done=endpoint-deleted`);
    assert.ok(deleted.text.includes(escaped(pl.t('endpoints.done.deleted'))));
    const shown = [none, unsafe, created, saved, long, pinged, delivery, confirm, deleted]
      .map((r) => r.text)
      .join('');
    assert.ok(!english.test(shown), 'no English left');
  });

  test('in the pseudo-language the integrations and endpoint pages leave no English word but the values they show', () => {
    const tr = pseudoTranslator();
    const at = '2026-12-04T12:00:00.000Z';
    const owner = {
      workspaceName: 'Kowalski i Syn',
      timeZone: 'Europe/Warsaw',
      plan: 'free',
      role: 'owner',
    } as SessionUser;
    const key: ApiKey = {
      id: '0b0a1c2d-0000-4000-8000-000000000001',
      workspaceId: 'w',
      name: 'Synchronizacja CRM',
      hint: 'a1b2',
      createdAt: at,
      revokedAt: null,
      lastUsedAt: null,
      scope: 'read',
    };
    const revoked = { ...key, id: '0b0a1c2d-0000-4000-8000-000000000002', revokedAt: at, lastUsedAt: at };
    const endpoint: WebhookEndpoint = {
      id: '0e0a1c2d-0000-4000-8000-000000000001',
      url: 'https://hooks.kowalski.test/in',
      events: ['document.completed', 'document.signed'],
      enabled: false,
      description: 'CRM',
      createdAt: at,
      failureCount: 20,
      disabledReason: 'failures',
      pausedAt: at,
      previousSecretExpiresAt: '2026-12-05T12:00:00.000Z',
    };
    const refusal = 'the host resolves to a non-public address (10.0.0.7)';
    const attempt = (
      n: number,
      statusCode: number | null,
      errorClass: string | null,
      responseBody: string | null,
    ) => ({
      attempt: n,
      startedAt: at,
      durationMs: 1234,
      address: '93.184.216.40',
      statusCode,
      errorClass,
      responseBody,
    });
    const delivery = (
      id: string,
      eventType: string,
      status: string,
      log: DeliveryView['attemptLog'],
    ): DeliveryView => ({
      id: `0d0a1c2d-0000-4000-8000-00000000000${id}`,
      eventId: `0f0a1c2d-0000-4000-8000-00000000000${id}`,
      eventType,
      status,
      attempts: log.length,
      createdAt: at,
      nextAttemptAt: status === 'pending' ? at : null,
      deliveredAt: null,
      attemptLog: log,
    });
    const deliveries = [
      delivery('1', 'ping', 'delivered', [attempt(1, 200, null, 'ok')]),
      delivery('2', 'ping', 'dropped', [attempt(1, null, 'blocked', refusal)]),
      delivery('3', 'document.signed', 'pending', [attempt(1, 503, 'http-status', 'busy')]),
      delivery('4', 'document.completed', 'dropped', [attempt(1, null, 'timeout', null)]),
      delivery('5', 'document.completed', 'delivered', [attempt(1, 200, null, null)]),
    ];
    const hours: HourlyAttempts[] = [{ hour: at, delivered: 3, failed: 2 }];
    const detail = (base: DeliveryView): DeliveryDetail => ({
      ...base,
      body: '{"type":"document.completed"}',
      requests: base.attemptLog.map((a) => ({
        attempt: a.attempt,
        headers: { 'content-type': 'application/json', 'x-service-signature': 't=1,v1=ab' },
        signedBeforeRotation: true,
      })),
    });
    const common = {
      endpoint,
      log: { deliveries, nextCursor: 'c' },
      cursor: 'b',
      hours,
      now: new Date(at),
      timeZone: 'UTC',
    };
    const values = { url: endpoint.url, events: endpoint.events, description: 'CRM' };
    const errors = {
      url: tr.t('endpoints.refusal.unsafeUrl'),
      events: tr.t('endpoints.refusal.events', { max: 5 }),
      description: tr.t('endpoints.refusal.description', { max: 500 }),
      overlap: tr.t('endpoints.refusal.overlap'),
    };
    const pings = [
      { deliveryId: 'p', eventId: 'e', ok: true, statusCode: 200, errorClass: null, durationMs: 12 },
      {
        deliveryId: 'p',
        eventId: 'e',
        ok: false,
        statusCode: 503,
        errorClass: 'http-status',
        durationMs: 12,
      },
      { deliveryId: 'p', eventId: 'e', ok: false, statusCode: null, errorClass: 'timeout', durationMs: 12 },
      {
        deliveryId: 'p',
        eventId: 'e',
        ok: false,
        statusCode: null,
        errorClass: 'blocked',
        durationMs: 1,
        refusal,
      },
    ];
    const pages = [
      integrationsView(
        {
          member: owner,
          publicUrl: 'https://sign.example.test',
          keys: [key, revoked],
          endpoints: [endpoint, { ...endpoint, enabled: true, disabledReason: null, failureCount: 1 }],
          created: { ...key, secret: 'sgn_secret' },
          createdEndpoint: { ...endpoint, secret: 'whsec_secret' },
          errors: {
            name: tr.t('integrations.refusal.name'),
            form: tr.t('integrations.refusal.tooMany', { max: 10 }),
          },
          endpointForm: {
            form: {},
            errors: { ...errors, form: tr.t('endpoints.refusal.limit', { max: 10 }) },
          },
        },
        'token',
        tr,
      ),
      integrationsView(
        {
          member: { ...owner, role: 'member' } as SessionUser,
          publicUrl: 'https://sign.example.test',
          keys: [],
          endpoints: [],
          done: 'revoked',
        },
        'token',
        tr,
      ),
      revokeKeyView(key, 'token', 'UTC', tr),
      revokeKeyView(revoked, 'token', 'UTC', tr),
      ...pings.map((ping, i) =>
        endpointView(
          { ...common, values, errors, ping, done: 'rotated', rotated: i ? undefined : 'whsec_new' },
          'token',
          tr,
        ),
      ),
      endpointView(
        {
          ...common,
          endpoint: { ...endpoint, enabled: true, disabledReason: null, previousSecretExpiresAt: null },
          log: { deliveries: [], nextCursor: null },
          cursor: null,
          values,
          errors: {},
        },
        'token',
        tr,
      ),
      deleteEndpointView(endpoint, 'token', tr),
      ...deliveries.map((d, i) =>
        deliveryView(
          detail(d),
          endpoint,
          'token',
          { resent: true, refusal: i ? undefined : tr.t('endpoints.refusal.notResendable') },
          'UTC',
          tr,
        ),
      ),
      deliveryView(
        { ...detail(deliveries[3] as DeliveryView), body: null, requests: [] },
        endpoint,
        'token',
        { resent: false },
        'UTC',
        tr,
      ),
    ];
    // What is data: names, addresses, ids, the API's codes (event types, error classes, HTTP
    // statuses), what a receiver answered, the worker's English refusal, the request headers.
    const data = [
      'Kowalski i Syn',
      'Synchronizacja CRM',
      endpoint.url,
      'https://sign.example.test/v1',
      'Authorization: Bearer',
      'curl',
      '/documents?limit=3',
      'sgn_secret',
      'whsec_secret',
      'whsec_new',
      'CRM',
      '403 plan-required',
      '401 invalid-api-key',
      'HMAC-SHA256',
      '<t>.<body>',
      'x-service-signature',
      'content-type: application/json',
      'http-status',
      'blocked',
      'timeout',
      'busy',
      refusal,
      'ping',
      ...subscribableEventTypes,
      '{"type":"document.completed"}',
    ];
    for (const page of pages) assert.deepEqual(englishLeft(readableText(renderToString(page)), data), []);
  });
});
