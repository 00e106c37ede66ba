// A way back into an account (issue 36 §5): "Forgot your password?" and its one-time link,
// `signet user reset-password` for operators, confirming a sign-up or accepting an
// invitation counted as a log-in (so strangers cannot lock out a new owner), and the
// first-steps panel a new owner lands on. Every client sends its own X-Forwarded-For
// address (the app trusts its "proxy").
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { accountLimitShapes } from '../../src/accounts/account-limits.ts';
import { createAccount, logIn as logInService, setPassword } from '../../src/accounts/accounts.service.ts';
import { deviceCookieName } from '../../src/accounts/device-cookies.ts';
import { findUsableReset } from '../../src/accounts/password-resets.ts';
import { passwordCost } from '../../src/accounts/passwords.ts';
import { loadConfig } from '../../src/config.ts';
import { type Context, createContext, createLogger } from '../../src/context.ts';
import type { DatabaseKind } from '../../src/db/connect.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { describeRun, runSignet } from '../support/cli-process.ts';
import {
  createEmptyPostgresDatabase,
  describeEachDatabase,
  recipient,
  useHarness,
} from '../support/harness.ts';
import {
  assertPage,
  assertRedirect,
  confirmationLinkFor,
  createWebClient,
  followSignup,
  mailsTo,
  uniqueEmail,
  type WebClient,
  type WebResponse,
  withoutCsrf,
} from '../support/web-client.ts';

const password = 'correct horse battery staple';
const newPassword = 'a brand new passphrase';
const minute = 60_000;
const publicUrl = 'https://sign.example.test';
const resetLinkPattern = /https:\/\/sign\.example\.test(\/password-reset\/[A-Za-z0-9_-]{43})\b/;

let addressCount = 0;
/** A client address no other browser of this file uses. */
function nextAddress(): string {
  addressCount++;
  return `10.36.${addressCount >> 8}.${addressCount & 255}`;
}

function browser(baseUrl: string, address = nextAddress()): WebClient {
  return createWebClient(baseUrl, { address });
}

async function logIn(client: WebClient, email: string, pass = password): Promise<WebResponse> {
  assertPage(await client.get('/login'), 200);
  return client.post('/login', { email, password: pass });
}

/** Asks for a reset of `email` through the form; the answer after the redirect. */
async function askForReset(client: WebClient, email: string): Promise<WebResponse> {
  assertPage(await client.get('/password-reset'), 200);
  const res = await client.post('/password-reset', { email });
  if (res.status !== 303) return res;
  assert.equal(res.location, '/password-reset/sent');
  return client.get('/password-reset/sent');
}

/** The path of the newest reset link mailed to `email`. */
async function resetLinkFor(ctx: Context, email: string): Promise<string> {
  for (const mail of await mailsTo(ctx, email)) {
    const link = resetLinkPattern.exec(mail.text)?.[1];
    if (link) return link;
  }
  throw new Error(`no reset link was mailed to ${email}`);
}

describeEachDatabase('password reset', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });

  async function owner() {
    const email = uniqueEmail('forgetful');
    const created = await createAccount(h.ctx, { email, password, workspaceName: 'Forgetful', plan: 'free' });
    return { email, ...created };
  }

  test('the log-in page offers it; the mailed link sets a new password once, ends every other session and logs this browser in', async () => {
    const { email } = await owner();
    const laptop = browser(h.baseUrl);
    const phone = browser(h.baseUrl);
    assertRedirect(await logIn(laptop, email), '/documents');
    assertRedirect(await logIn(phone, email), '/documents');

    const stranded = browser(h.baseUrl);
    const login = await stranded.get('/login');
    assert.ok(login.text.includes('<a href="/password-reset">Forgot your password?</a>'));
    const sent = await askForReset(stranded, email);
    assertPage(sent, 200);
    assert.ok(sent.text.includes(`We sent a mail to <strong>${email}</strong>`), sent.text);
    const [mail] = await mailsTo(h.ctx, email);
    assert.equal(mail?.subject, 'Set a new Signet password');
    assert.ok(mail?.text.includes('The link works once, for 60 minutes.'), mail?.text);
    const link = await resetLinkFor(h.ctx, email);

    const page = await stranded.get(link);
    assertPage(page, 200);
    assert.ok(page.text.includes(`For <strong>${email}</strong>.`));
    assert.ok(page.text.includes(`<form method="post" action="${link}"`));
    // The sign-up's password rule; a refused password keeps the link usable.
    const short = await stranded.post(link, { password: 'short' });
    assertPage(short, 400);
    assert.ok(short.text.includes('Use at least 10 characters.'));

    const done = await stranded.post(link, { password: newPassword });
    assertRedirect(done, '/settings/account?done=reset');
    assert.ok(stranded.cookies.get('signet_session'), 'this browser is logged in');
    assert.ok(stranded.cookies.get(deviceCookieName), 'with a device cookie, as after a log-in');
    const account = await stranded.get('/settings/account?done=reset');
    assertPage(account, 200);
    assert.ok(account.text.includes('Your new password is set and you are logged in.'));

    for (const other of [laptop, phone]) {
      const res = await other.get('/documents');
      assert.equal(res.status, 303, 'every other session ended');
      assert.match(res.location ?? '', /^\/login/);
    }
    // Once: the link is spent, for GET and POST.
    assertPage(await browser(h.baseUrl).get(link), 404);
    const again = browser(h.baseUrl);
    assertPage(await again.get('/password-reset'), 200);
    assertPage(await again.post(link, { password: 'yet another passphrase' }), 404);
    assertPage(await logIn(browser(h.baseUrl), email), 401);
    assertRedirect(await logIn(browser(h.baseUrl), email, newPassword), '/documents');
  });

  test('a link works for one hour by the clock, then answers 404 and changes nothing', async () => {
    const { email } = await owner();
    await askForReset(browser(h.baseUrl), email);
    const link = await resetLinkFor(h.ctx, email);
    h.clock.advance(59 * minute);
    const client = browser(h.baseUrl);
    assertPage(await client.get(link), 200);
    h.clock.advance(1 * minute);
    const expired = await client.get(link);
    assertPage(expired, 404);
    assert.ok(expired.text.includes('This link cannot be used'));
    assertPage(await client.get('/password-reset'), 200); // a page with a form: a CSRF token
    assertPage(await client.post(link, { password: newPassword }), 404);
    assertRedirect(await logIn(browser(h.baseUrl), email), '/documents');
  });

  test('an address without an account gets the same answer, and a mail with no link', async () => {
    const { email } = await owner();
    const nobody = uniqueEmail('nobody');
    const known = await browser(h.baseUrl).post('/password-reset', { email }, { csrf: false });
    assert.equal(known.status, 403, 'the form needs its CSRF token');
    const answers = [];
    for (const address of [email, nobody]) {
      const client = browser(h.baseUrl);
      assertPage(await client.get('/password-reset'), 200);
      const posted = await client.post('/password-reset', { email: address });
      const shown = await client.get('/password-reset/sent');
      answers.push({
        status: posted.status,
        location: posted.location,
        cookies: posted.headers.getSetCookie().map((c) => c.replace(/=[^;]*/, '=…')),
        page: withoutCsrf(shown.text).replaceAll(address, 'ADDRESS'),
      });
    }
    assert.deepEqual(answers[1], answers[0]);
    const [mail] = await mailsTo(h.ctx, nobody);
    assert.ok(mail, 'the unknown address is mailed too');
    assert.ok(!mail.text.includes('/password-reset/'), 'with no link');
    assert.ok(mail.text.includes('this address has no account'), mail.text);
    assert.ok(mail.text.includes(`${publicUrl}/signup`));
    const resets = await h.ctx.db.selectFrom('password_resets').select('id').execute();
    assert.ok(resets.length >= 1);
    // A malformed address is refused with a sentence, like at sign-up (that says nothing
    // about any account).
    const client = browser(h.baseUrl);
    assertPage(await client.get('/password-reset'), 200);
    const refused = await client.post('/password-reset', { email: 'not an address' });
    assertPage(refused, 400);
    assert.ok(refused.text.includes('Enter an email address like name@example.com.'));
  });

  test('limited like sign-up: 3 per address (then 429, Retry-After 600, 3 mails), 10 per client address', async () => {
    const { email } = await owner();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await askForReset(browser(h.baseUrl), email)).status);
    assert.deepEqual(statuses, [200, 200, 200, 429, 429, 429]);
    assert.equal((await mailsTo(h.ctx, email)).length, accountLimitShapes.resetEmail.burst);
    const refused = await askForReset(browser(h.baseUrl), email);
    assert.equal(refused.headers.get('retry-after'), '600');
    assert.ok(
      refused.text.includes(
        'Too many requests for this address or from your network. Try again in 10 minutes.',
      ),
    );
    assert.ok(refused.text.includes(`value="${email}"`), 'the form keeps what was typed');
    h.clock.advance(10 * minute);
    assertPage(await askForReset(browser(h.baseUrl), email), 200);

    const client = browser(h.baseUrl);
    for (let i = 0; i < accountLimitShapes.resetAddress.burst; i++)
      assertPage(await askForReset(client, uniqueEmail('many')), 200);
    assertPage(await askForReset(client, uniqueEmail('many')), 429);
  });

  test('using one link spends the others; a password changed since the mail ends a link', async () => {
    const { email, userId } = await owner();
    await askForReset(browser(h.baseUrl), email);
    const first = await resetLinkFor(h.ctx, email);
    await askForReset(browser(h.baseUrl), email);
    const second = (await mailsTo(h.ctx, email))
      .map((m) => resetLinkPattern.exec(m.text)?.[1])
      .find((l) => l && l !== first) as string;
    assert.ok(second && second !== first);
    const client = browser(h.baseUrl);
    assertPage(await client.get(second), 200);
    assertRedirect(await client.post(second, { password: newPassword }), '/settings/account?done=reset');
    assertPage(await browser(h.baseUrl).get(first), 404);

    h.clock.advance(minute);
    await askForReset(browser(h.baseUrl), email);
    const third = (await mailsTo(h.ctx, email))
      .map((m) => resetLinkPattern.exec(m.text)?.[1])
      .find((l) => l && l !== first && l !== second) as string;
    assertPage(await browser(h.baseUrl).get(third), 200);
    h.clock.advance(minute);
    await setPassword(h.ctx, userId, 'set by the owner meanwhile');
    assertPage(await browser(h.baseUrl).get(third), 404);
  });

  test('a look-alike address typed gets no link: the mail goes to the account’s own address', async () => {
    const { email } = await owner();
    const shouted = email.toUpperCase();
    await askForReset(browser(h.baseUrl), shouted);
    const mails = await mailsTo(h.ctx, email);
    assert.equal(mails.length, 1);
    assert.equal(mails[0]?.to, email);
  });
});

describeEachDatabase('confirming a sign-up or accepting an invitation counts as a log-in', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });

  /** Strangers, 5 wrong passwords from each of their own addresses, until the account's ceiling is spent. */
  async function spendAccountCeiling(email: string) {
    const { burst } = accountLimitShapes.loginAccount;
    for (let spent = 0; spent < burst; ) {
      const stranger = browser(h.baseUrl);
      for (let i = 0; i < 5 && spent < burst; i++, spent++)
        assertPage(await logIn(stranger, email, `guess ${spent}`), 401);
    }
    assertPage(await logIn(browser(h.baseUrl), email), 429, 'a new address is locked out');
  }

  test('sign up and confirm from address A; 30 failed log-ins from other addresses; the owner logs in from A (the confirming browser and a fresh one)', async () => {
    const home = nextAddress();
    const email = uniqueEmail('new-owner');
    const signup = browser(h.baseUrl, home);
    assertPage(await signup.get('/signup'), 200);
    assertPage(
      await followSignup(signup, await signup.post('/signup', { email, password, workspaceName: 'Fresh' })),
      200,
    );
    const link = await confirmationLinkFor(h.ctx, email);
    // The mail opened on the phone, at the same address.
    const confirming = browser(h.baseUrl, home);
    assertPage(await confirming.get(link), 200);
    assertRedirect(await confirming.post(link), '/documents');
    assert.ok(confirming.cookies.get(deviceCookieName), 'a device cookie was set at the confirmation');
    confirming.cookies.delete('signet_session');

    await spendAccountCeiling(email);
    assertRedirect(await logIn(browser(h.baseUrl, home), email), '/documents');
    // The confirming browser holds the device cookie set at the confirmation.
    assertRedirect(await logIn(confirming, email), '/documents');
  });

  test('accept an invitation (a new account) from address A; strangers spend the ceiling; the member logs in from A', async () => {
    const ownerEmail = uniqueEmail('inviter');
    await createAccount(h.ctx, { email: ownerEmail, password, workspaceName: 'Inviting', plan: 'max' });
    const inviter = browser(h.baseUrl);
    assertRedirect(await logIn(inviter, ownerEmail), '/documents');
    assertPage(await inviter.get('/settings/members'), 200);
    const invitee = uniqueEmail('invitee');
    await inviter.post('/settings/members/invitations', { email: invitee, role: 'member' });
    const invitation = /(\/invitations\/[A-Za-z0-9_-]{43})/.exec(
      (await mailsTo(h.ctx, invitee))[0]?.text ?? '',
    )?.[1] as string;
    const home = nextAddress();
    const accepting = browser(h.baseUrl, home);
    assertPage(await accepting.get(invitation), 200);
    assertRedirect(await accepting.post(invitation, { password }), '/documents');
    assert.ok(accepting.cookies.get(deviceCookieName), 'a device cookie was set at the acceptance');

    await spendAccountCeiling(invitee);
    assertRedirect(await logIn(browser(h.baseUrl, home), invitee), '/documents');
  });

  test('a new owner lands on Documents with the first steps, which go away with the first document', async () => {
    const email = uniqueEmail('first');
    const signup = browser(h.baseUrl);
    assertPage(await signup.get('/signup'), 200);
    await followSignup(signup, await signup.post('/signup', { email, password, workspaceName: 'First' }));
    const link = await confirmationLinkFor(h.ctx, email);
    assertPage(await signup.get(link), 200);
    assertRedirect(await signup.post(link), '/documents');
    const documents = await signup.get('/documents');
    assertPage(documents, 200);
    assert.ok(documents.text.includes('Your first document in three steps'));
    assert.ok(documents.text.includes('<a href="/documents/new"><strong>Upload a PDF</strong></a>'));
    // Whatever the list shows (a status filter), the panel is about the workspace.
    assert.ok(
      (await signup.get('/documents?status=completed')).text.includes('Your first document in three steps'),
    );

    const session = await logInService(h.ctx, { email, password, clientAddress: '10.36.255.1' });
    assert.ok(session && 'sessionToken' in session);
    const workspace = await h.ctx.db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select('memberships.workspace_id')
      .where('users.email', '=', email)
      .executeTakeFirstOrThrow();
    await createDocument(h.ctx, {
      workspaceId: workspace.workspace_id,
      title: 'The first one',
      recipients: [recipient(uniqueEmail('signer'), 'Sam Signer')],
      pricing: null,
    });
    const after = await signup.get('/documents');
    assertPage(after, 200);
    assert.ok(!after.text.includes('Your first document in three steps'), 'gone with the first document');
  });
});

/**
 * The database `signet` runs on in a child process: a PGlite data folder (opened here only
 * between runs, a folder belongs to one process at a time) or a PostgreSQL database.
 */
async function operatorDatabase(kind: DatabaseKind) {
  const pg = kind === 'postgres' ? await createEmptyPostgresDatabase() : null;
  const dir = mkdtempSync(join(tmpdir(), 'signet-reset-'));
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', SIGNET_PUBLIC_URL: publicUrl };
  delete env.DATABASE_URL;
  if (pg) env.DATABASE_URL = pg.url;
  else env.SIGNET_DATA_DIR = dir;
  return {
    env,
    async with<T>(fn: (ctx: Context) => Promise<T>): Promise<T> {
      const database = await openDatabase({ url: pg?.url ?? null, dataDir: pg ? null : dir });
      try {
        await migrateToLatest(database.db);
        const config = loadConfig({
          ...(pg ? { DATABASE_URL: pg.url } : { SIGNET_DATA_DIR: dir }),
          SIGNET_PUBLIC_URL: publicUrl,
          LOG_LEVEL: 'silent',
        });
        const ctx = await createContext(config, database.db, { log: createLogger('silent') });
        try {
          return await fn(ctx);
        } finally {
          await ctx.close();
        }
      } finally {
        await database.close();
      }
    },
    async drop() {
      await pg?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describeEachDatabase('signet user reset-password', (kind) => {
  test('prints a one-time link by default (nothing changes until it is used); --password-stdin sets the password and ends every session; an unknown address is an error', async () => {
    const db = await operatorDatabase(kind);
    try {
      const email = uniqueEmail('operator-managed');
      await db.with(async (ctx) => {
        await createAccount(ctx, { email, password, workspaceName: 'Ops', plan: 'free' });
      });
      const printed = await runSignet(['user', 'reset-password', '--email', email, '--json'], db.env);
      assert.equal(printed.code, 0, describeRun(printed));
      const { link, validMinutes } = JSON.parse(printed.stdout) as { link: string; validMinutes: number };
      assert.equal(validMinutes, 60);
      const path = resetLinkPattern.exec(link)?.[1] as string;
      assert.ok(path, link);
      const token = path.split('/').at(-1) as string;
      await db.with(async (ctx) => {
        assert.deepEqual(await findUsableReset(ctx, token), { email });
        const session = await logInService(ctx, { email, password, clientAddress: '10.0.0.1' });
        assert.ok(session && 'sessionToken' in session, 'the old password still works');
      });
      const set = await runSignet(
        ['user', 'reset-password', '--email', email, '--password-stdin'],
        db.env,
        60_000,
        `${newPassword}\n`,
      );
      assert.equal(set.code, 0, describeRun(set));
      assert.match(set.stdout, /every browser logged in to the account was signed out/);
      await db.with(async (ctx) => {
        const sessions = await ctx.db.selectFrom('sessions').select('id').execute();
        assert.equal(sessions.length, 0, 'every session ended');
        assert.equal(await findUsableReset(ctx, token), null, 'the printed link ended with the new password');
        assert.equal(await logInService(ctx, { email, password, clientAddress: '10.0.0.1' }), null);
        const session = await logInService(ctx, { email, password: newPassword, clientAddress: '10.0.0.1' });
        assert.ok(session && 'sessionToken' in session);
        // The hash the CLI process made has Signet's own cost (tests hash at a cheaper one).
        const user = await ctx.db.selectFrom('users').select('password_hash').executeTakeFirstOrThrow();
        const { N, r, p } = passwordCost;
        assert.deepEqual(user.password_hash.split('$').slice(0, 4), ['scrypt', `${N}`, `${r}`, `${p}`]);
        assert.deepEqual(passwordCost, { N: 32_768, r: 8, p: 1 });
        assert.deepEqual(ctx.passwordCost, passwordCost, 'a context is made with Signet’s cost unless told');
      });

      const unknown = await runSignet(['user', 'reset-password', '--email', 'nobody@example.com'], db.env);
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.stderr, /No account has the address nobody@example\.com\./);
    } finally {
      await db.drop();
    }
  });
});
