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
