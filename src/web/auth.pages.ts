// Sign-up, sign-in, sign-out and the account page (change password).
//   GET/POST /signup                     email, password, workspace name → "check your inbox"
//   GET/POST /signup/confirm/{token}     the mailed link: a button (links are prefetched) → signed in
//   GET/POST /login                      limited per account and per address
//   POST     /logout
//   GET/POST /settings/account           change password (ends every other session)
//   POST     /settings/account/workspace  move the session to another workspace of the user
// Messages never say whether an address has an account (accounts.service.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { takeLoginAttempt, takeSignupAttempt } from '../accounts/account-limits.ts';
import {
  AccountInputError,
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
import { minPasswordLength } from '../accounts/passwords.ts';
import { ApiError } from '../http/errors.ts';
import { html, type SafeHtml } from './html.ts';
import { csrfField, fieldError, invalidAttrs, notice } from './layout.ts';
import { formText, requireMember, sessionCookie, type Web } from './web.plugin.ts';

type Form = Record<string, string | undefined>;

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

function input(options: {
  id: string;
  label: string;
  type: string;
  value?: string;
  autocomplete: string;
  error?: string;
  hint?: string;
}): SafeHtml {
  return html`<div class="field">
<label for="${options.id}">${options.label}</label>
${options.hint ? html`<span class="hint" id="${options.id}-hint">${options.hint}</span>` : ''}
<input id="${options.id}" name="${options.id}" type="${options.type}" value="${options.value ?? ''}" autocomplete="${options.autocomplete}" required ${invalidAttrs(options.id, options.error)}>
${fieldError(options.id, options.error)}
</div>`;
}

export function authPages(web: Web) {
  const { ctx } = web;

  function signupPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    form: Form,
    errors: Form,
  ) {
    return web.render(request, reply, status, {
      title: 'Sign up',
      body: (csrf) => html`<div class="narrow">
<h1>Create your Signet workspace</h1>
<div class="card">
<form method="post" action="/signup" novalidate>
${csrfField(csrf)}
${input({ id: 'email', label: 'Email', type: 'email', value: formText(form, 'email'), autocomplete: 'email', error: errors.email })}
${input({ id: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', error: errors.password, hint: `At least ${minPasswordLength} characters.` })}
${input({ id: 'workspaceName', label: 'Workspace name', type: 'text', value: formText(form, 'workspaceName'), autocomplete: 'organization', error: errors.workspaceName, hint: 'Your company or team, as recipients will see it.' })}
<div class="actions"><button class="button button-primary" type="submit">Sign up</button></div>
</form>
</div>
<p>Already have an account? <a href="/login">Log in</a></p>
</div>`,
    });
  }

  function loginPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    form: Form,
    message: SafeHtml | null,
  ) {
    const next = safeNext(formText(form, 'next') || (request.query as Form)?.next);
    return web.render(request, reply, status, {
      title: 'Log in',
      body: (csrf) => html`<div class="narrow">
<h1>Log in to Signet</h1>
${message}
<div class="card">
<form method="post" action="/login" novalidate>
${csrfField(csrf)}
<input type="hidden" name="next" value="${next}">
${input({ id: 'email', label: 'Email', type: 'email', value: formText(form, 'email'), autocomplete: 'username' })}
${input({ id: 'password', label: 'Password', type: 'password', autocomplete: 'current-password' })}
<div class="actions"><button class="button button-primary" type="submit">Log in</button></div>
</form>
</div>
<p>New to Signet? <a href="/signup">Create a workspace</a></p>
</div>`,
    });
  }

  async function accountPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    errors: Form,
    done: boolean,
  ) {
    const member = request.member as SessionUser;
    const workspaces = await listWorkspacesOf(ctx, member.userId);
    return web.render(request, reply, status, {
      title: 'Account',
      current: 'account',
      body: (csrf) => html`<h1>Your account</h1>
${done ? notice('success', 'Your password was changed. Every other browser was signed out.') : ''}
<div class="card">
<p>Signed in as <strong>${member.email}</strong>, ${member.role} of ${member.workspaceName}.</p>
</div>
${
  workspaces.length > 1
    ? html`<section class="card" aria-labelledby="workspaces-title">
<h2 id="workspaces-title">Your workspaces</h2>
<ul class="plain">${workspaces.map(
        (w) =>
          html`<li>${
            w.id === member.workspaceId
              ? html`<strong>${w.name}</strong> (${w.role}, current)`
              : html`<form method="post" action="/settings/account/workspace" class="inline">${csrfField(csrf)}<input type="hidden" name="workspaceId" value="${w.id}">${w.name} (${w.role}) <button class="button button-secondary button-small" type="submit">Switch<span class="visually-hidden"> to ${w.name}</span></button></form>`
          }</li>`,
      )}</ul>
</section>`
    : ''
}
<div class="card">
<h2>Change password</h2>
<form method="post" action="/settings/account/password" novalidate>
${csrfField(csrf)}
${input({ id: 'currentPassword', label: 'Current password', type: 'password', autocomplete: 'current-password', error: errors.currentPassword })}
${input({ id: 'newPassword', label: 'New password', type: 'password', autocomplete: 'new-password', error: errors.newPassword, hint: `At least ${minPasswordLength} characters.` })}
<div class="actions"><button class="button button-primary" type="submit">Change password</button></div>
</form>
</div>`,
    });
  }

  return async function register(app: FastifyInstance) {
    app.get('/signup', (request, reply) => signupPage(request, reply, 200, {}, {}));
    app.post<{ Body: Form }>('/signup', async (request, reply) => {
      const form = request.body ?? {};
      const decision = await takeSignupAttempt(ctx, web.deps.loginLimiter, {
        email: formText(form, 'email'),
        clientAddress: request.ip,
      });
      if (!decision.allowed) {
        ctx.metrics.rateLimitRejections.inc({ limiter: 'signup' });
        reply.header('retry-after', String(decision.retryAfterSeconds));
        return signupPage(request, reply, 429, form, {
          email: `Too many sign-ups for this address or from your network. ${tryAgainIn(decision.retryAfterSeconds)}`,
        });
      }
      try {
        await requestSignup(ctx, {
          email: formText(form, 'email'),
          password: formText(form, 'password'),
          workspaceName: formText(form, 'workspaceName'),
        });
      } catch (error) {
        if (error instanceof AccountInputError) return signupPage(request, reply, 400, form, error.fields);
        throw error;
      }
      return web.render(request, reply, 200, {
        title: 'Check your inbox',
        body: () => html`<div class="card narrow"><h1>Check your inbox</h1>
<p>We sent a mail to <strong>${formText(form, 'email').trim()}</strong>. Open the link in it to finish signing up.</p>
<p class="muted small">Running Signet yourself without SMTP? The operator sees the mail with <code>npx signet mail list --to</code> and the address.</p></div>`,
      });
    });

    const expiredLink = (request: FastifyRequest, reply: FastifyReply) =>
      web.render(request, reply, 404, {
        title: 'Link expired',
        body: () =>
          html`<div class="card narrow"><h1>This link cannot be used</h1><p>It was used already, or it expired. <a href="/signup">Sign up again</a> or <a href="/login">log in</a>.</p></div>`,
      });

    app.get<{ Params: { token: string } }>('/signup/confirm/:token', async (request, reply) => {
      const pending = await findPendingSignup(ctx, request.params.token);
      if (!pending) return expiredLink(request, reply);
      return web.render(request, reply, 200, {
        title: 'Confirm sign-up',
        body: (csrf) => html`<div class="card narrow"><h1>Create your workspace</h1>
<p>Create the workspace <strong>${pending.workspaceName}</strong> for <strong>${pending.email}</strong>?</p>
<form method="post" action="/signup/confirm/${request.params.token}">${csrfField(csrf)}
<div class="actions"><button class="button button-primary" type="submit">Create workspace and log in</button></div></form></div>`,
      });
    });
    app.post<{ Params: { token: string } }>('/signup/confirm/:token', async (request, reply) => {
      const confirmed = await confirmSignup(ctx, request.params.token);
      if (!confirmed) return expiredLink(request, reply);
      web.setSessionCookie(request, reply, confirmed.sessionToken);
      return reply.redirect('/settings/integrations', 303);
    });

    app.get('/login', (request, reply) => {
      if (request.member) return reply.redirect('/documents', 303);
      return loginPage(request, reply, 200, {}, null);
    });
    app.post<{ Body: Form }>('/login', async (request, reply) => {
      const form = request.body ?? {};
      const decision = await takeLoginAttempt(ctx, web.deps.loginLimiter, {
        email: formText(form, 'email'),
        clientAddress: request.ip,
      });
      if (!decision.allowed) {
        ctx.metrics.rateLimitRejections.inc({ limiter: 'login' });
        const wait = decision.retryAfterSeconds;
        reply.header('retry-after', String(wait));
        return loginPage(
          request,
          reply,
          429,
          form,
          notice('error', `Too many attempts to log in. ${tryAgainIn(wait)}`),
        );
      }
      const result = await logIn(ctx, {
        email: formText(form, 'email'),
        password: formText(form, 'password'),
        clientAddress: request.ip,
      });
      if (!result) {
        return loginPage(request, reply, 401, form, notice('error', 'The email or password is not right.'));
      }
      web.setSessionCookie(request, reply, result.sessionToken);
      return reply.redirect(safeNext(formText(form, 'next')), 303);
    });

    app.post('/logout', async (request, reply) => {
      const token = request.cookies[sessionCookie];
      if (token) await logOut(ctx, token);
      web.clearSessionCookie(reply);
      return reply.redirect('/login', 303);
    });

    app.get('/settings/account', { preHandler: requireMember }, (request, reply) =>
      accountPage(request, reply, 200, {}, (request.query as Form)?.done === 'password'),
    );
    app.post<{ Body: Form }>(
      '/settings/account/workspace',
      { preHandler: requireMember },
      async (request, reply) => {
        try {
          await switchWorkspace(ctx, request.member as SessionUser, formText(request.body, 'workspaceId'));
        } catch (error) {
          if (error instanceof ApiError && error.code === 'not-found') return web.notFound(request, reply);
          throw error;
        }
        return reply.redirect('/documents', 303);
      },
    );

    app.post<{ Body: Form }>(
      '/settings/account/password',
      { preHandler: requireMember },
      async (request, reply) => {
        const form = request.body ?? {};
        try {
          const { sessionToken } = await changePassword(
            ctx,
            request.member as NonNullable<typeof request.member>,
            {
              currentPassword: formText(form, 'currentPassword'),
              newPassword: formText(form, 'newPassword'),
            },
          );
          web.setSessionCookie(request, reply, sessionToken);
        } catch (error) {
          if (error instanceof AccountInputError)
            return accountPage(request, reply, 400, error.fields, false);
          throw error;
        }
        return reply.redirect('/settings/account?done=password', 303);
      },
    );
  };
}
