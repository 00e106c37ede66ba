// Settings › Members (src/web/members.pages.ts) over real HTTP, as browsers use it:
// invitations by mail and their single-use links, accepting with a new or an existing
// account, roles and removal with the workspace always keeping an owner, what a member
// (not an owner) is refused, what an owner of another workspace can reach, and CSRF.
//
// The app runs behind a "proxy" here (SIGNET_TRUST_PROXY=1) and each browser() sends its
// own X-Forwarded-For address, so the per-address sign-in limit counts one browser only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { insertMembership } from '../../src/accounts/accounts.repository.ts';
import { emailKey } from '../../src/accounts/accounts.service.ts';
import { invitationValidityMs } from '../../src/accounts/members.service.ts';
import type { MemberRole } from '../../src/db/schema.ts';
import { escapeHtml } from '../../src/ui/html.ts';
import { countRows, describeEachDatabase, useHarness } from '../support/harness.ts';
import {
  assertForgeriesRefused,
  assertPage,
  assertRedirect,
  assertSameNotFound,
  type ForeignRoute,
  mailsTo,
  testPassword as password,
  probeIds,
  uniqueEmail,
  type WebClient,
  type WebResponse,
  webPeople,
} from '../support/web-client.ts';

const minute = 60_000;
const ownersOnly = 'Only owners can do this';
const notFoundText = 'There is nothing here, or it belongs to another workspace.';
const invitationGone = 'This invitation cannot be used';
const lastOwner = 'A workspace needs at least one owner: make another member an owner first.';
const badEmail = 'Enter an email address like name@example.com.';

function assertIncludes(res: WebResponse, text: string): void {
  assert.ok(res.text.includes(escapeHtml(text)), `expected «${text}» in ${res.text.slice(0, 1500)}`);
}

function setsSession(res: WebResponse): boolean {
  return res.headers.getSetCookie().some((c) => /^signet_session=[^;]+/.test(c));
}

/** The path of the invitation link in a mail's text: /invitations/<token>. */
function invitationPathIn(text: string): string | null {
  return /https:\/\/sign\.example\.test(\/invitations\/[A-Za-z0-9_-]{43})\s/.exec(text)?.[1] ?? null;
}

describeEachDatabase('member pages over HTTP', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });

  const { browser, newOwner, newMember, signedIn, ...people } = webPeople(h, '10.1');
  const logIn = (client: WebClient, email: string, next?: string) =>
    people.logIn(client, email, password, next ? { next } : {});

  /** Who the browser is signed in as, from the account page: "<email>, <role> of <workspace>". */
  async function whoAmI(client: WebClient): Promise<string | null> {
    const res = await client.get('/settings/account');
    if (res.status !== 200) return null;
    const match = /Signed in as <strong>([^<]+)<\/strong>, (owner|member) of ([^<]+)\.<\/p>/.exec(res.text);
    return match ? `${match[1]}, ${match[2]} of ${match[3]}` : null;
  }

  async function rolesOf(workspaceId: string): Promise<Record<string, MemberRole>> {
    const rows = await h.ctx.db
      .selectFrom('memberships')
      .select(['user_id', 'role'])
      .where('workspace_id', '=', workspaceId)
      .orderBy('user_id')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.user_id, r.role]));
  }

  /** Everything about a workspace a member page could change. */
  async function stateOf(workspaceId: string) {
    const [members, invitations, workspace, mails, sessions] = await Promise.all([
      rolesOf(workspaceId),
      h.ctx.db
        .selectFrom('invitations')
        .select(['id', 'email', 'role', 'token_hash', 'expires_at', 'accepted_at'])
        .where('workspace_id', '=', workspaceId)
        .orderBy('id')
        .execute(),
      h.ctx.db
        .selectFrom('workspaces')
        .select('plan')
        .where('id', '=', workspaceId)
        .executeTakeFirstOrThrow(),
      h.ctx.db
        .selectFrom('mails')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .orderBy('id')
        .execute(),
      h.ctx.db
        .selectFrom('sessions')
        .select(['id', 'user_id'])
        .where('workspace_id', '=', workspaceId)
        .orderBy('id')
        .execute(),
    ]);
    return { members, invitations, plan: workspace.plan, mails: mails.map((m) => m.id), sessions };
  }

  const usersWithEmail = (email: string) => countRows(h.ctx, 'users', { email_key: emailKey(email) });

  async function openInvitations(workspaceId: string) {
    return h.ctx.db
      .selectFrom('invitations')
      .select(['id', 'email', 'role'])
      .where('workspace_id', '=', workspaceId)
      .where('accepted_at', 'is', null)
      .orderBy('created_at')
      .execute();
  }

  /** The owner invites `email` on the members page; returns the invitation's id and mailed link. */
  async function invite(
    owner: WebClient,
    email: string,
    role: MemberRole = 'member',
  ): Promise<{ id: string; path: string }> {
    assertPage(await owner.get('/settings/members'), 200);
    const before = (await mailsTo(h.ctx, email)).length;
    assertRedirect(
      await owner.post('/settings/members/invitations', { email, role }),
      '/settings/members?done=invited',
    );
    const mails = await mailsTo(h.ctx, email);
    assert.equal(mails.length, before + 1, 'one mail per invitation');
    const path = invitationPathIn(mails[0]?.text ?? '');
    assert.ok(path, `an invitation link in ${mails[0]?.text}`);
    const rows = await h.ctx.db
      .selectFrom('invitations')
      .select(['id', 'email'])
      .where('accepted_at', 'is', null)
      .execute();
    const row = rows.find((r) => r.email.toLowerCase() === email.toLowerCase());
    assert.ok(row, `an open invitation of ${email}`);
    return { id: row.id, path };
  }

  /** A valid CSRF token of another browser's session. */
  async function tokenOfAnotherSession(): Promise<string> {
    const other = await signedIn(await newOwner());
    assertPage(await other.get('/settings/account'), 200);
    assert.ok(other.csrfToken);
    return other.csrfToken;
  }

  // ---------------------------------------------------------------- invitations

  test('invitations: an owner invites an address as member and as owner; each gets one mail with a single-use /invitations/<token> link, and the members page lists the open invitations', async () => {
    const owner = await newOwner();
    const client = await signedIn(owner);
    const asMember = uniqueEmail('invited');
    const asOwner = uniqueEmail('invited');
    const first = await invite(client, asMember, 'member');
    const second = await invite(client, asOwner, 'owner');
    assert.notEqual(first.path, second.path);

    for (const [email, path] of [
      [asMember, first.path],
      [asOwner, second.path],
    ] as const) {
      const [mail, ...others] = await mailsTo(h.ctx, email);
      assert.ok(mail);
      assert.equal(others.length, 0, 'exactly one mail');
      assert.equal(mail.workspaceId, owner.workspaceId);
      assert.equal(mail.subject, `You are invited to ${owner.workspaceName} on Signet`);
      assert.ok(mail.text.includes(`${owner.email} invited you`), mail.text);
      assert.ok(mail.text.includes(`https://sign.example.test${path}\n`), mail.text);
      assert.ok(mail.text.includes('The link works once, for 7 days.'), mail.text);
    }

    const page = await client.get('/settings/members?done=invited');
    assertPage(page, 200);
    assertIncludes(page, 'The invitation is on its way. The link works once, for 7 days.');
    assertIncludes(page, `${asMember} (member), invited`);
    assertIncludes(page, `${asOwner} (owner), invited`);
    assert.ok(page.text.includes(`action="/settings/members/invitations/${first.id}/withdraw"`));
    assert.ok(page.text.includes(`action="/settings/members/invitations/${second.id}/withdraw"`));

    assert.deepEqual(
      (await openInvitations(owner.workspaceId)).map((i) => [i.email, i.role]),
      [
        [asMember, 'member'],
        [asOwner, 'owner'],
      ],
    );
    const link = await browser().get(first.path);
    assertPage(link, 200);
    assertIncludes(link, `Join ${owner.workspaceName}`);
    assertIncludes(link, `You are invited to ${owner.workspaceName} on Signet as`);
  });

  test('invitations: an invalid email is refused with 400 and a sentence next to the field, and nothing is mailed', async () => {
    const owner = await newOwner();
    const client = await signedIn(owner);
    const before = await stateOf(owner.workspaceId);
    for (const email of ['', 'not-an-email', 'two words@example.com', 'ann@example']) {
      assertPage(await client.get('/settings/members'), 200);
      const res = await client.post('/settings/members/invitations', { email, role: 'member' });
      assertPage(res, 400);
      assert.ok(
        res.text.includes(`<span class="field-error" id="invite-email-error">${escapeHtml(badEmail)}</span>`),
        `${email}: ${res.text.slice(0, 400)}`,
      );
      assert.ok(res.text.includes('aria-describedby="invite-email-error"'), email);
      assert.ok(res.text.includes(`value="${escapeHtml(email)}"`), `${email}: what was typed is kept`);
    }
    assert.deepEqual(await stateOf(owner.workspaceId), before, 'no invitation, no mail');
  });

  test('invitations: inviting an address that is already a member (in any case) is refused with 400 and a sentence', async () => {
    const owner = await newOwner();
    const member = await newMember(owner);
    const client = await signedIn(owner);
    const before = await stateOf(owner.workspaceId);
    for (const email of [member.email, member.email.toUpperCase(), owner.email]) {
      assertPage(await client.get('/settings/members'), 200);
      const res = await client.post('/settings/members/invitations', { email, role: 'owner' });
      assertPage(res, 400);
      assertIncludes(res, `${email} is already a member of ${owner.workspaceName}.`);
    }
    assert.deepEqual(await stateOf(owner.workspaceId), before, 'no invitation, no mail, roles kept');
  });

  test('invitations: a second invitation of the same address replaces the first, whose link then no longer works', async () => {
    const owner = await newOwner();
    const client = await signedIn(owner);
    const email = uniqueEmail('twice');
    const first = await invite(client, email, 'owner');
    // The invited person opens the first link and leaves the form open.
    const visitor = browser();
    assertPage(await visitor.get(first.path), 200);
    h.clock.advance(minute);
    const second = await invite(client, email.toUpperCase(), 'member');
    assert.notEqual(first.path, second.path);
    assert.notEqual(first.id, second.id);

    const open = await openInvitations(owner.workspaceId);
    assert.deepEqual(
      open.map((i) => [i.id, i.role]),
      [[second.id, 'member']],
      'only the newer invitation is open',
    );
    const page = await client.get('/settings/members');
    assert.ok(!page.text.includes(first.id), 'the first is not listed');
    assert.ok(page.text.includes(second.id));

    const oldPost = await visitor.post(first.path, { password });
    assertPage(oldPost, 404);
    assertIncludes(oldPost, invitationGone);
    assert.equal(setsSession(oldPost), false);
    assert.equal(await usersWithEmail(email), 0, 'the first link made no account');
    const old = await visitor.get(first.path);
    assertPage(old, 404);
    assertIncludes(old, invitationGone);

    assertPage(await visitor.get(second.path), 200);
    assertRedirect(await visitor.post(second.path, { password }), '/documents');
    assert.equal(await whoAmI(visitor), `${email.toUpperCase()}, member of ${owner.workspaceName}`);
  });

  // ---------------------------------------------------------------- accepting

  test('accepting: a visitor without an account chooses a password (too short: 400 with the sentence) and lands signed in with the invited role; the link then answers 404', async () => {
    const owner = await newOwner();
    const client = await signedIn(owner);
    for (const role of ['member', 'owner'] as const) {
      const email = uniqueEmail(`new-${role}`);
      const { path } = await invite(client, email, role);
      const visitor = browser();
      const page = await visitor.get(path);
      assertPage(page, 200);
      assert.ok(page.text.includes(`as <strong>${role}</strong>`), page.text);
      assert.ok(page.text.includes('name="password"'), 'a password field');

      const short = await visitor.post(path, { password: 'short' });
      assertPage(short, 400);
      assert.ok(
        short.text.includes(
          '<span class="field-error" id="password-error">Use at least 10 characters.</span>',
        ),
        short.text.slice(0, 1500),
      );
      assert.equal(setsSession(short), false);
      assert.equal(await usersWithEmail(email), 0, 'no account yet');

      const accepted = await visitor.post(path, { password });
      assertRedirect(accepted, '/documents');
      assert.ok(setsSession(accepted));
      assertPage(await visitor.get('/documents'), 200);
      assert.equal(await whoAmI(visitor), `${email}, ${role} of ${owner.workspaceName}`);
      const user = await h.ctx.db
        .selectFrom('users')
        .select('id')
        .where('email_key', '=', emailKey(email))
        .executeTakeFirstOrThrow();
      assert.equal((await rolesOf(owner.workspaceId))[user.id], role);

      const again = await browser().get(path);
      assertPage(again, 404);
      assertIncludes(again, invitationGone);
      const repost = await visitor.post(path, { password: 'another long password' });
      assertPage(repost, 404);
      assert.equal(setsSession(repost), false);

      // The new account logs in with the password it chose.
      assert.equal(
        await whoAmI(await signedIn({ ...owner, email })),
        `${email}, ${role} of ${owner.workspaceName}`,
      );
    }
    assert.deepEqual(await openInvitations(owner.workspaceId), [], 'both were used');
  });

  test('accepting: a link is refused once its 7 days are over and joins nobody', async () => {
    const owner = await newOwner();
    const client = await signedIn(owner);
    const email = uniqueEmail('late');
    const { path } = await invite(client, email);
    h.clock.advance(invitationValidityMs - minute);
    const visitor = browser();
    assertPage(await visitor.get(path), 200); // still valid: the form is shown
    h.clock.advance(minute);
    const posted = await visitor.post(path, { password });
    assertPage(posted, 404);
    assertIncludes(posted, invitationGone);
    assert.equal(setsSession(posted), false);
    const expired = await browser().get(path);
    assertPage(expired, 404);
    assertIncludes(expired, invitationGone);
    assert.equal(await usersWithEmail(email), 0);
    assert.equal(Object.keys(await rolesOf(owner.workspaceId)).length, 1);
  });

  test('accepting: a withdrawn invitation’s link is refused', async () => {
    const owner = await newOwner();
    const client = await signedIn(owner);
    const email = uniqueEmail('withdrawn');
    const { id, path } = await invite(client, email);
    const visitor = browser();
    assertPage(await visitor.get(path), 200); // the form is open in the invited person's browser
    assertPage(await client.get('/settings/members'), 200);
    assertRedirect(
      await client.post(`/settings/members/invitations/${id}/withdraw`),
      '/settings/members?done=withdrawn',
    );
    const page = await client.get('/settings/members?done=withdrawn');
    assertIncludes(page, 'The invitation was withdrawn: its link no longer works.');
    assert.ok(!page.text.includes(email));
    assert.deepEqual(await openInvitations(owner.workspaceId), []);

    const posted = await visitor.post(path, { password });
    assertPage(posted, 404);
    assertIncludes(posted, invitationGone);
    assert.equal(setsSession(posted), false);
    assert.equal(await usersWithEmail(email), 0);
    assertPage(await visitor.get(path), 404);

    // Withdrawing it again finds nothing.
    assertPage(await client.get('/settings/members'), 200);
    const twice = await client.post(`/settings/members/invitations/${id}/withdraw`);
    assertPage(twice, 404);
    assertIncludes(twice, notFoundText);
  });

  test('accepting: an address that already has an account must log in as that address; a visitor and another signed-in user are refused with a sentence; then it joins', async () => {
    const owner = await newOwner();
    const client = await signedIn(owner);
    const existing = await newOwner(); // owns a workspace of their own
    const { path } = await invite(client, existing.email, 'member');
    const refusal = `Log in as ${existing.email} to accept this invitation.`;

    const visitor = browser();
    const page = await visitor.get(path);
    assertPage(page, 200);
    assertIncludes(page, 'You already have an account');
    assert.ok(page.text.includes(`href="/login?next=${encodeURIComponent(path)}"`), 'a link to log in');
    assert.ok(!page.text.includes('name="password"'), 'no way to set a password');
    // The page has no form; a POST made anyway (with a token of this browser's /login page) is refused.
    assertPage(await visitor.get('/login'), 200);
    const visitorPost = await visitor.post(path, { password });
    assertPage(visitorPost, 400);
    assertIncludes(visitorPost, refusal);
    assert.equal(setsSession(visitorPost), false);

    const stranger = await signedIn(await newOwner());
    const strangerPage = await stranger.get(path);
    assertPage(strangerPage, 200);
    assert.ok(!strangerPage.text.includes(`action="${path}"`), 'no form to join for another user');
    const strangerPost = await stranger.post(path);
    assertPage(strangerPost, 400);
    assertIncludes(strangerPost, refusal);
    assert.equal(setsSession(strangerPost), false);
    assert.deepEqual(Object.keys(await rolesOf(owner.workspaceId)), [owner.userId], 'nobody joined');
    assert.equal((await openInvitations(owner.workspaceId)).length, 1, 'still open');

    // The invited address logs in from the link and comes back to it.
    const invited = browser();
    assertRedirect(await logIn(invited, existing.email, path), path);
    assert.equal(await whoAmI(invited), `${existing.email}, owner of ${existing.workspaceName}`);
    const join = await invited.get(path);
    assertPage(join, 200);
    assert.ok(join.text.includes(`action="${path}"`), 'a form to join');
    assertIncludes(join, `Join ${owner.workspaceName}`);
    const joined = await invited.post(path);
    assertRedirect(joined, '/documents');
    assert.ok(setsSession(joined));
    assert.equal(await whoAmI(invited), `${existing.email}, member of ${owner.workspaceName}`);
    assert.equal((await rolesOf(owner.workspaceId))[existing.userId], 'member');
    assert.equal(
      (await rolesOf(existing.workspaceId))[existing.userId],
      'owner',
      'keeps their own workspace',
    );
    assertPage(await browser().get(path), 404);
  });

  // ---------------------------------------------------------------- roles and removal

  test('roles: an owner makes a member an owner and back', async () => {
    const owner = await newOwner();
    const member = await newMember(owner);
    const client = await signedIn(owner);
    const memberClient = await signedIn(member);

    const page = await client.get('/settings/members');
    assertPage(page, 200);
    assert.ok(page.text.includes(`action="/settings/members/${member.userId}/role"`));
    assertRedirect(
      await client.post(`/settings/members/${member.userId}/role`, { role: 'owner' }),
      '/settings/members?done=role',
    );
    assert.equal((await rolesOf(owner.workspaceId))[member.userId], 'owner');
    assert.equal(await whoAmI(memberClient), `${member.email}, owner of ${owner.workspaceName}`);
    assertIncludes(await client.get('/settings/members?done=role'), 'The role was changed.');
    assertPage(await memberClient.get('/settings/billing'), 200);

    assertRedirect(
      await client.post(`/settings/members/${member.userId}/role`, { role: 'member' }),
      '/settings/members?done=role',
    );
    assert.deepEqual(await rolesOf(owner.workspaceId), {
      [owner.userId]: 'owner',
      [member.userId]: 'member',
    });
    assert.equal(await whoAmI(memberClient), `${member.email}, member of ${owner.workspaceName}`);
    assertPage(await memberClient.get('/settings/billing'), 403);
  });

  test('roles: the last owner can neither demote themselves nor leave; the page says why and nothing changes', async () => {
    const owner = await newOwner();
    await newMember(owner);
    const client = await signedIn(owner);
    const before = await stateOf(owner.workspaceId);

    assertPage(await client.get('/settings/members'), 200);
    const demote = await client.post(`/settings/members/${owner.userId}/role`, { role: 'member' });
    assertPage(demote, 400);
    assertIncludes(demote, lastOwner);

    const confirm = await client.get(`/settings/members/${owner.userId}/remove`);
    assertPage(confirm, 200);
    assertIncludes(confirm, `Leave ${owner.workspaceName}?`);
    const leave = await client.post(`/settings/members/${owner.userId}/remove`);
    assertPage(leave, 400);
    assertIncludes(leave, lastOwner);
    assert.ok(client.cookies.has('signet_session'), 'still signed in');

    assert.deepEqual(await stateOf(owner.workspaceId), before);
    assert.equal(await whoAmI(client), `${owner.email}, owner of ${owner.workspaceName}`);
  });

  test('roles: with two owners, one can leave (to /login, signed out of the workspace) and the other then cannot', async () => {
    const owner = await newOwner();
    const second = await newMember(owner, 'owner');
    const client = await signedIn(owner);
    const leaving = await signedIn(second);
    const oldSession = leaving.cookies.get('signet_session');
    assert.ok(oldSession);

    const confirm = await leaving.get(`/settings/members/${second.userId}/remove`);
    assertPage(confirm, 200);
    assertIncludes(confirm, `Leave ${owner.workspaceName}?`);
    assertRedirect(await leaving.post(`/settings/members/${second.userId}/remove`), '/login');
    assert.ok(!leaving.cookies.has('signet_session'), 'the cookie is cleared');
    assert.deepEqual(await rolesOf(owner.workspaceId), { [owner.userId]: 'owner' });
    const replay = browser();
    replay.cookies.set('signet_session', oldSession);
    assertRedirect(await replay.get('/documents'), `/login?next=${encodeURIComponent('/documents')}`);

    assertPage(await client.get('/settings/members'), 200);
    const last = await client.post(`/settings/members/${owner.userId}/remove`);
    assertPage(last, 400);
    assertIncludes(last, lastOwner);
    assert.deepEqual(await rolesOf(owner.workspaceId), { [owner.userId]: 'owner' });
  });

  test('removal: an owner removes a member through the confirmation page; the member’s session in that workspace stops working at once', async () => {
    const owner = await newOwner();
    const member = await newMember(owner);
    const client = await signedIn(owner);
    const memberClient = await signedIn(member);
    assertPage(await memberClient.get('/documents'), 200);

    const confirm = await client.get(`/settings/members/${member.userId}/remove`);
    assertPage(confirm, 200);
    assertIncludes(confirm, `Remove ${member.email}?`);
    assertRedirect(
      await client.post(`/settings/members/${member.userId}/remove`),
      '/settings/members?done=removed',
    );
    const page = await client.get('/settings/members?done=removed');
    assertIncludes(page, 'The member was removed and signed out of this workspace.');
    assert.ok(!page.text.includes(member.email));
    assert.deepEqual(await rolesOf(owner.workspaceId), { [owner.userId]: 'owner' });

    assertRedirect(await memberClient.get('/documents'), `/login?next=${encodeURIComponent('/documents')}`);
    assertRedirect(
      await memberClient.get('/settings/members'),
      `/login?next=${encodeURIComponent('/settings/members')}`,
    );
    assert.equal(await countRows(h.ctx, 'sessions', { user_id: member.userId }), 0);
    // Without another workspace the removed user can no longer log in.
    assert.equal((await logIn(browser(), member.email)).status, 401);
  });

  test('removal: a member leaves through the confirmation page, is sent to /login and the membership is gone', async () => {
    const owner = await newOwner();
    const member = await newMember(owner);
    const memberClient = await signedIn(member);
    const page = await memberClient.get('/settings/members');
    assertPage(page, 200);
    assert.ok(page.text.includes(`href="/settings/members/${member.userId}/remove">Leave</a>`));

    const confirm = await memberClient.get(`/settings/members/${member.userId}/remove`);
    assertPage(confirm, 200);
    assertIncludes(confirm, `Leave ${owner.workspaceName}?`);
    assertRedirect(await memberClient.post(`/settings/members/${member.userId}/remove`), '/login');
    assert.ok(!memberClient.cookies.has('signet_session'));
    assert.deepEqual(await rolesOf(owner.workspaceId), { [owner.userId]: 'owner' });
    assertRedirect(await memberClient.get('/documents'), `/login?next=${encodeURIComponent('/documents')}`);
  });

  // ---------------------------------------------------------------- members are not owners

  test('workspaces: a user of two workspaces switches between them on the account page; a workspace they are not in is 404', async () => {
    const first = await newOwner();
    const second = await newOwner();
    const stranger = await newOwner();
    await insertMembership(h.ctx.db, {
      workspace_id: second.workspaceId,
      user_id: first.userId,
      role: 'member',
      // Joined later: signing in lands in the first workspace, the oldest membership.
      created_at: new Date(h.clock.now().getTime() + 60_000),
    });
    const client = await signedIn(first);
    assert.equal(await whoAmI(client), `${first.email}, owner of ${first.workspaceName}`);
    const account = await client.get('/settings/account');
    assertIncludes(account, second.workspaceName);
    assertRedirect(
      await client.post('/settings/account/workspace', { workspaceId: second.workspaceId }),
      '/documents',
    );
    assert.equal(await whoAmI(client), `${first.email}, member of ${second.workspaceName}`);
    assertPage(await client.get('/settings/account'), 200);
    const refused = await client.post('/settings/account/workspace', { workspaceId: stranger.workspaceId });
    assertPage(refused, 404);
    assert.equal(await whoAmI(client), `${first.email}, member of ${second.workspaceName}`);
  });

  test('members: a member is refused with 403 on every owner-only page and action, and nothing changes', async () => {
    const owner = await newOwner();
    const member = await newMember(owner);
    const other = await newMember(owner);
    const ownerClient = await signedIn(owner);
    const invitation = await invite(ownerClient, uniqueEmail('pending'));
    const client = await signedIn(member);

    const page = await client.get('/settings/members');
    assertPage(page, 200);
    assert.ok(!page.text.includes('action="/settings/members/invitations"'), 'no invitation form');
    assert.ok(!page.text.includes('/role"'), 'no role forms');
    assert.ok(!page.text.includes(`/settings/members/${other.userId}/remove`), 'no removal links');
    assert.ok(!page.text.includes('href="/settings/billing"'), 'no Billing in the navigation');

    const before = await stateOf(owner.workspaceId);
    const requests: Array<[string, 'GET' | 'POST', string, Record<string, string>?]> = [
      ['billing page', 'GET', '/settings/billing'],
      ['switching the plan', 'POST', '/settings/billing/plan', { plan: 'free', confirm: 'yes' }],
      ['inviting', 'POST', '/settings/members/invitations', { email: uniqueEmail('x'), role: 'owner' }],
      ['withdrawing', 'POST', `/settings/members/invitations/${invitation.id}/withdraw`],
      ['promoting themselves', 'POST', `/settings/members/${member.userId}/role`, { role: 'owner' }],
      ['promoting another member', 'POST', `/settings/members/${other.userId}/role`, { role: 'owner' }],
      ['demoting the owner', 'POST', `/settings/members/${owner.userId}/role`, { role: 'member' }],
      ['the removal page of another member', 'GET', `/settings/members/${other.userId}/remove`],
      ['the removal page of the owner', 'GET', `/settings/members/${owner.userId}/remove`],
      ['removing another member', 'POST', `/settings/members/${other.userId}/remove`],
      ['removing the owner', 'POST', `/settings/members/${owner.userId}/remove`],
    ];
    for (const [label, method, path, fields] of requests) {
      assertPage(await client.get('/settings/members'), 200);
      const res = method === 'GET' ? await client.get(path) : await client.post(path, fields);
      assertPage(res, 403);
      assertIncludes(res, ownersOnly);
      assert.equal(res.location, null, label);
    }
    assert.deepEqual(await stateOf(owner.workspaceId), before, 'nothing changed');
    assertPage(await browser().get(invitation.path), 200);
  });

  // ---------------------------------------------------------------- isolation

  test('isolation: an owner of another workspace gets the same 404 page for that workspace’s ids, a random UUID and a non-UUID on every route with an id, and nothing changes', async () => {
    const ownerA = await newOwner();
    const memberA = await newMember(ownerA);
    const clientA = await signedIn(ownerA);
    const invitationA = await invite(clientA, uniqueEmail('a-invited'));
    const memberClientA = await signedIn(memberA);
    const ownerB = await newOwner();
    const memberB = await newMember(ownerB);
    const client = await signedIn(ownerB);
    const beforeA = await stateOf(ownerA.workspaceId);
    const beforeB = await stateOf(ownerB.workspaceId);

    const withdraw = (id: string) => `/settings/members/invitations/${id}/withdraw`;
    const role = (id: string) => `/settings/members/${id}/role`;
    const remove = (id: string) => `/settings/members/${id}/remove`;
    const routes: ForeignRoute[] = [
      { method: 'POST', path: withdraw, foreignId: invitationA.id },
      { method: 'POST', path: role, foreignId: memberA.userId, fields: { role: 'owner' } },
      { method: 'POST', path: role, foreignId: ownerA.userId, fields: { role: 'member' } },
      { method: 'GET', path: remove, foreignId: memberA.userId },
      { method: 'POST', path: remove, foreignId: memberA.userId },
      { method: 'POST', path: remove, foreignId: ownerA.userId },
    ];
    for (const route of routes) {
      const name = `${route.method} ${route.path('{id}')} (${route.fields?.role ?? ''})`;
      const ids = probeIds(route.foreignId);
      const page = await assertSameNotFound(client, '/settings/members', route, ids, name);
      assert.ok(!page.includes(ownerA.workspaceName), `${name}: nothing of workspace A`);
      assert.ok(!page.includes(memberA.email), `${name}: nothing of workspace A`);
    }
    assert.deepEqual(await stateOf(ownerA.workspaceId), beforeA, 'nothing of workspace A changed');
    assert.deepEqual(await stateOf(ownerB.workspaceId), beforeB, 'nor of workspace B');
    assertPage(await memberClientA.get('/documents'), 200);
    assertPage(await browser().get(invitationA.path), 200);
    // The same routes do work for workspace B's own member.
    assertPage(await client.get(`/settings/members/${memberB.userId}/remove`), 200);
  });

  // ---------------------------------------------------------------- CSRF

  test('CSRF: every member form POST without a token or with another session’s token is 403 and changes nothing', async () => {
    const owner = await newOwner();
    const member = await newMember(owner);
    const ownerClient = await signedIn(owner);
    const memberClient = await signedIn(member);
    const newcomer = uniqueEmail('newcomer');
    const invitation = await invite(ownerClient, newcomer);
    const visitor = browser();
    assertPage(await visitor.get(invitation.path), 200);
    const otherToken = await tokenOfAnotherSession();
    const before = await stateOf(owner.workspaceId);

    const posts: Array<[string, WebClient, string, Record<string, string>, string]> = [
      [
        'invite',
        ownerClient,
        '/settings/members/invitations',
        { email: uniqueEmail('csrf'), role: 'owner' },
        '/settings/members',
      ],
      [
        'withdraw',
        ownerClient,
        `/settings/members/invitations/${invitation.id}/withdraw`,
        {},
        '/settings/members',
      ],
      [
        'change a role',
        ownerClient,
        `/settings/members/${member.userId}/role`,
        { role: 'owner' },
        '/settings/members',
      ],
      [
        'remove a member',
        ownerClient,
        `/settings/members/${member.userId}/remove`,
        {},
        `/settings/members/${member.userId}/remove`,
      ],
      [
        'leave',
        memberClient,
        `/settings/members/${member.userId}/remove`,
        {},
        `/settings/members/${member.userId}/remove`,
      ],
      [
        'switch the plan',
        ownerClient,
        '/settings/billing/plan',
        { plan: 'free', confirm: 'yes' },
        '/settings/billing/free',
      ],
      ['accept an invitation', visitor, invitation.path, { password }, invitation.path],
    ];
    for (const [label, client, path, fields, formPage] of posts) {
      assertPage(await client.get(formPage), 200);
      await assertForgeriesRefused(client, path, fields, otherToken, label);
    }
    assert.deepEqual(await stateOf(owner.workspaceId), before, 'nothing changed');
    assert.equal(await usersWithEmail(newcomer), 0, 'no account made');
    assertPage(await memberClient.get('/documents'), 200);
    assertPage(await browser().get(invitation.path), 200);
  });
});
