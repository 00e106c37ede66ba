// Part of `npm run check`: packs the release tarball into a folder of its own and has two
// outside judges read it as a stranger's package manager would: @arethetypeswrong/cli
// (types resolve, and say ESM or CommonJS truly, under node10, node16 from CommonJS and from
// ESM, and bundlers) and publint (exports, files and fields agree with what is packed).
// Fails on any problem either reports.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageDir } from './build.ts';
import { packClient } from './pack.ts';

const bin = (name: string) => join(packageDir, '..', '..', 'node_modules', '.bin', name);
const out = mkdtempSync(join(tmpdir(), 'signet-client-check-'));
try {
  const { tarball } = packClient(out);
  execFileSync(bin('attw'), [tarball], { stdio: 'inherit' });
  execFileSync(bin('publint'), ['run', tarball, '--strict'], { stdio: 'inherit' });
} finally {
  rmSync(out, { recursive: true, force: true });
}
