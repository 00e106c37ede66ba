// The counts behind the backlog gauges of /metrics, read at scrape time. Every query
// runs on a partial index (webhook_deliveries_due, mails_due, documents_seal_due), the
// outbox's key or a small table (a failed seal is rare; its scan is capped like the rest), and counts stop at `countCap` so a scrape stays cheap in a backlog of millions.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';

export const countCap = 100_000;

export interface Backlog {
  /** Deliveries due now and not leased by a worker (at most countCap). */
  dueDeliveries: number;
  /** Events committed but not yet fanned out into deliveries (at most countCap). */
  outboxEvents: number;
  /** When the longest-waiting due delivery or outbox event became due; null when none. */
  oldestDueAt: Date | null;
  /** Endpoints paused after consecutive failures. */
  pausedEndpoints: number;
  /** Mails waiting to be sent (at most countCap). */
  pendingMails: number;
  /** Signed documents whose sealed PDF is still owed (at most countCap). */
  sealsOwed: number;
  /** Signed documents whose seal failed for good (retries spent): an operator must look. */
  sealsFailed: number;
}

export async function readBacklog(db: Kysely<Database>, now: Date): Promise<Backlog> {
  const { rows } = await sql<{
    due_deliveries: number;
    outbox_events: number;
    oldest_delivery: Date | null;
    oldest_event: Date | null;
    paused_endpoints: number;
    pending_mails: number;
    seals_owed: number;
    seals_failed: number;
  }>`
    select
      (select count(*) from (
         select 1 from webhook_deliveries
         where status = 'pending' and next_attempt_at <= ${now}
           and (locked_until is null or locked_until <= ${now})
         limit ${countCap}) d)::int as due_deliveries,
      (select count(*) from (
         select 1 from outbox limit ${countCap}) o)::int as outbox_events,
      (select min(next_attempt_at) from webhook_deliveries
         where status = 'pending' and next_attempt_at <= ${now}
           and (locked_until is null or locked_until <= ${now})) as oldest_delivery,
      (select created_at from outbox order by seq limit 1) as oldest_event,
      (select count(*) from webhook_endpoints where paused_at is not null)::int as paused_endpoints,
      (select count(*) from (
         select 1 from mails where status = 'pending' limit ${countCap}) m)::int as pending_mails,
      (select count(*) from (
         select 1 from documents where seal_due_at is not null limit ${countCap}) s)::int as seals_owed,
      (select count(*) from (
         select 1 from documents
         where status = 'signed' and sealed_sha256 is null and seal_due_at is null and seal_error is not null
         limit ${countCap}) f)::int as seals_failed
  `.execute(db);
  const row = rows[0];
  if (!row) throw new Error('backlog query returned no row');
  const oldest = [row.oldest_delivery, row.oldest_event]
    .filter((at): at is Date => at !== null)
    .map((at) => new Date(at))
    .sort((a, b) => a.getTime() - b.getTime())[0];
  return {
    dueDeliveries: row.due_deliveries,
    outboxEvents: row.outbox_events,
    oldestDueAt: oldest ?? null,
    pausedEndpoints: row.paused_endpoints,
    pendingMails: row.pending_mails,
    sealsOwed: row.seals_owed,
    sealsFailed: row.seals_failed,
  };
}
