// The `signet` command as an operator runs it: real child processes on a temporary PGlite
// data folder, checked by exit code, stdout and stderr. Where a result can only be seen in
// the database (a key that authenticates, seeded documents), the test opens the same data
// folder in-process after the CLI has exited and closes it before the next run, because a
// PGlite data folder belongs to one process at a time.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { type Context, createContext, createLogger } from '../../src/context.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { authenticateApiKey, createApiKey, listApiKeys } from '../../src/keys/keys.service.ts';
import { createWorkspace } from '../../src/workspaces/workspaces.service.ts';
import { type CliResult, describeRun, runSignet } from '../support/cli-process.ts';
import { allEventTypes } from '../support/harness.ts';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const secretPattern = /^sgn_[0-9A-Za-z]{43}$/;
const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const runTimeoutMs = 60_000;

/** Runs `signet ...args` against the PGlite data folder `dir`. */
function runCli(dir: string, args: string[]): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, SIGNET_DATA_DIR: dir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  return runSignet(args, env, runTimeoutMs);
}

/** Exit 0, nothing on stderr, and stdout parsed as JSON. */
function expectJson<T>(result: CliResult): T {
  assert.equal(result.code, 0, describeRun(result));
  assert.equal(result.stderr, '', describeRun(result));
  return JSON.parse(result.stdout) as T;
}

/** The given exit code, nothing on stdout and exactly one `signet: ` line on stderr. */
function expectOneLineFailure(result: CliResult, code: number): string {
  assert.equal(result.code, code, describeRun(result));
  assert.equal(result.stdout, '', describeRun(result));
  const lines = result.stderr.split('\n');
  assert.equal(lines.length, 2, `expected one stderr line:\n${describeRun(result)}`);
  assert.equal(lines[1], '', describeRun(result));
  const line = lines[0] ?? '';
  assert.match(line, /^signet: \S/);
  return line;
}

/**
 * Opens the data folder in this process (the CLI must have exited), runs fn and closes it
 * again before the next CLI run.
 */
async function withDataDir<T>(dir: string, fn: (ctx: Context) => Promise<T>): Promise<T> {
  const database = await openDatabase({ url: null, dataDir: dir });
  try {
    await migrateToLatest(database.db);
    const config = loadConfig({ SIGNET_DATA_DIR: dir, LOG_LEVEL: 'silent' });
    const ctx = await createContext(config, database.db, { log: createLogger('silent') });
    return await fn(ctx);
  } finally {
    await database.close();
  }
}

/** A fresh temporary data folder for the enclosing suite, removed after it. */
function useDataDir(): { path: string } {
  const dir = { path: '' };
  before(() => {
    dir.path = mkdtempSync(join(tmpdir(), 'signet-cli-'));
  });
  after(() => {
    if (dir.path) rmSync(dir.path, { recursive: true, force: true });
  });
  return dir;
}

interface WorkspaceJson {
  id: string;
  name: string;
  plan: string;
  createdAt: string;
}

interface KeyJson {
  id: string;
  workspaceId: string;
  name: string;
  hint: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt?: string | null;
  secret?: string;
}

describe('signet migrate and help', () => {
  const dir = useDataDir();

  test('migrate on a fresh data folder applies the schema and exits 0', async () => {
    const result = await runCli(dir.path, ['migrate']);
    assert.equal(result.code, 0, describeRun(result));
    assert.match(result.stdout, /^Applied \S/);
    assert.equal(result.stderr, '');
  });

  test('a second migrate exits 0 and says there is nothing to apply', async () => {
    const result = await runCli(dir.path, ['migrate']);
    assert.equal(result.code, 0, describeRun(result));
    assert.match(result.stdout, /nothing to apply/);
    assert.equal(result.stderr, '');
  });

  test('--help exits 0 and prints the usage of every command', async () => {
    const result = await runCli(dir.path, ['--help']);
    assert.equal(result.code, 0, describeRun(result));
    assert.match(result.stdout, /^usage: signet <command>/);
    for (const command of ['migrate', 'workspace create', 'workspace set-plan', 'key create', 'seed']) {
      assert.ok(result.stdout.includes(command), `usage mentions ${command}`);
    }
    assert.equal(result.stderr, '');
  });
});

describe('signet workspace', () => {
  const dir = useDataDir();
  let humanCreatedId = '';

  test('workspace create --json prints the new workspace on the max plan by default', async () => {
    const workspace = expectJson<WorkspaceJson>(
      await runCli(dir.path, ['workspace', 'create', '--name', 'Acme', '--json']),
    );
    assert.match(workspace.id, uuidPattern);
    assert.equal(workspace.name, 'Acme');
    assert.equal(workspace.plan, 'max');
    assert.match(workspace.createdAt, isoPattern);
  });

  test('workspace create --plan free creates a workspace on the free plan', async () => {
    const workspace = expectJson<WorkspaceJson>(
      await runCli(dir.path, ['workspace', 'create', '--name', 'Freeloader', '--plan', 'free', '--json']),
    );
    assert.match(workspace.id, uuidPattern);
    assert.equal(workspace.name, 'Freeloader');
    assert.equal(workspace.plan, 'free');
  });

  test('workspace create without --json prints a human line naming the new id', async () => {
    const result = await runCli(dir.path, ['workspace', 'create', '--name', 'Human Inc']);
    assert.equal(result.code, 0, describeRun(result));
    assert.equal(result.stderr, '');
    const match = /^Created workspace ([0-9a-f-]{36}) \(Human Inc, plan max\)\n$/.exec(result.stdout);
    assert.ok(match?.[1], describeRun(result));
    assert.match(match[1], uuidPattern);
    humanCreatedId = match[1];
  });

  test('workspace set-plan ID free --json moves the workspace to the free plan', async () => {
    assert.ok(humanCreatedId, 'needs the workspace created by the previous test');
    const workspace = expectJson<WorkspaceJson>(
      await runCli(dir.path, ['workspace', 'set-plan', humanCreatedId, 'free', '--json']),
    );
    assert.equal(workspace.id, humanCreatedId);
    assert.equal(workspace.name, 'Human Inc');
    assert.equal(workspace.plan, 'free');
  });

  test('workspace set-plan on an unknown workspace id fails with exit code 1', async () => {
    const line = expectOneLineFailure(
      await runCli(dir.path, ['workspace', 'set-plan', randomUUID(), 'max', '--json']),
      1,
    );
    assert.equal(line, 'signet: no such record');
  });
});

describe('signet key', () => {
  const dir = useDataDir();
  let workspaceId = '';
  let key: KeyJson & { secret: string };

  before(async () => {
    const workspace = expectJson<WorkspaceJson>(
      await runCli(dir.path, ['workspace', 'create', '--name', 'Keys Ltd', '--json']),
    );
    workspaceId = workspace.id;
  });

  test('key create --json prints the secret once, with its id, hint and workspace', async () => {
    const created = expectJson<KeyJson>(
      await runCli(dir.path, ['key', 'create', '--workspace', workspaceId, '--name', 'CI', '--json']),
    );
    assert.match(created.secret ?? '', secretPattern);
    const secret = created.secret ?? '';
    assert.match(created.id, uuidPattern);
    assert.equal(created.workspaceId, workspaceId);
    assert.equal(created.name, 'CI');
    assert.equal(created.hint, secret.slice(-4));
    assert.match(created.createdAt, isoPattern);
    assert.equal(created.revokedAt, null);
    key = { ...created, secret };
  });

  test('key list --json shows the key with its last four characters and never the secret', async () => {
    const result = await runCli(dir.path, ['key', 'list', '--workspace', workspaceId, '--json']);
    const keys = expectJson<KeyJson[]>(result);
    assert.equal(keys.length, 1);
    assert.deepEqual(keys[0], {
      id: key.id,
      workspaceId,
      name: 'CI',
      hint: key.secret.slice(-4),
      createdAt: key.createdAt,
      revokedAt: null,
      lastUsedAt: null,
      scope: 'read',
    });
    assert.ok(!result.stdout.includes(key.secret), 'the secret must not appear in key list output');
    assert.ok(!result.stdout.includes(key.secret.slice(4, 20)), 'no part of the secret body is printed');
  });

  test('key create --scope write makes a key that writes; any other scope is a usage error', async () => {
    const created = expectJson<KeyJson & { scope: string }>(
      await runCli(dir.path, [
        'key',
        'create',
        '--workspace',
        workspaceId,
        '--name',
        'CRM',
        '--scope',
        'write',
        '--json',
      ]),
    );
    assert.equal(created.scope, 'write');
    const refused = await runCli(dir.path, ['key', 'create', '--workspace', workspaceId, '--scope', 'admin']);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /--scope must be read or write/);
    const revoked = await runCli(dir.path, ['key', 'revoke', created.id]);
    assert.equal(revoked.code, 0, revoked.stderr);
  });

  test('a key created by the CLI authenticates as its workspace', async () => {
    const identity = await withDataDir(dir.path, (ctx) => authenticateApiKey(ctx, key.secret));
    assert.deepEqual(identity, { keyId: key.id, workspaceId, plan: 'max', scope: 'read' });
  });

  test('key revoke --json marks the key revoked', async () => {
    const revoked = expectJson<KeyJson>(await runCli(dir.path, ['key', 'revoke', key.id, '--json']));
    assert.equal(revoked.id, key.id);
    assert.equal(revoked.secret, undefined);
    assert.match(revoked.revokedAt ?? '', isoPattern);
    const keys = expectJson<KeyJson[]>(
      await runCli(dir.path, ['key', 'list', '--workspace', workspaceId, '--json']),
    );
    // The write key of the test above was made and revoked beside it.
    assert.deepEqual(
      keys.filter((k) => k.id === key.id).map((k) => k.revokedAt),
      [revoked.revokedAt],
    );
  });

  test('a revoked key no longer authenticates', async () => {
    const identity = await withDataDir(dir.path, (ctx) => authenticateApiKey(ctx, key.secret));
    assert.equal(identity, null);
  });

  test('key revoke of an unknown key id fails with exit code 1', async () => {
    const line = expectOneLineFailure(await runCli(dir.path, ['key', 'revoke', randomUUID()]), 1);
    assert.equal(line, 'signet: no such record');
  });

  test('key create for an unknown workspace fails with exit code 1', async () => {
    const line = expectOneLineFailure(
      await runCli(dir.path, ['key', 'create', '--workspace', randomUUID(), '--json']),
      1,
    );
    assert.equal(line, 'signet: no such record');
  });

  test('key list for an unknown workspace fails with exit code 1', async () => {
    const line = expectOneLineFailure(
      await runCli(dir.path, ['key', 'list', '--workspace', randomUUID()]),
      1,
    );
    assert.equal(line, 'signet: no such record');
  });

  describe('the limit of 10 active keys per workspace', () => {
    let fullWorkspaceId = '';
    let firstKeyId = '';

    before(async () => {
      // Ten keys in-process: ten more CLI runs would only cost time.
      await withDataDir(dir.path, async (ctx) => {
        const workspace = await createWorkspace(ctx, { name: 'Full House', plan: 'max' });
        fullWorkspaceId = workspace.id;
        for (let i = 0; i < 10; i++) {
          const created = await createApiKey(ctx, { workspaceId: workspace.id, name: `key ${i}` });
          if (i === 0) firstKeyId = created.id;
        }
      });
    });

    test('an 11th active key is refused with exit code 1 and one stderr line', async () => {
      const line = expectOneLineFailure(
        await runCli(dir.path, ['key', 'create', '--workspace', fullWorkspaceId, '--json']),
        1,
      );
      assert.match(line, /maximum number of active API keys \(10\)/);
      const keys = await withDataDir(dir.path, (ctx) => listApiKeys(ctx, fullWorkspaceId));
      assert.equal(keys.length, 10);
      assert.ok(keys.every((k) => k.revokedAt === null));
    });

    test('after revoking one of ten active keys, a new key can be created', async () => {
      const revoked = expectJson<KeyJson>(await runCli(dir.path, ['key', 'revoke', firstKeyId, '--json']));
      assert.notEqual(revoked.revokedAt, null);
      const created = expectJson<KeyJson>(
        await runCli(dir.path, ['key', 'create', '--workspace', fullWorkspaceId, '--json']),
      );
      assert.match(created.secret ?? '', secretPattern);
      assert.equal(created.workspaceId, fullWorkspaceId);
    });
  });
});

describe('signet seed', () => {
  const dir = useDataDir();
  let seeded: { workspaceId: string; apiKey: string; documents: number };

  test('seed --documents 30 --json prints the workspace id, a working-format API key and the count', async () => {
    seeded = expectJson(await runCli(dir.path, ['seed', '--documents', '30', '--json']));
    assert.deepEqual(Object.keys(seeded).sort(), ['apiKey', 'documents', 'workspaceId']);
    assert.match(seeded.workspaceId, uuidPattern);
    assert.match(seeded.apiKey, secretPattern);
    assert.equal(seeded.documents, 30);
  });

  test('the seeded workspace holds exactly 30 documents and its API key authenticates', async () => {
    assert.ok(seeded, 'needs the seed run of the previous test');
    const { count, identity } = await withDataDir(dir.path, async (ctx) => {
      const row = await ctx.db
        .selectFrom('documents')
        .select((eb) => eb.fn.countAll<string | number>().as('count'))
        .where('workspace_id', '=', seeded.workspaceId)
        .executeTakeFirstOrThrow();
      return { count: Number(row.count), identity: await authenticateApiKey(ctx, seeded.apiKey) };
    });
    assert.equal(count, 30);
    assert.equal(identity?.workspaceId, seeded.workspaceId);
    assert.equal(identity?.plan, 'max');
  });
});

describe('signet usage errors', () => {
  const dir = useDataDir();
  const someId = randomUUID();
  // [label, argv, what the one line must say]
  const cases: Array<[string, string[], RegExp]> = [
    ['an unknown command', ['frobnicate'], /unknown command "frobnicate"/],
    ['workspace without a subcommand', ['workspace'], /usage: signet workspace/],
    ['workspace create without --name', ['workspace', 'create'], /--name must not be empty/],
    [
      'workspace create with an unknown plan',
      ['workspace', 'create', '--name', 'X', '--plan', 'gold'],
      /plan must be max or free/,
    ],
    [
      'key create with a workspace id that is not a UUID',
      ['key', 'create', '--workspace', 'not-a-uuid'],
      /--workspace must be a UUID/,
    ],
    ['key create with an unknown option', ['key', 'create', '--workspace', someId, '--bogus'], /--bogus/],
    [
      'seed with a negative document count',
      ['seed', '--documents', '-5'],
      /--documents must be a positive whole number/,
    ],
    [
      'seed with a zero document count',
      ['seed', '--documents', '0'],
      /--documents must be a positive whole number/,
    ],
    [
      'seed with a non-numeric document count',
      ['seed', '--documents', 'abc'],
      /--documents must be a positive whole number/,
    ],
    ['key revoke without a key id', ['key', 'revoke'], /missing argument KEY_ID$/],
    ['workspace set-plan without a plan', ['workspace', 'set-plan', someId], /missing argument PLAN$/],
    ['webhook test without an endpoint id', ['webhook', 'test'], /missing argument ENDPOINT_ID$/],
    ['backup without a file', ['backup'], /missing argument FILE$/],
    ['restore without a file', ['restore'], /missing argument FILE$/],
  ];

  for (const [label, args, says] of cases) {
    test(`${label} exits 2 with one "signet: " line on stderr that says why`, async () => {
      assert.match(expectOneLineFailure(await runCli(dir.path, args), 2), says);
    });
  }
});

describe('signet COMMAND --help and --version', () => {
  const dir = useDataDir();
  const commands: Array<[string, string[]]> = [
    ['serve', ['serve']],
    ['migrate', ['migrate']],
    ['workspace', ['workspace create', 'workspace set-plan']],
    ['key', ['key create', 'key list', 'key revoke']],
    ['seed', ['seed']],
    ['document', ['document create', 'document send']],
    ['trigger', ['trigger']],
    ['mail', ['mail list']],
    ['webhook', ['webhook test', 'webhook deliveries']],
    ['listen', ['listen --api-url URL --api-key KEY', 'listen --workspace ID']],
    ['backup', ['backup FILE']],
    ['restore', ['restore FILE']],
  ];
  for (const [command, lines] of commands) {
    test(`${command} --help prints only that command's usage and exits 0`, async () => {
      const result = await runCli(dir.path, [command, '--help']);
      assert.equal(result.code, 0, describeRun(result));
      assert.equal(result.stderr, '');
      assert.match(result.stdout, /^usage:\n/);
      for (const line of lines) assert.ok(result.stdout.includes(`  signet ${line}`), result.stdout);
      const others = commands.filter(([other]) => other !== command).map(([other]) => `  signet ${other} `);
      for (const other of others) assert.ok(!result.stdout.includes(other), `${other} in ${result.stdout}`);
    });
  }

  test('trigger --help names every event type it can trigger', async () => {
    const result = await runCli(dir.path, ['trigger', '--help']);
    assert.equal(result.code, 0, describeRun(result));
    for (const type of allEventTypes) assert.ok(result.stdout.includes(type), `${type} in ${result.stdout}`);
  });

  test('a subcommand with --help prints its command usage too', async () => {
    const result = await runCli(dir.path, ['key', 'create', '--help']);
    assert.equal(result.code, 0, describeRun(result));
    assert.match(result.stdout, /signet key create --workspace ID/);
  });

  test('--version prints the version of package.json', async () => {
    const { version } = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'),
    );
    const result = await runCli(dir.path, ['--version']);
    assert.equal(result.code, 0, describeRun(result));
    assert.equal(result.stdout, `signet ${version}\n`);
  });
});
