// A bulk send's language column (issue 51), on both databases: a template's spreadsheet has
// an optional "<Role> language" column per role; a cell takes a tag (`de-AT` is German) or the
// language's own name ("日本語"), an empty cell leaves the role's language (else the
// workspace's), and anything else is a problem of its row and column; the preview shows each
// person's language; each document made gives its recipient that language, and their
// invitation is in it. A file without the column is sent as before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { translator } from '../../src/i18n/messages.ts';
import { inEnglish } from '../../src/i18n/refusals.ts';
import { listMails } from '../../src/mail/mail.service.ts';
import { previewBulkSend, sendDueBulkRows, startBulkSend } from '../../src/templates/bulk-send.ts';
import { createServicesTemplate, labelledPdf, templateField, templateRole } from '../support/factories.ts';
import { createTestWorkspace, describeEachDatabase, useHarness } from '../support/harness.ts';

const csv = (lines: string[]) => new TextEncoder().encode(`${lines.join('\r\n')}\r\n`);

describeEachDatabase('a bulk send’s languages', (kind) => {
  const h = useHarness(kind);

  async function template(workspaceId: string) {
    return createServicesTemplate(h.ctx, workspaceId, {
      roles: [templateRole('Client', { language: 'pl' }), templateRole('Company')],
      fields: [
        templateField('Client', 'signature', 100, { height: 40 }),
        templateField('Company', 'signature', 100, { height: 40, x: 320 }),
      ],
      file: await labelledPdf('Umowa'),
    });
  }

  test('a tag or a language’s own name, an empty cell for the role’s; anything else a problem of its row', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id: templateId } = await template(ws.id);
    const data = csv([
      'Client email,Client name,Client language,Company email,Company name',
      'ann@client.example,Ann Schmidt,de-AT,office@acme.example,Acme Ltd',
      'kenji@client.example,山田 健司,日本語,office@acme.example,Acme Ltd',
      'jan@client.example,Jan Kowalski,,office@acme.example,Acme Ltd',
      'worf@client.example,Worf,tlh,office@acme.example,Acme Ltd',
    ]);
    const preview = await previewBulkSend(h.ctx, ws.id, templateId, data);
    assert.equal(preview.goodRows, 3);
    assert.deepEqual(
      preview.problems.map((p) => [p.row, p.column]),
      [[5, 'Client language']],
    );
    assert.match(
      inEnglish(preview.problems[0]?.sentence ?? { key: 'bulk.problem.empty' }),
      /^Row 5: Client language “tlh” is not one of Signet’s languages\./,
    );
    assert.deepEqual(
      preview.firstRows.map((row) => row.people.map((p) => p.language)),
      [
        ['de', null],
        ['ja', null],
        [null, null],
      ],
    );

    await startBulkSend(h.ctx, { workspaceId: ws.id, templateId, userId: null, fileName: 'k.csv', data });
    while ((await sendDueBulkRows(h.ctx)) > 0) {}
    const rows = await h.ctx.db
      .selectFrom('recipients')
      .select(['email', 'language'])
      .where('workspace_id', '=', ws.id)
      .where('email', '!=', 'office@acme.example')
      .orderBy('email')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.email, r.language]),
      [
        ['ann@client.example', 'de'],
        ['jan@client.example', 'pl'],
        ['kenji@client.example', 'ja'],
      ],
    );
    for (const [to, language] of [
      ['ann@client.example', 'de'],
      ['jan@client.example', 'pl'],
      ['kenji@client.example', 'ja'],
    ] as const) {
      const [mail] = await listMails(h.ctx, { to, limit: 5 });
      assert.equal(
        mail?.subject,
        translator(language).t('mail.signingRequest.subjectSigner', { title: 'Services agreement' }),
        to,
      );
    }
  });
});
