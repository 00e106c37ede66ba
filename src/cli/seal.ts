// The seal from an operator's shell: `signet verify FILE` (the same answer as /verify, read
// from the database like every other command, since it needs this installation's seal
// certificates and its documents' titles), `signet seal show` (the certificate that seals and
// every self-signed seal stored, never a key) and `signet seal rotate` (a new self-signed seal).
import { readFile, stat } from 'node:fs/promises';
import type { Config } from '../config.ts';
import type { SealDescription, SealSummary } from '../sealing/seal-key.ts';
import { describeSeal, listSeals, rotateSeal } from '../sealing/seal-key.ts';
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

const statusWords: Record<SealSummary['status'], string> = {
  current: 'current',
  retired: 'retired',
  'set-aside': 'not in use (SIGNET_SEAL_P12_FILE is set)',
};

/** One line per stored seal: status, fingerprint, dates, subject. */
function storedSealLines(seals: SealSummary[]): string {
  return seals
    .map((s) => {
      const retired = s.retiredAt ? `, retired ${formatUtc(s.retiredAt)}` : '';
      return `  ${statusWords[s.status]}: ${s.fingerprintSha256}\n    ${s.subject}; made ${formatUtc(s.createdAt)}${retired}`;
    })
    .join('\n');
}

export async function sealCommand(config: Config, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub !== 'show' && sub !== 'rotate') {
    throw new UsageError('usage: signet seal show [--json] | signet seal rotate [--key-lost] [--json]');
  }
  if (sub === 'rotate') {
    const { values } = parseCommandArgs(rest, { ...json, 'key-lost': { type: 'boolean' } }, []);
    const keyLost = !!values['key-lost'];
    const rotation = await withContext(config, 'seal rotate', (ctx) => rotateSeal(ctx, { keyLost }));
    const retired = rotation.retired
      ? `\nRetired: ${rotation.retired.fingerprintSha256} (it still verifies the files it sealed)`
      : '';
    print(
      !!values.json,
      rotation,
      `A new seal seals documents from now on:\n\n${table([
        ['Subject', rotation.seal.subject],
        ['SHA-256 fingerprint', rotation.seal.fingerprintSha256],
        ['Valid until', formatUtc(rotation.seal.notAfter)],
      ])}\n${retired}`,
    );
    return;
  }
  const { values } = parseCommandArgs(rest, { ...json }, []);
  const { seal, seals } = await withContext(config, 'seal show', async (ctx) => ({
    seal: await describeSeal(ctx),
    seals: await listSeals(ctx),
  }));
  print(
    !!values.json,
    { ...seal, seals },
    `The seal certificate of completed documents:\n\n${sealLines(seal)}${
      seals.length
        ? `\n\nSelf-signed seals stored in the database, newest first:\n${storedSealLines(seals)}`
        : ''
    }`,
  );
}
