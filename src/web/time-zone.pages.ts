// Settings › Time zone (owners; issue 36 §6): the zone the web app and the mails show the
// workspace's times in, named ("2026-11-26 14:03 Europe/Berlin"). UTC until an owner chooses
// another from the IANA list; the certificate and the API stay in UTC.
//   GET  /settings/time-zone
//   POST /settings/time-zone   timeZone=Europe/Berlin
import type { FastifyInstance } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import { InputError } from '../input-error.ts';
import { csrfField, fieldError, invalidAttrs, notice } from '../ui/forms.ts';
import { html, raw, type SafeHtml } from '../ui/html.ts';
import { setWorkspaceTimeZone, timeZones } from '../workspaces/workspaces.service.ts';
import { type Form, formText, forOwners, type Web } from './kit.ts';
import { formatTime } from './layout.ts';

function timeZoneView(member: SessionUser, csrf: string, now: Date, done: boolean, error?: string): SafeHtml {
  return html`<h1>Time zone</h1>
${done ? notice('success', `Times are shown in ${member.timeZone} from now on.`) : ''}
<div class="card">
<p>The web app and the mails of ${member.workspaceName} show times in its time zone, naming it: now is ${formatTime(now.toISOString(), member.timeZone)}. The certificate of completion and the API keep UTC.</p>
<form method="post" action="/settings/time-zone" novalidate>${csrfField(csrf)}
<div class="field">
<label for="timeZone">Time zone</label>
<select id="timeZone" name="timeZone" ${invalidAttrs('timeZone', error)}>${timeZones.map((zone) => html`<option${zone === member.timeZone ? raw(' selected') : ''}>${zone}</option>`)}</select>
${fieldError('timeZone', error)}
</div>
<button class="button button-primary" type="submit">Save</button>
</form>
</div>`;
}

export function timeZonePages(web: Web) {
  const { ctx } = web;
  return async function register(app: FastifyInstance) {
    app.get<{ Querystring: Form }>(
      '/settings/time-zone',
      forOwners(web, (request, reply, member) =>
        web.render(request, reply, 200, {
          title: 'Time zone',
          current: 'account',
          body: (csrf) =>
            timeZoneView(member, csrf, ctx.clock.now(), formText(request.query, 'done') === 'saved'),
        }),
      ),
    );

    app.post<{ Body: Form }>(
      '/settings/time-zone',
      forOwners(web, async (request, reply, member) => {
        try {
          await setWorkspaceTimeZone(ctx, member.workspaceId, formText(request.body, 'timeZone'));
        } catch (error) {
          if (!(error instanceof InputError)) throw error;
          return web.render(request, reply, 400, {
            title: 'Time zone',
            current: 'account',
            body: (csrf) => timeZoneView(member, csrf, ctx.clock.now(), false, error.fields.timeZone),
          });
        }
        return reply.redirect('/settings/time-zone?done=saved', 303);
      }),
    );
  };
}
