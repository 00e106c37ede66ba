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
  switchWorkspace,
} from '../accounts/accounts.service.ts';
import { deviceCookieMaxAgeSeconds, deviceCookieName } from '../accounts/device-cookies.ts';
import { completePasswordReset, findUsableReset, requestPasswordReset } from '../accounts/password-resets.ts';
import { ApiError } from '../http/errors.ts';
import { type FieldErrors, InputError } from '../input-error.ts';
import { notice } from '../ui/forms.ts';
import type { SafeHtml } from '../ui/html.ts';
import {
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
import { formatTime } from './layout.ts';

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

/** "Try again in 3 minutes." for a Retry-After in seconds. */
function tryAgainIn(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return `Try again in ${minutes} minute${minutes > 1 ? 's' : ''}.`;
}

type PostRequest = FastifyRequest<{ Body: Form }>;

function signupPage(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  form: Form,
  errors: FieldErrors,
) {
  return web.render(request, reply, status, {
    title: 'Sign up',
    body: (csrf) => signupView(csrf, form, errors),
  });
}

function loginPage(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  form: Form,
  message: SafeHtml | null,
) {
  const next = safeNext(formText(form, 'next') || formText(request.query, 'next'));
  return web.render(request, reply, status, {
    title: 'Log in',
    body: (csrf) => loginView(csrf, form, next, message),
  });
}

async function accountPage(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  member: SessionUser,
  status: number,
  errors: FieldErrors,
  done: 'password' | 'reset' | null,
) {
  const workspaces = await listWorkspacesOf(web.ctx, member.userId);
  return web.render(request, reply, status, {
    title: 'Account',
    current: 'account',
    body: (csrf) => accountView(csrf, { member, workspaces, errors, done }),
  });
}

const accountDone = (value: string) => (value === 'password' || value === 'reset' ? value : null);

const takeAttempt = { login: takeLoginAttempt, signup: takeSignupAttempt, reset: takeResetAttempt };

/**
 * Takes an attempt from the account limits; when it is refused, answers 429 with
 * Retry-After (counted in the metrics) and returns when to try again, as a sentence.
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
  return tryAgainIn(decision.retryAfterSeconds);
}

async function signUp(web: Web, request: PostRequest, reply: FastifyReply) {
  const form = request.body ?? {};
  const email = formText(form, 'email');
  const wait = await refusedAttempt(web, request, reply, 'signup');
  if (wait) {
    return signupPage(web, request, reply, 429, form, {
      email: `Too many sign-ups for this address or from your network. ${wait}`,
    });
  }
  try {
    await requestSignup(web.ctx, {
      email,
      password: formText(form, 'password'),
      workspaceName: formText(form, 'workspaceName'),
    });
  } catch (error) {
    if (error instanceof InputError) return signupPage(web, request, reply, 400, form, error.fields);
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
    return loginPage(web, request, reply, 429, form, notice('error', `Too many attempts to log in. ${wait}`));
  }
  const result = await logIn(web.ctx, {
    email,
    password: formText(form, 'password'),
    clientAddress: request.ip,
  });
  if (!result)
    return loginPage(web, request, reply, 401, form, notice('error', 'The email or password is not right.'));
  if ('unconfirmedUntil' in result) {
    const until = formatTime(result.unconfirmedUntil.toISOString(), 'UTC'); // no workspace yet;
    const sentence = `You have not confirmed your sign-up yet. Open the link we mailed to ${email} (it works until ${until}); no mail? Sign up again for a new link.`;
    return loginPage(web, request, reply, 401, form, notice('error', sentence));
  }
  logInBrowser(web, request, reply, result.sessionToken, result.deviceCookie);
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

const expiredLink = (web: Web, request: FastifyRequest, reply: FastifyReply) =>
  web.render(request, reply, 404, { title: 'Link expired', body: () => expiredLinkView });

async function changePasswordWith(web: Web, request: PostRequest, reply: FastifyReply, member: SessionUser) {
  const form = request.body ?? {};
  try {
    const { sessionToken } = await changePassword(web.ctx, member, {
      currentPassword: formText(form, 'currentPassword'),
      newPassword: formText(form, 'newPassword'),
    });
    web.setSessionCookie(request, reply, sessionToken);
  } catch (error) {
    if (error instanceof InputError) return accountPage(web, request, reply, member, 400, error.fields, null);
    throw error;
  }
  return reply.redirect('/settings/account?done=password', 303);
}

function signupRoutes(app: FastifyInstance, web: Web) {
  app.get('/signup', (request, reply) => signupPage(web, request, reply, 200, {}, {}));
  app.post<{ Body: Form }>('/signup', (request, reply) => signUp(web, request, reply));
  app.get('/signup/sent', (request, reply) =>
    web.render(request, reply, 200, {
      title: 'Check your inbox',
      body: () => checkInboxView(request.cookies[signupSentCookie] ?? null),
    }),
  );
  app.get<{ Params: { token: string } }>('/signup/confirm/:token', async (request, reply) => {
    const pending = await findPendingSignup(web.ctx, request.params.token);
    if (!pending) return expiredLink(web, request, reply);
    return web.render(request, reply, 200, {
      title: 'Confirm sign-up',
      body: (csrf) => confirmSignupView(csrf, request.params.token, pending),
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
  return web.render(request, reply, status, {
    title: 'Set a new password',
    body: (csrf) => passwordResetRequestView(csrf, form, errors),
  });
}

async function askForReset(web: Web, request: PostRequest, reply: FastifyReply) {
  const form = request.body ?? {};
  const email = formText(form, 'email');
  const wait = await refusedAttempt(web, request, reply, 'reset');
  if (wait) {
    return resetRequestPage(web, request, reply, 429, form, {
      email: `Too many requests for this address or from your network. ${wait}`,
    });
  }
  try {
    await requestPasswordReset(web.ctx, { email });
  } catch (error) {
    if (error instanceof InputError) return resetRequestPage(web, request, reply, 400, form, error.fields);
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
  if (!account)
    return web.render(request, reply, 404, { title: 'Link expired', body: () => expiredResetView });
  return web.render(request, reply, status, {
    title: 'Choose a new password',
    body: (csrf) => passwordResetView(csrf, request.params.token, account, errors),
  });
}

async function setNewPassword(web: Web, request: TokenPost, reply: FastifyReply) {
  let done: Awaited<ReturnType<typeof completePasswordReset>>;
  try {
    done = await completePasswordReset(web.ctx, request.params.token, {
      password: formText(request.body, 'password'),
      clientAddress: request.ip,
    });
  } catch (error) {
    if (error instanceof InputError) return resetPage(web, request, reply, 400, error.fields);
    throw error;
  }
  if (!done) return web.render(request, reply, 404, { title: 'Link expired', body: () => expiredResetView });
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
  app.get('/password-reset/sent', (request, reply) =>
    web.render(request, reply, 200, {
      title: 'Check your inbox',
      body: () => passwordResetSentView(request.cookies[resetSentCookie] ?? null),
    }),
  );
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
      accountPage(web, request, reply, member, 200, {}, accountDone(formText(request.query, 'done'))),
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
}

export function authPages(web: Web) {
  return async function register(app: FastifyInstance) {
    signupRoutes(app, web);
    sessionRoutes(app, web);
    resetRoutes(app, web);
    accountRoutes(app, web);
  };
}
