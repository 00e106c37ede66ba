// The deployment files against what they describe, so that they cannot drift apart
// unnoticed: docs/deployment.md's configuration table names exactly the variables
// src/config.ts reads (and nothing else in src/ reads the environment); compose.yaml runs
// two API processes and two workers on the same PostgreSQL and Redis, after the migration,
// with time to drain; the Dockerfile is node:24-slim, non-root, production dependencies.
// There is no YAML parser among the dependencies, and none is added for this: compose.yaml
// is read line by line, which its plain block style allows.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { loadConfig, parseDurationMs } from '../../src/config.ts';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Every `read…(env, 'NAME', …)` of src/config.ts. */
function variablesReadByConfig(): Set<string> {
  const source = read('src/config.ts').replace(/^\s*\/\/.*$/gm, '');
  // The names are found as the string arguments after `env`: that holds only while env
  // is indexed nowhere but by readOptional's `env[name]`.
  assert.deepEqual(source.match(/\benv\s*(\.\s*\w+|\[[^\]]*\])/g), ['env[name]'], 'env read only by name');
  return new Set([...source.matchAll(/\benv,\s*'([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1] as string));
}

/** The first column of the table under "## Configuration" in docs/deployment.md. */
function variablesInDocsTable(): string[] {
  const docs = read('docs/deployment.md');
  const section = docs.split(/^## Configuration$/m)[1]?.split(/^## /m)[0];
  assert.ok(section, 'docs/deployment.md has a "## Configuration" section');
  return [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1] as string);
}

test('nothing in src/ but config.ts reads process.env', () => {
  const readers = sourceFiles(join(root, 'src'))
    .filter((file) =>
      /\bprocess\s*(\.\s*env\b|\[\s*['"`]env)|\{[^}]*\benv\b[^}]*\}\s*=\s*process\b/.test(
        readFileSync(file, 'utf8'),
      ),
    )
    .map((file) => relative(root, file));
  assert.deepEqual(readers, ['src/config.ts']);
});

test('the configuration table lists exactly the variables config.ts reads, once each', () => {
  const names = variablesReadByConfig();
  const documented = variablesInDocsTable();
  assert.ok(names.size >= 20 && names.has('DATABASE_URL') && names.has('PORT'), [...names].join(', '));
  assert.deepEqual(
    documented.filter((name, i) => documented.indexOf(name) !== i),
    [],
    'rows documented twice',
  );
  assert.deepEqual(
    [...names].filter((name) => !documented.includes(name)),
    [],
    'read by src/config.ts, missing from the table in docs/deployment.md',
  );
  assert.deepEqual(
    documented.filter((name) => !names.has(name)),
    [],
    'in the table of docs/deployment.md, never read by src/config.ts',
  );
});

interface ComposeService {
  name: string;
  lines: string[];
  /** The value of `  KEY: value` in its environment, or undefined. */
  env(key: string): string | undefined;
}

/** compose.yaml's services, each with its lines (block style, two-space indent). */
function composeServices(): ComposeService[] {
  const lines = read('compose.yaml').split('\n');
  const start = lines.indexOf('services:');
  assert.ok(start >= 0, 'compose.yaml has a top-level services: key');
  const services: ComposeService[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line)) break;
    const header = /^ {2}([A-Za-z0-9_-]+):\s*$/.exec(line);
    if (header) {
      const lines: string[] = [];
      services.push({
        name: header[1] as string,
        lines,
        env: (key) => {
          const match = lines.map((l) => new RegExp(`^ {6}${key}: "?([^"]*)"?$`).exec(l)).find(Boolean);
          return match?.[1];
        },
      });
    } else services.at(-1)?.lines.push(line);
  }
  return services;
}

test('compose.yaml: two API processes and two workers on one PostgreSQL and Redis, after the migration', () => {
  const services = composeServices();
  const signet = services.filter((s) => s.lines.some((l) => /^ {4}image: signet[:\s]/.test(l)));
  const roleOf = (s: ComposeService) =>
    /^ {4}command: \["serve", "--role", "(api|worker)"\]$/m.exec(s.lines.join('\n'))?.[1] ?? null;
  const replicasOf = (s: ComposeService) =>
    Number(/^ {6}replicas: (\d+)$/m.exec(s.lines.join('\n'))?.[1] ?? 1);
  const processes = (role: string) =>
    signet.filter((s) => roleOf(s) === role).reduce((sum, s) => sum + replicasOf(s), 0);

  assert.equal(processes('api'), 2, 'API processes (serve --role api)');
  assert.equal(processes('worker'), 2, 'workers (serve --role worker)');
  const migrate = signet.filter((s) => s.lines.includes('    command: ["migrate"]'));
  assert.equal(migrate.length, 1, 'one migrate service');
  assert.ok(
    services.some((s) => s.lines.includes('    image: postgres:15')),
    'PostgreSQL 15',
  );
  assert.ok(
    services.some((s) => s.lines.some((l) => /^ {4}image: redis:7\b/.test(l))),
    'Redis 7',
  );

  const defaultShutdownMs = loadConfig({}).shutdownTimeoutMs;
  for (const service of signet) {
    assert.match(service.env('DATABASE_URL') ?? '', /^postgres:\/\/[^@]+@postgres:5432\//, service.name);
    assert.match(service.env('REDIS_URL') ?? '', /^redis:\/\/redis:6379$/, service.name);
    const role = roleOf(service);
    if (role === null) continue;
    const text = service.lines.join('\n');
    assert.match(
      text,
      /^ {6}migrate:\n {8}condition: service_completed_successfully$/m,
      `${service.name} starts after the migration`,
    );
    assert.match(text, /^ {6}postgres:\n {8}condition: service_healthy$/m, service.name);
    assert.match(text, /^ {6}redis:\n {8}condition: service_healthy$/m, service.name);
    // serve exits at the latest 5 s after SIGNET_SHUTDOWN_TIMEOUT: the grace must exceed that.
    const shutdown = service.env('SIGNET_SHUTDOWN_TIMEOUT');
    const shutdownMs = shutdown === undefined ? defaultShutdownMs : parseDurationMs(shutdown);
    const grace = /^ {4}stop_grace_period: (\S+)$/m.exec(text)?.[1];
    assert.ok(shutdownMs !== null && grace !== undefined, `${service.name}: stop_grace_period`);
    assert.ok((parseDurationMs(grace) ?? 0) > shutdownMs + 5000, `${service.name}: ${grace} to drain`);
    // A worker has no main listener: its health check must ask the metrics port.
    if (role === 'worker') {
      const port = service.env('SIGNET_METRICS_PORT');
      assert.ok(port && text.includes(`127.0.0.1:${port}/healthz`), `${service.name}: health check`);
    }
  }
});

test('the Dockerfile: node:24-slim, production dependencies, a non-root user, health and SIGTERM', () => {
  const dockerfile = read('Dockerfile');
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => /^[A-Z]/.test(line));
  assert.deepEqual(
    instructions.filter((l) => l.startsWith('FROM ')),
    ['FROM node:24-slim'],
  );
  assert.ok(
    instructions.some((l) => /^RUN .*\bnpm ci --omit=dev\b/.test(l)),
    'npm ci --omit=dev',
  );
  const users = instructions.filter((l) => l.startsWith('USER '));
  assert.ok(users.length > 0, 'a USER line');
  const user = (users.at(-1) as string).slice('USER '.length).trim();
  assert.doesNotMatch(user, /^(root|0)(:|$)/, 'the process does not run as root');
  assert.ok(
    instructions.some((l) => /^HEALTHCHECK .*\/healthz/.test(l)),
    'HEALTHCHECK on /healthz',
  );
  assert.ok(instructions.includes('STOPSIGNAL SIGTERM'));
  assert.ok(instructions.includes('EXPOSE 3000'));

  // The build context is an allowlist: whatever is copied must be let in, and no more.
  const allowed = read('.dockerignore')
    .split('\n')
    .filter((line) => line.startsWith('!'))
    .map((line) => line.slice(1).replace(/\/$/, ''));
  const copied = instructions
    .filter((l) => l.startsWith('COPY '))
    .flatMap((l) =>
      l
        .split(/\s+/)
        .slice(1, -1)
        .filter((word) => !word.startsWith('--')),
    )
    .map((source) => source.replace(/\/$/, ''));
  assert.deepEqual([...allowed].sort(), [...new Set(copied)].sort());
  assert.ok(read('.dockerignore').split('\n').includes('*'), '.dockerignore starts from nothing');
});
