// `signet serve [--role all|api|worker] [--demo]`. With --demo (what `npm start` runs) the first
// start seeds a demo workspace and keeps its API key in the data folder, so every start
// can print a key that works and a curl line to try it, and a signing link that can still
// be signed: once the demo signer has signed (or declined) the last one, a fresh demo
// document is sent. On PostgreSQL the data folder may not exist yet: it is made (it holds
// only demo.json then). A demo workspace whose demo.json was lost (another folder, a wiped
// disk; the database kept it) is reused, not seeded again: its owner gets a new password
// and it a new API key, since neither can be read back from their hashes.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findFirstMembership, findUserByEmailKey } from '../accounts/accounts.repository.ts';
import { createAccount, emailKey, setPassword } from '../accounts/accounts.service.ts';
import type { Config } from '../config.ts';
import type { Context } from '../context.ts';
import { seedWorkspace } from '../demo/seed.ts';
import { getDocument } from '../documents/documents.service.ts';
import { isActive } from '../documents/lifecycle.ts';
import { ApiError } from '../http/errors.ts';
import { authenticateApiKey, createApiKey } from '../keys/keys.service.ts';
import { listMails } from '../mail/mail.service.ts';
import { signingLinkIn } from '../mail/templates.ts';
import { createDocument } from '../sending/drafts.ts';
import { sendDocument } from '../sending/send.ts';
import { type Role, roles, startServer } from '../server.ts';
import { parseCommandArgs, UsageError } from './args.ts';

export const demoSampleDocuments = 60;
const demoSignerEmail = 'you@example.com';

interface DemoState {
  workspaceId: string;
  /** A read-only key: reads documents, never changes anything. */
  apiKey: string;
  /** A read-and-write key, for a newcomer's first create and send (added to older demo.json files). */
  writeKey?: string;
  /** A real document sent to a demo signer: their personal link, to try signing. */
  signingLink: string | null;
  /** The demo workspace's owner in the web application (added to older demo.json files). */
  login?: { email: string; password: string };
}

const demoLoginEmail = 'demo@example.com';

/**
 * The demo owner's login: a random password, kept only in demo.json (mode 0600). An existing
 * demo account (its demo.json lost) gets a new one: a second account cannot be made.
 */
async function createDemoLogin(ctx: Context, workspaceId: string): Promise<DemoState['login']> {
  const password = ctx.ids.randomBytes(12).toString('base64url');
  const existing = await findUserByEmailKey(ctx.db, emailKey(demoLoginEmail));
  if (existing) await setPassword(ctx, existing.id, password);
  else await createAccount(ctx, { email: demoLoginEmail, password, workspaceId, role: 'owner' });
  return { email: demoLoginEmail, password };
}

/** The demo workspace already in the database (a lost demo.json), with a new key, or null. */
async function recoverDemoWorkspace(ctx: Context): Promise<DemoState | null> {
  const owner = await findUserByEmailKey(ctx.db, emailKey(demoLoginEmail));
  const membership = owner ? await findFirstMembership(ctx.db, owner.id) : undefined;
  if (!membership) return null;
  const workspaceId = membership.workspace_id;
  const apiKey = await createApiKey(ctx, { workspaceId, name: 'Demo key' });
  const writeKey = await createDemoWriteKey(ctx, workspaceId);
  const state: DemoState = { workspaceId, apiKey: apiKey.secret, writeKey, signingLink: null };
  state.signingLink = await sendDemoDocument(ctx, workspaceId);
  state.login = await createDemoLogin(ctx, workspaceId);
  return state;
}

function createDemoWriteKey(ctx: Context, workspaceId: string): Promise<string> {
  return createApiKey(ctx, { workspaceId, name: 'Demo write key', scope: 'write' }).then((key) => key.secret);
}

/** Whether the demo signer can still sign the document behind the link. */
async function isSignable(ctx: Context, state: DemoState): Promise<boolean> {
  const documentId = /\/sign\/([0-9a-f-]{36})\//.exec(state.signingLink ?? '')?.[1];
  if (!documentId) return false;
  try {
    const document = await getDocument(ctx, state.workspaceId, documentId);
    const signer = document.recipients.find((r) => r.email === demoSignerEmail);
    return isActive(document.status) && !signer?.signedAt;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not-found') return false;
    throw error;
  }
}

async function sendDemoDocument(ctx: Context, workspaceId: string): Promise<string | null> {
  const { id } = await createDocument(ctx, {
    workspaceId,
    title: 'Website redesign — statement of work',
    body: 'Here is the statement of work we discussed. Please read it and sign by the end of the week.',
    // A real PDF, made by LaTeX (its source is beside it), as a sender would upload one.
    file: readFileSync(join(import.meta.dirname, '..', 'demo', 'statement-of-work.pdf')),
    recipients: [
      {
        email: demoSignerEmail,
        fullName: 'Demo Signer',
        role: 'signer',
        signingMethod: 'standard',
        signingOrder: 1,
      },
      {
        email: 'cfo@example.com',
        fullName: 'Casey Finance',
        role: 'viewer',
        signingMethod: 'standard',
        signingOrder: 2,
      },
    ],
    // On the client's signature block of page 2: their signature, name and date land there.
    fields: [
      { recipient: demoSignerEmail, type: 'signature', page: 2, x: 130, y: 475, width: 140, height: 28 },
      { recipient: demoSignerEmail, type: 'name', page: 2, x: 112, y: 453, width: 160, height: 14 },
      { recipient: demoSignerEmail, type: 'date', page: 2, x: 106, y: 428, width: 120, height: 14 },
    ],
    pricing: {
      currency: 'EUR',
      pricesIncludeVat: false,
      items: [
        {
          name: 'Design and build',
          quantity: '1',
          unitPrice: '12000.00',
          vatRate: '21',
          billing: { type: 'one-off' },
        },
        {
          name: 'Hosting and support',
          quantity: '1',
          unitPrice: '249.00',
          vatRate: '21',
          billing: { type: 'recurring', interval: 'month', periods: 12 },
        },
      ],
    },
  });
  await sendDocument(ctx, workspaceId, id);
  // Found the way the signer finds it: in their mail.
  const [mail] = await listMails(ctx, { documentId: id, to: demoSignerEmail, limit: 1 });
  return signingLinkIn(mail?.text ?? '');
}

async function ensureDemoWorkspace(ctx: Context): Promise<{ state: DemoState; valid: boolean }> {
  // Before anything is made, so that what is made can be written down.
  mkdirSync(ctx.config.dataDir, { recursive: true, mode: 0o700 });
  const file = join(ctx.config.dataDir, 'demo.json');
  const save = (state: DemoState) => {
    writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  };
  if (existsSync(file)) {
    const state = JSON.parse(readFileSync(file, 'utf8')) as DemoState;
    const valid = (await authenticateApiKey(ctx, state.apiKey)) !== null;
    if (valid && !(await isSignable(ctx, state))) {
      state.signingLink = await sendDemoDocument(ctx, state.workspaceId);
      save(state);
    }
    if (!state.login) {
      state.login = await createDemoLogin(ctx, state.workspaceId);
      save(state);
    }
    if (!state.writeKey) {
      state.writeKey = await createDemoWriteKey(ctx, state.workspaceId);
      save(state);
    }
    return { state, valid };
  }
  const recovered = await recoverDemoWorkspace(ctx);
  if (recovered) {
    save(recovered);
    return { state: recovered, valid: true };
  }
  const seeded = await seedWorkspace(ctx, { documents: demoSampleDocuments, name: 'Demo workspace' });
  const signingLink = await sendDemoDocument(ctx, seeded.workspace.id);
  const login = await createDemoLogin(ctx, seeded.workspace.id);
  const writeKey = await createDemoWriteKey(ctx, seeded.workspace.id);
  const state = {
    workspaceId: seeded.workspace.id,
    apiKey: seeded.apiKey.secret,
    writeKey,
    signingLink,
    login,
  };
  save(state);
  return { state, valid: true };
}

/**
 * The demo (`npm start`) is watched in a terminal by a person: its log is one readable line a
 * request unless SIGNET_LOG_FORMAT says otherwise. Without --demo, JSON lines, for a collector.
 */
export function serveConfig(config: Config, demo: boolean): Config {
  return demo && !config.logFormatSet ? { ...config, logFormat: 'pretty' } : config;
}

export async function serveCommand(given: Config, argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(argv, { role: { type: 'string' }, demo: { type: 'boolean' } }, []);
  const role = values.role ?? 'all';
  if (!(roles as readonly string[]).includes(role))
    throw new UsageError(`--role must be one of ${roles.join(', ')}`);

  const config = serveConfig(given, values.demo === true);
  const server = await startServer(config, role as Role);
  let shuttingDown = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      server.ctx.log.info({ signal }, 'already shutting down');
      return;
    }
    shuttingDown = true;
    server.ctx.log.info({ signal }, 'shutting down: finishing requests and webhook attempts in flight');
    // close() cuts connections off at the bound; this is the last resort if something hangs.
    setTimeout(() => {
      server.ctx.log.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + 5000).unref();
    server.close().then(
      () => {
        server.ctx.log.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        server.ctx.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // `on`, not `once`: with no listener left, Node restores the signal's default action, so
  // a second SIGTERM or SIGINT (an orchestrator or a supervisor repeating it, a second
  // Ctrl+C) would kill the process mid-shutdown and drop the requests it is still answering.
  // Only the first one starts the shutdown; it is bounded by SIGNET_SHUTDOWN_TIMEOUT anyway.
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  // A closed terminal hangs up: stop cleanly (the embedded database closed) rather than die.
  process.on('SIGHUP', shutdown);
  // Under `npm start`, a kill of the npm process (what a terminal's close or a process manager
  // sends it, SIGKILL included) must not leave this process running and holding its port and
  // data folder: once npm is gone this process is handed to another parent, and stops.
  if (config.startedByNpm) {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) shutdown('SIGHUP');
    }, 1000).unref();
  }

  if (!server.url) {
    process.stdout.write('\nSignet worker is running (expiry and mail). Press Ctrl+C to stop.\n');
    return;
  }
  const lines = ['', `Signet is running at ${server.url}`, `  API base URL:  ${server.url}/v1`];
  if (values.demo) {
    const demo = await ensureDemoWorkspace(server.ctx);
    if (demo.state.login) {
      lines.push(
        `  Web app:       ${server.url}/login`,
        `                 email ${demo.state.login.email}, password ${demo.state.login.password}`,
      );
    }
    if (demo.valid) {
      lines.push(
        `  Demo API key:  ${demo.state.apiKey}   read only (kept in ${join(config.dataDir, 'demo.json')})`,
      );
      if (demo.state.writeKey && (await authenticateApiKey(server.ctx, demo.state.writeKey)) !== null)
        lines.push(`  Demo write key: ${demo.state.writeKey}   read and write: creates and sends documents`);
      else
        lines.push(
          '  The demo write key was revoked. Create a new one with:',
          `  npx signet key create --workspace ${demo.state.workspaceId} --scope write`,
        );
      lines.push(
        '',
        'Try it:',
        `  curl -H "Authorization: Bearer ${demo.state.apiKey}" "${server.url}/v1/documents?limit=3"`,
      );
      if (demo.state.signingLink)
        lines.push('', 'Sign a demo document as its recipient:', `  ${demo.state.signingLink}`);
    } else {
      lines.push(
        '  The demo API key was revoked. Create a new one with:',
        `  npx signet key create --workspace ${demo.state.workspaceId}`,
      );
    }
  }
  lines.push('', 'Press Ctrl+C to stop.', '');
  process.stdout.write(lines.join('\n'));
}
