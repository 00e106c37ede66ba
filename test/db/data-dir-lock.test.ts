// The pieces that let one process own a PGlite data folder, tested without PGlite itself:
// the `signet.lock` record (taking it, reading it, replacing it with the owner's sockets,
// giving it up, taking a dead owner's over, and only one winner when several processes
// race for a stale one), the data folder's layout (where the sockets go, moving a
// pre-lock folder's PostgreSQL files into pgdata/ even after a move cut short), and the
// scanner that reads ReadyForQuery and NotificationResponse messages out of the backend's
// protocol output however it is cut into chunks.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { adoptLegacyLayout, dataDirLayout, ensureDataDir } from '../../src/db/data-dir.ts';
import {
  type LockAttempt,
  type LockOwner,
  ownerLiveness,
  processStartTicks,
  readLockOwner,
  tryLockDataDir,
} from '../../src/db/data-dir-lock.ts';
import { BackendMessageScanner } from '../../src/db/pglite-share.ts';

const lockModule = pathToFileURL(join(import.meta.dirname, '..', '..', 'src', 'db', 'data-dir-lock.ts')).href;
const base = mkdtempSync(join(tmpdir(), 'signet-lock-'));
/** Folders made outside `base` (socket folders under os.tmpdir()), removed at the end too. */
const outside: string[] = [];
let folders = 0;

after(() => {
  rmSync(base, { recursive: true, force: true });
  for (const dir of outside) rmSync(dir, { recursive: true, force: true });
});

/** A fresh, empty folder for one test. */
function freshDir(): string {
  const dir = join(base, `case-${++folders}`);
  mkdirSync(dir);
  return dir;
}

function ownerRecord(overrides: Partial<LockOwner>): LockOwner {
  return {
    pid: process.pid,
    hostname: hostname(),
    startTicks: processStartTicks(process.pid),
    command: 'serve',
    socketDir: null,
    controlSocket: null,
    startedAt: new Date().toISOString(),
    ...overrides,
  };
}

function writeRecord(lockPath: string, owner: LockOwner): void {
  writeFileSync(lockPath, `${JSON.stringify(owner)}\n`, { mode: 0o600 });
}

function readRecord(lockPath: string): LockOwner {
  return JSON.parse(readFileSync(lockPath, 'utf8')) as LockOwner;
}

/** The pid of a process that has run and exited (and been reaped). */
function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => {
      if (child.pid === undefined) reject(new Error('the child process has no pid'));
      else resolve(child.pid);
    });
  });
}

function acquired(attempt: LockAttempt) {
  assert.ok(attempt.acquired, `expected to take the lock, but ${JSON.stringify(attempt)}`);
  return attempt.lock;
}

function refused(attempt: LockAttempt): LockOwner {
  assert.ok(!attempt.acquired, 'expected the lock to be refused, but it was taken');
  return attempt.owner;
}

/** Files a lock attempt may leave behind by mistake: drafts and the takeover guard. */
function leftovers(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.startsWith('signet.lock.'));
}

describe('the data folder lock', () => {
  test('the first process takes the lock, and the file names its pid, hostname and command', async () => {
    const dir = freshDir();
    const lockPath = join(dir, 'signet.lock');
    const lock = acquired(await tryLockDataDir(lockPath, 'serve'));
    const record = readRecord(lockPath);
    assert.equal(record.pid, process.pid);
    assert.equal(record.hostname, hostname());
    assert.equal(record.command, 'serve');
    assert.equal(record.startTicks, processStartTicks(process.pid));
    assert.equal(record.socketDir, null);
    assert.equal(record.controlSocket, null);
    assert.deepEqual(lock.owner, record);
    assert.equal(lock.path, lockPath);
    assert.equal(statSync(lockPath).mode & 0o777, 0o600);
    assert.deepEqual(leftovers(dir), []);
    lock.release();
  });

  test('a second attempt while the owner is alive is refused and names the first owner', async () => {
    const lockPath = join(freshDir(), 'signet.lock');
    const lock = acquired(await tryLockDataDir(lockPath, 'serve'));
    const owner = refused(await tryLockDataDir(lockPath, 'key create'));
    assert.equal(owner.pid, process.pid);
    assert.equal(owner.command, 'serve');
    assert.deepEqual(owner, lock.owner);
    assert.deepEqual(readLockOwner(lockPath), lock.owner);
    lock.release();
  });

  test('release removes the lock file, and the folder can be locked again', async () => {
    const dir = freshDir();
    const lockPath = join(dir, 'signet.lock');
    const lock = acquired(await tryLockDataDir(lockPath, 'serve'));
    lock.release();
    assert.equal(existsSync(lockPath), false);
    assert.equal(readLockOwner(lockPath), null);
    lock.release(); // twice is harmless
    const again = acquired(await tryLockDataDir(lockPath, 'key create'));
    assert.equal(readRecord(lockPath).command, 'key create');
    again.release();
    assert.deepEqual(readdirSync(dir), []);
  });

  test('release leaves a lock file that another record has replaced', async () => {
    const lockPath = join(freshDir(), 'signet.lock');
    const lock = acquired(await tryLockDataDir(lockPath, 'serve'));
    const successor = ownerRecord({ command: 'backup', startedAt: '2030-01-01T00:00:00.000Z' });
    writeRecord(lockPath, successor);
    lock.release();
    assert.ok(existsSync(lockPath), 'the other record was removed');
    assert.deepEqual(readRecord(lockPath), successor);
  });

  test('release after the lock file was removed by someone else does not throw', async () => {
    const lockPath = join(freshDir(), 'signet.lock');
    const lock = acquired(await tryLockDataDir(lockPath, 'serve'));
    rmSync(lockPath);
    lock.release();
    assert.equal(existsSync(lockPath), false);
  });

  test('advertise replaces the record with a new file holding socketDir and controlSocket', async () => {
    const dir = freshDir();
    const lockPath = join(dir, 'signet.lock');
    const lock = acquired(await tryLockDataDir(lockPath, 'serve'));
    const before = readRecord(lockPath);
    const inodeBefore = statSync(lockPath).ino;
    const endpoints = { socketDir: dir, controlSocket: join(dir, 'signet-control.sock') };
    lock.advertise(endpoints);
    const record = readRecord(lockPath);
    assert.deepEqual(record, { ...before, ...endpoints });
    assert.deepEqual(lock.owner, record);
    assert.deepEqual(readLockOwner(lockPath), record);
    // Renamed over the old file rather than rewritten in place: readers see one or the other.
    assert.notEqual(statSync(lockPath).ino, inodeBefore);
    assert.equal(statSync(lockPath).mode & 0o777, 0o600);
    assert.deepEqual(leftovers(dir), []);
    // A second process now learns where to connect.
    assert.deepEqual(refused(await tryLockDataDir(lockPath, 'key create')), record);
    // The advertised record is still ours: release removes it.
    lock.release();
    assert.equal(existsSync(lockPath), false);
  });

  test('advertise after release writes nothing', async () => {
    const lockPath = join(freshDir(), 'signet.lock');
    const lock = acquired(await tryLockDataDir(lockPath, 'serve'));
    lock.release();
    lock.advertise({ socketDir: '/nowhere', controlSocket: '/nowhere/signet-control.sock' });
    assert.equal(existsSync(lockPath), false);
  });

  test('processStartTicks gives a number for a running process and null for a dead one', async () => {
    assert.match(processStartTicks(process.pid) ?? '', /^\d+$/);
    assert.equal(processStartTicks(await deadPid()), null);
  });

  test('ownerLiveness: this process is alive, an exited one is dead, another host is elsewhere', async () => {
    assert.equal(ownerLiveness(ownerRecord({})), 'alive');
    assert.equal(ownerLiveness(ownerRecord({ startTicks: null })), 'alive');
    assert.equal(ownerLiveness(ownerRecord({ pid: await deadPid(), startTicks: null })), 'dead');
    assert.equal(ownerLiveness(ownerRecord({ startTicks: '1' })), 'dead');
    assert.equal(ownerLiveness(ownerRecord({ hostname: `not-${hostname()}` })), 'elsewhere');
  });

  test('a lock whose process has exited is taken over', async () => {
    const dir = freshDir();
    const lockPath = join(dir, 'signet.lock');
    const pid = await deadPid();
    writeRecord(lockPath, ownerRecord({ pid, startTicks: null, command: 'serve' }));
    assert.equal(readLockOwner(lockPath), null);
    const lock = acquired(await tryLockDataDir(lockPath, 'key create'));
    assert.equal(readRecord(lockPath).pid, process.pid);
    assert.equal(readRecord(lockPath).command, 'key create');
    assert.deepEqual(leftovers(dir), []);
    lock.release();
  });

  test('a lock with this pid but another start time is a reused pid: taken over', async () => {
    const lockPath = join(freshDir(), 'signet.lock');
    const stale = ownerRecord({ startTicks: '1', command: 'serve' });
    writeRecord(lockPath, stale);
    assert.equal(ownerLiveness(stale), 'dead');
    assert.equal(readLockOwner(lockPath), null);
    const lock = acquired(await tryLockDataDir(lockPath, 'key create'));
    const record = readRecord(lockPath);
    assert.equal(record.startTicks, processStartTicks(process.pid));
    assert.equal(record.command, 'key create');
    lock.release();
  });

  test('a lock held on another host is not taken over, even with a pid that does not run here', async () => {
    const lockPath = join(freshDir(), 'signet.lock');
    const foreign = ownerRecord({ hostname: `not-${hostname()}`, pid: await deadPid(), startTicks: '1' });
    writeRecord(lockPath, foreign);
    assert.equal(ownerLiveness(foreign), 'elsewhere');
    assert.deepEqual(refused(await tryLockDataDir(lockPath, 'serve')), foreign);
    assert.deepEqual(readLockOwner(lockPath), foreign);
    assert.deepEqual(readRecord(lockPath), foreign);
  });

  test('a corrupt lock file is taken over', async () => {
    const dir = freshDir();
    const lockPath = join(dir, 'signet.lock');
    writeFileSync(lockPath, '{"pid": 12');
    assert.equal(readLockOwner(lockPath), null);
    const lock = acquired(await tryLockDataDir(lockPath, 'serve'));
    assert.equal(readRecord(lockPath).pid, process.pid);
    lock.release();
    writeFileSync(lockPath, '{"hostname": "no pid"}\n');
    acquired(await tryLockDataDir(lockPath, 'serve')).release();
    assert.deepEqual(readdirSync(dir), []);
  });

  test('eight concurrent takeovers of one stale lock in one process: exactly one acquires, the others are refused', async () => {
    const lockPath = join(freshDir(), 'signet.lock');
    writeRecord(lockPath, ownerRecord({ pid: await deadPid(), startTicks: null }));
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => tryLockDataDir(lockPath, `attempt ${i}`)),
    );
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
    assert.deepEqual(failures, [], 'no attempt should throw');
    const attempts = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const winners = attempts.flatMap((a) => (a.acquired ? [a.lock] : []));
    assert.equal(winners.length, 1);
    const winner = winners[0];
    assert.ok(winner);
    for (const attempt of attempts) {
      if (!attempt.acquired) assert.deepEqual(attempt.owner, winner.owner);
    }
    assert.deepEqual(readRecord(lockPath), winner.owner);
    winner.release();
  });

  test('four processes racing for one stale lock: exactly one acquires, the others see it alive', {
    timeout: 30_000,
  }, async () => {
    const dir = freshDir();
    const lockPath = join(dir, 'signet.lock');
    writeRecord(lockPath, ownerRecord({ pid: await deadPid(), startTicks: null }));
    // Each child says `ready`, waits for `go` on stdin (so all try at the same moment),
    // tries the lock, holds it 300 ms if it got it, and prints what happened.
    const script = `
      import { tryLockDataDir } from ${JSON.stringify(lockModule)};
      process.stdout.write('ready\\n');
      await new Promise((resolve) => process.stdin.once('data', resolve));
      process.stdin.destroy();
      const attempt = await tryLockDataDir(process.env.SIGNET_TEST_LOCK, 'race');
      if (attempt.acquired) await new Promise((resolve) => setTimeout(resolve, 300));
      process.stdout.write(JSON.stringify({
        pid: process.pid,
        acquired: attempt.acquired,
        ownerPid: attempt.acquired ? attempt.lock.owner.pid : attempt.owner.pid,
      }) + '\\n');
      if (attempt.acquired) attempt.lock.release();
    `;
    interface Outcome {
      pid: number;
      acquired: boolean;
      ownerPid: number;
    }
    const children = Array.from({ length: 4 }, () => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, SIGNET_TEST_LOCK: lockPath },
        stdio: ['pipe', 'pipe', 'pipe'],
        timeout: 20_000,
      });
      let stdout = '';
      let stderr = '';
      let markReady: () => void = () => {};
      const ready = new Promise<void>((resolve) => {
        markReady = resolve;
      });
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.startsWith('ready\n')) markReady();
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const done = new Promise<Outcome>((resolve, reject) => {
        child.on('error', reject);
        child.on('close', (code) => {
          const line = stdout.split('\n')[1] ?? '';
          if (code !== 0 || !line)
            reject(new Error(`child exited ${code}\nstdout: ${stdout}\nstderr: ${stderr}`));
          else resolve(JSON.parse(line) as Outcome);
        });
      });
      // If a child fails before `ready`, the wait below ends through `done`.
      return { child, ready: Promise.race([ready, done.then(() => {})]), done };
    });
    await Promise.all(children.map((c) => c.ready));
    for (const { child } of children) child.stdin.end('go\n');
    const outcomes = await Promise.all(children.map((c) => c.done));
    const winners = outcomes.filter((o) => o.acquired);
    assert.equal(winners.length, 1, JSON.stringify(outcomes));
    const winner = winners[0];
    assert.ok(winner);
    for (const outcome of outcomes) assert.equal(outcome.ownerPid, winner.pid, JSON.stringify(outcomes));
    // The winner released it; nothing else is left behind.
    assert.deepEqual(readdirSync(dir), []);
  });
});

describe('the data folder layout', () => {
  test('a folder whose control socket path fits keeps its sockets in the folder itself', () => {
    const dir = freshDir();
    assert.ok(join(dir, 'signet-control.sock').length <= 100, `temporary folder too long: ${dir}`);
    const layout = dataDirLayout(dir);
    assert.deepEqual(layout, {
      root: dir,
      lockFile: join(dir, 'signet.lock'),
      pgdata: join(dir, 'pgdata'),
      socketDir: dir,
      controlSocket: join(dir, 'signet-control.sock'),
    });
  });

  test('a control socket path of exactly 100 characters stays in the folder; 101 moves to os.tmpdir()', () => {
    const prefix = `${base}/`;
    assert.ok(prefix.length < 70, `temporary folder too long: ${base}`);
    const exact = `${prefix}${'x'.repeat(80 - prefix.length)}`;
    assert.equal(join(exact, 'signet-control.sock').length, 100);
    assert.equal(dataDirLayout(exact).socketDir, exact);
    const over = `${exact}y`;
    assert.notEqual(dataDirLayout(over).socketDir, over);
    assert.equal(join(dataDirLayout(over).socketDir, '..'), tmpdir());
  });

  test('a folder whose control socket path is too long puts its sockets under os.tmpdir(), the same for the same path', () => {
    const dir = join(base, 'a'.repeat(60), 'b'.repeat(40));
    const layout = dataDirLayout(dir);
    assert.equal(layout.root, dir);
    assert.equal(layout.lockFile, join(dir, 'signet.lock'));
    assert.equal(layout.pgdata, join(dir, 'pgdata'));
    assert.match(layout.socketDir, /\/signet-[0-9a-f]{16}$/);
    assert.equal(join(layout.socketDir, '..'), tmpdir());
    assert.equal(layout.controlSocket, join(layout.socketDir, 'signet-control.sock'));
    assert.ok(layout.controlSocket.length <= 100);
    // The same folder, however it is written, gets the same socket folder; another gets another.
    assert.equal(dataDirLayout(dir).socketDir, layout.socketDir);
    assert.equal(dataDirLayout(`${dir}/`).socketDir, layout.socketDir);
    assert.equal(dataDirLayout(join(dir, '..', 'b'.repeat(40))).socketDir, layout.socketDir);
    assert.notEqual(dataDirLayout(join(base, 'a'.repeat(60), 'c'.repeat(40))).socketDir, layout.socketDir);
    // ensureDataDir makes both folders, private to their owner.
    outside.push(layout.socketDir);
    ensureDataDir(layout);
    assert.ok(statSync(layout.root).isDirectory());
    assert.ok(statSync(layout.socketDir).isDirectory());
    assert.equal(statSync(layout.root).mode & 0o777, 0o700);
    assert.equal(statSync(layout.socketDir).mode & 0o777, 0o700);
  });

  test('ensureDataDir makes a missing folder with its parents, private to its owner', () => {
    const dir = join(freshDir(), 'nested', 'data');
    const layout = dataDirLayout(dir);
    ensureDataDir(layout);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(layout.socketDir, dir);
    ensureDataDir(layout); // again: nothing to do
  });
});

describe('adopting a pre-lock data folder', () => {
  /** PostgreSQL's files directly in `dir`, as folders made before the lock had them. */
  function fakeLegacyFiles(dir: string): void {
    writeFileSync(join(dir, 'PG_VERSION'), '17\n');
    mkdirSync(join(dir, 'base', '1'), { recursive: true });
    writeFileSync(join(dir, 'base', '1', '1259'), 'pg_class');
    mkdirSync(join(dir, 'global'));
    writeFileSync(join(dir, 'global', 'x'), 'global data');
    writeFileSync(join(dir, 'postgresql.conf'), 'port = 5432\n');
  }

  /** What the files of fakeLegacyFiles look like once they are in `pgdata`. */
  function assertAdopted(pgdata: string): void {
    assert.equal(readFileSync(join(pgdata, 'PG_VERSION'), 'utf8'), '17\n');
    assert.equal(readFileSync(join(pgdata, 'base', '1', '1259'), 'utf8'), 'pg_class');
    assert.equal(readFileSync(join(pgdata, 'global', 'x'), 'utf8'), 'global data');
    assert.equal(readFileSync(join(pgdata, 'postgresql.conf'), 'utf8'), 'port = 5432\n');
    assert.deepEqual(readdirSync(pgdata).sort(), ['PG_VERSION', 'base', 'global', 'postgresql.conf']);
  }

  test('PostgreSQL files directly in the folder move into pgdata/; Signet files stay', () => {
    const dir = freshDir();
    fakeLegacyFiles(dir);
    writeFileSync(join(dir, 'demo.json'), '{"demo":true}\n');
    writeFileSync(join(dir, 'signet.lock'), '{}\n');
    const layout = dataDirLayout(dir);
    assert.equal(adoptLegacyLayout(layout), true);
    assert.deepEqual(readdirSync(dir).sort(), ['demo.json', 'pgdata', 'signet.lock']);
    assertAdopted(layout.pgdata);
    assert.equal(readFileSync(join(dir, 'demo.json'), 'utf8'), '{"demo":true}\n');
    assert.equal(readFileSync(join(dir, 'signet.lock'), 'utf8'), '{}\n');
    // Done once: the next start finds pgdata/PG_VERSION and does nothing.
    assert.equal(adoptLegacyLayout(layout), false);
    assertAdopted(layout.pgdata);
  });

  test('a move cut short with PG_VERSION still in the folder is finished by the next call', () => {
    const dir = freshDir();
    fakeLegacyFiles(dir);
    writeFileSync(join(dir, 'demo.json'), '{}\n');
    const layout = dataDirLayout(dir);
    // Crashed after moving base/ into pgdata.partial/, before global/, the conf and PG_VERSION.
    mkdirSync(`${layout.pgdata}.partial`);
    renameSync(join(dir, 'base'), join(`${layout.pgdata}.partial`, 'base'));
    assert.equal(adoptLegacyLayout(layout), true);
    assert.deepEqual(readdirSync(dir).sort(), ['demo.json', 'pgdata']);
    assertAdopted(layout.pgdata);
  });

  test('a move cut short with PG_VERSION already in pgdata.partial/ is finished by the next call', () => {
    const dir = freshDir();
    const layout = dataDirLayout(dir);
    // Crashed after the last file moved, before pgdata.partial/ was renamed.
    const partial = `${layout.pgdata}.partial`;
    mkdirSync(partial);
    fakeLegacyFiles(partial);
    writeFileSync(join(dir, 'demo.json'), '{}\n');
    assert.equal(adoptLegacyLayout(layout), true);
    assert.deepEqual(readdirSync(dir).sort(), ['demo.json', 'pgdata']);
    assertAdopted(layout.pgdata);
  });

  test('a folder that already has pgdata/PG_VERSION is left alone', () => {
    const dir = freshDir();
    const layout = dataDirLayout(dir);
    mkdirSync(layout.pgdata);
    fakeLegacyFiles(layout.pgdata);
    // Even a stray PG_VERSION beside it does not start a move.
    writeFileSync(join(dir, 'PG_VERSION'), '16\n');
    writeFileSync(join(dir, 'demo.json'), '{}\n');
    assert.equal(adoptLegacyLayout(layout), false);
    assert.deepEqual(readdirSync(dir).sort(), ['PG_VERSION', 'demo.json', 'pgdata']);
    assertAdopted(layout.pgdata);
  });

  test('an empty folder, or one with only Signet files, is left alone', () => {
    const empty = freshDir();
    assert.equal(adoptLegacyLayout(dataDirLayout(empty)), false);
    assert.deepEqual(readdirSync(empty), []);
    const signetOnly = freshDir();
    writeFileSync(join(signetOnly, 'demo.json'), '{}\n');
    writeFileSync(join(signetOnly, 'signet.lock'), '{}\n');
    assert.equal(adoptLegacyLayout(dataDirLayout(signetOnly)), false);
    assert.deepEqual(readdirSync(signetOnly).sort(), ['demo.json', 'signet.lock']);
  });
});

describe('reading backend messages as they stream past', () => {
  function int32(value: number): Buffer {
    const bytes = Buffer.alloc(4);
    bytes.writeInt32BE(value);
    return bytes;
  }

  /** One backend message: type byte, Int32 length counting itself, body. */
  function message(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
    return Buffer.concat([Buffer.from(type, 'latin1'), int32(body.length + 4), body]);
  }

  function notificationResponse(pid: number, channel: string, payload: string): Buffer {
    return message('A', Buffer.concat([int32(pid), Buffer.from(`${channel}\0${payload}\0`, 'utf8')]));
  }

  function readyForQuery(status: 'I' | 'T' | 'E'): Buffer {
    return message('Z', Buffer.from(status, 'latin1'));
  }

  function dataRow(values: Buffer[]): Buffer {
    const count = Buffer.alloc(2);
    count.writeInt16BE(values.length);
    return message('D', Buffer.concat([count, ...values.flatMap((v) => [int32(v.length), v])]));
  }

  function commandComplete(tag: string): Buffer {
    return message('C', Buffer.from(`${tag}\0`, 'latin1'));
  }

  interface Scan {
    notifications: [string, string][];
    readyStatus: string | null;
  }

  function scan(chunks: Uint8Array[]): Scan {
    const notifications: [string, string][] = [];
    const scanner = new BackendMessageScanner((channel, payload) => notifications.push([channel, payload]));
    for (const chunk of chunks) scanner.push(chunk);
    return { notifications, readyStatus: scanner.readyStatus };
  }

  function everyTwoChunkCut(stream: Buffer): Buffer[][] {
    return Array.from({ length: stream.length + 1 }, (_, at) => [
      stream.subarray(0, at),
      stream.subarray(at),
    ]);
  }

  function oneByteChunks(stream: Buffer): Buffer[] {
    return Array.from({ length: stream.length }, (_, i) => stream.subarray(i, i + 1));
  }

  /**
   * A query's output: ParseComplete (empty body), a DataRow whose value looks like an 'A'
   * and a 'Z' message (only lengths may tell where messages begin), the notification,
   * CommandComplete and ReadyForQuery.
   */
  function queryOutput(channel: string, payload: string, status: 'I' | 'T' | 'E'): Buffer {
    const decoy = Buffer.concat([notificationResponse(1, 'decoy', 'x'), readyForQuery('E')]);
    return Buffer.concat([
      message('1'),
      dataRow([decoy, Buffer.from('row', 'utf8')]),
      notificationResponse(4242, channel, payload),
      commandComplete('SELECT 1'),
      readyForQuery(status),
    ]);
  }

  const cases = [
    { channel: 'signet_keys', payload: 'revoked:0b7f', status: 'I' },
    { channel: 'signet_wake', payload: '', status: 'T' },
    { channel: 'clés_signées', payload: 'signé ✓ 🔏 документ', status: 'E' },
  ] as const;

  test('before any ReadyForQuery the status is null, and nothing is reported', () => {
    const result = scan([message('1'), dataRow([Buffer.from('x')])]);
    assert.deepEqual(result, { notifications: [], readyStatus: null });
  });

  for (const { channel, payload, status } of cases) {
    const stream = queryOutput(channel, payload, status);

    test(`one chunk: one notification (${JSON.stringify(payload)}) and status ${status}`, () => {
      assert.deepEqual(scan([stream]), { notifications: [[channel, payload]], readyStatus: status });
    });

    test(`cut into two chunks at every offset: one notification (${JSON.stringify(payload)}) and status ${status}`, () => {
      for (const chunks of everyTwoChunkCut(stream)) {
        assert.deepEqual(
          scan(chunks),
          { notifications: [[channel, payload]], readyStatus: status },
          `cut at ${chunks[0]?.length}`,
        );
      }
    });

    test(`cut into 1-byte chunks: one notification (${JSON.stringify(payload)}) and status ${status}`, () => {
      assert.deepEqual(scan(oneByteChunks(stream)), {
        notifications: [[channel, payload]],
        readyStatus: status,
      });
    });
  }

  test('several notifications arrive in order, and the last ReadyForQuery gives the status', () => {
    const stream = Buffer.concat([
      notificationResponse(1, 'a', 'first'),
      readyForQuery('T'),
      notificationResponse(1, 'b', 'second'),
      commandComplete('COMMIT'),
      readyForQuery('I'),
    ]);
    const expected: Scan = {
      notifications: [
        ['a', 'first'],
        ['b', 'second'],
      ],
      readyStatus: 'I',
    };
    assert.deepEqual(scan([stream]), expected);
    assert.deepEqual(scan(oneByteChunks(stream)), expected);
    for (const chunks of everyTwoChunkCut(stream)) assert.deepEqual(scan(chunks), expected);
  });

  test('chunks that are views of memory overwritten after push still yield the original payload', () => {
    const channel = 'signet_keys';
    const payload = 'revoked:0b7f ✓';
    const stream = queryOutput(channel, payload, 'T');
    // As PGlite does: every chunk is a view into one buffer that the next chunk reuses.
    const memory = new Uint8Array(new ArrayBuffer(stream.length + 16));
    const pushAll = (scanner: BackendMessageScanner, chunks: Buffer[]): void => {
      for (const chunk of chunks) {
        memory.set(chunk, 8);
        scanner.push(memory.subarray(8, 8 + chunk.length));
        memory.fill(0xff);
      }
    };
    const cuts = [...everyTwoChunkCut(stream), oneByteChunks(stream)];
    for (const chunks of cuts) {
      const notifications: [string, string][] = [];
      const scanner = new BackendMessageScanner((c, p) => notifications.push([c, p]));
      pushAll(scanner, chunks);
      assert.deepEqual(
        notifications,
        [[channel, payload]],
        `chunks of ${chunks.map((c) => c.length).join('+')}`,
      );
      assert.equal(scanner.readyStatus, 'T');
    }
  });
});
