// The seal from an operator's shell: `signet verify FILE` (the same answer as /verify, read
// from the database like every other command, since it needs this installation's seal
// certificates and its documents' titles) and `signet seal show` (the certificate that seals,
// never its key).
import { readFile, stat } from 'node:fs/promises';
import type { Config } from '../config.ts';
import type { SealDescription } from '../sealing/seal-key.ts';
import { describeSeal } from '../sealing/seal-key.ts';
import {
  formatUtc,
  maxVerifyBytes,
  tooLargeToVerify,
  type Verification,
  verificationFacts,
  verificationSentence,
  verifyPdf,
} from '../sealing/verification.service.ts';
import { parseCommandArgs, UsageError } from './args.ts';
import { print, withContext } from './context.ts';

const json = { json: { type: 'boolean' } } as const;

/**
 * Exit codes of `signet verify` (in the usage text): 0 sealed and unchanged (the exact bytes
 * issued), 1 changed in any way (`change` says how) or not sealed here, 2 not a PDF.
 */
const verifyExitCodes: Record<Verification['verdict'], number> = {
  'sealed-unchanged': 0,
  'changed-after-sealing': 1,
  'not-sealed-here': 1,
  'not-a-pdf': 2,
};

/** Label/value lines, the values in one column. */
function table(rows: Array<[string, string]>): string {
  const width = Math.max(0, ...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`).join('\n');
}

async function fileSize(path: string): Promise<number> {
  try {
    const info = await stat(path);
    if (info.isFile()) return info.size;
  } catch {
    // Said below, the same way for a missing file and a folder.
  }
  throw new UsageError(`${path}: no such file`);
}

export async function verifyCommand(config: Config, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, { ...json }, ['FILE']);
  const path = positionals[0] as string;
  const size = await fileSize(path);
  const result =
    size > maxVerifyBytes(config)
      ? tooLargeToVerify({ config }, size)
      : await withContext(config, 'verify', async (ctx) => verifyPdf(ctx, await readFile(path)));
  const sentence = verificationSentence(result);
  const facts = verificationFacts(result).map((f): [string, string] => [f.label, f.value]);
  print(!!values.json, { ...result, sentence }, facts.length ? `${sentence}\n\n${table(facts)}` : sentence);
  process.exitCode = verifyExitCodes[result.verdict];
}

function sealLines(seal: SealDescription): string {
  const source =
    seal.source === 'p12-file'
      ? `SIGNET_SEAL_P12_FILE (${seal.file})`
      : 'this installation’s own self-signed seal, stored in the database';
  return table([
    ['Subject', seal.subject],
    ['Issuer', seal.issuer],
    ['Serial', seal.serialNumber],
    ['SHA-256 fingerprint', seal.fingerprintSha256],
    ['Valid from', formatUtc(seal.notBefore)],
    ['Valid until', formatUtc(seal.notAfter)],
    ['Key', seal.algorithm],
    ['Source', source],
    ...seal.chain.map((subject): [string, string] => ['Chain', subject]),
  ]);
}

export async function sealCommand(config: Config, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub !== 'show') throw new UsageError('usage: signet seal show [--json]');
  const { values } = parseCommandArgs(rest, { ...json }, []);
  const seal = await withContext(config, 'seal show', (ctx) => describeSeal(ctx));
  print(!!values.json, seal, `The seal certificate of completed documents:\n\n${sealLines(seal)}`);
}
