// The spreadsheet of a bulk send (issue 38): `readBulkCsv` reads the CSV a sender uploads
// for a template (a column per role's email and name, a column per sender-filled field) and
// says, row by row, what would be sent and what is wrong; `bulkCsvTemplate` is the file a
// sender downloads to fill; `bulkResultsCsv` is the results file of a finished send.
// Pure: bytes in, rows and sentences out (keys of the catalogues, `bulk.problem.*`: the preview
// says them in the sender's language, the stored results in English). csv-parse reads the CSV; the rules of each cell are
// the ones a single document's input follows (mail/address.ts, pdf/fonts.ts, field-types.ts),
// so a row accepted here is not refused when its document is made. The server calls it
// through bulk-csv-thread.ts, off the thread that answers requests.
//
// Row numbers are the spreadsheet's: the header is row 1 and every record of the file is one
// row, an empty one included, so a cell holding a line break (one record over two lines of
// the file) does not shift the rows below it. Records are counted, not the parser's lines.
//
// Its work is bounded whatever the file (issue 49): the header is read alone first, and a
// header that matches no column ends the reading there; records are counted as they come and
// only the matched cells of the first `maxRows` data rows are kept; the parser stops at
// `recordLimit` records (empty ones included), at MAX_CELLS cells in a record and at
// MAX_RECORD_CHARS characters in one, each with its sentence.

import { isUtf8 } from 'node:buffer';
import { CsvError, parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { maxTextLength } from '../fields/field-types.ts';
import { endonym, languages, parseLanguage } from '../i18n/languages.ts';
import type { KeyedSentence, MessageKey } from '../i18n/messages.ts';
import { emailAddressProblem, emailKey, normalizeEmail } from '../mail/address.ts';
import { drawableText, undrawableValues } from '../pdf/fonts.ts';

export type BulkColumnKind = 'email' | 'name' | 'language' | 'text' | 'date' | 'checkbox';

/** A column the sender's file must (or may) have. */
export interface BulkColumn {
  /** The caller's stable id of the column, e.g. 'role:<roleId>:email' or 'field:<fieldId>'. */
  key: string;
  /** The header the file must have, e.g. 'Client email'; matched ignoring case and spaces around it. */
  header: string;
  kind: BulkColumnKind;
  /** An empty cell is a problem (a required checkbox must be ticked, as a signer's must). */
  required: boolean;
  /** For text: the most characters a cell may hold (maxTextLength when not given). */
  maxLength?: number;
}

/** A row without a problem: its values by column key (a checkbox's as a boolean, a date as YYYY-MM-DD). */
export interface BulkRow {
  /** Its spreadsheet row number (the header is row 1). */
  row: number;
  values: Record<string, string | boolean>;
}

export interface BulkProblem {
  /** The spreadsheet row number, or null for the file as a whole. */
  row: number | null;
  /** The column's header as the sender wrote it (as expected when it is missing), or null. */
  column: string | null;
  /** The whole sentence, row and column included, for the sender to read (i18n/refusals.ts `say`). */
  sentence: KeyedSentence;
}

export type BulkDelimiter = ',' | ';';

export interface BulkSheet {
  /** The rows that can be sent, in file order (at most `maxRows`). */
  rows: BulkRow[];
  /** Every problem: the file's first (row null), then the header's, then each row's in order. */
  problems: BulkProblem[];
  /**
   * What a sender should look at but may mean (rows still sent): a role's person on an
   * earlier row too (they get a document for each), in row order.
   */
  warnings: BulkProblem[];
  delimiter: BulkDelimiter;
  /** The file's data rows, empty rows not counted (beyond `maxRows` too, up to `recordLimit`). */
  totalRows: number;
  /** Headers of the file that match no column: their cells are not read. */
  ignoredColumns: string[];
}

const delimiters: readonly BulkDelimiter[] = [',', ';'];
const maxNameLength = 200;
/** Cells in one record: a template's columns and a spreadsheet's own many times over. */
export const MAX_CELLS = 1_000;
/** Characters in one record: every cell of a row at its longest, and room for columns not read. */
export const MAX_RECORD_CHARS = 100_000;
/**
 * Records read at most (the header and empty rows included): past `maxRows` data rows they
 * are only counted, for the sentence that gives their number; past this the reading stops.
 */
export function recordLimit(maxRows: number): number {
  return maxRows + 1_000;
}

/**
 * Reads a bulk send's CSV: UTF-8 with or without BOM, CRLF or LF, comma or semicolon (the
 * one that splits the header into more of the expected columns; comma on a tie). At most
 * `maxRows` data rows are checked; a longer file is one problem, its first rows still read.
 * A file with a problem in its header has no rows checked (every row would repeat it).
 */
export function readBulkCsv(
  data: Uint8Array,
  columns: BulkColumn[],
  options: { maxRows: number },
): BulkSheet {
  // Old Excel saves in Windows-1252: its é is not UTF-8, and read as UTF-8 it would be lost.
  if (!isUtf8(data)) return unreadable(',', fileProblem('bulk.problem.notUtf8'));
  let delimiter: BulkDelimiter = ',';
  try {
    delimiter = detectDelimiter(data, columns);
    const [header] = parseRecords(data, delimiter, { to: 1 });
    if (!header || isBlank(header)) {
      return unreadable(delimiter, fileProblem('bulk.problem.empty'));
    }
    const layout = matchHeader(header, columns);
    // A file of other columns altogether (another template's, another program's): its body
    // would only repeat that, so it is not read.
    if (layout.problems.length > 0 && layout.cells.every((cell) => cell.index === null)) {
      return { ...unreadable(delimiter, ...layout.problems), ignoredColumns: layout.ignoredColumns };
    }
    const body = readBody(data, delimiter, layout, options.maxRows);
    if ('problem' in body) return unreadable(delimiter, body.problem);
    const sheet: BulkSheet = {
      rows: [],
      problems: fileProblems(body.totalRows, options.maxRows, body.isComplete),
      warnings: [],
      delimiter,
      totalRows: body.totalRows,
      ignoredColumns: layout.ignoredColumns,
    };
    sheet.problems.push(...layout.problems);
    if (layout.problems.length > 0) return sheet;
    for (const entry of body.kept) {
      const checked = checkRow(entry, layout, delimiter);
      if ('values' in checked) sheet.rows.push({ row: entry.row, values: checked.values });
      else sheet.problems.push(...checked.problems);
    }
    sheet.warnings = repeatedPeople(sheet.rows, layout);
    return sheet;
  } catch (error) {
    if (error instanceof CsvError) return unreadable(delimiter, parseErrorProblem(error));
    if (error instanceof TooComplex) return unreadable(delimiter, error.problem);
    throw error;
  }
}

/** A problem of the file as a whole. */
function fileProblem(key: MessageKey, values?: KeyedSentence['values']): BulkProblem {
  return { row: null, column: null, sentence: values ? { key, values } : { key } };
}

function unreadable(delimiter: BulkDelimiter, ...problems: BulkProblem[]): BulkSheet {
  return { rows: [], problems, warnings: [], delimiter, totalRows: 0, ignoredColumns: [] };
}

/** The file refused whole when reading it took more time or memory than allowed (bulk-csv-thread.ts). */
export function tooComplexSheet(maxRows: number): BulkSheet {
  return unreadable(',', fileProblem('bulk.problem.tooComplex', { max: maxRows }));
}

/** A bound of the reading was reached: the file is refused with this problem. */
class TooComplex extends Error {
  readonly problem: BulkProblem;
  constructor(problem: BulkProblem) {
    super(problem.sentence.key);
    this.problem = problem;
  }
}

/** What a cast and a record of csv-parse are told about where the parser is. */
interface ParseInfo {
  index: number;
  records: number;
}

/**
 * Every record of UTF-8 bytes (a BOM skipped) as the spreadsheet's rows: empty lines kept
 * (as rows to skip, so the numbers stay right), rows shorter or longer than the header kept
 * as they are, and a quote inside an unquoted cell (`12" pipe`) kept as typed. A quote that
 * is never closed still throws (CsvError), and so does a record over MAX_RECORD_CHARS; a
 * record of more than MAX_CELLS cells throws TooComplex as soon as its cell past them is read.
 */
function parseRecords(
  data: Uint8Array,
  delimiter: BulkDelimiter,
  options: { to?: number; on_record?: (record: string[], info: ParseInfo) => null } = {},
): string[][] {
  // csv-parse builds a CsvError (a stack, a copy of the record) for every record whose cell
  // count differs from the first record's, even when told to accept them: 11,000 empty
  // records took a second, most of it in those stacks. Without them, a third of it.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return parseWithBounds(data, delimiter, options);
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

function parseWithBounds(
  data: Uint8Array,
  delimiter: BulkDelimiter,
  options: { to?: number; on_record?: (record: string[], info: ParseInfo) => null },
): string[][] {
  return parse(data, {
    bom: true,
    delimiter,
    relax_column_count: true,
    relax_quotes: true,
    max_record_size: MAX_RECORD_CHARS,
    cast: (value: string, info: ParseInfo) => {
      if (info.index >= MAX_CELLS) {
        throw new TooComplex(
          fileProblem('bulk.problem.tooManyCells', { row: info.records + 1, max: MAX_CELLS }),
        );
      }
      return value;
    },
    ...options,
  });
}

/** A data row kept for checking: its cells in the layout's order, and whether it has cells past the header's. */
interface KeptRow {
  row: number;
  cells: string[];
  hasExtraCells: boolean;
}

type Body = { kept: KeptRow[]; totalRows: number; isComplete: boolean } | { problem: BulkProblem };

/**
 * The rows below the header, counted as they come: the first `maxRows` data rows kept (their
 * matched cells only), later ones counted, and the reading stopped at recordLimit records.
 */
function readBody(data: Uint8Array, delimiter: BulkDelimiter, layout: Layout, maxRows: number): Body {
  const kept: KeptRow[] = [];
  const limit = recordLimit(maxRows);
  let records = 0;
  let totalRows = 0;
  const stop = new Error('record limit');
  try {
    parseRecords(data, delimiter, {
      on_record: (record) => {
        records += 1;
        if (records === 1 || isBlank(record)) {
          if (records > limit) throw stop;
          return null;
        }
        if (records > limit) throw stop;
        totalRows += 1;
        if (totalRows <= maxRows) {
          kept.push({
            row: records,
            cells: layout.cells.map(({ index }) => (index === null ? '' : (record[index] ?? ''))),
            hasExtraCells: record.slice(layout.width).some((cell) => cell.trim() !== ''),
          });
        }
        return null;
      },
    });
  } catch (error) {
    if (error !== stop) throw error;
    if (totalRows > maxRows) return { kept, totalRows, isComplete: false };
    return { problem: fileProblem('bulk.problem.tooManyRecords', { limit }) };
  }
  return { kept, totalRows, isComplete: true };
}

/** The delimiter whose header row holds more of the expected headers; comma on a tie. */
function detectDelimiter(data: Uint8Array, columns: BulkColumn[]): BulkDelimiter {
  const expected = new Set(columns.map((column) => headerKey(column.header)));
  const score = (delimiter: BulkDelimiter) => {
    try {
      const [header = []] = parseRecords(data, delimiter, { to: 1 });
      return new Set(header.map(headerKey).filter((key) => expected.has(key))).size;
    } catch (error) {
      // A header past the reading's bounds is refused whichever the delimiter.
      if (error instanceof TooComplex) throw error;
      return -1;
    }
  };
  const [comma, semicolon] = delimiters.map(score);
  return (semicolon ?? -1) > (comma ?? -1) ? ';' : ',';
}

function parseErrorProblem(error: CsvError): BulkProblem {
  // `records` counts the records read before the broken one, the header's included.
  const row = typeof error.records === 'number' ? error.records + 1 : null;
  const at: KeyedSentence['values'] = row === null ? { at: 'file' } : { at: 'row', row };
  const key: MessageKey =
    error.code === 'CSV_QUOTE_NOT_CLOSED'
      ? 'bulk.problem.quoteNotClosed'
      : error.code === 'CSV_MAX_RECORD_SIZE'
        ? 'bulk.problem.recordTooLong'
        : 'bulk.problem.unreadable';
  return { row, column: null, sentence: { key, values: { ...at, max: MAX_RECORD_CHARS } } };
}

/** How a header is compared: case, spaces around it and runs of spaces inside it do not count. */
function headerKey(header: string): string {
  return header.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();
}

function isBlank(cells: string[]): boolean {
  return cells.every((cell) => cell.trim() === '');
}

function fileProblems(totalRows: number, maxRows: number, isComplete: boolean): BulkProblem[] {
  if (totalRows === 0) return [fileProblem('bulk.problem.noRows')];
  if (totalRows <= maxRows) return [];
  // Past recordLimit the rows are no longer counted: the number is the least the file has.
  const complete = isComplete ? 'yes' : 'no';
  return [fileProblem('bulk.problem.tooManyRows', { complete, rows: totalRows, max: maxRows })];
}

/**
 * C0 and C1 control characters (Unicode's Cc: DEL among them), but for the tab and line breaks a quoted cell
 * may hold: a NUL cannot be stored in PostgreSQL's text (the whole send failed on it), and
 * none of them is anything a person typed.
 */
const controlCharacter = /(?![\t\n\r])\p{Cc}/u;
const controlCharacters = /\p{Cc}+/gu;

/** A header cell as a sentence names it: trimmed, any control character a space. */
function writtenHeader(cell: string): string {
  return cell.replace(controlCharacters, ' ').trim();
}

/** Where each expected column is in the file, under the header the sender wrote. */
interface Layout {
  cells: Array<{ column: BulkColumn; index: number | null; written: string }>;
  width: number;
  ignoredColumns: string[];
  problems: BulkProblem[];
}

function matchHeader(header: string[], columns: BulkColumn[]): Layout {
  const byKey = new Map(columns.map((column) => [headerKey(column.header), column]));
  const found = new Map<BulkColumn, { index: number; written: string }>();
  const layout: Layout = { cells: [], width: header.length, ignoredColumns: [], problems: [] };
  for (const [index, cell] of header.entries()) {
    const written = writtenHeader(cell);
    const column = byKey.get(headerKey(cell));
    if (!column) {
      if (written) layout.ignoredColumns.push(written);
    } else if (found.has(column)) {
      const sentence = { key: 'bulk.problem.columnTwice', values: { column: written } } as const;
      layout.problems.push({ row: 1, column: written, sentence });
    } else found.set(column, { index, written });
  }
  for (const column of columns) {
    const place = found.get(column);
    if (!place && column.required) {
      const sentence = { key: 'bulk.problem.columnMissing', values: { column: column.header } } as const;
      layout.problems.push({ row: 1, column: column.header, sentence });
    }
    layout.cells.push({ column, index: place?.index ?? null, written: place?.written ?? column.header });
  }
  return layout;
}

type Checked = { values: Record<string, string | boolean> } | { problems: BulkProblem[] };

function checkRow(entry: KeptRow, layout: Layout, delimiter: BulkDelimiter): Checked {
  const { row } = entry;
  const values: Record<string, string | boolean> = {};
  const problems: BulkProblem[] = [];
  for (const [at, { column, written }] of layout.cells.entries()) {
    const where: KeyedSentence = { key: 'bulk.cell', values: { row, column: written } };
    const checked = checkCell(column, entry.cells[at] ?? '', where);
    if (typeof checked === 'object') problems.push({ row, column: written, sentence: checked.problem });
    else values[column.key] = checked;
  }
  problems.push(...sameSignerProblems(row, layout, values));
  if (entry.hasExtraCells) {
    const mark = delimiter === ',' ? 'comma' : 'semicolon';
    problems.push({ row, column: null, sentence: { key: 'bulk.problem.extraCells', values: { row, mark } } });
  }
  return problems.length > 0 ? { problems } : { values };
}

/**
 * A role's person who is that role's on an earlier good row too (compared as accounts are:
 * emailKey): a warning, not a problem. One person countersigning every document (a manager,
 * the company's signatory) is a bulk send's ordinary case; a person listed twice by mistake
 * is caught here before they are mailed twice. One warning per person and role, at the first
 * row that repeats them, naming the rows (the first few of many).
 */
function repeatedPeople(rows: BulkRow[], layout: Layout): BulkProblem[] {
  const emails = layout.cells.filter(({ column }) => column.kind === 'email');
  const seen = new Map<string, { email: string; written: string; rows: number[] }>();
  for (const { row, values } of rows) {
    for (const { column, written } of emails) {
      const email = values[column.key];
      if (typeof email !== 'string' || email === '') continue;
      const key = `${column.key} ${emailKey(email)}`;
      const person = seen.get(key) ?? { email, written, rows: [] };
      person.rows.push(row);
      seen.set(key, person);
    }
  }
  const warnings: BulkProblem[] = [];
  for (const {
    email,
    written,
    rows: [first, ...again],
  } of seen.values()) {
    if (first === undefined || again.length === 0) continue;
    const listed = again.slice(0, 5).map((row): KeyedSentence => ({ key: 'bulk.row', values: { row } }));
    const more = again.length - listed.length;
    if (more > 0) listed.push({ key: 'bulk.moreRows', values: { count: more } });
    const sentence: KeyedSentence = {
      key: 'bulk.warning.repeated',
      values: {
        count: again.length,
        column: written,
        email: shown(email),
        first,
        documents: again.length + 1,
      },
      lists: { rows: listed },
    };
    warnings.push({ row: again[0] ?? first, column: written, sentence });
  }
  return warnings.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
}

/** A person in two roles of one document (compared as accounts are: emailKey), at the second role. */
function sameSignerProblems(
  row: number,
  layout: Layout,
  values: Record<string, string | boolean>,
): BulkProblem[] {
  const problems: BulkProblem[] = [];
  const seen = new Map<string, string>();
  for (const { column, written } of layout.cells) {
    const email = values[column.key];
    if (column.kind !== 'email' || typeof email !== 'string' || email === '') continue;
    const first = seen.get(emailKey(email));
    if (first === undefined) seen.set(emailKey(email), written);
    else {
      const values = { row, column: written, email: shown(email), first };
      problems.push({ row, column: written, sentence: { key: 'bulk.problem.samePerson', values } });
    }
  }
  return problems;
}

/** A value in a sentence: at most 40 characters of it. */
function shown(value: string): string {
  const chars = [...value];
  return chars.length > 40 ? `${chars.slice(0, 39).join('')}…` : value;
}

/** What is wrong with a cell: `where` ("Row 3: Price", bulk.cell) said first. */
type CellProblem = { problem: KeyedSentence };

function cellProblem(
  where: KeyedSentence,
  key: MessageKey,
  values: KeyedSentence['values'] = {},
): CellProblem {
  return { problem: { key, values, parts: { where } } };
}

/** The cell's value as it will be sent, or the sentence saying what is wrong (`where`: "Row 3: Price"). */
function checkCell(column: BulkColumn, raw: string, where: KeyedSentence): string | boolean | CellProblem {
  // First, and without the cell in the sentence: the character must not reach a sentence either.
  const control = controlCharacter.exec(raw)?.[0];
  if (control !== undefined) {
    const code = `U+${control.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}`;
    return cellProblem(where, 'bulk.problem.control', { code });
  }
  // (A lone surrogate, the other text no field may hold (http/control-characters.ts), cannot
  // come out of the UTF-8 the file must be.)
  const cell = raw.trim();
  if (column.kind === 'checkbox') return checkCheckbox(column, cell, where);
  if (cell === '') {
    return column.required ? cellProblem(where, 'bulk.problem.emptyCell') : '';
  }
  switch (column.kind) {
    case 'email':
      return checkEmail(cell, where);
    case 'name':
      return checkName(cell, where);
    case 'language':
      return checkLanguage(cell, where);
    case 'text':
      return checkText(cell, column.maxLength ?? maxTextLength, where);
    case 'date':
      return checkDate(cell, where);
  }
}

function checkEmail(cell: string, where: KeyedSentence): string | CellProblem {
  const email = normalizeEmail(cell);
  const reason = { invalid: 'invalid', 'trailing-dot': 'trailingDot', 'mixed-scripts': 'mixedScripts' };
  const problem = emailAddressProblem(email);
  return problem
    ? cellProblem(where, 'bulk.problem.email', { value: shown(cell), reason: reason[problem] })
    : email;
}

/** The drawing rule's sentence for a cell (pdf/fonts.ts undrawableValues, said of the cell's place). */
function undrawable(where: KeyedSentence, text: string): CellProblem | null {
  const values = undrawableValues(text);
  return values ? cellProblem(where, 'bulk.problem.undrawable', values) : null;
}

/** The rule of a recipient's full name (sending/draft-input.ts): 1 to 200 characters, drawable. */
function checkName(cell: string, where: KeyedSentence): string | CellProblem {
  const name = drawableText(cell);
  if (name.length > maxNameLength)
    return cellProblem(where, 'bulk.problem.nameTooLong', { max: maxNameLength });
  return undrawable(where, name) ?? name;
}

/** Each language by its tag's and its own name's lower case ("de", "pt-br", "deutsch", "日本語"). */
const languageNames = new Map(languages.map((language) => [endonym(language).toLowerCase(), language]));

/**
 * A person's language (i18n/languages.ts): a BCP 47 tag read as a recipient's `language` is
 * (`de-AT` is German), or the language's own name as the switches show it ("Deutsch").
 */
function checkLanguage(cell: string, where: KeyedSentence): string | CellProblem {
  const language = parseLanguage(cell) ?? languageNames.get(cell.toLowerCase());
  if (language) return language;
  return cellProblem(where, 'bulk.problem.language', { value: shown(cell), languages: languages.join(', ') });
}

/** The rule of a typed field's value (fields/field-types.ts): at most `limit` characters, drawable. */
function checkText(cell: string, limit: number, where: KeyedSentence): string | CellProblem {
  const text = drawableText(cell);
  const length = [...text].length;
  if (length > limit) return cellProblem(where, 'bulk.problem.textTooLong', { length, max: limit });
  return undrawable(where, text) ?? text;
}

/**
 * YYYY-MM-DD, or the European DD/MM/YYYY and DD.MM.YYYY, a real calendar date, as YYYY-MM-DD.
 * The American MM/DD/YYYY is not read: 03/04/2026 would be two different days.
 */
function checkDate(cell: string, where: KeyedSentence): string | CellProblem {
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(cell);
  const european = /^(\d{1,2})([/.])(\d{1,2})\2(\d{4})$/.exec(cell);
  const [year = '', month = '', day = ''] = iso
    ? iso.slice(1)
    : european
      ? [european[4], european[3], european[1]]
      : [];
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  const isReal =
    year !== '' &&
    date.getUTCFullYear() === Number(year) &&
    date.getUTCMonth() === Number(month) - 1 &&
    date.getUTCDate() === Number(day);
  if (!isReal) {
    return cellProblem(where, 'bulk.problem.date', { value: shown(cell) });
  }
  return `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
}

const checkboxWords = new Map([
  ['yes', true],
  ['true', true],
  ['1', true],
  ['x', true],
  ['no', false],
  ['false', false],
  ['0', false],
  ['', false],
]);

function checkCheckbox(column: BulkColumn, cell: string, where: KeyedSentence): boolean | CellProblem {
  const ticked = checkboxWords.get(cell.toLowerCase());
  if (ticked === undefined) return cellProblem(where, 'bulk.problem.checkbox', { value: shown(cell) });
  if (column.required && !ticked) return cellProblem(where, 'bulk.problem.tick');
  return ticked;
}

/** Example cells of the downloadable file, each valid for its kind (two roles' emails differ). */
function exampleCell(column: BulkColumn, index: number): string {
  const names = ['Alex Martin', 'Sam Lee', 'Robin Dubois', 'Kim Novak'];
  switch (column.kind) {
    case 'email':
      return `person${index + 1}@example.com`;
    case 'name':
      return names[index % names.length] ?? 'Alex Martin';
    case 'language':
      return '';
    case 'text':
      return 'Example';
    case 'date':
      return '2026-03-14';
    case 'checkbox':
      return 'yes';
  }
}

/**
 * The file a sender downloads and fills: the header and one example row, comma-separated,
 * CRLF, with a BOM so that Excel opens non-English headers as UTF-8 (readBulkCsv reads it back).
 */
export function bulkCsvTemplate(columns: BulkColumn[]): string {
  return stringify([columns.map((column) => column.header), columns.map(exampleCell)], {
    bom: true,
    record_delimiter: 'windows',
  });
}

export interface BulkResult {
  row: number;
  documentId: string | null;
  status: string;
  delivery: string;
}

/**
 * A spreadsheet runs a cell that starts with one of these as a formula (CSV injection):
 * the = + - @ of the OWASP advice, and the tab and carriage return it lists with them.
 */
const formulaStart = /^[=+\-@\t\r]/;

/** A cell as the results file holds it: a would-be formula behind a single quote, so it reads as text. */
function inertCell(value: string): string {
  return formulaStart.test(value) ? `'${value}` : value;
}

/** The results file of a bulk send: a row per spreadsheet row, what became of it. */
export function bulkResultsCsv(rows: BulkResult[]): string {
  const header = ['row', 'document id', 'status', 'signing-link delivery'];
  const records = rows.map((result) =>
    [String(result.row), result.documentId ?? '', result.status, result.delivery].map(inertCell),
  );
  return stringify([header, ...records], { record_delimiter: 'windows' });
}
