// `node bench/list-search.ts`: the web app's document search (issue 36 §6) on 100,000
// documents of one workspace: the first page of /documents for a search that matches one
// document, one that matches about a tenth, one that matches none, and the list without a
// search, beside each other; then PostgreSQL's plan of the rare search, which must use the
// trigram index documents_search (migration 0027). Prints milliseconds (median of the runs);
// exits non-zero when the plan does not name the index.
//
// Env: SIGNET_BENCH_DATABASE (postgres | pglite; postgres), SIGNET_BENCH_POSTGRES_URL (admin
// connection, default postgres://root@127.0.0.1:5432/postgres), SIGNET_BENCH_DOCUMENTS
// (100000), SIGNET_BENCH_RUNS (15).
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { createContext, createLogger } from '../src/context.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { seedWorkspace } from '../src/demo/seed.ts';
import { selectDocumentsPage } from '../src/documents/documents.repository.ts';
import { createDocument } from '../src/sending/drafts.ts';
import { benchDatabase } from './webhook-setup.ts';

const kind = process.env.SIGNET_BENCH_DATABASE === 'pglite' ? 'pglite' : 'postgres';
const adminUrl = process.env.SIGNET_BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/postgres';
const documents = Number(process.env.SIGNET_BENCH_DOCUMENTS ?? 100_000);
const runs = Number(process.env.SIGNET_BENCH_RUNS ?? 15);
const pageSize = 25;

const database = kind === 'postgres' ? benchDatabase(adminUrl) : null;
await database?.create();
const handle = await openDatabase({ url: database?.url ?? null, dataDir: null, poolSize: 2 });
try {
  await migrateToLatest(handle.db);
  const config = loadConfig({ ...process.env, SIGNET_LOG_LEVEL: 'error' });
  const ctx = await createContext(config, handle.db, { log: createLogger('error') });
  const seedStarted = performance.now();
  const { workspace } = await seedWorkspace(ctx, { documents, seed: 36 });
  await createDocument(ctx, {
    workspaceId: workspace.id,
    title: 'Harbour crane lease',
    recipients: [
      {
        email: 'quentin.zoller@rare.example',
        fullName: 'Quentin Zöller',
        role: 'signer',
        signingMethod: 'standard',
        signingOrder: 1,
      },
    ],
    pricing: null,
  });
  await sql`analyze documents`.execute(handle.db);
  console.log(
    `${kind}: ${documents + 1} documents in one workspace, seeded in ${Math.round((performance.now() - seedStarted) / 1000)} s`,
  );

  const page = (search: string | null) =>
    selectDocumentsPage(handle.db, {
      workspaceId: workspace.id,
      status: null,
      search,
      after: null,
      limit: pageSize + 1,
    });
  const cases: Array<[string, string | null]> = [
    ['no search (the list as before)', null],
    ['"zöller": one recipient name', 'zöller'],
    ['"rare.example": one address', 'rare.example'],
    ['"office lease": a tenth of the titles', 'office lease'],
    ['"xylophone": nothing', 'xylophone'],
  ];
  for (const [label, search] of cases) {
    const times: number[] = [];
    let rows = 0;
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      rows = (await page(search).execute()).length;
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] as number;
    console.log(
      `  ${label.padEnd(40)} ${median.toFixed(1).padStart(7)} ms  (${rows} rows of ${pageSize + 1} asked)`,
    );
    if (search === 'zöller' && rows !== 1) throw new Error('the rare search did not find its document');
  }
  const compiled = page('zöller').compile();
  const plan = await sql
    .raw<{ 'QUERY PLAN': string }>(
      `explain (analyze, costs off, timing off) ${compiled.sql.replace(/\$(\d+)/g, (_, n) => {
        const value = compiled.parameters[Number(n) - 1];
        return `'${String(value).replaceAll("'", "''")}'`;
      })}`,
    )
    .execute(handle.db);
  const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
  console.log(`\nEXPLAIN ANALYZE of the "zöller" search (${kind}):\n${text}`);
  if (!text.includes('documents_search')) {
    console.error('the plan does not use documents_search');
    process.exitCode = 1;
  }
  await ctx.close();
} finally {
  await handle.close();
  await database?.drop();
}
