// A bulk send's spreadsheet against hostile and mistaken files (issue 49), on both databases,
// over real HTTP to a listening server: the worst-case 10 MB files (a flood of empty records;
// a record of millions of cells) refused on the preview page with a sentence while /healthz
// keeps answering in well under a second (the file is read in a thread, bounded); a file just
// over the row limit refused with its sentence; the reading thread's time and heap bounds; a
// control character (NUL) in a cell refused on its row while the other rows are sent, the row
// listed as refused in the results file; a person on two rows warned about, and still sent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { inEnglish } from '../../src/i18n/refusals.ts';
import { deliverDueMails } from '../../src/mail/mail.service.ts';
import { createMailTransport } from '../../src/mail/mailer.ts';
import { readBulkCsvInThread } from '../../src/templates/bulk-csv-thread.ts';
import { bulkSendProgress } from '../../src/templates/bulk-progress.ts';
import { columnsOf, sendDueBulkRows } from '../../src/templates/bulk-send.ts';
import { getTemplate } from '../../src/templates/templates.service.ts';
import { createBulkTemplate } from '../support/factories.ts';
import { countRows, describeEachDatabase, useHarness } from '../support/harness.ts';
import { assertPage, confirmBulkPreview, escaped, type WebClient, webPeople } from '../support/web-client.ts';

const header = 'Client email,Client name,Company email,Company name,Price';
const row = (n: number) => `client${n}@client.example,Client ${n},office@acme.example,Acme Ltd,${n} EUR`;
const tenMb = 10 * 1024 * 1024;

/** The worst cases of issue 49 at the page's 10 MB: empty records, or one record of empty cells. */
function worstCase(shape: 'records' | 'cells'): Uint8Array {
  const head = `${header}\r\n${row(1)}\r\n`;
  const filler = shape === 'records' ? ',\r\n' : ',';
  const times = Math.floor((tenMb - head.length - 2) / filler.length);
  return new TextEncoder().encode(`${head}${filler.repeat(times)}\r\n`);
}

const csvFile = (data: Uint8Array, name = 'clients.csv') => new File([data], name, { type: 'text/csv' });

describeEachDatabase('a bulk send’s spreadsheet, bounded', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.49');

  async function ownerWithTemplate(): Promise<{
    client: WebClient;
    templateId: string;
    workspaceId: string;
  }> {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await createBulkTemplate(h.ctx, owner.workspaceId);
    return { client, templateId: id, workspaceId: owner.workspaceId };
  }

  /** The preview of `data`, with every /healthz answer's time while it was in flight. */
  async function previewWhilePolled(client: WebClient, templateId: string, data: Uint8Array) {
    assertPage(await client.get(`/templates/${templateId}/bulk`), 200);
    let done = false;
    const started = performance.now();
    const preview = client.post(`/templates/${templateId}/bulk`, { file: csvFile(data) }).finally(() => {
      done = true;
    });
    const answers: number[] = [];
    while (!done) {
      const asked = performance.now();
      const response = await fetch(`${h.baseUrl}/healthz`);
      await response.arrayBuffer();
      assert.equal(response.status, 200);
      answers.push(performance.now() - asked);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return { page: await preview, answers, ms: performance.now() - started };
  }

  for (const [shape, sentence] of [
    [
      'records',
      'This file is too large or complex to read: it has more than 6,000 rows, most of them empty. Delete the empty rows below your data (or save only the cells you filled), then upload it again.',
    ],
    [
      'cells',
      'This file is too large or complex to read: row 3 has more than 1,000 cells. Keep only the columns listed on this page, save the file again from your spreadsheet and upload it.',
    ],
  ] as const) {
    test(`the worst-case 10 MB file of empty ${shape} is refused with a sentence while /healthz answers in under 1 s`, async () => {
      const { client, templateId, workspaceId } = await ownerWithTemplate();
      const data = worstCase(shape);
      assert.ok(data.byteLength > tenMb - 16 && data.byteLength <= tenMb, `${data.byteLength} bytes`);
      const { page, answers, ms } = await previewWhilePolled(client, templateId, data);
      assertPage(page, 400);
      assert.ok(
        page.text.includes(escaped(`Nothing in this file can be sent: ${sentence}`)),
        page.text.slice(0, 3000),
      );
      assert.ok(!page.text.includes('good row'), 'nothing offered to send');
      assert.ok(answers.length >= 1, 'polled while the file was read');
      // Generous: a loaded 2-core machine, not a benchmark.
      assert.ok(Math.max(...answers) < 1000, `slowest /healthz: ${Math.round(Math.max(...answers))} ms`);
      assert.ok(ms < 20_000, `the preview answered after ${Math.round(ms)} ms`);
      assert.equal(await countRows(h.ctx, 'bulk_sends', { workspace_id: workspaceId }), 0);
    });
  }

  test('a file just over the row limit is refused with today’s sentence, its rows still checked', async () => {
    const { client, templateId } = await ownerWithTemplate();
    const before = h.ctx.config.bulkMaxRows;
    h.ctx.config.bulkMaxRows = 3;
    try {
      const data = new TextEncoder().encode(
        `${[header, row(1), row(2), '', row(3), row(4)].join('\r\n')}\r\n`,
      );
      assertPage(await client.get(`/templates/${templateId}/bulk`), 200);
      const page = await client.post(`/templates/${templateId}/bulk`, { file: csvFile(data) });
      assertPage(page, 400);
      assert.ok(
        page.text.includes(
          'Nothing in this file can be sent: The file has 4 rows; at most 3 can be sent at once. Split it into files of at most 3 rows (only the first 3 are checked here). Fix it and upload it again.',
        ),
      );
      assert.match(
        page.text,
        /<tr><td class="num">5<\/td><td>Client 3/,
        'the rows up to the limit are shown',
      );
      assert.ok(!page.text.includes('Client 4'), 'the row past the limit is not');
    } finally {
      h.ctx.config.bulkMaxRows = before;
    }
  });

  test('a read that outlasts its time or its heap is refused with a sentence; the next read is served', async () => {
    const { templateId, workspaceId } = await ownerWithTemplate();
    const columns = columnsOf(await getTemplate(h.ctx, workspaceId, templateId));
    const rows = Array.from({ length: 5_000 }, (_, i) => row(i));
    const data = new TextEncoder().encode(`${[header, ...rows].join('\n')}\n`);
    const sentence =
      'This file is too large or complex to read (reading it takes more time or memory than allowed); keep only the columns listed on this page and at most 5,000 rows, save it again as “CSV UTF-8” and upload it.';
    const late = await readBulkCsvInThread(data, columns, { maxRows: 5_000, timeoutMs: 1 });
    assert.deepEqual(late, {
      rows: [],
      problems: [
        { row: null, column: null, sentence: { key: 'bulk.problem.tooComplex', values: { max: 5_000 } } },
      ],
      warnings: [],
      delimiter: ',',
      totalRows: 0,
      ignoredColumns: [],
    });
    const cramped = await readBulkCsvInThread(data, columns, { maxRows: 5_000, heapMb: 16 });
    assert.deepEqual(
      late.problems.map((p) => inEnglish(p.sentence)),
      [sentence],
    );
    assert.deepEqual(cramped.problems, late.problems);
    const read = await readBulkCsvInThread(data, columns, { maxRows: 5_000 });
    assert.equal(read.rows.length, 5_000);
    assert.deepEqual(read.problems, []);
  });

  test('a NUL in a cell refuses its row with a sentence; the other rows are sent and the results file lists it refused', async () => {
    const { client, templateId, workspaceId } = await ownerWithTemplate();
    const nul = 'nul@client.example,Nul\u0000Client,office@acme.example,Acme Ltd,5 EUR';
    const data = new TextEncoder().encode(`${[header, row(1), nul, row(3)].join('\r\n')}\r\n`);
    assertPage(await client.get(`/templates/${templateId}/bulk`), 200);
    const preview = await client.post(`/templates/${templateId}/bulk`, { file: csvFile(data) });
    assertPage(preview, 200);
    const sentence =
      'Row 3: Client name holds a control character (U+0000), which no one can see or sign. It is often left by copying from another program: type the cell again, or delete the character, and upload the file again.';
    assert.ok(preview.text.includes(`<li>${sentence}</li>`));
    assert.match(preview.text, />Send the 2 good rows<\/button>/);

    const confirmed = await confirmBulkPreview(client, templateId, preview);
    assert.equal(confirmed.status, 303, confirmed.text.slice(0, 300));
    const progressPath = confirmed.headers.get('location') ?? '';
    const id = progressPath.replace('/bulk/', '');
    while ((await sendDueBulkRows(h.ctx)) > 0) {}
    const transport = createMailTransport({ smtpUrl: null, from: 'Signet <a@b.test>', log: h.ctx.log });
    while ((await deliverDueMails(h.ctx, transport)) > 0) {}
    transport.close();

    const progress = await bulkSendProgress(h.ctx, workspaceId, id);
    assert.deepEqual(
      [progress.total, progress.sent, progress.failed, progress.refused, progress.finished],
      [2, 2, 0, 1, true],
    );
    const documents = await h.ctx.db
      .selectFrom('documents')
      .select('status')
      .where('template_id', '=', templateId)
      .execute();
    assert.deepEqual(
      documents.map((d) => d.status),
      ['sent', 'sent'],
    );
    const stored = await h.ctx.db
      .selectFrom('bulk_send_rows')
      .select(['row_number', 'status', 'error'])
      .where('bulk_send_id', '=', id)
      .orderBy('row_number')
      .execute();
    assert.deepEqual(
      stored.map((r) => [r.row_number, r.status]),
      [
        [2, 'sent'],
        [3, 'refused'],
        [4, 'sent'],
      ],
    );
    assert.ok(!stored.some((r) => (r.error ?? '').includes('\u0000')), 'no NUL stored');
    const finished = await client.get(progressPath);
    assert.match(
      finished.text,
      /Finished: 2 rows sent\. 1 row of the file had problems and was not sent: the results file lists it\./,
    );
    assert.match(finished.text, /<div><dt>Not sent \(problems in the file\)<\/dt><dd>1<\/dd><\/div>/);
    const results = await client.get(`${progressPath}/results.csv`);
    assert.deepEqual(
      (parse(results.text) as string[][]).map((r) => [r[0], r[2]]),
      [
        ['row', 'status'],
        ['2', 'sent'],
        ['3', `refused: ${sentence}`],
        ['4', 'sent'],
      ],
    );
  });

  test('a person on two rows of one role is a warning on the preview; both rows are sent', async () => {
    const { client, templateId } = await ownerWithTemplate();
    const again = row(1).replace('Client 1', 'Client One').replace('client1@', 'CLIENT1@');
    const data = new TextEncoder().encode(`${[header, row(1), row(2), again].join('\n')}\n`);
    assertPage(await client.get(`/templates/${templateId}/bulk`), 200);
    const preview = await client.post(`/templates/${templateId}/bulk`, { file: csvFile(data) });
    assertPage(preview, 200);
    assert.match(preview.text, /<h2 id="warnings-title">2 rows to look at<\/h2>/);
    assert.ok(
      preview.text.includes(
        '<li>Row 4: Client email “client1@client.example” is also on row 2, so that person gets 2 documents, one for each of these rows. If that is a mistake, delete the row too many.</li>',
      ),
    );
    assert.ok(
      preview.text.includes(
        '<li>Rows 3 and 4: Company email “office@acme.example” is also on row 2, so that person gets 3 documents, one for each of these rows. If that is a mistake, delete the rows too many.</li>',
      ),
    );
    assert.match(preview.text, />Send the 3 good rows<\/button>/, 'a warning does not hold a row back');
    assert.match(preview.text, /3 rows of 3 can be sent\. Nothing has been sent yet\./);
  });
});
