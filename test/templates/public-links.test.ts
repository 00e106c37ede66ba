// Public signing links of templates (issue 38), the service: only a template with one signing
// role and no asked value has one; a visitor's email confirmed by a mailed code gets a
// document of their own, sent to them and marked as from the public link; two visitors, two
// documents; a most number of uses and an end close it; renewing ends the old link and its
// codes; wrong codes count; asking for codes is limited per client address (the caps on code
// mails per inbox and per workspace: web-public-link.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryRateLimiter } from '../../src/http/rate-limiter.ts';
import { InputError } from '../../src/input-error.ts';
import {
  confirmPublicLinkCode,
  openPublicLink,
  publicLinkSettings,
  removePublicLink,
  requestPublicLinkCode,
  setPublicLink,
  takePublicLinkAttempt,
} from '../../src/templates/public-links.ts';
import { createWaiverTemplate } from '../support/factories.ts';
import { createTestWorkspace, describeEachDatabase, latestCodeFor, useHarness } from '../support/harness.ts';

const inputError = (key: string, pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof InputError, String(error));
  assert.match(error.fields[key] ?? '', pattern);
  return true;
};

describeEachDatabase('public signing links', (kind) => {
  const h = useHarness(kind);

  const template = (workspaceId: string, roles?: string[]) =>
    createWaiverTemplate(h.ctx, workspaceId, { title: 'Activity waiver', roles });

  async function visit(token: string, email: string, fullName = 'Vera Visitor') {
    const { requestId } = await requestPublicLinkCode(h.ctx, token, {
      fullName,
      email,
      clientIp: '10.9.0.1',
    });
    return confirmPublicLinkCode(h.ctx, token, requestId, await latestCodeFor(h.ctx, email));
  }

  test('only a template with one signing role takes a link; two visitors get a document each, sent to them', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const two = await template(ws.id, ['Customer', 'Shop']);
    await assert.rejects(
      setPublicLink(h.ctx, ws.id, two.id, { maxUses: null, endsAt: null }),
      inputError('publicLink', /one role, a signer/),
    );
    const { id } = await template(ws.id);
    const token = await setPublicLink(h.ctx, ws.id, id, { maxUses: null, endsAt: null });
    assert.equal((await openPublicLink(h.ctx, token)).title, 'Activity waiver');
    const first = await visit(token, 'vera@example.com');
    const second = await visit(token, 'max@example.com', 'Max Visitor');
    assert.notEqual(first.documentId, second.documentId);
    const documents = await h.ctx.db
      .selectFrom('documents')
      .select(['id', 'status', 'made_via', 'template_id'])
      .where('workspace_id', '=', ws.id)
      .orderBy('created_at')
      .execute();
    assert.deepEqual(
      documents.map((d) => [d.status, d.made_via, d.template_id]),
      [
        ['sent', 'public-link', id],
        ['sent', 'public-link', id],
      ],
    );
    const page = await fetch(h.baseUrl + first.signingPath);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Activity waiver/);
    assert.equal((await publicLinkSettings(h.ctx, ws.id, id)).uses, 2);
    // A confirmed code is spent: it makes no second document.
    const request = await h.ctx.db
      .selectFrom('public_link_requests')
      .select('id')
      .where('document_id', '=', first.documentId)
      .executeTakeFirstOrThrow();
    await assert.rejects(
      confirmPublicLinkCode(h.ctx, token, request.id, await latestCodeFor(h.ctx, 'vera@example.com')),
      inputError('code', /can no longer be used/),
    );
  });

  test('a most number of uses and an end close the link; renewed, the old link and its codes open nothing', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await template(ws.id);
    const token = await setPublicLink(h.ctx, ws.id, id, { maxUses: 1, endsAt: null });
    await visit(token, 'one@example.com');
    assert.equal((await openPublicLink(h.ctx, token)).closed, 'publicLink.closed.usedUp');
    await assert.rejects(
      requestPublicLinkCode(h.ctx, token, { fullName: 'Two', email: 'two@example.com', clientIp: null }),
      inputError('email', /used as many times/),
    );
    const end = new Date(h.clock.now().getTime() + 60_000);
    const same = await setPublicLink(h.ctx, ws.id, id, { maxUses: null, endsAt: end });
    assert.equal(same, token, 'changing its limits keeps the link');
    const asked = await requestPublicLinkCode(h.ctx, token, {
      fullName: 'Late',
      email: 'late@example.com',
      clientIp: null,
    });
    h.clock.advance(61_000);
    assert.equal((await openPublicLink(h.ctx, token)).closed, 'publicLink.closed.ended');
    await assert.rejects(
      confirmPublicLinkCode(h.ctx, token, asked.requestId, await latestCodeFor(h.ctx, 'late@example.com')),
      /has ended|expired/,
    );
    const renewed = await setPublicLink(h.ctx, ws.id, id, { maxUses: null, endsAt: null, renew: true });
    assert.notEqual(renewed, token);
    await assert.rejects(openPublicLink(h.ctx, token), /not-found/);
    await assert.rejects(
      confirmPublicLinkCode(h.ctx, token, asked.requestId, '000000'),
      /not-found/,
      'a code asked through the old link',
    );
    await visit(renewed, 'new@example.com');
    await removePublicLink(h.ctx, ws.id, id);
    await assert.rejects(openPublicLink(h.ctx, renewed), /not-found/);
    const other = await createTestWorkspace(h.ctx);
    await assert.rejects(setPublicLink(h.ctx, other.id, id, { maxUses: null, endsAt: null }), /not-found/);
  });

  test('wrong codes count and the fifth voids the code; a bad name or address is refused before any mail', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await template(ws.id);
    const token = await setPublicLink(h.ctx, ws.id, id, { maxUses: null, endsAt: null });
    await assert.rejects(
      requestPublicLinkCode(h.ctx, token, { fullName: ' ', email: 'nope@', clientIp: null }),
      (error: unknown) =>
        error instanceof InputError && 'fullName' in error.fields && 'email' in error.fields,
    );
    const { requestId } = await requestPublicLinkCode(h.ctx, token, {
      fullName: 'Wanda',
      email: 'wanda@example.com',
      clientIp: null,
    });
    const good = await latestCodeFor(h.ctx, 'wanda@example.com');
    const wrong = good === '123456' ? '654321' : '123456';
    for (let i = 1; i <= 4; i++)
      await assert.rejects(
        confirmPublicLinkCode(h.ctx, token, requestId, wrong),
        inputError('code', /Wrong code/),
      );
    await assert.rejects(
      confirmPublicLinkCode(h.ctx, token, requestId, wrong),
      inputError('code', /last try/),
    );
    await assert.rejects(
      confirmPublicLinkCode(h.ctx, token, requestId, good),
      inputError('code', /no longer/),
    );
    assert.equal((await publicLinkSettings(h.ctx, ws.id, id)).uses, 0);
  });

  test('asking for codes is limited per client address only: strangers’ requests never spend the link’s budget', async () => {
    const limiter = createMemoryRateLimiter({ burst: 1000, refillPerSecond: 1000 });
    const now = Date.now();
    const take = (clientIp: string) => takePublicLinkAttempt(limiter, { clientIp }, now);
    for (let i = 0; i < 5; i++) assert.equal((await take('10.0.0.1')).allowed, true);
    const refused = await take('10.0.0.1');
    assert.equal(refused.allowed, false);
    assert.ok(refused.retryAfterSeconds > 0);
    let allowed = 0;
    for (let i = 0; i < 200; i++) if ((await take(`10.0.1.${i}`)).allowed) allowed++;
    assert.equal(allowed, 200, 'no bucket for the link as a whole');
    await limiter.close();
  });
});
