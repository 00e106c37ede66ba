// A template's public link on the web (issue 38): the sender turns it on (and sees why a
// template with two roles cannot have one); a visitor without an account gives a name and an
// email, enters the mailed code and lands on their own document's signing page; two visitors,
// two documents, each marked in the sender's list; renewed, the old link is the 404 page;
// asking for codes from one address is limited (429 with Retry-After).
// Issue 49 §3: a hundred requests from twenty addresses leave the link serving a fresh
// visitor; code mails are capped per inbox (across links and workspaces) and per workspace
// (the visitor told, the owner's page says so, logged once), and two apps on one database
// agree on them under concurrent requests; the confirmation page masks the address; the log
// holds neither the link's token nor the request's id.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../src/context.ts';
import { createWaiverTemplate } from '../support/factories.ts';
import {
  countRows,
  describeEachDatabase,
  type Harness,
  latestCodeFor,
  useHarness,
  withApp,
} from '../support/harness.ts';
import { assertPage, assertRedirect, type WebClient, webPeople } from '../support/web-client.ts';

/** The owner turns the template's link on; the link's path, as the settings page shows it. */
async function linkOn(owner: WebClient, templateId: string): Promise<string> {
  assertPage(await owner.get(`/templates/${templateId}/public-link`), 200);
  await owner.post(`/templates/${templateId}/public-link`, { action: 'on', maxUses: '', endsOn: '' });
  const page = await owner.get(`/templates/${templateId}/public-link`);
  return new URL(/<a class="public-link" href="([^"]+)">/.exec(page.text)?.[1] as string).pathname;
}

/** A visitor's whole way: the link, their name and email, the code; their signing page's path. */
async function visit(h: Harness, visitor: WebClient, path: string, email: string): Promise<string> {
  assertPage(await visitor.get(path), 200);
  const asked = await visitor.post(path, { fullName: 'Vera Visitor', email });
  assert.equal(asked.status, 303, asked.text.slice(0, 300));
  const confirm = asked.location as string;
  assert.match(confirm, new RegExp(`^${path}/confirm/[0-9a-f-]{36}$`));
  const codePage = await visitor.get(confirm);
  assertPage(codePage, 200);
  const masked = `${email[0]}•••${email.slice(email.indexOf('@'))}`;
  assert.ok(codePage.text.includes(`six-digit code to <strong>${masked}</strong>`), codePage.text);
  assert.ok(!codePage.text.includes(email), 'the address is masked');
  const signed = await visitor.post(confirm, { code: await latestCodeFor(h.ctx, email) });
  assert.equal(signed.status, 303);
  assert.match(signed.location ?? '', /^\/sign\/[0-9a-f-]{36}\/[A-Za-z0-9_-]+$/);
  return signed.location as string;
}

/** A code asked for through the link; the answer (303 to the confirmation page, or the refusal). */
async function askCode(visitor: WebClient, path: string, email: string) {
  if (!visitor.csrfToken) assertPage(await visitor.get(path), 200);
  return visitor.post(path, { fullName: 'Someone', email });
}

describeEachDatabase('a template’s public link on the web', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const people = webPeople(h, '10.38');

  test('turned on by the sender; two visitors get a document each, signed at once, marked in the list', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const two = await createWaiverTemplate(h.ctx, owner.workspaceId, { roles: ['Customer', 'Shop'] });
    const refusedPage = await client.get(`/templates/${two.id}/public-link`);
    assertPage(refusedPage, 200);
    assert.match(refusedPage.text, /A public link is for a template with one role, a signer/);
    assert.doesNotMatch(refusedPage.text, /Turn the link on/);
    const { id } = await createWaiverTemplate(h.ctx, owner.workspaceId);
    const settings = await client.get(`/templates/${id}/public-link`);
    assertPage(settings, 200);
    assertRedirect(
      await client.post(`/templates/${id}/public-link`, { action: 'on', maxUses: '', endsOn: '' }),
      `/templates/${id}/public-link?done=on`,
    );
    const on = await client.get(`/templates/${id}/public-link?done=on`);
    const url = /<a class="public-link" href="([^"]+)">/.exec(on.text)?.[1] as string;
    assert.ok(url, 'the link is shown');
    const path = new URL(url).pathname;
    const first = await visit(h, people.browser(), path, 'vera@example.com');
    const signingPage = await people.browser().get(first);
    assertPage(signingPage, 200);
    assert.match(signingPage.text, /Climbing waiver/);
    await visit(h, people.browser(), path, 'max@example.com');
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: owner.workspaceId }), 2);
    const list = await client.get('/documents');
    assert.equal(list.text.match(/badge badge-neutral">public link</g)?.length, 2);
    assert.match(on.text, /used 0 times/);
    assert.match((await client.get(`/templates/${id}/public-link`)).text, /used 2 times/);
  });

  test('limits refused with their sentences; renewed, the old link is the 404 page; turned off, the new one too', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await createWaiverTemplate(h.ctx, owner.workspaceId);
    await client.get(`/templates/${id}/public-link`);
    const bad = await client.post(`/templates/${id}/public-link`, {
      action: 'on',
      maxUses: '0',
      endsOn: 'soon',
    });
    assertPage(bad, 400);
    assert.match(bad.text, /most uses is a whole number/);
    assert.match(bad.text, /last day is a date/);
    await client.post(`/templates/${id}/public-link`, { action: 'on', maxUses: '', endsOn: '' });
    const old = new URL(
      /<a class="public-link" href="([^"]+)">/.exec(
        (await client.get(`/templates/${id}/public-link`)).text,
      )?.[1] as string,
    ).pathname;
    assertPage(await people.browser().get(old), 200);
    assertRedirect(
      await client.post(`/templates/${id}/public-link`, { action: 'renew', maxUses: '', endsOn: '' }),
      `/templates/${id}/public-link?done=renew`,
    );
    assertPage(await people.browser().get(old), 404);
    const renewed = new URL(
      /<a class="public-link" href="([^"]+)">/.exec(
        (await client.get(`/templates/${id}/public-link`)).text,
      )?.[1] as string,
    ).pathname;
    assertPage(await people.browser().get(renewed), 200);
    await client.post(`/templates/${id}/public-link`, { action: 'off' });
    assertPage(await people.browser().get(renewed), 404);
    // Another workspace's template: the 404 page.
    const stranger = await people.signedIn(await people.newOwner());
    assertPage(await stranger.get(`/templates/${id}/public-link`), 404);
  });

  test('codes asked for from one address are limited: 429 with Retry-After, the form kept', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await createWaiverTemplate(h.ctx, owner.workspaceId);
    const path = await linkOn(client, id);
    const visitor = people.browser();
    await visitor.get(path);
    for (let i = 0; i < 5; i++) {
      const asked = await visitor.post(path, { fullName: 'Rita', email: `rita${i}@example.com` });
      assert.equal(asked.status, 303);
      await visitor.get(path);
    }
    const refused = await visitor.post(path, { fullName: 'Rita', email: 'rita9@example.com' });
    assertPage(refused, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.match(refused.text, /Too many codes asked for/);
    assert.match(refused.text, /value="rita9@example.com"/);
  });

  test('a hundred code requests from twenty addresses leave the link open: a fresh visitor gets a code and signs', async () => {
    const owner = await people.newOwner();
    const { id } = await createWaiverTemplate(h.ctx, owner.workspaceId);
    const path = await linkOn(await people.signedIn(owner), id);
    const strangers = Array.from({ length: 20 }, () => people.browser());
    for (const [i, stranger] of strangers.entries())
      for (let j = 0; j < 5; j++) {
        const asked = await askCode(stranger, path, `target${i}-${j}@example.net`);
        assert.equal(asked.status, 303, `request ${j + 1} of address ${i + 1}`);
      }
    // Each address has spent its own budget, and only its own.
    const sixth = await askCode(strangers[0] as WebClient, path, 'target-more@example.net');
    assertPage(sixth, 429);
    assert.match(sixth.text, /Too many codes asked for from your network/);
    const mails = () => countRows(h.ctx, 'mails', { workspace_id: owner.workspaceId });
    assert.equal(await mails(), 100);
    const signing = await visit(h, people.browser(), path, 'fresh@example.com');
    assertPage(await people.browser().get(signing), 200);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: owner.workspaceId }), 1);
  });

  test('codes to one inbox stop at 3 an hour, across links and workspaces and its +tags and look-alikes; the next hour it is served again', async () => {
    const first = await people.newOwner();
    const second = await people.newOwner();
    const pathA = await linkOn(
      await people.signedIn(first),
      (await createWaiverTemplate(h.ctx, first.workspaceId)).id,
    );
    const pathB = await linkOn(
      await people.signedIn(second),
      (await createWaiverTemplate(h.ctx, second.workspaceId)).id,
    );
    // Apart from the hour's end, so the next hour is a clock step away, not a boundary crossed mid-test.
    h.clock.set(new Date(Math.ceil(h.clock.now().getTime() / 3_600_000) * 3_600_000 + 60_000));
    assert.equal((await askCode(people.browser(), pathA, 'ivy@example.com')).status, 303);
    assert.equal((await askCode(people.browser(), pathB, 'Ivy+promo@Example.com')).status, 303);
    assert.equal((await askCode(people.browser(), pathA, 'ｉｖｙ@example.com')).status, 303);
    const visitor = people.browser();
    const refused = await askCode(visitor, pathB, 'ivy@example.com');
    assertPage(refused, 429);
    assert.equal(refused.headers.get('retry-after'), String(59 * 60));
    assert.match(
      refused.text,
      /This address has been mailed 3 codes in the last hour, the most we send to one address\. Try again in 59 minutes, or give another address\./,
    );
    assert.match(refused.text, /value="ivy@example.com"/);
    const toIvy = await h.ctx.db
      .selectFrom('mails')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', 'in', [first.workspaceId, second.workspaceId])
      .executeTakeFirstOrThrow();
    assert.equal(Number(toIvy.n), 3, 'the refused code was never queued');
    assert.equal(
      (await askCode(visitor, pathB, 'ivan@example.com')).status,
      303,
      'another address is served',
    );
    h.clock.advance(59 * 60_000);
    assert.equal((await askCode(people.browser(), pathB, 'ivy@example.com')).status, 303, 'the next hour');
  });

  test('two apps on one database agree on the inbox cap: of eight requests at once, three are mailed', async () => {
    const owner = await people.newOwner();
    const path = await linkOn(
      await people.signedIn(owner),
      (await createWaiverTemplate(h.ctx, owner.workspaceId)).id,
    );
    const statuses = await withApp(h.ctx, h.config.rateLimit, async (otherUrl) => {
      const elsewhere = webPeople({ baseUrl: otherUrl, ctx: h.ctx }, '10.39');
      const visitors = Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? people : elsewhere).browser());
      for (const visitor of visitors) assertPage(await visitor.get(path), 200);
      const answers = await Promise.all(
        visitors.map((visitor) => visitor.post(path, { fullName: 'Una', email: 'una@example.com' })),
      );
      return answers.map((answer) => answer.status).sort();
    });
    assert.deepEqual(statuses, [303, 303, 303, 429, 429, 429, 429, 429]);
    assert.equal(await countRows(h.ctx, 'mails', { to_address: 'una@example.com' }), 3);
  });

  test('the confirmation page shows the address masked, to the visitor and to whoever else holds its URL', async () => {
    const owner = await people.newOwner();
    const path = await linkOn(
      await people.signedIn(owner),
      (await createWaiverTemplate(h.ctx, owner.workspaceId)).id,
    );
    const asked = await askCode(people.browser(), path, 'jonas.private@example.org');
    const confirm = asked.location as string;
    for (const holder of [people.browser(), people.browser()]) {
      const page = await holder.get(confirm);
      assertPage(page, 200);
      assert.match(page.text, /six-digit code to <strong>j•••@example\.org<\/strong>/);
      assert.ok(!page.text.includes('jonas'), 'no part of the address but its first letter');
    }
    const code = await latestCodeFor(h.ctx, 'jonas.private@example.org');
    const holder = people.browser();
    assertPage(await holder.get(confirm), 200);
    const wrong = await holder.post(confirm, { code: code === '000000' ? '111111' : '000000' });
    assertPage(wrong, 400);
    assert.ok(!wrong.text.includes('jonas'), 'nor on the refused code’s page');
  });
});

describeEachDatabase('public-link code mails per workspace, and the log', (kind) => {
  const lines: string[] = [];
  const log = createLogger('info', { write: (line: string) => void lines.push(line) });
  const h = useHarness(kind, {
    env: { SIGNET_TRUST_PROXY: 'true', SIGNET_PUBLIC_LINK_CODE_MAILS_PER_DAY: '3' },
    log,
  });
  const people = webPeople(h, '10.49');

  test('a workspace’s code mails stop at its daily cap: the visitor is told, the owner’s page says so, logged once; the next UTC day they start again', async () => {
    // Two hours before midnight UTC (sessions are signed in after the clock is set).
    h.clock.set(new Date('2026-03-05T22:00:00.000Z'));
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await createWaiverTemplate(h.ctx, owner.workspaceId);
    const path = await linkOn(client, id);
    const other = await people.newOwner();
    const otherPath = await linkOn(
      await people.signedIn(other),
      (await createWaiverTemplate(h.ctx, other.workspaceId)).id,
    );
    for (let i = 0; i < 3; i++)
      assert.equal((await askCode(people.browser(), path, `v${i}@example.com`)).status, 303);
    assert.match(
      (await client.get(`/templates/${id}/public-link`)).text,
      /Code mails today \(UTC\), all your public links together: 3 of 3\./,
    );
    for (let i = 0; i < 2; i++) {
      const refused = await askCode(people.browser(), path, `late${i}@example.com`);
      assertPage(refused, 429);
      assert.equal(refused.headers.get('retry-after'), String(2 * 3600));
      assert.match(
        refused.text,
        /This link has mailed all the codes it may today\. Try again tomorrow \(after midnight UTC\), or ask Acme \w+ for another way to sign\./,
      );
    }
    assert.equal(await countRows(h.ctx, 'mails', { workspace_id: owner.workspaceId }), 3);
    const settings = await client.get(`/templates/${id}/public-link`);
    assertPage(settings, 200);
    assert.match(
      settings.text,
      /Your public links reached their limit of 3 code mails today \(UTC, all your links together\)/,
    );
    const logged = lines.filter((line) => line.includes('reached its daily limit of code mails'));
    assert.equal(logged.length, 1, 'logged once');
    assert.equal(JSON.parse(logged[0] as string).workspaceId, owner.workspaceId);
    assert.equal(
      (await askCode(people.browser(), otherPath, 'x@example.com')).status,
      303,
      'another workspace',
    );
    h.clock.set(new Date('2026-03-06T00:00:01.000Z'));
    assert.equal((await askCode(people.browser(), path, 'late0@example.com')).status, 303, 'the next day');
    assert.doesNotMatch((await client.get(`/templates/${id}/public-link`)).text, /reached their limit/);
  });

  test('a visitor’s whole journey leaves neither the link’s token nor the request’s id in the log', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const path = await linkOn(client, (await createWaiverTemplate(h.ctx, owner.workspaceId)).id);
    const token = path.split('/').at(-1) as string;
    const from = lines.length;
    const visitor = people.browser();
    assertPage(await visitor.get(path), 200);
    const asked = await visitor.post(path, { fullName: 'Lou Logged', email: 'lou@example.com' });
    const confirm = asked.location as string;
    const requestId = confirm.split('/').at(-1) as string;
    assertPage(await visitor.get(confirm), 200);
    const code = await latestCodeFor(h.ctx, 'lou@example.com');
    assertPage(await visitor.post(confirm, { code: code === '000000' ? '111111' : '000000' }), 400);
    const signed = await visitor.post(confirm, { code });
    assert.equal(signed.status, 303);
    assertPage(await visitor.get(signed.location as string), 200);
    for (const spelling of [
      `/t//${token}`,
      `/T/${token}/confirm/${requestId}`,
      `/login?next=${encodeURIComponent(confirm)}`,
    ])
      await visitor.get(spelling);
    const journey = lines.slice(from);
    const urls = journey
      .filter((line) => line.includes('"req"'))
      .map((line) => (JSON.parse(line) as { req: { url: string } }).req.url);
    assert.ok(urls.length >= 8, urls.join('\n'));
    for (const line of journey) {
      assert.ok(!line.includes(token), `the token in the log: ${line}`);
      assert.ok(!line.includes(requestId), `the request id in the log: ${line}`);
    }
    assert.ok(urls.includes('/t/[redacted]'), urls.join('\n'));
    assert.ok(urls.includes('/t/[redacted]/confirm/[redacted]'), urls.join('\n'));
  });
});
