// What one person can learn or do in another's name, probed as an attacker would: who
// reads which mail (with and without SMTP, through a real SMTP receiver), secrets in the
// log, sign-up floods, look-alike addresses and log-in lockouts. Every client here sends
// its own X-Forwarded-For address (the app trusts its "proxy").
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { after, test } from 'node:test';
import { accountLimitShapes } from '../../src/accounts/account-limits.ts';
import { createAccount, setPassword } from '../../src/accounts/accounts.service.ts';
import { deviceCookieName } from '../../src/accounts/device-cookies.ts';
import { refreshEmailKeys } from '../../src/accounts/email-keys.ts';
import { createLogger } from '../../src/context.ts';
import type { Plan } from '../../src/db/schema.ts';
import { deliverDueMails } from '../../src/mail/mail.service.ts';
import { createMailTransport } from '../../src/mail/mailer.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { sendDocument } from '../../src/sending/send.ts';
import { contractFetch } from '../support/contract.ts';
import {
  countRows,
  describeEachDatabase,
  latestCodeFor,
  recipient,
  signingLinksOf,
  useHarness,
} from '../support/harness.ts';
import { startSmtpReceiver } from '../support/smtp-receiver.ts';
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
} from '../support/web-client.ts';

const password = 'correct horse battery staple';
const minute = 60_000;

/** A GET sent with its path exactly as given (fetch would normalise `//` and `\\`); its status. */
function rawGet(baseUrl: string, path: string): Promise<number> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { hostname, port, path, method: 'GET', headers: { host: 'signet.test' } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

let addressCount = 0;
/** A client address no other browser of this file uses. */
function nextAddress(): string {
  addressCount++;
  return `10.21.${addressCount >> 8}.${addressCount & 255}`;
}

/** A new browser with an empty cookie jar, at `address` (by default one of its own). */
function browser(baseUrl: string, address = nextAddress()): WebClient {
  return createWebClient(baseUrl, { address });
}

async function logIn(client: WebClient, email: string, pass = password): Promise<WebResponse> {
  assertPage(await client.get('/login'), 200);
  return client.post('/login', { email, password: pass });
}

const smtp = await startSmtpReceiver();
after(() => smtp.close());

for (const withSmtp of [false, true]) {
  describeEachDatabase(`who reads which mail (${withSmtp ? 'SMTP configured' : 'no SMTP'})`, (kind) => {
    const h = useHarness(kind, {
      env: { SIGNET_TRUST_PROXY: '1', ...(withSmtp ? { SMTP_URL: smtp.url } : {}) },
    });
    const transport = () =>
      createMailTransport({ smtpUrl: h.config.smtpUrl, from: 'Signet <no-reply@test>', log: h.ctx.log });

    async function account(workspace?: { id: string }, role: 'owner' | 'member' = 'member') {
      const email = uniqueEmail(role);
      const created = workspace
        ? await createAccount(h.ctx, { email, password, workspaceId: workspace.id, role })
        : await createAccount(h.ctx, {
            email,
            password,
            workspaceName: `Acme ${randomUUID().slice(0, 6)}`,
            plan: 'max' as Plan,
          });
      const client = browser(h.baseUrl);
      assertRedirect(await logIn(client, email), '/documents');
      return { email, workspaceId: created.workspaceId, client };
    }

    test('an invitation link reaches no member and no owner: a member cannot open it to become an owner', async () => {
      const owner = await account(undefined, 'owner');
      const member = await account({ id: owner.workspaceId });
      const invitee = uniqueEmail('invitee');
      assertPage(await owner.client.get('/settings/members'), 200);
      assertRedirect(
        await owner.client.post('/settings/members/invitations', { email: invitee, role: 'owner' }),
        '/settings/members?done=invited',
      );
      assert.equal((await mailsTo(h.ctx, invitee)).length, 1, 'the invitation was queued');
      if (withSmtp) {
        await deliverDueMails(h.ctx, transport());
        assert.ok(smtp.received.some((m) => m.to.includes(invitee) && m.raw.includes('/invitations/')));
      }
      for (const reader of [member, owner]) {
        const page = await reader.client.get('/mails');
        assertPage(page, 200);
        assert.ok(!page.text.includes('/invitations/'), 'no invitation link on /mails');
        assert.ok(!page.text.includes(invitee), 'no mail to the invitee on /mails');
      }
    });

    test('a one-time code and an email-code signer’s link reach no member: only the recipient’s mailbox has them', async () => {
      const owner = await account(undefined, 'owner');
      const member = await account({ id: owner.workspaceId });
      const codeSigner = uniqueEmail('code-signer');
      const plainSigner = uniqueEmail('plain-signer');
      const { id } = await createDocument(h.ctx, {
        workspaceId: owner.workspaceId,
        title: 'Loan agreement',
        body: 'The parties agree.',
        recipients: [
          recipient(codeSigner, 'Cora Code', { signingMethod: 'email-code' }),
          recipient(plainSigner, 'Pat Plain'),
        ],
        pricing: null,
      });
      await sendDocument(h.ctx, owner.workspaceId, id);
      const links = await signingLinksOf(h.ctx, id);
      const codeLink = links.get(codeSigner)?.path as string;
      const plainLink = links.get(plainSigner)?.path as string;

      const detail = await member.client.get(`/documents/${id}`);
      assertPage(detail, 200);
      assert.ok(!detail.text.includes(codeLink), 'the email-code signer’s link is not on the document page');
      assert.ok(detail.text.includes(plainLink), 'a standard signer’s link stays (documented: copy link)');

      // Even a member who got the link elsewhere cannot read the code.
      const signer = browser(h.baseUrl);
      assertPage(await signer.get(codeLink), 200);
      assert.equal((await signer.post(`${codeLink}/code`, {})).status, 303);
      const code = await latestCodeFor(h.ctx, codeSigner);
      if (withSmtp) {
        await deliverDueMails(h.ctx, transport());
        assert.ok(smtp.received.some((m) => m.to.includes(codeSigner) && m.raw.includes(code)));
      }
      for (const reader of [member, owner]) {
        const page = await reader.client.get('/mails');
        assertPage(page, 200);
        assert.ok(!page.text.includes(code), 'the code is not on /mails');
        assert.ok(!page.text.includes('/sign/'), 'no signing link on /mails');
      }
    });

    test(
      withSmtp
        ? '/mails shows nothing, not even one’s own mail, once SMTP delivers'
        : '/mails shows a person the mails addressed to them, and only those',
      async () => {
        const owner = await account(undefined, 'owner');
        const { id } = await createDocument(h.ctx, {
          workspaceId: owner.workspaceId,
          title: 'Self-signed note',
          body: 'The parties agree.',
          recipients: [
            recipient(owner.email.toUpperCase(), 'Owner'),
            recipient(uniqueEmail('other'), 'Other'),
          ],
          pricing: null,
        });
        await sendDocument(h.ctx, owner.workspaceId, id);
        const page = await owner.client.get('/mails');
        assertPage(page, 200);
        const shown = (page.text.match(/<details class="card">/g) ?? []).length;
        if (withSmtp) {
          assert.equal(shown, 0);
          assert.ok(page.text.includes('none is shown here'));
        } else {
          assert.equal(shown, 1, 'the one mail addressed to the owner');
          assert.ok(page.text.includes('Please sign: Self-signed note'));
        }
      },
    );
  });
}

describeEachDatabase('secrets never reach the log', (kind) => {
  const lines: string[] = [];
  const log = createLogger('info', { write: (line: string) => void lines.push(line) });
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' }, log });

  test('log lines carry no signing-link, invitation, sign-up or password-reset token, however the path is spelled, nor a signing code', async () => {
    const owner = uniqueEmail('owner');
    const signerEmail = uniqueEmail('s');
    const { workspaceId } = await createAccount(h.ctx, {
      email: owner,
      password,
      workspaceName: 'Logs',
      plan: 'max',
    });
    const { id } = await createDocument(h.ctx, {
      workspaceId,
      title: 'Logged',
      body: 'The parties agree.',
      recipients: [recipient(signerEmail, 'S', { signingMethod: 'email-code' })],
      pricing: null,
    });
    await sendDocument(h.ctx, workspaceId, id);
    const [link] = [...(await signingLinksOf(h.ctx, id)).values()];
    const signPath = link?.path as string;
    const client = browser(h.baseUrl);
    assertRedirect(await logIn(client, owner), '/documents');
    assertPage(await client.get('/settings/members'), 200);
    const invitee = uniqueEmail('invitee');
    await client.post('/settings/members/invitations', { email: invitee, role: 'member' });
    const invitation = /(\/invitations\/[A-Za-z0-9_-]{43})/.exec(
      (await mailsTo(h.ctx, invitee))[0]?.text ?? '',
    )?.[1] as string;
    const visitor = browser(h.baseUrl);
    assertPage(await visitor.get('/signup'), 200);
    const newcomer = uniqueEmail('newcomer');
    await visitor.post('/signup', { email: newcomer, password, workspaceName: 'New' });
    const confirm = await confirmationLinkFor(h.ctx, newcomer);
    assertPage(await visitor.get('/password-reset'), 200);
    await visitor.post('/password-reset', { email: owner });
    await visitor.get('/password-reset/sent');
    const reset = /(\/password-reset\/[A-Za-z0-9_-]{43})/.exec(
      (await mailsTo(h.ctx, owner)).find((m) => m.text.includes('/password-reset/'))?.text ?? '',
    )?.[1] as string;

    const signer = browser(h.baseUrl);
    await signer.get(signPath);
    await signer.post(`${signPath}/code`, {});
    await signer.get(`${signPath}?done=signed`);
    await visitor.get(invitation);
    await visitor.get(confirm);
    await visitor.get(reset);
    await visitor.get(`/login?next=${encodeURIComponent(invitation)}`);
    await visitor.get(`/login?next=${encodeURIComponent(`https://sign.example.test${signPath}`)}`);
    await visitor.get(`/documents?token=hunter2&limit=3`);
    // Every other spelling of a capability path (most answer 404), sent as is, never
    // normalised by a client: the secret is in none of the log lines either.
    const token = signPath.split('/').at(-1) as string;
    const inviteToken = invitation.split('/').at(-1) as string;
    const confirmToken = confirm.split('/').at(-1) as string;
    const resetToken = reset.split('/').at(-1) as string;
    const spellings = [
      `//sign/${id}/${token}`,
      `/sign//${id}/${token}`,
      `//sign//${id}//${token}`,
      `//sign//${token}`,
      `/sign//${token}`,
      `/sign/${token}/`,
      `/sign/${token}`,
      `/sign/${id}/${token}/`,
      `/sign/${id}/${token}?x`,
      `/sign/${id}/${token}/pages/1?size=thumbnail`,
      `/%73ign/${id}/${token}`,
      `/%2573ign/${id}/${token}`,
      `/SIGN/${id}/${token}`,
      `/sign%2F${id}%2F${token}`,
      `/sign;x=1/${id}/${token}`,
      `/sign/${id};x/${token};y`,
      `/sign\\${id}\\${token}`,
      `/x/../sign/${id}/${token}`,
      `/./sign/./${id}/${token}`,
      `/sign/${id}/${token}%zz`,
      `/sign/%zz/${token}`,
      `/nothing/sign/${id}/${token}`,
      `//invitations//${inviteToken}`,
      `/invitations/${inviteToken}/`,
      `/%69nvitations/${inviteToken}`,
      `/signup//confirm//${confirmToken}`,
      `/signup/confirm/${confirmToken}/x`,
      `//password-reset//${resetToken}`,
      `/Password-Reset/${resetToken}`,
      `/login?next=%2F%2Fsign%2F%2F${id}%2F%2F${token}`,
      `/login?next=${encodeURIComponent(`https://h.example//sign//${id}//${token}`)}`,
      `/login?%74oken=${token}`,
      `/v1//sign/${id}/${token}`,
    ];
    for (const path of spellings) {
      const status = await rawGet(h.baseUrl, path);
      assert.ok(status >= 200, `${path} answered`);
    }
    // The signing code's mail, kept rather than sent (no SMTP_URL): its log line names the
    // mail, never its code, its subject or its text.
    const code = await latestCodeFor(h.ctx, signerEmail);
    await deliverDueMails(
      h.ctx,
      createMailTransport({ smtpUrl: null, from: 'Signet <no-reply@test>', log: h.ctx.log }),
    );
    assert.ok(
      lines.some((line) => line.includes('mail kept, not sent')),
      'the kept mails were logged',
    );

    const secrets = [token, inviteToken, confirmToken, resetToken, 'hunter2', code];
    const requestLines = lines.filter((line) => line.includes('"req"'));
    assert.ok(requestLines.length >= 10, `request lines were logged (${requestLines.length})`);
    for (const line of lines) {
      for (const secret of secrets) assert.ok(!line.includes(secret), `a secret in the log: ${line}`);
    }
    const urls = requestLines.map((line) => (JSON.parse(line) as { req: { url: string } }).req.url);
    assert.ok(urls.includes(`/sign/${id}/[redacted]`), urls.join('\n'));
    assert.ok(urls.includes(`/sign/${id}/[redacted]/code`), urls.join('\n'));
    assert.ok(urls.includes('/invitations/[redacted]'), urls.join('\n'));
    assert.ok(urls.includes('/signup/confirm/[redacted]'), urls.join('\n'));
    assert.ok(urls.includes('/password-reset/[redacted]'), urls.join('\n'));
    assert.ok(urls.includes('/password-reset/sent'), urls.join('\n'));
    assert.ok(urls.includes('/documents?token=[redacted]&limit=3'), urls.join('\n'));
  });
});

describeEachDatabase('sign-up and log-in limits', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });

  async function signUp(client: WebClient, email: string): Promise<WebResponse> {
    assertPage(await client.get('/signup'), 200);
    return followSignup(client, await client.post('/signup', { email, password, workspaceName: 'Flood' }));
  }

  test('sign-up: one address gets 3 sign-ups, then 429 with Retry-After; 25 tries queue 3 mails', async () => {
    const email = uniqueEmail('flooded');
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await signUp(browser(h.baseUrl), email)).status);
    assert.deepEqual(statuses.slice(0, 3), [200, 200, 200]);
    assert.ok(
      statuses.slice(3).every((s) => s === 429),
      statuses.join(),
    );
    assert.equal((await mailsTo(h.ctx, email)).length, accountLimitShapes.signupEmail.burst);
    const refused = await signUp(browser(h.baseUrl), email);
    assert.equal(refused.headers.get('retry-after'), '600');
    assert.ok(
      refused.text.includes(
        'Too many sign-ups for this address or from your network. Try again in 10 minutes.',
      ),
    );
    assert.ok(refused.text.includes(`value="${email}"`), 'the form keeps what was typed');
    h.clock.advance(10 * minute);
    assertPage(await signUp(browser(h.baseUrl), email), 200);
  });

  test('sign-up: one client address gets 10 sign-ups for different addresses, then 429', async () => {
    const client = browser(h.baseUrl);
    for (let i = 0; i < 10; i++) assertPage(await signUp(client, uniqueEmail('many')), 200);
    const refused = await signUp(client, uniqueEmail('many'));
    assertPage(refused, 429);
    assert.equal(refused.headers.get('retry-after'), '60');
    assertPage(await signUp(browser(h.baseUrl), uniqueEmail('many')), 200);
  });

  test('sign-up: a fullwidth, zero-width or differently cased address of an existing account gets the “you have an account” mail, not a second account', async () => {
    const email = `lookalike-${randomUUID().slice(0, 8)}@example.com`;
    await createAccount(h.ctx, { email, password, workspaceName: 'Original', plan: 'free' });
    const [local, domain] = email.split('@') as [string, string];
    const fullwidth = [...local]
      .map((c) => (/[a-z0-9]/.test(c) ? String.fromCodePoint((c.codePointAt(0) as number) + 0xfee0) : c))
      .join('');
    for (const typed of [
      `${fullwidth}@${domain}`,
      `${local.slice(0, 3)}\u200B${local.slice(3)}@${domain}`,
      email.toUpperCase(),
    ]) {
      assertPage(await signUp(browser(h.baseUrl), typed), 200);
    }
    assert.equal(
      await countRows(h.ctx, 'signup_requests', { email }),
      0,
      'no confirmation link for an address that has an account',
    );
    const mails = await mailsTo(h.ctx, email);
    assert.equal(mails.length, 2, 'the fullwidth and zero-width forms reached the one normalised address');
    assert.equal(await countRows(h.ctx, 'users', { email_key: email }), 1);
  });

  test('sign-up: whole-script Cyrillic, small-capital and combining-mark look-alikes get the “you have an account” mail, and log in only as the original', async () => {
    const domain = `d${randomUUID().slice(0, 8)}.example.com`;
    const pairs: Array<[string, string]> = [
      [`ace@${domain}`, `\u0430\u0441\u0435@${domain}`],
      [`demo@${domain}`, `\u1d05emo@${domain}`],
      [`ready@${domain}`, `read\u1ef5@${domain}`],
      [`memo@${domain}`, `memo\u0323@${domain}`],
    ];
    for (const [original, lookalike] of pairs) {
      await createAccount(h.ctx, {
        email: original,
        password,
        workspaceName: `Original ${original}`,
        plan: 'free',
      });
      assertPage(await signUp(browser(h.baseUrl), lookalike), 200);
      const [mail] = await mailsTo(h.ctx, lookalike.normalize('NFKC'));
      assert.equal(mail?.subject, 'You already have a Signet account', lookalike);
      assert.equal(await countRows(h.ctx, 'signup_requests', { email: lookalike.normalize('NFKC') }), 0);
      assert.equal(await countRows(h.ctx, 'users', { email: lookalike.normalize('NFKC') }), 0);
      // The look-alike logs in to the original account, with its password only.
      const visitor = browser(h.baseUrl);
      assertPage(await logIn(visitor, lookalike, 'not the password'), 401);
      assertRedirect(await logIn(visitor, lookalike), '/documents');
      const account = await visitor.get('/settings/account');
      assert.ok(account.text.includes(original), `logged in as ${original}`);
    }
    // rn@ and m@ are different mailboxes: both sign up.
    for (const typed of [`rn@${domain}`, `m@${domain}`]) {
      assertPage(await signUp(browser(h.baseUrl), typed), 200);
      assert.equal(await countRows(h.ctx, 'signup_requests', { email: typed }), 1, typed);
    }
  });

  test('accounts made before look-alikes were folded: a lone one gets its new key, two that collide both keep working', async () => {
    const domain = `g${randomUUID().slice(0, 8)}.example.com`;
    const made = async (address: string, pass: string) => {
      const stand = `stand-in-${randomUUID().slice(0, 8)}@${domain}`;
      const { userId } = await createAccount(h.ctx, {
        email: stand,
        password: pass,
        workspaceName: 'Old',
        plan: 'free',
      });
      // As stored before: the address and its lower-cased form.
      await h.ctx.db
        .updateTable('users')
        .set({ email: address, email_key: address.toLowerCase() })
        .where('id', '=', userId)
        .execute();
      return userId;
    };
    const original = `ace@${domain}`;
    const twin = `\u0430\u0441\u0435@${domain}`;
    const lone = `\u1d05emo@${domain}`;
    await createAccount(h.ctx, { email: original, password, workspaceName: 'Original', plan: 'free' });
    const twinId = await made(twin, `${password} twin`);
    const loneId = await made(lone, `${password} lone`);
    await refreshEmailKeys(h.ctx);
    const keys = await h.ctx.db
      .selectFrom('users')
      .select(['id', 'email_key'])
      .where('id', 'in', [twinId, loneId])
      .execute();
    assert.equal(keys.find((k) => k.id === loneId)?.email_key, `demo@${domain}`);
    assert.equal(keys.find((k) => k.id === twinId)?.email_key, twin, 'the twin keeps its own key');
    assert.equal(await refreshEmailKeys(h.ctx), 0, 'idempotent');
    assertRedirect(await logIn(browser(h.baseUrl), original), '/documents');
    assertRedirect(await logIn(browser(h.baseUrl), twin, `${password} twin`), '/documents');
    assertRedirect(await logIn(browser(h.baseUrl), `demo@${domain}`, `${password} lone`), '/documents');
    // A new look-alike of them is refused (the account-exists mail, no sign-up).
    const third = `\u1d00\u1d04\u1d07@${domain}`;
    assertPage(await signUp(browser(h.baseUrl), third), 200);
    assert.equal(await countRows(h.ctx, 'signup_requests', { email: third }), 0);
  });

  test('sign-up: a trailing dot and a Cyrillic letter among Latin ones are refused with a sentence, and nothing is mailed', async () => {
    const base = `spoof-${randomUUID().slice(0, 8)}@example.com`;
    const cases: Array<[string, string]> = [
      [`${base}.`, 'Remove the dot at the end of the address.'],
      [`\u0430${base.slice(1)}`, 'This address mixes letters of different alphabets'],
    ];
    for (const [typed, sentence] of cases) {
      const res = await signUp(browser(h.baseUrl), typed);
      assertPage(res, 400);
      assert.ok(res.text.includes(sentence), res.text.slice(0, 2000));
    }
    const mails = await h.ctx.db
      .selectFrom('mails')
      .select('id')
      .where('to_address', 'like', '%spoof-%')
      .execute();
    assert.equal(mails.length, 0);
  });

  test('log-in: one address guessing one account is refused after 10 tries, even with the right password; the owner logs in from elsewhere at once', async () => {
    const email = uniqueEmail('target');
    await createAccount(h.ctx, { email, password, workspaceName: 'Target', plan: 'free' });
    const attacker = browser(h.baseUrl);
    for (let i = 0; i < accountLimitShapes.loginPair.burst; i++) {
      assertPage(await logIn(attacker, email, `wrong ${i}`), 401);
    }
    const refused = await logIn(attacker, email);
    assertPage(refused, 429);
    assert.equal(refused.headers.get('retry-after'), '60');
    assertRedirect(await logIn(browser(h.baseUrl), email), '/documents');
  });

  test('log-in: strangers who spend the account’s ceiling lock out new addresses, never an address the owner used before', async () => {
    const email = uniqueEmail('owner');
    await createAccount(h.ctx, { email, password, workspaceName: 'Ceiling', plan: 'free' });
    const homeAddress = nextAddress();
    assertRedirect(await logIn(browser(h.baseUrl, homeAddress), email), '/documents');
    const { burst } = accountLimitShapes.loginAccount;
    for (let spent = 1; spent < burst; ) {
      const stranger = browser(h.baseUrl);
      for (let i = 0; i < 5 && spent < burst; i++, spent++) {
        assertPage(await logIn(stranger, email, `guess ${spent}`), 401);
      }
    }
    const newcomer = await logIn(browser(h.baseUrl), email);
    assertPage(newcomer, 429);
    assert.ok(newcomer.text.includes('Too many attempts to log in.'));
    assertRedirect(await logIn(browser(h.baseUrl, homeAddress), email), '/documents');
    // The known address still has only its own pair's tries for wrong passwords.
    for (let i = 0; i < accountLimitShapes.loginPair.burst - 2; i++) {
      assertPage(await logIn(browser(h.baseUrl, homeAddress), email, `typo ${i}`), 401);
    }
    assertPage(await logIn(browser(h.baseUrl, homeAddress), email, 'one typo too many'), 429);
  });

  test('log-in: a stranger behind the owner’s own address locks that address out, never the owner’s browser (its device cookie); another account’s, a forged or a stale cookie exempts nothing; the cookie has its own bound', async () => {
    const email = uniqueEmail('natted');
    const { userId } = await createAccount(h.ctx, { email, password, workspaceName: 'NAT', plan: 'free' });
    const home = nextAddress();
    const owner = browser(h.baseUrl, home);
    assertRedirect(await logIn(owner, email), '/documents');
    assert.ok(owner.cookies.get(deviceCookieName), 'a device cookie was set at the log-in');
    const deviceCookie = owner.setCookies.find((c) => c.startsWith(`${deviceCookieName}=`)) ?? '';
    assert.match(deviceCookie, /HttpOnly/i);
    assert.match(deviceCookie, /SameSite=Lax/i);
    assert.match(deviceCookie, /Max-Age=31536000/);
    const loggedOut = (client: WebClient) => {
      client.cookies.delete('signet_session');
      return client;
    };

    // A stranger on the same address: 12 wrong passwords.
    const stranger = browser(h.baseUrl, home);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await logIn(stranger, email, `guess ${i}`)).status);
    // (The owner's own log-in from here took one of the pair's 10.)
    assert.deepEqual(statuses, [...Array(9).fill(401), 429, 429, 429]);
    // That address is locked out for the account, for any browser without the cookie...
    assertPage(await logIn(browser(h.baseUrl, home), email), 429);
    // ...but the owner's browser still logs in with the right password.
    assertRedirect(await logIn(loggedOut(owner), email), '/documents');

    // Another account's device cookie, or a forged one, exempts nothing.
    const otherEmail = uniqueEmail('other');
    await createAccount(h.ctx, { email: otherEmail, password, workspaceName: 'Other', plan: 'free' });
    const other = browser(h.baseUrl);
    assertRedirect(await logIn(other, otherEmail), '/documents');
    const ownersCookie = owner.cookies.get(deviceCookieName) as string;
    const last = ownersCookie.at(-1) === 'A' ? 'B' : 'A';
    for (const cookie of [
      other.cookies.get(deviceCookieName) as string,
      `${ownersCookie.slice(0, -1)}${last}`,
      `forged.${Math.floor(Date.now() / 1000)}.${'A'.repeat(43)}`,
    ]) {
      const holder = browser(h.baseUrl, home);
      holder.cookies.set(deviceCookieName, cookie);
      assertPage(await logIn(holder, email), 429);
    }

    // The cookie has its own bound: 10 wrong passwords, then refused, the right one too.
    const typist = loggedOut(owner);
    for (let i = 0; i < accountLimitShapes.loginDevice.burst; i++)
      assertPage(await logIn(typist, email, `typo ${i}`), 401);
    assertPage(await logIn(typist, email), 429);

    // A password set anew makes every device cookie of the account stale.
    const fresh = browser(h.baseUrl);
    assertRedirect(await logIn(fresh, email), '/documents');
    await setPassword(h.ctx, userId, `${password} again`);
    const stale = browser(h.baseUrl, home);
    stale.cookies.set(deviceCookieName, fresh.cookies.get(deviceCookieName) as string);
    assertPage(await logIn(stale, email, `${password} again`), 429);
  });

  test('log-in: one address trying 30 accounts is refused at the 31st; the accounts are not limited elsewhere', async () => {
    const email = uniqueEmail('spray');
    await createAccount(h.ctx, { email, password, workspaceName: 'Spray', plan: 'free' });
    const sprayer = browser(h.baseUrl);
    for (let i = 0; i < accountLimitShapes.loginAddress.burst; i++) {
      assertPage(await logIn(sprayer, uniqueEmail('guess')), 401);
    }
    assertPage(await logIn(sprayer, email), 429);
    assertRedirect(await logIn(browser(h.baseUrl), email), '/documents');
  });
});

for (const trustProxy of [true, false]) {
  describeEachDatabase(
    `HTTPS behind a proxy (SIGNET_TRUST_PROXY ${trustProxy ? 'set' : 'unset'})`,
    (kind) => {
      const h = useHarness(kind, { env: trustProxy ? { SIGNET_TRUST_PROXY: '1' } : {} });

      test(
        trustProxy
          ? 'a request the proxy marks https gets HSTS and a Secure session cookie'
          : 'X-Forwarded-Proto is not believed: no HSTS, no Secure cookie, and every client shares the proxy’s log-in bucket',
        async () => {
          const email = uniqueEmail('proxied');
          await createAccount(h.ctx, { email, password, workspaceName: 'Proxied', plan: 'free' });
          const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-for': nextAddress() };
          const login = await fetch(`${h.baseUrl}/login`, { headers });
          const csrfCookie = login.headers
            .getSetCookie()
            .map((c) => c.split(';')[0])
            .join('; ');
          const csrf = /name="_csrf" value="([^"]*)"/.exec(await login.text())?.[1] as string;
          const res = await fetch(`${h.baseUrl}/login`, {
            method: 'POST',
            redirect: 'manual',
            headers: { ...headers, cookie: csrfCookie, 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ _csrf: csrf, email, password }),
          });
          assert.equal(res.status, 303);
          const session = res.headers.getSetCookie().find((c) => c.startsWith('signet_session='));
          assert.ok(session);
          assert.equal(/;\s*secure/i.test(session), trustProxy, session);
          assert.equal(res.headers.get('strict-transport-security'), trustProxy ? 'max-age=31536000' : null);
          const api = await contractFetch(`${h.baseUrl}/v1/documents`, { headers });
          assert.equal(api.headers.get('strict-transport-security'), trustProxy ? 'max-age=31536000' : null);
          if (!trustProxy) {
            // Everyone is 127.0.0.1 here: the address bucket is the whole site's.
            for (let i = 0; i < accountLimitShapes.loginAddress.burst - 1; i++) {
              assertPage(await logIn(browser(h.baseUrl), uniqueEmail('anyone')), 401);
            }
            assertPage(await logIn(browser(h.baseUrl), email), 429);
          }
        },
      );
    },
  );
}
