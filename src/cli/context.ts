// Opens what an admin command needs (a migrated database and a context), runs it, and
// closes everything again. Logs go to stderr so stdout stays clean for --json. On a PGlite
// data folder that `signet serve` owns, the database is reached through the server's
// socket (db/pglite-folder.ts): same SQL, and the server sees every write at once. Links a
// command makes name the running server's public URL (db/server-settings.ts).
import pino from 'pino';
import type { Config } from '../config.ts';
import { type Context, createContext, createLogger } from '../context.ts';
import { type DatabaseHandle, openDatabase } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { recordedPublicUrl } from '../db/server-settings.ts';
import { UsageError } from './args.ts';

/**
 * A migrated database and a context for a command that runs until it is told to stop;
 * `close` releases both. `purpose` names the command in the data folder's lock, for
 * anyone who finds it busy.
 */
export async function openContext(
  config: Config,
  purpose: string,
): Promise<{ ctx: Context; database: DatabaseHandle; close(): Promise<void> }> {
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 4,
    purpose,
  });
  try {
    await migrateToLatest(database.db);
    const log = createLogger('warn', pino.destination(2));
    // Links name the running server's address unless this command's SIGNET_PUBLIC_URL says.
    const publicUrl = config.publicUrlSet ? null : await recordedPublicUrl(database.db);
    const ctx = await createContext(publicUrl ? { ...config, publicUrl } : config, database.db, { log });
    return { ctx, database, close: () => database.close() };
  } catch (error) {
    await database.close();
    throw error;
  }
}

/** Runs `fn` with a context, and closes everything again. */
export async function withContext<T>(
  config: Config,
  purpose: string,
  fn: (ctx: Context) => Promise<T>,
): Promise<T> {
  const { ctx, close } = await openContext(config, purpose);
  try {
    return await fn(ctx);
  } finally {
    await close();
  }
}

export function print(json: boolean, value: unknown, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`);
}

export async function migrateCommand(config: Config, argv: string[]): Promise<void> {
  if (argv.length > 0) throw new UsageError(`unexpected argument "${argv[0]}"`);
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 1,
    purpose: 'migrate',
  });
  try {
    // A new data folder's database came from the baseline with its migrations applied.
    const applied = [...(database.createdWith ?? []), ...(await migrateToLatest(database.db))];
    process.stdout.write(
      applied.length ? `Applied ${applied.join(', ')}\n` : 'Database is up to date (nothing to apply)\n',
    );
  } finally {
    await database.close();
  }
}
