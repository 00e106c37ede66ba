// Password resets: a one-time link mailed to an account's address ("Forgot your password?")
// or printed for an operator (`signet user reset-password`). Like every other token, only
// its SHA-256 is kept. A link works once, for an hour, and only while the password is the
// one it was asked for under (accounts/password-resets.ts).
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `create table password_resets (
    id uuid primary key,
    token_hash text not null unique,
    user_id uuid not null references users (id) on delete cascade,
    created_at timestamptz(3) not null,
    expires_at timestamptz(3) not null,
    used_at timestamptz(3)
  )`,
  'create index password_resets_user on password_resets (user_id)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
