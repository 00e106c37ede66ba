// Servers a test may stop and start at will: a PostgreSQL cluster of its own (initdb into a
// temporary folder, on a free port) and a Redis server of its own. Never the machine's
// shared PostgreSQL or Redis, which every other test uses.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes.ts';

const postgresBin = '/usr/lib/postgresql/15/bin';

export function postgresAvailable(): boolean {
  return existsSync(join(postgresBin, 'initdb')) && existsSync(join(postgresBin, 'pg_ctl'));
}

export function redisAvailable(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user. */
function asPostgres(program: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0
    ? ['runuser', ['-u', 'postgres', '--', join(postgresBin, program), ...args]]
    : [join(postgresBin, program), args];
}

function run(program: string, args: string[]): void {
  const [command, argv] = asPostgres(program, args);
  execFileSync(command, argv, { stdio: ['ignore', 'ignore', 'pipe'], cwd: tmpdir() });
}

export interface ThrowawayPostgres {
  /** postgres://root@127.0.0.1:PORT/postgres; `databaseUrl(name)` for another database. */
  url: string;
  databaseUrl(name: string): string;
  stop(): void;
  start(): void;
  destroy(): void;
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'signet-pg-'));
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  chmodSync(dir, 0o700);
  const port = await freePort();
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'root', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  start();
  const databaseUrl = (name: string) => `postgres://root@127.0.0.1:${port}/${name}`;
  return {
    url: databaseUrl('postgres'),
    databaseUrl,
    start,
    stop,
    destroy() {
      try {
        stop();
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ThrowawayRedis {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  let child: ReturnType<typeof spawn> | null = null;
  async function start() {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      child?.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        seen += chunk;
        if (seen.includes('Ready to accept connections')) resolve();
      });
      child?.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
    });
  }
  async function stop() {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  }
  await start();
  return { url: `redis://127.0.0.1:${port}`, start, stop };
}
