// Keeps every account's `email_key` the key that mail/address.ts computes today. Keys of
// ASCII addresses never change (the look-alike key of an ASCII address is its lower-cased
// form, as it always was), so only accounts with another character are read: at each start
// of a server, since the key follows Unicode's confusables table, which a dependency update
// may change. Idempotent, and safe when several processes run it at once.
//
// Two accounts made before look-alikes were folded (`ace@` and Cyrillic `асе@`) now read as
// one key. Both keep working: the account that holds the key keeps it, the other keeps its
// own address's lower-cased form, and a log-in that types exactly that address finds it
// (findUserToLogIn). Any new sign-up whose key is taken is refused, as always.
import { sql } from 'kysely';
import type { Context } from '../context.ts';
import { caseFoldedEmail, emailKey } from '../mail/address.ts';

/** Recomputes the keys of non-ASCII addresses; returns how many changed. */
export async function refreshEmailKeys(ctx: Pick<Context, 'db' | 'log'>): Promise<number> {
  const rows = await ctx.db
    .selectFrom('users')
    .select(['id', 'email', 'email_key'])
    .where(sql<boolean>`email !~ '^[ -~]*$'`)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  let changed = 0;
  for (const row of rows) {
    let key = emailKey(row.email);
    if (key === row.email_key) continue;
    const holder = await ctx.db
      .selectFrom('users')
      .select('id')
      .where('email_key', '=', key)
      .where('id', '!=', row.id)
      .executeTakeFirst();
    if (holder) {
      ctx.log.warn(
        { userId: row.id, sameAs: holder.id },
        'two accounts have look-alike addresses; both keep working, and new look-alikes are refused',
      );
      key = caseFoldedEmail(row.email);
      if (key === row.email_key) continue;
    }
    try {
      await ctx.db.updateTable('users').set({ email_key: key }).where('id', '=', row.id).execute();
      changed++;
    } catch (error) {
      // Another process or a sign-up took the key meanwhile: the next start looks again.
      if ((error as { code?: string }).code !== '23505') throw error;
    }
  }
  if (changed) ctx.log.info({ changed }, 'account email keys recomputed');
  return changed;
}
