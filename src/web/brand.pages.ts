// Settings › Brand (owners; issue 52), in the member's language: the company's name as its
// recipients know it, the accent colour of their pages (refused with its contrast when too
// light: workspaces/brand.ts says why 4.5:1 against the page), and whether their pages end
// with "Sent with Signet". This page, like every page of the web app, keeps Signet's look.
//   GET  /settings/brand
//   POST /settings/brand   displayName=…&accent=#rrggbb&sentWithSignet=true
import type { FastifyInstance } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import type { Translator } from '../i18n/messages.ts';
import { sentencesIn } from '../i18n/refusals.ts';
import { type FieldErrors, InputError } from '../input-error.ts';
import { csrfField, fieldError, formText, notice } from '../ui/forms.ts';
import { html, raw, type SafeHtml } from '../ui/html.ts';
import { type Brand, maxDisplayNameLength, setWorkspaceBrand, workspaceBrand } from '../workspaces/brand.ts';
import { type Form, forOwners, type Web } from './kit.ts';
import { memberTranslator } from './member-language.ts';

/** The form's fields as the owner left them: the saved brand, or what was posted. */
export interface BrandForm {
  displayName: string;
  accent: string;
  sentWithSignet: boolean;
}

/** A text input with its hint and, when refused, its sentence, both read with it. */
function textField(
  id: keyof BrandForm,
  label: string,
  hint: string,
  value: string,
  error: string | undefined,
  extra: SafeHtml,
) {
  const describedBy = error ? `${id}-error ${id}-hint` : `${id}-hint`;
  return html`<div class="field">
<label for="${id}">${label}</label>
<span class="hint" id="${id}-hint">${hint}</span>
<input id="${id}" name="${id}" type="text" value="${value}" ${extra} ${error ? raw('aria-invalid="true" ') : ''}aria-describedby="${describedBy}">
${fieldError(id, error)}
</div>`;
}

export function brandView(
  member: SessionUser,
  csrf: string,
  form: BrandForm,
  tr: Translator,
  done: boolean,
  errors: FieldErrors = {},
): SafeHtml {
  const workspace = member.workspaceName;
  return html`<h1>${tr.t('settings.brand.title')}</h1>
${done ? notice('success', tr.t('settings.brand.done', { workspace })) : ''}
<div class="card">
<p>${tr.t('settings.brand.intro', { workspace })}</p>
<form method="post" action="/settings/brand" novalidate>${csrfField(csrf)}
${textField('displayName', tr.t('settings.brand.displayName'), tr.t('settings.brand.displayNameHint', { workspace }), form.displayName, errors.displayName, html`maxlength="${maxDisplayNameLength}" autocomplete="organization"`)}
${textField('accent', tr.t('settings.brand.accent'), tr.t('settings.brand.accentHint'), form.accent, errors.accent, html`maxlength="7" autocomplete="off" spellcheck="false" inputmode="text"`)}
<div class="field"><label class="checkbox"><input id="sentWithSignet" name="sentWithSignet" type="checkbox" value="true"${form.sentWithSignet ? raw(' checked') : ''}> ${tr.t('settings.brand.sentWith')}</label></div>
<button class="button button-primary" type="submit">${tr.t('form.save')}</button>
</form>
</div>`;
}

const formOf = (brand: Brand): BrandForm => ({
  displayName: brand.displayName ?? '',
  accent: brand.accent ?? '',
  sentWithSignet: brand.sentWithSignet,
});

export function brandPages(web: Web) {
  const { ctx } = web;
  return async function register(app: FastifyInstance) {
    app.get<{ Querystring: Form }>(
      '/settings/brand',
      forOwners(web, async (request, reply, member) => {
        const brand = await workspaceBrand(ctx, member.workspaceId);
        const tr = memberTranslator(request, reply);
        const done = formText(request.query, 'done') === 'saved';
        return web.render(request, reply, 200, {
          title: tr.t('settings.brand.title'),
          current: 'account',
          tr,
          body: (csrf) => brandView(member, csrf, formOf(brand), tr, done),
        });
      }),
    );

    app.post<{ Body: Form }>(
      '/settings/brand',
      forOwners(web, async (request, reply, member) => {
        const form: BrandForm = {
          displayName: formText(request.body, 'displayName'),
          accent: formText(request.body, 'accent'),
          sentWithSignet: formText(request.body, 'sentWithSignet') === 'true',
        };
        try {
          await setWorkspaceBrand(ctx, member.workspaceId, form);
        } catch (error) {
          if (!(error instanceof InputError)) throw error;
          const tr = memberTranslator(request, reply);
          const errors = sentencesIn(error, tr);
          return web.render(request, reply, 400, {
            title: tr.t('settings.brand.title'),
            current: 'account',
            tr,
            body: (csrf) => brandView(member, csrf, form, tr, false, errors),
          });
        }
        return reply.redirect('/settings/brand?done=saved', 303);
      }),
    );
  };
}
