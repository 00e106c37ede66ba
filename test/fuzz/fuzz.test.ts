// The fuzz test (issue 16): at least 20,000 requests generated with fast-check (see
// test/support/fuzz-requests.ts) against every route of /v1 (the write API too, with a write key:
// documents as JSON and multipart, their send, remind, withdraw and delete, the six template
// operations, with strings holding control characters and odd Unicode), the signing pages
// and the web application (bulk sends' spreadsheets and public links too), sent over real HTTP, 16 at a time, to the app built as the harness builds
// it, on one database kind (PGlite when it is under test: the fuzz is about HTTP, not SQL).
//
// Seeded first: workspaces A and B on Max with documents, endpoints, deliveries, keys (A's
// write key too), templates (with public links), members and invitations; a Free workspace; a revoked key; signing links; a pending
// sign-up; a browser logged in to A (session, CSRF cookie and token).
//
// Proven, each in its own test so that one failing does not hide the others:
// - every request got an answer, and no answer anywhere is 5xx;
// - every /v1 answer is the envelope (`{"ok":true,"data":…}` or `{"ok":false,"error":CODE}`
//   with CODE in src/http/errors.ts and the status errorStatus[CODE]) and carries
//   X-RateLimit-Limit and X-RateLimit-Remaining (GET /v1/openapi.json is the document);
// - every /v1 answer matches docs/openapi.json: a status documented for its operation, the
//   body and required headers as documented, checked by the independent validator (contract.ts);
// - isolation: no /v1 answer to A's key and no page for A's session names an id of B
//   (its documents, recipients, events, endpoints, deliveries, keys, users, workspace),
//   ids B's key creates during the run included;
// - memory: RSS after the run, after a GC, is at most 1.5 × RSS after a warm-up, after a GC;
// - the log (every line the app wrote, at debug) holds no API key and no webhook secret
//   that exists in the test: seeded ones and every one an answer revealed;
// - depth: every route template was requested, and the routes were reached (successes on
//   the routes listed in `mustSucceed`), so a fuzz refused at the door cannot pass.
//
// The limiter's burst is raised (SIGNET_RATE_LIMIT_BURST=1000000) so requests reach the
// routes instead of stopping at 429. Between batches the test puts back what the fuzz may
// take away through the forms and the API (A's session: log-out, password change; A's
// plan: Billing; A's seeded endpoints: DELETE) and brings its list of B's ids up to date.
// Webhook host names resolve to public addresses only for the destination check
// (`checkDestination` in the stack); a send (the Test button) finds no address, so no
// request of the fuzz leaves the machine.
//
// A violation does not stop the run: each kind is counted, and each test reports its kinds
// with examples (seed, batch, the request) and writes the requests in full to a JSON file.
// The generated requests depend on the seed only, so a run with the same seed sends them
// again. SIGNET_FUZZ_SEED and SIGNET_FUZZ_REQUESTS change the seed and the number of
// requests; SIGNET_FUZZ_STATS=<file> writes the statuses of every route and method;
// SIGNET_FUZZ_PROGRESS=1 prints the time every 50 batches.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import type { Insertable } from 'kysely';
import pino from 'pino';
import {
  createAccount,
  logIn,
  logOut,
  requestSignup,
  resolveSession,
  startSession,
} from '../../src/accounts/accounts.service.ts';
import { inviteMember } from '../../src/accounts/members.service.ts';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { type Context, createContext, redactedPaths } from '../../src/context.ts';
import type { DatabaseHandle } from '../../src/db/connect.ts';
import type { Database, Plan } from '../../src/db/schema.ts';
import { errorStatus, isErrorCode } from '../../src/http/errors.ts';
import { createMemoryRateLimiter, type RateLimiter } from '../../src/http/rate-limiter.ts';
import { createApiKey, revokeApiKey } from '../../src/keys/keys.service.ts';
import { setPublicLink } from '../../src/templates/public-links.ts';
import { createTemplate } from '../../src/templates/templates.service.ts';
import type { Resolver } from '../../src/webhooks/destination.ts';
import { fanOutEvents } from '../../src/webhooks/dispatcher.ts';
import { insertEndpoint } from '../../src/webhooks/endpoints.repository.ts';
import { createEndpoint, maxEndpointsPerWorkspace } from '../../src/webhooks/endpoints.service.ts';
import { getWorkspace, setWorkspacePlan } from '../../src/workspaces/workspaces.service.ts';
import { contractProblems, headersOf } from '../support/contract.ts';
import { senderFeeField, signatureField, templateRole } from '../support/factories.ts';
import { type Credentials, describeRequest, fuzzRequest, send } from '../support/fuzz-requests.ts';
import { routeLabels } from '../support/fuzz-routes.ts';
import type { FuzzPools, FuzzRequest } from '../support/fuzz-values.ts';
import {
  callApi,
  createSentDocument,
  createTestClock,
  createTestDatabase,
  createTestDocument,
  databaseKinds,
  pagesPdf,
  testPasswordCost,
  twoSigners,
} from '../support/harness.ts';
import { confirmationLinkFor, createWebClient, mailsTo } from '../support/web-client.ts';

const seed = Number(process.env.SIGNET_FUZZ_SEED ?? 20_261_116);
const requestCount = Number(process.env.SIGNET_FUZZ_REQUESTS ?? 20_000);
const inFlight = 16;
const batches = Math.ceil(requestCount / inFlight);
const warmUpBatches = 125;
const requestTimeoutMs = 20_000;
const stallMs = 15_000;
const password = 'correct horse battery staple';
const kind = databaseKinds.includes('pglite') ? 'pglite' : databaseKinds[0];

const uuidPattern = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const secretPattern = /sgn_[0-9A-Za-z]{43}|whsec_[A-Za-z0-9_-]{43}/g;

/** Route and method pairs the fuzz must get through at least once (2xx or 3xx). */
const mustSucceed = [
  'GET api /v1/documents',
  'GET api /v1/documents/{document}',
  'GET api /v1/webhook-endpoints',
  'POST api /v1/webhook-endpoints',
  'GET api /v1/webhook-endpoints/{endpoint}',
  'PATCH api /v1/webhook-endpoints/{endpoint}',
  'DELETE api /v1/webhook-endpoints/{endpoint}',
  'GET api /v1/openapi.json',
  'POST api /v1/documents',
  'GET api /v1/templates',
  'GET api /v1/templates/{template}',
  'GET web /t/{publicToken}',
  'GET sign /sign/{sign}',
  'POST sign /sign/{sign}/sign',
  'GET web /login',
  'POST web /login',
  'GET web /documents',
  'GET web /documents/{document}',
  'POST web /documents',
  'GET web /settings/integrations',
  'POST web /settings/integrations/keys',
  'GET web /settings/integrations/endpoints/{endpoint}',
  'GET web /settings/members',
  'GET web /settings/billing',
  'GET web /docs',
  'GET web /assets/app.css',
];

interface Violation {
  batch: number;
  request: FuzzRequest;
  problem: string;
}

/** The first few violations of each kind of problem, and how many there were. */
class Findings {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
  readonly byProblem = new Map<string, { count: number; examples: Violation[] }>();
  add(violation: Violation): void {
    if (violation.request.noHost) violation.problem += ' (no Host header)';
    const entry = this.byProblem.get(violation.problem) ?? { count: 0, examples: [] };
    entry.count++;
    if (entry.examples.length < 3) entry.examples.push(violation);
    this.byProblem.set(violation.problem, entry);
  }
  get count(): number {
    let total = 0;
    for (const { count } of this.byProblem.values()) total += count;
    return total;
  }
  /** The examples in words, and in full (JSON, to replay) in a file named at the end. */
  report(): string {
    const file = join(tmpdir(), `signet-fuzz-${this.name}-${seed}.json`);
    const all = [...this.byProblem].map(([problem, { count, examples }]) => ({ problem, count, examples }));
    writeFileSync(file, JSON.stringify(all, null, 2));
    const parts: string[] = [];
    for (const [problem, { count, examples }] of this.byProblem) {
      parts.push(`${problem}: ${count} request(s); for example:`);
      for (const v of examples) {
        parts.push(
          `  [seed ${seed}, batch ${v.batch}] ${describeRequest(v.request).replaceAll('\n', '\n    ')}`,
        );
      }
    }
    parts.push(`The requests in full: ${file}`);
    return parts.join('\n');
  }
}

function isApiPath(path: string): boolean {
  const local = path.replace(/^[a-z]+:\/\/[^/]*/i, '');
  return local === '/v1' || /^\/v1[/?#]/.test(local);
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

/** What is wrong with a /v1 answer, or null. */
function envelopeProblem(
  req: FuzzRequest,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
): string | null {
  const limit = header(headers, 'x-ratelimit-limit');
  const remaining = header(headers, 'x-ratelimit-remaining');
  if (!/^\d+$/.test(limit) || !/^\d+$/.test(remaining))
    return `/v1 ${status} without X-RateLimit-Limit/Remaining`;
  if (header(headers, 'x-content-type-options') !== 'nosniff') return `/v1 ${status} without nosniff`;
  const local = req.path.replace(/^[a-z]+:\/\/[^/]*/i, '');
  const method = req.method.toUpperCase();
  const document = local.split('?')[0] === '/v1/openapi.json' && (method === 'GET' || method === 'HEAD');
  if (document && status === 200) return null;
  if (method === 'HEAD') return status >= 200 && status < 300 ? null : headProblem(status);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `/v1 ${status} whose body is not JSON`;
  }
  if (typeof body !== 'object' || body === null) return `/v1 ${status} whose body is not an object`;
  const envelope = body as Record<string, unknown>;
  if (envelope.ok === true) {
    if (status < 200 || status > 299) return `/v1 ok:true with status ${status}`;
    return 'data' in envelope ? null : '/v1 ok:true without data';
  }
  if (envelope.ok !== false) return `/v1 ${status} without ok`;
  const code = envelope.error;
  if (typeof code !== 'string' || !isErrorCode(code))
    return `/v1 ${status} with error ${JSON.stringify(code)}, not in the table`;
  if (errorStatus[code] !== status)
    return `/v1 error ${code} with status ${status}, not ${errorStatus[code]}`;
  const keys = Object.keys(envelope).sort().join(',');
  if (keys === 'error,ok') return null;
  // A refused body names the member at fault: a JSON Pointer, empty or starting with a slash.
  const pointer = (envelope as { pointer?: unknown }).pointer;
  if (keys === 'error,ok,pointer' && typeof pointer === 'string' && /^(\/.*)?$/s.test(pointer)) return null;
  return `/v1 error envelope with fields ${keys}`;
}

/** A HEAD answer has no body: its status must still be one the error table gives. */
function headProblem(status: number): string | null {
  return Object.values(errorStatus).includes(status as never) ? null : `/v1 HEAD answered ${status}`;
}

/**
 * The app's database must answer the test's own queries after every batch: if it does not
 * within stallMs, a request of the batch left it stuck (the property fails on that batch).
 */
async function stallGuard<T>(batch: number, requests: FuzzRequest[], work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const file = join(tmpdir(), `signet-fuzz-stall-${seed}-${batch}.json`);
      writeFileSync(file, JSON.stringify(requests, null, 2));
      reject(
        new Error(
          `the database did not answer within ${stallMs} ms after batch ${batch} (seed ${seed}); ` +
            `its requests: ${file}\n${requests.map((r) => describeRequest(r)).join('\n\n')}`,
        ),
      );
    }, stallMs);
  });
  try {
    return await Promise.race([work, stalled]);
  } finally {
    clearTimeout(timer);
  }
}

function collectGarbage(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

async function settledRss(gc: () => void): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().rss;
}

/**
 * Registration (the destination check) sees the test's host names as public; a send finds
 * no address: nothing the fuzz registers can make the app connect anywhere.
 */
const fuzzResolver: Resolver = {
  async resolve(hostname) {
    const names: Record<string, string[]> = {
      'hooks.example.com': ['93.184.216.34'],
      'api.example.org': ['93.184.216.35'],
    };
    const checking = new Error().stack?.includes('checkDestination') ?? false;
    const addresses = checking ? names[hostname.toLowerCase()] : undefined;
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses;
  },
};

interface Seeded {
  pools: FuzzPools;
  credentials: Credentials;
  workspaceA: string;
  workspaceB: string;
  ownerA: string;
  /** A's seeded endpoints as stored: put back when the fuzz deleted them. */
  endpointRowsA: Array<Insertable<Database['webhook_endpoints']>>;
  secrets: Set<string>;
}

async function seedData(ctx: Context, baseUrl: string): Promise<Seeded> {
  const secrets = new Set<string>();
  /** An owner of a new workspace, Fuzz <letter>. */
  const owner = (letter: string, plan: Plan) =>
    createAccount(ctx, {
      email: `owner-${letter.toLowerCase()}@fuzz.example`,
      password,
      workspaceName: `Fuzz ${letter}`,
      plan,
    });
  const a = await owner('A', 'max');
  const memberA = await createAccount(ctx, {
    email: 'member-a@fuzz.example',
    password,
    workspaceId: a.workspaceId,
    role: 'member',
  });
  const b = await owner('B', 'max');
  const free = await owner('F', 'free');

  const key = async (workspaceId: string, name: string) => {
    const created = await createApiKey(ctx, { workspaceId, name });
    secrets.add(created.secret);
    return created;
  };
  const keyA = await key(a.workspaceId, 'fuzz A');
  const spareA = await key(a.workspaceId, 'spare A');
  const revokedA = await key(a.workspaceId, 'revoked A');
  await revokeApiKey(ctx, revokedA.id, a.workspaceId);
  const writeKeyA = await createApiKey(ctx, {
    workspaceId: a.workspaceId,
    name: 'fuzz A writer',
    scope: 'write',
  });
  secrets.add(writeKeyA.secret);
  const keyB = await key(b.workspaceId, 'fuzz B');
  const keyFree = await key(free.workspaceId, 'fuzz Free');

  const endpoint = async (workspaceId: string, n: number) => {
    const created = await createEndpoint(ctx, workspaceId, {
      url: `https://hooks.example.com/${n}`,
      events: ['document.sent', 'document.signed', 'document.completed'],
      description: `endpoint ${n}`,
    });
    secrets.add(created.secret);
    return created.id;
  };
  // Seven of A's ten: the fuzz deletes some and can create a few.
  const endpointsA: string[] = [];
  for (let n = 1; n <= 7; n++) endpointsA.push(await endpoint(a.workspaceId, n));
  const endpointsB = [await endpoint(b.workspaceId, 8), await endpoint(b.workspaceId, 9)];

  const statuses = ['draft', 'sent', 'viewed', 'signed', 'declined', 'expired'] as const;
  const documents = async (workspaceId: string, count: number) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const graph = await createTestDocument(ctx, { workspaceId, status: statuses[i % statuses.length] });
      ids.push(graph.document.id);
    }
    return ids;
  };
  const documentsA = await documents(a.workspaceId, 24);
  const documentsB = await documents(b.workspaceId, 8);
  const documentsFree = await documents(free.workspaceId, 3);
  const signing: Array<[string, string]> = [];
  // Signing links: both recipients may sign at once; a decline ends a document for both,
  // so there are enough of them that some are still open when the fuzz gets a signature right.
  const parallel = twoSigners.map((recipient) => ({ ...recipient, signingOrder: 1 }));
  const signingWorkspaces = [
    ...Array<string>(8).fill(a.workspaceId),
    b.workspaceId,
    b.workspaceId,
    free.workspaceId,
  ];
  for (const workspaceId of signingWorkspaces) {
    const sent = await createSentDocument(ctx, workspaceId, { recipients: parallel });
    (workspaceId === a.workspaceId
      ? documentsA
      : workspaceId === b.workspaceId
        ? documentsB
        : documentsFree
    ).push(sent.id);
    for (const link of sent.links.values()) {
      const [, , documentId, token] = link.path.split('/');
      signing.push([documentId as string, token as string]);
    }
  }
  // Templates of A and of B: one with a value the sender fills (for their documents), one
  // without, with a public link (a public link cannot ask the sender for values).
  const pdf = await pagesPdf(1);
  const template = async (workspaceId: string, withFee: boolean) => {
    const { id } = await createTemplate(ctx, {
      workspaceId,
      name: 'Fuzz waiver',
      title: 'Fuzz waiver',
      roles: [templateRole('Client')],
      fields: [
        signatureField({ role: 'Client' }),
        ...(withFee ? [senderFeeField('Client', { required: false })] : []),
      ],
      expiresInSeconds: 7 * 24 * 3600,
      file: pdf,
    });
    const token = withFee ? null : await setPublicLink(ctx, workspaceId, id, { maxUses: null, endsAt: null });
    return { id, token };
  };
  const templatesA = [await template(a.workspaceId, true), await template(a.workspaceId, false)];
  const templatesB = [await template(b.workspaceId, true), await template(b.workspaceId, false)];
  const recipientsOf = async (workspaceId: string) =>
    (
      await ctx.db
        .selectFrom('recipients')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .limit(20)
        .execute()
    ).map((row) => row.id);
  await fanOutEvents(ctx);
  const deliveries = async (workspaceId: string) =>
    (
      await ctx.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .execute()
    ).map((row) => row.id);

  // Sessions: the browser logged in to A through the form; B's owner and a stale one.
  const browser = createWebClient(baseUrl);
  await browser.get('/login');
  const login = await browser.post('/login', { email: 'owner-a@fuzz.example', password, next: '/documents' });
  assert.equal(login.status, 303, login.text.slice(0, 500));
  await browser.get('/documents');
  const session = browser.cookies.get('signet_session');
  const csrfCookie = browser.cookies.get('signet_csrf');
  assert.ok(session && csrfCookie && browser.csrfToken, 'the browser is logged in with a CSRF token');
  const token = (result: Awaited<ReturnType<typeof logIn>>) =>
    result && 'sessionToken' in result ? result.sessionToken : '';
  const sessionB = token(
    await logIn(ctx, { email: 'owner-b@fuzz.example', password, clientAddress: '127.0.0.1' }),
  );
  const stale = token(
    await logIn(ctx, { email: 'owner-a@fuzz.example', password, clientAddress: '127.0.0.1' }),
  );
  await logOut(ctx, stale);

  // Invitations of A and of B (their tokens come by mail), and a pending sign-up.
  const userA = await resolveSession(ctx, session);
  const userB = await resolveSession(ctx, sessionB);
  assert.ok(userA && userB);
  await inviteMember(ctx, userA, { email: 'invitee-a@fuzz.example', role: 'member' });
  await inviteMember(ctx, userB, { email: 'invitee-b@fuzz.example', role: 'member' });
  const invitationTokens: string[] = [];
  for (const email of ['invitee-a@fuzz.example', 'invitee-b@fuzz.example']) {
    for (const mail of await mailsTo(ctx, email)) {
      const token = /\/invitations\/([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
      if (token) invitationTokens.push(token);
    }
  }
  const invitations = async (workspaceId: string) =>
    (
      await ctx.db.selectFrom('invitations').select('id').where('workspace_id', '=', workspaceId).execute()
    ).map((row) => row.id);
  await requestSignup(ctx, { email: 'signup@fuzz.example', password, workspaceName: 'Fuzz signup' });
  const signupToken = (await confirmationLinkFor(ctx, 'signup@fuzz.example')).split('/').at(-1) as string;

  // Real cursors: a next page of A's list and of B's.
  const cursors: string[] = [];
  for (const secret of [keyA.secret, keyB.secret]) {
    const page = await callApi({ baseUrl }, 'GET', '/v1/documents?limit=2', { key: secret });
    assert.equal(page.status, 200, page.text);
    if (page.body.nextCursor) cursors.push(page.body.nextCursor);
  }

  return {
    pools: {
      own: {
        documents: documentsA,
        endpoints: endpointsA,
        // Not A's own key: revoking it would end the fuzz of /v1 as A (its spare is here).
        keys: [spareA.id, revokedA.id],
        // Not A's owner: demoting or removing the only owner ends the owner pages.
        users: [memberA.userId],
        deliveries: await deliveries(a.workspaceId),
        invitations: await invitations(a.workspaceId),
        templates: templatesA.map((t) => t.id),
        recipients: await recipientsOf(a.workspaceId),
        workspace: a.workspaceId,
      },
      other: {
        documents: documentsB,
        endpoints: endpointsB,
        keys: [keyB.id, keyFree.id],
        users: [b.userId, free.userId],
        deliveries: await deliveries(b.workspaceId),
        invitations: await invitations(b.workspaceId),
        templates: templatesB.map((t) => t.id),
        recipients: await recipientsOf(b.workspaceId),
        workspace: b.workspaceId,
      },
      freeDocuments: documentsFree,
      signing,
      invitationTokens,
      signupTokens: [signupToken],
      cursors,
      staleSession: stale,
      publicTokens: [...templatesA, ...templatesB].flatMap((t) => (t.token ? [t.token] : [])),
      pdfBase64: Buffer.from(pdf).toString('base64'),
    },
    credentials: {
      keys: {
        A: keyA.secret,
        W: writeKeyA.secret,
        B: keyB.secret,
        free: keyFree.secret,
        revoked: revokedA.secret,
      },
      session,
      csrfCookie,
      csrf: browser.csrfToken,
    },
    workspaceA: a.workspaceId,
    workspaceB: b.workspaceId,
    ownerA: a.userId,
    endpointRowsA: await ctx.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', 'in', endpointsA)
      .execute(),
    secrets,
  };
}

/** Every id that belongs to workspace B now (B's key creates endpoints during the run). */
async function idsOfB(ctx: Context, workspaceB: string, into: Set<string>): Promise<void> {
  const tables = [
    'documents',
    'recipients',
    'document_events',
    'webhook_endpoints',
    'webhook_deliveries',
    'webhook_events',
    'api_keys',
    'invitations',
    'templates',
  ] as const;
  for (const table of tables) {
    const rows = await ctx.db.selectFrom(table).select('id').where('workspace_id', '=', workspaceB).execute();
    for (const row of rows) into.add(String(row.id).toLowerCase());
  }
  const members = await ctx.db
    .selectFrom('memberships')
    .select('user_id')
    .where('workspace_id', '=', workspaceB)
    .execute();
  for (const row of members) into.add(row.user_id.toLowerCase());
  into.add(workspaceB.toLowerCase());
}

describe(`fuzz: ${requestCount} generated requests over HTTP [${kind}]`, { timeout: 300_000 }, () => {
  let database: DatabaseHandle;
  let ctx: Context;
  let app: FastifyInstance;
  let rateLimiter: RateLimiter;
  let agent: Agent;
  let origin: { host: string; port: number };
  let seeded: Seeded;
  let logPath: string;
  const idsB = new Set<string>();
  const findings = {
    answers: new Findings('answers'),
    envelope: new Findings('envelope'),
    contract: new Findings('contract'),
    isolation: new Findings('isolation'),
  };
  /** Answers whose header block is over 16 KB (Node's and undici's default limit): reported, not failed. */
  let largeHeaderAnswers = 0;
  /** Answers for A that named ids (all checked), and answers for B's key that named B's ids. */
  let answersForAChecked = 0;
  let answersForBNamingB = 0;
  const revealedSecrets = new Set<string>();
  const successes = new Map<string, number>();
  const statusesByRoute = new Map<string, Record<number, number>>();
  const requested = new Map<string, number>();
  const statusCounts = new Map<string, number>();
  let sent = 0;
  let rssBefore = 0;
  let rssAfter = 0;
  const gc = collectGarbage();

  before(async () => {
    database = await createTestDatabase(kind ?? 'pglite');
    const config = loadConfig({
      SIGNET_PUBLIC_URL: 'https://sign.example.test',
      SIGNET_RATE_LIMIT_BURST: '1000000',
    });
    logPath = join(tmpdir(), `signet-fuzz-${randomUUID()}.log`);
    // createLogger's options (redaction included), writing to a file the test reads back.
    const log = pino(
      { level: 'debug', redact: { paths: redactedPaths, censor: '[redacted]' } },
      pino.destination({ dest: logPath, sync: true }),
    );
    ctx = await createContext(config, database.db, {
      clock: createTestClock(),
      log,
      subscribe: database.subscribe,
      resolver: fuzzResolver,
      passwordCost: testPasswordCost,
    });
    rateLimiter = createMemoryRateLimiter(config.rateLimit);
    app = await buildApp(ctx, { rateLimiter });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    origin = { host: '127.0.0.1', port: typeof address === 'object' && address ? address.port : 0 };
    seeded = await seedData(ctx, `http://127.0.0.1:${origin.port}`);
    for (const secret of seeded.secrets) revealedSecrets.add(secret);
    await idsOfB(ctx, seeded.workspaceB, idsB);
    agent = new Agent({ keepAlive: true, maxSockets: inFlight });
  });

  after(async () => {
    agent?.destroy();
    await app?.close();
    await ctx?.close();
    await rateLimiter?.close();
    await database?.close();
    if (logPath) rmSync(logPath, { force: true });
  });

  /** A's session, plan and seeded endpoints: restored when the fuzz ended, changed or deleted them. */
  async function keepA(): Promise<void> {
    const { credentials } = seeded;
    if (!(await resolveSession(ctx, credentials.session))) {
      credentials.session = await startSession(ctx.db, ctx, seeded.ownerA, seeded.workspaceA);
      const browser = createWebClient(`http://127.0.0.1:${origin.port}`);
      browser.cookies.set('signet_session', credentials.session);
      browser.cookies.set('signet_csrf', credentials.csrfCookie);
      await browser.get('/documents');
      assert.ok(browser.csrfToken, 'a fresh CSRF token for the new session');
      credentials.csrf = browser.csrfToken;
    }
    // Endpoints the fuzz deleted come back (with their ids), so later requests still find them.
    const present = new Set(
      (
        await ctx.db
          .selectFrom('webhook_endpoints')
          .select('id')
          .where('workspace_id', '=', seeded.workspaceA)
          .execute()
      ).map((row) => row.id),
    );
    let count = present.size;
    for (const row of seeded.endpointRowsA) {
      if (present.has(row.id as string) || count >= maxEndpointsPerWorkspace) continue;
      await insertEndpoint(ctx.db, row);
      count++;
    }
    if ((await getWorkspace(ctx, seeded.workspaceA)).plan !== 'max')
      await setWorkspacePlan(ctx, seeded.workspaceA, 'max');
  }

  async function runBatch(requests: FuzzRequest[], batch: number, record: boolean): Promise<void> {
    const credentials = { ...seeded.credentials, keys: { ...seeded.credentials.keys } };
    // Ids in the answers for A, and (to show the check sees ids as they appear) for B.
    const idsSeen: Array<{ request: FuzzRequest; ids: string[]; asB: boolean }> = [];
    await Promise.all(
      requests.map(async (request) => {
        const result = await send(origin, agent, request, credentials, requestTimeoutMs);
        if (!record) return;
        sent++;
        const route = `${request.method.toUpperCase()} ${request.route}`;
        requested.set(request.route, (requested.get(request.route) ?? 0) + 1);
        if (!result.ok) {
          findings.answers.add({
            batch,
            request,
            problem: `${request.target} ${request.method.toUpperCase()}: no answer (${result.error.replace(/\d+/g, 'N')})`,
          });
          return;
        }
        const { status, headers, body } = result.response;
        if (result.response.headerBytes > 16 * 1024) largeHeaderAnswers++;
        const statusKey = `${request.target} ${status}`;
        statusCounts.set(statusKey, (statusCounts.get(statusKey) ?? 0) + 1);
        if (status >= 200 && status < 400) successes.set(route, (successes.get(route) ?? 0) + 1);
        const byStatus = statusesByRoute.get(route) ?? {};
        byStatus[status] = (byStatus[status] ?? 0) + 1;
        statusesByRoute.set(route, byStatus);
        if (status >= 500)
          findings.answers.add({ batch, request, problem: `${request.target} answered ${status}` });
        const text = body.toString('utf8');
        if (text.includes('sgn_') || text.includes('whsec_')) {
          for (const secret of text.match(secretPattern) ?? []) revealedSecrets.add(secret);
        }
        if (isApiPath(request.path)) {
          const problem = envelopeProblem(request, status, headers, text);
          if (problem) findings.envelope.add({ batch, request, problem });
          // The same answer held to docs/openapi.json by the independent validator (contract.ts).
          const local = request.path.replace(/^[a-z]+:\/\/[^/]*/i, '');
          const judged = await contractProblems(request.method.toUpperCase(), local, {
            status,
            headers: headersOf(headers),
            text,
          });
          for (const problem of judged?.problems ?? []) {
            findings.contract.add({
              batch,
              request,
              problem: `${judged?.operation} ${status}: ${problem.split('\n')[0]}`,
            });
          }
        }
        const values = request.headers.map(([, value]) => value).join('\n');
        const asA =
          (request.target === 'api' && values.includes('{{key:A}}') && !values.includes('{{key:B}}')) ||
          // A signing page shows its link's document to whoever holds the link: not A's.
          (request.target === 'web' && values.includes('{{session}}'));
        const asB = request.target === 'api' && values.includes('{{key:B}}') && !values.includes('{{key:A}}');
        if (asB && status === 200)
          idsSeen.push({ request, ids: [...text.matchAll(uuidPattern)].map((m) => m[0]), asB });
        if (asA) {
          const ids = [...text.matchAll(uuidPattern)].map((m) => m[0].toLowerCase());
          // A redirect to the log-in page carries the path asked for: ids the request itself
          // named are its own echo there, not a leak. In the body every id counts.
          const asked = request.path.toLowerCase();
          const location = header(headers, 'location');
          for (const [id] of location.matchAll(uuidPattern)) {
            if (!asked.includes(id.toLowerCase())) ids.push(id.toLowerCase());
          }
          if (ids.length) idsSeen.push({ request, ids, asB: false });
        }
      }),
    );
    if (!record) return;
    await stallGuard(batch, requests, idsOfB(ctx, seeded.workspaceB, idsB));
    for (const { request, ids, asB } of idsSeen) {
      const leaked = ids.filter((id) => idsB.has(id.toLowerCase()));
      if (asB) {
        if (leaked.length) answersForBNamingB++;
        continue;
      }
      answersForAChecked++;
      if (leaked.length) {
        findings.isolation.add({
          batch,
          request,
          problem: `an answer for A (${request.target}) names B's id ${leaked[0]}`,
        });
      }
    }
    await stallGuard(batch, requests, keepA());
  }

  test(`sends ${requestCount} requests (seed ${seed}), after a warm-up`, async (t) => {
    const batch = fc.array(fuzzRequest(seeded.pools), { minLength: inFlight, maxLength: inFlight });
    // Warm-up: the same kinds of requests, not recorded, then the baseline RSS.
    let warm = 0;
    for (const requests of fc.sample(batch, { seed: seed + 1, numRuns: warmUpBatches })) {
      await runBatch(requests, -++warm, false);
    }
    await keepA();
    rssBefore = await settledRss(gc);
    const memoryBefore = process.memoryUsage();

    let run = 0;
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(batch, async (requests) => {
        const batchStarted = Date.now();
        await runBatch(requests, run++, true);
        if (process.env.SIGNET_FUZZ_PROGRESS && (run % 50 === 0 || Date.now() - batchStarted > 2000)) {
          console.log(
            `batch ${run}: ${Date.now() - batchStarted} ms, ${Math.round((Date.now() - started) / 1000)} s`,
          );
        }
      }),
      { numRuns: batches, seed, endOnFailure: true },
    );
    const seconds = (Date.now() - started) / 1000;
    rssAfter = await settledRss(gc);
    const memoryAfter = process.memoryUsage();

    const byTarget = [...statusCounts].sort().map(([key, count]) => `${key}: ${count}`);
    t.diagnostic(
      `${sent} requests in ${seconds.toFixed(1)} s (${Math.round(sent / seconds)}/s), seed ${seed}`,
    );
    t.diagnostic(`answers by target and status: ${byTarget.join(', ')}`);
    t.diagnostic(`answers with a header block over 16 KB: ${largeHeaderAnswers}`);
    t.diagnostic(
      `isolation: ${answersForAChecked} answers for A named ids; ${answersForBNamingB} for B named B's`,
    );
    t.diagnostic(
      `memory after the warm-up → after the run, MB: ${(
        ['rss', 'heapUsed', 'external', 'arrayBuffers'] as const
      )
        .map(
          (k) => `${k} ${(memoryBefore[k] / 2 ** 20).toFixed(0)} → ${(memoryAfter[k] / 2 ** 20).toFixed(0)}`,
        )
        .join(', ')}`,
    );
    // SIGNET_FUZZ_STATS=<file>: every route and method with the statuses it got.
    if (process.env.SIGNET_FUZZ_STATS) {
      const stats = Object.fromEntries([...statusesByRoute].sort(([a], [b]) => a.localeCompare(b)));
      writeFileSync(process.env.SIGNET_FUZZ_STATS, JSON.stringify(stats, null, 1));
    }
    assert.ok(sent >= requestCount, `${sent} requests went out, not ${requestCount}`);
  });

  test('every route template was requested, and the routes were reached', () => {
    const never = routeLabels.filter((label) => !requested.has(label));
    assert.deepEqual(never, [], 'route templates never requested');
    const unreached = mustSucceed.filter((route) => !successes.has(route));
    assert.deepEqual(unreached, [], `never answered 2xx or 3xx (seed ${seed})`);
  });

  test('every request got an answer and none is 5xx', () => {
    assert.equal(findings.answers.count, 0, `\n${findings.answers.report()}`);
  });

  test('every /v1 answer is the envelope with a code of the table and the rate-limit headers', () => {
    assert.equal(findings.envelope.count, 0, `\n${findings.envelope.report()}`);
  });

  test('every /v1 answer matches docs/openapi.json (status, body, required headers), by the independent validator', () => {
    assert.equal(findings.contract.count, 0, `\n${findings.contract.report()}`);
  });

  test("no answer for A's key or A's session names an id of workspace B", () => {
    assert.ok(idsB.size > 30, `B's ids were collected (${idsB.size})`);
    // The check is not vacuous: many answers for A named ids, and B's own answers, checked
    // the same way, were found to name B's ids.
    assert.ok(answersForAChecked > 300, `${answersForAChecked} answers for A named ids`);
    assert.ok(answersForBNamingB > 20, `${answersForBNamingB} answers for B's key named B's ids`);
    assert.equal(findings.isolation.count, 0, `\n${findings.isolation.report()}`);
  });

  test('memory stays bounded: RSS after the run at most 1.5 × after the warm-up (both after a GC)', () => {
    assert.ok(rssBefore > 0 && rssAfter > 0, 'both were measured');
    assert.ok(
      rssAfter <= rssBefore * 1.5,
      `RSS grew from ${(rssBefore / 2 ** 20).toFixed(1)} MB to ${(rssAfter / 2 ** 20).toFixed(1)} MB`,
    );
  });

  test('no API key and no webhook secret of the test reached the log', () => {
    const log = readFileSync(logPath, 'utf8');
    assert.ok(log.split('\n').length > requestCount, 'the log holds a line per request at least');
    assert.ok(
      revealedSecrets.size > seeded.secrets.size,
      'the fuzz created secrets of its own (keys, endpoints)',
    );
    const found = [...revealedSecrets].filter((secret) => log.includes(secret));
    assert.deepEqual(
      found.map((secret) => `${secret.slice(0, 10)}…`),
      [],
      'secrets found in the log',
    );
  });
});
