// The ordered list of migrations. Imported statically (not read from disk) so the
// migrator works the same from any working directory.
import type { Migration } from 'kysely';
import * as m0001 from './0001-initial.ts';

export const migrations: Record<string, Migration> = {
  '0001-initial': m0001,
};
