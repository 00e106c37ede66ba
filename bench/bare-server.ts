// The baseline for `npm run bench:api`: a bare Fastify route that runs exactly the SQL
// Signet's list endpoint runs (compiled from the same repository function) through the
// same pg pool setup (size, prepared SELECTs, UTC timestamps) and returns the rows. No
// auth, no rate limit, no cursor, no envelope schema: what is left is HTTP and the query.
import Fastify from 'fastify';
import { Kysely, PostgresDialect } from 'kysely';
import { createPgPool } from '../src/db/connect.ts';
import type { Database } from '../src/db/schema.ts';
import { selectDocumentsPage } from '../src/documents/documents.repository.ts';

const { DATABASE_URL, PORT, WORKSPACE_ID, SIGNET_DB_POOL_SIZE } = process.env;
const pool = createPgPool(DATABASE_URL as string, Number(SIGNET_DB_POOL_SIZE ?? 10));
const compiler = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
const query = selectDocumentsPage(compiler, {
  workspaceId: WORKSPACE_ID as string,
  status: null,
  after: null,
  limit: 26,
}).compile();

const app = Fastify({ logger: false });
app.get('/v1/documents', async () => {
  const result = await pool.query(query.sql, query.parameters as unknown[]);
  return { data: result.rows.slice(0, 25) };
});
await app.listen({ host: '127.0.0.1', port: Number(PORT) });
process.stdout.write('ready\n');
process.on('SIGTERM', () =>
  app
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0)),
);
