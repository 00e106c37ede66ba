// A template's public-link settings in the sender's language (issue 51), on both databases: an
// owner who chose Polish reads the page (why a two-role template cannot have a link, turning it
// on, its limits, renewing it, turning it off, the day's code mails and the workspace's cap) in
// Polish, its refusals beside their inputs and its notices too; in the pseudo-language the page
// leaves no English word but the values it shows (the template's name, the link, the counts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usageDay } from '../../src/documents/upload-usage.ts';
import { type MessageKey, translator } from '../../src/i18n/messages.ts';
import type { PublicLinkSettings } from '../../src/templates/public-links.ts';
import type { TemplateDetail } from '../../src/templates/templates.service.ts';
import { notice } from '../../src/ui/forms.ts';
import { renderToString } from '../../src/ui/html.ts';
import { richText } from '../../src/ui/rich-text.ts';
import { publicLinkSettingsView } from '../../src/web/public-link.views.ts';
import { createWaiverTemplate } from '../support/factories.ts';
import { describeEachDatabase, useHarness } from '../support/harness.ts';
import { englishLeft, pseudoTranslator, readableText } from '../support/pseudo-language.ts';
import { assertPage, assertRedirect, errorBeside, escaped, webPeople } from '../support/web-client.ts';

/** A few of the page's English sentences: none is left once Polish has them. */
const english =
  /Public link|Turn the link|Save the limits|Renew the link|most uses is a whole|last day is a date|Code mails today|The link is on|A new link|The link is off|one role, a signer|reached their limit/;

describeEachDatabase('a template’s public-link settings in the sender’s language', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.61');
  const pl = translator('pl');
  const said = (key: MessageKey, values?: Record<string, string | number>) => escaped(pl.t(key, values));

  test('an owner who chose Polish turns the link on, is refused bad limits, renews it and turns it off in Polish', async () => {
    const { owner, client } = await people.speakingOwner('pl');
    const pages: string[] = [];

    // Two roles: why it cannot have a link, and a post refused with that sentence.
    const two = await createWaiverTemplate(h.ctx, owner.workspaceId, { roles: ['Customer', 'Shop'] });
    const cannot = await client.get(`/templates/${two.id}/public-link`);
    assertPage(cannot, 200);
    assert.match(cannot.text, /<html lang="pl" dir="ltr">/);
    assert.ok(cannot.text.includes(said('publicLink.settings.problem.roles')));
    const refusedOn = await client.post(`/templates/${two.id}/public-link`, {
      action: 'on',
      maxUses: '',
      endsOn: '',
    });
    assertPage(refusedOn, 400);
    assert.ok(
      refusedOn.text.includes(`role="alert">${said('publicLink.settings.problem.roles')}</div>`),
      'the refusal in a notice',
    );
    pages.push(cannot.text, refusedOn.text);

    const { id } = await createWaiverTemplate(h.ctx, owner.workspaceId);
    const off = await client.get(`/templates/${id}/public-link`);
    assertPage(off, 200);
    assert.ok(off.text.includes(`<title>${said('publicLink.settings.pageTitle', { template: 'Waiver' })}`));
    assert.ok(off.text.includes(`<h1>${said('publicLink.settings.title')}</h1>`));
    assert.ok(off.text.includes(said('publicLink.settings.intro', { template: 'Waiver' })));
    assert.ok(off.text.includes(said('publicLink.settings.turnOn')));
    assert.ok(off.text.includes(said('publicLink.settings.maxUses')));

    const bad = await client.post(`/templates/${id}/public-link`, {
      action: 'on',
      maxUses: '0',
      endsOn: 'soon',
    });
    assertPage(bad, 400);
    assert.equal(errorBeside(bad.text, 'maxUses'), pl.t('publicLink.settings.refusal.maxUses'));
    assert.equal(errorBeside(bad.text, 'endsOn'), pl.t('publicLink.settings.refusal.endsOn'));
    assert.match(bad.text, /value="soon"/, 'the form kept');

    assertRedirect(
      await client.post(`/templates/${id}/public-link`, { action: 'on', maxUses: '', endsOn: '' }),
      `/templates/${id}/public-link?done=on`,
    );
    const on = await client.get(`/templates/${id}/public-link?done=on`);
    assertPage(on, 200);
    assert.ok(on.text.includes(said('publicLink.settings.done.on')));
    assert.ok(on.text.includes(renderToString(richText(pl, 'publicLink.settings.link', { uses: 0 }))));
    assert.ok(on.text.includes(said('publicLink.settings.mailsToday', { mails: 0, limit: 500 })));
    for (const key of ['saveLimits', 'renew', 'turnOff'] as const)
      assert.ok(on.text.includes(said(`publicLink.settings.${key}`)), key);

    const badLimits = await client.post(`/templates/${id}/public-link`, {
      action: 'limits',
      maxUses: '2.5',
      endsOn: '',
    });
    assertPage(badLimits, 400);
    assert.equal(errorBeside(badLimits.text, 'maxUses'), pl.t('publicLink.settings.refusal.maxUses'));
    assertRedirect(
      await client.post(`/templates/${id}/public-link`, {
        action: 'limits',
        maxUses: '10',
        endsOn: '2027-01-31',
      }),
      `/templates/${id}/public-link?done=limits`,
    );
    const limits = await client.get(`/templates/${id}/public-link?done=limits`);
    assert.ok(limits.text.includes(said('publicLink.settings.done.limits')));
    assertRedirect(
      await client.post(`/templates/${id}/public-link`, { action: 'renew', maxUses: '10', endsOn: '' }),
      `/templates/${id}/public-link?done=renew`,
    );
    const renewed = await client.get(`/templates/${id}/public-link?done=renew`);
    assert.ok(renewed.text.includes(said('publicLink.settings.done.renew')));

    // The workspace's code mails for the day all spent: the owner is told in Polish.
    await h.ctx.db
      .insertInto('public_link_code_mails')
      .values({ workspace_id: owner.workspaceId, day: usageDay(h.ctx.clock.now()), mails: 500 })
      .execute();
    const capped = await client.get(`/templates/${id}/public-link`);
    assert.ok(capped.text.includes(said('publicLink.settings.capReached', { limit: 500 })));
    assert.ok(capped.text.includes(said('publicLink.settings.mailsToday', { mails: 500, limit: 500 })));

    assertRedirect(
      await client.post(`/templates/${id}/public-link`, { action: 'off' }),
      `/templates/${id}/public-link?done=off`,
    );
    const turnedOff = await client.get(`/templates/${id}/public-link?done=off`);
    assert.ok(turnedOff.text.includes(said('publicLink.settings.done.off')));
    pages.push(
      off.text,
      bad.text,
      on.text,
      badLimits.text,
      limits.text,
      renewed.text,
      capped.text,
      turnedOff.text,
    );
    for (const page of pages) assert.doesNotMatch(readableText(page), english, 'no English left');
  });

  test('in the pseudo-language the settings page leaves no English word but the values it shows', () => {
    const tr = pseudoTranslator();
    const template = {
      id: '0b5c3d2e-1f4a-4b6c-8d9e-0a1b2c3d4e5f',
      name: 'Kletterverzicht',
    } as TemplateDetail;
    const url = 'https://signet.example/t/abcdefghijklmnopqrstuvwx';
    const values = ['Kletterverzicht', url];
    const settings = (token: string | null): PublicLinkSettings => ({
      token,
      maxUses: 5,
      endsAt: null,
      uses: 3,
    });
    const base = {
      template,
      mailsToday: { mails: 12, limit: 500, reached: null },
      form: { maxUses: '5', endsOn: '' },
      errors: {},
      done: null,
      csrf: 'token',
    };
    const views = [
      { ...base, settings: settings(null), url: null, problem: 'publicLink.settings.problem.roles' as const },
      {
        ...base,
        settings: settings(null),
        url: null,
        problem: 'publicLink.settings.problem.askedValues' as const,
      },
      {
        ...base,
        settings: settings(null),
        url: null,
        problem: null,
        form: { maxUses: '0', endsOn: 'soon' },
        errors: {
          maxUses: tr.t('publicLink.settings.refusal.maxUses'),
          endsOn: tr.t('publicLink.settings.refusal.endsOn'),
          publicLink: tr.t('publicLink.settings.problem.roles'),
        },
      },
      ...(['on', 'limits', 'renew', 'off'] as const).map((done) => ({
        ...base,
        settings: settings(done === 'off' ? null : 'abcdefghijklmnopqrstuvwx'),
        url: done === 'off' ? null : url,
        problem: null,
        done: notice('success', tr.t(`publicLink.settings.done.${done}`)),
      })),
      {
        ...base,
        settings: settings('abcdefghijklmnopqrstuvwx'),
        url,
        problem: null,
        mailsToday: { mails: 500, limit: 500, reached: 'Your public links reached their limit' },
      },
    ];
    for (const view of views)
      assert.deepEqual(
        englishLeft(readableText(renderToString(publicLinkSettingsView(view, tr))), values),
        [],
      );
  });
});
