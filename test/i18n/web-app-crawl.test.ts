// Every page of the web app, fetched over HTTP in Japanese and in Arabic (issue 51): each GET
// route the server registers is opened as the person it is for (a member who chose the
// language, a visitor whose browser asks for it, a recipient the sender gave it), and each
// POST route is sent an empty form, as a person who presses its button without filling it
// in. Every HTML answer must say `<html lang dir>` in that language and hold no English word
// but the values it shows (englishLeftIn: the English catalogue's words that the language's
// own catalogue does not write). A route added without a place here fails the test: it is
// crawled, or named below as not a page, with the reason.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { direction, endonym, type Language, languages } from '../../src/i18n/languages.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { startBulkSend } from '../../src/templates/bulk-send.ts';
import { setPublicLink } from '../../src/templates/public-links.ts';
import { getTemplate } from '../../src/templates/templates.service.ts';
import { sendPing } from '../../src/webhooks/deliveries.service.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.service.ts';
import { createBulkTemplate, createWaiverTemplate } from '../support/factories.ts';
import {
  createDraftDocument,
  createSentDocument,
  describeEachDatabase,
  pagesPdf,
  recipient,
  testResolver,
  useHarness,
} from '../support/harness.ts';
import { englishLeftIn, readableText } from '../support/pseudo-language.ts';
import { mailsTo, type WebClient, type WebResponse, webPeople } from '../support/web-client.ts';

/** Each route the server registered, `METHOD /path/:param` (HEAD and OPTIONS left out), from Fastify's own tree. */
function registeredRoutes(app: FastifyInstance): string[] {
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const node = /^((?:[│ ] {3})*)(?:├── |└── )(\S+) \(([A-Z, ]+)\)$/.exec(line);
    if (!node) continue;
    const depth = (node[1] ?? '').length / 4;
    stack.length = depth;
    stack.push(node[2] ?? '');
    const path = stack.join('').replace(/^\/+/, '/');
    for (const method of (node[3] ?? '').split(', '))
      if (method === 'GET' || method === 'POST') routes.push(`${method} ${path}`);
  }
  return routes;
}

/** Routes under these prefixes answer no page of sentences: the API (codes, never sentences, issue 51) and static files. */
const notPagePrefixes = ['/v1/', '/assets/'];

/** Other routes that answer no page of sentences, and why: they are not crawled. Every other route is, below. */
const notPages: Record<string, string> = {
  'GET /files/:documentId/:file': 'a PDF download',
  'GET /favicon.ico': 'an icon',
  'GET /healthz': 'a health check',
  'GET /readyz': 'a readiness check',
  'GET /metrics': 'Prometheus series',
  'GET /docs': 'the API reference: the OpenAPI document’s English, by decision (docs/web-app.md)',
  'GET /documents/:id/pages/:page': 'a page image',
  'GET /templates/:id/pages/:page': 'a page image',
  'GET /sign/:documentId/:token/pages/:page': 'a page image',
  'GET /templates/:id/bulk.csv': 'a spreadsheet of the template’s own column names',
  'GET /bulk/:id/results.csv': 'the results file: bulk-pages-language.test.ts reads its reasons in Polish',
  'POST /logout': 'signs out, and answers a redirect; the crawl goes on signed in',
};

function notAPage(route: string): boolean {
  const path = route.slice(route.indexOf(' ') + 1);
  return route in notPages || notPagePrefixes.some((prefix) => path.startsWith(prefix));
}

/**
 * What a page shows as data, not as its sentences: text marked English (a reason stored in
 * English, docs/web-app.md), code (event types, a delivery's request as it was sent).
 */
const shownAsData = /<span lang="en">[^<]*<\/span>|<(code|pre)\b[^>]*>[\s\S]*?<\/\1>/g;

describeEachDatabase('every page of the web app over HTTP, in Japanese and in Arabic', (kind) => {
  const resolver = testResolver({ 'hooks.crawl.example': ['93.184.216.40'] });
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' }, resolver });
  const people = webPeople(h, '10.62');

  for (const language of ['ja', 'ar'] as const satisfies Language[])
    test(`${language}: every GET route and every empty POST answers in ${language}, with no English sentence`, async () => {
      const world = await worldIn(language);
      const values = [...world.values, ...languages.map(endonym)];
      const dir = direction(language);
      const seen = new Set<string>();
      const failures: string[] = [];

      const check = (route: string, path: string, res: WebResponse) => {
        seen.add(route);
        const name = `${route} (${path}) ${res.status}`;
        assert.ok(res.status < 500, name);
        const type = res.headers.get('content-type') ?? '';
        if (type.startsWith('application/json')) {
          // The form's script asks for what a person then reads (the price preview): its strings.
          const strings: string[] = [];
          JSON.parse(res.text, (_key, value) => {
            if (typeof value === 'string') strings.push(value);
            return value;
          });
          const left = englishLeftIn(language, readableText(strings.join(' ')), values);
          if (left.length > 0) failures.push(`${name}: ${left.join(' ')}`);
          return;
        }
        if (!type.startsWith('text/')) {
          assert.ok(res.status >= 300 && res.status < 400, `${name} without a page (${type})`);
          return;
        }
        // A whole page says its language; a fragment (the form's price preview) is only read.
        if (
          type.startsWith('text/html') &&
          /<html/.test(res.text) &&
          !res.text.includes(`<html lang="${language}" dir="${dir}">`)
        )
          failures.push(`${name}: ${/<html[^>]*>/.exec(res.text)?.[0]}`);
        const left = englishLeftIn(language, readableText(res.text.replace(shownAsData, ' ')), values);
        if (left.length > 0) failures.push(`${name}: ${left.join(' ')}`);
      };

      for (const [route, { client, path }] of Object.entries(world.gets)) {
        const res = await client.get(path);
        check(`GET ${route}`, path, res);
      }
      // The error pages: a form sent without its token, and one too large to take.
      for (const [name, { client, path, page }] of Object.entries(world.refused)) {
        await client.get(page);
        const big = name.includes('too large');
        const res = await client.post(
          path,
          big ? { title: 'x'.repeat(100 * 1024) } : {},
          big ? {} : { csrf: false },
        );
        assert.equal(res.status, big ? 413 : 403, name);
        check(name, path, res);
      }

      for (const [route, { client, path, page }] of Object.entries(world.posts)) {
        // A fresh form token from the page the form is on, as a browser has it.
        await client.get(page);
        check(`POST ${route}`, path, await client.post(path, {}));
      }

      const routes = registeredRoutes(h.app);
      assert.ok(routes.length > 80, `only ${routes.length} routes read from the server`);
      const unvisited = routes.filter((route) => !seen.has(route) && !notAPage(route));
      assert.deepEqual(unvisited, [], 'routes neither crawled nor named as not a page');
      assert.deepEqual(failures, []);
    });

  /** What the crawl opens: a workspace whose owner chose `language`, with one of everything. */
  async function worldIn(language: Language) {
    const { owner, client: member } = await people.speakingOwner(language);
    const visitor = people.browser({ acceptLanguage: language });
    const workspaceId = owner.workspaceId;
    const recipients = [
      recipient('hana@client.example', 'Hana Mori', { language }),
      recipient('omar@client.example', 'Omar Aziz', { language, signingOrder: 2 }),
    ];
    const file = await pagesPdf(1);
    const draft = await createDraftDocument(h.ctx, workspaceId, { title: '契約書 案', file, recipients });
    const sent = await createSentDocument(h.ctx, workspaceId, { title: '契約書 送付', file, recipients });
    const signer = sent.links.get('hana@client.example');
    assert.ok(signer);
    const withdrawable = await createSentDocument(h.ctx, workspaceId, {
      title: '契約書 取消',
      file,
      recipients,
    });
    const bulkTemplate = await createBulkTemplate(h.ctx, workspaceId);
    const template = await getTemplate(h.ctx, workspaceId, bulkTemplate.id);
    const waiver = await createWaiverTemplate(h.ctx, workspaceId);
    const waiverTemplate = await getTemplate(h.ctx, workspaceId, waiver.id);
    const publicToken = await setPublicLink(h.ctx, workspaceId, waiver.id, { maxUses: null, endsAt: null });
    const bulk = await startBulkSend(h.ctx, {
      workspaceId,
      templateId: template.id,
      userId: owner.userId,
      fileName: 'list.csv',
      data: new TextEncoder().encode(
        'Client email,Client name,Company email,Company name,Price\r\nnot-an-address,Ken,office@acme.example,Acme Ltd,5 EUR\r\nken@client.example,Ken,office@acme.example,Acme Ltd,5 EUR\r\n',
      ),
    });
    const key = await createApiKey(h.ctx, { workspaceId, name: 'crawl key' });
    resolver.names['hooks.crawl.example'] = ['93.184.216.40'];
    const endpoint = await createEndpoint(h.ctx, workspaceId, {
      url: 'https://hooks.crawl.example/signet',
      events: ['document.sent'],
    });
    // The name no longer resolves: the test delivery fails at once, and is logged.
    delete resolver.names['hooks.crawl.example'];
    const { deliveryId } = await sendPing(h.ctx, workspaceId, endpoint.id);
    const colleague = await people.newMember(owner);

    // Links mailed: an invitation, a sign-up's confirmation, a password reset.
    assert.equal((await member.get('/settings/members')).status, 200);
    const invited = 'new-colleague@firma.example';
    assert.equal(
      (await member.post('/settings/members/invitations', { email: invited, role: 'member' })).status,
      303,
    );
    const stranger = people.browser({ acceptLanguage: language });
    await stranger.get('/signup');
    const signupEmail = `signup-${language}-${kind}@firma.example`;
    assert.equal(
      (
        await stranger.post('/signup', {
          email: signupEmail,
          password: 'a long enough passphrase',
          workspaceName: '会社',
        })
      ).status,
      303,
    );
    await visitor.get('/password-reset');
    assert.equal((await visitor.post('/password-reset', { email: owner.email })).status, 303);
    const linkIn = async (address: string, pattern: RegExp) => {
      for (const mail of await mailsTo(h.ctx, address)) {
        const path = pattern.exec(mail.text)?.[1];
        if (path) return path;
      }
      throw new Error(`no link ${pattern} mailed to ${address}`);
    };
    const invitation = await linkIn(invited, /https?:\/\/\S+?(\/invitations\/[A-Za-z0-9_-]+)/);
    const confirmSignup = await linkIn(signupEmail, /https?:\/\/\S+?(\/signup\/confirm\/[A-Za-z0-9_-]+)/);
    const reset = await linkIn(owner.email, /https?:\/\/\S+?(\/password-reset\/[A-Za-z0-9_-]+)/);

    // A visitor of the public link who asked for a code.
    const linkVisitor = people.browser({ acceptLanguage: language });
    await linkVisitor.get(`/t/${publicToken}`);
    const asked = await linkVisitor.post(`/t/${publicToken}`, {
      fullName: 'Rin Sato',
      email: 'rin@client.example',
    });
    assert.equal(asked.status, 303, asked.text.slice(0, 300));
    const confirmPublic = asked.location as string;

    const m = (path: string) => ({ client: member, path });
    const v = (path: string, client: WebClient = visitor) => ({ client, path });
    const signing = signer.path;
    const gets: Record<string, { client: WebClient; path: string }> = {
      '/': m('/'),
      '/documents': m('/documents'),
      '/documents/new': m('/documents/new'),
      '/documents/:id': m(`/documents/${sent.id}`),
      '/documents/:id/edit': m(`/documents/${draft.id}/edit`),
      '/documents/:id/withdraw': m(`/documents/${withdrawable.id}/withdraw`),
      '/documents/:id/delete': m(`/documents/${draft.id}/delete`),
      '/documents/:id/send': m(`/documents/${draft.id}/send`),
      '/documents/:id/fields': m(`/documents/${draft.id}/fields`),
      '/mails': m('/mails'),
      '/settings/account': m('/settings/account'),
      '/settings/integrations': m('/settings/integrations'),
      '/settings/integrations/keys/:id/revoke': m(`/settings/integrations/keys/${key.id}/revoke`),
      '/settings/integrations/endpoints/:id': m(`/settings/integrations/endpoints/${endpoint.id}`),
      '/settings/integrations/endpoints/:id/delete': m(
        `/settings/integrations/endpoints/${endpoint.id}/delete`,
      ),
      '/settings/integrations/endpoints/:id/deliveries/:deliveryId': m(
        `/settings/integrations/endpoints/${endpoint.id}/deliveries/${deliveryId}`,
      ),
      '/settings/billing': m('/settings/billing'),
      '/settings/billing/free': m('/settings/billing/free'),
      '/settings/members': m('/settings/members'),
      '/settings/members/:userId/remove': m(`/settings/members/${colleague.userId}/remove`),
      '/settings/time-zone': m('/settings/time-zone'),
      '/settings/language': m('/settings/language'),
      '/settings/brand': m('/settings/brand'),
      '/templates': m('/templates'),
      '/templates/new': m('/templates/new'),
      '/templates/:id': m(`/templates/${template.id}`),
      '/templates/:id/delete': m(`/templates/${template.id}/delete`),
      '/templates/:id/use': m(`/templates/${template.id}/use`),
      '/templates/:id/public-link': m(`/templates/${waiver.id}/public-link`),
      '/templates/:id/bulk': m(`/templates/${template.id}/bulk`),
      '/templates/:id/fields': m(`/templates/${template.id}/fields`),
      '/bulk/:id': m(`/bulk/${bulk.id}`),
      // Reached without a member: the browser's language.
      '/login': v('/login'),
      '/signup': v('/signup'),
      '/signup/sent': v('/signup/sent'),
      '/signup/confirm/:token': v(confirmSignup, stranger),
      '/password-reset': v('/password-reset'),
      '/password-reset/sent': v('/password-reset/sent'),
      '/password-reset/:token': v(reset),
      '/invitations/:token': v(invitation),
      '/t/:token': v(`/t/${publicToken}`),
      '/t/:token/confirm/:requestId': v(confirmPublic, linkVisitor),
      '/verify': v('/verify'),
      '/verify/': v('/verify/'),
      // The recipient's own language, given by the sender.
      '/sign/:documentId': v(`/sign/${sent.id}`),
      '/sign/:documentId/:token': v(signing),
    };
    // Links that do not work, and a member's id that is not theirs: the pages that say so.
    const broken: Record<string, { client: WebClient; path: string }> = {
      'a signing link that does not work': v(`/sign/${sent.id}/not-a-token`),
      'a public link that does not work': v('/t/not-a-token'),
      'an invitation that does not work': v('/invitations/not-a-token'),
      'a password reset that does not work': v('/password-reset/not-a-token'),
      'a sign-up confirmation that does not work': v('/signup/confirm/not-a-token'),
      'a document that is not the member’s': m('/documents/00000000-0000-4000-8000-000000000000'),
      'a path that is nothing': m('/nothing-here'),
      'a path under /verify that is nothing': v('/verify/nothing-here'),
    };
    const withPage = (path: string, page: string, client: WebClient = member) => ({ client, path, page });
    // Pressed without filling anything in; the destructive ones last, so the rest find their records.
    const posts: Record<string, { client: WebClient; path: string; page: string }> = {
      '/documents': withPage('/documents', '/documents/new'),
      '/documents/value': withPage('/documents/value', '/documents/new'),
      '/documents/:id/edit': withPage(`/documents/${draft.id}/edit`, `/documents/${draft.id}/edit`),
      '/documents/:id/save-as-template': withPage(
        `/documents/${sent.id}/save-as-template`,
        `/documents/${sent.id}`,
      ),
      '/documents/:id/recipients/:recipientId/remind': withPage(
        `/documents/${sent.id}/recipients/00000000-0000-4000-8000-000000000000/remind`,
        `/documents/${sent.id}`,
      ),
      '/documents/:id/fields': withPage(`/documents/${draft.id}/fields`, `/documents/${draft.id}/fields`),
      '/documents/:id/fields/:fieldId': withPage(
        `/documents/${draft.id}/fields/00000000-0000-4000-8000-000000000000`,
        `/documents/${draft.id}/fields`,
      ),
      '/documents/:id/fields/:fieldId/delete': withPage(
        `/documents/${draft.id}/fields/00000000-0000-4000-8000-000000000000/delete`,
        `/documents/${draft.id}/fields`,
      ),
      '/settings/account/workspace': withPage('/settings/account/workspace', '/settings/account'),
      '/settings/account/password': withPage('/settings/account/password', '/settings/account'),
      '/settings/integrations/keys': withPage('/settings/integrations/keys', '/settings/integrations'),
      '/settings/integrations/endpoints': withPage(
        '/settings/integrations/endpoints',
        '/settings/integrations',
      ),
      '/settings/integrations/endpoints/:id': withPage(
        `/settings/integrations/endpoints/${endpoint.id}`,
        `/settings/integrations/endpoints/${endpoint.id}`,
      ),
      '/settings/integrations/endpoints/:id/enabled': withPage(
        `/settings/integrations/endpoints/${endpoint.id}/enabled`,
        `/settings/integrations/endpoints/${endpoint.id}`,
      ),
      '/settings/integrations/endpoints/:id/test': withPage(
        `/settings/integrations/endpoints/${endpoint.id}/test`,
        `/settings/integrations/endpoints/${endpoint.id}`,
      ),
      '/settings/integrations/endpoints/:id/deliveries/:deliveryId/resend': withPage(
        `/settings/integrations/endpoints/${endpoint.id}/deliveries/${deliveryId}/resend`,
        `/settings/integrations/endpoints/${endpoint.id}`,
      ),
      '/settings/integrations/endpoints/:id/rotate': withPage(
        `/settings/integrations/endpoints/${endpoint.id}/rotate`,
        `/settings/integrations/endpoints/${endpoint.id}`,
      ),
      '/settings/billing/plan': withPage('/settings/billing/plan', '/settings/billing'),
      '/settings/members/invitations': withPage('/settings/members/invitations', '/settings/members'),
      '/settings/members/:userId/role': withPage(
        `/settings/members/${colleague.userId}/role`,
        '/settings/members',
      ),
      '/settings/time-zone': withPage('/settings/time-zone', '/settings/time-zone'),
      '/settings/brand': withPage('/settings/brand', '/settings/brand'),
      '/templates': withPage('/templates', '/templates/new'),
      '/templates/:id/rename': withPage(`/templates/${template.id}/rename`, `/templates/${template.id}`),
      '/templates/:id/roles': withPage(`/templates/${template.id}/roles`, `/templates/${template.id}`),
      '/templates/:id/defaults': withPage(`/templates/${template.id}/defaults`, `/templates/${template.id}`),
      '/templates/:id/use': withPage(`/templates/${template.id}/use`, `/templates/${template.id}/use`),
      '/templates/:id/public-link': withPage(
        `/templates/${waiver.id}/public-link`,
        `/templates/${waiver.id}/public-link`,
      ),
      '/templates/:id/bulk': withPage(`/templates/${template.id}/bulk`, `/templates/${template.id}/bulk`),
      '/templates/:id/bulk/send': withPage(
        `/templates/${template.id}/bulk/send`,
        `/templates/${template.id}/bulk`,
      ),
      '/templates/:id/fields': withPage(
        `/templates/${template.id}/fields`,
        `/templates/${template.id}/fields`,
      ),
      '/templates/:id/fields/:fieldId': withPage(
        `/templates/${template.id}/fields/00000000-0000-4000-8000-000000000000`,
        `/templates/${template.id}/fields`,
      ),
      '/templates/:id/fields/:fieldId/delete': withPage(
        `/templates/${template.id}/fields/00000000-0000-4000-8000-000000000000/delete`,
        `/templates/${template.id}/fields`,
      ),
      '/login': withPage('/login', '/login', visitor),
      '/signup': withPage('/signup', '/signup', visitor),
      '/signup/confirm/:token': withPage(confirmSignup, confirmSignup, stranger),
      '/password-reset': withPage('/password-reset', '/password-reset', visitor),
      '/password-reset/:token': withPage(reset, reset, visitor),
      '/invitations/:token': withPage(invitation, invitation, visitor),
      '/t/:token': withPage(`/t/${publicToken}`, `/t/${publicToken}`, linkVisitor),
      '/t/:token/confirm/:requestId': withPage(confirmPublic, confirmPublic, linkVisitor),
      '/verify': withPage('/verify', '/verify', visitor),
      '/verify/': withPage('/verify/', '/verify', visitor),
      '/sign/:documentId/:token/language': withPage(`${signing}/language`, signing, visitor),
      '/sign/:documentId/:token/code': withPage(`${signing}/code`, signing, visitor),
      '/sign/:documentId/:token/sign': withPage(`${signing}/sign`, signing, visitor),
      '/sign/:documentId/:token/decline': withPage(`${signing}/decline`, signing, visitor),
      '/documents/:id/send': withPage(`/documents/${draft.id}/send`, `/documents/${draft.id}/send`),
      '/documents/:id/withdraw': withPage(
        `/documents/${withdrawable.id}/withdraw`,
        `/documents/${withdrawable.id}/withdraw`,
      ),
      '/settings/integrations/keys/:id/revoke': withPage(
        `/settings/integrations/keys/${key.id}/revoke`,
        `/settings/integrations/keys/${key.id}/revoke`,
      ),
      '/settings/members/invitations/:id/withdraw': withPage(
        '/settings/members/invitations/00000000-0000-4000-8000-000000000000/withdraw',
        '/settings/members',
      ),
      '/settings/members/:userId/remove': withPage(
        `/settings/members/${colleague.userId}/remove`,
        `/settings/members/${colleague.userId}/remove`,
      ),
      '/settings/integrations/endpoints/:id/delete': withPage(
        `/settings/integrations/endpoints/${endpoint.id}/delete`,
        `/settings/integrations/endpoints/${endpoint.id}/delete`,
      ),
      '/templates/:id/delete': withPage(
        `/templates/${template.id}/delete`,
        `/templates/${template.id}/delete`,
      ),
      '/documents/:id/delete': withPage(`/documents/${draft.id}/delete`, `/documents/${draft.id}/delete`),
      // An empty choice is the workspace's default: English from here on.
      '/settings/language': withPage('/settings/language', '/settings/language'),
      '/settings/account/language': withPage('/settings/account/language', '/settings/account'),
    };
    const values = [
      owner.workspaceName,
      owner.email,
      colleague.email,
      invited,
      signupEmail,
      'hana@client.example',
      'omar@client.example',
      'rin@client.example',
      'office@acme.example',
      'ken@client.example',
      'not-an-address',
      'crawl key',
      'https://hooks.crawl.example/signet',
      'hooks.crawl.example',
      'list.csv',
      '@client.example',
      'The parties agree.',
      // The time zones' IANA names, and the bulk file's column `language`, as the file must name it.
      ...Intl.supportedValuesOf('timeZone'),
      'language',
      ...[template, waiverTemplate].flatMap((t) => [
        t.name,
        t.text,
        ...t.roles.flatMap((r) => [r.name, ...r.fields.flatMap((f) => (f.label ? [f.label] : []))]),
      ]),
    ];
    const refused = {
      'a member’s form without its token': withPage('/settings/time-zone', '/settings/time-zone'),
      'a visitor’s form without its token': withPage('/login', '/login', visitor),
      'a member’s form too large': withPage('/documents', '/documents/new'),
    };
    return { gets: { ...gets, ...broken }, posts, refused, values };
  }
});
