// Brings a database to the latest schema. Kysely's migrator takes a PostgreSQL advisory
// lock, so several processes starting at once migrate exactly once.
import { type Kysely, Migrator } from 'kysely';
import { migrations } from './migrations/index.ts';

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the schema types hold
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
