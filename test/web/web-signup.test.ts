// Signing up on the web (src/web/auth.pages.ts) over real HTTP, as a browser does: each
// invalid field re-rendered beside its message and no mail queued; the confirmation mail and
// its link (once, for 24 hours; a second sign-up replaces the first); an address that already
// has an account answered the same as a new one; log-in before confirming. Shared setup:
// web-accounts-setup.ts (each browser its own X-Forwarded-For address behind a "proxy").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml } from '../../src/ui/html.ts';
import { describeEachDatabase } from '../support/harness.ts';
import {
  assertPage,
  assertRedirect,
  confirmationLinkIn,
  mailsTo,
  testPassword as password,
  uniqueEmail,
  type WebResponse,
  withoutCsrf,
} from '../support/web-client.ts';
import {
  assertFieldError,
  assertNoFieldError,
  assertSessionCookie,
  hour,
  inputTag,
  minute,
  publicUrl,
  useWebAccounts,
} from './web-accounts-setup.ts';

describeEachDatabase('web application pages over HTTP: sign-up', (kind) => {
  const { h, browser, newOwner, logIn, signUp, mailCount, usersWithEmail, signupRequestsFor, pendingSignup } =
    useWebAccounts(kind);

  test('sign-up: each invalid field re-renders the form with 400, its message next to it, and queues no mail', async () => {
    const cases = [
      {
        field: 'email',
        form: { email: 'not-an-email', password, workspaceName: 'Acme' },
        message: 'Enter an email address like name@example.com.',
      },
      {
        field: 'password',
        form: { email: uniqueEmail('short'), password: 'nine-char', workspaceName: 'Acme' },
        message: 'Use at least 10 characters.',
      },
      {
        field: 'workspaceName',
        form: { email: uniqueEmail('noname'), password, workspaceName: '   ' },
        message: 'Give your workspace a name.',
      },
    ];
    const mailsBefore = await mailCount();
    for (const { field, form, message } of cases) {
      const client = browser();
      const res = await signUp(client, form);
      assertPage(res, 400);
      assert.ok(res.text.includes('<title>Sign up · Signet</title>'), field);
      assertFieldError(res.text, field, message);
      for (const other of ['email', 'password', 'workspaceName'].filter((f) => f !== field)) {
        assertNoFieldError(res.text, other);
      }
      assert.ok(
        inputTag(res.text, 'email').includes(`value="${escapeHtml(form.email)}"`),
        'the email is kept',
      );
      assert.ok(!res.text.includes(form.password), 'the password is never echoed');
      assert.equal(await signupRequestsFor(form.email), 0, field);
      assert.deepEqual(await mailsTo(h.ctx, form.email), [], field);
    }
    assert.equal(await mailCount(), mailsBefore, 'nothing queued');
  });

  test('sign-up: a valid form redirects to "Check your inbox" and queues one mail with a confirmation link; a reload sends nothing again', async () => {
    const client = browser();
    const email = uniqueEmail('new');
    assertPage(await client.get('/signup'), 200);
    assertRedirect(
      await client.post('/signup', { email, password, workspaceName: 'Acme Ltd' }),
      '/signup/sent',
    );
    for (let reload = 0; reload < 2; reload++) {
      const res = await client.get('/signup/sent');
      assertPage(res, 200);
      assert.ok(res.text.includes('<h1>Check your inbox</h1>'));
      assert.ok(res.text.includes(`We sent a mail to <strong>${escapeHtml(email)}</strong>`));
    }
    // Another browser on that address learns nothing of anyone's sign-up.
    const stranger = await browser().get('/signup/sent');
    assert.ok(stranger.text.includes('We sent a mail to the address you gave.'));
    const mails = await mailsTo(h.ctx, email);
    assert.equal(mails.length, 1);
    const [mail] = mails;
    assert.ok(mail);
    assert.equal(mail.subject, 'Confirm your Signet account');
    assert.ok(mail.text.includes('“Acme Ltd”'), mail.text);
    const link = confirmationLinkIn(mail);
    assert.ok(link, mail.text);
    assert.match(link, /^\/signup\/confirm\/[A-Za-z0-9_-]{43}$/);
    assert.ok(mail.text.includes(`${publicUrl}${link}`), 'an absolute link on the public address');
    assert.equal(await usersWithEmail(email), 0, 'no account before the link is used');
  });

  test('sign-up: the link shows a confirmation page; its POST creates the account, sets an HttpOnly SameSite=Lax session cookie and redirects 303', async () => {
    const { email, link } = await pendingSignup('Acme Ltd');
    const client = browser(); // the mail may well be opened in another browser
    const page = await client.get(link);
    assertPage(page, 200);
    assert.ok(
      page.text.includes(
        `Create the workspace <strong>Acme Ltd</strong> for <strong>${escapeHtml(email)}</strong>?`,
      ),
    );
    assert.ok(page.text.includes(`<form method="post" action="${link}">`));
    assert.equal(await usersWithEmail(email), 0, 'GET creates nothing (links are prefetched)');

    const res = await client.post(link);
    assertRedirect(res, '/documents');
    assertSessionCookie(res);
    assert.ok(client.cookies.has('signet_session'));
    assert.equal(await usersWithEmail(email), 1);

    // The new owner lands on Documents, with the first steps (not the API keys page).
    const documents = await client.get('/documents');
    assertPage(documents, 200);
    assert.ok(documents.text.includes('Your first document in three steps'), 'the first-steps panel');
    const integrations = await client.get('/settings/integrations');
    assertPage(integrations, 200);
    assert.ok(integrations.text.includes('Acme Ltd'));
    const account = await client.get('/settings/account');
    assertPage(account, 200);
    assert.ok(account.text.includes(`<strong>${escapeHtml(email)}</strong>, owner of Acme Ltd`));
    assert.ok(integrations.text.includes('This workspace is on the Free plan'), 'a new workspace is on Free');
  });

  test('sign-up: a confirmation link works once; used again it answers the 404 page', async () => {
    const { client, email, link } = await pendingSignup();
    // A second browser has the confirmation page open too, before the link is used.
    const stranger = browser();
    assertPage(await stranger.get(link), 200);
    assertPage(await client.get(link), 200);
    assertRedirect(await client.post(link), '/documents');

    const late = await stranger.post(link);
    assertPage(late, 404);
    assert.ok(late.text.includes('This link cannot be used'));
    assert.ok(!stranger.cookies.has('signet_session'));
    assertPage(await stranger.get(link), 404);

    const again = await client.get(link);
    assertPage(again, 404);
    assert.ok(again.text.includes('This link cannot be used'));
    const repost = await client.post(link);
    assertPage(repost, 404);
    assert.ok(repost.text.includes('This link cannot be used'));
    assert.equal(await usersWithEmail(email), 1, 'one account');
  });

  test('sign-up: a confirmation link is refused once its 24 hours are over, and creates nothing', async () => {
    const { client, email, link } = await pendingSignup();
    h.clock.advance(24 * hour - minute);
    assertPage(await client.get(link), 200);
    h.clock.advance(minute);
    const res = await client.post(link); // the page opened a minute ago
    assertPage(res, 404);
    assert.ok(res.text.includes('This link cannot be used'));
    assert.ok(!client.cookies.has('signet_session'));
    const page = await browser().get(link);
    assertPage(page, 404);
    assert.ok(page.text.includes('This link cannot be used'));
    assert.equal(await usersWithEmail(email), 0);
  });

  test('sign-up: an address that already has an account gets the identical "Check your inbox" page and a mail to log in instead, without a link', async () => {
    const existing = await newOwner();
    const fresh = uniqueEmail('fresh');
    const forNew = await signUp(browser(), { email: fresh, password, workspaceName: 'Acme' });
    const forExisting = await signUp(browser(), { email: existing.email, password, workspaceName: 'Acme' });
    const upperCase = existing.email.toUpperCase();
    const forUpperCase = await signUp(browser(), { email: upperCase, password, workspaceName: 'Acme' });

    const normalized = (res: WebResponse, email: string) => [
      res.status,
      withoutCsrf(res.text).replaceAll(escapeHtml(email), 'EMAIL'),
    ];
    assert.equal(forNew.status, 200);
    assert.deepEqual(normalized(forExisting, existing.email), normalized(forNew, fresh));
    assert.deepEqual(normalized(forUpperCase, upperCase), normalized(forNew, fresh));

    for (const address of [existing.email, upperCase]) {
      const mails = await mailsTo(h.ctx, address);
      assert.equal(mails.length, 1, address);
      const [mail] = mails;
      assert.ok(mail);
      assert.equal(mail.subject, 'You already have a Signet account');
      assert.ok(mail.text.includes('Log in here instead'), mail.text);
      assert.ok(mail.text.includes(`${publicUrl}/login`), mail.text);
      assert.equal(confirmationLinkIn(mail), null);
      assert.ok(!mail.text.includes('/signup/confirm'), mail.text);
      assert.equal(await signupRequestsFor(address), 0);
    }
    assert.equal(await usersWithEmail(existing.email), 1);
  });

  test('sign-up: a second sign-up for one address replaces the first: only the newest link works, and no page offers what cannot be done', async () => {
    const email = uniqueEmail('twice');
    const secondPassword = 'the second passphrase';
    assertPage(await signUp(browser(), { email, password, workspaceName: 'First' }), 200);
    h.clock.advance(1000);
    assertPage(await signUp(browser(), { email, password: secondPassword, workspaceName: 'Second' }), 200);
    const links = (await mailsTo(h.ctx, email)).map(confirmationLinkIn);
    assert.equal(links.length, 2);
    const [second, first] = links; // newest first
    assert.ok(first && second && first !== second);

    // The first link's page says it was replaced, and offers nothing.
    const early = browser();
    const replaced = await early.get(first);
    assertPage(replaced, 404);
    assert.match(replaced.text, /a newer sign-up for the same address replaced it/);

    const client = browser();
    assertPage(await client.get(second), 200);
    assertRedirect(await client.post(second), '/documents');
    assert.equal(await usersWithEmail(email), 1);
    assertRedirect(await logIn(browser(), email, secondPassword), '/documents');
    assertPage(await logIn(browser(), email, password), 401);
    // Once the address has an account, its old links' pages say so too.
    assertPage(await browser().get(second), 404);
  });

  test('log-in before confirming the sign-up says so, to the one who knows the password only', async () => {
    const email = uniqueEmail('eager');
    assertPage(await signUp(browser(), { email, password, workspaceName: 'Eager' }), 200);
    const early = await logIn(browser(), email, password);
    assertPage(early, 401);
    assert.match(early.text, /You have not confirmed your sign-up yet\. Open the link we mailed to/);
    const guess = await logIn(browser(), email, 'a wrong guess of a password');
    assertPage(guess, 401);
    assert.match(guess.text, /The email or password is not right\./);
    assert.ok(!guess.text.includes('confirmed'), 'a wrong password learns nothing of the sign-up');
  });
});
