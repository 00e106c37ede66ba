// What a running server records for the commands run beside it. Today one setting: the
// public URL it serves at, written by every API process when it starts listening. A
// command whose own environment does not set SIGNET_PUBLIC_URL makes its links with it
// (cli/context.ts), so they name the server's real address, port and scheme.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

const publicUrlName = 'public_url';

export async function recordPublicUrl(db: Kysely<Database>, url: string, at: Date): Promise<void> {
  await db
    .insertInto('server_settings')
    .values({ name: publicUrlName, value: url, updated_at: at })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value: url, updated_at: at }))
    .execute();
}

/** The public URL the last server to start recorded, or null when none has run. */
export async function recordedPublicUrl(db: Kysely<Database>): Promise<string | null> {
  const row = await db
    .selectFrom('server_settings')
    .select('value')
    .where('name', '=', publicUrlName)
    .executeTakeFirst();
  return row?.value ?? null;
}
