// A template's public link on the web (issue 38): the sender turns it on (and sees why a
// template with two roles cannot have one); a visitor without an account gives a name and an
// email, enters the mailed code and lands on their own document's signing page; two visitors,
// two documents, each marked in the sender's list; renewed, the old link is the 404 page;
// asking for codes from one address is limited (429 with Retry-After).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PDFDocument } from '@cantoo/pdf-lib';
import { createTemplate } from '../src/templates/templates.service.ts';
import { countRows, describeEachDatabase, latestCodeFor, useHarness } from './harness.ts';
import { assertPage, assertRedirect, type WebClient, webPeople } from './web-client.ts';

async function onePagePdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  pdf.addPage([595, 842]);
  return Buffer.from(await pdf.save());
}

describeEachDatabase('a template’s public link on the web', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const people = webPeople(h, '10.38');

  async function waiver(workspaceId: string, roles: string[] = ['Customer']) {
    return createTemplate(h.ctx, {
      workspaceId,
      name: 'Waiver',
      title: 'Climbing waiver',
      roles: roles.map((name, i) => ({
        name,
        role: 'signer',
        signingOrder: i + 1,
        signingMethod: 'standard',
      })),
      fields: [{ role: 'Customer', type: 'signature', page: 1, x: 72, y: 72, width: 180, height: 40 }],
      expiresInSeconds: 7 * 24 * 3600,
      file: await onePagePdf(),
    });
  }

  /** A visitor's whole way: the link, their name and email, the code; their signing page's path. */
  async function visit(visitor: WebClient, path: string, email: string): Promise<string> {
    assertPage(await visitor.get(path), 200);
    const asked = await visitor.post(path, { fullName: 'Vera Visitor', email });
    assert.equal(asked.status, 303, asked.text.slice(0, 300));
    const confirm = asked.location as string;
    assert.match(confirm, new RegExp(`^${path}/confirm/[0-9a-f-]{36}$`));
    const codePage = await visitor.get(confirm);
    assertPage(codePage, 200);
    assert.match(codePage.text, new RegExp(`six-digit code to <strong>${email}</strong>`));
    const signed = await visitor.post(confirm, { code: await latestCodeFor(h.ctx, email) });
    assert.equal(signed.status, 303);
    assert.match(signed.location ?? '', /^\/sign\/[0-9a-f-]{36}\/[A-Za-z0-9_-]+$/);
    return signed.location as string;
  }

  test('turned on by the sender; two visitors get a document each, signed at once, marked in the list', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const two = await waiver(owner.workspaceId, ['Customer', 'Shop']);
    const refusedPage = await client.get(`/templates/${two.id}/public-link`);
    assertPage(refusedPage, 200);
    assert.match(refusedPage.text, /A public link is for a template with one role, a signer/);
    assert.doesNotMatch(refusedPage.text, /Turn the link on/);
    const { id } = await waiver(owner.workspaceId);
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
    const first = await visit(people.browser(), path, 'vera@example.com');
    const signingPage = await people.browser().get(first);
    assertPage(signingPage, 200);
    assert.match(signingPage.text, /Climbing waiver/);
    await visit(people.browser(), path, 'max@example.com');
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: owner.workspaceId }), 2);
    const list = await client.get('/documents');
    assert.equal(list.text.match(/badge badge-neutral">public link</g)?.length, 2);
    assert.match(on.text, /used 0 times/);
    assert.match((await client.get(`/templates/${id}/public-link`)).text, /used 2 times/);
  });

  test('limits refused with their sentences; renewed, the old link is the 404 page; turned off, the new one too', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await waiver(owner.workspaceId);
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
    const { id } = await waiver(owner.workspaceId);
    await client.get(`/templates/${id}/public-link`);
    await client.post(`/templates/${id}/public-link`, { action: 'on', maxUses: '', endsOn: '' });
    const path = new URL(
      /<a class="public-link" href="([^"]+)">/.exec(
        (await client.get(`/templates/${id}/public-link`)).text,
      )?.[1] as string,
    ).pathname;
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
});
