// `npm run bench:bulk-preview` (and a part of `npm run bench`): a bulk send's preview page
// against the worst-case spreadsheets of issue 49, at the page's 10 MB: a header, one row,
// then `,\r\n` to the end (a flood of empty records), and the same with `,` alone (one
// record of millions of empty cells). A `signet serve` process on a fresh PostgreSQL
// database; its owner, signed in, posts each file to a template's preview (the multipart form
// the page sends) while GET /healthz is asked in a loop (each answer's time, 10 ms apart).
// Each round also polls /healthz on the idle server (the ceiling of /healthz, measured in the
// same run) and posts a valid file of SIGNET_BULK_MAX_ROWS rows (5,000: the largest a sender
// may send; the ceiling of the answer). Rounds alternate the three, so a shared machine's
// drift falls on all. Asserts nothing: prints.
//
// Env: SIGNET_BENCH_POSTGRES_URL (admin connection), SIGNET_BENCH_ROUNDS (3),
// SIGNET_BENCH_QUIET_SECONDS (3, the idle polling of each round).
import { request as httpRequest } from 'node:http';
import { createAccount } from '../src/accounts/accounts.service.ts';
import { loadConfig } from '../src/config.ts';
import { createContext, createLogger } from '../src/context.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { renderTextDocument } from '../src/pdf/text-document.ts';
import { createTemplate } from '../src/templates/templates.service.ts';
import { freePort, median, startChild, stopChild } from './api.ts';
import { browser } from './pdf.ts';
import { benchDatabase } from './webhook-setup.ts';

const adminUrl = process.env.SIGNET_BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
const rounds = Number(process.env.SIGNET_BENCH_ROUNDS ?? 3);
const quietSeconds = Number(process.env.SIGNET_BENCH_QUIET_SECONDS ?? 3);
const progress = (line: string) => process.stderr.write(`[bench bulk-preview] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const tenMb = 10 * 1024 * 1024;
const maxRows = 5_000;

const header = 'Client email,Client name,Company email,Company name,Fee';
const row = (n: number) => `client${n}@example.com,Client ${n},ceo@northwind.example,Dana Ceo,${100 + n} EUR`;

type Shape = 'records' | 'cells' | 'valid';

/** The worst cases at the page's 10 MB, and the largest valid file (maxRows rows). */
function spreadsheet(shape: Shape): Buffer {
  if (shape === 'valid') {
    const lines = [header, ...Array.from({ length: maxRows }, (_, i) => row(i + 1))];
    return Buffer.from(`${lines.join('\r\n')}\r\n`);
  }
  const head = `${header}\r\n${row(1)}\r\n`;
  const filler = shape === 'records' ? ',\r\n' : ',';
  return Buffer.from(`${head}${filler.repeat(Math.floor((tenMb - head.length - 2) / filler.length))}\r\n`);
}

/** One request on a fresh connection: status, body, and milliseconds to its last byte. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string | number>; body?: Buffer } = {},
) {
  return new Promise<{ status: number; text: string; ms: number }>((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(
      url,
      { method: options.method ?? 'GET', agent: false, headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - started,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The preview's multipart form as the page sends it: the token first, then the file. */
function previewForm(csrf: string, file: Buffer) {
  const boundary = '----SignetBenchBulkPreview';
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="clients.csv"\r\nContent-Type: text/csv\r\n\r\n`;
  return {
    body: Buffer.concat([Buffer.from(head), file, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/** Every /healthz answer's time while `work` runs (one after another, 10 ms apart). */
async function polled<T>(baseUrl: string, work: () => Promise<T>): Promise<{ result: T; healthz: number[] }> {
  const healthz: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const answer = await send(`${baseUrl}/healthz`);
      if (answer.status !== 200) throw new Error(`/healthz answered ${answer.status}`);
      healthz.push(answer.ms);
      await sleep(10);
    }
  })();
  try {
    return { result: await work(), healthz };
  } finally {
    running = false;
    await loop;
  }
}

export interface PreviewRun {
  status: number;
  sentence: string;
  answerMs: number;
  healthz: number[];
}

export interface BulkPreviewFigures {
  bytes: Record<Shape, number>;
  idle: number[];
  runs: Record<Shape, PreviewRun[]>;
}

/** The sentence atop the preview (its notice), for the details. */
function sentenceOf(text: string): string {
  return /<div class="notice[^"]*" role="(?:alert|status)">([^<]+)<\/div>/.exec(text)?.[1] ?? '';
}

export async function measureBulkPreview(): Promise<BulkPreviewFigures> {
  const database = benchDatabase(adminUrl);
  await database.create();
  const handle = await openDatabase({ url: database.url, dataDir: null, poolSize: 3 });
  let server: Awaited<ReturnType<typeof startChild>> | null = null;
  try {
    await migrateToLatest(handle.db);
    const ctx = await createContext(loadConfig({}), handle.db, { log: createLogger('warn') });
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    server = await startChild(
      ['src/main.ts', 'serve'],
      {
        DATABASE_URL: database.url,
        LOG_LEVEL: 'error',
        PORT: String(port),
        SIGNET_PUBLIC_URL: baseUrl,
        SIGNET_BULK_MAX_ROWS: String(maxRows),
      },
      /Signet is running/,
    );
    const password = 'correct horse battery staple';
    const owner = await createAccount(ctx, {
      email: 'owner@northwind.example',
      password,
      workspaceName: 'Northwind',
      plan: 'max',
    });
    const pdf = await renderTextDocument({
      title: 'Services agreement',
      body: 'The parties agree on the services described below.',
      workspaceName: 'Northwind',
      pricing: null,
      createdAt: new Date('2026-11-01T00:00:00Z'),
    });
    const place = (role: string, y: number, extra: object = {}) => ({
      role,
      type: 'signature',
      page: 1,
      x: 72,
      y,
      width: 180,
      height: 40,
      ...extra,
    });
    const { id: templateId } = await createTemplate(ctx, {
      workspaceId: owner.workspaceId,
      name: 'Services agreement',
      title: 'Services agreement',
      body: 'Please sign.',
      roles: [
        { name: 'Client', role: 'signer', signingOrder: 1, signingMethod: 'standard' },
        { name: 'Company', role: 'signer', signingOrder: 2, signingMethod: 'standard' },
      ],
      fields: [
        place('Client', 100),
        place('Company', 100, { x: 320 }),
        place('Client', 200, { type: 'text', height: 20, label: 'Fee', senderFills: true }),
      ],
      expiresInSeconds: 30 * 24 * 3600,
      file: Buffer.from(pdf.data),
    });
    const sender = browser(baseUrl);
    await sender.get('/login');
    const login = await sender.post('/login', { email: 'owner@northwind.example', password });
    if (login.status !== 303) throw new Error(`log-in answered ${login.status}`);

    const shapes: Shape[] = ['valid', 'records', 'cells'];
    const files = Object.fromEntries(shapes.map((shape) => [shape, spreadsheet(shape)])) as Record<
      Shape,
      Buffer
    >;
    const figures: BulkPreviewFigures = {
      bytes: Object.fromEntries(shapes.map((shape) => [shape, files[shape].byteLength])) as Record<
        Shape,
        number
      >,
      idle: [],
      runs: { valid: [], records: [], cells: [] },
    };
    // An uncounted preview first: the server's first one starts its reading thread.
    const preview = async (shape: Shape) => {
      await sender.get(`/templates/${templateId}/bulk`);
      const form = previewForm(sender.csrf, files[shape]);
      return send(`${baseUrl}/templates/${templateId}/bulk`, {
        method: 'POST',
        headers: { 'content-type': form.contentType, cookie: sender.cookieHeader() },
        body: form.body,
      });
    };
    await preview('valid');
    for (let round = 1; round <= rounds; round++) {
      progress(
        `round ${round} of ${rounds}: ${quietSeconds} s idle, then the valid file and the two worst cases`,
      );
      figures.idle.push(...(await polled(baseUrl, () => sleep(quietSeconds * 1000))).healthz);
      for (const shape of shapes) {
        await sleep(500);
        const { result, healthz } = await polled(baseUrl, () => preview(shape));
        figures.runs[shape].push({
          status: result.status,
          sentence: sentenceOf(result.text),
          answerMs: result.ms,
          healthz,
        });
      }
    }
    return figures;
  } finally {
    if (server) await stopChild(server);
    await handle.close();
    await database.drop();
  }
}

const worst = (values: number[]) =>
  values.reduce((max, value) => Math.max(max, value), Number.NEGATIVE_INFINITY);
const answers = (runs: PreviewRun[]) => median(runs.map((run) => run.answerMs));
const meanwhile = (runs: PreviewRun[]) => runs.flatMap((run) => run.healthz);

export function bulkPreviewRows(f: BulkPreviewFigures): Array<[string, string, string, string]> {
  const rows: Array<[string, string, string, string]> = [];
  const label = { records: 'a flood of empty records', cells: 'one record of millions of cells' } as const;
  for (const shape of ['records', 'cells'] as const) {
    const runs = f.runs[shape];
    rows.push(
      [
        `Bulk preview, worst-case 10 MB CSV (${label[shape]}): the answer, a refusal (ms, median of ${runs.length}; ceiling: a valid ${maxRows.toLocaleString('en')}-row file's preview)`,
        answers(runs).toFixed(0),
        answers(f.runs.valid).toFixed(0),
        (answers(runs) / answers(f.runs.valid)).toFixed(2),
      ],
      [
        `Bulk preview, worst-case 10 MB CSV (${label[shape]}): the slowest /healthz meanwhile (ms; goal < 1,000; ceiling: the slowest on the idle server)`,
        worst(meanwhile(runs)).toFixed(1),
        worst(f.idle).toFixed(1),
        (worst(meanwhile(runs)) / worst(f.idle)).toFixed(2),
      ],
      [
        `Bulk preview, worst-case 10 MB CSV (${label[shape]}): /healthz median meanwhile (ms; ceiling: the idle server's median)`,
        median(meanwhile(runs)).toFixed(1),
        median(f.idle).toFixed(1),
        (median(meanwhile(runs)) / median(f.idle)).toFixed(2),
      ],
    );
  }
  return rows;
}

export function bulkPreviewDetails(f: BulkPreviewFigures): string[] {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
  return (['valid', 'records', 'cells'] as const).map((shape) => {
    const runs = f.runs[shape];
    const first = runs[0];
    return `${shape} (${kb(f.bytes[shape])}): answers ${runs.map((run) => `${run.status} in ${run.answerMs.toFixed(0)} ms`).join(', ')}; /healthz meanwhile ${meanwhile(runs).length} answers, median ${median(meanwhile(runs)).toFixed(1)} ms, slowest ${worst(meanwhile(runs)).toFixed(1)} ms; “${first?.sentence ?? ''}”`;
  });
}

async function main() {
  const started = Date.now();
  const figures = await measureBulkPreview();
  console.log(`\nnpm run bench:bulk-preview: ${new Date().toISOString()}\n`);
  console.log(
    `  idle /healthz: ${figures.idle.length} answers, median ${median(figures.idle).toFixed(1)} ms, slowest ${worst(figures.idle).toFixed(1)} ms`,
  );
  for (const line of bulkPreviewDetails(figures)) console.log(`  ${line}`);
  console.log('\n| Figure | Measured | Ceiling (same run) | Ratio |');
  console.log('|---|---:|---:|---:|');
  for (const [figure, measured, ceiling, ratio] of bulkPreviewRows(figures))
    console.log(`| ${figure} | ${measured} | ${ceiling} | ${ratio} |`);
  console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

if (import.meta.main) await main();
