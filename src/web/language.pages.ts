// Settings › Language (owners; issue 51): the workspace's default language, the one its
// recipients read their mails and signing pages in when the sender chose none for them.
// English until an owner chooses another; each recipient can still switch on their page.
//   GET  /settings/language
//   POST /settings/language   language=de
import type { FastifyInstance } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import { endonym, type Language, languages } from '../i18n/languages.ts';
import { InputError } from '../input-error.ts';
import { csrfField, fieldError, invalidAttrs, notice } from '../ui/forms.ts';
import { html, raw, type SafeHtml } from '../ui/html.ts';
import { setWorkspaceLanguage, workspaceLanguage } from '../workspaces/workspaces.service.ts';
import { type Form, formText, forOwners, type Web } from './kit.ts';

function languageView(
  member: SessionUser,
  csrf: string,
  current: Language,
  done: boolean,
  error?: string,
): SafeHtml {
  return html`<h1>Language</h1>
${done ? notice('success', `Recipients of ${member.workspaceName} read ${endonym(current)} from now on, unless you choose another language for them.`) : ''}
<div class="card">
<p>The language of the mails and signing pages of ${member.workspaceName}'s recipients, when you choose none for a recipient on the document or their template’s role. Each recipient can switch their signing page to another language, and their choice sticks.</p>
<form method="post" action="/settings/language" novalidate>${csrfField(csrf)}
<div class="field">
<label for="language">Recipients' language</label>
<select id="language" name="language" ${invalidAttrs('language', error)}>${languages.map(
    (language) =>
      html`<option value="${language}" lang="${language}"${language === current ? raw(' selected') : ''}>${endonym(language)}</option>`,
  )}</select>
${fieldError('language', error)}
</div>
<button class="button button-primary" type="submit">Save</button>
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
        return web.render(request, reply, 200, {
          title: 'Language',
          current: 'account',
          body: (csrf) => languageView(member, csrf, current, formText(request.query, 'done') === 'saved'),
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
          return web.render(request, reply, 400, {
            title: 'Language',
            current: 'account',
            body: (csrf) => languageView(member, csrf, current, false, error.fields.language),
          });
        }
        return reply.redirect('/settings/language?done=saved', 303);
      }),
    );
  };
}
