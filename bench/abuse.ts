// `npm run bench:abuse` (and a part of `npm run bench`): what one workspace's hostile files
// and requests cost everyone else (issue 34). A `signet serve` process on a fresh PostgreSQL
// database; workspace B has a signer's page image already drawn (cached); workspace A's
// owner then, one attack at a time:
//  - uploads a PDF whose object stream, page content stream, page image or twice-deflated
//    content stream inflates to SIGNET_BENCH_BOMB_BYTES (1 GiB) through the new-document
//    form (test/support/hostile-pdfs.ts builds them), and, if it is stored, asks for its thumbnail;
//  - posts, as A's signer, a drawn signature PNG declaring 100 x 100 pixels whose data
//    inflates to 500 MB (about 510 KB posted);
//  - has 24 strangers (no session) post 20 MB multipart bodies to /documents at once.
// Meanwhile (at least 3 s from each attack's start), and the same way in a quiet run before:
// the server's RSS (/proc, every 10 ms), GET /healthz in a loop (each answer's time), and
// B's signer fetching their cached page image in a loop. Goals (issue 34): peak RSS growth under 300 MB, the slowest /healthz
// under 1 s, B's page image p99 within 2 x its quiet p99. Asserts nothing: prints.
//
// Env: SIGNET_BENCH_POSTGRES_URL (admin connection), SIGNET_BENCH_BOMB_BYTES (1073741824),
// SIGNET_BENCH_QUIET_SECONDS (5).
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { createAccount } from '../src/accounts/accounts.service.ts';
import { loadConfig } from '../src/config.ts';
import { createContext, createLogger } from '../src/context.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { getDocument } from '../src/documents/documents.service.ts';
import { createDocument } from '../src/sending/drafts.ts';
import { sendDocument } from '../src/sending/send.ts';
import { findSharableSigningLinks } from '../src/sending/signing-links.ts';
import { type BombKind, bombPdf, deflatedZeros } from '../test/support/hostile-pdfs.ts';
import { freePort, startChild, stopChild } from './api.ts';
import { browser, multipartForm } from './pdf.ts';
import { benchDatabase } from './webhook-setup.ts';

const adminUrl = process.env.SIGNET_BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
const bombBytes = Number(process.env.SIGNET_BENCH_BOMB_BYTES ?? 2 ** 30);
const quietSeconds = Number(process.env.SIGNET_BENCH_QUIET_SECONDS ?? 5);
const root = join(import.meta.dirname, '..');
const progress = (line: string) => process.stderr.write(`[bench abuse] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
/** Each attack is watched at least this long from its start. */
const minimumWindowMs = 3_000;

export interface AbuseRun {
  name: string;
  /** What the server answered the attack (status, and the sentence where there is one). */
  answer: string;
  attackMs: number;
  rssGrowthMb: number;
  healthzMaxMs: number;
  pageP99Ms: number;
  pageRequests: number;
}

export interface AbuseFigures {
  quiet: { healthzMaxMs: number; pageP99Ms: number; pageRequests: number; rssMb: number };
  runs: AbuseRun[];
  bombBytes: number;
}

/** One request on a fresh connection: status, body, and milliseconds to its last byte. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string | number>; body?: Buffer | string } = {},
) {
  return new Promise<{ status: number; text: string; ms: number; location: string | null }>(
    (resolve, reject) => {
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
              location: (res.headers.location as string | undefined) ?? null,
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(options.body);
    },
  );
}

/** The new-document form as a browser sends it: its fields (the token first), then the file. */
function documentForm(csrf: string, file: Uint8Array) {
  return multipartForm(
    {
      _csrf: csrf,
      title: 'Hostile upload',
      recipientRows: '1',
      priceRows: '1',
      r0_email: 'mallory@attacker.example',
      r0_name: 'Mallory',
      r0_role: 'signer',
      r0_method: 'standard',
      r0_order: '1',
      currency: 'EUR',
      vatMode: 'excluded',
    },
    file,
    'bomb.pdf',
  );
}

/** The sentence a refused form shows beside its input or atop the page (else the page's title). */
function sentenceOf(page: { status: number; text: string; location: string | null }): string {
  const fieldError = /<(?:p|span) class="field-error"(?![^>]*\bhidden\b)[^>]*>([^<]+)<\/(?:p|span)>/;
  const alert = /<div class="notice[^"]*" role="alert">([^<]+)<\/div>/;
  const error = (fieldError.exec(page.text) ?? alert.exec(page.text))?.[1];
  const title = /<title>([^<]+)<\/title>/.exec(page.text)?.[1];
  return `${page.status}${page.location ? ` → ${page.location}` : ''}${error ? `: ${error}` : title ? `: ${title}` : ''}`;
}

function rssKb(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** A PNG declaring `width` x `height` RGBA pixels whose image data inflates to `decodedBytes`. */
function pngBomb(width: number, height: number, decodedBytes: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0);
    return Buffer.concat([head, data, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, adaptive filtering, not interlaced
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflatedZeros(decodedBytes)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
};

/**
 * Watches the server while `work` runs: peak RSS (every 10 ms), every /healthz answer's time
 * (one after another), and B's cached page image (one after another, at most 20 a second).
 */
async function watched<T>(pid: number, baseUrl: string, pageUrl: string, work: () => Promise<T>) {
  const startRss = rssKb(pid);
  let peakRss = startRss;
  let running = true;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssKb(pid));
  }, 10);
  const healthz: number[] = [];
  const pages: number[] = [];
  const loop = async (url: string, into: number[], gapMs: number) => {
    while (running) {
      const answer = await send(url).catch(() => ({ status: 0, ms: Number.NaN }));
      if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}`);
      into.push(answer.ms);
      await sleep(gapMs);
    }
  };
  const loops = [loop(`${baseUrl}/healthz`, healthz, 10), loop(pageUrl, pages, 50)];
  const started = performance.now();
  try {
    const result = await work();
    const ms = performance.now() - started;
    // At least `minimumWindowMs` of watching: a refusal in 20 ms would otherwise leave the
    // loops nothing to measure, and what an attack leaves behind counts too.
    await sleep(minimumWindowMs - ms);
    return {
      result,
      ms,
      rssGrowthMb: (peakRss - startRss) / 1024,
      startRssMb: startRss / 1024,
      healthzMaxMs: Math.max(...healthz),
      pageP99Ms: percentile(pages, 99),
      pageRequests: pages.length,
    };
  } finally {
    running = false;
    clearInterval(sampler);
    await Promise.all(loops);
  }
}

export async function measureAbuse(): Promise<AbuseFigures> {
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
      { DATABASE_URL: database.url, LOG_LEVEL: 'error', PORT: String(port), SIGNET_PUBLIC_URL: baseUrl },
      /Signet is running/,
    );
    const pid = server.pid ?? 0;

    // Workspace B: a sent contract whose signer's first page image is drawn once, then cached.
    const password = 'correct horse battery staple';
    const victim = await createAccount(ctx, {
      email: 'owner@victim.example',
      password,
      workspaceName: 'Victim',
      plan: 'max',
    });
    const contract = readFileSync(join(root, 'src/demo/statement-of-work.pdf'));
    const signerLink = async (workspaceId: string, file: Uint8Array, email: string) => {
      const { id } = await createDocument(ctx, {
        workspaceId,
        title: 'Statement of work',
        recipients: [
          { email, fullName: 'Signer', role: 'signer', signingMethod: 'standard', signingOrder: 1 },
        ],
        pricing: null,
        file,
      });
      await sendDocument(ctx, workspaceId, id);
      const document = await getDocument(ctx, workspaceId, id);
      const links = await findSharableSigningLinks(ctx, workspaceId, document);
      const link = [...links.values()][0];
      if (!link) throw new Error('no signing link');
      return link.replace(/^https?:\/\/[^/]+/, baseUrl);
    };
    const pageUrl = `${await signerLink(victim.workspaceId, contract, 'bea@victim.example')}/pages/1`;
    const first = await send(pageUrl);
    if (first.status !== 200) throw new Error(`the victim's page image answered ${first.status}`);

    // Workspace A: its owner signed in, and a signer's link of its own.
    const owner = await createAccount(ctx, {
      email: 'owner@attacker.example',
      password,
      workspaceName: 'Attacker',
      plan: 'max',
    });
    const attacker = browser(baseUrl);
    await attacker.get('/login');
    const login = await attacker.post('/login', { email: 'owner@attacker.example', password });
    if (login.status !== 303) throw new Error(`log-in answered ${login.status}`);
    const attackerLink = await signerLink(owner.workspaceId, contract, 'mallory@attacker.example');

    progress(`quiet: ${quietSeconds} s of /healthz and the victim's cached page image`);
    const quiet = await watched(pid, baseUrl, pageUrl, () => sleep(quietSeconds * 1000));

    const runs: AbuseRun[] = [];
    const attack = async (name: string, work: () => Promise<string>) => {
      progress(name);
      await sleep(1_000); // the last attack's memory settles first
      const figures = await watched(pid, baseUrl, pageUrl, work);
      runs.push({
        name,
        answer: figures.result,
        attackMs: figures.ms,
        rssGrowthMb: figures.rssGrowthMb,
        healthzMaxMs: figures.healthzMaxMs,
        pageP99Ms: figures.pageP99Ms,
        pageRequests: figures.pageRequests,
      });
    };
    const kinds: Array<[BombKind, string]> = [
      ['object-stream', 'object stream'],
      ['content-stream', 'page content stream'],
      ['image', 'page image'],
      ['chained', 'content stream deflated twice'],
    ];
    for (const [kind, label] of kinds) {
      const bomb = bombPdf(kind, bombBytes);
      await attacker.get('/documents/new');
      const form = documentForm(attacker.csrf, bomb);
      await attack(
        `PDF upload, ${label} inflating to ${gib(bombBytes)} (${kib(bomb.byteLength)} file)`,
        async () => {
          const answer = await send(`${baseUrl}/documents`, {
            method: 'POST',
            headers: { 'content-type': form.contentType, cookie: attacker.cookieHeader() },
            body: form.body,
          });
          // Stored: its owner's page then asks for its thumbnail, as the document page does.
          if (answer.status !== 303 || !answer.location?.startsWith('/documents/')) return sentenceOf(answer);
          const thumbnail = await send(`${baseUrl}${answer.location}/pages/1?size=thumbnail`, {
            headers: { cookie: attacker.cookieHeader() },
          });
          return `${sentenceOf(answer)}; stored, its thumbnail answered ${thumbnail.status}`;
        },
      );
    }
    const png = pngBomb(100, 100, 500 * 1024 * 1024);
    await attack(
      `Drawn signature, 100 x 100 PNG inflating to 500 MB (${kib(png.byteLength)} posted)`,
      async () => {
        const answer = await send(`${attackerLink}/sign`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            fullName: 'Signer',
            consent: 'yes',
            signatureKind: 'drawn',
            signatureImage: `data:image/png;base64,${png.toString('base64')}`,
          }).toString(),
        });
        return sentenceOf(answer);
      },
    );
    const stranger = documentForm('not-a-token', Buffer.alloc(20 * 1024 * 1024, 0x20));
    await attack('24 strangers (no session) post 20 MB to /documents at once', async () => {
      const answers = await Promise.all(
        Array.from({ length: 24 }, () =>
          send(`${baseUrl}/documents`, {
            method: 'POST',
            headers: { 'content-type': stranger.contentType },
            body: stranger.body,
          }).then(
            (answer) => `${answer.status}`,
            // EPIPE: the server answered and closed before all 20 MB were sent.
            (error: NodeJS.ErrnoException) => error.code ?? 'error',
          ),
        ),
      );
      const counts = new Map<string, number>();
      for (const answer of answers) counts.set(answer, (counts.get(answer) ?? 0) + 1);
      return [...counts].map(([answer, n]) => `${answer} × ${n}`).join(', ');
    });
    return {
      quiet: {
        healthzMaxMs: quiet.healthzMaxMs,
        pageP99Ms: quiet.pageP99Ms,
        pageRequests: quiet.pageRequests,
        rssMb: quiet.startRssMb,
      },
      runs,
      bombBytes,
    };
  } finally {
    if (server) await stopChild(server);
    await handle.close();
    await database.drop();
  }
}

const gib = (bytes: number) =>
  bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(0)} GiB` : `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** The table's lines: each attack beside the quiet run, and the goals met or not. */
export function abuseLines(f: AbuseFigures): string[] {
  const lines = [
    `Quiet: server RSS ${f.quiet.rssMb.toFixed(0)} MB; slowest /healthz ${ms(f.quiet.healthzMaxMs)}; victim's cached page image p99 ${ms(f.quiet.pageP99Ms)} (${f.quiet.pageRequests} requests)`,
    '| Attack | Answer | Took | Peak RSS growth (goal < 300 MB) | Slowest /healthz (goal < 1 s) | Victim page p99 (goal ≤ 2 × quiet) |',
    '|---|---|---:|---:|---:|---:|',
  ];
  for (const run of f.runs) {
    const ratio = run.pageP99Ms / f.quiet.pageP99Ms;
    lines.push(
      `| ${run.name} | ${run.answer} | ${ms(run.attackMs)} | ${run.rssGrowthMb.toFixed(0)} MB ${run.rssGrowthMb < 300 ? 'met' : 'MISSED'} | ${ms(run.healthzMaxMs)} ${run.healthzMaxMs < 1000 ? 'met' : 'MISSED'} | ${ms(run.pageP99Ms)} = ${ratio.toFixed(2)} × ${ratio <= 2 ? 'met' : 'MISSED'} (${run.pageRequests} requests) |`,
    );
  }
  return lines;
}

if (import.meta.main) {
  const figures = await measureAbuse();
  process.stdout.write(`${abuseLines(figures).join('\n')}\n`);
}
