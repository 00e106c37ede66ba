// Settings › Language (owners; issue 51), in the member's language: the workspace's default
// language, the one its recipients read their mails and signing pages in when the sender chose
// none for them. English until an owner chooses another; each recipient can still switch on
// their page.
//   GET  /settings/language
//   POST /settings/language   language=de
import type { FastifyInstance } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import { endonym, type Language, languages } from '../i18n/languages.ts';
import type { Translator } from '../i18n/messages.ts';
import { sentencesIn } from '../i18n/refusals.ts';
import { InputError } from '../input-error.ts';
import { csrfField, fieldError, invalidAttrs, notice } from '../ui/forms.ts';
import { html, raw, type SafeHtml } from '../ui/html.ts';
import { setWorkspaceLanguage, workspaceLanguage } from '../workspaces/workspaces.service.ts';
import { type Form, formText, forOwners, type Web } from './kit.ts';
import { memberTranslator } from './member-language.ts';

export function languageView(
  member: SessionUser,
  csrf: string,
  current: Language,
  tr: Translator,
  done: boolean,
  error?: string,
): SafeHtml {
  const workspace = member.workspaceName;
  return html`<h1>${tr.t('settings.language.title')}</h1>
${done ? notice('success', tr.t('settings.language.done', { workspace, language: endonym(current) })) : ''}
<div class="card">
<p>${tr.t('settings.language.intro', { workspace })}</p>
<form method="post" action="/settings/language" novalidate>${csrfField(csrf)}
<div class="field">
<label for="language">${tr.t('settings.language.label')}</label>
<select id="language" name="language" ${invalidAttrs('language', error)}>${languages.map(
    (language) =>
      html`<option value="${language}" lang="${language}"${language === current ? raw(' selected') : ''}>${endonym(language)}</option>`,
  )}</select>
${fieldError('language', error)}
</div>
<button class="button button-primary" type="submit">${tr.t('form.save')}</button>
</form>
</div>`;
}

export function languagePages(web: Web) {
  const { ctx } = web;
  return async function register(app: FastifyInstance) {
    app.get<{ Querystring: Form }>(
      '/settings/language',
      forOwners(web, async (request, reply, member) => {
        const current = await workspaceLanguage(ctx, member.workspaceId);
        const tr = memberTranslator(request, reply);
        const done = formText(request.query, 'done') === 'saved';
        return web.render(request, reply, 200, {
          title: tr.t('settings.language.title'),
          current: 'account',
          tr,
          body: (csrf) => languageView(member, csrf, current, tr, done),
        });
      }),
    );

    app.post<{ Body: Form }>(
      '/settings/language',
      forOwners(web, async (request, reply, member) => {
        try {
          await setWorkspaceLanguage(ctx, member.workspaceId, formText(request.body, 'language'));
        } catch (error) {
          if (!(error instanceof InputError)) throw error;
          const current = await workspaceLanguage(ctx, member.workspaceId);
          const tr = memberTranslator(request, reply);
          const sentence = sentencesIn(error, tr).language;
          return web.render(request, reply, 400, {
            title: tr.t('settings.language.title'),
            current: 'account',
            tr,
            body: (csrf) => languageView(member, csrf, current, tr, false, sentence),
          });
        }
        return reply.redirect('/settings/language?done=saved', 303);
      }),
    );
  };
}
