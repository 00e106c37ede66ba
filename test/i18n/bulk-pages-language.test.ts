// A bulk send's pages in the member's language (issue 51), on both databases: a member who
// chose Polish reads the upload page, a refusal beside the file input, the preview of a file
// with problems (each problem said in Polish, row and column included, the rows to look at),
// the progress page of the confirmed send and the template's list of its bulk sends. The
// spreadsheet's own words (its column names, yes and no) stay as the file must hold them.
// Rendered in the pseudo-language, each page leaves no English word but the values it shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { languages } from '../../src/i18n/languages.ts';
import { translator } from '../../src/i18n/messages.ts';
import { say } from '../../src/i18n/refusals.ts';
import { bulkSendEndMail } from '../../src/mail/templates.ts';
import type { BulkSendSummary } from '../../src/templates/bulk-progress.ts';
import { columnsOf, previewBulkSend, sendDueBulkRows } from '../../src/templates/bulk-send.ts';
import { getTemplate } from '../../src/templates/templates.service.ts';
import { renderToString } from '../../src/ui/html.ts';
import {
  bulkPreviewView,
  bulkProgressView,
  bulkSendsSection,
  bulkUploadView,
} from '../../src/web/bulk.views.ts';
import { createBulkTemplate } from '../support/factories.ts';
import { describeEachDatabase, useHarness } from '../support/harness.ts';
import { englishLeft, pseudoTranslator, readableText } from '../support/pseudo-language.ts';
import {
  assertPage,
  assertSays,
  confirmBulkPreview,
  errorBeside,
  mailsTo,
  webPeople,
} from '../support/web-client.ts';

const header = 'Client email,Client name,Company email,Company name,Price';
const row = (n: number) => `client${n}@client.example,Client ${n},office@acme.example,Acme Ltd,${n} EUR`;
const csv = (...lines: string[]) => new TextEncoder().encode(`${[header, ...lines].join('\r\n')}\r\n`);
const csvFile = (data: Uint8Array) => new File([data], 'klienci.csv', { type: 'text/csv' });
/** A file with a bad address on row 3, an empty name on row 4, and row 5 repeating row 2's client. */
const withProblems = csv(
  row(1),
  'nie-adres,Client 2,office@acme.example,Acme Ltd,2 EUR',
  'client3@client.example,,office@acme.example,Acme Ltd,3 EUR',
  row(1),
);

describeEachDatabase('a bulk send’s pages in the member’s language', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.61');
  const pl = translator('pl');

  test('a member who chose Polish uploads, previews and follows a bulk send in Polish', async () => {
    const { owner, client } = await people.speakingOwner('pl');
    const { id } = await createBulkTemplate(h.ctx, owner.workspaceId);

    const upload = await client.get(`/templates/${id}/bulk`);
    assertPage(upload, 200);
    assert.match(upload.text, /<html lang="pl" dir="ltr">/);
    assertSays(
      upload.text,
      pl.t('bulk.upload.title', { template: 'Services agreement' }),
      pl.t('bulk.upload.intro'),
      pl.t('bulk.kind.email'),
      pl.t('bulk.upload.check'),
    );
    // The column names are the file's, as it must hold them.
    assert.ok(upload.text.includes('<strong>Client email</strong>'));

    const none = await client.post(`/templates/${id}/bulk`, { file: new File([], '') });
    assertPage(none, 400);
    assert.equal(errorBeside(none.text, 'file'), pl.t('bulk.upload.choose'));

    const preview = await client.post(`/templates/${id}/bulk`, { file: csvFile(withProblems) });
    assertPage(preview, 200);
    const sheet = await previewBulkSend(h.ctx, owner.workspaceId, id, withProblems);
    assert.equal(sheet.problems.length, 2);
    assert.equal(sheet.warnings.length, 2, 'the client of row 2 again, and the company on every row');
    assertSays(
      preview.text,
      pl.t('bulk.preview.title', { file: 'klienci.csv' }),
      pl.t('bulk.preview.summaryBad', { good: 2, total: 4, bad: 2 }),
      pl.t('bulk.problems.heading', { count: 2 }),
      pl.t('bulk.warnings.heading', { count: 2 }),
      pl.t('bulk.preview.send', { count: 2 }),
      ...sheet.problems.map((p) => say(p.sentence, pl)),
      ...sheet.warnings.map((w) => say(w.sentence, pl)),
    );
    // Said in Polish: the row, the column as the file names it, the value.
    assert.ok(say(sheet.problems[0]?.sentence ?? { key: 'bulk.cell' }, pl).includes('Client email'));

    const confirmed = await confirmBulkPreview(client, id, preview);
    assert.equal(confirmed.status, 303, confirmed.text.slice(0, 300));
    const progressPath = confirmed.headers.get('location') ?? '';
    const sending = await client.get(progressPath);
    assertPage(sending, 200);
    assertSays(
      sending.text,
      pl.t('bulk.progress.title', { file: 'klienci.csv' }),
      pl.t('bulk.progress.sending'),
    );
    while ((await sendDueBulkRows(h.ctx)) > 0) {}
    // Its end is mailed to the member who started it, once, in their language.
    const endMails = async () =>
      (await mailsTo(h.ctx, owner.email)).filter(
        (m) => m.subject === pl.t('mail.bulkEnd.subject', { file: 'klienci.csv' }),
      );
    const [ended, ...again] = await endMails();
    assert.deepEqual(again, []);
    assert.ok(ended?.text.includes(pl.t('mail.bulkEnd.refused', { refused: 2 })), ended?.text);
    assert.ok(ended?.text.includes(`${h.ctx.config.publicUrl}${progressPath}`));
    assert.equal(await sendDueBulkRows(h.ctx), 0, 'nothing left to send');
    assert.equal((await endMails()).length, 1, 'mailed once');
    const finished = await client.get(progressPath);
    assertSays(
      finished.text,
      pl.t('bulk.progress.finished', { sent: 2 }),
      pl.t('bulk.progress.refused', { refused: 2 }),
      pl.t('bulk.progress.notSent'),
      pl.t('bulk.progress.results'),
    );
    const template = await client.get(`/templates/${id}`);
    assertSays(template.text, pl.t('bulk.sends.heading'), pl.t('bulk.sends.finished'));
    // The results file gives each refused row's problems in Polish too, as the preview did.
    const results = await client.get(`${progressPath}/results.csv`);
    assert.equal(results.status, 200);
    const refusedLines = (parse(results.text) as string[][]).filter((line) =>
      line[2]?.startsWith('refused: '),
    );
    assert.equal(refusedLines.length, 2);
    for (const problem of sheet.problems)
      assert.ok(
        refusedLines.some(
          (line) => line[0] === String(problem.row) && line[2]?.includes(say(problem.sentence, pl)),
        ),
        `row ${problem.row} in Polish`,
      );

    const english =
      /Rows with a problem|is not an email address|as they will be sent|Invitations mailed|Bulk sends/;
    for (const page of [upload, none, preview, sending, finished, template, results])
      assert.doesNotMatch(page.text, english, 'no English sentence left');
  });

  test('in the pseudo-language a bulk send’s pages leave no English word but the values they show', async () => {
    const tr = pseudoTranslator();
    const owner = await people.newOwner();
    const { id } = await createBulkTemplate(h.ctx, owner.workspaceId);
    const template = await getTemplate(h.ctx, owner.workspaceId, id);
    const preview = await previewBulkSend(h.ctx, owner.workspaceId, id, withProblems);
    const refused = await previewBulkSend(h.ctx, owner.workspaceId, id, csv());
    const progress = {
      id: '00000000-0000-4000-8000-000000000001',
      templateId: id,
      templateName: 'Services agreement',
      fileName: 'klienci.csv',
      total: 3,
      created: 3,
      sent: 2,
      failed: 1,
      mailed: 1,
      refused: 2,
      finished: true,
      createdAt: new Date('2026-12-07T10:00:00Z'),
    } satisfies BulkSendSummary;
    const values = [
      'Services agreement',
      'Client',
      'Company',
      'Price',
      'klienci.csv',
      languages.join(', '),
      'Deutsch',
      ...columnsOf(template).map((c) => c.header),
      ...preview.firstRows.flatMap((r) => [
        ...r.people.flatMap((p) => [p.fullName, p.email]),
        ...r.values.map((v) => String(v.value)),
      ]),
      'nie-adres',
      'client1@client.example',
    ];
    const page = { fileName: 'klienci.csv', data: 'AAAA', sha256: 'abc' };
    for (const markup of [
      bulkUploadView(
        { template, columns: columnsOf(template), maxRows: 5000, error: tr.t('bulk.upload.choose') },
        'token',
        tr,
      ),
      bulkPreviewView({ preview, ...page }, 'token', tr),
      bulkPreviewView({ preview: refused, ...page }, 'token', tr),
      bulkProgressView(
        {
          progress,
          failed: [{ row: 3, reason: [{ key: 'bulk.rowFailed.documentDeleted' }] }],
          timeZone: 'Europe/Warsaw',
        },
        tr,
      ),
      bulkProgressView({ progress: { ...progress, finished: false }, failed: [], timeZone: 'UTC' }, tr),
      bulkSendsSection([progress], 'UTC', tr),
    ])
      assert.deepEqual(englishLeft(readableText(renderToString(markup)), values), []);
    const mail = bulkSendEndMail(tr, {
      file: 'klienci.csv',
      template: 'Services agreement',
      sent: 2,
      failed: 1,
      refused: 2,
      link: 'https://signet.example/bulk/1',
    });
    assert.deepEqual(
      englishLeft(`${mail.subject}\n${mail.text}`, [...values, 'https://signet.example/bulk/1']),
      [],
    );
  });
});
