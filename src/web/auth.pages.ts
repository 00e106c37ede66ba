// Sign-up, sign-in, sign-out and the account page (change password).
//   GET/POST /signup                     email, password, workspace name → "check your inbox"
//   GET/POST /signup/confirm/{token}     the mailed link: a button (links are prefetched) → signed in
//   GET/POST /login                      limited by accounts/account-limits.ts
//   GET/POST /password-reset             "Forgot your password?": an address → a mailed link (limited)
//   GET      /password-reset/sent        "check your inbox"
//   GET/POST /password-reset/{token}     the mailed link: a new password → every session ended, logged in
//   POST     /logout
//   GET/POST /settings/account           change password (ends every other session)
//   POST     /settings/account/workspace  move the session to another workspace of the user
// Messages never say whether an address has an account (accounts.service.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { takeLoginAttempt, takeResetAttempt, takeSignupAttempt } from '../accounts/account-limits.ts';
import {
  changePassword,
  confirmSignup,
  findPendingSignup,
  listWorkspacesOf,
  logIn,
  logOut,
  requestSignup,
  type SessionUser,
  setMemberLanguage,
  switchWorkspace,
} from '../accounts/accounts.service.ts';
import { deviceCookieMaxAgeSeconds, deviceCookieName } from '../accounts/device-cookies.ts';
import { completePasswordReset, findUsableReset, requestPasswordReset } from '../accounts/password-resets.ts';
import { ApiError } from '../http/errors.ts';
import { firstLanguage, type Language } from '../i18n/languages.ts';
import type { Translator } from '../i18n/messages.ts';
import { sentencesIn } from '../i18n/refusals.ts';
import { type FieldErrors, InputError } from '../input-error.ts';
import { notice } from '../ui/forms.ts';
import type { SafeHtml } from '../ui/html.ts';
import { rememberLanguage, visitorTranslator } from '../ui/page-language.ts';
import { findWorkspace } from '../workspaces/workspaces.repository.ts';
import {
  type AccountView,
  accountView,
  checkInboxView,
  confirmSignupView,
  expiredLinkView,
  expiredResetView,
  loginView,
  passwordResetRequestView,
  passwordResetSentView,
  passwordResetView,
  signupView,
} from './auth.views.ts';
import { type Form, forMembers, formText, sessionCookie, type Web } from './kit.ts';
import { memberTranslator } from './member-language.ts';

/**
 * Only a path on this site: never an open redirect. Printable ASCII only, since browsers
 * drop tabs and line breaks from URLs ("/\t/evil.example" would become "//evil.example")
 * and a Location header cannot carry other characters; one leading slash, not two.
 */
function safeNext(value: unknown): string {
  return typeof value === 'string' && value.length <= 2000 && /^\/(?![/\\])[\x21-\x7e]*$/.test(value)
    ? value
    : '/documents';
}

/** A Retry-After in seconds as the whole minutes a refusal names ("Try again in 3 minutes."). */
const minutesOf = (seconds: number) => Math.ceil(seconds / 60);

/** The visitor's language of the account pages (ui/page-language.ts), a Language (a mail's too). */
const pageLanguage = (tr: Translator): Language => (tr.language === 'en-XA' ? 'en' : tr.language);

type PostRequest = FastifyRequest<{ Body: Form }>;

function signupPage(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  form: Form,
  errors: FieldErrors,
) {
  const tr = visitorTranslator(request, reply);
  return web.render(request, reply, status, {
    title: tr.t('auth.title.signup'),
    tr,
    body: (csrf) => signupView(tr, csrf, form, errors),
  });
}

function loginPage(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  form: Form,
  message: ((tr: Translator) => SafeHtml) | null,
) {
  const next = safeNext(formText(form, 'next') || formText(request.query, 'next'));
  const tr = visitorTranslator(request, reply);
  return web.render(request, reply, status, {
    title: tr.t('auth.title.login'),
    tr,
    body: (csrf) => loginView(tr, csrf, form, next, message?.(tr) ?? null),
  });
}

async function accountPage(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  member: SessionUser,
  status: number,
  refused: InputError | null,
  done: AccountView['done'],
) {
  const workspaces = await listWorkspacesOf(web.ctx, member.userId);
  // The session's own read of users.language (resolveSession): no second query.
  const { language } = member;
  const workspace = await findWorkspace(web.ctx.db, member.workspaceId);
  const workspaceLanguage = firstLanguage(workspace?.default_language);
  const tr = memberTranslator(request, reply);
  return web.render(request, reply, status, {
    title: tr.t('app.nav.account'),
    current: 'account',
    tr,
    body: (csrf) =>
      accountView(
        csrf,
        {
          member,
          workspaces,
          errors: refused ? sentencesIn(refused, tr) : {},
          done,
          language,
          workspaceLanguage,
        },
        tr,
      ),
  });
}

const accountDone = (value: string) =>
  value === 'password' || value === 'reset' || value === 'language' ? value : null;

/**
 * The member's own language saved; this browser's log-in pages follow it too (the visitor's
 * cookie, ui/page-language.ts), or, for none, their browser's language again.
 */
async function setLanguageWith(web: Web, request: PostRequest, reply: FastifyReply, member: SessionUser) {
  let language: Language | null;
  try {
    language = await setMemberLanguage(web.ctx, member, formText(request.body, 'language'));
  } catch (error) {
    if (error instanceof InputError) return accountPage(web, request, reply, member, 400, error, null);
    throw error;
  }
  rememberLanguage(reply, language);
  return reply.redirect('/settings/account?done=language', 303);
}

const takeAttempt = { login: takeLoginAttempt, signup: takeSignupAttempt, reset: takeResetAttempt };

/**
 * Takes an attempt from the account limits; when it is refused, answers 429 with
 * Retry-After (counted in the metrics) and returns in how many minutes to try again.
 */
async function refusedAttempt(
  web: Web,
  request: PostRequest,
  reply: FastifyReply,
  limiter: keyof typeof takeAttempt,
) {
  const input = {
    email: formText(request.body, 'email'),
    clientAddress: request.ip,
    deviceCookie: request.cookies[deviceCookieName],
  };
  const decision = await takeAttempt[limiter](web.ctx, web.deps.accountLimiter, input);
  if (decision.allowed) return null;
  web.ctx.metrics.rateLimitRejections.inc({ limiter });
  reply.header('retry-after', String(decision.retryAfterSeconds));
  return minutesOf(decision.retryAfterSeconds);
}

async function signUp(web: Web, request: PostRequest, reply: FastifyReply) {
  const form = request.body ?? {};
  const email = formText(form, 'email');
  const wait = await refusedAttempt(web, request, reply, 'signup');
  const tr = visitorTranslator(request, reply);
  if (wait) {
    return signupPage(web, request, reply, 429, form, {
      email: tr.t('auth.refusal.tooManySignups', { minutes: wait }),
    });
  }
  try {
    await requestSignup(web.ctx, {
      email,
      password: formText(form, 'password'),
      workspaceName: formText(form, 'workspaceName'),
      language: pageLanguage(tr),
    });
  } catch (error) {
    if (error instanceof InputError)
      return signupPage(web, request, reply, 400, form, sentencesIn(error, tr));
    throw error;
  }
  // Post, redirect, get: a reload shows the page again instead of signing up twice (which
  // would replace the link just mailed).
  return redirectToSent(request, reply, signupSentCookie, '/signup/sent', email);
}

/** To the "check your inbox" page, the address kept in a cookie for that page alone. */
function redirectToSent(
  request: PostRequest,
  reply: FastifyReply,
  cookie: string,
  path: string,
  email: string,
) {
  reply.setCookie(cookie, email.trim(), {
    path,
    httpOnly: true,
    sameSite: 'strict',
    secure: request.protocol === 'https',
    maxAge: 30 * 60,
  });
  return reply.redirect(path, 303);
}

const signupSentCookie = 'signet_signup_sent';

async function logInWith(web: Web, request: PostRequest, reply: FastifyReply) {
  const form = request.body ?? {};
  const email = formText(form, 'email');
  const wait = await refusedAttempt(web, request, reply, 'login');
  if (wait) {
    const sentence = (tr: Translator) =>
      notice('error', tr.t('auth.refusal.tooManyLogins', { minutes: wait }));
    return loginPage(web, request, reply, 429, form, sentence);
  }
  const result = await logIn(web.ctx, {
    email,
    password: formText(form, 'password'),
    clientAddress: request.ip,
  });
  if (!result) {
    const sentence = (tr: Translator) => notice('error', tr.t('auth.refusal.wrongPassword'));
    return loginPage(web, request, reply, 401, form, sentence);
  }
  if ('unconfirmedUntil' in result) {
    const { unconfirmedUntil } = result;
    const sentence = (tr: Translator) =>
      notice(
        'error',
        // No workspace yet, so no time zone but UTC, named.
        tr.t('auth.refusal.unconfirmed', { email, time: tr.dateTime(unconfirmedUntil, 'UTC') }),
      );
    return loginPage(web, request, reply, 401, form, sentence);
  }
  logInBrowser(web, request, reply, result.sessionToken, result.deviceCookie);
  // The member's own language, if they chose one: this browser's next log-in pages use it.
  if (result.language) rememberLanguage(reply, result.language);
  return reply.redirect(safeNext(formText(form, 'next')), 303);
}

/**
 * The browser is logged in: its session cookie, and the device cookie that proves it knew
 * the password or the mailbox (account-limits.ts, rule 4) at a log-in, a sign-up's
 * confirmation, an accepted invitation or a password reset.
 */
export function logInBrowser(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  sessionToken: string,
  deviceCookie: string,
): void {
  web.setSessionCookie(request, reply, sessionToken);
  reply.setCookie(deviceCookieName, deviceCookie, {
    path: '/login',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https' || web.ctx.config.publicUrl.startsWith('https:'),
    maxAge: deviceCookieMaxAgeSeconds,
  });
}

/** A mailed link that cannot be used (a sign-up's or a reset's): 404, its page in the visitor's language. */
function expiredPage(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  view: (tr: Translator) => SafeHtml,
) {
  const tr = visitorTranslator(request, reply);
  return web.render(request, reply, 404, { title: tr.t('auth.title.linkExpired'), tr, body: () => view(tr) });
}

const expiredLink = (web: Web, request: FastifyRequest, reply: FastifyReply) =>
  expiredPage(web, request, reply, expiredLinkView);

async function changePasswordWith(web: Web, request: PostRequest, reply: FastifyReply, member: SessionUser) {
  const form = request.body ?? {};
  try {
    const { sessionToken } = await changePassword(web.ctx, member, {
      currentPassword: formText(form, 'currentPassword'),
      newPassword: formText(form, 'newPassword'),
    });
    web.setSessionCookie(request, reply, sessionToken);
  } catch (error) {
    if (error instanceof InputError) return accountPage(web, request, reply, member, 400, error, null);
    throw error;
  }
  return reply.redirect('/settings/account?done=password', 303);
}

function signupRoutes(app: FastifyInstance, web: Web) {
  app.get('/signup', (request, reply) => signupPage(web, request, reply, 200, {}, {}));
  app.post<{ Body: Form }>('/signup', (request, reply) => signUp(web, request, reply));
  app.get('/signup/sent', (request, reply) => {
    const tr = visitorTranslator(request, reply);
    return web.render(request, reply, 200, {
      title: tr.t('auth.title.checkInbox'),
      tr,
      body: () => checkInboxView(tr, request.cookies[signupSentCookie] ?? null),
    });
  });
  app.get<{ Params: { token: string } }>('/signup/confirm/:token', async (request, reply) => {
    const pending = await findPendingSignup(web.ctx, request.params.token);
    if (!pending) return expiredLink(web, request, reply);
    const tr = visitorTranslator(request, reply);
    return web.render(request, reply, 200, {
      title: tr.t('auth.title.confirmSignup'),
      tr,
      body: (csrf) => confirmSignupView(tr, csrf, request.params.token, pending),
    });
  });
  app.post<{ Params: { token: string } }>('/signup/confirm/:token', async (request, reply) => {
    const confirmed = await confirmSignup(web.ctx, request.params.token, request.ip);
    if (!confirmed) return expiredLink(web, request, reply);
    logInBrowser(web, request, reply, confirmed.sessionToken, confirmed.deviceCookie);
    // Documents, where the first-steps panel shows what to do first (first-steps.ts).
    return reply.redirect('/documents', 303);
  });
}

const resetSentCookie = 'signet_reset_sent';

function resetRequestPage(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  form: Form,
  errors: FieldErrors,
) {
  const tr = visitorTranslator(request, reply);
  return web.render(request, reply, status, {
    title: tr.t('auth.title.resetRequest'),
    tr,
    body: (csrf) => passwordResetRequestView(tr, csrf, form, errors),
  });
}

async function askForReset(web: Web, request: PostRequest, reply: FastifyReply) {
  const form = request.body ?? {};
  const email = formText(form, 'email');
  const wait = await refusedAttempt(web, request, reply, 'reset');
  const tr = visitorTranslator(request, reply);
  if (wait) {
    return resetRequestPage(web, request, reply, 429, form, {
      email: tr.t('auth.refusal.tooManyResets', { minutes: wait }),
    });
  }
  try {
    await requestPasswordReset(web.ctx, { email, language: pageLanguage(tr) });
  } catch (error) {
    if (error instanceof InputError)
      return resetRequestPage(web, request, reply, 400, form, sentencesIn(error, tr));
    throw error;
  }
  // Post, redirect, get (as for sign-up): a reload does not mail again.
  return redirectToSent(request, reply, resetSentCookie, '/password-reset/sent', email);
}

type TokenPost = FastifyRequest<{ Params: { token: string }; Body: Form }>;

async function resetPage(
  web: Web,
  request: TokenPost,
  reply: FastifyReply,
  status: number,
  errors: FieldErrors,
) {
  const account = await findUsableReset(web.ctx, request.params.token);
  if (!account) return expiredReset(web, request, reply);
  const tr = visitorTranslator(request, reply);
  return web.render(request, reply, status, {
    title: tr.t('auth.title.reset'),
    tr,
    body: (csrf) => passwordResetView(tr, csrf, request.params.token, account, errors),
  });
}

const expiredReset = (web: Web, request: FastifyRequest, reply: FastifyReply) =>
  expiredPage(web, request, reply, expiredResetView);

async function setNewPassword(web: Web, request: TokenPost, reply: FastifyReply) {
  let done: Awaited<ReturnType<typeof completePasswordReset>>;
  try {
    done = await completePasswordReset(web.ctx, request.params.token, {
      password: formText(request.body, 'password'),
      clientAddress: request.ip,
    });
  } catch (error) {
    if (error instanceof InputError)
      return resetPage(web, request, reply, 400, sentencesIn(error, visitorTranslator(request, reply)));
    throw error;
  }
  if (!done) return expiredReset(web, request, reply);
  if (!done.session) {
    web.clearSessionCookie(reply);
    return reply.redirect('/login', 303);
  }
  logInBrowser(web, request, reply, done.session.token, done.session.deviceCookie);
  return reply.redirect('/settings/account?done=reset', 303);
}

function resetRoutes(app: FastifyInstance, web: Web) {
  app.get('/password-reset', (request, reply) => resetRequestPage(web, request, reply, 200, {}, {}));
  app.post<{ Body: Form }>('/password-reset', (request, reply) => askForReset(web, request, reply));
  app.get('/password-reset/sent', (request, reply) => {
    const tr = visitorTranslator(request, reply);
    return web.render(request, reply, 200, {
      title: tr.t('auth.title.checkInbox'),
      tr,
      body: () => passwordResetSentView(tr, request.cookies[resetSentCookie] ?? null),
    });
  });
  app.get<{ Params: { token: string }; Body: Form }>('/password-reset/:token', (request, reply) =>
    resetPage(web, request, reply, 200, {}),
  );
  app.post<{ Params: { token: string }; Body: Form }>('/password-reset/:token', (request, reply) =>
    setNewPassword(web, request, reply),
  );
}

function sessionRoutes(app: FastifyInstance, web: Web) {
  app.get('/login', (request, reply) => {
    if (request.member) return reply.redirect('/documents', 303);
    return loginPage(web, request, reply, 200, {}, null);
  });
  app.post<{ Body: Form }>('/login', (request, reply) => logInWith(web, request, reply));
  app.post('/logout', async (request, reply) => {
    const token = request.cookies[sessionCookie];
    if (token) await logOut(web.ctx, token);
    web.clearSessionCookie(reply);
    return reply.redirect('/login', 303);
  });
}

function accountRoutes(app: FastifyInstance, web: Web) {
  app.get(
    '/settings/account',
    forMembers((request, reply, member) =>
      accountPage(web, request, reply, member, 200, null, accountDone(formText(request.query, 'done'))),
    ),
  );
  app.post<{ Body: Form }>(
    '/settings/account/workspace',
    forMembers(async (request, reply, member) => {
      try {
        await switchWorkspace(web.ctx, member, formText(request.body, 'workspaceId'));
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not-found') return web.notFound(request, reply);
        throw error;
      }
      return reply.redirect('/documents', 303);
    }),
  );
  app.post<{ Body: Form }>(
    '/settings/account/password',
    forMembers((request, reply, member) => changePasswordWith(web, request, reply, member)),
  );
  app.post<{ Body: Form }>(
    '/settings/account/language',
    forMembers((request, reply, member) => setLanguageWith(web, request, reply, member)),
  );
}

export function authPages(web: Web) {
  return async function register(app: FastifyInstance) {
    signupRoutes(app, web);
    sessionRoutes(app, web);
    resetRoutes(app, web);
    accountRoutes(app, web);
  };
}
