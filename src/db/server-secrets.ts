// Secrets that every process must agree on live in the database: the first process to
// ask creates one, all later ones read the same row.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export async function loadServerSecret(
  db: Kysely<Database>,
  name: string,
  deps: { clock: { now(): Date }; ids: { randomBytes(size: number): Buffer } },
): Promise<Buffer> {
  await db
    .insertInto('server_secrets')
    .values({ name, secret: deps.ids.randomBytes(32).toString('base64'), created_at: deps.clock.now() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('server_secrets')
    .select('secret')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return Buffer.from(row.secret, 'base64');
}

type SecretDeps = {
  db: Kysely<Database>;
  clock: { now(): Date };
  ids: { randomBytes(size: number): Buffer };
};

// Secrets read on first use, once per database and name in this process; a failure (an
// outage) is not remembered, so the next use asks again.
const cached = new WeakMap<Kysely<Database>, Map<string, Promise<Buffer>>>();

/** The named server secret, read (or made) on first use and kept for the process's life. */
export function sharedServerSecret(deps: SecretDeps, name: string): Promise<Buffer> {
  let forDb = cached.get(deps.db);
  if (!forDb) {
    forDb = new Map();
    cached.set(deps.db, forDb);
  }
  let secret = forDb.get(name);
  if (!secret) {
    secret = loadServerSecret(deps.db, name, deps);
    forDb.set(name, secret);
    const entries = forDb;
    secret.catch(() => entries.delete(name));
  }
  return secret;
}
