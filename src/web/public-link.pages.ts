// A template's public link in the web application (issue 38; the rules are
// templates/public-links.ts's):
//   GET|POST /templates/{id}/public-link   the sender's settings: on, its limits, renew, off
//                                          (in the member's language, as the visitor's pages in theirs)
//   GET|POST /t/{token}                    a visitor: their name and email (a code is mailed)
//   GET|POST /t/{token}/confirm/{request}  the code; confirmed, their document's signing page
// A visitor needs no account; their posts carry the form's CSRF token as every form here does.
// Asking for codes is limited per client address, and the code mails are capped per inbox and
// per workspace (templates/public-link-caps.ts): each refusal is 429 with Retry-After and a
// sentence beside the email; the owner's settings page says when the workspace's cap is reached.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.ts';
import type { MessageKey, Translator } from '../i18n/messages.ts';
import { type KeyedProblem, keyedRefusal, sentencesIn } from '../i18n/refusals.ts';
import { type FieldErrors, InputError } from '../input-error.ts';
import { codeMailsToday } from '../templates/public-link-caps.ts';
import {
  confirmPublicLinkCode,
  openPublicLink,
  publicLinkProblem,
  publicLinkRequest,
  publicLinkSettings,
  removePublicLink,
  requestPublicLinkCode,
  setPublicLink,
  takePublicLinkAttempt,
} from '../templates/public-links.ts';
import { getTemplate, type TemplateDetail } from '../templates/templates.service.ts';
import { brandStylesheetPath } from '../ui/assets.ts';
import { notice } from '../ui/forms.ts';
import { visitorChoice, visitorTranslator } from '../ui/page-language.ts';
import { type Form, formText, forRecord, uuid, type Web } from './kit.ts';
import { memberTranslator } from './member-language.ts';
import { publicCodeView, publicLinkSettingsView, publicLinkView } from './public-link.views.ts';

type TokenParams = { token: string };
type RequestParams = TokenParams & { requestId: string };

/** The sentence the settings page shows after an action (post, redirect, get). */
const doneNotices: Record<string, MessageKey> = {
  on: 'publicLink.settings.done.on',
  limits: 'publicLink.settings.done.limits',
  renew: 'publicLink.settings.done.renew',
  off: 'publicLink.settings.done.off',
};

/**
 * The limits as the form gives them: a whole number of uses, a last day (to its end, UTC);
 * refused with sentences of the catalogues, the uses' the same as setPublicLink's.
 */
function limitsOf(form: Form): { maxUses: number | null; endsAt: Date | null } {
  const problems: KeyedProblem[] = [];
  const uses = formText(form, 'maxUses').trim();
  const day = formText(form, 'endsOn').trim();
  const maxUses = uses === '' ? null : Number(uses);
  if (maxUses !== null && !(Number.isInteger(maxUses) && maxUses > 0))
    problems.push(['maxUses', 'publicLink.settings.refusal.maxUses']);
  const endsAt = day === '' ? null : new Date(`${day}T23:59:59.999Z`);
  if (endsAt !== null && (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(endsAt.getTime())))
    problems.push(['endsOn', 'publicLink.settings.refusal.endsOn']);
  if (problems.length > 0) throw keyedRefusal(problems);
  return { maxUses, endsAt };
}

/** The sender's settings, in the member's language: on, its limits, renew, off. */
function settingsRoutes(web: Web, app: FastifyInstance) {
  const load = (workspaceId: string, id: string) => getTemplate(web.ctx, workspaceId, id);
  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    page: { workspaceId: string; template: TemplateDetail },
    state: { status: number; form?: Form; error?: InputError; done?: string },
  ) => {
    const { template } = page;
    const tr = memberTranslator(request, reply);
    const settings = await publicLinkSettings(web.ctx, page.workspaceId, template.id);
    const mailsToday = await codeMailsToday(web.ctx, page.workspaceId);
    const form = state.form ?? {
      maxUses: settings.maxUses === null ? '' : String(settings.maxUses),
      endsOn: settings.endsAt ? settings.endsAt.toISOString().slice(0, 10) : '',
    };
    const done = state.done ? doneNotices[state.done] : undefined;
    return web.render(request, reply, state.status, {
      title: tr.t('publicLink.settings.pageTitle', { template: template.name }),
      current: 'templates',
      tr,
      body: (csrf) =>
        publicLinkSettingsView(
          {
            template,
            settings,
            mailsToday,
            url: settings.token ? `${web.ctx.config.publicUrl}/t/${settings.token}` : null,
            problem: publicLinkProblem(template),
            form,
            errors: state.error ? sentencesIn(state.error, tr) : {},
            done: done ? notice('success', tr.t(done)) : null,
            csrf,
          },
          tr,
        ),
    });
  };
  app.get<{ Params: { id: string }; Querystring: Form }>(
    '/templates/:id/public-link',
    forRecord(web, load, (request, reply, member, template) =>
      show(
        request,
        reply,
        { workspaceId: member.workspaceId, template },
        { status: 200, done: formText(request.query, 'done') },
      ),
    ),
  );
  app.post<{ Params: { id: string }; Body: Form }>(
    '/templates/:id/public-link',
    forRecord(web, load, async (request, reply, member, template) => {
      const action = formText(request.body, 'action');
      const page = { workspaceId: member.workspaceId, template };
      try {
        if (action === 'off') await removePublicLink(web.ctx, member.workspaceId, template.id);
        else
          await setPublicLink(web.ctx, member.workspaceId, template.id, {
            ...limitsOf(request.body),
            renew: action === 'renew',
          });
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        return show(request, reply, page, { status: 400, form: request.body, error });
      }
      const done = ['on', 'limits', 'renew', 'off'].includes(action) ? action : 'limits';
      return reply.redirect(`/templates/${template.id}/public-link?done=${done}`, 303);
    }),
  );
}

/** The link's view, or null once the 404 page is answered (a token that opens nothing). */
async function opened(web: Web, request: FastifyRequest, reply: FastifyReply, token: string) {
  try {
    return await openPublicLink(web.ctx, token);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not-found') {
      web.notFound(request, reply);
      return null;
    }
    throw error;
  }
}

type Link = Awaited<ReturnType<typeof openPublicLink>>;
type State = { status: number; form: Form; errors: FieldErrors };

/** The sentence of a refused attempt, as the sign-up's: when to try again. */
function tooMany(tr: Translator, retryAfterSeconds: number): string {
  return tr.t('publicLink.refusal.tooMany', { minutes: Math.max(1, Math.ceil(retryAfterSeconds / 60)) });
}

/**
 * The visitor's language (ui/page-language.ts: their switch's choice, their browser's, else
 * the workspace's default): the pages, the code mail, and the document made for them.
 */
const visitorOf = (request: FastifyRequest, reply: FastifyReply, link: Link) =>
  visitorTranslator(request, reply, link.defaultLanguage);

/** The visitor's first step: their name and email (a code is mailed). */
function linkRoutes(web: Web, app: FastifyInstance) {
  const page = (request: FastifyRequest, reply: FastifyReply, token: string, link: Link, state: State) => {
    const tr = visitorOf(request, reply, link);
    return web.render(request, reply, state.status, {
      title: link.title,
      tr,
      stylesheet: link.brand.accent ? brandStylesheetPath(link.brand.accent) : null,
      body: (csrf) => publicLinkView(tr, link, token, state.form, state.errors, csrf),
    });
  };
  app.get<{ Params: TokenParams }>('/t/:token', async (request, reply) => {
    const link = await opened(web, request, reply, request.params.token);
    return link && page(request, reply, request.params.token, link, { status: 200, form: {}, errors: {} });
  });
  app.post<{ Params: TokenParams; Body: Form }>('/t/:token', async (request, reply) => {
    const { token } = request.params;
    const link = await opened(web, request, reply, token);
    if (!link) return reply;
    const form = request.body ?? {};
    const attempt = await takePublicLinkAttempt(
      web.deps.accountLimiter,
      { clientIp: request.ip },
      web.ctx.clock.now().getTime(),
    );
    if (!attempt.allowed) {
      reply.header('retry-after', String(attempt.retryAfterSeconds));
      const errors = { email: tooMany(visitorOf(request, reply, link), attempt.retryAfterSeconds) };
      return page(request, reply, token, link, { status: 429, form, errors });
    }
    try {
      const { requestId } = await requestPublicLinkCode(web.ctx, token, {
        fullName: formText(form, 'fullName'),
        email: formText(form, 'email'),
        clientIp: request.ip,
        acceptLanguage: visitorOf(request, reply, link).language,
      });
      return reply.redirect(`/t/${token}/confirm/${requestId}`, 303);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      const over = error.details.overAllowance;
      if (over) reply.header('retry-after', String(over.retryAfterSeconds));
      const errors = sentencesIn(error, visitorOf(request, reply, link));
      return page(request, reply, token, link, { status: over ? 429 : 400, form, errors });
    }
  });
}

/** The visitor's second step: the code; confirmed, their document's signing page. */
function codeRoutes(web: Web, app: FastifyInstance) {
  const codePage = async (
    request: FastifyRequest<{ Params: RequestParams }>,
    reply: FastifyReply,
    state: { status: number; form: Form; error: InputError | null },
  ) => {
    const { token, requestId } = request.params;
    const link = await opened(web, request, reply, token);
    if (!link) return reply;
    const found = uuid.test(requestId)
      ? await publicLinkRequest(web.ctx, token, requestId).catch((error: unknown) => {
          if (error instanceof ApiError && error.code === 'not-found') return null;
          throw error;
        })
      : null;
    if (!found) return web.notFound(request, reply);
    const path = `/t/${token}/confirm/${requestId}`;
    const tr = visitorOf(request, reply, link);
    const errors = state.error ? sentencesIn(state.error, tr) : {};
    return web.render(request, reply, state.status, {
      title: link.title,
      tr,
      stylesheet: link.brand.accent ? brandStylesheetPath(link.brand.accent) : null,
      body: (csrf) => publicCodeView(tr, link, token, path, found.sentTo, state.form, errors, csrf),
    });
  };
  app.get<{ Params: RequestParams }>('/t/:token/confirm/:requestId', (request, reply) =>
    codePage(request, reply, { status: 200, form: {}, error: null }),
  );
  app.post<{ Params: RequestParams; Body: Form }>('/t/:token/confirm/:requestId', async (request, reply) => {
    const { token, requestId } = request.params;
    if (!uuid.test(requestId)) return web.notFound(request, reply);
    try {
      const code = formText(request.body, 'code');
      const { signingPath } = await confirmPublicLinkCode(
        web.ctx,
        token,
        requestId,
        code,
        visitorChoice(request, reply),
      );
      return reply.redirect(signingPath, 303);
    } catch (error) {
      if (error instanceof InputError)
        return codePage(request, reply, { status: 400, form: request.body ?? {}, error });
      if (error instanceof ApiError && error.code === 'not-found') return web.notFound(request, reply);
      throw error;
    }
  });
}

export function publicLinkPages(web: Web) {
  return async (app: FastifyInstance) => {
    settingsRoutes(web, app);
    linkRoutes(web, app);
    codeRoutes(web, app);
  };
}
