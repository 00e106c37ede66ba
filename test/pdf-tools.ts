// The independent validators the seal tests judge by: poppler's pdfsig and qpdf --check.
// CI installs both (poppler-utils, qpdf); a machine without them fails with a sentence saying
// so instead of skipping, so a green run always means the validators agreed.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type Run = { code: number; stdout: string; stderr: string };

const installHints: Record<string, string> = {
  pdfsig: 'apt-get install poppler-utils',
  qpdf: 'apt-get install qpdf',
};

function run(command: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') {
        reject(
          new Error(
            `${command} is not installed (${installHints[command] ?? command}); the PDF seal tests need it.`,
          ),
        );
      } else reject(error);
    });
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

async function withFile<T>(bytes: Uint8Array, use: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'signet-pdf-'));
  try {
    const path = join(dir, 'file.pdf');
    await writeFile(path, bytes);
    return await use(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export type PdfsigSignature = {
  fieldName: string;
  signatureType: string;
  validation: string; // e.g. 'Signature is Valid.', 'Digest Mismatch.'
  totalDocumentSigned: boolean;
  text: string;
};

/** pdfsig's report, one entry per signature, in the file's order. */
export async function pdfsig(bytes: Uint8Array): Promise<{ signatures: PdfsigSignature[]; output: string }> {
  const result = await withFile(bytes, (path) => run('pdfsig', ['-no-ocsp', path]));
  const output = `${result.stdout}${result.stderr}`;
  const blocks = result.stdout.split(/^Signature #\d+:$/m).slice(1);
  const line = (block: string, label: string) =>
    block
      .split('\n')
      .find((l) => l.trim().startsWith(`- ${label}:`))
      ?.split(`${label}:`)[1]
      ?.trim() ?? '';
  const signatures = blocks.map((block) => ({
    fieldName: line(block, 'Signature Field Name'),
    signatureType: line(block, 'Signature Type'),
    validation: line(block, 'Signature Validation'),
    totalDocumentSigned: /^\s*- Total document signed$/m.test(block),
    text: block,
  }));
  return { signatures, output };
}

/** qpdf --check: exit 0 clean, 3 warnings only, 2 errors. */
export async function qpdfCheck(
  bytes: Uint8Array,
): Promise<{ errors: boolean; warnings: boolean; output: string }> {
  const result = await withFile(bytes, (path) => run('qpdf', ['--check', path]));
  return {
    errors: result.code !== 0 && result.code !== 3,
    warnings: result.code === 3,
    output: `${result.stdout}${result.stderr}`,
  };
}
