// Unit tests for the bulk send's spreadsheet (src/templates/bulk-csv.ts): reading the CSV a
// sender uploads for a template (encodings, delimiters, quoting, headers, each cell's rule,
// row numbers as the spreadsheet shows them, the row limit), the template file to fill and
// the results file. No database: the module is bytes in, rows and sentences out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { inEnglish } from '../../src/i18n/refusals.ts';
import {
  type BulkColumn,
  type BulkProblem,
  type BulkSheet,
  bulkCsvTemplate,
  bulkResultsCsv,
  readBulkCsv,
} from '../../src/templates/bulk-csv.ts';

const columns: BulkColumn[] = [
  { key: 'role:client:email', header: 'Client email', kind: 'email', required: true },
  { key: 'role:client:name', header: 'Client name', kind: 'name', required: true },
  { key: 'role:company:email', header: 'Company email', kind: 'email', required: true },
  { key: 'role:company:name', header: 'Company name', kind: 'name', required: true },
  { key: 'field:price', header: 'Price', kind: 'text', required: true, maxLength: 20 },
  { key: 'field:start', header: 'Start date', kind: 'date', required: false },
  { key: 'field:insured', header: 'Insured', kind: 'checkbox', required: false },
];
const header = 'Client email,Client name,Company email,Company name,Price,Start date,Insured';
const good = 'ann@example.com,Ann Smith,office@acme.test,Acme Ltd,"1,200 EUR",2026-03-14,yes';

/** A problem as the sender reads it in English: its row, its column and its sentence. */
type Said = Omit<BulkProblem, 'sentence'> & { message: string };
type SaidSheet = Omit<BulkSheet, 'problems' | 'warnings'> & { problems: Said[]; warnings: Said[] };

function said(sheet: BulkSheet): SaidSheet {
  const english = ({ sentence, ...rest }: BulkProblem): Said => ({ ...rest, message: inEnglish(sentence) });
  return { ...sheet, problems: sheet.problems.map(english), warnings: sheet.warnings.map(english) };
}

function readBytes(data: Uint8Array, cols: BulkColumn[], maxRows: number): SaidSheet {
  return said(readBulkCsv(data, cols, { maxRows }));
}

function read(text: string, maxRows = 5000, cols = columns): SaidSheet {
  return readBytes(new TextEncoder().encode(text), cols, maxRows);
}

/** A file of the default columns: the header, then `lines` (each a row, or '' for an empty one). */
function file(...lines: string[]): string {
  return `${[header, ...lines].join('\n')}\n`;
}

/** A good row with one cell replaced (by its column's index in `columns`). */
function rowWith(index: number, cell: string): string {
  const cells = parse(good)[0] ?? [];
  cells[index] = cell;
  return cells.map((c) => (/[",\n]/.test(c) ? `"${c.replaceAll('"', '""')}"` : c)).join(',');
}

const messages = (sheet: SaidSheet) => sheet.problems.map((problem) => problem.message);

test('a comma-separated file gives each row its values, as they will be sent', () => {
  const sheet = read(file(good, 'Bob@Example.com , Bob Jones ,boss@acme.test,Acme Ltd,300 EUR,14/03/2026,'));
  assert.deepEqual(sheet.problems, []);
  assert.equal(sheet.delimiter, ',');
  assert.equal(sheet.totalRows, 2);
  assert.deepEqual(sheet.ignoredColumns, []);
  assert.deepEqual(sheet.rows, [
    {
      row: 2,
      values: {
        'role:client:email': 'ann@example.com',
        'role:client:name': 'Ann Smith',
        'role:company:email': 'office@acme.test',
        'role:company:name': 'Acme Ltd',
        'field:price': '1,200 EUR',
        'field:start': '2026-03-14',
        'field:insured': true,
      },
    },
    {
      row: 3,
      values: {
        'role:client:email': 'Bob@Example.com',
        'role:client:name': 'Bob Jones',
        'role:company:email': 'boss@acme.test',
        'role:company:name': 'Acme Ltd',
        'field:price': '300 EUR',
        'field:start': '2026-03-14',
        'field:insured': false,
      },
    },
  ]);
});

test('a file as European Excel saves it (BOM, semicolons, CRLF) reads the same as a comma file', () => {
  const semicolons = [
    header.replaceAll(',', ';'),
    'ann@example.com;Ann Smith;office@acme.test;Acme Ltd;1,200 EUR;14.03.2026;x',
  ]
    .join('\r\n')
    .concat('\r\n');
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(semicolons)]);
  const sheet = readBytes(bytes, columns, 10);
  assert.deepEqual(sheet.problems, []);
  assert.equal(sheet.delimiter, ';');
  assert.deepEqual(sheet.rows, read(file(good)).rows);
});

test('the delimiter is the one that splits the header into the expected columns, whichever the cells hold', () => {
  // Every row holds more commas than semicolons; the header decides.
  const semicolons = `${header.replaceAll(',', ';')}\nann@example.com;Smith, Ann;office@acme.test;Acme, Ltd;1,200,00 EUR;;\n`;
  const sheet = read(semicolons);
  assert.equal(sheet.delimiter, ';');
  assert.equal(sheet.rows[0]?.values['role:client:name'], 'Smith, Ann');
  // A quoted header cell holding a semicolon does not make the file a semicolon one.
  const commas = read(
    `"Client email",Client name,"Notes; internal"\nann@example.com,Ann Smith,a;b\n`,
    10,
    columns.slice(0, 2),
  );
  assert.equal(commas.delimiter, ',');
  assert.deepEqual(commas.ignoredColumns, ['Notes; internal']);
});

test('on a tie between comma and semicolon, comma is the delimiter', () => {
  const single = [columns[0] as BulkColumn];
  const sheet = read('Client email\nann@example.com\n', 10, single);
  assert.equal(sheet.delimiter, ',');
  assert.deepEqual(sheet.rows, [{ row: 2, values: { 'role:client:email': 'ann@example.com' } }]);
  // Neither splits a header of unknown columns: comma, and every column is missing.
  const unknown = read('Email;Name\nann@example.com;Ann\n');
  assert.equal(unknown.delimiter, ',');
  assert.equal(unknown.problems.length, 5);
});

test('quoted cells keep their delimiters, quotes and line breaks, and the rows below keep their numbers', () => {
  const multiLine = rowWith(1, 'Ann "the boss"\nSmith, Jr.');
  const sheet = read(file(multiLine, '', rowWith(0, 'bob@'), good));
  assert.equal(sheet.rows[0]?.row, 2);
  assert.equal(sheet.rows[0]?.values['role:client:name'], 'Ann "the boss"\nSmith, Jr.');
  // Row 2 spans two lines of the file and row 3 is empty: the bad row is the spreadsheet's row 4.
  assert.deepEqual(sheet.problems, [
    { row: 4, column: 'Client email', message: 'Row 4: Client email “bob@” is not an email address.' },
  ]);
  assert.equal(sheet.rows[1]?.row, 5);
  assert.equal(sheet.totalRows, 3);
});

test('a stray quote inside an unquoted cell is kept as typed', () => {
  const sheet = read(file(rowWith(4, 'x').replace(',x,', ',12" pipe,')));
  assert.deepEqual(sheet.problems, []);
  assert.equal(sheet.rows[0]?.values['field:price'], '12" pipe');
});

test('a quote that is never closed is one problem at its row, and no row is read', () => {
  const plain = rowWith(4, '1200 EUR');
  const sheet = read(file(plain, plain, 'ann@example.com,"Ann Smith,office@acme.test,Acme Ltd,1,,', plain));
  assert.deepEqual(sheet.rows, []);
  assert.equal(sheet.problems.length, 1);
  assert.equal(sheet.problems[0]?.row, 4);
  assert.match(sheet.problems[0]?.message ?? '', /^Row 4: a cell starts with a quote .* never closed/);
});

test('a file saved by old Excel in Windows-1252 is one problem asking for CSV UTF-8, not a crash', () => {
  // "José" with é as the single byte 0xE9, as Windows-1252 writes it.
  const latin1 = Uint8Array.from(Buffer.from(file(rowWith(1, 'José Martín')), 'latin1'));
  assert.equal(latin1.includes(0xe9), true);
  const sheet = readBytes(latin1, columns, 10);
  assert.deepEqual(sheet.rows, []);
  assert.equal(sheet.totalRows, 0);
  assert.equal(sheet.problems.length, 1);
  assert.equal(sheet.problems[0]?.row, null);
  assert.match(sheet.problems[0]?.message ?? '', /not saved as UTF-8.*“CSV UTF-8”/);
  // Excel's "Unicode text" (UTF-16 with its BOM) is refused the same way.
  const utf16 = Uint8Array.from(Buffer.from(`\ufeff${file(good)}`, 'utf16le'));
  assert.match(messages(readBytes(utf16, columns, 10))[0] ?? '', /not saved as UTF-8/);
  // The same name in UTF-8 is read.
  assert.equal(read(file(rowWith(1, 'José Martín'))).rows[0]?.values['role:client:name'], 'José Martín');
});

test('headers match ignoring case and spaces, in any order; problems name them as the sender wrote them', () => {
  const text =
    ' client EMAIL ,Client  name,Company email,COMPANY NAME,price,Insured\nbob@,Ann,office@acme.test,Acme,1,\n';
  const sheet = read(text);
  assert.deepEqual(sheet.problems, [
    { row: 2, column: 'client EMAIL', message: 'Row 2: client EMAIL “bob@” is not an email address.' },
  ]);
});

test('each missing required column is a problem of row 1 naming it; a missing optional column is empty', () => {
  const sheet = read('Client name,Price,Company name\nAnn,1,Acme\n');
  assert.deepEqual(sheet.problems, [
    {
      row: 1,
      column: 'Client email',
      message: 'The column “Client email” is missing. Add it to the first row.',
    },
    {
      row: 1,
      column: 'Company email',
      message: 'The column “Company email” is missing. Add it to the first row.',
    },
  ]);
  assert.deepEqual(sheet.rows, [], 'no row is checked while the header is wrong');
  assert.equal(sheet.totalRows, 1);
  const optional = read(
    'Client email,Client name,Company email,Company name,Price\nann@a.test,Ann,b@b.test,B,1\n',
  );
  assert.deepEqual(optional.problems, []);
  assert.equal(optional.rows[0]?.values['field:start'], '');
  assert.equal(optional.rows[0]?.values['field:insured'], false);
});

test('unknown columns are ignored and listed; a column given twice is a problem', () => {
  const extra = read(`Notes,${header},Internal id,\nhello,${good},42,\n`);
  assert.deepEqual(extra.problems, []);
  assert.deepEqual(extra.ignoredColumns, ['Notes', 'Internal id']);
  assert.equal(extra.rows[0]?.values['role:client:email'], 'ann@example.com');
  assert.equal(Object.values(extra.rows[0]?.values ?? {}).includes('hello'), false);
  const twice = read(`${header},PRICE\n${good},2\n`);
  assert.deepEqual(twice.problems, [
    {
      row: 1,
      column: 'PRICE',
      message: 'The column “PRICE” appears twice in the first row: keep one of them.',
    },
  ]);
  assert.deepEqual(twice.rows, []);
});

test('empty rows are skipped and not counted, and the rows keep their spreadsheet numbers', () => {
  // Excel writes a row of empty cells for a blank row that was once formatted.
  const sheet = read(file('', good, ',,,,,,', '   ', good, ''));
  assert.deepEqual(sheet.problems, []);
  assert.deepEqual(
    sheet.rows.map((row) => row.row),
    [3, 6],
  );
  assert.equal(sheet.totalRows, 2);
});

test('an empty file and a file of only a header are each one problem', () => {
  assert.match(messages(read(''))[0] ?? '', /^The file is empty/);
  assert.match(messages(read('\ufeff\n\n'))[0] ?? '', /^The file is empty/);
  const headerOnly = read(file());
  assert.equal(headerOnly.totalRows, 0);
  assert.deepEqual(messages(headerOnly), [
    'The file has a first row of column names but no rows below it: add a row per document.',
  ]);
});

test('an email cell must be an email address, as a recipient’s', () => {
  const cases: Array<[string, string]> = [
    ['bob@', 'Row 2: Client email “bob@” is not an email address.'],
    ['bob@example.com.', 'Row 2: Client email “bob@example.com.” ends with a dot: remove it.'],
    // A Cyrillic "а" among Latin letters.
    ['p\u0430ypal@example.com', 'Row 2: Client email “p\u0430ypal@example.com” mixes letters'],
    ['', 'Row 2: Client email is empty. Fill it in, or delete the row.'],
  ];
  for (const [cell, message] of cases) {
    const sheet = read(file(rowWith(0, cell)));
    assert.deepEqual(sheet.rows, [], cell);
    assert.equal(sheet.problems.length, 1, cell);
    assert.equal(sheet.problems[0]?.column, 'Client email');
    assert.ok(sheet.problems[0]?.message.startsWith(message), `${cell}: ${sheet.problems[0]?.message}`);
  }
});

test('a name is 1 to 200 characters the signed PDF can draw', () => {
  assert.equal(read(file(rowWith(1, 'a'.repeat(200)))).rows.length, 1);
  assert.deepEqual(messages(read(file(rowWith(1, 'a'.repeat(201))))), [
    'Row 2: Client name is longer than 200 characters.',
  ]);
  assert.deepEqual(
    messages(read(file(rowWith(3, 'Acme \u1c5a'))))[0],
    [
      'Row 2: Company name has a character that the signed PDF cannot show: “\u1c5a” (U+1C5A). Please write it without it.',
    ][0],
  );
  assert.deepEqual(messages(read(file(rowWith(1, ' ')))), [
    'Row 2: Client name is empty. Fill it in, or delete the row.',
  ]);
});

test('a text is at most its maxLength (500 by default) and drawable', () => {
  assert.equal(read(file(rowWith(4, 'é'.repeat(20)))).rows.length, 1);
  assert.deepEqual(messages(read(file(rowWith(4, 'x'.repeat(21))))), [
    'Row 2: Price has 21 characters; it takes at most 20.',
  ]);
  const notes: BulkColumn[] = [{ key: 'field:notes', header: 'Notes', kind: 'text', required: false }];
  assert.equal(read(`Notes\n${'n'.repeat(500)}\n`, 10, notes).rows.length, 1);
  assert.deepEqual(messages(read(`Notes\n${'n'.repeat(501)}\n`, 10, notes)), [
    'Row 2: Notes has 501 characters; it takes at most 500.',
  ]);
  assert.match(
    messages(read(`Notes\nok \u1c5a\n`, 10, notes))[0] ?? '',
    /^Row 2: Notes has a character that the signed PDF/,
  );
});

test('a date is YYYY-MM-DD, DD/MM/YYYY or DD.MM.YYYY, a real day, sent as YYYY-MM-DD', () => {
  const accepted: Array<[string, string]> = [
    ['2026-03-14', '2026-03-14'],
    ['2026-3-4', '2026-03-04'],
    ['14/03/2026', '2026-03-14'],
    ['4/3/2026', '2026-03-04'],
    ['14.03.2026', '2026-03-14'],
    ['29/02/2024', '2024-02-29'],
    ['31.12.1999', '1999-12-31'],
  ];
  for (const [cell, date] of accepted) {
    assert.equal(read(file(rowWith(5, cell))).rows[0]?.values['field:start'], date, cell);
  }
  // 03/14/2026 is American (month first): not read, since 03/04/2026 would be read wrong.
  const refused = [
    '2026-02-30',
    '29/02/2025',
    '03/14/2026',
    '14/03/26',
    '14-03-2026',
    '2026/03/14',
    '14/03.2026',
    'soon',
  ];
  for (const cell of refused) {
    assert.deepEqual(
      messages(read(file(rowWith(5, cell)))),
      [`Row 2: Start date “${cell}” is not a date. Write it as 2026-03-14, 14/03/2026 or 14.03.2026.`],
      cell,
    );
  }
});

test('a checkbox is yes/no, true/false, 1/0 or x/empty, in any case, sent as a boolean', () => {
  const words: Array<[string, boolean]> = [
    ['yes', true],
    ['YES', true],
    ['True', true],
    ['1', true],
    ['x', true],
    ['X', true],
    ['no', false],
    ['FALSE', false],
    ['0', false],
    ['', false],
  ];
  for (const [cell, ticked] of words) {
    assert.equal(read(file(rowWith(6, cell))).rows[0]?.values['field:insured'], ticked, cell);
  }
  assert.deepEqual(messages(read(file(rowWith(6, 'maybe')))), [
    'Row 2: Insured “maybe” is not yes or no. Write yes, no, true, false, 1, 0 or x, or leave it empty for no.',
  ]);
});

test('a required checkbox must be ticked, as a signer’s must', () => {
  const consent: BulkColumn[] = [
    { key: 'field:consent', header: 'Consent', kind: 'checkbox', required: true },
  ];
  assert.deepEqual(read('Consent\nyes\n', 10, consent).rows[0]?.values, { 'field:consent': true });
  for (const cell of ['no', '']) {
    // An empty row is skipped, so the empty cell sits beside another column.
    const sheet = read(`Consent,Other\n${cell},z\n`, 10, consent);
    assert.deepEqual(messages(sheet), ['Row 2: Consent must be ticked: write yes or x.'], cell);
  }
});

test('a required cell left empty is a problem; an optional one is sent empty', () => {
  assert.deepEqual(messages(read(file(rowWith(4, '')))), [
    'Row 2: Price is empty. Fill it in, or delete the row.',
  ]);
  assert.equal(read(file(rowWith(5, ''))).rows[0]?.values['field:start'], '');
});

test('the same signer twice in a row is a problem; the same signer on two rows is not', () => {
  const twice = read(file(rowWith(2, 'ANN@example.com')));
  assert.deepEqual(twice.problems, [
    {
      row: 2,
      column: 'Company email',
      message:
        'Row 2: Company email “ANN@example.com” is also the Client email: each role needs a different person.',
    },
  ]);
  const twoRows = read(file(good, good));
  assert.deepEqual(twoRows.problems, []);
  assert.equal(twoRows.rows.length, 2);
});

test('a row with problems is left out of the rows and lists every problem it has', () => {
  const bad = 'bob@,Ann,office@acme.test,Acme,,2026-13-01,maybe';
  const sheet = read(file(good, bad, good));
  assert.deepEqual(
    sheet.rows.map((row) => row.row),
    [2, 4],
  );
  assert.deepEqual(
    sheet.problems.map((problem) => [problem.row, problem.column]),
    [
      [3, 'Client email'],
      [3, 'Price'],
      [3, 'Start date'],
      [3, 'Insured'],
    ],
  );
  assert.equal(sheet.totalRows, 3);
});

test('a row with more cells than the header has columns is a problem (an unquoted delimiter)', () => {
  const sheet = read(file('ann@example.com,Smith, Ann,office@acme.test,Acme Ltd,1,2026-03-14,yes'));
  assert.deepEqual(sheet.rows, []);
  assert.ok(
    messages(sheet).includes(
      'Row 2 has more cells than the first row has columns. A cell that holds a comma must be in quotes; a spreadsheet does that when it saves the file.',
    ),
    messages(sheet).join('\n'),
  );
  // Empty cells past the header (trailing delimiters) are no problem.
  assert.equal(read(file(`${good},,`)).rows.length, 1);
});

test('more rows than the limit is one problem with both counts; the rows up to the limit are still read', () => {
  const sheet = read(file(good, good, good, '', good, rowWith(0, 'bob@'), good), 3);
  assert.equal(sheet.totalRows, 6);
  assert.deepEqual(
    sheet.rows.map((row) => row.row),
    [2, 3, 4],
  );
  // The bad row 7 is past the limit: not checked, so not reported.
  assert.deepEqual(sheet.problems, [
    {
      row: null,
      column: null,
      message:
        'The file has 6 rows; at most 3 can be sent at once. Split it into files of at most 3 rows (only the first 3 are checked here).',
    },
  ]);
  assert.equal(read(file(good, good, good), 3).problems.length, 0, 'exactly the limit is allowed');
  assert.match(
    messages(read(file(...Array(5001).fill(good))))[0] ?? '',
    /^The file has 5,001 rows; at most 5,000/,
  );
});

test('a cell that looks like a formula is read as typed', () => {
  const cells = ['=HYPERLINK("http://x.test")', '+33 6 12 34 56 78', '-5%', '@home'];
  for (const cell of cells) {
    assert.equal(read(file(rowWith(4, cell.slice(0, 20)))).rows[0]?.values['field:price'], cell.slice(0, 20));
  }
  assert.equal(read(file(rowWith(1, '=Ann'))).rows[0]?.values['role:client:name'], '=Ann');
});

test('the template to download is the header and a valid example row, which reads back without a problem', () => {
  const template = bulkCsvTemplate(columns);
  assert.ok(template.startsWith('\ufeff'), 'a BOM, so Excel reads it as UTF-8');
  const lines = template.slice(1).split('\r\n');
  assert.equal(lines[0], header);
  assert.equal(lines.length, 3, 'header, example, and the final line break');
  const sheet = read(template);
  assert.deepEqual(sheet.problems, []);
  assert.equal(sheet.rows.length, 1);
  assert.notEqual(sheet.rows[0]?.values['role:client:email'], sheet.rows[0]?.values['role:company:email']);
  const quoted = bulkCsvTemplate([
    { key: 'field:a', header: 'Société, "Prix"', kind: 'text', required: true },
  ]);
  assert.equal(quoted.split('\r\n')[0], '\ufeff"Société, ""Prix"""');
  assert.equal(
    read(quoted, 10, [{ key: 'field:a', header: 'Société, "Prix"', kind: 'text', required: true }]).rows
      .length,
    1,
  );
});

test('the results file lists each row and makes every would-be formula plain text', () => {
  const csv = bulkResultsCsv([
    { row: 2, documentId: '0195936a-2b4c-7d8e-9f01-23456789abcd', status: 'sent', delivery: 'email' },
    { row: 3, documentId: null, status: '=cmd|"/c calc"!A1', delivery: '+mail, later' },
    { row: 4, documentId: null, status: '-failed', delivery: '@none' },
    { row: 5, documentId: null, status: '\tfailed', delivery: 'none' },
  ]);
  assert.deepEqual(parse(csv), [
    ['row', 'document id', 'status', 'signing-link delivery'],
    ['2', '0195936a-2b4c-7d8e-9f01-23456789abcd', 'sent', 'email'],
    ['3', '', `'=cmd|"/c calc"!A1`, `'+mail, later`],
    ['4', '', `'-failed`, `'@none`],
    ['5', '', `'\tfailed`, 'none'],
  ]);
  assert.ok(csv.startsWith('row,document id,status,signing-link delivery\r\n'));
});

// Issue 49: the reading's bounds, control characters, a person on two rows.

test('a file of empty records past the record limit is refused with a sentence, not read to its end', () => {
  // recordLimit(3) = 1,003 records: the header, a good row, then empty records.
  const sheet = read(`${header}\r\n${good}\r\n${',\r\n'.repeat(2_000)}`, 3);
  assert.deepEqual(sheet.rows, []);
  assert.deepEqual(messages(sheet), [
    'This file is too large or complex to read: it has more than 1,003 rows, most of them empty. Delete the empty rows below your data (or save only the cells you filled), then upload it again.',
  ]);
  // Just under the limit, the same file is read: its one row.
  assert.equal(read(`${header}\r\n${good}\r\n${',\r\n'.repeat(1_001)}`, 3).rows.length, 1);
});

test('rows past the limit are counted up to the record limit, then the count is the least the file has', () => {
  const sheet = read(file(...Array(1_100).fill(good)), 3);
  assert.equal(sheet.rows.length, 3, 'the first rows are still checked');
  assert.deepEqual(messages(sheet), [
    'The file has at least 1,002 rows; at most 3 can be sent at once. Split it into files of at most 3 rows (only the first 3 are checked here).',
  ]);
});

test('a record of more than 1,000 cells, or of more than 100,000 characters, is refused with its row', () => {
  const wide = read(`${header}\r\n${good}\r\n${','.repeat(5_000_000)}\r\n`);
  assert.deepEqual(wide.rows, []);
  assert.deepEqual(messages(wide), [
    'This file is too large or complex to read: row 3 has more than 1,000 cells. Keep only the columns listed on this page, save the file again from your spreadsheet and upload it.',
  ]);
  const long = read(file(good, rowWith(4, 'x'.repeat(200_000))));
  assert.deepEqual(long.rows, []);
  assert.match(
    messages(long)[0] ?? '',
    /^This file is too large or complex to read: row 3 holds more than 100,000 characters\. Often a cell there starts with a quote/,
  );
  // A header of 1,001 columns is the same refusal, at row 1.
  assert.match(
    messages(read(`${header}${',x'.repeat(1_000)}\n${good}\n`))[0] ?? '',
    /row 1 has more than 1,000 cells/,
  );
});

test('a header that matches no column is refused before the rows are read', () => {
  // The body would be a problem of its own (a quote never closed): it is never reached.
  const sheet = read('Email,Name\nann@example.com,"Ann\n');
  assert.equal(sheet.totalRows, 0);
  assert.deepEqual(sheet.rows, []);
  assert.deepEqual(
    sheet.problems.map((problem) => problem.row),
    [1, 1, 1, 1, 1],
  );
  assert.ok(messages(sheet).every((message) => / is missing\. Add it to the first row\.$/.test(message)));
  assert.deepEqual(sheet.ignoredColumns, ['Email', 'Name']);
});

test('a control character in a cell is a problem of its row that names it and never repeats the cell', () => {
  const cases: Array<[number, string, string]> = [
    [0, 'ann\u0000@example.com', 'U+0000'],
    [1, 'Ann\u001bSmith', 'U+001B'],
    [4, '12\u0085 EUR', 'U+0085'],
    [4, '12\u007f EUR', 'U+007F'],
    [6, 'yes\u0000', 'U+0000'],
  ];
  for (const [index, cell, code] of cases) {
    const sheet = read(file(good, rowWith(index, cell)));
    assert.deepEqual(
      sheet.rows.map((row) => row.row),
      [2],
      code,
    );
    assert.equal(sheet.problems.length, 1, code);
    const message = sheet.problems[0]?.message ?? '';
    assert.ok(
      message.startsWith(
        `Row 3: ${(columns[index] as BulkColumn).header} holds a control character (${code})`,
      ),
      message,
    );
    assert.ok(
      !/\p{Cc}/u.test(message),
      `the sentence holds no control character: ${JSON.stringify(message)}`,
    );
  }
  // Tabs and line breaks inside a quoted cell are a cell's own: not control characters here.
  const notes: BulkColumn[] = [{ key: 'field:notes', header: 'Notes', kind: 'text', required: false }];
  assert.deepEqual(messages(read('Notes\n"one\ttwo\r\nthree"\n', 10, notes)), []);
});

test('a role’s person on an earlier row too is a warning naming the rows; the rows are still sent', () => {
  const company = (n: number) => rowWith(2, `office${n}@acme.test`);
  const sheet = read(
    file(
      good,
      rowWith(0, 'bob@example.com').replace('office@acme.test', 'o2@acme.test'),
      rowWith(0, ' ANN@Example.com ').replace('office@acme.test', 'o3@acme.test'),
    ),
  );
  assert.deepEqual(sheet.problems, []);
  assert.equal(sheet.rows.length, 3, 'a warning leaves the row to be sent');
  assert.deepEqual(sheet.warnings, [
    {
      row: 4,
      column: 'Client email',
      message:
        'Row 4: Client email “ann@example.com” is also on row 2, so that person gets 2 documents, one for each of these rows. If that is a mistake, delete the row too many.',
    },
  ]);
  // The same company on every row: one warning for the company's person, the first rows named.
  const many = read(
    file(
      ...Array(9)
        .fill(good)
        .map((row, i) => row.replace('ann@', `p${i}@`)),
    ),
  );
  assert.deepEqual(
    many.warnings.map((w) => [w.row, w.message]),
    [
      [
        3,
        'Rows 3, 4, 5, 6, 7 and 3 more: Company email “office@acme.test” is also on row 2, so that person gets 9 documents, one for each of these rows. If that is a mistake, delete the rows too many.',
      ],
    ],
  );
  assert.match(read(file(good, good, good)).warnings[0]?.message ?? '', /^Rows 3 and 4: Client email /);
  // Another role's address on another row is no repeat; nor is a row that is not sent.
  assert.deepEqual(
    read(file(company(1), rowWith(0, 'office1@acme.test').replace('office@', 'x@'))).warnings,
    [],
  );
  assert.deepEqual(read(file(rowWith(4, ''), good)).warnings, []);
});
