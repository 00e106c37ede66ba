// The one way background work is claimed (issue 50 §2): a queue is a table whose rows are
// claimed with FOR UPDATE SKIP LOCKED and a lease, a time written into a column of the row.
// Until the lease ends the row is its holder's: other workers skip it; the holder renews it
// while it works (heartbeat.ts) and ends it with the outcome, or releases it when it stops,
// so a stopped worker's rows are free at once and a crashed one's when its lease runs out.
// Every claim, renewal, release and end of a lease is written here (queueing a row, which
// makes it due, stays with the change that queues it), and every renewal and release
// compares the lease with the one its holder wrote (compare-and-set): a holder whose lease
// ran out and was taken over can neither renew nor release the new holder's claim.
//
// Each queue is a declaration over this module (graphile-worker's one task per file): its
// table, key, lease column, due column, attempt counting, lease length and heartbeat, and
// its retry delays, in a `*-queue.ts` file beside the code that does the work. What a queue
// orders by and which rows are due stay the queue's own (mail's per-workspace shares,
// webhook deliveries' per-endpoint caps): simple queues pass them to `claim`; a queue whose
// claim is one statement of its own (mail, webhook deliveries) writes that statement with
// this module's pieces (`free`, `taking`, `takenOnInsert`), so what a lease means is written
// once. Times come from the caller (ctx.clock), never from now(), so tests can move time.
import {
  type Insertable,
  type Kysely,
  type RawBuilder,
  sql,
  type Transaction,
  type Updateable,
  type UpdateObject,
} from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/schema.ts';

type Db<DB> = Kysely<DB> | Transaction<DB>;
type Column<DB, T extends keyof DB> = keyof DB[T] & string;

/** A queue's table as this module sees it: written once, in the queue's `*-queue.ts`. */
export interface QueueDeclaration<DB, T extends keyof DB & string> {
  /** What the log calls it: "the seal lease was taken over while sealing". */
  name: string;
  /** What its holder is doing, for the same sentence. */
  working: string;
  table: T;
  /** The columns that name one row, in order (a claim's `key`). */
  key: readonly [Column<DB, T>, ...Column<DB, T>[]];
  /**
   * The lease's end. A row whose lease column is null or not after now is free. When it is the
   * `due` column too (seals: `documents.seal_due_at`), null means nothing is owed, a time not
   * after now means due (or a dead holder's lease ran out), and a release writes now.
   */
  lease: Column<DB, T>;
  /** When the row is due (retries write it); the lease column itself for seals. */
  due?: Column<DB, T>;
  /**
   * A column counting attempts: counted when a row is claimed (`claim`: a worker that dies
   * mid-attempt has used it up, and a release undoes it) or when an attempt ends (`outcome`).
   */
  attempts?: { column: Column<DB, T>; counted: 'claim' | 'outcome' };
  /**
   * What the end of a lease writes into its column: null, or the time it ended (bulk sends,
   * which take turns by when they were let go). Always the time when the column is `due` too.
   */
  endsAs?: 'null' | 'now';
  /** How long a claim holds its rows: milliseconds, or read from the configuration. */
  leaseMs: number | ((config: Config) => number);
  /** Renew the lease this often while the work runs (heartbeat.ts); none: the lease covers the work. */
  heartbeatMs?: number;
  /** Waits before the 2nd, 3rd, … attempt; after the last, the row is given up. */
  retryDelaysMs?: readonly number[];
}

/** One row held under a lease, as its holder knows it. */
export interface Held {
  /** The row's key, in the declaration's key order. */
  readonly key: readonly unknown[];
  /** When the lease ends: what this holder wrote, which renewals and releases compare with. */
  until: Date;
  /** Set once a renewal found the row no longer held under `until` (taken over, or settled). */
  lost: boolean;
}

export interface ClaimInput {
  now: Date;
  /** The lease's end (`leaseFrom`). */
  until: Date;
  limit: number;
  /** Which free rows are due, over the table as `q` (none: every free row). */
  where?: RawBuilder<unknown>;
  /** The order the due rows are taken in, over `q` (fairness and priorities are the queue's). */
  orderBy: RawBuilder<unknown>;
  /** Columns returned beside the key, over the updated row as `q`. */
  returning?: RawBuilder<unknown>;
}

export interface Queue<DB, T extends keyof DB & string> extends QueueDeclaration<DB, T> {
  /** The lease's length for this configuration. */
  leaseMsOf(config: Config): number;
  /** `now` plus a lease. */
  leaseFrom(now: Date, config: Config): Date;
  /** The lease column, qualified by `alias` (for an order that reads it: bulk sends' turns). */
  leaseColumn(alias?: string): RawBuilder<Date | null>;
  /** "Free at `now`": no lease, or one that has run out. */
  free(now: Date, alias?: string): RawBuilder<boolean>;
  /** The SET list of a claim: the lease until `until`, and the attempt when claims count it. */
  taking(until: Date, alias?: string): RawBuilder<unknown>;
  /**
   * For an INSERT that claims some of the rows it writes (webhook fan-out): the lease and
   * attempt columns, and their values for a row that `claimed` says is claimed.
   */
  takenOnInsert(
    claimed: RawBuilder<boolean>,
    until: Date,
  ): { columns: RawBuilder<unknown>; values: RawBuilder<unknown> };
  /** The same for one row written already claimed (a ping's delivery). */
  heldOnInsert(until: Date): Partial<Insertable<DB[T]>>;
  /** A row a statement of the queue's own claimed until `until`, as its holder knows it. */
  hold(key: readonly unknown[], until: Date): Held;
  /** Whether the row (as returned by an INSERT or UPDATE) is held. */
  isHeld(): RawBuilder<boolean>;
  /**
   * Claims up to `limit` free, due rows in `orderBy`'s order for a lease, in one statement,
   * skipping rows other transactions have locked.
   */
  claim<R extends Record<string, unknown>>(
    db: Db<DB>,
    input: ClaimInput,
  ): Promise<Array<{ row: R; held: Held }>>;
  /**
   * Claims one named row if it is free and `where` holds (a delivery resent by hand): its
   * lease, its attempt, `set`; the returned columns, or undefined.
   */
  takeRow<R extends Record<string, unknown>>(
    db: Db<DB>,
    key: readonly unknown[],
    input: {
      now: Date;
      until: Date;
      where?: RawBuilder<unknown>;
      set?: RawBuilder<unknown>;
      returning: RawBuilder<unknown>;
    },
  ): Promise<{ row: R; held: Held } | undefined>;
  /**
   * Extends the leases of `held` still held under their `until` to `until`; the others are
   * marked `lost`. Returns how many were renewed.
   */
  renew(db: Db<DB>, held: readonly Held[], until: Date): Promise<number>;
  /**
   * Lets rows go that their holder still holds: their lease ends now (free at once), with
   * `undoAttempt` their claim's attempt is given back (claimed, never tried), and `set` is
   * written with it (where a released row goes on from). `where` narrows further.
   */
  release(
    db: Db<DB>,
    held: readonly Held[],
    options: { now?: Date; undoAttempt?: boolean; set?: RawBuilder<unknown>; where?: RawBuilder<unknown> },
  ): Promise<number>;
  /**
   * Written with an outcome that takes the row out of the queue (sealed, delivered, dropped):
   * its lease ended (`now`: for a queue whose ended leases keep the time).
   */
  leaseEnded(now?: Date): Updateable<DB[T]>;
  /** `leaseEnded`, and the attempt counted where attempts are counted at their outcome. */
  ending(now?: Date): UpdateObject<DB, T>;
  /** `ending` for a statement of its own: the SET list. */
  endingSql(now?: Date): RawBuilder<unknown>;
  /**
   * Written with a failed attempt: due again at `retryAt`, or (null) given up, its due time
   * kept (cleared where the due time is the lease: nothing is owed any more).
   */
  retrying(retryAt: Date | null): UpdateObject<DB, T>;
  /** When the attempt after failed attempt number `attempt` (1 is the first) is due; null: give up. */
  retryAt(attempt: number, now: Date, delaysMs?: readonly number[]): Date | null;
}

/** The backoff rule every queue keeps: after attempt n, wait `delaysMs[n - 1]`; past the list, give up. */
export function nextAttemptAt(delaysMs: readonly number[], attempt: number, now: Date): Date | null {
  const delay = delaysMs[attempt - 1];
  return delay === undefined ? null : new Date(now.getTime() + delay);
}

function ref(alias: string | undefined, column: string): RawBuilder<unknown> {
  return sql.ref(alias ? `${alias}.${column}` : column);
}

/** `key = values` for one row, `(key) in ((…), …)` for several. */
function keysMatch(key: readonly string[], held: readonly Held[]): RawBuilder<boolean> {
  if (held.length === 1) {
    const [only] = held as [Held];
    return sql<boolean>`${sql.join(
      key.map((column, i) => sql`${sql.ref(column)} = ${only.key[i]}`),
      sql` and `,
    )}`;
  }
  const columns =
    key.length === 1 ? sql.ref(key[0] as string) : sql`(${sql.join(key.map((c) => sql.ref(c)))})`;
  const rows = held.map((h) =>
    key.length === 1 ? sql`${h.key[0]}` : sql`(${sql.join(h.key.map((v) => sql`${v}`))})`,
  );
  return sql<boolean>`${columns} in (${sql.join(rows)})`;
}

/** Held rows grouped by the lease they are held under (one compare-and-set statement each). */
function byLease(held: readonly Held[]): Held[][] {
  const groups = new Map<number, Held[]>();
  for (const h of held) {
    const group = groups.get(h.until.getTime());
    if (group) group.push(h);
    else groups.set(h.until.getTime(), [h]);
  }
  return [...groups.values()];
}

const keyText = (key: readonly unknown[]) => key.map(String).join('\u0000');

export function defineQueue<T extends keyof Database & string>(
  declaration: QueueDeclaration<Database, T>,
): Queue<Database, T>;
export function defineQueue<DB, T extends keyof DB & string>(
  declaration: QueueDeclaration<DB, T>,
): Queue<DB, T>;
export function defineQueue<DB, T extends keyof DB & string>(
  declaration: QueueDeclaration<DB, T>,
): Queue<DB, T> {
  const { table, key, lease, due, attempts } = declaration;
  const leaseIsDue = due === lease;
  const endsAsNow = leaseIsDue || declaration.endsAs === 'now';
  const attemptsAt = (counted: 'claim' | 'outcome') =>
    attempts?.counted === counted ? attempts.column : null;
  const leaseMsOf = (config: Config) =>
    typeof declaration.leaseMs === 'number' ? declaration.leaseMs : declaration.leaseMs(config);
  const heldOf = (row: Record<string, unknown>, until: Date): Held => ({
    key: key.map((column) => row[column]),
    until,
    lost: false,
  });
  /** The key columns, returned under their own names, beside `returning`. */
  const returningOf = (returning: RawBuilder<unknown> | undefined) =>
    sql.join([
      ...key.map((column) => sql`${ref('q', column)} as ${sql.ref(column)}`),
      ...(returning ? [returning] : []),
    ]);

  const queue: Queue<DB, T> = {
    ...declaration,
    leaseMsOf,
    leaseFrom: (now, config) => new Date(now.getTime() + leaseMsOf(config)),
    leaseColumn: (alias) => ref(alias, lease) as RawBuilder<Date | null>,
    free(now, alias) {
      const column = ref(alias, lease);
      return leaseIsDue
        ? sql<boolean>`${column} <= ${now}`
        : sql<boolean>`(${column} is null or ${column} <= ${now})`;
    },
    taking(until, alias) {
      const counted = attemptsAt('claim');
      return counted
        ? sql`${sql.ref(lease)} = ${until}, ${sql.ref(counted)} = ${ref(alias, counted)} + 1`
        : sql`${sql.ref(lease)} = ${until}`;
    },
    takenOnInsert(claimed, until) {
      const counted = attemptsAt('claim');
      return counted
        ? {
            columns: sql`${sql.ref(lease)}, ${sql.ref(counted)}`,
            values: sql`case when ${claimed} then ${until}::timestamptz end, case when ${claimed} then 1 else 0 end`,
          }
        : {
            columns: sql`${sql.ref(lease)}`,
            values: sql`case when ${claimed} then ${until}::timestamptz end`,
          };
    },
    heldOnInsert(until) {
      const counted = attemptsAt('claim');
      return { [lease]: until, ...(counted ? { [counted]: 1 } : {}) } as Partial<Insertable<DB[T]>>;
    },
    hold: (rowKey, until) => ({ key: rowKey, until, lost: false }),
    isHeld: () => sql<boolean>`${sql.ref(lease)} is not null`,

    async claim<R extends Record<string, unknown>>(db: Db<DB>, input: ClaimInput) {
      const { until } = input;
      const keyColumns = sql.join(key.map((column) => ref('q', column)));
      const joined = sql.join(
        key.map((column) => sql`${ref('q', column)} = ${ref('picked', column)}`),
        sql` and `,
      );
      const { rows } = await sql<R>`
        with picked as (
          select ${keyColumns} from ${sql.table(table)} as q
          where ${queue.free(input.now, 'q')}${input.where ? sql` and ${input.where}` : sql``}
          order by ${input.orderBy}
          limit ${input.limit}
          for update skip locked
        )
        update ${sql.table(table)} as q set ${queue.taking(until, 'q')}
        from picked where ${joined}
        returning ${returningOf(input.returning)}`.execute(db);
      return rows.map((row) => ({ row, held: heldOf(row, until) }));
    },

    async takeRow<R extends Record<string, unknown>>(
      db: Db<DB>,
      rowKey: readonly unknown[],
      input: {
        now: Date;
        until: Date;
        where?: RawBuilder<unknown>;
        set?: RawBuilder<unknown>;
        returning: RawBuilder<unknown>;
      },
    ) {
      const named: Held = { key: rowKey, until: input.until, lost: false };
      const { rows } = await sql<R>`
        update ${sql.table(table)} as q set ${queue.taking(input.until, 'q')}${input.set ? sql`, ${input.set}` : sql``}
        where ${keysMatch(key, [named])} and ${queue.free(input.now, 'q')}${input.where ? sql` and ${input.where}` : sql``}
        returning ${returningOf(input.returning)}`.execute(db);
      const [row] = rows;
      return row ? { row, held: heldOf(row, input.until) } : undefined;
    },

    async renew(db, held, until) {
      let renewed = 0;
      for (const group of byLease(held.filter((h) => !h.lost))) {
        const { rows } = await sql<Record<string, unknown>>`
          update ${sql.table(table)} set ${sql.ref(lease)} = ${until}
          where ${keysMatch(key, group)} and ${sql.ref(lease)} = ${group[0]?.until}
          returning ${sql.join(key.map((column) => sql.ref(column)))}`.execute(db);
        const still = new Set(rows.map((row) => keyText(key.map((column) => row[column]))));
        for (const h of group) {
          if (still.has(keyText(h.key))) {
            h.until = until;
            renewed += 1;
          } else h.lost = true;
        }
      }
      return renewed;
    },

    async release(db, held, options) {
      if (endsAsNow && !options.now)
        throw new Error(`a release of the ${declaration.name} queue needs the time`);
      const undone = options.undoAttempt ? attemptsAt('claim') : null;
      const sets = [
        sql`${sql.ref(lease)} = ${endsAsNow ? (options.now ?? null) : null}`,
        ...(undone ? [sql`${sql.ref(undone)} = ${sql.ref(undone)} - 1`] : []),
        ...(options.set ? [options.set] : []),
      ];
      let released = 0;
      for (const group of byLease(held)) {
        const result = await sql`
          update ${sql.table(table)} set ${sql.join(sets)}
          where ${keysMatch(key, group)} and ${sql.ref(lease)} = ${group[0]?.until}${options.where ? sql` and ${options.where}` : sql``}`.execute(
          db,
        );
        released += Number(result.numAffectedRows ?? 0n);
      }
      return released;
    },

    leaseEnded(now) {
      return { [lease]: endsAsNow && !leaseIsDue ? (now ?? null) : null } as Updateable<DB[T]>;
    },
    ending(now) {
      const counted = attemptsAt('outcome');
      return {
        ...queue.leaseEnded(now),
        ...(counted ? { [counted]: sql`${sql.ref(counted)} + 1` } : {}),
      } as UpdateObject<DB, T>;
    },
    endingSql(now) {
      const counted = attemptsAt('outcome');
      const ended =
        endsAsNow && !leaseIsDue ? sql`${sql.ref(lease)} = ${now ?? null}` : sql`${sql.ref(lease)} = null`;
      return counted ? sql`${ended}, ${sql.ref(counted)} = ${sql.ref(counted)} + 1` : ended;
    },
    retrying(retryAt) {
      if (leaseIsDue) return { [lease]: retryAt } as UpdateObject<DB, T>;
      const counted = attemptsAt('outcome');
      return {
        [lease]: null,
        ...(due ? { [due]: retryAt ?? sql.ref(due) } : {}),
        ...(counted ? { [counted]: sql`${sql.ref(counted)} + 1` } : {}),
      } as UpdateObject<DB, T>;
    },
    retryAt(attempt, now, delaysMs = declaration.retryDelaysMs ?? []) {
      return nextAttemptAt(delaysMs, attempt, now);
    },
  };
  return queue;
}
