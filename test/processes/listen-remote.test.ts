// `signet listen --api-url … --api-key …` as an integrator runs it: a child process with no
// database configuration at all (and no data folder: it creates none), talking only HTTP to
// a `signet serve` process on PostgreSQL (and on a PGlite data folder), forwarding real
// events (`signet trigger` against the server's database) to examples/receiver, which
// verifies each signature with the secret the command printed. Stopped and started again,
// it prints the same secret and forwards again.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { WebhookEvent } from '@signet/client';
import { createReceiverServer } from '../../examples/receiver/receiver.ts';
import type { DatabaseHandle } from '../../src/db/connect.ts';
import { describeRun, mainScript, runSignet } from '../support/cli-process.ts';
import { createTestDatabase, databaseKinds } from '../support/harness.ts';
import { databaseUrlOf, type SignetProcess, startSignet, until } from '../support/processes.ts';

interface Listening {
  child: ChildProcess;
  output: () => string;
  secret: string;
  stop(): Promise<number | null>;
}

/** Spawns `signet listen` in `cwd` with only PATH (and `env`) in its environment; resolves once it printed its secret. */
async function startListen(cwd: string, args: string[], env: Record<string, string>): Promise<Listening> {
  const child = spawn(process.execPath, [mainScript, 'listen', ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = once(child, 'exit').then(([code]) => {
    process.off('exit', killOnExit);
    return code as number | null;
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  await until(
    () => /Signing secret: whsec_\S+/.test(output) || child.exitCode !== null,
    30_000,
    'listen is ready',
  );
  const secret = /Signing secret: (whsec_\S+)/.exec(output)?.[1];
  assert.ok(secret, output);
  return {
    child,
    output: () => output,
    secret,
    async stop() {
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

const kinds = databaseKinds;

for (const kind of kinds) {
  describe(`signet listen --api-url against signet serve [${kind}]`, () => {
    let database: DatabaseHandle | null = null;
    let serverEnv: Record<string, string>;
    let server: SignetProcess;
    const dataDir = mkdtempSync(join(tmpdir(), 'signet-listen-serve-'));
    const listenDir = mkdtempSync(join(tmpdir(), 'signet-listen-cwd-'));

    before(async () => {
      if (kind === 'postgres') {
        database = await createTestDatabase('postgres');
        serverEnv = { DATABASE_URL: await databaseUrlOf(database) };
      } else {
        serverEnv = { SIGNET_DATA_DIR: dataDir };
      }
      server = await startSignet(`serve [${kind}]`, 'all', { ...serverEnv, LOG_LEVEL: 'warn' });
    });
    after(async () => {
      await server?.stop();
      await database?.close();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(listenDir, { recursive: true, force: true });
    });

    /** `signet ARGS --json` on the server's database (PGlite: through the server's socket). */
    async function signet<T>(args: string[]): Promise<T> {
      const result = await runSignet([...args, '--json'], {
        ...process.env,
        ...serverEnv,
        LOG_LEVEL: 'warn',
      });
      assert.equal(result.code, 0, describeRun(result));
      return JSON.parse(result.stdout) as T;
    }

    test('forwards real events, verified by the example receiver, with the same secret on every run', async () => {
      const workspace = await signet<{ id: string }>([
        'workspace',
        'create',
        '--name',
        'Listening',
        '--plan',
        'max',
      ]);
      const key = await signet<{ secret: string }>(['key', 'create', '--workspace', workspace.id]);

      let secret = '';
      const handled: WebhookEvent[] = [];
      const receiver = createReceiverServer({
        secret: () => secret,
        onEvent: (event) => void handled.push(event),
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      const apiUrl = `${server.url}/v1`;
      const running: Listening[] = [];
      try {
        const first = await startListen(
          listenDir,
          ['--api-url', apiUrl, '--api-key', key.secret, '--forward-to', hooks],
          {},
        );
        running.push(first);
        secret = first.secret;
        assert.match(
          first.output(),
          new RegExp(`Ready\\. Forwarding the events of workspace ${workspace.id} to ${hooks}`),
        );
        await signet(['trigger', 'document.signed', '--workspace', workspace.id]);
        await until(
          () => handled.some((e) => e.type === 'document.signed'),
          15_000,
          'document.signed verified',
        );
        // Signing opens the document first: sent, opened and signed, each verified.
        for (const type of ['document.sent', 'document.opened', 'document.signed'])
          assert.ok(
            handled.some((e) => e.type === type),
            `${type} in ${handled.map((e) => e.type)}`,
          );
        await until(
          () => /document\.signed\s+204 in \d+ ms {2}event \S+ {2}delivery \S+/.test(first.output()),
          5000,
          'one line per delivery',
        );
        assert.equal(await first.stop(), 0, first.output());

        // Again, the key from the environment this time: the same secret, and it still forwards.
        const second = await startListen(listenDir, ['--api-url', apiUrl, '--forward-to', hooks], {
          SIGNET_API_KEY: key.secret,
        });
        running.push(second);
        assert.equal(second.secret, first.secret, 'the same signing secret for the same key');
        const before = handled.length;
        const triggered = await signet<{ documentId: string }>([
          'trigger',
          'document.sent',
          '--workspace',
          workspace.id,
        ]);
        await until(() => handled.length > before, 15_000, 'the second run forwards');
        const event = handled.at(-1);
        assert.ok(event?.type === 'document.sent');
        assert.equal(event.data.document.id, triggered.documentId);
        assert.equal(await second.stop(), 0, second.output());
        assert.ok(!/failed|refused/.test(first.output() + second.output()), first.output() + second.output());

        assert.deepEqual(readdirSync(listenDir), [], 'listen created nothing where it ran (no ./data)');
      } finally {
        for (const listening of running)
          if (listening.child.exitCode === null) listening.child.kill('SIGKILL');
        receiver.closeAllConnections();
        await new Promise((resolve) => receiver.close(resolve));
      }
      assert.deepEqual(server.problems(), []);
    });

    test('a server shutting down ends its streams at once; listen says so and keeps trying', {
      skip: kind !== 'postgres' && 'a second server on the database needs PostgreSQL',
    }, async () => {
      const workspace = await signet<{ id: string }>([
        'workspace',
        'create',
        '--name',
        'Shutdown',
        '--plan',
        'max',
      ]);
      const key = await signet<{ secret: string }>(['key', 'create', '--workspace', workspace.id]);
      const second = await startSignet('serve [second]', 'api', {
        ...serverEnv,
        LOG_LEVEL: 'warn',
        SIGNET_SHUTDOWN_TIMEOUT: '30s',
      });
      const listening = await startListen(
        listenDir,
        [
          '--api-url',
          `${second.url}/v1`,
          '--api-key',
          key.secret,
          '--forward-to',
          'http://127.0.0.1:9/hooks',
        ],
        {},
      );
      try {
        const started = Date.now();
        assert.equal(await second.stop(), 0);
        assert.ok(
          Date.now() - started < 5000,
          `stopped in ${Date.now() - started} ms, not at the 30 s bound`,
        );
        await until(
          () => /the event stream dropped .*; reconnecting in \d+ s/.test(listening.output()),
          5000,
          'listen retries',
        );
        assert.equal(await listening.stop(), 0, listening.output());
      } finally {
        if (listening.child.exitCode === null) listening.child.kill('SIGKILL');
        await second.stop();
      }
    });

    test('a key that is not valid: one line, exit 1', async () => {
      const result = await runSignet(
        [
          'listen',
          '--api-url',
          `${server.url}/v1`,
          '--api-key',
          `sgn_${'x'.repeat(43)}`,
          '--forward-to',
          'http://127.0.0.1:9/hooks',
        ],
        { PATH: process.env.PATH ?? '' },
        30_000,
      );
      assert.equal(result.code, 1, describeRun(result));
      assert.equal(
        result.stderr,
        'signet: the API key is not valid (401 invalid-api-key): create one in Settings, Integrations, API and Webhook\n',
      );
    });

    test('a Free workspace’s key: one line, exit 1', async () => {
      const workspace = await signet<{ id: string }>([
        'workspace',
        'create',
        '--name',
        'Free',
        '--plan',
        'free',
      ]);
      const key = await signet<{ secret: string }>(['key', 'create', '--workspace', workspace.id]);
      const result = await runSignet(
        ['listen', '--api-url', server.url as string, '--forward-to', 'http://127.0.0.1:9/hooks'],
        { PATH: process.env.PATH ?? '', SIGNET_API_KEY: key.secret },
        30_000,
      );
      assert.equal(result.code, 1, describeRun(result));
      assert.equal(result.stderr, 'signet: listen needs a Max workspace (403 plan-required)\n');
    });
  });
}
