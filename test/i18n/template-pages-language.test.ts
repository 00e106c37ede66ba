// The templates' pages in the member's language (issue 51), on both databases: a member who
// chose Polish reads the templates list, a template's page (its summary, roles and their
// fields, the roles and defaults forms, rename), the delete confirmation, "Use template", the
// new-template form and the notices after an action in Polish, and every refusal of them:
// the use form's (a role left without a person, a recipient's rule said of their role by
// its name), the roles table's (numbered as the table numbers its rows), the new template's
// and a rename's. Rendered in the pseudo-language, each page leaves no English word but the
// values it shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { translator } from '../../src/i18n/messages.ts';
import { getTemplate } from '../../src/templates/templates.service.ts';
import { askedValues } from '../../src/templates/use-template.ts';
import { renderToString } from '../../src/ui/html.ts';
import { newTemplateView } from '../../src/web/template-edit.views.ts';
import {
  deleteTemplateView,
  templatesListView,
  templateView,
  useTemplateView,
} from '../../src/web/templates.views.ts';
import { createServicesTemplate } from '../support/factories.ts';
import { describeEachDatabase, useHarness } from '../support/harness.ts';
import { englishLeft, pseudoTranslator, readableText } from '../support/pseudo-language.ts';
import { assertPage, assertRedirect, assertSays, errorBeside, webPeople } from '../support/web-client.ts';

describeEachDatabase('the templates’ pages in the member’s language', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.59');
  const pl = translator('pl');

  const polishMember = () => people.speakingOwner('pl');

  test('a member who chose Polish reads the list, a template, its forms and confirmations in Polish', async () => {
    const { owner, client } = await polishMember();
    const empty = await client.get('/templates');
    assertPage(empty, 200);
    assert.match(empty.text, /<html lang="pl" dir="ltr">/);
    assertSays(empty.text, pl.t('tpl.list.none'), pl.t('tpl.new'), pl.t('tpl.list.toDocuments'));
    const { id } = await createServicesTemplate(h.ctx, owner.workspaceId);
    const list = await client.get('/templates');
    assertSays(
      list.text,
      pl.t('tpl.list.template'),
      pl.t('tpl.list.documents'),
      pl.t('tpl.list.title', { title: 'Services agreement' }),
    );
    const page = await client.get(`/templates/${id}`);
    assertPage(page, 200);
    assertSays(
      page.text,
      pl.t('tpl.roles.heading'),
      pl.t('tpl.summary.open', { duration: pl.t('form.duration', { unit: 'day', count: 14 }) }),
      pl.t('tpl.role.facts', { role: 'viewer', order: 3, method: 'standard' }),
      pl.t('tpl.field.youFill'),
      pl.t('tpl.roles.change'),
      pl.t('tpl.defaults.change'),
      pl.t('tpl.rename.submit'),
      pl.t('tpl.action.use'),
      pl.t('tpl.cell.name', { row: 2 }),
      pl.t('send.pages', { pages: 2 }),
    );
    const confirm = await client.get(`/templates/${id}/delete`);
    assertSays(confirm.text, pl.t('tpl.delete.heading'), pl.t('tpl.delete.text', { documents: 0 }));
    const use = await client.get(`/templates/${id}/use`);
    assertSays(
      use.text,
      pl.t('tpl.use.heading', { name: 'Services agreement' }),
      pl.t('tpl.use.values'),
      pl.t('tpl.use.submit'),
    );
    const form = await client.get('/templates/new');
    assertSays(form.text, pl.t('tpl.new.intro'), pl.t('tpl.new.submit'), pl.t('tpl.roles.more'));
    // A notice after an action.
    const renamed = await client.post(`/templates/${id}/rename`, { name: 'Umowa o usługi' });
    assertRedirect(renamed, `/templates/${id}?done=renamed`);
    assertSays((await client.get(`/templates/${id}?done=renamed`)).text, pl.t('tpl.done.renamed'));
  });

  test('every refusal of the template forms is said in Polish, of the role by its name or row', async () => {
    const { owner, client } = await polishMember();
    const { id } = await createServicesTemplate(h.ctx, owner.workspaceId);
    await client.get(`/templates/${id}/use`);
    // Company left out and the Price (asked, required) left empty: said first, in Polish.
    const used = await client.post(`/templates/${id}/use`, {
      role0_email: 'anna@',
      role0_name: 'Anna Nowak',
      role2_email: 'ksiegowa@biuro.example',
      role2_name: 'Ewa Lis',
      title: 'Umowa',
    });
    assertPage(used, 400);
    assert.equal(errorBeside(used.text, 'role1_email'), pl.t('template.use.givePerson', { role: 'Company' }));
    assert.equal(errorBeside(used.text, 'value0'), pl.t('template.use.giveValue', { label: 'Price' }));
    // Everyone named: the document's own rules, each said of the role by its name.
    const named = await client.post(`/templates/${id}/use`, {
      role0_email: 'anna@',
      role0_name: 'Anna Nowak',
      role1_email: 'firma@biuro.example',
      role1_name: 'Jan Lis',
      role2_email: 'ksiegowa@biuro.example',
      role2_name: 'Ewa Lis',
      value0: '100 PLN',
      title: 'Umowa',
    });
    assertPage(named, 400);
    const who = pl.t('who.named', { name: 'Client' });
    assert.equal(errorBeside(named.text, 'role0_email'), pl.t('draft.problem.email', { who }));
    for (const page of [used, named])
      assert.ok(!/Recipient \d|Give the|is not valid/.test(page.text), 'no English refusal left');

    // The roles table: the second row is blank, so the duplicate is on the table's row 3.
    const roles = await client.post(`/templates/${id}/roles`, {
      roleRows: '4',
      t0_was: '0',
      t0_name: 'Client',
      t2_was: '1',
      t2_name: 'client',
      t3_was: '2',
      t3_name: 'Accountant',
      t3_role: 'viewer',
      t3_order: '0',
    });
    assertPage(roles, 400);
    const row3 = pl.t('who.role', { row: 3 });
    assert.equal(
      errorBeside(roles.text, 't2_name'),
      pl.t('template.problem.roleNameTaken', { who: row3, name: 'client' }),
    );
    assert.equal(
      errorBeside(roles.text, 't3_order'),
      pl.t('draft.problem.signingOrder', { who: pl.t('who.role', { row: 4 }), max: 100 }),
    );
    const renamed = await client.post(`/templates/${id}/rename`, { name: ' ' });
    assertPage(renamed, 400);
    assert.equal(errorBeside(renamed.text, 'name'), pl.t('template.problem.name', { max: 200 }));
    await client.get('/templates/new');
    const made = await client.post('/templates', { name: '', roleRows: '3', t0_name: 'Klient' });
    assertPage(made, 400);
    assert.equal(errorBeside(made.text, 'file'), pl.t('upload.templateNeedsPdf'));
    assert.equal(errorBeside(made.text, 'name'), pl.t('template.problem.name', { max: 200 }));
  });

  test('in the pseudo-language the templates’ pages leave no English word but the values they show', async () => {
    const tr = pseudoTranslator();
    const owner = await people.newOwner();
    const { id } = await createServicesTemplate(h.ctx, owner.workspaceId);
    const template = await getTemplate(h.ctx, owner.workspaceId, id);
    const values = [
      'Services agreement',
      'Please sign',
      'Client',
      'Company',
      'Accountant',
      'Price',
      'Insured',
    ];
    const summary = { ...template, updatedAt: template.updatedAt };
    const pages = [
      templatesListView(
        {
          templates: [{ ...summary, documents: 2 }],
          cursor: 'c',
          next: '/templates?cursor=d',
          stale: true,
          notice: null,
          timeZone: 'UTC',
        },
        tr,
      ),
      templatesListView(
        { templates: [], cursor: null, next: null, stale: false, notice: null, timeZone: 'UTC' },
        tr,
      ),
      templateView(
        {
          template: { ...template, remindEveryDays: 3 },
          name: template.name,
          roles: { roleRows: '4', t0_was: '0', t0_name: 'Client' },
          defaults: { title: 'Services agreement', expiresInDays: 'keep', expiresAsSet: '3600' },
          errors: {
            roles: tr.t('template.problem.noSigner'),
            title: tr.t('draft.problem.title', { max: 200 }),
          },
          notice: null,
          timeZone: 'UTC',
          bulkSends: null,
        },
        'token',
        tr,
      ),
      deleteTemplateView({ ...template, documents: 3 }, 'token', tr),
      useTemplateView(
        {
          template,
          asked: askedValues(template),
          form: {},
          errors: { form: tr.t('template.use.notARole', { name: 'Client', roles: 'Client, Company' }) },
        },
        'token',
        tr,
      ),
      newTemplateView(
        {
          form: { name: 'Services agreement' },
          errors: { name: tr.t('template.problem.name', { max: 200 }) },
          kept: { id: 'k', fileName: 'Services agreement', pages: 2 } as never,
          maxBytes: 10_000_000,
        },
        'token',
        tr,
      ),
    ];
    for (const [i, page] of pages.entries())
      assert.deepEqual(englishLeft(readableText(renderToString(page)), values), [], `page ${i}`);
  });
});
