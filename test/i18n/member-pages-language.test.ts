// A member's pages in their language (issue 51), on both databases: the documents list (with
// its first-steps panel, its filter and table) and a document's page (summary, PDF,
// recipients and what became of each, timeline, "Save as template", the notices after an
// action) follow the member's own language, else their browser's, else English, and set
// `<html lang dir>`; the navigation bar comes with them. Pages not in the catalogues yet stay
// wholly English. Rendered in the pseudo-language, the two pages leave no English word but the
// values they show. So does the send confirmation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  getDocumentForOwner,
  listDocuments,
  recipientProgress,
} from '../../src/documents/documents.service.ts';
import { pricingView } from '../../src/documents/pricing.ts';
import { translator } from '../../src/i18n/messages.ts';
import type { SendPreview } from '../../src/sending/send.ts';
import { findSharableSigningLinks } from '../../src/sending/signing-links.ts';
import { declineDocument } from '../../src/signing/signing.service.ts';
import { renderToString } from '../../src/ui/html.ts';
import { confirmDocumentAction, ownMailsView } from '../../src/web/document-form.views.ts';
import { documentView } from '../../src/web/document-page.views.ts';
import { documentsListView } from '../../src/web/documents.views.ts';
import { pauseBanner } from '../../src/web/endpoints.views.ts';
import { firstStepsView } from '../../src/web/first-steps.ts';
import { sendConfirmView } from '../../src/web/send.views.ts';
import {
  createDraftDocument,
  createSentDocument,
  describeEachDatabase,
  pagesPdf,
  recipient,
  signingLinksOf,
  useHarness,
} from '../support/harness.ts';
import { englishLeft, pseudoTranslator, readableText } from '../support/pseudo-language.ts';
import { assertPage, escaped, webPeople } from '../support/web-client.ts';

describeEachDatabase('a member’s pages in their language', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const people = webPeople(h, '10.54');
  const de = translator('de');
  const has = (
    text: string,
    language: Parameters<typeof translator>[0],
    ...keys: Parameters<typeof de.t>[0][]
  ) => {
    for (const key of keys)
      assert.ok(text.includes(escaped(translator(language).t(key))), `${language} ${key}`);
  };

  /** A sent document whose second signer declined, with a reason. */
  async function declinedDocument(workspaceId: string) {
    const { id } = await createSentDocument(h.ctx, workspaceId, {
      title: 'Zxq Mietvertrag',
      file: await pagesPdf(2),
      remindEveryDays: 3,
      recipients: [
        recipient('jan@kowalski.test', 'Jan Kowalski'),
        recipient('ola@kowalski.test', 'Ola Nowak'),
        recipient('vik@kowalski.test', 'Vik Lund', { role: 'viewer', signingOrder: 2 }),
      ],
    });
    const session = (await signingLinksOf(h.ctx, id)).get('ola@kowalski.test')?.session;
    assert.ok(session);
    await declineDocument(h.ctx, session, { reason: 'Zła kwota' });
    return id;
  }

  test('a member who chose German reads the list, a document and its notices in German', async () => {
    const owner = await people.newOwner();
    await h.ctx.db.updateTable('users').set({ language: 'de' }).where('id', '=', owner.userId).execute();
    const client = await people.signedIn(owner);
    const empty = await client.get('/documents');
    assertPage(empty, 200);
    assert.match(empty.text, /<html lang="de" dir="ltr">/);
    has(
      empty.text,
      'de',
      'app.nav.documents',
      'app.nav.templates',
      'app.nav.logOut',
      'docs.new',
      'docs.firstSteps.heading',
    );
    assert.doesNotMatch(empty.text, />Log out<|>New document<|Your first document/);

    const id = await declinedDocument(owner.workspaceId);
    const list = await client.get('/documents');
    has(
      list.text,
      'de',
      'docs.column.title',
      'docs.column.status',
      'docs.search.label',
      'docs.filter.all',
      'app.status.declined',
    );
    const page = await client.get(`/documents/${id}`);
    assertPage(page, 200);
    assert.match(page.text, /<html lang="de" dir="ltr">/);
    has(
      page.text,
      'de',
      'doc.recipients.heading',
      'doc.timeline.heading',
      'doc.pdf.downloadOriginal',
      'doc.template.save',
      'history.document.sent',
    );
    assert.ok(page.text.includes(escaped(de.t('doc.remindersEvery', { days: 3 }))));
    assert.ok(page.text.includes(escaped(de.t('doc.recipient.reason', { reason: 'Zła kwota' }))));
    assert.ok(
      page.text.includes(escaped(de.t('doc.pdf.size', { pages: 2, size: '' }).split(',')[0] as string)),
    );

    const draft = await createDraftDocument(h.ctx, owner.workspaceId);
    const saved = await client.get(`/documents/${draft.id}?done=saved`);
    has(saved.text, 'de', 'doc.done.saved', 'doc.action.send', 'doc.action.edit', 'doc.timeline.empty');

    // What a document's page leads to: its confirmations, the member's mail, a 404.
    has(
      (await client.get(`/documents/${draft.id}/delete`)).text,
      'de',
      'doc.confirm.deleteHeading',
      'doc.confirm.cancel',
    );
    has(
      (await client.get(`/documents/${id}/withdraw`)).text,
      'de',
      'doc.confirm.withdrawHeading',
      'doc.confirm.withdrawReason',
    );
    has((await client.get('/mails')).text, 'de', 'mails.title');
    const missing = await client.get('/documents/00000000-0000-4000-8000-000000000000');
    assertPage(missing, 404);
    assert.match(missing.text, /<html lang="de"/);
    has(missing.text, 'de', 'app.notFound.title', 'app.notFound.body');

    // Settings › Integrations is in the catalogues too (integrations-language.test.ts), its navigation with it.
    const integrations = await client.get('/settings/integrations');
    assert.match(integrations.text, /<html lang="de" dir="ltr">/);
    has(integrations.text, 'de', 'app.nav.integrations', 'app.nav.logOut', 'integrations.keys.heading');
  });

  test('a member who chose Polish confirms a send in Polish', async () => {
    const { owner, client } = await people.speakingOwner('pl');
    const pl = translator('pl');
    const draft = await createDraftDocument(h.ctx, owner.workspaceId);
    const { title } = await h.ctx.db
      .selectFrom('documents')
      .select('title')
      .where('id', '=', draft.id)
      .executeTakeFirstOrThrow();
    const page = await client.get(`/documents/${draft.id}/send`);
    assertPage(page, 200);
    assert.match(page.text, /<html lang="pl" dir="ltr">/);
    has(
      page.text,
      'pl',
      'send.heading',
      'send.recipientsHeading',
      'send.fieldsPlaced',
      'send.submit',
      'send.check',
    );
    assert.ok(page.text.includes(escaped(pl.t('send.order', { order: 1 }))));
    assert.ok(page.text.includes(`<title>${escaped(pl.t('send.title', { title }))}`));
    assert.doesNotMatch(page.text, /Send this document\?|Send to recipients|Recipients, in signing order/);
  });

  test('without a language of their own, the browser’s; without one it asks for, English', async () => {
    const owner = await people.newOwner();
    const polish = people.browser({ acceptLanguage: 'pl-PL,pl;q=0.9' });
    await people.logIn(polish, owner.email);
    const page = await polish.get('/documents');
    assert.match(page.text, /<html lang="pl" dir="ltr">/);
    has(page.text, 'pl', 'docs.title', 'app.nav.account');
    const hebrew = people.browser({ acceptLanguage: 'he' });
    await people.logIn(hebrew, owner.email);
    assert.match((await hebrew.get('/documents')).text, /<html lang="he" dir="rtl">/);
    const english = await people.signedIn(owner);
    assert.match((await english.get('/documents')).text, /<html lang="en" dir="ltr">/);
  });

  test('in the pseudo-language the list and a document’s page leave no English', async () => {
    const owner = await people.newOwner();
    const id = await declinedDocument(owner.workspaceId);
    const tr = pseudoTranslator();
    const document = await getDocumentForOwner(h.ctx, owner.workspaceId, id);
    const view = {
      document,
      pricing: pricingView(document.pricing),
      progress: new Map(document.recipients.map((r) => [r.id, recipientProgress(document, r)])),
      links: await findSharableSigningLinks(h.ctx, owner.workspaceId, document),
      timeZone: 'Europe/Berlin',
    };
    const values = [
      'Zxq Mietvertrag',
      'Jan Kowalski',
      'Ola Nowak',
      'Vik Lund',
      'Zła kwota',
      'kowalski.test',
      'Signet',
    ];
    const page = readableText(renderToString(documentView(view, 'token', null, tr)));
    // The signing links and the webhook events' types are shown as they are: identifiers.
    const identifiers = [
      ...view.links.values(),
      ...document.history.filter((e) => e.webhook).map((e) => e.type),
    ];
    assert.deepEqual(englishLeft(page, [...values, ...identifiers]), []);
    const { documents } = await listDocuments(h.ctx, {
      workspaceId: owner.workspaceId,
      limit: 10,
      cursor: null,
      status: null,
      search: '',
    });
    const list = {
      documents,
      status: null,
      search: '',
      timeZone: 'UTC',
      cursor: null,
      next: null,
      stale: true,
      publicLink: new Set([id]),
    };
    assert.deepEqual(englishLeft(readableText(renderToString(documentsListView(list, tr))), values), []);
    const empty = { ...list, documents: [], search: 'Zxq', cursor: 'c1' };
    assert.deepEqual(
      englishLeft(readableText(renderToString(documentsListView(empty, tr))), [...values, 'Zxq']),
      [],
    );
    assert.deepEqual(englishLeft(readableText(renderToString(firstStepsView(tr))), values), []);
    for (const action of ['withdraw', 'delete'] as const)
      assert.deepEqual(
        englishLeft(
          readableText(renderToString(confirmDocumentAction(document, action, 'token', tr))),
          values,
        ),
        [],
        action,
      );
    const member = { email: 'owner@kowalski.test', timeZone: 'UTC' } as Parameters<typeof ownMailsView>[0];
    // The mails themselves are shown as they were written; the page around them is translated.
    assert.deepEqual(englishLeft(readableText(renderToString(ownMailsView(member, [], tr))), values), []);
    assert.deepEqual(
      englishLeft(readableText(renderToString(ownMailsView(member, 'sent-by-smtp', tr))), values),
      [],
    );
    const preview: SendPreview = {
      id: document.id,
      title: 'Zxq Mietvertrag',
      status: 'draft',
      pages: 2,
      fieldCount: 8,
      refusal: null,
      groups: [
        {
          order: 1,
          recipients: [
            {
              id: 'r1',
              fullName: 'Jan Kowalski',
              email: 'jan@kowalski.test',
              role: 'signer',
              signingMethod: 'email-code',
              fields: (['signature', 'initials', 'date', 'name', 'email', 'text', 'checkbox'] as const).map(
                (type, i) => ({ type, count: i + 1 }),
              ),
              noSignatureField: false,
            },
            {
              id: 'r2',
              fullName: 'Ola Nowak',
              email: 'ola@kowalski.test',
              role: 'signer',
              signingMethod: 'standard',
              fields: [],
              noSignatureField: true,
            },
          ],
        },
        {
          order: 2,
          recipients: [
            {
              id: 'r3',
              fullName: 'Vik Lund',
              email: 'vik@kowalski.test',
              role: 'viewer',
              signingMethod: 'standard',
              fields: [],
              noSignatureField: false,
            },
          ],
        },
      ],
    };
    const previews: SendPreview[] = [
      preview,
      { ...preview, fieldCount: 0, pages: null },
      { ...preview, refusal: 'no-signers' },
    ];
    for (const shown of previews)
      assert.deepEqual(
        englishLeft(readableText(renderToString(sendConfirmView(shown, 'token', tr))), values),
        [],
        `send confirmation ${shown.refusal ?? shown.fieldCount}`,
      );
    const paused = {
      id: 'e1',
      url: 'https://hooks.kowalski.test/in',
      enabled: false,
      disabledReason: 'failures',
      pausedAt: '2026-03-01T12:00:00.000Z',
    } as Parameters<typeof pauseBanner>[0];
    const banner = readableText(renderToString(pauseBanner(paused, 'token', true, 'UTC', tr)));
    assert.deepEqual(
      englishLeft(banner, [...values, 'https://hooks.kowalski.test/in', 'GET /v1/documents']),
      [],
    );
  });
});
