// A template role's default language and a template use's own (issue 51), on both
// databases, through /v1: a role made with `language` keeps it (read back as listed), the
// documents made from the template give its recipient that language unless the use gives the
// person one of their own, and their invitation is in it; a role without one leaves the
// recipient to the workspace's default; a language Signet has none of is refused with its
// pointer, on the role and on the person, and nothing is made. On the web, the roles table
// sets a role's language and the use form a person's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getDocument } from '../../src/documents/documents.service.ts';
import { translator } from '../../src/i18n/messages.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { listMails } from '../../src/mail/mail.service.ts';
import { getTemplate } from '../../src/templates/templates.service.ts';
import { createServicesTemplate, signatureField, templateRole, textPdf } from '../support/factories.ts';
import {
  callApi,
  countRows,
  createTestWorkspace,
  describeEachDatabase,
  useHarness,
} from '../support/harness.ts';
import { assertPage, assertRedirect, errorBeside, webPeople } from '../support/web-client.ts';

describeEachDatabase('template roles and uses in a language', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.52');

  async function workspace() {
    const ws = await createTestWorkspace(h.ctx);
    const write = await createApiKey(h.ctx, { workspaceId: ws.id, name: 'writer', scope: 'write' });
    return { ...ws, readKey: ws.apiKey, writeKey: write.secret };
  }

  async function template(ws: Awaited<ReturnType<typeof workspace>>, clientLanguage: string | null) {
    return callApi(h, 'POST', '/v1/templates', {
      key: ws.writeKey,
      body: {
        name: 'Liefervertrag',
        title: 'Liefervertrag',
        text: 'Bitte unterschreiben.',
        roles: [
          templateRole('Client', { language: clientLanguage }),
          templateRole('Company', { signingOrder: 1 }),
          templateRole('Accountant', { role: 'viewer', signingOrder: 2 }),
        ],
        fields: [signatureField({ role: 'Client' }), signatureField({ role: 'Company' }, { x: 320 })],
        file: (await textPdf({ body: 'The parties agree.' })).toString('base64'),
      },
    });
  }

  test('a role’s language reaches its recipient unless the use gives the person their own', async () => {
    const ws = await workspace();
    const created = await template(ws, 'de-AT');
    assert.equal(created.status, 201, created.text);
    const { id, roles } = created.body.data as {
      id: string;
      roles: Array<{ name: string; language: string | null }>;
    };
    assert.deepEqual(
      roles.map((r) => [r.name, r.language]),
      [
        ['Client', 'de'],
        ['Company', null],
        ['Accountant', null],
      ],
    );
    const made = await callApi(h, 'POST', `/v1/templates/${id}/documents`, {
      key: ws.writeKey,
      body: {
        items: [
          {
            send: true,
            recipients: {
              Client: { email: 'anna@kunde.example', fullName: 'Anna Schmidt' },
              Company: { email: 'kenji@client.example', fullName: '山田 健司', language: 'ja' },
              Accountant: { email: 'remy@client.example', fullName: 'Rémy Blanc' },
            },
          },
          {
            send: true,
            recipients: {
              Client: { email: 'lea@kunde.example', fullName: 'Léa Martin', language: 'fr' },
              Company: { email: 'ken@client.example', fullName: 'Ken Ito' },
              Accountant: { email: 'remy@client.example', fullName: 'Rémy Blanc' },
            },
          },
        ],
      },
    });
    assert.equal(made.status, 200, made.text);
    const rows = await h.ctx.db
      .selectFrom('recipients')
      .select(['email', 'language'])
      .where('workspace_id', '=', ws.id)
      .orderBy('email')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.email, r.language]),
      [
        ['anna@kunde.example', 'de'],
        ['ken@client.example', null],
        ['kenji@client.example', 'ja'],
        ['lea@kunde.example', 'fr'],
        ['remy@client.example', null],
        ['remy@client.example', null],
      ],
    );
    const [anna] = await listMails(h.ctx, { to: 'anna@kunde.example', limit: 5 });
    assert.equal(
      anna?.subject,
      translator('de').t('mail.signingRequest.subjectSigner', { title: 'Liefervertrag' }),
    );
    const [kenji] = await listMails(h.ctx, { to: 'kenji@client.example', limit: 5 });
    assert.equal(
      kenji?.subject,
      translator('ja').t('mail.signingRequest.subjectSigner', { title: 'Liefervertrag' }),
    );
  });

  test('a language Signet has none of is refused on the role and on the person, with its pointer', async () => {
    const ws = await workspace();
    const refused = await template(ws, 'tlh');
    assert.deepEqual(refused.body, { ok: false, error: 'invalid-body', pointer: '/roles/0/language' });
    assert.equal(await countRows(h.ctx, 'templates', { workspace_id: ws.id }), 0);
    const { id } = (await template(ws, null)).body.data as { id: string };
    const made = await callApi(h, 'POST', `/v1/templates/${id}/documents`, {
      key: ws.writeKey,
      body: {
        items: [
          {
            recipients: {
              Client: { email: 'anna@kunde.example', fullName: 'Anna Schmidt', language: 'xx-not' },
              Company: { email: 'ken@client.example', fullName: 'Ken Ito' },
              Accountant: { email: 'remy@client.example', fullName: 'Rémy Blanc' },
            },
          },
        ],
      },
    });
    assert.equal(made.status, 200, made.text);
    const { refused: items } = made.body.data as { refused: Array<{ pointer: string }> };
    assert.deepEqual(
      items.map((r) => r.pointer),
      ['/items/0/recipients/Client/language'],
    );
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: ws.id }), 0);
  });

  test('on the web: the roles table sets a role’s language, the use form a person’s, a refusal beside its input', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await createServicesTemplate(h.ctx, owner.workspaceId, { name: 'Services' });
    const page = `/templates/${id}`;
    const roles = (languages: string[]) => ({
      roleRows: '3',
      ...Object.fromEntries(
        (
          [
            ['Client', 'signer', '1'],
            ['Company', 'signer', '2'],
            ['Accountant', 'viewer', '3'],
          ] as const
        ).flatMap(([name, role, order], i) => [
          [`t${i}_name`, name],
          [`t${i}_role`, role],
          [`t${i}_method`, 'standard'],
          [`t${i}_order`, order],
          [`t${i}_was`, String(i)],
          [`t${i}_language`, languages[i] ?? ''],
        ]),
      ),
    });
    const shown = await client.get(page);
    assertPage(shown, 200);
    assert.match(
      shown.text,
      /<select id="t0_language" name="t0_language"[^>]*><option value="" selected>Workspace default<\/option>/,
    );

    const refused = await client.post(`${page}/roles`, roles(['tlh']));
    assertPage(refused, 400);
    assert.match(errorBeside(refused.text, 't0_language') ?? '', /language must be one of/);
    assert.equal((await getTemplate(h.ctx, owner.workspaceId, id)).roles[0]?.language, null);

    assertRedirect(await client.post(`${page}/roles`, roles(['de'])), `${page}?done=roles`);
    const template = await getTemplate(h.ctx, owner.workspaceId, id);
    assert.deepEqual(
      template.roles.map((r) => r.language),
      ['de', null, null],
    );
    const after = await client.get(page);
    assert.match(after.text, /<span lang="de">Deutsch<\/span>/);
    assert.match(after.text, /<option value="de" lang="de" selected>Deutsch<\/option>/);

    const use = await client.get(`${page}/use`);
    assertPage(use, 200);
    assert.match(use.text, /<option value="" selected>The role’s: Deutsch<\/option>/);
    const made = await client.post(`${page}/use`, {
      role0_name: 'Anna Schmidt',
      role0_email: 'anna@kunde.example',
      role1_name: '山田 健司',
      role1_email: 'kenji@acme.example',
      role1_language: 'ja',
      role2_name: 'Books Ltd',
      role2_email: 'books@acme.example',
      value0: '1.200 EUR',
      value1: 'true',
      title: 'Services agreement',
      body: 'Please sign.',
    });
    assert.equal(made.status, 303, made.text.slice(0, 600));
    const documentId = /^\/documents\/([0-9a-f-]{36})\/send$/.exec(made.location ?? '')?.[1] as string;
    const document = await getDocument(h.ctx, owner.workspaceId, documentId);
    assert.deepEqual(
      document.recipients.map((r) => [r.email, r.language]),
      [
        ['anna@kunde.example', 'de'],
        ['kenji@acme.example', 'ja'],
        ['books@acme.example', null],
      ],
    );
  });
});
