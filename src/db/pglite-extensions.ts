// The PostgreSQL extensions the schema needs, loaded into every embedded database that
// opens it (PGlite.create). pg_trgm: the documents list's search (migration 0027's index).
// An embedded database opened without them cannot touch that index.
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

export const pgliteExtensions = { extensions: { pg_trgm } };
