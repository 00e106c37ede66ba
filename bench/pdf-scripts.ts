// `npm run bench:pdf-scripts`: the fixed part of sealing that depends on the names (the
// certificate's layout and its fonts, `certify` on a one-page original), for a certificate
// with only Latin names and for one with names in every script Signet has a face for
// (Arabic, Hebrew, Thai, Korean, Japanese, Georgian, Armenian, emoji). For each: the first
// certificate of a fresh process (faces read and parsed then: a process of its own per
// row), then the median and slowest of the next runs in that process (and the median CPU
// time, steadier than wall time on a busy machine), the bytes the update
// adds to the file, and the faces the process parsed. Asserts nothing.
//
// Env: SIGNET_BENCH_SCRIPTS_RUNS (20 warm runs a row).
import { execFileSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { PDFDocument } from '@cantoo/pdf-lib';
import { type Certificate, certify } from '../src/pdf/certificate.ts';
import { loadedFaces } from '../src/pdf/font-faces.ts';
import { renderTextDocument } from '../src/pdf/text-document.ts';

const latin = [
  ['Zoë Łukasiewicz', 'zoe@customer.example'],
  ['Daniel Okafor', 'daniel@acme.example'],
];
const scripts = [
  ['محمد عبد الرحمن', 'mohammed@example.com'],
  ['דוד כהן', 'david@example.co.il'],
  ['สมชาย ใจดี', 'somchai@example.co.th'],
  ['김민준', 'minjun@example.kr'],
  ['山田 花子', 'hanako@example.jp'],
  ['ნინო ბერიძე', 'nino@example.ge'],
  ['Արամ Պետրոսյան', 'aram@example.am'],
  ['Zoë 🙂', 'zoe@customer.example'],
];
const rows = { latin, scripts } as const;
type Row = keyof typeof rows;

function certificateOf(names: string[][]): Certificate {
  const at = (minutes: number) => new Date(Date.UTC(2026, 10, 20, 9, minutes));
  return {
    documentId: '6f1c2a4e-8b0d-4c3e-9a57-2d1f0e9b7c11',
    title: 'Services agreement',
    workspaceName: 'Acme Consulting Ltd',
    originalSha256: 'ab'.repeat(32),
    originalPages: 1,
    sentAt: at(0),
    completedAt: at(95),
    verifyUrl: 'https://sign.example.com/verify',
    language: 'en' as const,
    recipients: names.map(([fullName = '', email = ''], i) => ({
      fullName,
      email,
      role: 'signer',
      signingMethod: 'standard',
      sent: null,
      openedAt: at(i + 1),
      signedAt: at(i + 2),
      declinedAt: null,
      clientIp: '203.0.113.24',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0',
      signature: { kind: 'typed' as const, name: fullName },
      fields: [{ name: 'Text', label: 'Company', page: 1, value: fullName }],
    })),
    events: names.map(([, email = ''], i) => ({
      at: at(i + 2),
      label: 'Signed',
      recipientEmail: email,
      clientIp: '203.0.113.24',
      userAgent: 'Mozilla/5.0',
    })),
  };
}

/** One row, in this process: the cold run first, then the warm ones. */
async function measure(row: Row, runs: number) {
  const original = (
    await renderTextDocument({
      title: 'Services agreement',
      body: 'The parties agree.',
      workspaceName: 'Acme Consulting Ltd',
      pricing: null,
      createdAt: new Date(0),
    })
  ).data;
  const certificate = certificateOf(rows[row].map((pair) => [...pair]));
  const once = async () => {
    const pdf = await PDFDocument.load(original, { forIncrementalUpdate: true, updateMetadata: false });
    const started = performance.now();
    const cpu = process.cpuUsage();
    const data = await certify(pdf, certificate);
    const used = process.cpuUsage(cpu);
    return {
      ms: performance.now() - started,
      cpuMs: (used.user + used.system) / 1000,
      bytes: data.byteLength - original.byteLength,
    };
  };
  const cold = await once();
  const warm: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const run = await once();
    warm.push(run.ms);
    cpu.push(run.cpuMs);
  }
  warm.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return {
    row,
    coldMs: Math.round(cold.ms),
    medianMs: Math.round(warm[Math.floor(warm.length / 2)] ?? 0),
    slowestMs: Math.round(warm.at(-1) ?? 0),
    cpuMedianMs: Math.round(cpu[Math.floor(cpu.length / 2)] ?? 0),
    addedKiB: Math.round(cold.bytes / 1024),
    faces: loadedFaces().join(' '),
  };
}

const runs = Number(process.env.SIGNET_BENCH_SCRIPTS_RUNS ?? 20);
const only = process.argv[2] as Row | undefined;
if (only) {
  console.log(JSON.stringify(await measure(only, runs)));
} else {
  console.log(
    `certify on a 1-page original (certificate layout and fonts), ${runs} warm runs after a cold one`,
  );
  console.log(
    `load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores (wall times grow with it; CPU times less)`,
  );
  console.log('row      cold ms  median ms  slowest ms  CPU median ms  update KiB  faces parsed');
  for (const row of Object.keys(rows) as Row[]) {
    const out = execFileSync(process.execPath, [new URL(import.meta.url).pathname, row], {
      encoding: 'utf8',
    });
    const r = JSON.parse(out) as Awaited<ReturnType<typeof measure>>;
    console.log(
      `${r.row.padEnd(8)} ${String(r.coldMs).padStart(7)}  ${String(r.medianMs).padStart(9)}  ${String(r.slowestMs).padStart(10)}  ${String(r.cpuMedianMs).padStart(13)}  ${String(r.addedKiB).padStart(10)}  ${r.faces}`,
    );
  }
}
