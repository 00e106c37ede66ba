// Settings › Time zone (owners; issue 36 §6), in the member's language: the zone the web app
// and the mails show the workspace's times in, named ("2026-11-26 14:03 Europe/Berlin"). UTC
// until an owner chooses another from the IANA list; the certificate and the API stay in UTC.
//   GET  /settings/time-zone
//   POST /settings/time-zone   timeZone=Europe/Berlin
import type { FastifyInstance } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import type { Translator } from '../i18n/messages.ts';
import { sentencesIn } from '../i18n/refusals.ts';
import { InputError } from '../input-error.ts';
import { csrfField, fieldError, invalidAttrs, notice } from '../ui/forms.ts';
import { html, raw, type SafeHtml } from '../ui/html.ts';
import { setWorkspaceTimeZone, timeZones } from '../workspaces/workspaces.service.ts';
import { type Form, formText, forOwners, type Web } from './kit.ts';
import { formatTime } from './layout.ts';
import { memberTranslator } from './member-language.ts';

export function timeZoneView(
  member: SessionUser,
  csrf: string,
  now: Date,
  tr: Translator,
  done: boolean,
  error?: string,
): SafeHtml {
  const time = formatTime(now.toISOString(), member.timeZone);
  return html`<h1>${tr.t('settings.timeZone.title')}</h1>
${done ? notice('success', tr.t('settings.timeZone.done', { zone: member.timeZone })) : ''}
<div class="card">
<p>${tr.t('settings.timeZone.intro', { workspace: member.workspaceName, time })}</p>
<form method="post" action="/settings/time-zone" novalidate>${csrfField(csrf)}
<div class="field">
<label for="timeZone">${tr.t('settings.timeZone.title')}</label>
<select id="timeZone" name="timeZone" ${invalidAttrs('timeZone', error)}>${timeZones.map((zone) => html`<option${zone === member.timeZone ? raw(' selected') : ''}>${zone}</option>`)}</select>
${fieldError('timeZone', error)}
</div>
<button class="button button-primary" type="submit">${tr.t('form.save')}</button>
</form>
</div>`;
}

export function timeZonePages(web: Web) {
  const { ctx } = web;
  return async function register(app: FastifyInstance) {
    app.get<{ Querystring: Form }>(
      '/settings/time-zone',
      forOwners(web, (request, reply, member) => {
        const tr = memberTranslator(request, reply);
        const done = formText(request.query, 'done') === 'saved';
        return web.render(request, reply, 200, {
          title: tr.t('settings.timeZone.title'),
          current: 'account',
          tr,
          body: (csrf) => timeZoneView(member, csrf, ctx.clock.now(), tr, done),
        });
      }),
    );

    app.post<{ Body: Form }>(
      '/settings/time-zone',
      forOwners(web, async (request, reply, member) => {
        try {
          await setWorkspaceTimeZone(ctx, member.workspaceId, formText(request.body, 'timeZone'));
        } catch (error) {
          if (!(error instanceof InputError)) throw error;
          const tr = memberTranslator(request, reply);
          const sentence = sentencesIn(error, tr).timeZone;
          return web.render(request, reply, 400, {
            title: tr.t('settings.timeZone.title'),
            current: 'account',
            tr,
            body: (csrf) => timeZoneView(member, csrf, ctx.clock.now(), tr, false, sentence),
          });
        }
        return reply.redirect('/settings/time-zone?done=saved', 303);
      }),
    );
  };
}
