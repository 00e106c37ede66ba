// The workspace's time zone (issue 36 §6): UTC until an owner chooses another in Settings ›
// Time zone; then the web app's pages and the signing mails show times in it, naming it,
// while the API keeps UTC. Members cannot change it; a name not in the IANA list is refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { listMails } from '../../src/mail/mail.service.ts';
import { formatTime } from '../../src/ui/time.ts';
import {
  callApi,
  createDraftDocument,
  createSentDocument,
  describeEachDatabase,
  useHarness,
} from '../support/harness.ts';
import {
  assertPage,
  assertRedirect,
  type TestAccount,
  type WebClient,
  webPeople,
} from '../support/web-client.ts';

describeEachDatabase('the workspace’s time zone', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.37');
  let owner: TestAccount;
  let client: WebClient;
  let draftId: string;

  test('formatTime: the wall clock of the zone, named; UTC as before; daylight saving followed', () => {
    assert.equal(formatTime('2026-11-26T13:03:09.000Z', 'UTC'), '2026-11-26 13:03 UTC');
    assert.equal(formatTime('2026-11-26T13:03:09.000Z', 'Europe/Berlin'), '2026-11-26 14:03 Europe/Berlin');
    assert.equal(
      formatTime('2026-07-01T13:03:09.000Z', 'Europe/Berlin', true),
      '2026-07-01 15:03:09 Europe/Berlin',
    );
    assert.equal(formatTime('2026-11-26T23:30:00.000Z', 'Asia/Kolkata'), '2026-11-27 05:00 Asia/Kolkata');
    assert.equal(
      formatTime('2026-11-26T03:00:00.000Z', 'America/New_York'),
      '2026-11-25 22:00 America/New_York',
    );
  });

  test('setup: an owner with a draft', async () => {
    owner = await people.newOwner();
    client = await people.signedIn(owner);
    draftId = (await createDraftDocument(h.ctx, owner.workspaceId, { title: 'Zoned agreement' })).id;
  });

  test('UTC by default: the list and the account page say so', async () => {
    const created = formatTime(h.clock.now().toISOString(), 'UTC');
    const list = await client.get('/documents');
    assertPage(list, 200);
    assert.match(list.text, new RegExp(`<td><time datetime="[^"]+">${created}</time></td>`), created);
    const account = await client.get('/settings/account');
    assert.ok(account.text.includes('Times are shown in UTC'));
    assert.ok(account.text.includes('href="/settings/time-zone"'));
  });

  test('an owner chooses Europe/Berlin: pages show times in it, named; the API keeps UTC', async () => {
    const page = await client.get('/settings/time-zone');
    assertPage(page, 200);
    assert.ok(page.text.includes('<option selected>UTC</option>'));
    assert.ok(page.text.includes('<option>Europe/Berlin</option>'));
    assertRedirect(
      await client.post('/settings/time-zone', { timeZone: 'Europe/Berlin' }),
      '/settings/time-zone?done=saved',
    );
    const saved = await client.get('/settings/time-zone?done=saved');
    assert.ok(saved.text.includes('<option selected>Europe/Berlin</option>'));

    const now = h.clock.now().toISOString();
    const berlin = formatTime(now, 'Europe/Berlin');
    assert.match(berlin, / Europe\/Berlin$/);
    assert.notEqual(berlin.slice(0, 16), formatTime(now, 'UTC').slice(0, 16), 'a different wall clock');
    const list = await client.get('/documents');
    assert.match(list.text, new RegExp(`<td><time datetime="[^"]+">${berlin}</time></td>`), 'the list');
    const detail = await client.get(`/documents/${draftId}`);
    assert.ok(detail.text.includes(`<dt>Created</dt><dd>${berlin}</dd>`), 'the document page');
    assert.ok(!detail.text.includes(' UTC</dd>'));

    const key = await createApiKey(h.ctx, { workspaceId: owner.workspaceId, name: 'test' });
    const api = await callApi(h, 'GET', `/v1/documents/${draftId}`, { key: key.secret });
    assert.equal(api.status, 200);
    assert.equal((api.body.data as { createdAt: string }).createdAt, now, 'the API in UTC, ISO 8601');
  });

  test('the signing mail names the link’s expiry in the workspace’s zone', async () => {
    const { id } = await createSentDocument(h.ctx, owner.workspaceId, { title: 'Zoned mail' });
    const mails = await listMails(h.ctx, { documentId: id });
    const invitation = mails.find((m) => m.subject.startsWith('Please sign'));
    assert.ok(invitation);
    // In the recipient's language's format (English: British), naming the zone.
    assert.match(
      invitation.text,
      /The link works until \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d Europe\/Berlin\./,
    );
  });

  test('a member cannot change it; a name outside the list is refused and nothing changes', async () => {
    const member = await people.newMember(owner);
    const memberClient = await people.signedIn(member);
    assertPage(await memberClient.get('/settings/time-zone'), 403);
    await memberClient.get('/settings/account');
    assertPage(await memberClient.post('/settings/time-zone', { timeZone: 'Asia/Tokyo' }), 403);
    await client.get('/settings/time-zone');
    const refused = await client.post('/settings/time-zone', { timeZone: 'Mars/Olympus_Mons' });
    assertPage(refused, 400);
    assert.ok(refused.text.includes('Choose a time zone from the list.'));
    const row = await h.ctx.db
      .selectFrom('workspaces')
      .select('time_zone')
      .where('id', '=', owner.workspaceId)
      .executeTakeFirstOrThrow();
    assert.equal(row.time_zone, 'Europe/Berlin');
  });
});
