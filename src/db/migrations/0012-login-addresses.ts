// The client addresses each user has logged in from, kept as hashes. When strangers have
// spent an account's log-in ceiling (accounts/account-limits.ts), an address the user
// logged in from before may still try, so nobody can lock an owner out by guessing.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `create table login_addresses (
    user_id uuid not null references users (id) on delete cascade,
    address_hash text not null,
    last_login_at timestamptz(3) not null,
    primary key (user_id, address_hash)
  )`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
