// Settings › Brand over HTTP, on both databases (issue 52): an owner sets the company's name,
// accent colour and "Sent with Signet"; a refused colour or name says why beside its field
// and keeps what was typed; a member who is not an owner cannot; the recipient's signing page
// and a public link's pages then carry the brand (the name as the sender, the colour through
// its stylesheet, the footer or none), while the web app's own pages keep Signet's look.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { translator } from '../../src/i18n/messages.ts';
import { setPublicLink } from '../../src/templates/public-links.ts';
import { escapeHtml } from '../../src/ui/html.ts';
import { createWaiverTemplate } from '../support/factories.ts';
import { createSentDocument, describeEachDatabase, recipient, useHarness } from '../support/harness.ts';
import { assertPage, assertRedirect, assertSays, errorBeside, webPeople } from '../support/web-client.ts';

const en = translator('en');

describeEachDatabase('a workspace’s brand', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const people = webPeople(h, '10.64');

  test('an owner sets it; a colour too light, a name too long and a member who is no owner are refused', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const account = await client.get('/settings/account');
    assert.ok(account.text.includes('<a href="/settings/brand">'), 'the account page leads to it');
    const page = await client.get('/settings/brand');
    assertPage(page, 200);
    assertSays(page.text, en.t('settings.brand.title'), en.t('settings.brand.sentWith'));
    assert.match(page.text, /id="sentWithSignet" name="sentWithSignet" type="checkbox" value="true" checked/);

    const light = await client.post('/settings/brand', {
      displayName: 'Acme GmbH',
      accent: '#FFCC00',
      sentWithSignet: 'true',
    });
    assertPage(light, 400);
    assert.equal(
      errorBeside(light.text, 'accent'),
      '#ffcc00 is too light to read: white text on it, and links in it, reach only 1.38:1 against the page, and WCAG AA asks for at least 4.5:1. Choose a darker shade.',
    );
    assert.ok(light.text.includes('value="Acme GmbH"'), 'what was typed is kept');
    assert.ok(light.text.includes('value="#FFCC00"'));
    const long = await client.post('/settings/brand', { displayName: 'x'.repeat(101), accent: '' });
    assertPage(long, 400);
    assert.equal(errorBeside(long.text, 'displayName'), 'Use at most 100 characters.');
    const stored = async () =>
      h.ctx.db
        .selectFrom('workspaces')
        .select(['brand_name', 'brand_accent', 'brand_sent_with'])
        .where('id', '=', owner.workspaceId)
        .executeTakeFirstOrThrow();
    assert.deepEqual(await stored(), { brand_name: null, brand_accent: null, brand_sent_with: true });

    assertRedirect(
      await client.post('/settings/brand', { displayName: ' Acme GmbH ', accent: '#0B6E4F' }),
      '/settings/brand?done=saved',
    );
    assert.deepEqual(await stored(), {
      brand_name: 'Acme GmbH',
      brand_accent: '#0b6e4f',
      brand_sent_with: false,
    });
    const saved = await client.get('/settings/brand?done=saved');
    assertSays(saved.text, en.t('settings.brand.done', { workspace: owner.workspaceName }));
    assert.ok(saved.text.includes('value="#0b6e4f"'));
    assert.doesNotMatch(saved.text, /name="sentWithSignet" type="checkbox" value="true" checked/);
    // The web app keeps Signet's look: no brand stylesheet on its pages.
    assert.doesNotMatch(saved.text, /assets\/brand\//);

    const member = await people.newMember(owner);
    const memberClient = await people.signedIn(member);
    const refused = await memberClient.get('/settings/brand');
    assert.equal(refused.status, 403);
    await memberClient.get('/documents');
    assert.equal(
      (await memberClient.post('/settings/brand', { displayName: 'Mine', accent: '' })).status,
      403,
    );
    assert.equal((await stored()).brand_name, 'Acme GmbH');
  });

  test('the signing page and a public link’s pages carry the brand: its name, its colour, the footer or none', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { links } = await createSentDocument(h.ctx, owner.workspaceId, {
      title: 'Service contract',
      recipients: [recipient('ann@client.example', 'Ann Lee')],
    });
    const signing = links.get('ann@client.example')?.path as string;
    const signer = people.browser();
    const plain = await signer.get(signing);
    assertPage(plain, 200);
    assert.ok(plain.text.includes(escapeHtml(owner.workspaceName)), 'the workspace’s name before a brand');
    assert.doesNotMatch(plain.text, /assets\/brand\//);
    assertSays(plain.text, en.t('sign.sentWith'));

    await client.get('/settings/brand');
    assertRedirect(
      await client.post('/settings/brand', { displayName: 'Acme & Söhne GmbH', accent: '#0b6e4f' }),
      '/settings/brand?done=saved',
    );
    const branded = await signer.get(signing);
    assertPage(branded, 200);
    assert.ok(branded.text.includes(escapeHtml('Acme & Söhne GmbH')), 'the brand’s name as the sender');
    assert.ok(
      !branded.text.includes(escapeHtml(owner.workspaceName)),
      'the workspace’s own name is not shown',
    );
    assert.ok(branded.text.includes('<link rel="stylesheet" href="/assets/brand/0b6e4f.css">'));
    assert.doesNotMatch(
      branded.text,
      new RegExp(en.t('sign.sentWith')),
      'no footer when the owner left it out',
    );
    // The page's policy lets its own origin's stylesheet in, and nothing else new.
    const policy = (await fetch(`${h.baseUrl}${signing}`)).headers.get('content-security-policy') ?? '';
    assert.match(policy, /style-src [^;]*'self'/);
    assert.match(policy, /frame-ancestors 'none'/);

    const css = await fetch(`${h.baseUrl}/assets/brand/0b6e4f.css`);
    assert.equal(css.status, 200);
    assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.match(css.headers.get('cache-control') ?? '', /immutable/);
    assert.match(await css.text(), /--primary: #0b6e4f;\n {2}--primary-hover: #095c42;/);
    for (const bad of ['0B6E4F.css', '0b6e4.css', '0b6e4f.js', '0b6e4f', '..%2Fapp.css'])
      assert.equal((await fetch(`${h.baseUrl}/assets/brand/${bad}`)).status, 404, bad);

    const waiver = await createWaiverTemplate(h.ctx, owner.workspaceId);
    const token = await setPublicLink(h.ctx, owner.workspaceId, waiver.id, { maxUses: null, endsAt: null });
    const visitor = people.browser();
    const link = await visitor.get(`/t/${token}`);
    assertPage(link, 200);
    assert.ok(link.text.includes(escapeHtml('Acme & Söhne GmbH')));
    assert.ok(link.text.includes('<link rel="stylesheet" href="/assets/brand/0b6e4f.css">'));
    assert.doesNotMatch(link.text, new RegExp(en.t('sign.sentWith')));

    assertRedirect(
      await client.post('/settings/brand', { displayName: '', accent: '', sentWithSignet: 'true' }),
      '/settings/brand?done=saved',
    );
    const back = await signer.get(signing);
    assert.ok(back.text.includes(escapeHtml(owner.workspaceName)), 'an empty name: the workspace’s again');
    assert.doesNotMatch(back.text, /assets\/brand\//);
    assertSays(back.text, en.t('sign.sentWith'));
    assertSays((await visitor.get(`/t/${token}`)).text, en.t('sign.sentWith'));
  });
});
