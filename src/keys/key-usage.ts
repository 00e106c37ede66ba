// "Last used" of API keys, kept cheap: the request path never waits for it. A process
// writes a key's last_used_at at most once a minute (it remembers when it last did), the
// write itself skips a row already written within the minute by another process, and a
// failed write is logged and forgotten: the time is a hint for people, not a record.
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Db } from './keys.repository.ts';
import { touchApiKeyLastUsed } from './keys.repository.ts';

export const lastUsedPrecisionMs = 60_000;
const maxRemembered = 10_000;

export interface KeyUsage {
  /** Notes a request authenticated by `keyId`; returns at once. */
  touch(keyId: string): void;
}

export function createKeyUsage(db: Db, clock: Clock, log: Logger): KeyUsage {
  const lastWritten = new Map<string, number>();
  return {
    touch(keyId) {
      const now = clock.now();
      const previous = lastWritten.get(keyId);
      if (previous !== undefined && now.getTime() - previous < lastUsedPrecisionMs) return;
      if (lastWritten.size >= maxRemembered) lastWritten.clear();
      lastWritten.set(keyId, now.getTime());
      touchApiKeyLastUsed(db, keyId, now, new Date(now.getTime() - lastUsedPrecisionMs)).catch(
        (error: unknown) => log.warn({ err: error, keyId }, 'could not record when an API key was last used'),
      );
    },
  };
}
