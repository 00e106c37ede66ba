// `npm run client:pack`: the release tarball of @signet/client, by one command. Builds ESM
// and CommonJS into a staging folder of its own (scripts/build.ts), beside the README, the
// LICENSE and a package.json made for strangers from the workspace's: no scripts, no
// `@signet/source` condition (it points at the TypeScript source, which only this
// repository has), and `repository` stamped from this clone's `origin` remote when it has
// one with a public address (credentials removed), left out otherwise: the project has no
// public address of its own yet, and inventing one would send readers to a stranger's.
// Writes `<out>/signet-client-<version>.tgz` (default out: release/) and its .sha256; that
// file is what gets published (`npm publish <tgz>`): `npm pack` in the folder refuses.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildClient, packageDir } from './build.ts';

const repositoryRoot = join(packageDir, '..', '..');

export interface PackedClient {
  /** Absolute path of the .tgz. */
  tarball: string;
  sha256: string;
  /** What `repository.url` says in the tarball, or why there is none. */
  repository: { url: string } | { omitted: string };
}

/**
 * The `repository` of the published package.json, from `git remote get-url origin`: an
 * https, ssh or git address with any user name or token removed (ssh keeps its user, `git`);
 * otherwise why there is none: no remote, or a local path or file address (a clone of a
 * clone), which would mean nothing to a reader.
 */
export function repositoryFromRemote(remote: string | null): { url: string } | { omitted: string } {
  if (!remote) return { omitted: 'this clone has no git remote "origin"' };
  const scp = /^[\w.-]+@([\w.-]+):(?!\/)(.+)$/.exec(remote); // git@host:owner/name.git
  let url: URL;
  try {
    url = new URL(scp ? `ssh://git@${scp[1]}/${scp[2]}` : remote);
  } catch {
    return { omitted: `origin (${remote}) is a local path, not a public address` };
  }
  if (!['https:', 'http:', 'ssh:', 'git:'].includes(url.protocol) || url.hostname === '')
    return { omitted: `origin is a ${url.protocol.replace(':', '')} address, not a public one` };
  url.password = '';
  if (url.protocol !== 'ssh:') url.username = '';
  const scheme = url.protocol === 'git:' ? '' : 'git+';
  return { url: `${scheme}${url.toString()}` };
}

function originRemote(): string | null {
  try {
    return execFileSync('git', ['remote', 'get-url', 'origin'], {
      cwd: repositoryRoot,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
  } catch {
    return null;
  }
}

type Manifest = Record<string, unknown> & {
  name: string;
  version: string;
  exports: { '.': Record<string, unknown> };
};

export function packClient(outDir = join(repositoryRoot, 'release')): PackedClient {
  const out = resolve(outDir);
  mkdirSync(out, { recursive: true });
  const stage = mkdtempSync(join(tmpdir(), 'signet-client-pack-'));
  try {
    buildClient(join(stage, 'dist'));
    for (const file of ['README.md', 'LICENSE']) copyFileSync(join(packageDir, file), join(stage, file));
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Manifest;
    const { scripts: _, devDependencies: __, ...published } = manifest;
    const { '@signet/source': ___, ...conditions } = manifest.exports['.'];
    const repository = repositoryFromRemote(originRemote());
    const stamped = {
      ...published,
      exports: { ...manifest.exports, '.': conditions },
      ...('url' in repository
        ? { repository: { type: 'git', url: repository.url, directory: 'packages/client' } }
        : {}),
    };
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(stamped, null, 2)}\n`);
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], {
        cwd: stage,
        stdio: ['ignore', 'pipe', 'inherit'],
      }).toString(),
    ) as [{ filename: string }];
    const tarball = join(out, basename(packed.filename));
    const sha256 = createHash('sha256').update(readFileSync(tarball)).digest('hex');
    writeFileSync(`${tarball}.sha256`, `${sha256}  ${basename(tarball)}\n`);
    return { tarball, sha256, repository };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { 'out-dir': { type: 'string' } } });
  const packed = packClient(values['out-dir']);
  console.log(packed.tarball);
  console.log(`sha256 ${packed.sha256}`);
  console.log(
    'url' in packed.repository
      ? `repository ${packed.repository.url}`
      : `repository left out: ${packed.repository.omitted}`,
  );
}
