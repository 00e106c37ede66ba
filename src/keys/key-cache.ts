// Remembers which API key hashes are valid (and which are not) so the request path does
// not ask the database every time. Correctness over speed:
// - it only answers while this process is LISTENing for auth changes; while that
//   connection is down every lookup goes to the database;
// - a revocation or plan change clears it in this process at once and, through
//   pg_notify in the same transaction (db/notify.ts: authChangesChannel), in every other
//   process as soon as it commits;
// - a lookup that raced with a change is not stored (generation check);
// - entries live at most `ttlMs` and at most `maxEntries` are kept.
import type { Clock } from '../clock.ts';
import type { ApiKeyScope, Plan } from '../db/schema.ts';

/** Who a valid key is: what the API guard needs, cached by the key's hash. */
export interface KeyIdentity {
  keyId: string;
  workspaceId: string;
  plan: Plan;
  scope: ApiKeyScope;
}

export interface KeyCache {
  /** A cached answer (identity or null for "no such active key"), or undefined to ask the database. */
  get(hash: string): KeyIdentity | null | undefined;
  /** Starts a lookup; the returned function stores its answer unless something changed meanwhile. */
  begin(): (hash: string, identity: KeyIdentity | null) => void;
  clear(): void;
  setListening(isListening: boolean): void;
}

export function createKeyCache(
  clock: Clock,
  options: { ttlMs?: number; maxEntries?: number } = {},
): KeyCache {
  const ttlMs = options.ttlMs ?? 10_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, { identity: KeyIdentity | null; expiresMs: number }>();
  let generation = 0;
  let isListening = false;

  function clear() {
    generation++;
    entries.clear();
  }

  return {
    get(hash) {
      if (!isListening) return undefined;
      const entry = entries.get(hash);
      if (!entry) return undefined;
      if (entry.expiresMs <= clock.now().getTime()) {
        entries.delete(hash);
        return undefined;
      }
      return entry.identity;
    },
    begin() {
      const started = generation;
      return (hash, identity) => {
        if (!isListening || generation !== started) return;
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
        entries.set(hash, { identity, expiresMs: clock.now().getTime() + ttlMs });
      };
    },
    clear,
    setListening(value) {
      clear();
      isListening = value;
    },
  };
}
