// Builds the client twice from the same source: ES modules to `<out>/` (tsconfig.build.json)
// and CommonJS to `<out>/cjs/` (tsconfig.cjs.json), each with its own declarations, and
// marks `<out>/cjs/` as CommonJS with a package.json of its own so Node and TypeScript read
// its .js and .d.ts as such. `npm run build -w @signet/client` writes packages/client/dist;
// scripts/pack.ts builds into a folder of its own, so two builds never share files.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

export const packageDir = join(import.meta.dirname, '..');
const tsc = join(createRequire(import.meta.url).resolve('typescript/package.json'), '..', 'bin', 'tsc');

export function buildClient(outDir = join(packageDir, 'dist')): void {
  const out = resolve(outDir);
  rmSync(out, { recursive: true, force: true });
  const compile = (config: string, to: string) =>
    execFileSync(process.execPath, [tsc, '-p', join(packageDir, config), '--outDir', to], {
      stdio: 'inherit',
    });
  compile('tsconfig.build.json', out);
  compile('tsconfig.cjs.json', join(out, 'cjs'));
  mkdirSync(join(out, 'cjs'), { recursive: true });
  writeFileSync(join(out, 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
}

if (import.meta.main) buildClient(process.argv[2]);
