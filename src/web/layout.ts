// The web application's page: the shared shell (ui/shell.ts) with /assets/app.css and
// /assets/app.js (ui/assets.ts), and a navigation bar for members. Pages run no inline
// script and load nothing from elsewhere (ui/security.ts).
import type { SessionUser } from '../accounts/accounts.service.ts';
import { type Translator, translator } from '../i18n/messages.ts';
import { csrfField } from '../ui/forms.ts';
import { html, raw, type SafeHtml } from '../ui/html.ts';
import { languageSwitch } from '../ui/page-language.ts';
import { faviconLink, htmlDocument } from '../ui/shell.ts';

export type NavArea = 'documents' | 'templates' | 'integrations' | 'billing' | 'members' | 'account' | null;

export interface PageOptions {
  title: string;
  body: SafeHtml;
  /** The signed-in member, for the navigation bar; null on sign-in and sign-up pages. */
  session: SessionUser | null;
  csrfToken: string;
  current?: NavArea;
  /**
   * A page that updates itself this often (a progress page): without JavaScript it reloads (a
   * meta refresh inside <noscript>); with it, app.js fetches the page again and puts its main
   * part in place, nothing reloaded (and no reload a screen reader or a keyboard user has to
   * start over from: axe's meta-refresh rule, WCAG 2.2.1).
   */
  refreshSeconds?: number;
  /** The page's language (`<html lang dir>`); English when none is given. */
  tr?: Translator;
  /** A visitor's page (a public link): the language switch at its foot, a GET form to this path. */
  languageSwitchPath?: string | null;
  /** A recipient's page (a public link): the sender's brand stylesheet (ui/assets.ts brandStylesheetPath). */
  stylesheet?: string | null;
}

export { formatTime } from '../ui/time.ts';

function navLink(href: string, label: string, area: NavArea, current: NavArea | undefined): SafeHtml {
  return html`<li><a href="${href}"${area === current ? raw(' aria-current="page"') : ''}>${label}</a></li>`;
}

/** The navigation bar, in the page's language (English on the pages not in the catalogues yet). */
function navigation(
  session: SessionUser,
  csrfToken: string,
  current: NavArea | undefined,
  tr: Translator,
): SafeHtml {
  return html`<nav class="site-nav" aria-label="${tr.t('app.nav.label')}">
<div class="inner">
<a class="brand" href="/documents">Signet <span>&middot; ${session.workspaceName}</span></a>
<ul>
${navLink('/documents', tr.t('app.nav.documents'), 'documents', current)}
${navLink('/templates', tr.t('app.nav.templates'), 'templates', current)}
${navLink('/settings/integrations', tr.t('app.nav.integrations'), 'integrations', current)}
${session.role === 'owner' ? navLink('/settings/billing', tr.t('app.nav.billing'), 'billing', current) : ''}
${navLink('/settings/members', tr.t('app.nav.members'), 'members', current)}
${navLink('/settings/account', tr.t('app.nav.account'), 'account', current)}
<li><form method="post" action="/logout">${csrfField(csrfToken)}<button class="link" type="submit">${tr.t('app.nav.logOut')}</button></form></li>
</ul>
</div>
</nav>`;
}

export function appPage(options: PageOptions): string {
  return htmlDocument({
    title: `${options.title} · Signet`,
    ...(options.tr ? { language: options.tr } : {}),
    head: html`${faviconLink}
<link rel="stylesheet" href="/assets/app.css">${
      options.stylesheet
        ? html`
<link rel="stylesheet" href="${options.stylesheet}">`
        : ''
    }
<script src="/assets/app.js" defer></script>${
      options.refreshSeconds
        ? html`
<noscript><meta http-equiv="refresh" content="${options.refreshSeconds}"></noscript>`
        : ''
    }`,
    body: html`${options.session ? navigation(options.session, options.csrfToken, options.current, options.tr ?? translator('en')) : ''}
<main class="container" id="main"${options.refreshSeconds ? html` data-refresh="${options.refreshSeconds}"` : ''}>
${options.body}
</main>${
      options.tr && options.languageSwitchPath
        ? html`
<footer class="container"><div class="narrow">${languageSwitch(options.tr, options.languageSwitchPath)}</div></footer>`
        : ''
    }`,
  });
}
