// **The** way a live reader takes a workspace's stored event bodies (webhook_events) as they
// appear: each once, oldest first, from a starting instant on. Every read reaches back a
// few seconds behind the newest event seen, because a transaction can commit after a later
// one, and the query leaves out the ids already read, so each read brings only new events
// and a window holding more than one read is read to its end. `signet listen --workspace`
// (listen.ts) and GET /v1/events/stream (event-stream.ts) read through it.
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { findWebhookEventsSince } from './outbox.repository.ts';

const overlapMs = 5_000;

export interface EventWindow {
  /** The next events not read yet, at most `limit`; a full read means more may wait. */
  read(db: Kysely<Database>, limit: number): ReturnType<typeof findWebhookEventsSince>;
}

/** Events of the workspace from `started` on; `alreadyRead` (a resumed stream's last event) is left out. */
export function createEventWindow(
  workspaceId: string,
  started: Date,
  alreadyRead: string[] = [],
): EventWindow {
  let since = started;
  let newest = started.getTime();
  const read = new Map<string, number>(alreadyRead.map((id) => [id, started.getTime()]));
  return {
    async read(db, limit) {
      const rows = await findWebhookEventsSince(db, workspaceId, since, limit, [...read.keys()]);
      for (const row of rows) read.set(row.id, row.created_at.getTime());
      newest = Math.max(newest, rows.at(-1)?.created_at.getTime() ?? 0);
      since = new Date(Math.max(started.getTime(), newest - overlapMs));
      // Older than the window: the query cannot return them again.
      for (const [id, at] of read) if (at < since.getTime()) read.delete(id);
      return rows;
    },
  };
}
