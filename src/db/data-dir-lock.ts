// One owner per PGlite data folder. PGlite is a PostgreSQL backend inside one process, with
// no shared memory between processes: two processes on the same files overwrite each
// other's writes. So the process that opens a folder first takes `signet.lock` in it, and
// every other process either reaches the database through that owner (its Unix socket,
// see pglite-share.ts) or refuses. The lock records who owns the folder and how to reach
// it; a lock whose process has died (SIGKILL, power loss) is taken over.
//
// Taking the lock is atomic: the record is written to a private file first and then
// hard-linked to `signet.lock`, which fails if the name exists, so a reader never sees a
// half-written record. Taking over a stale lock happens under a second, short-lived guard
// (mkdir is atomic) and only if the file still holds the very record found stale, so two
// processes racing for a dead owner's folder cannot both win.

import { randomUUID } from 'node:crypto';
import {
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';

export interface LockOwner {
  pid: number;
  hostname: string;
  /** The process's start time in clock ticks (Linux), so a reused pid is not mistaken for the owner. */
  startTicks: string | null;
  /** What the owner runs: `serve`, `key create`, … (shown in refusals). */
  command: string;
  /** Directory of the owner's PostgreSQL wire socket (`.s.PGSQL.5432`); null until it serves one. */
  socketDir: string | null;
  /** The owner's control socket (backups); null until it serves one. */
  controlSocket: string | null;
  startedAt: string;
}

export type Liveness = 'alive' | 'dead' | 'elsewhere';

export interface DataDirLock {
  readonly path: string;
  readonly owner: LockOwner;
  /** Records how to reach this process (called once its sockets listen). */
  advertise(endpoints: Pick<LockOwner, 'socketDir' | 'controlSocket'>): void;
  /** Gives the folder up; only removes the lock file if it is still this process's. */
  release(): void;
}

export type LockAttempt = { acquired: true; lock: DataDirLock } | { acquired: false; owner: LockOwner };

const staleGuardMs = 10_000;

/** Fields 3 and on of /proc/PID/stat (Linux), or null where there is no /proc. */
function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot. */
export function processStartTicks(pid: number): string | null {
  return procStat(pid)?.[19] ?? null;
}

/** Whether the recorded owner still runs: on another host we cannot tell, and say so. */
export function ownerLiveness(owner: LockOwner): Liveness {
  if (owner.hostname !== hostname()) return 'elsewhere';
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user; it is alive.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return 'dead';
  }
  const stat = procStat(owner.pid);
  // A zombie (killed, not yet reaped) holds nothing; a reused pid started at another time.
  if (stat?.[0] === 'Z') return 'dead';
  if (owner.startTicks !== null && stat && stat[19] !== owner.startTicks) return 'dead';
  return 'alive';
}

function readIfExists(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function parseOwner(text: string): LockOwner | null {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    return typeof value.pid === 'number' && typeof value.hostname === 'string' ? (value as LockOwner) : null;
  } catch {
    return null;
  }
}

function unlinkIfExists(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Removes `lockPath` if it still holds `staleText`, under a guard only one process holds. */
function removeStaleLock(lockPath: string, staleText: string): void {
  const guard = `${lockPath}.takeover`;
  try {
    mkdirSync(guard);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another process is taking over; a guard left by one that died meanwhile expires.
    try {
      if (Date.now() - statSync(guard).mtimeMs > staleGuardMs) rmdirSync(guard);
    } catch {}
    return;
  }
  try {
    if (readIfExists(lockPath) === staleText) unlinkSync(lockPath);
  } finally {
    rmdirSync(guard);
  }
}

/**
 * Takes the folder's lock if nobody alive holds it (taking a dead owner's over), or says
 * who does. Never waits: callers decide whether to retry, connect or refuse.
 */
export async function tryLockDataDir(lockPath: string, command: string): Promise<LockAttempt> {
  const owner: LockOwner = {
    pid: process.pid,
    hostname: hostname(),
    startTicks: processStartTicks(process.pid),
    command,
    socketDir: null,
    controlSocket: null,
    startedAt: new Date().toISOString(),
  };
  // A draft of its own per attempt: several attempts may run at once in one process.
  const draft = `${lockPath}.${process.pid}.${randomUUID()}.tmp`;
  writeFileSync(draft, `${JSON.stringify(owner)}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        linkSync(draft, lockPath);
        return { acquired: true, lock: createLock(lockPath, owner) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const text = readIfExists(lockPath);
      if (text === null) continue; // released in between: try again
      const current = parseOwner(text);
      if (current && ownerLiveness(current) !== 'dead') return { acquired: false, owner: current };
      removeStaleLock(lockPath, text);
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
    }
    throw new Error(`could not take the lock ${lockPath}: it kept changing hands`);
  } finally {
    unlinkIfExists(draft);
  }
}

/** Who holds the folder now, if anyone alive does (for refusals and for connecting). */
export function readLockOwner(lockPath: string): LockOwner | null {
  const text = readIfExists(lockPath);
  const owner = text === null ? null : parseOwner(text);
  return owner && ownerLiveness(owner) !== 'dead' ? owner : null;
}

function createLock(path: string, initial: LockOwner): DataDirLock {
  let owner = initial;
  let text = `${JSON.stringify(owner)}\n`;
  let released = false;
  return {
    path,
    get owner() {
      return owner;
    },
    advertise(endpoints) {
      if (released) return;
      owner = { ...owner, ...endpoints };
      text = `${JSON.stringify(owner)}\n`;
      // Replace the record atomically: readers see the old one or the new one.
      const draft = `${path}.${process.pid}.${randomUUID()}.tmp`;
      writeFileSync(draft, text, { mode: 0o600 });
      renameSync(draft, path);
    },
    release() {
      if (released) return;
      released = true;
      if (readIfExists(path) === text) unlinkIfExists(path);
    },
  };
}
