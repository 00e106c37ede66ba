// Test harness: a fresh database per suite (PGlite in memory, opened from the migrated image
// test/run.ts dumps, or a PostgreSQL database cloned from the migrated template it
// prepares), a context with a clock the test moves, and the app answering real HTTP
// requests through inject.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { after, before, describe } from 'node:test';
import { PDFDocument } from '@cantoo/pdf-lib';
import { PGlite } from '@electric-sql/pglite';
import type { FastifyInstance } from 'fastify';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import pino, { type Logger } from 'pino';
import { buildApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { type Clock, type Context, createContext, createLogger, redactedPaths } from '../../src/context.ts';
import { type DatabaseHandle, type DatabaseKind, openDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { pgliteExtensions } from '../../src/db/pglite-extensions.ts';
import { pgliteCodecs } from '../../src/db/pglite-folder.ts';
import type { Database, Plan } from '../../src/db/schema.ts';
import {
  createRandom,
  type DocumentGraph,
  type SampleDocumentInput,
  sampleDocument,
} from '../../src/demo/sample-documents.ts';
import { insertDocuments, insertEvents, insertRecipients } from '../../src/documents/documents.repository.ts';
import type { DocumentEventType } from '../../src/documents/events.ts';
import { createMemoryRateLimiter, type RateLimiter } from '../../src/http/rate-limiter.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { newSigningToken } from '../../src/progress/invitations.ts';
import { prepareSealKeys } from '../../src/sealing/seal-key.ts';
import type { CreateDocumentInput, RecipientInput } from '../../src/sending/draft-input.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { sendDocument } from '../../src/sending/send.ts';
import { findMailedSigningLinks } from '../../src/sending/signing-links.ts';
import { findSigningSession, type SigningSession } from '../../src/signing/session.ts';
import type { Resolver } from '../../src/webhooks/destination.ts';
import type { WebhookEndpoint } from '../../src/webhooks/endpoints.service.ts';
import { createWorkspace } from '../../src/workspaces/workspaces.service.ts';
import { assertContract } from './contract.ts';

import { databaseKinds, postgresAdminUrl } from './databases.ts';

export { databaseKinds, postgresAdminUrl };

/**
 * The key that encrypts the seal's private key in every test database (SIGNET_SEAL_KEY): a
 * test never writes a seal.key into the working folder's ./data. Test only.
 */
export const testSealKey = 'dGVzdCBzZWFsIGtleS1lbmNyeXB0aW9uIGtleSAzMmI=';

/**
 * scrypt's cost for the passwords a harness hashes: 1/32 of Signet's (passwords.ts
 * `passwordCost`), about 2 ms a hash instead of 66 ms on the 2-core machine, where the suite
 * hashes thousands (each test account's sign-up and log-in). Every `signet` process the tests
 * start hashes at Signet's own cost (password-reset.test.ts checks a stored hash).
 */
export const testPasswordCost = { N: 1024, r: 8, p: 1 };

export interface TestClock extends Clock {
  advance(ms: number): void;
  set(date: Date): void;
}

export function createTestClock(start = new Date('2026-03-01T12:00:00.000Z')): TestClock {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance: (ms) => {
      now += ms;
    },
    set: (date) => {
      now = date.getTime();
    },
  };
}

function postgresUrlFor(database: string): string {
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdminClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresAdminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

let pgliteSnapshot: Promise<Blob> | undefined;

/** This process's PGlite databases that tests have closed, emptied and waiting for the next. */
const idlePGlites: PGlite[] = [];
let pgliteTables: Promise<string[]> | undefined;

/**
 * Empties a closed test's PGlite back to what the migrated image holds (every table empty,
 * identities restarted, the session's state discarded), so the next test opens it in
 * milliseconds instead of seconds of CPU. Queued behind anything the closed handle still ran.
 */
async function recyclePGlite(pglite: PGlite): Promise<void> {
  try {
    await pglite.exec('rollback');
    pgliteTables ??= pglite
      .query<{ name: string }>(
        `select quote_ident(tablename) as name from pg_tables
         where schemaname = 'public' and tablename not like 'kysely\\_%'`,
      )
      .then((result) => result.rows.map((row) => row.name));
    await pglite.exec(`truncate ${(await pgliteTables).join(', ')} restart identity cascade; discard all`);
    idlePGlites.push(pglite);
  } catch {
    await pglite.close().catch(() => {});
  }
}

/**
 * The migrated PGlite image test/run.ts dumped once for the whole run
 * (SIGNET_TEST_PGLITE_SNAPSHOT): opening it takes a tenth of initdb and migrating. Absent
 * when a file runs alone under `node --test`; then each database is made and migrated.
 */
function migratedPGliteSnapshot(): Promise<Blob> | undefined {
  const file = process.env.SIGNET_TEST_PGLITE_SNAPSHOT;
  if (!file) return undefined;
  pgliteSnapshot ??= readFile(file).then((bytes) => new Blob([bytes]));
  return pgliteSnapshot;
}

/**
 * A migrated, empty database of the given kind that is dropped on close; with
 * `migrated: false`, one with no schema at all (migration tests).
 */
export async function createTestDatabase(
  kind: DatabaseKind,
  { migrated = true }: { migrated?: boolean } = {},
): Promise<DatabaseHandle> {
  if (kind === 'pglite') {
    const snapshot = migrated ? await migratedPGliteSnapshot() : undefined;
    if (snapshot) {
      const pglite =
        idlePGlites.pop() ??
        (await PGlite.create({ ...pgliteCodecs, ...pgliteExtensions, loadDataDir: snapshot }));
      return openDatabase({ url: null, dataDir: null, reuse: { pglite, release: recyclePGlite } });
    }
    const handle = await openDatabase({ url: null, dataDir: null });
    if (migrated) await migrateToLatest(handle.db);
    return handle;
  }
  const prefix = process.env.SIGNET_TEST_PG_PREFIX ?? 'signet_test_';
  const name = `${prefix}${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const template = migrated ? process.env.SIGNET_TEST_PG_TEMPLATE : undefined;
  await withAdminClient((c) => c.query(`create database ${name}${template ? ` template ${template}` : ''}`));
  const handle = await openDatabase({ url: postgresUrlFor(name), dataDir: null, poolSize: 5 });
  if (migrated && !template) await migrateToLatest(handle.db);
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await withAdminClient((c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}

/**
 * An empty PostgreSQL database for a process the test starts itself (`signet serve`): its
 * URL, and `drop` once that process has stopped. Migrated by whatever opens it.
 */
export async function createEmptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const prefix = process.env.SIGNET_TEST_PG_PREFIX ?? 'signet_test_';
  const name = `${prefix}${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await withAdminClient((c) => c.query(`create database ${name}`));
  return {
    url: postgresUrlFor(name),
    drop: () =>
      withAdminClient((c) => c.query(`drop database if exists ${name} with (force)`)).then(() => {}),
  };
}

export interface Harness {
  kind: DatabaseKind;
  ctx: Context;
  clock: TestClock;
  app: FastifyInstance;
  /** Where the app listens: tests talk to it over real HTTP. */
  baseUrl: string;
  rateLimiter: RateLimiter;
  config: Config;
  /** The database's LISTEN, for tests that start a second "process" on the same database. */
  subscribe: DatabaseHandle['subscribe'];
}

export interface HarnessOptions {
  env?: Record<string, string>;
  /** DNS for webhook destinations; by default a table of test names (see `testResolver`). */
  resolver?: Resolver;
  rateLimiter?: (config: Config) => RateLimiter | Promise<RateLimiter>;
  /** The app's logger; by default one at SIGNET_TEST_LOG_LEVEL (silent). */
  log?: Logger;
}

/**
 * A resolver that knows only the names it is given (tests never touch real DNS). By
 * default public-looking names resolve to documentation-free public addresses.
 */
export function testResolver(
  names: Record<string, string[]> = {},
): Resolver & { names: Record<string, string[]> } {
  const table: Record<string, string[]> = {
    'hooks.example.com': ['93.184.216.34'],
    'api.example.org': ['93.184.216.35', '2606:2800:220:1:248:1893:25c8:1946'],
    ...names,
  };
  return {
    names: table,
    async resolve(hostname) {
      const addresses = table[hostname.toLowerCase()];
      if (!addresses)
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return addresses;
    },
  };
}

/** Opens a harness for the enclosing suite; its fields are ready inside tests. */
export function useHarness(kind: DatabaseKind, options: HarnessOptions = {}): Harness {
  const harness = { kind } as Harness;
  let database: DatabaseHandle;
  before(async () => {
    database = await createTestDatabase(kind);
    harness.subscribe = database.subscribe;
    harness.config = loadConfig({
      SIGNET_PUBLIC_URL: 'https://sign.example.test',
      SIGNET_RATE_LIMIT_BURST: '100000',
      SIGNET_SEAL_KEY: testSealKey,
      ...options.env,
    });
    harness.clock = createTestClock();
    harness.ctx = await createContext(harness.config, database.db, {
      clock: harness.clock,
      log: options.log ?? createLogger(process.env.SIGNET_TEST_LOG_LEVEL ?? 'silent'),
      subscribe: database.subscribe,
      resolver: options.resolver ?? testResolver(),
      passwordCost: testPasswordCost,
    });
    // What a worker's start does (server.ts): the seal ready before the first seal.
    await prepareSealKeys(harness.ctx, { seals: true });
    harness.rateLimiter = options.rateLimiter
      ? await options.rateLimiter(harness.config)
      : createMemoryRateLimiter(harness.config.rateLimit);
    harness.app = await buildApp(harness.ctx, {
      rateLimiter: harness.rateLimiter,
      subscribe: database.subscribe,
    });
    await harness.app.listen({ host: '127.0.0.1', port: 0 });
    const address = harness.app.server.address();
    harness.baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  after(async () => {
    await harness.app?.close();
    await harness.ctx?.close();
    await harness.rateLimiter?.close();
    await database?.close();
  });
  return harness;
}

/**
 * Another app on `ctx` (the suite's, or one with a part replaced) with a bucket of its own,
 * listening while `fn` runs with its address, and closed after.
 */
export async function withApp<T>(
  ctx: Context,
  rateLimit: Config['rateLimit'],
  fn: (baseUrl: string) => Promise<T>,
): Promise<T> {
  const app = await buildApp(ctx, { rateLimiter: createMemoryRateLimiter(rateLimit) });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    return await fn(baseUrl);
  } finally {
    await app.close();
  }
}

/** A pool pointed at a port nobody listens on: every query fails to connect (destroy it after). */
export function unreachableDatabase(): Kysely<Database> {
  return new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: new pg.Pool({
        connectionString: 'postgres://root@127.0.0.1:1/none',
        connectionTimeoutMillis: 500,
      }),
    }),
  });
}

/** Runs a suite once per database kind under test. */
export function describeEachDatabase(name: string, fn: (kind: DatabaseKind) => void): void {
  for (const kind of databaseKinds) describe(`${name} [${kind}]`, () => fn(kind));
}

export interface TestWorkspace {
  id: string;
  apiKey: string;
  keyId: string;
}

export async function createTestWorkspace(ctx: Context, plan: Plan = 'max'): Promise<TestWorkspace> {
  const workspace = await createWorkspace(ctx, { name: `Workspace ${randomUUID().slice(0, 8)}`, plan });
  const key = await createApiKey(ctx, { workspaceId: workspace.id, name: 'test' });
  return { id: workspace.id, apiKey: key.secret, keyId: key.id };
}

/** The six document event types, written out as the spec lists them (not taken from src/). */
export const allEventTypes: DocumentEventType[] = [
  'document.sent',
  'document.opened',
  'document.signed',
  'document.completed',
  'document.declined',
  'document.expired',
];

/** The fields of a document as GET /v1/documents lists it and a webhook body carries it, sorted. */
export const listedDocumentKeys = [
  'createdAt',
  'expiredReason',
  'expiresAt',
  'id',
  'sentAt',
  'signedAt',
  'status',
  'title',
  'url',
  'value',
  'withdrawnAt',
];

/** A webhook endpoint as the API answers it (the create response adds its secret). */
export type ApiEndpoint = Omit<WebhookEndpoint, 'pausedAt' | 'previousSecretExpiresAt'>;

export interface CreatedApiEndpoint extends ApiEndpoint {
  secret: string;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  body: { ok: boolean; data?: unknown; error?: string; nextCursor?: string | null } & Record<string, unknown>;
}

export type ApiMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT' | 'HEAD' | 'OPTIONS';

/**
 * A request to the API as an integrator sends it, over HTTP to the listening app. Every
 * answer from /v1 is held to docs/openapi.json as it arrives (contract.ts): one that breaks
 * the contract fails the test that got it, naming the operation, the status and the
 * validator's errors.
 */
export async function callApi(
  h: Pick<Harness, 'baseUrl'>,
  method: ApiMethod,
  path: string,
  options: { key?: string | null; headers?: Record<string, string>; body?: string | object } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(h.baseUrl + path, { method, headers, body });
  const text = await response.text();
  await assertContract(method, path, { status: response.status, headers: response.headers, text });
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: text ? (JSON.parse(text) as ApiResponse['body']) : ({} as ApiResponse['body']),
  };
}

/**
 * `POST /v1/documents` as multipart/form-data, as an integrator sends a file: the document's
 * JSON as its `document` part, the PDF as its `file` part; the answer held to the contract.
 */
export async function postDocumentMultipart(
  h: Pick<Harness, 'baseUrl'>,
  key: string,
  document: object,
  pdf: Uint8Array,
  fileName = 'contract.pdf',
): Promise<ApiResponse> {
  const form = new FormData();
  form.set('document', JSON.stringify(document));
  form.set('file', new Blob([pdf], { type: 'application/pdf' }), fileName);
  const response = await fetch(`${h.baseUrl}/v1/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  const text = await response.text();
  await assertContract('POST', '/v1/documents', { status: response.status, headers: response.headers, text });
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: text ? (JSON.parse(text) as ApiResponse['body']) : ({} as ApiResponse['body']),
  };
}

const random = createRandom(42);

/** Inserts one coherent document (recipients and history matching its status). */
export async function createTestDocument(
  ctx: Context,
  input: Omit<SampleDocumentInput, 'createdAt'> & { createdAt?: Date },
): Promise<DocumentGraph> {
  const graph = sampleDocument(random, ctx.ids, { createdAt: ctx.clock.now(), ...input });
  await ctx.db.transaction().execute(async (trx) => {
    await insertDocuments(trx, [graph.document]);
    await insertRecipients(trx, graph.recipients);
    await insertEvents(trx, graph.events);
  });
  return graph;
}

/** How many rows of `table` have every column of `where` equal to its value: the tests' "what was stored" counts. */
export async function countRows<T extends keyof Database & string>(
  ctx: Pick<Context, 'db'>,
  table: T,
  where: { [C in keyof Database[T] & string]?: unknown } = {},
): Promise<number> {
  const conditions = Object.entries(where).map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
  const filter = conditions.length ? sql.join(conditions, sql` and `) : sql`true`;
  const { rows } = await sql<{ count: string | number }>`
    select count(*) as count from ${sql.table(table)} where ${filter}`.execute(ctx.db);
  return Number(rows[0]?.count);
}

export interface SigningLink {
  email: string;
  /** Path of the personal signing page, e.g. /sign/{documentId}/{token}. */
  path: string;
  session: SigningSession;
}

/**
 * The personal links mailed for a document, by recipient's address: what the app itself
 * reads back from its mails (findMailedSigningLinks, as the reminder and "copy link" do),
 * in the order they were mailed. Email-code signers' links included.
 */
export async function signingLinksOf(ctx: Context, documentId: string): Promise<Map<string, SigningLink>> {
  const recipients = await ctx.db
    .selectFrom('recipients')
    .select(['id', 'email', 'workspace_id'])
    .where('document_id', '=', documentId)
    .orderBy('invited_at')
    .orderBy('position')
    .execute();
  const links = new Map<string, SigningLink>();
  const workspaceId = recipients[0]?.workspace_id;
  if (!workspaceId) return links;
  const mailed = await findMailedSigningLinks(ctx, workspaceId, { id: documentId, recipients });
  for (const { id, email } of recipients) {
    const link = mailed.get(id);
    if (!link) continue;
    const path = new URL(link).pathname;
    const session = await findSigningSession(ctx, documentId, path.split('/').pop() as string);
    if (session) links.set(email, { email, path, session });
  }
  return links;
}

/**
 * The personal link mailed to `email` so far, found in the mail as the recipient finds it.
 * A later signing group is mailed only once every signer before it has signed: read their
 * link when their turn has come. Fails if no link was mailed to them.
 */
export async function linkFor(ctx: Context, documentId: string, email: string): Promise<SigningLink> {
  const link = (await signingLinksOf(ctx, documentId)).get(email);
  assert.ok(link, `no signing link mailed to ${email}`);
  return link;
}

/**
 * A link issued out of turn, as a document sent before signing order was honoured by mail
 * holds one for a later signer: a token made as invitations make them (newSigningToken), its
 * hash written to the recipient's row directly (no mail carries it). For the defence in depth only: acting before one's turn
 * is refused as not-your-turn, whatever the link.
 */
export async function issueLinkOutOfTurn(
  ctx: Context,
  documentId: string,
  email: string,
): Promise<SigningLink> {
  const { token, tokenHash } = newSigningToken(ctx);
  const updated = await ctx.db
    .updateTable('recipients')
    .set({ token_hash: tokenHash })
    .where('document_id', '=', documentId)
    .where('email', '=', email)
    .where('token_hash', 'is', null)
    .executeTakeFirst();
  assert.equal(updated.numUpdatedRows, 1n, `${email}: a recipient of the document who was mailed no link`);
  const session = await findSigningSession(ctx, documentId, token);
  assert.ok(session, 'the link leads to the recipient, as a mailed one does');
  return { email, path: `/sign/${documentId}/${token}`, session };
}

/** The stored row of a document's recipient, for what no API shows (signature name, decline reason, code tries). */
export function recipientRow(ctx: Pick<Context, 'db'>, documentId: string, email: string) {
  return ctx.db
    .selectFrom('recipients')
    .selectAll()
    .where('document_id', '=', documentId)
    .where('email', '=', email)
    .executeTakeFirstOrThrow();
}

/** The newest one-time code mailed to `email`. */
export async function latestCodeFor(ctx: Context, email: string): Promise<string> {
  // The code mail is in the recipient's language: found by the code's own line (four spaces,
  // six digits) rather than its subject. From that line, not the whole text: the text also
  // names the sending workspace, whose name may hold six digits of its own (a test
  // workspace's random hex suffix is all digits about one time in 17).
  const mails = await ctx.db
    .selectFrom('mails')
    .select('text_body')
    .where('to_address', '=', email)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(20)
    .execute();
  for (const mail of mails) {
    const code = /^ {4}(\d{6})$/m.exec(mail.text_body)?.[1];
    if (code) return code;
  }
  throw new Error(`no code mailed to ${email}`);
}

/** A logger (at trace, secrets redacted as the app's are) whose lines land in `lines`. */
export function captureLog(lines: string[]): Logger {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return pino({ level: 'trace', redact: { paths: redactedPaths, censor: '[redacted]' } }, stream);
}

/** A recipient as most tests write one: a signer of the first group, standard signing, unless `more` says otherwise. */
export function recipient(
  email: string,
  fullName: string,
  more: Partial<Omit<RecipientInput, 'email' | 'fullName'>> = {},
): RecipientInput {
  return { email, fullName, role: 'signer', signingMethod: 'standard', signingOrder: 1, ...more };
}

export const twoSigners: RecipientInput[] = [
  recipient('ann@client.example', 'Ann Lee'),
  recipient('bob@client.example', 'Bob Ray', { signingOrder: 2 }),
];

/** The two signers, and a viewer who receives a copy. */
export const withViewer: RecipientInput[] = [
  ...twoSigners,
  recipient('val@client.example', 'Val Kim', { role: 'viewer' }),
];

/** The two signers, both in the first group: either may sign first. */
export const parallelSigners: RecipientInput[] = twoSigners.map((r) => ({ ...r, signingOrder: 1 }));

/** The two signers in the first group and the viewer: all three are mailed at send. */
export const parallelWithViewer: RecipientInput[] = withViewer.map((r) => ({ ...r, signingOrder: 1 }));

/** A draft: the consulting agreement to the two signers, unless `options` says otherwise. */
export function createDraftDocument(
  ctx: Context,
  workspaceId: string,
  options: Partial<Omit<CreateDocumentInput, 'workspaceId'>> = {},
): Promise<{ id: string }> {
  return createDocument(ctx, {
    workspaceId,
    title: options.title ?? 'Consulting agreement',
    body: options.body ?? 'The parties agree.',
    recipients: options.recipients ?? twoSigners,
    pricing: options.pricing ?? null,
    ...(options.expiresInSeconds ? { expiresInSeconds: options.expiresInSeconds } : {}),
    ...(options.remindEveryDays ? { remindEveryDays: options.remindEveryDays } : {}),
    ...(options.file ? { file: options.file } : {}),
    ...(options.fields ? { fields: options.fields } : {}),
  });
}

/**
 * A sent document (a draft as createDraftDocument makes it, then sent) and the links mailed
 * at send: the first signing group's only (a later group's come with its turn: `linkFor`).
 */
export async function createSentDocument(
  ctx: Context,
  workspaceId: string,
  options: Partial<Omit<CreateDocumentInput, 'workspaceId'>> = {},
): Promise<{ id: string; links: Map<string, SigningLink> }> {
  const { id } = await createDraftDocument(ctx, workspaceId, options);
  await sendDocument(ctx, workspaceId, id);
  return { id, links: await signingLinksOf(ctx, id) };
}

/** The webhook body stored for the workspace's event of `type` (the first), as a receiver gets it. */
export async function storedEventBody<T>(
  ctx: Pick<Context, 'db'>,
  workspaceId: string,
  type: string,
): Promise<T> {
  const row = await ctx.db
    .selectFrom('webhook_events')
    .select('payload')
    .where('workspace_id', '=', workspaceId)
    .where('type', '=', type)
    .orderBy('created_at')
    .executeTakeFirstOrThrow();
  return (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as T;
}

/** An A4 PDF of `pages` pages, "Page n" on each; its bytes unlike any other's (a random subject). */
export async function pagesPdf(pages: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setSubject(randomUUID());
  for (let i = 0; i < pages; i++) pdf.addPage([595, 842]).drawText(`Page ${i + 1}`, { x: 72, y: 760 });
  return pdf.save();
}
