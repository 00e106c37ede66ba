// Bulk send from a spreadsheet (src/templates/bulk-send.ts, issue 38), on both databases: a
// CSV with BOM, semicolons and bad rows previewed (each problem by row and column, nothing
// stored or sent), confirmed, then sent by the worker's pass (called directly): a document a
// good row, its fields and values as the template says, each invitation mailed once; a
// restart in the middle (a pass stopped after some rows, a row left created by a crash
// before its send) finishing with every row sent once; another worker's lease skipped until
// it runs out; progress and the results file (a would-be formula neutralised); another
// workspace's bulk send not found; and the web pages over HTTP (upload, preview, confirm,
// progress, results).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { ApiError } from '../../src/http/errors.ts';
import { translator } from '../../src/i18n/messages.ts';
import { inEnglish } from '../../src/i18n/refusals.ts';
import { InputError } from '../../src/input-error.ts';
import { deliverDueMails } from '../../src/mail/mail.service.ts';
import { createMailTransport } from '../../src/mail/mailer.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { sendDocument } from '../../src/sending/send.ts';
import {
  bulkSendProgress,
  bulkSendResultsCsv,
  failedBulkRows,
  reasonIn,
} from '../../src/templates/bulk-progress.ts';
import { columnsOf, previewBulkSend, sendDueBulkRows, startBulkSend } from '../../src/templates/bulk-send.ts';
import { deleteTemplate, getTemplate } from '../../src/templates/templates.service.ts';
import { documentInputOf, type UseTemplateInput } from '../../src/templates/use-template.ts';
import { startWorker } from '../../src/worker/worker.ts';
import { createBulkTemplate } from '../support/factories.ts';
import { countRows, createTestWorkspace, describeEachDatabase, useHarness } from '../support/harness.ts';
import { assertPage, type WebClient, webPeople } from '../support/web-client.ts';

/** A UTF-8 file with a BOM and semicolons, as Excel saves "CSV UTF-8" in a European locale. */
function excelCsv(lines: string[]): Uint8Array {
  return new TextEncoder().encode(`\uFEFF${lines.join('\r\n')}\r\n`);
}

const header = 'Client email;Client name;Company email;Company name;Price';
const goodLines = [
  'ann@client.example;Ann Client;office@acme.example;Acme Ltd;1.200 EUR',
  'bob@client.example;Bob Client;office@acme.example;Acme Ltd;900 EUR',
  'cy@client.example;Cy Client;office@acme.example;Acme Ltd;750 EUR',
  'di@client.example;Di Client;office@acme.example;Acme Ltd;600 EUR',
];

describeEachDatabase('bulk send', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.39');

  async function deliverMails() {
    const transport = createMailTransport({ smtpUrl: null, from: 'Signet <a@b.test>', log: h.ctx.log });
    while ((await deliverDueMails(h.ctx, transport)) > 0) {}
    transport.close();
  }

  /** Passes until none is left to do (each claims, works a batch, lets go). */
  async function drain() {
    while ((await sendDueBulkRows(h.ctx)) > 0) {}
  }

  async function documentsOf(templateId: string) {
    return h.ctx.db
      .selectFrom('documents')
      .select(['id', 'status'])
      .where('template_id', '=', templateId)
      .execute();
  }

  async function mailsPerAddress(workspaceId: string): Promise<Map<string, number>> {
    const rows = await h.ctx.db
      .selectFrom('mails')
      .select(['to_address'])
      .where('workspace_id', '=', workspaceId)
      .where('document_id', 'is not', null)
      .execute();
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r.to_address, (counts.get(r.to_address) ?? 0) + 1);
    return counts;
  }

  test('the columns are each role’s email, name and language (which may be left out), then each asked value', async () => {
    const workspace = await createTestWorkspace(h.ctx);
    const { id } = await createBulkTemplate(h.ctx, workspace.id);
    const columns = columnsOf(await getTemplate(h.ctx, workspace.id, id));
    assert.deepEqual(
      columns.map((c) => [c.header, c.kind, c.required]),
      [
        ['Client email', 'email', true],
        ['Client name', 'name', true],
        ['Client language', 'language', false],
        ['Company email', 'email', true],
        ['Company name', 'name', true],
        ['Company language', 'language', false],
        ['Price', 'text', true],
      ],
    );
  });

  test('a CSV with BOM, semicolons and bad rows: each problem by row and column, nothing stored or sent', async () => {
    const workspace = await createTestWorkspace(h.ctx);
    const { id } = await createBulkTemplate(h.ctx, workspace.id);
    const file = excelCsv([
      header,
      goodLines[0] as string,
      'not-an-email;Bob Client;office@acme.example;Acme Ltd;900 EUR',
      '',
      'cy@client.example;;office@acme.example;Acme Ltd;',
      goodLines[3] as string,
    ]);
    const preview = await previewBulkSend(h.ctx, workspace.id, id, file);
    assert.equal(preview.totalRows, 4);
    assert.equal(preview.goodRows, 2);
    assert.deepEqual(
      preview.problems.map((p) => [p.row, p.column, inEnglish(p.sentence)]),
      [
        [3, 'Client email', 'Row 3: Client email “not-an-email” is not an email address.'],
        [5, 'Client name', 'Row 5: Client name is empty. Fill it in, or delete the row.'],
        [5, 'Price', 'Row 5: Price is empty. Fill it in, or delete the row.'],
      ],
    );
    assert.deepEqual(
      preview.firstRows.map((r) => [r.row, r.people[0]?.email, r.values[0]?.value]),
      [
        [2, 'ann@client.example', '1.200 EUR'],
        [6, 'di@client.example', '600 EUR'],
      ],
    );
    assert.equal(await countRows(h.ctx, 'bulk_sends', { workspace_id: workspace.id }), 0);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: workspace.id }), 0);
    assert.equal(await countRows(h.ctx, 'mails', { workspace_id: workspace.id }), 0);
    assert.equal(await sendDueBulkRows(h.ctx), 0, 'the worker finds nothing to send');
  });

  test('a file with no good row is refused when confirmed, and nothing is stored', async () => {
    const workspace = await createTestWorkspace(h.ctx);
    const { id } = await createBulkTemplate(h.ctx, workspace.id);
    const data = excelCsv(['Client email;Client name', 'ann@client.example;Ann']);
    await assert.rejects(
      startBulkSend(h.ctx, {
        workspaceId: workspace.id,
        templateId: id,
        userId: null,
        fileName: 'a.csv',
        data,
      }),
      (error: unknown) =>
        error instanceof InputError &&
        error.fields.file ===
          'Nothing was sent. The column “Company email” is missing. Add it to the first row.',
    );
    assert.equal(await countRows(h.ctx, 'bulk_sends', { workspace_id: workspace.id }), 0);
  });

  test('a file over SIGNET_BULK_MAX_ROWS: the preview offers nothing to send, and a confirmation is refused whole', async () => {
    const workspace = await createTestWorkspace(h.ctx);
    const { id } = await createBulkTemplate(h.ctx, workspace.id);
    const data = excelCsv([header, ...goodLines.slice(0, 3)]);
    const before = h.ctx.config.bulkMaxRows;
    h.ctx.config.bulkMaxRows = 2;
    try {
      const preview = await previewBulkSend(h.ctx, workspace.id, id, data);
      assert.equal(preview.goodRows, 2, 'the first rows are still checked');
      const sentence =
        'The file has 3 rows; at most 2 can be sent at once. Split it into files of at most 2 rows (only the first 2 are checked here).';
      assert.equal(preview.refusal && inEnglish(preview.refusal), sentence);
      await assert.rejects(
        startBulkSend(h.ctx, {
          workspaceId: workspace.id,
          templateId: id,
          userId: null,
          fileName: 'a.csv',
          data,
        }),
        (error: unknown) =>
          error instanceof InputError && error.fields.file === `Nothing was sent. ${sentence}`,
      );
      assert.equal(await countRows(h.ctx, 'bulk_sends', { workspace_id: workspace.id }), 0);
    } finally {
      h.ctx.config.bulkMaxRows = before;
    }
  });

  test('confirmed, the worker makes and sends a document per good row, each invitation mailed once', async () => {
    const workspace = await createTestWorkspace(h.ctx);
    const { id: templateId } = await createBulkTemplate(h.ctx, workspace.id);
    const data = excelCsv([header, ...goodLines, 'bad;X;office@acme.example;Acme Ltd;1 EUR']);
    const { id } = await startBulkSend(h.ctx, {
      workspaceId: workspace.id,
      templateId,
      userId: null,
      fileName: 'clients.csv',
      data,
    });
    assert.equal(
      await countRows(h.ctx, 'bulk_send_rows', { bulk_send_id: id, status: 'pending' }),
      4,
      'the good rows stored to send',
    );
    assert.equal(
      await countRows(h.ctx, 'bulk_send_rows', { bulk_send_id: id, status: 'refused' }),
      1,
      'the bad row stored as refused, for the results file',
    );
    assert.equal((await documentsOf(templateId)).length, 0, 'nothing made before the worker runs');

    await drain();
    await deliverMails();
    const documents = await documentsOf(templateId);
    assert.equal(documents.length, 4);
    assert.ok(documents.every((d) => d.status === 'sent'));
    const mails = await mailsPerAddress(workspace.id);
    for (const email of ['ann', 'bob', 'cy', 'di'])
      assert.equal(mails.get(`${email}@client.example`), 1, email);
    assert.equal(mails.get('office@acme.example'), 4, 'the company is invited once per document');

    const rows = await h.ctx.db
      .selectFrom('bulk_send_rows')
      .select(['row_number', 'document_id', 'status'])
      .where('bulk_send_id', '=', id)
      .orderBy('row_number')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.row_number, r.status]),
      [
        [2, 'sent'],
        [3, 'sent'],
        [4, 'sent'],
        [5, 'sent'],
        [6, 'refused'],
      ],
    );
    const bob = rows[1]?.document_id ?? '';
    const recipients = await h.ctx.db
      .selectFrom('recipients')
      .select(['email', 'full_name'])
      .where('document_id', '=', bob)
      .orderBy('email')
      .execute();
    assert.deepEqual(
      recipients.map((r) => [r.email, r.full_name]),
      [
        ['bob@client.example', 'Bob Client'],
        ['office@acme.example', 'Acme Ltd'],
      ],
    );
    const fields = await h.ctx.db
      .selectFrom('document_fields')
      .select(['type', 'label', 'value', 'x', 'y'])
      .where('document_id', '=', bob)
      .orderBy('y')
      .orderBy('x')
      .execute();
    assert.deepEqual(
      fields.map((f) => [f.type, f.label, f.value, f.x, f.y]),
      [
        ['signature', null, null, 72, 100],
        ['signature', null, null, 320, 100],
        ['text', 'Price', '900 EUR', 72, 200],
      ],
    );
    assert.deepEqual(await bulkSendProgress(h.ctx, workspace.id, id), {
      ...(await bulkSendProgress(h.ctx, workspace.id, id)),
      total: 4,
      created: 4,
      sent: 4,
      failed: 0,
      mailed: 4,
      finished: true,
    });
  });

  test('a restart in the middle: a pass stopped after some rows, a row left created by a crash; every row sent once', async () => {
    const workspace = await createTestWorkspace(h.ctx);
    const { id: templateId } = await createBulkTemplate(h.ctx, workspace.id);
    const { id } = await startBulkSend(h.ctx, {
      workspaceId: workspace.id,
      templateId,
      userId: null,
      fileName: 'clients.csv',
      data: excelCsv([header, ...goodLines]),
    });
    assert.equal(await sendDueBulkRows(h.ctx, { limit: 1 }), 1);
    const afterFirst = await bulkSendProgress(h.ctx, workspace.id, id);
    assert.deepEqual([afterFirst.created, afterFirst.sent, afterFirst.finished], [1, 1, false]);

    // A crash between the two transactions of row 3: its document made, its send never run.
    const template = await getTemplate(h.ctx, workspace.id, templateId);
    const row3 = await h.ctx.db
      .selectFrom('bulk_send_rows')
      .select('input')
      .where('bulk_send_id', '=', id)
      .where('row_number', '=', 3)
      .executeTakeFirstOrThrow();
    const crashed = h.ctx.ids.uuid();
    await createDocument(
      h.ctx,
      await documentInputOf(h.ctx, workspace.id, template, row3.input as UseTemplateInput),
      {
        id: crashed,
        last: async (trx) => {
          await trx
            .updateTable('bulk_send_rows')
            .set({ status: 'created', document_id: crashed })
            .where('bulk_send_id', '=', id)
            .where('row_number', '=', 3)
            .execute();
        },
      },
    );
    // Row 4's document made, and sent by someone else before the worker came back to it.
    const row4 = await h.ctx.db
      .selectFrom('bulk_send_rows')
      .select('input')
      .where('bulk_send_id', '=', id)
      .where('row_number', '=', 4)
      .executeTakeFirstOrThrow();
    const sentElsewhere = h.ctx.ids.uuid();
    await createDocument(
      h.ctx,
      await documentInputOf(h.ctx, workspace.id, template, row4.input as UseTemplateInput),
      {
        id: sentElsewhere,
        last: async (trx) => {
          await trx
            .updateTable('bulk_send_rows')
            .set({ status: 'created', document_id: sentElsewhere })
            .where('bulk_send_id', '=', id)
            .where('row_number', '=', 4)
            .execute();
        },
      },
    );
    await sendDocument(h.ctx, workspace.id, sentElsewhere);

    await drain();
    await deliverMails();
    const documents = await documentsOf(templateId);
    assert.equal(documents.length, 4, 'a document per row, none twice');
    assert.ok(documents.some((d) => d.id === crashed));
    assert.ok(documents.every((d) => d.status === 'sent'));
    const mails = await mailsPerAddress(workspace.id);
    for (const email of ['ann', 'bob', 'cy', 'di'])
      assert.equal(mails.get(`${email}@client.example`), 1, email);
    assert.equal(mails.get('office@acme.example'), 4);
    const progress = await bulkSendProgress(h.ctx, workspace.id, id);
    assert.deepEqual([progress.sent, progress.failed, progress.mailed, progress.finished], [4, 0, 4, true]);
    assert.equal(await sendDueBulkRows(h.ctx), 0, 'a finished bulk send is not claimed again');
  });

  test('another worker’s lease is skipped until it runs out', async () => {
    const workspace = await createTestWorkspace(h.ctx);
    const { id: templateId } = await createBulkTemplate(h.ctx, workspace.id);
    const { id } = await startBulkSend(h.ctx, {
      workspaceId: workspace.id,
      templateId,
      userId: null,
      fileName: 'clients.csv',
      data: excelCsv([header, goodLines[0] as string]),
    });
    const held = new Date(h.clock.now().getTime() + 60_000);
    await h.ctx.db.updateTable('bulk_sends').set({ locked_until: held }).where('id', '=', id).execute();
    assert.equal(await sendDueBulkRows(h.ctx), 0);
    h.clock.advance(59_000);
    assert.equal(await sendDueBulkRows(h.ctx), 0);
    assert.equal((await documentsOf(templateId)).length, 0);
    h.clock.advance(1_000);
    assert.equal(await sendDueBulkRows(h.ctx), 1);
    assert.equal((await bulkSendProgress(h.ctx, workspace.id, id)).finished, true);
  });

  test('bulk sends take turns a batch at a time: a long one does not hold back a short one', async () => {
    const workspace = await createTestWorkspace(h.ctx);
    const other = await createTestWorkspace(h.ctx);
    const { id: longTemplate } = await createBulkTemplate(h.ctx, workspace.id);
    const { id: shortTemplate } = await createBulkTemplate(h.ctx, other.id);
    const lines = Array.from(
      { length: 55 },
      (_, i) => `p${i}@client.example;P ${i};office@acme.example;Acme;${i} EUR`,
    );
    const long = await startBulkSend(h.ctx, {
      workspaceId: workspace.id,
      templateId: longTemplate,
      userId: null,
      fileName: 'long.csv',
      data: excelCsv([header, ...lines]),
    });
    h.clock.advance(1000);
    const short = await startBulkSend(h.ctx, {
      workspaceId: other.id,
      templateId: shortTemplate,
      userId: null,
      fileName: 'short.csv',
      data: excelCsv([header, goodLines[0] as string]),
    });
    assert.equal(await sendDueBulkRows(h.ctx), 50, 'the older one first, a batch of it');
    assert.equal(await sendDueBulkRows(h.ctx), 1, 'then the one that waited longest');
    assert.equal((await bulkSendProgress(h.ctx, other.id, short.id)).finished, true);
    assert.equal((await bulkSendProgress(h.ctx, workspace.id, long.id)).sent, 50);
    await drain();
    assert.equal((await bulkSendProgress(h.ctx, workspace.id, long.id)).sent, 55);
  });

  test('a template deleted before its rows were sent: each fails with its sentence; the results file neutralises formulas', async () => {
    const workspace = await createTestWorkspace(h.ctx);
    const { id: templateId } = await createBulkTemplate(h.ctx, workspace.id);
    const formula = '=HYPERLINK("http://evil.example","x")';
    const { id } = await startBulkSend(h.ctx, {
      workspaceId: workspace.id,
      templateId,
      userId: null,
      fileName: 'clients.csv',
      data: excelCsv([
        header,
        `ann@client.example;${formula};office@acme.example;Acme Ltd;1 EUR`,
        ...goodLines.slice(1),
      ]),
    });
    assert.equal(await sendDueBulkRows(h.ctx, { limit: 1 }), 1);
    await deliverMails();
    await deleteTemplate(h.ctx, workspace.id, templateId);
    await drain();
    const progress = await bulkSendProgress(h.ctx, workspace.id, id);
    assert.deepEqual(
      [progress.total, progress.created, progress.sent, progress.failed, progress.mailed, progress.finished],
      [4, 1, 1, 3, 1, true],
    );
    const sentence = 'The template was deleted before this row was sent: no document was made for it.';
    const reason = [{ key: 'bulk.rowFailed.templateDeleted' }];
    assert.deepEqual(await failedBulkRows(h.ctx, workspace.id, id), [
      { row: 3, reason },
      { row: 4, reason },
      { row: 5, reason },
    ]);
    // The English stays beside the reason, for the logs and the CLI.
    assert.equal(
      (
        await h.ctx.db
          .selectFrom('bulk_send_rows')
          .select('error')
          .where('bulk_send_id', '=', id)
          .where('row_number', '=', 3)
          .executeTakeFirstOrThrow()
      ).error,
      sentence,
    );
    // The results file says it in the reading member's language.
    const german = parse(await bulkSendResultsCsv(h.ctx, workspace.id, id, translator('de'))) as string[][];
    assert.deepEqual(german[2], [
      '3',
      '',
      'failed: Die Vorlage wurde gelöscht, bevor diese Zeile gesendet wurde: Für sie wurde kein Dokument erstellt.',
      '',
    ]);
    const csv = await bulkSendResultsCsv(h.ctx, workspace.id, id, translator('en'));
    const [head, first, second] = parse(csv) as string[][];
    assert.deepEqual(head, ['row', 'document id', 'status', 'signing-link delivery']);
    assert.equal(first?.[0], '2');
    assert.match(first?.[1] ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(first?.[2], 'sent');
    assert.equal(
      first?.[3],
      `'${formula} <ann@client.example>: mailed; Acme Ltd <office@acme.example>: mailed`,
      'the formula behind a quote: read as text',
    );
    assert.deepEqual(second, ['3', '', `failed: ${sentence}`, '']);
  });

  test('a row its document’s checks refuse fails alone; the other rows of its transaction are sent', async () => {
    const workspace = await createTestWorkspace(h.ctx);
    const { id: templateId } = await createBulkTemplate(h.ctx, workspace.id);
    const { id } = await startBulkSend(h.ctx, {
      workspaceId: workspace.id,
      templateId,
      userId: null,
      fileName: 'clients.csv',
      data: excelCsv([header, ...goodLines]),
    });
    // A row the spreadsheet's reader let through and the document refuses: its Client is the Company.
    const twice = {
      recipients: {
        Client: { email: 'office@acme.example', fullName: 'Cy Client' },
        Company: { email: 'office@acme.example', fullName: 'Acme Ltd' },
      },
      values: { Price: '750 EUR' },
    };
    await h.ctx.db
      .updateTable('bulk_send_rows')
      .set({ input: JSON.stringify(twice) })
      .where('bulk_send_id', '=', id)
      .where('row_number', '=', 4)
      .execute();
    await drain();
    await deliverMails();
    const progress = await bulkSendProgress(h.ctx, workspace.id, id);
    assert.deepEqual(
      [progress.total, progress.sent, progress.failed, progress.mailed, progress.finished],
      [4, 3, 1, 3, true],
    );
    const failed = await failedBulkRows(h.ctx, workspace.id, id);
    assert.deepEqual(
      failed.map((f) => f.row),
      [4],
    );
    const reason = failed[0]?.reason ?? [];
    assert.match(reasonIn(reason, translator('en')), /^Company: .*office@acme\.example is listed twice\./);
    // Kept as its keys: said in German, the role's name and the address as the file gave them.
    const german = reasonIn(reason, translator('de'));
    assert.match(german, /^Company: .*office@acme\.example/);
    assert.doesNotMatch(german, /listed twice/);
    const documents = await documentsOf(templateId);
    assert.equal(documents.length, 3);
    assert.ok(documents.every((d) => d.status === 'sent'));
    const mails = await mailsPerAddress(workspace.id);
    for (const email of ['ann', 'bob', 'di']) assert.equal(mails.get(`${email}@client.example`), 1, email);
    assert.equal(mails.get('office@acme.example'), 3);
  });

  test('another workspace’s bulk send is not found', async () => {
    const a = await createTestWorkspace(h.ctx);
    const b = await createTestWorkspace(h.ctx);
    const { id: templateId } = await createBulkTemplate(h.ctx, a.id);
    const { id } = await startBulkSend(h.ctx, {
      workspaceId: a.id,
      templateId,
      userId: null,
      fileName: 'clients.csv',
      data: excelCsv([header, goodLines[0] as string]),
    });
    const notFound = (error: unknown) => error instanceof ApiError && error.code === 'not-found';
    await assert.rejects(bulkSendProgress(h.ctx, b.id, id), notFound);
    await assert.rejects(bulkSendResultsCsv(h.ctx, b.id, id, translator('en')), notFound);
    await assert.rejects(previewBulkSend(h.ctx, b.id, templateId, excelCsv([header])), notFound);
    await assert.rejects(
      startBulkSend(h.ctx, {
        workspaceId: b.id,
        templateId,
        userId: null,
        fileName: 'a.csv',
        data: excelCsv([header, goodLines[0] as string]),
      }),
      notFound,
    );
  });

  /** What a browser posts for a multipart form without a file input (the preview's confirmation). */
  async function postMultipart(client: WebClient, path: string, fields: Record<string, string>) {
    const form = new FormData();
    form.set('_csrf', client.csrfToken ?? '');
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(new URL(path, h.baseUrl), {
      method: 'POST',
      headers: { cookie },
      body: form,
      redirect: 'manual',
    });
    return {
      status: response.status,
      location: response.headers.get('location'),
      text: await response.text(),
    };
  }

  /** The hidden fields of the preview's confirmation form. */
  function confirmFields(text: string): Record<string, string> {
    const value = (name: string) =>
      new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(text)?.[1] ?? '';
    return { fileName: value('fileName'), sha256: value('sha256'), data: value('data') };
  }

  const csvFile = (data: Uint8Array, name = 'clients.csv') => new File([data], name, { type: 'text/csv' });

  test('on the web: upload, preview with problems (nothing sent), confirm, progress refreshing until finished, results', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id: templateId } = await createBulkTemplate(h.ctx, owner.workspaceId);
    const page = await client.get(`/templates/${templateId}`);
    assertPage(page, 200);
    assert.match(
      page.text,
      new RegExp(`<a class="button button-secondary" href="/templates/${templateId}/bulk">Send in bulk</a>`),
    );

    const upload = await client.get(`/templates/${templateId}/bulk`);
    assertPage(upload, 200);
    assert.match(upload.text, /<li><strong>Client email<\/strong>: an email address<\/li>/);
    assert.match(
      upload.text,
      new RegExp(`href="/templates/${templateId}/bulk.csv" download>Download the CSV to fill</a>`),
    );
    const blank = await client.get(`/templates/${templateId}/bulk.csv`);
    assert.equal(blank.status, 200);
    assert.equal(blank.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.match(
      blank.headers.get('content-disposition') ?? '',
      /^attachment; filename="Services agreement - bulk send.csv"$/,
    );
    // fetch's text() drops the BOM; bulk-csv.test.ts checks it is there.
    assert.ok(
      blank.text.startsWith(
        'Client email,Client name,Client language,Company email,Company name,Company language,Price\r\n',
      ),
    );

    assertPage(await client.get(`/templates/${templateId}/bulk`), 200);
    const forged = await client.post(
      `/templates/${templateId}/bulk`,
      { file: csvFile(excelCsv([header])) },
      { csrf: false },
    );
    assert.equal(forged.status, 403);

    assertPage(await client.get(`/templates/${templateId}/bulk`), 200);
    const none = await client.post(`/templates/${templateId}/bulk`, { file: new File([], '') });
    assertPage(none, 400);
    assert.match(
      none.text,
      /<span class="field-error" id="file-error">Choose the CSV file to check.<\/span>/,
    );

    const bad = excelCsv([
      header,
      goodLines[0] as string,
      'not-an-email;Bob Client;office@acme.example;Acme Ltd;900 EUR',
      'cy@client.example;;office@acme.example;Acme Ltd;750 EUR',
      goodLines[3] as string,
    ]);
    const preview = await client.post(`/templates/${templateId}/bulk`, { file: csvFile(bad) });
    assertPage(preview, 200);
    assert.match(preview.text, /<li>Row 3: Client email “not-an-email” is not an email address.<\/li>/);
    assert.match(preview.text, /<li>Row 4: Client name is empty. Fill it in, or delete the row.<\/li>/);
    assert.match(
      preview.text,
      /2 rows of 4 can be sent; 2 rows have problems and will not be. Nothing has been sent yet./,
    );
    assert.match(
      preview.text,
      /<tr><td class="num">2<\/td><td>Ann Client<div class="small muted">ann@client.example<\/div><\/td>/,
    );
    assert.match(preview.text, /<tr><td class="num">5<\/td><td>Di Client/);
    assert.match(preview.text, />Send the 2 good rows<\/button>/);
    assert.match(
      preview.text,
      new RegExp(`<a class="button button-secondary" href="/templates/${templateId}/bulk">Fix the file</a>`),
    );
    assert.equal(await countRows(h.ctx, 'bulk_sends', { workspace_id: owner.workspaceId }), 0);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: owner.workspaceId }), 0);

    const fields = confirmFields(preview.text);
    const altered = await postMultipart(client, `/templates/${templateId}/bulk/send`, {
      ...fields,
      data: Buffer.from(excelCsv([header, goodLines[1] as string])).toString('base64'),
    });
    assert.equal(altered.status, 400);
    assert.match(altered.text, /did not come back whole from the page that checked it, so nothing was sent/);
    assert.equal(await countRows(h.ctx, 'bulk_sends', { workspace_id: owner.workspaceId }), 0);

    const confirmed = await postMultipart(client, `/templates/${templateId}/bulk/send`, fields);
    assert.equal(confirmed.status, 303, confirmed.text.slice(0, 300));
    const progressPath = confirmed.location ?? '';
    assert.match(progressPath, /^\/bulk\/[0-9a-f-]{36}$/);
    const sending = await client.get(progressPath);
    assertPage(sending, 200);
    assert.match(sending.text, /<noscript><meta http-equiv="refresh" content="3"><\/noscript>/);
    assert.match(sending.text, /<main class="container" id="main" data-refresh="3">/);
    assert.match(sending.text, /<label for="bulk-progress">0 of 2 done<\/label>/);
    assert.match(sending.text, /<div><dt>Documents created<\/dt><dd>0 of 2<\/dd><\/div>/);

    await drain();
    await deliverMails();
    const finished = await client.get(progressPath);
    assertPage(finished, 200);
    assert.ok(!finished.text.includes('http-equiv="refresh"'), 'a finished send stops refreshing');
    assert.ok(!finished.text.includes('data-refresh'), 'and updating');
    assert.match(finished.text, /Finished: 2 rows sent\./);
    assert.match(finished.text, /<div><dt>Invitations mailed<\/dt><dd>2<\/dd><\/div>/);
    const results = await client.get(`${progressPath}/results.csv`);
    assert.equal(results.status, 200);
    assert.equal(results.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.deepEqual(
      (parse(results.text) as string[][]).map((r) => [r[0], r[2]]),
      [
        ['row', 'status'],
        ['2', 'sent'],
        ['3', 'refused: Row 3: Client email “not-an-email” is not an email address.'],
        ['4', 'refused: Row 4: Client name is empty. Fill it in, or delete the row.'],
        ['5', 'sent'],
      ],
    );
    const listed = await client.get(`/templates/${templateId}`);
    assert.match(listed.text, new RegExp(`<a href="${progressPath}">clients.csv</a>`));

    const stranger = await people.signedIn(await people.newOwner());
    for (const path of [
      progressPath,
      `${progressPath}/results.csv`,
      `/templates/${templateId}/bulk`,
      `/templates/${templateId}/bulk.csv`,
    ])
      assert.equal((await stranger.get(path)).status, 404, path);
    assert.equal((await client.get('/bulk/not-a-uuid')).status, 404);
  });

  test('on the web: a long list of problems is cut at 100; a file of hundreds of rows is confirmed through its hidden field', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id: templateId } = await createBulkTemplate(h.ctx, owner.workspaceId);
    const badRows = Array.from({ length: 105 }, (_, i) => `nobody${i};N;office@acme.example;Acme Ltd;1 EUR`);
    assertPage(await client.get(`/templates/${templateId}/bulk`), 200);
    const many = await client.post(`/templates/${templateId}/bulk`, {
      file: csvFile(excelCsv([header, ...badRows])),
    });
    assertPage(many, 400);
    assert.match(
      many.text,
      /Nothing in this file can be sent: The file has no row that can be sent. Fix it and upload it again./,
    );
    assert.equal([...many.text.matchAll(/<li>Row \d+: Client email/g)].length, 100);
    assert.match(many.text, /<p>… and 5 more.<\/p>/);
    assert.ok(!many.text.includes('good rows</button>'));

    const longRows = Array.from(
      { length: 800 },
      (_, i) => `client${i}@client.example;Client number ${i};office@acme.example;Acme Limited;${i} EUR`,
    );
    const file = excelCsv([header, ...longRows]);
    assert.ok(file.byteLength > 64 * 1024, 'beyond the 64 KB of an ordinary form');
    assertPage(await client.get(`/templates/${templateId}/bulk`), 200);
    const preview = await client.post(`/templates/${templateId}/bulk`, { file: csvFile(file, 'big.csv') });
    assertPage(preview, 200);
    assert.match(preview.text, />Send the 800 good rows<\/button>/);
    const confirmed = await postMultipart(
      client,
      `/templates/${templateId}/bulk/send`,
      confirmFields(preview.text),
    );
    assert.equal(confirmed.status, 303, confirmed.text.slice(0, 300));
    const id = (confirmed.location ?? '').replace('/bulk/', '');
    assert.equal(await countRows(h.ctx, 'bulk_send_rows', { bulk_send_id: id }), 800);
    // Not sent here: 800 documents would only slow the suite (the service's tests send).
    await h.ctx.db.deleteFrom('bulk_sends').where('id', '=', id).execute();
  });

  test('the worker starts on a confirmed bulk send at once (NOTIFY), and the process answers while it sends', async () => {
    const workspace = await createTestWorkspace(h.ctx);
    const { id: templateId } = await createBulkTemplate(h.ctx, workspace.id);
    const worker = await startWorker(h.ctx, {
      transport: createMailTransport({ smtpUrl: null, from: 'Signet <a@b.test>', log: h.ctx.log }),
      subscribe: h.subscribe,
      bulkIntervalMs: 600_000,
      mailIntervalMs: 600_000,
    });
    try {
      // Its first pass, at start, found nothing.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const lines = Array.from(
        { length: 30 },
        (_, i) => `p${i}@client.example;P ${i};office@acme.example;Acme;${i} EUR`,
      );
      const { id } = await startBulkSend(h.ctx, {
        workspaceId: workspace.id,
        templateId,
        userId: null,
        fileName: 'clients.csv',
        data: excelCsv([header, ...lines]),
      });
      const seen: Array<{ created: number; finished: boolean }> = [];
      const deadline = Date.now() + 30_000;
      let progress = await bulkSendProgress(h.ctx, workspace.id, id);
      while (!(progress.finished && progress.mailed === 30) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        progress = await bulkSendProgress(h.ctx, workspace.id, id);
        seen.push({ created: progress.created, finished: progress.finished });
      }
      assert.deepEqual([progress.sent, progress.mailed, progress.finished], [30, 30, true]);
      assert.ok(
        seen.some((p) => p.created > 0 && !p.finished),
        'a look at its progress was answered while it was sending, not only once it was done',
      );
    } finally {
      await worker.stop();
    }
  });
});
