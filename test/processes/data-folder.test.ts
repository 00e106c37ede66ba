// The embedded database's data folder as operators use it: `signet serve` running in one
// process and every database command of the CLI in others, all on one PGlite folder.
// Writes made by a command must reach the running server at once (through its socket,
// never by opening the files a second time) and survive its restart; a SIGKILLed server's
// lock is taken over with nothing committed lost; a second server refuses to start; a
// backup taken while the server writes restores into a folder that serves the same data.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { verifyWebhook } from '../../packages/client/src/index.ts';
import { demoSampleDocuments } from '../../src/cli/serve.ts';
import { type CliResult, describeRun, mainScript, runSignet } from '../support/cli-process.ts';
import { contractFetch } from '../support/contract.ts';
import { createEmptyPostgresDatabase, databaseKinds, testSealKey } from '../support/harness.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';

const secretPattern = /^sgn_[0-9A-Za-z]{43}$/;

function environment(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SIGNET_DATA_DIR: dir,
    LOG_LEVEL: 'warn',
    PORT: '0',
    SIGNET_WEBHOOK_ALLOW_UNSAFE: '1',
    // The writer in the backup test sends hundreds of requests with one key.
    SIGNET_RATE_LIMIT_BURST: '1000000',
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return env;
}

function signet(dir: string, args: string[]): Promise<CliResult> {
  return runSignet(args, environment(dir));
}

async function signetJson<T>(dir: string, args: string[]): Promise<T> {
  const result = await signet(dir, [...args, '--json']);
  assert.equal(result.code, 0, describeRun(result));
  return JSON.parse(result.stdout) as T;
}

interface Server {
  url: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for a clean exit. */
  stop(): Promise<number | null>;
  /** SIGKILL: no shutdown code runs. */
  kill(): Promise<void>;
}

const runningServers = new Set<ChildProcess>();

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Starts `signet serve` on `dir` and resolves once it prints where it listens. */
function startServe(dir: string, args: string[] = [], extraEnv: NodeJS.ProcessEnv = {}): Promise<Server> {
  const child = spawn(process.execPath, [mainScript, 'serve', ...args], {
    env: { ...environment(dir), ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  runningServers.add(child);
  child.once('exit', () => runningServers.delete(child));
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 60_000);
    const onData = (chunk: string) => {
      output += chunk;
      const match = /Signet is running at (http:\/\/\S+)/.exec(output);
      if (match && /Press Ctrl\+C to stop/.test(output)) {
        clearTimeout(timer);
        resolve({
          url: match[1] as string,
          child,
          output: () => output,
          stop: async () => {
            child.kill('SIGTERM');
            return exited(child);
          },
          kill: async () => {
            child.kill('SIGKILL');
            await exited(child);
          },
        });
      }
    };
    child.stdout?.setEncoding('utf8').on('data', onData);
    child.stderr?.setEncoding('utf8').on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before listening:\n${output}`));
    });
  });
}

// biome-ignore lint/suspicious/noExplicitAny: the tests read whatever the API returned
type ApiBody = { ok: boolean; data?: any; error?: string; nextCursor?: string | null };

async function api(server: Server, key: string, path: string, init: RequestInit = {}) {
  const response = await contractFetch(`${server.url}/v1${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${key}`,
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
  });
  return {
    status: response.status,
    body: (await response.json()) as ApiBody,
  };
}

/** Polls until `check` passes, for at most `withinMs`; returns how long it took. */
async function within(withinMs: number, check: () => Promise<boolean>, what: string): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > withinMs) assert.fail(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function useDataDir(): { path: string } {
  const dir = { path: '' };
  before(() => {
    dir.path = mkdtempSync(join(tmpdir(), 'signet-folder-'));
  });
  after(async () => {
    for (const child of runningServers) {
      child.kill('SIGKILL');
      await exited(child);
    }
    if (dir.path) rmSync(dir.path, { recursive: true, force: true });
  });
  return dir;
}

interface Key {
  id: string;
  secret?: string;
  revokedAt: string | null;
}

describe('CLI commands while signet serve runs on the same data folder', () => {
  const dir = useDataDir();
  let server: Server;
  let receiver: Receiver;
  let workspaceId: string;
  let liveKey: string;
  let revokedKeyId: string;
  let documentId: string;

  before(async () => {
    receiver = await startReceiver();
    server = await startServe(dir.path);
  });
  after(async () => {
    await receiver?.close();
  });

  test('the running server owns the folder: lock, socket and control socket are there', () => {
    const lock = JSON.parse(readFileSync(join(dir.path, 'signet.lock'), 'utf8'));
    assert.equal(lock.pid, server.child.pid);
    assert.equal(lock.command, 'serve');
    assert.ok(existsSync(join(lock.socketDir, '.s.PGSQL.5432')));
    assert.ok(existsSync(lock.controlSocket));
    assert.ok(existsSync(join(dir.path, 'pgdata', 'PG_VERSION')));
  });

  test('migrate goes through the server and finds nothing to apply', async () => {
    const result = await signet(dir.path, ['migrate']);
    assert.equal(result.code, 0, describeRun(result));
    assert.match(result.stdout, /nothing to apply/);
  });

  test('workspace create and key create: the new key authenticates on the running server within a second', async () => {
    const workspace = await signetJson<{ id: string }>(dir.path, ['workspace', 'create', '--name', 'Live']);
    workspaceId = workspace.id;
    const key = await signetJson<Key>(dir.path, ['key', 'create', '--workspace', workspaceId]);
    assert.match(key.secret ?? '', secretPattern);
    liveKey = key.secret as string;
    await within(1000, async () => (await api(server, liveKey, '/documents')).status === 200, 'key works');
  });

  test('workspace set-plan reaches the server within a second, both ways', async () => {
    await signetJson(dir.path, ['workspace', 'set-plan', workspaceId, 'free']);
    await within(
      1000,
      async () => (await api(server, liveKey, '/documents')).status === 403,
      'plan-required',
    );
    await signetJson(dir.path, ['workspace', 'set-plan', workspaceId, 'max']);
    await within(1000, async () => (await api(server, liveKey, '/documents')).status === 200, 'back on max');
  });

  test('key revoke: the server refuses the revoked key within a second', async () => {
    const doomed = await signetJson<Key>(dir.path, ['key', 'create', '--workspace', workspaceId]);
    await within(
      1000,
      async () => (await api(server, doomed.secret as string, '/documents')).status === 200,
      'new key',
    );
    await signetJson(dir.path, ['key', 'revoke', doomed.id]);
    revokedKeyId = doomed.id;
    await within(
      1000,
      async () => (await api(server, doomed.secret as string, '/documents')).status === 401,
      'revoked key refused',
    );
    const keys = await signetJson<Key[]>(dir.path, ['key', 'list', '--workspace', workspaceId]);
    assert.equal(keys.length, 2);
    assert.ok(keys.find((k) => k.id === doomed.id)?.revokedAt);
  });

  test('document create and send: the server serves the document, mails it, and delivers its webhook', async () => {
    const endpoint = await api(server, liveKey, '/webhook-endpoints', {
      method: 'POST',
      body: JSON.stringify({ url: `${receiver.url}/hooks`, events: ['document.sent', 'document.completed'] }),
    });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    const created = await signetJson<{ id: string; status: string }>(dir.path, [
      'document',
      'create',
      '--workspace',
      workspaceId,
      '--title',
      'Made by the CLI',
      '--body',
      'The parties agree.',
      '--recipient',
      'signer@example.com,Sam Signer,signer,1',
    ]);
    documentId = created.id;
    await within(
      1000,
      async () => (await api(server, liveKey, `/documents/${documentId}`)).body.data?.status === 'draft',
      'document visible',
    );
    await signetJson(dir.path, ['document', 'send', documentId]);
    const detail = await api(server, liveKey, `/documents/${documentId}`);
    assert.equal(detail.body.data.status, 'sent');
    // The outbox NOTIFY of the CLI's transaction wakes the server's worker.
    await within(
      1000,
      async () =>
        receiver.requests.some((r) => r.body.includes(documentId) && r.body.includes('document.sent')),
      'document.sent delivered',
    );
    const mails = await signetJson<Array<{ text: string }>>(dir.path, [
      'mail',
      'list',
      '--document',
      documentId,
    ]);
    assert.equal(mails.length, 1);
    // The command made the link with the running server's address (PORT=0 here, so not the
    // default http://127.0.0.1:3000). Not opened: that would make the document viewed.
    assert.match(mails[0]?.text ?? '', new RegExp(`${server.url}/sign/${documentId}/\\S+`));
  });

  test('trigger drives a sample document to completion and the server delivers document.completed', async () => {
    const result = await signetJson<{ documentId: string }>(dir.path, [
      'trigger',
      'document.completed',
      '--workspace',
      workspaceId,
    ]);
    await within(
      1000,
      async () =>
        receiver.requests.some(
          (r) => r.body.includes(result.documentId) && r.body.includes('document.completed'),
        ),
      'document.completed delivered',
    );
  });

  test('webhook test and webhook deliveries work through the server', async () => {
    const list = await api(server, liveKey, '/webhook-endpoints');
    const endpointId = (list.body.data as Array<{ id: string }>)[0]?.id as string;
    const ping = await signetJson<{ ok: boolean; statusCode: number }>(dir.path, [
      'webhook',
      'test',
      endpointId,
    ]);
    assert.equal(ping.ok, true);
    assert.equal(ping.statusCode, 200);
    const deliveries = await signetJson<Array<{ eventType: string }>>(dir.path, [
      'webhook',
      'deliveries',
      endpointId,
    ]);
    assert.ok(deliveries.some((d) => d.eventType === 'ping'));
    assert.ok(deliveries.some((d) => d.eventType === 'document.sent'));
  });

  test('seed creates a workspace whose key works on the running server at once', async () => {
    const seeded = await signetJson<{ apiKey: string; documents: number }>(dir.path, [
      'seed',
      '--documents',
      '12',
    ]);
    assert.equal(seeded.documents, 12);
    const page = await api(server, seeded.apiKey, '/documents?limit=100');
    assert.equal(page.status, 200);
    assert.equal(page.body.data.length, 12);
  });

  test('user create: the new login works on the running server at once', async () => {
    const created = await runSignet(
      [
        'user',
        'create',
        '--email',
        'ops@example.com',
        '--password-stdin',
        '--workspace',
        workspaceId,
        '--json',
      ],
      environment(dir.path),
      60_000,
      'a long enough password\n',
    );
    assert.equal(created.code, 0, describeRun(created));
    const login = await fetch(`${server.url}/login`);
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await login.text())?.[1] ?? '';
    const signedIn = await fetch(`${server.url}/login`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        _csrf: csrf,
        email: 'ops@example.com',
        password: 'a long enough password',
      }),
      redirect: 'manual',
    });
    assert.equal(signedIn.status, 303);
    assert.equal(signedIn.headers.get('location'), '/documents');
  });

  test('everything written through the server is still there after it restarts', async () => {
    assert.equal(await server.stop(), 0, server.output());
    assert.equal(existsSync(join(dir.path, 'signet.lock')), false, 'a clean stop releases the folder');
    server = await startServe(dir.path);
    assert.equal((await api(server, liveKey, `/documents/${documentId}`)).body.data.status, 'sent');
    const keys = await signetJson<Key[]>(dir.path, ['key', 'list', '--workspace', workspaceId]);
    assert.ok(keys.find((k) => k.id === revokedKeyId)?.revokedAt);
    const revoked = keys.filter((k) => k.revokedAt === null);
    assert.equal(revoked.length, 1);
    assert.equal((await api(server, liveKey, '/documents')).status, 200);
  });

  test('a second signet serve on the folder exits non-zero with one line naming the owner; the first keeps serving', async () => {
    const second = await signet(dir.path, ['serve']);
    assert.notEqual(second.code, 0, describeRun(second));
    assert.equal(second.stdout, '');
    const lines = second.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, describeRun(second));
    assert.match(lines[0] as string, /^signet: the data folder .* is in use by "signet serve" \(pid \d+/);
    assert.ok(lines[0]?.includes(`pid ${server.child.pid}`));
    assert.equal((await api(server, liveKey, '/documents')).status, 200);
    const lock = JSON.parse(readFileSync(join(dir.path, 'signet.lock'), 'utf8'));
    assert.equal(lock.pid, server.child.pid);
  });
});

describe('a server killed with SIGKILL', () => {
  const dir = useDataDir();

  test('the next command takes its stale lock over and finds every committed write', async () => {
    let server = await startServe(dir.path);
    const workspace = await signetJson<{ id: string }>(dir.path, ['workspace', 'create', '--name', 'Crash']);
    const keys: Key[] = [];
    for (let i = 0; i < 3; i++) {
      keys.push(await signetJson<Key>(dir.path, ['key', 'create', '--workspace', workspace.id]));
    }
    // A write the server commits itself, right before it dies.
    const endpoint = await api(server, keys[0]?.secret as string, '/webhook-endpoints', {
      method: 'POST',
      body: JSON.stringify({ url: 'http://127.0.0.1:9/x', events: ['document.sent'] }),
    });
    assert.equal(endpoint.status, 201);
    await server.kill();
    assert.ok(existsSync(join(dir.path, 'signet.lock')), 'SIGKILL leaves the lock behind');

    const listed = await signetJson<Key[]>(dir.path, ['key', 'list', '--workspace', workspace.id]);
    assert.deepEqual(listed.map((k) => k.id).sort(), keys.map((k) => k.id).sort());
    assert.equal(existsSync(join(dir.path, 'signet.lock')), false, 'the command released the folder');

    await startServe(dir.path).then(async (s) => {
      await s.kill(); // and once more, then serve takes the lock over itself
    });
    server = await startServe(dir.path);
    for (const key of keys) assert.equal((await api(server, key.secret as string, '/documents')).status, 200);
    const endpoints = await api(server, keys[0]?.secret as string, '/webhook-endpoints');
    assert.equal(endpoints.body.data.length, 1);
    assert.equal(await server.stop(), 0);
  });
});

describe('backup while the server answers writes, restored into a new folder', () => {
  const dir = useDataDir();
  const restored = useDataDir();

  test('the restored folder serves the same documents and keys', async () => {
    const server = await startServe(dir.path);
    const seeded = await signetJson<{ apiKey: string; workspaceId: string }>(dir.path, [
      'seed',
      '--documents',
      '40',
    ]);
    const key = seeded.apiKey;
    // Writes keep arriving through the API while the backup is taken.
    let writing = true;
    const written: string[] = [];
    const writer = (async () => {
      while (writing) {
        const response = await api(server, key, '/webhook-endpoints', {
          method: 'POST',
          body: JSON.stringify({ url: `http://127.0.0.1:9/${written.length}`, events: ['document.sent'] }),
        });
        if (response.status !== 201) break;
        written.push(response.body.data.id);
        const list = await api(server, key, '/webhook-endpoints');
        if (list.status !== 200) break;
        const oldest = (list.body.data as Array<{ id: string }>)[0];
        if (list.body.data.length >= 10 && oldest) {
          await api(server, key, `/webhook-endpoints/${oldest.id}`, { method: 'DELETE' });
        }
      }
    })();
    const file = join(restored.path, 'backup.tar.gz');
    const backup = await signet(dir.path, ['backup', file]);
    writing = false;
    await writer;
    assert.equal(backup.code, 0, describeRun(backup));
    assert.match(backup.stdout, /^Backed up .* to .*backup\.tar\.gz/);
    assert.ok(written.length > 0, 'writes went on during the backup');

    const originalDocuments = (await api(server, key, '/documents?limit=100')).body.data;
    assert.equal(await server.stop(), 0);

    const target = join(restored.path, 'data');
    const restore = await signet(target, ['restore', file]);
    assert.equal(restore.code, 0, describeRun(restore));
    assert.match(restore.stdout, /1 workspaces, 40 documents/);
    const again = await signet(target, ['restore', file]);
    assert.equal(again.code, 1, 'a folder that holds a database is not overwritten without --force');

    // The seal is made when the first worker starts (issue 50), and seal.key is not part of a
    // backup (docs/deployment.md, "Backups"): without it the worker refuses to start, saying so;
    // with it put back, as the guide says, the restored folder seals with the same seal.
    await assert.rejects(startServe(target), /does not match the database's seal/);
    copyFileSync(join(dir.path, 'seal.key'), join(target, 'seal.key'));
    chmodSync(join(target, 'seal.key'), 0o600);
    const copy = await startServe(target);
    const restoredDocuments = (await api(copy, key, '/documents?limit=100')).body.data;
    // Each server names its own address in a document's url (both listen on PORT=0).
    const samePaths = (documents: Array<{ url: string }>, server: Server) =>
      documents.map((d) => ({ ...d, url: d.url.replace(server.url, '') }));
    assert.deepEqual(samePaths(restoredDocuments, copy), samePaths(originalDocuments, server));
    const first = originalDocuments[0] as { id: string };
    assert.equal((await api(copy, key, `/documents/${first.id}`)).status, 200);
    assert.equal(await copy.stop(), 0);
  });
});

describe('npm start (signet serve --demo)', () => {
  const dir = useDataDir();

  function demoOf(server: Server): { key: string; link: string } {
    const key = /Demo API key: +(sgn_\S+)/.exec(server.output())?.[1];
    const link = /^ +(http:\/\/\S+\/sign\/\S+)$/m.exec(server.output())?.[1];
    assert.ok(key && link, server.output());
    return { key, link };
  }

  async function countDocuments(server: Server, key: string): Promise<number> {
    const page = await api(server, key, '/documents?limit=100');
    assert.equal(page.body.nextCursor, null);
    return page.body.data.length;
  }

  test('every start prints a signing link that can still be signed', async () => {
    let server = await startServe(dir.path, ['--demo']);
    const first = demoOf(server);
    assert.equal(await countDocuments(server, first.key), demoSampleDocuments + 1);
    // The banner's two keys: the read one is refused a write; the write one makes a draft.
    const writeKey = /Demo write key: +(sgn_\S+) +read and write/.exec(server.output())?.[1];
    assert.ok(writeKey, server.output());
    const draft = { title: 'From the banner', recipients: [{ email: 'ann@example.com', fullName: 'Ann' }] };
    const refused = await api(server, first.key, '/documents', {
      method: 'POST',
      body: JSON.stringify(draft),
    });
    assert.deepEqual([refused.status, refused.body.error], [403, 'insufficient-scope']);
    const made = await api(server, writeKey, '/documents', { method: 'POST', body: JSON.stringify(draft) });
    assert.equal(made.status, 201);
    const signed = await fetch(`${first.link.replace(/^http:\/\/[^/]+/, server.url)}/sign`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ fullName: 'Demo Signer', consent: 'yes' }),
      redirect: 'manual',
    });
    assert.equal(signed.status, 303);
    assert.equal(await server.stop(), 0);

    server = await startServe(dir.path, ['--demo']);
    const second = demoOf(server);
    assert.equal(second.key, first.key);
    assert.match(server.output(), new RegExp(`Demo write key: +${writeKey}`), 'the write key is kept');
    assert.notEqual(second.link, first.link, 'a signed document is not offered again');
    const page = await fetch(second.link.replace(/^http:\/\/[^/]+/, server.url));
    assert.equal(page.status, 200);
    const text = await page.text();
    assert.match(text, /name="consent"/);
    assert.match(text, /Signature on page 2: your signature/, 'fields on the signature block');
    assert.equal(await countDocuments(server, first.key), demoSampleDocuments + 3);
    assert.equal(await server.stop(), 0);

    server = await startServe(dir.path, ['--demo']);
    assert.equal(demoOf(server).link, second.link, 'an unsigned link is kept');
    assert.equal(await server.stop(), 0);
  });

  test('on PostgreSQL with no data folder: the folder is made, a rerun reuses the demo, a lost demo.json gets a new log-in', {
    skip: !databaseKinds.includes('postgres') && 'PostgreSQL is not among SIGNET_TEST_DATABASES',
  }, async () => {
    const database = await createEmptyPostgresDatabase();
    const missing = join(dir.path, 'not', 'made', 'yet');
    const env = { DATABASE_URL: database.url, SIGNET_SEAL_KEY: testSealKey };
    const loginOf = (server: Server) => {
      const login = /email (\S+), password (\S+)/.exec(server.output());
      assert.ok(login, server.output());
      return { email: login[1] as string, password: login[2] as string };
    };
    const logsIn = async (server: Server, login: { email: string; password: string }) => {
      const page = await fetch(`${server.url}/login`);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
      const cookie = (page.headers.getSetCookie() ?? []).map((c) => c.split(';')[0]).join('; ');
      const answer = await fetch(`${server.url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams({ ...login, _csrf: csrf }),
        redirect: 'manual',
      });
      return answer.status === 303 && answer.headers.get('location') !== '/login';
    };
    try {
      let server = await startServe(missing, ['--demo'], env);
      const first = demoOf(server);
      const firstLogin = loginOf(server);
      assert.ok(existsSync(join(missing, 'demo.json')), 'demo.json written in the folder made for it');
      assert.equal(await server.stop(), 0);

      server = await startServe(missing, ['--demo'], env);
      assert.equal(demoOf(server).key, first.key, 'the rerun reuses the demo workspace');
      assert.deepEqual(loginOf(server), firstLogin);
      assert.ok(await logsIn(server, firstLogin), 'the printed log-in works');
      assert.equal(await server.stop(), 0);

      // demo.json lost (another folder, a wiped disk): the database's demo is reused, not
      // seeded again, and a log-in and key that work are printed.
      rmSync(join(missing, 'demo.json'));
      server = await startServe(missing, ['--demo'], env);
      const recovered = demoOf(server);
      const newLogin = loginOf(server);
      assert.notEqual(recovered.key, first.key);
      assert.equal(newLogin.email, firstLogin.email);
      assert.ok(await logsIn(server, newLogin), 'the new log-in works');
      assert.ok(!(await logsIn(server, firstLogin)), 'the lost password no longer does');
      const documents = await api(server, recovered.key, '/documents?limit=100');
      assert.equal(documents.body.data.length, demoSampleDocuments + 2, 'one workspace, not a second seed');
      assert.equal(await server.stop(), 0);
    } finally {
      await database.drop();
    }
  });
});

describe('signet listen', () => {
  const dir = useDataDir();

  test('a document signed through the signing page reaches a local receiver, signed, within a second', async () => {
    const server = await startServe(dir.path);
    const receiver = await startReceiver();
    try {
      const workspace = await signetJson<{ id: string }>(dir.path, [
        'workspace',
        'create',
        '--name',
        'Listening',
      ]);
      const document = await signetJson<{ id: string }>(dir.path, [
        'document',
        'create',
        '--workspace',
        workspace.id,
        '--title',
        'Listen to me',
        '--body',
        'The parties agree.',
        '--recipient',
        'ann@example.com,Ann Lee,signer,1',
      ]);
      const listen = spawn(
        process.execPath,
        [mainScript, 'listen', '--workspace', workspace.id, '--forward-to', `${receiver.url}/hooks`],
        { env: { ...environment(dir.path), SIGNET_WEBHOOK_ALLOW_UNSAFE: '0' } },
      );
      runningServers.add(listen);
      let output = '';
      listen.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
      });
      listen.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
      });
      await within(30_000, async () => /Signing secret: (whsec_\S+)/.test(output), 'listen is ready');
      const secret = /Signing secret: (whsec_\S+)/.exec(output)?.[1] as string;

      await signetJson(dir.path, ['document', 'send', document.id]);
      const mails = await signetJson<Array<{ text: string }>>(dir.path, [
        'mail',
        'list',
        '--document',
        document.id,
      ]);
      const link = /https?:\/\/\S+\/sign\/\S+/.exec(mails[0]?.text ?? '')?.[0] as string;
      const path = new URL(link).pathname;
      const signedAt = Date.now();
      const signed = await fetch(`${server.url}${path}/sign`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ fullName: 'Ann Lee', consent: 'yes' }),
        redirect: 'manual',
      });
      assert.equal(signed.status, 303);
      await within(
        1000,
        async () => receiver.requests.some((r) => r.headers['x-service-event'] === 'document.signed'),
        'document.signed forwarded',
      );
      const delivery = receiver.requests.find((r) => r.headers['x-service-event'] === 'document.signed');
      assert.ok(delivery && delivery.receivedAt - signedAt < 1000);
      const event = await verifyWebhook(
        delivery.body,
        String(delivery.headers['x-service-signature']),
        secret,
      );
      assert.equal(event.type, 'document.signed');
      assert.ok(
        receiver.requests.some((r) => r.headers['x-service-event'] === 'document.sent'),
        'the send came first',
      );
      await within(
        2000,
        async () => /document\.signed\s+200 in \d+ ms/.test(output),
        'one line per delivery',
      );
      listen.kill('SIGINT');
      assert.equal(await exited(listen), 0, output);
    } finally {
      await receiver.close();
      assert.equal(await server.stop(), 0);
    }
  });

  test('without a running server on the folder it refuses in one line', async () => {
    const result = await runSignet(
      [
        'listen',
        '--workspace',
        '0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a',
        '--forward-to',
        'http://localhost:4000/hooks',
      ],
      environment(dir.path),
    );
    assert.equal(result.code, 2, describeRun(result));
    assert.match(result.stderr, /start signet serve on this data folder first/);
  });
});
