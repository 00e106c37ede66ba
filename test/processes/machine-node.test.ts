// What an integrator types in a shell whose own Node is older than the project's (the
// machine's Node 20 here), not through an npm script: `npx signet` runs on the pinned Node
// 24 without npm's engine warnings; `npm run receiver` starts the example receiver;
// `node bin/signet.js` under an old Node says what to do instead of failing on TypeScript;
// a kill of `npm start`'s npm process (a closed terminal, a process manager) stops the server.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const root = join(import.meta.dirname, '..', '..');
/** The shell's PATH: without the node_modules/.bin an npm script puts first. */
const shellPath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((entry) => !entry.includes('node_modules'))
  .join(delimiter);
const shellEnv = { PATH: shellPath, HOME: process.env.HOME ?? root };
const run = promisify(execFile);

async function shellNodeVersion(): Promise<string> {
  return (await run('node', ['--version'], { cwd: root, env: shellEnv })).stdout.trim();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

test('npx signet runs on the pinned Node without engine warnings', async () => {
  const { stdout, stderr } = await run('npx', ['signet', '--version'], { cwd: root, env: shellEnv });
  assert.match(stdout, /^signet \d+\.\d+\.\d+/);
  assert.doesNotMatch(stderr, /EBADENGINE|Unsupported engine/);
});

test('the shell’s own old Node gets a sentence from bin/signet.js, not a stack trace', async (t) => {
  const version = await shellNodeVersion();
  const [major = 0, minor = 0] = version.slice(1).split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 18)) return t.skip(`the shell's Node is ${version}`);
  const result = await run('node', ['bin/signet.js', '--version'], { cwd: root, env: shellEnv }).then(
    () => assert.fail('an old Node ran the TypeScript'),
    (error: { code: number; stderr: string }) => error,
  );
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /^signet needs Node 22\.18 or newer; this is Node 2\d\.\d+\.\d+\. Run it as `npx signet`/,
  );
});

test('npm run receiver starts the example receiver, which refuses an unsigned delivery', async () => {
  const port = await freePort();
  const child = spawn('npm', ['run', '--silent', 'receiver'], {
    cwd: root,
    env: { ...shellEnv, SIGNET_WEBHOOK_SECRET: 'whsec_example-receiver-test', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  try {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    for (let i = 0; i < 300 && !output.includes('Listening on'); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.match(output, new RegExp(`Listening on http://localhost:${port}/hooks`));
    const res = await fetch(`http://127.0.0.1:${port}/hooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"type":"ping"}',
    });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /^refused: /);
  } finally {
    if (child.pid) process.kill(-child.pid, 'SIGTERM');
  }
});

/** Whether something accepts connections on the port. */
function isListening(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/healthz`).then(
    () => true,
    () => false,
  );
}

for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
  test(`a ${signal} to the npm process of \`npm start\` stops the server too, its data folder released`, async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'signet-npm-start-'));
    const npm = spawn('npm', ['start'], {
      cwd: root,
      env: { ...shellEnv, PORT: String(port), SIGNET_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    npm.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    try {
      for (let i = 0; i < 600 && !output.includes('Press Ctrl+C to stop.'); i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      assert.match(output, /Press Ctrl\+C to stop\./);
      assert.equal(await isListening(port), true);
      npm.kill(signal);
      let listening = true;
      // The server logs "stopped" last, after it released the port and the data folder.
      const stopping = () => listening || existsSync(join(dataDir, 'signet.lock')) || !/stopped/.test(output);
      for (let i = 0; i < 150 && stopping(); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        listening = await isListening(port);
      }
      assert.equal(listening, false, `port ${port} still answers after ${signal} to npm`);
      assert.equal(existsSync(join(dataDir, 'signet.lock')), false, 'the data folder is still locked');
      assert.match(output, /stopped/);
    } finally {
      npm.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}
