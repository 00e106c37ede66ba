// No sentence of the web app stays outside the catalogues (issue 51): the account pages a
// visitor reaches (sign-up, log-in, the password reset, their mails' landing pages), "Save as
// template", a public link's visitor pages, the frame of every page (the navigation bar, the
// language switch) and the mails to members and visitors (sign-up, reset, a decline, a paused
// endpoint), rendered in the pseudo-language, leave no English word but the values they show.
// And every page view of the web app (an exported `…View` of src/web/) and every mail of
// src/mail/templates.ts is rendered in the pseudo-language by a test of test/i18n: a page or a
// mail added without one fails here.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SessionUser } from '../../src/accounts/accounts.service.ts';
import { endonym, languages } from '../../src/i18n/languages.ts';
import {
  accountExistsMail,
  declinedMail,
  endpointPausedMail,
  passwordResetMail,
  passwordResetNoAccountMail,
  signupConfirmationMail,
} from '../../src/mail/templates.ts';
import type { PublicLinkView } from '../../src/templates/public-links.ts';
import { renderToString } from '../../src/ui/html.ts';
import {
  checkInboxView,
  confirmSignupView,
  expiredLinkView,
  expiredResetView,
  loginView,
  passwordResetRequestView,
  passwordResetSentView,
  passwordResetView,
  signupView,
} from '../../src/web/auth.views.ts';
import { brandView } from '../../src/web/brand.pages.ts';
import { appPage } from '../../src/web/layout.ts';
import { publicCodeView, publicLinkView } from '../../src/web/public-link.views.ts';
import { saveAsTemplateView } from '../../src/web/templates.views.ts';
import { englishLeft, pseudoTranslator, readableText } from '../support/pseudo-language.ts';

const tr = pseudoTranslator();
const values = ['ola@firma.example', 'Kowalski i Syn', 'Umowa serwisowa', 'Ola', ...languages.map(endonym)];
const left = (markup: string) => englishLeft(readableText(markup), values);

test('the visitor’s account pages in the pseudo-language leave no English word but the values they show', () => {
  const form = { email: 'ola@firma.example', workspaceName: 'Kowalski i Syn' };
  const errors = {
    email: tr.t('auth.refusal.emailInvalid'),
    password: tr.t('auth.refusal.passwordShort', { count: 10 }),
    workspaceName: tr.t('auth.refusal.workspaceNameMissing'),
  };
  const pages = {
    signup: signupView(tr, 'token', form, errors),
    checkInbox: checkInboxView(tr, 'ola@firma.example'),
    checkInboxNone: checkInboxView(tr, null),
    expiredLink: expiredLinkView(tr),
    confirm: confirmSignupView(tr, 'token', 't', {
      workspaceName: 'Kowalski i Syn',
      email: 'ola@firma.example',
    }),
    login: loginView(tr, 'token', form, '/documents', null),
    resetRequest: passwordResetRequestView(tr, 'token', form, errors),
    resetSent: passwordResetSentView(tr, 'ola@firma.example'),
    resetSentNone: passwordResetSentView(tr, null),
    reset: passwordResetView(tr, 'token', 't', { email: 'ola@firma.example' }, errors),
    expiredReset: expiredResetView(tr),
  };
  for (const [name, page] of Object.entries(pages)) assert.deepEqual(left(renderToString(page)), [], name);
});

test('“Save as template” and the frame of a member’s page in the pseudo-language leave no English word', () => {
  const member = {
    email: 'ola@firma.example',
    role: 'owner',
    workspaceName: 'Kowalski i Syn',
    workspaceId: 'w1',
    timeZone: 'Europe/Warsaw',
  } as SessionUser;
  const body = saveAsTemplateView(
    { id: 'd1', title: 'Umowa serwisowa' },
    'Umowa serwisowa',
    { name: tr.t('template.problem.name', { max: 200 }) },
    'token',
    tr,
  );
  const page = appPage({ title: tr.t('doc.template.save'), body, session: member, csrfToken: 'token', tr });
  assert.match(page, /<html lang="en-XA" dir="ltr">/);
  assert.deepEqual(left(page), []);
  const visitor = appPage({
    title: tr.t('auth.title.login'),
    body: loginView(tr, 'token', {}, '/documents', null),
    session: null,
    csrfToken: 'token',
    tr,
    languageSwitchPath: '/login',
  });
  assert.deepEqual(left(visitor), []);
});

test('Settings › Brand in the pseudo-language leaves no English word but the values it shows', () => {
  const member = {
    email: 'ola@firma.example',
    role: 'owner',
    workspaceName: 'Kowalski i Syn',
  } as SessionUser;
  const form = { displayName: 'Kowalski i Syn', accent: '#ffcc00', sentWithSignet: true };
  const errors = {
    displayName: tr.t('settings.brand.refusal.displayNameLong', { max: 100 }),
    accent: tr.t('settings.brand.refusal.accentContrast', { colour: '#ffcc00', ratio: 1.38, minimum: 4.5 }),
  };
  for (const page of [
    brandView(member, 'csrf', form, tr, true),
    brandView(member, 'csrf', form, tr, false, errors),
  ])
    assert.deepEqual(
      englishLeft(readableText(renderToString(page)), [...values, '#ffcc00', '#1d56c8', 'WCAG AA']),
      [],
    );
});

test('a public link’s visitor pages in the pseudo-language leave no English word but the values they show', () => {
  const link: PublicLinkView = {
    workspaceId: 'w1',
    templateId: 't1',
    title: 'Umowa serwisowa',
    senderName: 'Kowalski i Syn',
    brand: { accent: '#0b6e4f', sentWithSignet: true },
    defaultLanguage: 'pl',
    closed: null,
  };
  const errors = { fullName: tr.t('publicLink.refusal.fullName'), email: tr.t('publicLink.refusal.email') };
  const form = { fullName: 'Ola', email: 'ola@firma.example' };
  const pages = {
    open: publicLinkView(tr, link, 'token', form, errors, 'csrf'),
    closed: publicLinkView(tr, { ...link, closed: 'publicLink.closed.usedUp' }, 'token', {}, {}, 'csrf'),
    code: publicCodeView(
      tr,
      link,
      'token',
      '/t/token/confirm/r',
      'ola@firma.example',
      {},
      {
        code: tr.t('publicLink.refusal.codeWrong'),
      },
      'csrf',
    ),
  };
  for (const [name, page] of Object.entries(pages)) assert.deepEqual(left(renderToString(page)), [], name);
});

test('every mail to a member or a visitor in the pseudo-language leaves no English word but its values', () => {
  const link = 'https://signet.example/link';
  const mails = {
    signup: signupConfirmationMail(tr, { link, workspaceName: 'Kowalski i Syn', validHours: 24 }),
    accountExists: accountExistsMail(tr, { signInLink: link }),
    reset: passwordResetMail(tr, { link, validMinutes: 30 }),
    resetNoAccount: passwordResetNoAccountMail(tr, { signUpLink: link, logInLink: link }),
    declined: declinedMail(tr, {
      documentTitle: 'Umowa serwisowa',
      recipientName: 'Ola',
      recipientEmail: 'ola@firma.example',
      reason: 'Brakuje ceny.',
      documentLink: link,
    }),
    declinedNoReason: declinedMail(tr, {
      documentTitle: 'Umowa serwisowa',
      recipientName: 'Ola',
      recipientEmail: 'ola@firma.example',
      reason: null,
      documentLink: link,
    }),
    paused: endpointPausedMail(tr, { url: link, failures: 20, link }),
  };
  for (const [name, mail] of Object.entries(mails))
    assert.deepEqual(
      englishLeft(`${mail.subject}\n${mail.text}`, [...values, link, 'Brakuje ceny.']),
      [],
      name,
    );
});

test('every page view of the web app is rendered in the pseudo-language by a test of test/i18n', () => {
  const web = join(import.meta.dirname, '..', '..', 'src', 'web');
  const views = readdirSync(web)
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) =>
      [...readFileSync(join(web, file), 'utf8').matchAll(/^export function (\w+View)\b/gm)].map(
        ([, name]) => name as string,
      ),
    );
  assert.ok(views.length >= 40, `${views.length} views found`);
  const pseudoTests = readdirSync(import.meta.dirname)
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => readFileSync(join(import.meta.dirname, file), 'utf8'))
    .filter((source) => source.includes('pseudoTranslator()'));
  const unrendered = views.filter(
    (name) => !pseudoTests.some((source) => new RegExp(`\\b${name}\\(`).test(source)),
  );
  assert.deepEqual(unrendered, []);
});

test('every mail Signet writes is rendered in the pseudo-language by a test of test/i18n', () => {
  const source = readFileSync(join(import.meta.dirname, '..', '..', 'src', 'mail', 'templates.ts'), 'utf8');
  const mails = [...source.matchAll(/^export function (\w+Mail)\b/gm)].map(([, name]) => name as string);
  assert.ok(mails.length >= 12, `${mails.length} mails found`);
  const pseudoTests = readdirSync(import.meta.dirname)
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => readFileSync(join(import.meta.dirname, file), 'utf8'))
    .filter((text) => text.includes('pseudoTranslator()'));
  assert.deepEqual(
    mails.filter((name) => !pseudoTests.some((text) => new RegExp(`\\b${name}\\(`).test(text))),
    [],
  );
});
