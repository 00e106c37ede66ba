// The pages of a template's public link (public-link.pages.ts): the sender's settings, and
// the visitor's two steps (their name and email, then the code mailed to them).
import type { MessageKey, Translator } from '../i18n/messages.ts';
import type { FieldErrors } from '../input-error.ts';
import {
  type PublicLinkSettings,
  type PublicLinkView,
  publicCodeValidityMinutes,
} from '../templates/public-links.ts';
import type { TemplateDetail } from '../templates/templates.service.ts';
import { csrfField, type Form, fieldError, formText, invalidAttrs, notice } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { richText } from '../ui/rich-text.ts';
import { sentWithSignetFooter } from '../ui/shell.ts';

function textInput(
  id: string,
  label: string,
  form: Form,
  errors: FieldErrors,
  extra: { type?: string; autocomplete?: string; hint?: string; inputmode?: string } = {},
): SafeHtml {
  return html`<div class="field"><label for="${id}">${label}</label>${extra.hint ? html`<p class="hint" id="${id}-hint">${extra.hint}</p>` : null}<input id="${id}" name="${id}" type="${extra.type ?? 'text'}" value="${formText(form, id)}"${extra.autocomplete ? html` autocomplete="${extra.autocomplete}"` : null}${extra.inputmode ? html` inputmode="${extra.inputmode}"` : null} ${invalidAttrs(id, errors[id])}>${fieldError(id, errors[id])}</div>`;
}

/** The sender's page, in the member's language: the link (or why the template cannot have one), its limits and uses. */
export function publicLinkSettingsView(
  page: {
    template: TemplateDetail;
    settings: PublicLinkSettings;
    /**
     * The workspace's public-link code mails today; once `reached` (its limit), the page says
     * so in its own words (publicLink.settings.capReached), not in `reached`'s English.
     */
    mailsToday: { mails: number; limit: number; reached: string | null };
    url: string | null;
    problem: MessageKey | null;
    form: Form;
    errors: FieldErrors;
    done: SafeHtml | null;
    csrf: string;
  },
  tr: Translator,
): SafeHtml {
  const { template, settings, url, problem, form, errors, csrf, mailsToday } = page;
  const back = `/templates/${template.id}`;
  const action = `${back}/public-link`;
  const limits = html`${textInput('maxUses', tr.t('publicLink.settings.maxUses'), form, errors, { type: 'number', inputmode: 'numeric' })}${textInput('endsOn', tr.t('publicLink.settings.endsOn'), form, errors, { type: 'date', hint: tr.t('publicLink.settings.endsOnHint') })}`;
  return html`<p><a href="${back}">← ${template.name}</a></p>
<div class="section-title"><h1>${tr.t('publicLink.settings.title')}</h1></div>
${page.done}${errors.publicLink ? notice('error', errors.publicLink) : null}${mailsToday.reached ? notice('error', tr.t('publicLink.settings.capReached', { limit: mailsToday.limit })) : null}
<section class="card">
<p>${tr.t('publicLink.settings.intro', { template: template.name })}</p>
${
  problem
    ? notice('info', tr.t(problem))
    : url
      ? html`<p>${richText(tr, 'publicLink.settings.link', { uses: settings.uses })}</p>
<p><a class="public-link" href="${url}">${url}</a></p>
<p class="small muted">${tr.t('publicLink.settings.mailsToday', { mails: mailsToday.mails, limit: mailsToday.limit })}</p>
<form method="post" action="${action}" novalidate>${csrfField(csrf)}<input type="hidden" name="action" value="limits">${limits}
<div class="actions"><button class="button button-primary" type="submit">${tr.t('publicLink.settings.saveLimits')}</button></div></form>
<form method="post" action="${action}" class="actions">${csrfField(csrf)}<input type="hidden" name="action" value="renew"><button class="button button-secondary" type="submit">${tr.t('publicLink.settings.renew')}</button></form>
<form method="post" action="${action}" class="actions">${csrfField(csrf)}<input type="hidden" name="action" value="off"><button class="button button-danger" type="submit">${tr.t('publicLink.settings.turnOff')}</button></form>`
      : html`<form method="post" action="${action}" novalidate>${csrfField(csrf)}<input type="hidden" name="action" value="on">${limits}
<div class="actions"><button class="button button-primary" type="submit">${tr.t('publicLink.settings.turnOn')}</button></div></form>`
}
</section>`;
}

/** The visitor's first step: who they are, in their language (`tr`). */
export function publicLinkView(
  tr: Translator,
  link: PublicLinkView,
  token: string,
  form: Form,
  errors: FieldErrors,
  csrf: string,
) {
  return html`<div class="narrow">
<p class="muted">${richText(tr, 'sign.from', { sender: link.senderName })}</p>
<h1>${link.title}</h1>
${
  link.closed
    ? notice('info', tr.t(link.closed))
    : html`<div class="card">
<p>${tr.t('publicLink.intro')}</p>
<form method="post" action="/t/${token}" novalidate>${csrfField(csrf)}
${textInput('fullName', tr.t('publicLink.fullName'), form, errors, { autocomplete: 'name', hint: tr.t('publicLink.fullNameHint') })}
${textInput('email', tr.t('publicLink.email'), form, errors, { type: 'email', autocomplete: 'email' })}
<div class="actions"><button class="button button-primary" type="submit">${tr.t('publicLink.mailCode')}</button></div>
</form></div>`
}
</div>
${sentWithSignetFooter(link.brand, tr)}`;
}

/** The visitor's second step: the code mailed to them (`sentTo` masked: the URL may be in other hands). */
export function publicCodeView(
  tr: Translator,
  link: PublicLinkView,
  token: string,
  path: string,
  sentTo: string,
  form: Form,
  errors: FieldErrors,
  csrf: string,
) {
  return html`<div class="narrow">
<p class="muted">${richText(tr, 'sign.from', { sender: link.senderName })}</p>
<h1>${link.title}</h1>
<div class="card">
<p>${richText(tr, 'publicLink.codeSent', { email: sentTo, minutes: publicCodeValidityMinutes })}</p>
<form method="post" action="${path}" novalidate>${csrfField(csrf)}
${textInput('code', tr.t('publicLink.code'), form, errors, { autocomplete: 'one-time-code', inputmode: 'numeric' })}
<div class="actions"><button class="button button-primary" type="submit">${tr.t('publicLink.open')}</button></div>
</form>
<p class="small muted">${richText(tr, 'publicLink.noMail', {}, { link: (content) => html`<a href="/t/${token}">${content}</a>` })}</p>
</div></div>
${sentWithSignetFooter(link.brand, tr)}`;
}
