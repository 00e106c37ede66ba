// Signing-secret rotation (issue 26): while an endpoint's previous secret is within its
// overlap, every delivery is signed with both (two v1= in one header), so a receiver can
// switch secrets without missing a delivery. secret_rotated_at says since when the current
// secret signs (null: since the endpoint was created), so a delivery log shows the exact
// headers of an attempt only when they can be made again.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  'alter table webhook_endpoints add column previous_secret text',
  'alter table webhook_endpoints add column previous_secret_expires_at timestamptz(3)',
  'alter table webhook_endpoints add column secret_rotated_at timestamptz(3)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
