// Settings › Members, an invitation's pages and Settings › Billing in the member's language
// (issue 51), on both databases: an owner who chose Polish invites (a refused address, an
// address already a member, then an invitation whose mail is in Polish too), changes a role,
// is refused demoting the last owner, removes a member and withdraws an invitation, each notice
// and refusal in Polish; the invited visitor reads the invitation, its refusals and the expired
// link in their browser's Polish; the billing page and the question before Free in Polish. In
// the pseudo-language no view of these pages, nor the invitation mail, leaves an English word
// but the values it shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionUser } from '../../src/accounts/accounts.service.ts';
import type { Invitation, Member, OpenInvitation } from '../../src/accounts/members.service.ts';
import { translator } from '../../src/i18n/messages.ts';
import { invitationMail } from '../../src/mail/templates.ts';
import { renderToString } from '../../src/ui/html.ts';
import { formatTime } from '../../src/ui/time.ts';
import { billingView, confirmFreeView } from '../../src/web/billing.views.ts';
import {
  expiredInvitationView,
  invitationView,
  membersView,
  removeMemberView,
} from '../../src/web/members.views.ts';
import { describeEachDatabase, useHarness } from '../support/harness.ts';
import { englishLeft, pseudoTranslator, readableText } from '../support/pseudo-language.ts';
import {
  assertPage,
  assertRedirect,
  errorBeside,
  escaped,
  mailsTo,
  testPassword,
  uniqueEmail,
  type WebResponse,
  webPeople,
} from '../support/web-client.ts';

/** A few of the English sentences of these pages and the mail: none is left once translated. */
const english =
  /Invite someone|Send invitation|invitation is on its way|Owners manage|already a member|at least one owner|was withdrawn|was changed|You are invited|Choose a password|cannot be used|Log in as|is now on the|Switch to|Keep Max|stop working|ignore this mail/;

function assertSays(res: WebResponse, sentence: string): void {
  assert.ok(res.text.includes(escaped(sentence)), `expected «${sentence}» in ${res.text.slice(0, 1500)}`);
}

function h1Of(res: WebResponse): string | undefined {
  return /<h1[^>]*>([^<]*)<\/h1>/.exec(res.text)?.[1];
}

describeEachDatabase('members, invitations and billing in the member’s language', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.61');
  const pl = translator('pl');
  const choosePolish = (userId: string) =>
    h.ctx.db.updateTable('users').set({ language: 'pl' }).where('id', '=', userId).execute();

  test('an owner who chose Polish manages members in Polish, and the invitation mail is in Polish', async () => {
    const owner = await people.newOwner();
    const member = await people.newMember(owner);
    await choosePolish(owner.userId);
    const client = await people.signedIn(owner);
    const workspace = owner.workspaceName;
    const said: WebResponse[] = [];

    const page = await client.get('/settings/members');
    assertPage(page, 200);
    assert.match(page.text, /<html lang="pl" dir="ltr">/);
    assert.ok(page.text.includes(`<title>${escaped(pl.t('app.nav.members'))} · Signet</title>`));
    assert.equal(h1Of(page), escaped(pl.t('app.nav.members')));
    assertSays(page, pl.t('members.list.heading', { workspace }));
    assertSays(page, pl.t('members.invite.heading'));
    said.push(page);

    const badEmail = await client.post('/settings/members/invitations', {
      email: 'nie-adres',
      role: 'member',
    });
    assertPage(badEmail, 400);
    assert.equal(errorBeside(badEmail.text, 'invite-email'), pl.t('auth.refusal.emailInvalid'));
    const already = await client.post('/settings/members/invitations', {
      email: member.email,
      role: 'owner',
    });
    assertPage(already, 400);
    assert.equal(
      errorBeside(already.text, 'invite-email'),
      pl.t('members.refusal.alreadyMember', { email: member.email, workspace }),
    );
    said.push(badEmail, already);

    const invited = uniqueEmail('zaproszony');
    assertRedirect(
      await client.post('/settings/members/invitations', { email: invited, role: 'member' }),
      '/settings/members?done=invited',
    );
    const sent = await client.get('/settings/members?done=invited');
    assertSays(sent, pl.t('members.done.invited', { days: 7 }));
    said.push(sent);
    const [mail] = await mailsTo(h.ctx, invited);
    assert.ok(mail);
    assert.equal(mail.subject, pl.t('mail.invitation.subject', { workspace }));
    assert.ok(
      mail.text.includes(pl.t('mail.invitation.body', { inviter: owner.email, workspace })),
      mail.text,
    );
    assert.ok(mail.text.includes(pl.t('mail.invitation.validity', { days: 7 })), mail.text);

    assertRedirect(
      await client.post(`/settings/members/${member.userId}/role`, { role: 'owner' }),
      '/settings/members?done=role',
    );
    const changed = await client.get('/settings/members?done=role');
    assertSays(changed, pl.t('members.done.role'));
    assertRedirect(
      await client.post(`/settings/members/${member.userId}/role`, { role: 'member' }),
      '/settings/members?done=role',
    );
    const lastOwner = await client.post(`/settings/members/${owner.userId}/role`, { role: 'member' });
    assertPage(lastOwner, 400);
    assertSays(lastOwner, pl.t('members.refusal.lastOwner'));
    said.push(changed, lastOwner);

    const leave = await client.get(`/settings/members/${owner.userId}/remove`);
    assertPage(leave, 200);
    assert.ok(leave.text.includes(`<title>${escaped(pl.t('members.leave.title'))} · Signet</title>`));
    assert.equal(h1Of(leave), escaped(pl.t('members.leave.heading', { workspace })));
    const remove = await client.get(`/settings/members/${member.userId}/remove`);
    assertPage(remove, 200);
    assert.equal(h1Of(remove), escaped(pl.t('members.remove.heading', { email: member.email })));
    assertSays(remove, pl.t('members.remove.text', { email: member.email }));
    assertRedirect(
      await client.post(`/settings/members/${member.userId}/remove`),
      '/settings/members?done=removed',
    );
    const removed = await client.get('/settings/members?done=removed');
    assertSays(removed, pl.t('members.done.removed'));
    said.push(leave, remove, removed);

    const invitation = await h.ctx.db
      .selectFrom('invitations')
      .select('id')
      .where('workspace_id', '=', owner.workspaceId)
      .executeTakeFirstOrThrow();
    assertRedirect(
      await client.post(`/settings/members/invitations/${invitation.id}/withdraw`),
      '/settings/members?done=withdrawn',
    );
    const withdrawn = await client.get('/settings/members?done=withdrawn');
    assertSays(withdrawn, pl.t('members.done.withdrawn'));
    said.push(withdrawn);

    // Waits for the catalogues: passes once the Polish catalogue has these pages' messages.
    assert.ok(!english.test(mail.subject + mail.text), `no English left in the mail: ${mail.text}`);
    for (const res of said) assert.ok(!english.test(res.text), `no English left: ${res.text.slice(0, 3000)}`);
  });

  test('an invited visitor whose browser asks for Polish reads the invitation, its refusals and the used link in Polish', async () => {
    const owner = await people.newOwner();
    const existing = await people.newOwner();
    const inviter = await people.signedIn(owner);
    const workspace = owner.workspaceName;
    const linkOf = async (email: string) => {
      assertPage(await inviter.get('/settings/members'), 200);
      assertRedirect(
        await inviter.post('/settings/members/invitations', { email, role: 'owner' }),
        '/settings/members?done=invited',
      );
      const [mail] = await mailsTo(h.ctx, email);
      const path = /(\/invitations\/[A-Za-z0-9_-]{43})\s/.exec(mail?.text ?? '')?.[1];
      assert.ok(path, mail?.text);
      return path;
    };
    const said: WebResponse[] = [];

    const newcomer = uniqueEmail('nowa');
    const path = await linkOf(newcomer);
    const visitor = people.browser({ acceptLanguage: 'pl-PL,pl;q=0.9,en;q=0.5' });
    const page = await visitor.get(path);
    assertPage(page, 200);
    assert.match(page.text, /<html lang="pl" dir="ltr">/);
    assert.ok(page.text.includes(`<title>${escaped(pl.t('members.invitation.title'))} · Signet</title>`));
    assert.equal(h1Of(page), escaped(pl.t('members.invitation.heading', { workspace })));
    assertSays(page, pl.t('members.invitation.password'));
    const short = await visitor.post(path, { password: 'krótkie' });
    assertPage(short, 400);
    assert.equal(errorBeside(short.text, 'password'), pl.t('auth.refusal.passwordShort', { count: 10 }));
    said.push(page, short);
    assertRedirect(await visitor.post(path, { password: testPassword }), '/documents');
    const used = await people.browser({ acceptLanguage: 'pl' }).get(path);
    assertPage(used, 404);
    assert.ok(used.text.includes(`<title>${escaped(pl.t('members.expired.title'))} · Signet</title>`));
    assert.equal(h1Of(used), escaped(pl.t('members.expired.heading')));
    said.push(used);

    // An address with an account logs in to accept; a post without doing so is refused.
    const theirs = await linkOf(existing.email);
    const stranger = people.browser({ acceptLanguage: 'pl' });
    const ask = await stranger.get(theirs);
    assertPage(ask, 200);
    assert.ok(ask.text.includes(`href="/login?next=${encodeURIComponent(theirs)}"`));
    // The page has no form; a post made anyway (with the token of this browser's /login page).
    assertPage(await stranger.get('/login'), 200);
    const refused = await stranger.post(theirs, { password: testPassword });
    assertPage(refused, 400);
    assertSays(refused, pl.t('members.refusal.logInAs', { email: existing.email }));
    said.push(ask, refused);

    for (const res of said) assert.ok(!english.test(res.text), `no English left: ${res.text.slice(0, 3000)}`);
  });

  test('an owner who chose Polish reads the plan, switches to Free after the question and back, in Polish', async () => {
    const owner = await people.newOwner('max');
    await choosePolish(owner.userId);
    const client = await people.signedIn(owner);
    const workspace = owner.workspaceName;
    const max = pl.t('billing.plan.name', { plan: 'max' });
    const free = pl.t('billing.plan.name', { plan: 'free' });

    const page = await client.get('/settings/billing');
    assertPage(page, 200);
    assert.match(page.text, /<html lang="pl" dir="ltr">/);
    assert.ok(page.text.includes(`<title>${escaped(pl.t('app.nav.billing'))} · Signet</title>`));
    assert.equal(h1Of(page), escaped(pl.t('app.nav.billing')));
    assertSays(page, pl.t('billing.plan.heading', { name: max }));
    assertSays(page, pl.t('billing.switchToFree'));
    // The billing rules refuse no input: a post without the answer is sent to the question.
    assertRedirect(await client.post('/settings/billing/plan', { plan: 'free' }), '/settings/billing/free');
    const question = await client.get('/settings/billing/free');
    assertPage(question, 200);
    assert.ok(question.text.includes(`<title>${escaped(pl.t('billing.free.title'))} · Signet</title>`));
    assert.equal(h1Of(question), escaped(pl.t('billing.free.heading', { workspace })));
    assert.ok(question.text.includes('<code>403 plan-required</code>'), 'the code as the API says it');
    assertRedirect(
      await client.post('/settings/billing/plan', { plan: 'free', confirm: 'yes' }),
      '/settings/billing?done=plan',
    );
    const onFree = await client.get('/settings/billing?done=plan');
    assertSays(onFree, pl.t('billing.done', { workspace, name: free }));
    assertSays(onFree, pl.t('billing.switchToMax'));
    assertRedirect(
      await client.post('/settings/billing/plan', { plan: 'max' }),
      '/settings/billing?done=plan',
    );
    const onMax = await client.get('/settings/billing?done=plan');
    assertSays(onMax, pl.t('billing.done', { workspace, name: max }));

    for (const res of [page, question, onFree, onMax])
      assert.ok(!english.test(res.text), `no English left: ${res.text.slice(0, 3000)}`);
  });

  test('in the pseudo-language the members, invitation and billing views and the invitation mail leave no English word but the values they show', () => {
    const tr = pseudoTranslator();
    const zone = 'Europe/Warsaw';
    const owner = {
      userId: 'u1',
      email: 'anna@kowalski.example',
      workspaceName: 'Kowalski i Syn',
      timeZone: zone,
      role: 'owner',
      plan: 'max',
    } as SessionUser;
    const joined = '2026-12-01T09:00:00.000Z';
    const members: Member[] = [
      { userId: 'u1', email: owner.email, role: 'owner', joinedAt: joined },
      { userId: 'u2', email: 'jan@kowalski.example', role: 'member', joinedAt: joined },
    ];
    const invitations: Invitation[] = [
      {
        id: 'i1',
        email: 'ewa@kowalski.example',
        role: 'owner',
        createdAt: '2026-12-03T10:00:00.000Z',
        expiresAt: '2026-12-10T10:00:00.000Z',
      },
    ];
    const errors = {
      email: tr.t('members.refusal.alreadyMember', {
        email: 'jan@kowalski.example',
        workspace: 'Kowalski i Syn',
      }),
      form: tr.t('members.refusal.lastOwner'),
    };
    const invitation: OpenInvitation = {
      id: 'i1',
      workspaceId: 'w1',
      workspaceName: 'Kowalski i Syn',
      email: 'ewa@kowalski.example',
      role: 'owner',
      hasAccount: false,
    };
    const path = '/invitations/t0ken';
    const times = [joined, ...invitations.flatMap((i) => [i.createdAt, i.expiresAt])].map((t) =>
      formatTime(t, zone),
    );
    const values = [
      'Kowalski i Syn',
      owner.email,
      'jan@kowalski.example',
      'ewa@kowalski.example',
      '403 plan-required',
      ...times,
    ];
    const asMember = { ...owner, role: 'member', userId: 'u2', email: 'jan@kowalski.example' } as SessionUser;
    const pages = [
      membersView(
        { member: owner, members, invitations, errors, notice: tr.t('members.done.role') },
        'csrf',
        tr,
      ),
      membersView({ member: asMember, members, invitations: [], errors: {} }, 'csrf', tr),
      removeMemberView(owner, members[1] as Member, 'csrf', tr),
      removeMemberView(owner, members[0] as Member, 'csrf', tr),
      invitationView({ invitation, path, signedInAsInvited: false, errors: {} }, 'csrf', tr),
      invitationView(
        {
          invitation: { ...invitation, hasAccount: true },
          path,
          signedInAsInvited: false,
          errors: { form: tr.t('members.refusal.logInAs', { email: invitation.email }) },
        },
        'csrf',
        tr,
      ),
      invitationView(
        { invitation: { ...invitation, hasAccount: true }, path, signedInAsInvited: true, errors: {} },
        'csrf',
        tr,
      ),
      expiredInvitationView(tr),
      billingView(owner, 'csrf', true, tr),
      billingView({ ...owner, plan: 'free' }, 'csrf', true, tr),
      confirmFreeView(owner, 'csrf', tr),
    ];
    for (const page of pages) assert.deepEqual(englishLeft(readableText(renderToString(page)), values), []);

    const mail = invitationMail(tr, {
      workspaceName: 'Kowalski i Syn',
      inviter: owner.email,
      link: 'https://sign.example.test/invitations/t0ken',
      validDays: 7,
    });
    const link = 'https://sign.example.test/invitations/t0ken';
    assert.deepEqual(englishLeft(`${mail.subject}\n${mail.text}`, [...values, link]), []);
  });
});
