// `npm run bench:editor` (and a part of `npm run bench`): the field editor's first page
// (issue 36 §4). A `signet serve` process (role all: its worker draws page images in the
// background) on a fresh PostgreSQL database, an owner signed in; each round:
//  - uploads a fresh 36-page contract through the new-document form, then at once opens its
//    editor (GET /documents/{id}/fields) and asks, as a browser does, for every page image
//    the editor loads at once (`loading="eager"`): the time from opening the editor to page
//    1's image arrived;
//  - the ceiling, in the same round: the same on a contract whose images are all drawn
//    (opening its editor, then its eager images: page 1 served from the cache);
//  - the time from the upload's answer until every page image exists (the reading width,
//    then with the thumbnails), read from page_images.
// Before those rounds, the way it was (for the record): a `signet serve --role api` (no
// background drawing) where the browser asks for all 36 images at once, as the editor
// without `loading="lazy"` made it: the time to page 1's image and to the last.
// Asserts nothing: prints.
//
// Env: SIGNET_BENCH_POSTGRES_URL (admin connection), SIGNET_BENCH_EDITOR_ROUNDS (3),
// SIGNET_BENCH_EDITOR_PAGES (36).
import { PDFDocument } from '@cantoo/pdf-lib';
import { sql } from 'kysely';
import { createAccount } from '../src/accounts/accounts.service.ts';
import { loadConfig } from '../src/config.ts';
import { createContext, createLogger } from '../src/context.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { freePort, startChild, stopChild } from './api.ts';
import { browser, multipartForm } from './pdf.ts';
import { textPdf } from './pdf-inputs.ts';
import { benchDatabase } from './webhook-setup.ts';

const adminUrl = process.env.SIGNET_BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
const rounds = Number(process.env.SIGNET_BENCH_EDITOR_ROUNDS ?? 3);
const pages = Number(process.env.SIGNET_BENCH_EDITOR_PAGES ?? 36);
const progress = (line: string) => process.stderr.write(`[bench editor] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

export interface EditorFigures {
  pages: number;
  rounds: number;
  /** Opening the editor of a fresh upload until page 1's image arrived (ms, each round). */
  firstImageMs: number[];
  /** The same on a contract whose images are all drawn (ms, each round). */
  cachedFirstImageMs: number[];
  /** From the upload's answer until every page exists at the reading width (ms). */
  allPagesMs: number[];
  /** … and with the thumbnails (ms). */
  allImagesMs: number[];
  /** The way it was: no background drawing, all images asked for at once (ms, one run). */
  before: { firstImageMs: number; lastImageMs: number };
}

/** A contract of `pages` pages that no earlier round stored (its own subject, so its own hash). */
async function freshContract(base: Uint8Array, mark: string): Promise<Uint8Array> {
  const pdf = await PDFDocument.load(base, { updateMetadata: false });
  pdf.setSubject(mark);
  return pdf.save();
}

type Browser = ReturnType<typeof browser>;

/** The new-document form with `file`, as a browser posts it; the new document's id. */
async function upload(baseUrl: string, owner: Browser, file: Uint8Array): Promise<string> {
  await owner.get('/documents/new');
  const form = multipartForm(
    {
      _csrf: owner.csrf,
      title: 'Services agreement',
      recipientRows: '1',
      priceRows: '1',
      r0_email: 'ann@client.example',
      r0_name: 'Ann Lee',
      r0_role: 'signer',
      r0_method: 'standard',
      r0_order: '1',
      currency: 'EUR',
      vatMode: 'excluded',
    },
    file,
    'contract.pdf',
  );
  const response = await fetch(`${baseUrl}/documents`, {
    method: 'POST',
    headers: { 'content-type': form.contentType, cookie: owner.cookieHeader() },
    body: form.body,
    redirect: 'manual',
  });
  await response.arrayBuffer();
  const id = /\/documents\/([0-9a-f-]{36})/.exec(response.headers.get('location') ?? '')?.[1];
  if (response.status !== 303 || !id) throw new Error(`the upload answered ${response.status}`);
  return id;
}

/** Opens the editor and asks for its images (`which`) at once; ms to page 1's and to the last. */
async function openEditor(baseUrl: string, owner: Browser, id: string, which: 'eager' | 'all') {
  const started = performance.now();
  const editor = await owner.get(`/documents/${id}/fields`);
  if (editor.status !== 200) throw new Error(`the editor answered ${editor.status}`);
  const images = [...editor.text.matchAll(/<img src="([^"]+)"[^>]*loading="(eager|lazy)"/g)]
    .filter((m) => which === 'all' || m[2] === 'eager')
    .map((m) => m[1] ?? '');
  if (images[0] !== `/documents/${id}/pages/1`) throw new Error('the editor shows no page 1');
  let firstMs = Number.NaN;
  await Promise.all(
    images.map(async (src, i) => {
      const response = await fetch(`${baseUrl}${src}`, { headers: { cookie: owner.cookieHeader() } });
      const body = await response.arrayBuffer();
      if (response.status !== 200 || body.byteLength === 0)
        throw new Error(`${src} answered ${response.status}`);
      if (i === 0) firstMs = performance.now() - started;
    }),
  );
  return { firstMs, lastMs: performance.now() - started };
}

export async function measureEditor(): Promise<EditorFigures> {
  const database = benchDatabase(adminUrl);
  await database.create();
  const handle = await openDatabase({ url: database.url, dataDir: null, poolSize: 3 });
  let server: Awaited<ReturnType<typeof startChild>> | null = null;
  try {
    await migrateToLatest(handle.db);
    const ctx = await createContext(loadConfig({}), handle.db, { log: createLogger('warn') });
    const password = 'correct horse battery staple';
    await createAccount(ctx, {
      email: 'owner@editor.example',
      password,
      workspaceName: 'Editor',
      plan: 'max',
    });
    const base = await textPdf(pages);
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const env = {
      DATABASE_URL: database.url,
      LOG_LEVEL: 'error',
      PORT: String(port),
      SIGNET_PUBLIC_URL: baseUrl,
    };
    const signIn = async () => {
      const owner = browser(baseUrl);
      await owner.get('/login');
      const login = await owner.post('/login', { email: 'owner@editor.example', password });
      if (login.status !== 303) throw new Error(`log-in answered ${login.status}`);
      return owner;
    };
    const shaOf = async (id: string) =>
      (
        await handle.db
          .selectFrom('documents')
          .select('original_sha256')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).original_sha256 ?? '';
    // Pages done: drawn, or given up (a placeholder from then on: on a busy machine a page
    // can run out of its turn), at `width` or at every width.
    const imagesOf = async (sha256: string, width?: number) => {
      const { rows } = await sql<{ count: string }>`
        select (select count(*) from page_images
                where sha256 = ${sha256} and (${width ?? null}::integer is null or width = ${width ?? null}::integer))
             + (select count(*) * ${width ? 1 : 2} from page_image_failures where sha256 = ${sha256} and page > 0)
             as count`.execute(handle.db);
      return Number(rows[0]?.count ?? 0);
    };

    // The way it was: no worker drawing ahead, every image asked for at once.
    progress(`before: --role api, all ${pages} images asked for at once`);
    server = await startChild(['src/main.ts', 'serve', '--role', 'api'], env, /Signet is running/);
    const owner0 = await signIn();
    const beforeId = await upload(baseUrl, owner0, await freshContract(base, 'before'));
    const before = await openEditor(baseUrl, owner0, beforeId, 'all');
    await stopChild(server);
    server = null;
    await handle.db.deleteFrom('page_image_queue').execute();

    progress('now: signet serve (its worker draws in the background)');
    server = await startChild(['src/main.ts', 'serve'], env, /Signet is running/);
    const owner = await signIn();
    // The ceiling's contract: uploaded and drawn whole before the rounds.
    const warmId = await upload(baseUrl, owner, await freshContract(base, 'warm'));
    const warmSha = await shaOf(warmId);
    while ((await imagesOf(warmSha)) < pages * 2) await sleep(50);

    const figures: EditorFigures = {
      pages,
      rounds,
      firstImageMs: [],
      cachedFirstImageMs: [],
      allPagesMs: [],
      allImagesMs: [],
      before: { firstImageMs: before.firstMs, lastImageMs: before.lastMs },
    };
    for (let round = 1; round <= rounds; round++) {
      progress(`round ${round} of ${rounds}`);
      const file = await freshContract(base, `round ${round}`);
      const id = await upload(baseUrl, owner, file);
      const uploaded = performance.now();
      const fresh = await openEditor(baseUrl, owner, id, 'eager');
      const cached = await openEditor(baseUrl, owner, warmId, 'eager');
      figures.firstImageMs.push(fresh.firstMs);
      figures.cachedFirstImageMs.push(cached.firstMs);
      const sha256 = await shaOf(id);
      while ((await imagesOf(sha256, 1200)) < pages) await sleep(20);
      figures.allPagesMs.push(performance.now() - uploaded);
      while ((await imagesOf(sha256)) < pages * 2) await sleep(20);
      figures.allImagesMs.push(performance.now() - uploaded);
    }
    return figures;
  } finally {
    if (server) await stopChild(server);
    await handle.close();
    await database.drop();
  }
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : 'n/a');

/** The table's rows: figure, measured, ceiling, ratio. */
export function editorRows(f: EditorFigures): Array<[string, string, string, string]> {
  const first = median(f.firstImageMs);
  const cached = median(f.cachedFirstImageMs);
  return [
    [
      `Editor of a freshly uploaded ${f.pages}-page PDF: opening it to page 1's image served (ms, median of ${f.rounds}; ceiling: the same with every image cached; goal under 1000)`,
      ms(first),
      ms(cached),
      (first / cached).toFixed(1),
    ],
  ];
}

export function editorDetails(f: EditorFigures): string[] {
  return [
    `editor's first page image, fresh upload (ms, each round): ${f.firstImageMs.map(ms).join(', ')}; cached: ${f.cachedFirstImageMs.map(ms).join(', ')}`,
    `all ${f.pages} pages drawn in the background, from the upload's answer (ms, each round): ${f.allPagesMs.map(ms).join(', ')}; with their thumbnails: ${f.allImagesMs.map(ms).join(', ')}`,
    `the way it was (--role api, no drawing ahead, all ${f.pages} images asked for at once): page 1's image after ${ms(f.before.firstImageMs)} ms, the last after ${ms(f.before.lastImageMs)} ms`,
  ];
}

async function main() {
  const figures = await measureEditor();
  console.log(`\nnpm run bench:editor: ${new Date().toISOString()}\n`);
  for (const line of editorDetails(figures)) console.log(`  ${line}`);
  console.log('\n| Figure | Measured | Ceiling (same run) | Ratio |');
  console.log('|---|---:|---:|---:|');
  for (const [figure, measured, ceiling, ratio] of editorRows(figures))
    console.log(`| ${figure} | ${measured} | ${ceiling} | ${ratio} |`);
}

if (import.meta.main) await main();
