// The documents pages (src/web/documents.pages.ts, document-form.pages.ts) over real HTTP,
// as a member's browser uses them: the list with its status filter and "Next page" links
// (compared with GET /v1/documents), the new-document form (more rows, the value preview,
// each refusal, the draft it creates), the detail page with sending, signing links and the
// timeline, the mail outbox, what a member of another workspace can reach, CSRF, and
// visitors.
//
// The app runs behind a "proxy" here (SIGNET_TRUST_PROXY=1) and each browser() sends its
// own X-Forwarded-For address, so the per-address sign-in limit counts one browser only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestSignup } from '../../src/accounts/accounts.service.ts';
import { insertSampleDocuments } from '../../src/demo/seed.ts';
import { refusalMessages } from '../../src/documents/lifecycle.ts';
import { formatMoney } from '../../src/documents/pricing.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { listMails } from '../../src/mail/mail.service.ts';
import type { RecipientInput } from '../../src/sending/draft-input.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { escapeHtml } from '../../src/ui/html.ts';
import { formatTime } from '../../src/web/layout.ts';
import {
  callApi,
  countRows,
  createDraftDocument,
  createTestDocument,
  describeEachDatabase,
  signingLinksOf,
  useHarness,
  withViewer,
} from '../support/harness.ts';
import {
  assertForgeriesRefused,
  assertPage,
  assertRedirect,
  assertSameNotFound,
  testPassword as password,
  probeIds,
  type TestAccount,
  uniqueEmail,
  type WebClient,
  webPeople,
} from '../support/web-client.ts';

const minute = 60_000;
const staleCursor = 'That page link had expired, so this is the first page again.';
const pageSize = 25;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Account extends TestAccount {
  apiKey: string;
}

interface ApiDocument {
  id: string;
  title: string;
  status: string;
  createdAt: string;
  value: { amount: number; currency: string } | null;
}

interface ApiDetail extends ApiDocument {
  recipients: Array<{
    id: string;
    email: string;
    fullName: string;
    role: string;
    signingMethod: string;
    signingOrder: number;
    signedAt: string | null;
  }>;
  events: Array<{ id: string; type: string; recipientEmail: string | null; createdAt: string }>;
}

interface RecipientRow {
  email: string;
  name: string;
  role?: 'signer' | 'viewer';
  method?: 'standard' | 'email-code';
  order?: string;
}

interface PriceRow {
  name: string;
  qty: string;
  price: string;
  vat: string;
  billing: 'one-off' | 'week' | 'month' | 'quarter' | 'year';
  periods?: string;
}

/**
 * The fields a browser submits for the new-document form: every row the form shows (blank
 * rows too, with the selects' defaults) and the hidden row counts.
 */
function documentForm(input: {
  title?: string;
  body?: string;
  recipients?: Array<RecipientRow | null>;
  recipientRows?: number;
  currency?: string;
  vatIncluded?: boolean;
  prices?: PriceRow[];
  priceRows?: number;
}): Record<string, string> {
  const recipients = input.recipients ?? [];
  const prices = input.prices ?? [];
  const recipientRows = input.recipientRows ?? Math.max(3, recipients.length);
  const priceRows = input.priceRows ?? Math.max(2, prices.length);
  const form: Record<string, string> = {
    recipientRows: String(recipientRows),
    priceRows: String(priceRows),
    title: input.title ?? '',
    body: input.body ?? '',
    currency: input.currency ?? 'EUR',
    vatMode: input.vatIncluded ? 'included' : 'excluded',
  };
  for (let i = 0; i < recipientRows; i++) {
    const r = recipients[i];
    form[`r${i}_email`] = r?.email ?? '';
    form[`r${i}_name`] = r?.name ?? '';
    form[`r${i}_role`] = r?.role ?? 'signer';
    form[`r${i}_method`] = r?.method ?? 'standard';
    form[`r${i}_order`] = r?.order ?? '1';
  }
  for (let i = 0; i < priceRows; i++) {
    const p = prices[i];
    form[`p${i}_name`] = p?.name ?? '';
    form[`p${i}_qty`] = p?.qty ?? '';
    form[`p${i}_price`] = p?.price ?? '';
    form[`p${i}_vat`] = p?.vat ?? '';
    form[`p${i}_billing`] = p?.billing ?? 'one-off';
    form[`p${i}_periods`] = p?.periods ?? '';
  }
  return form;
}

function loginNext(path: string): string {
  return `/login?next=${encodeURIComponent(path)}`;
}

/** The documents of a list page, in order: id and status badge of each row. */
function rowsOf(text: string): Array<{ id: string; status: string }> {
  const pattern =
    /<td><a href="\/documents\/([0-9a-f-]{36})">[^<]*<\/a><\/td>\s*<td><span class="badge [^"]*">([a-z]+)<\/span><\/td>/g;
  return [...text.matchAll(pattern)].map((m) => ({ id: m[1] as string, status: m[2] as string }));
}

/** The "Next page" link of a list page, as the browser follows it, or null. */
function nextPageOf(text: string): string | null {
  const href = /<a href="([^"]+)">Next page<\/a>/.exec(text)?.[1];
  return href === undefined ? null : href.replaceAll('&amp;', '&');
}

/** The form has `count` rows (recipients r…, prices p…): the field of the last row is there, of the next not. */
function assertRowCount(text: string, row: 'r' | 'p', field: string, count: number, label: string): void {
  assert.ok(
    text.includes(`id="${row}${count - 1}_${field}"`) && !text.includes(`id="${row}${count}_${field}"`),
    label,
  );
}

/** The cursor the "Next page" link of a page carries. */
function nextCursorOf(text: string): string {
  return new URL(nextPageOf(text) as string, 'http://signet.test').searchParams.get('cursor') as string;
}

/** The <li> of a recipient on the detail page. */
function recipientItem(text: string, email: string): string {
  const item = text
    .split('<li><div><span class="recipient-name">')
    .slice(1)
    .find((part) => part.includes(`<span class="muted">${escapeHtml(email)}</span>`));
  assert.ok(item, `no recipient ${email} on the page`);
  return item.slice(0, item.indexOf('</li>'));
}

/** The signing links shown on the detail page, by recipient email, as paths on this site. */
function signingLinksOnPage(text: string, emails: string[]): Map<string, string> {
  const links = new Map<string, string>();
  for (const email of emails) {
    const link = /<code id="link-[0-9a-f-]{36}">([^<]+)<\/code>/.exec(recipientItem(text, email))?.[1];
    if (link) links.set(email, new URL(link).pathname);
  }
  return links;
}

function signer(email: string): RecipientInput {
  return { email, fullName: 'Ann Lee', role: 'signer', signingMethod: 'standard', signingOrder: 1 };
}

describeEachDatabase('document pages over HTTP', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });

  const people = webPeople(h, '10.2');
  const { browser, newMember, signedIn } = people;
  /** An owner of a new Max workspace, with an API key to compare the pages with the API. */
  async function newOwner(): Promise<Account> {
    const owner = await people.newOwner();
    return {
      ...owner,
      apiKey: (await createApiKey(h.ctx, { workspaceId: owner.workspaceId, name: 'test' })).secret,
    };
  }
  const logIn = (client: WebClient, email: string, next?: string) =>
    people.logIn(client, email, password, next ? { next } : {});

  async function tokenOfAnotherSession(): Promise<string> {
    const other = await signedIn(await newOwner());
    assertPage(await other.get('/documents'), 200);
    assert.ok(other.csrfToken);
    return other.csrfToken;
  }

  async function apiDetail(account: Account, id: string): Promise<ApiDetail> {
    const res = await callApi(h, 'GET', `/v1/documents/${id}`, { key: account.apiKey });
    assert.equal(res.status, 200, res.text);
    return res.body.data as ApiDetail;
  }

  /** Every document GET /v1/documents lists, following nextCursor to the end. */
  async function apiList(account: Account, status?: string): Promise<ApiDocument[]> {
    const documents: ApiDocument[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ limit: '100', ...(status ? { status } : {}) });
      if (cursor) query.set('cursor', cursor);
      const res = await callApi(h, 'GET', `/v1/documents?${query}`, { key: account.apiKey });
      assert.equal(res.status, 200, res.text);
      documents.push(...(res.body.data as ApiDocument[]));
      cursor = res.body.nextCursor ?? null;
    } while (cursor);
    return documents;
  }

  /** Walks the list from `start` through every "Next page" link: each page's rows. */
  async function walkPages(
    client: WebClient,
    start: string,
  ): Promise<Array<Array<{ id: string; status: string }>>> {
    const pages: Array<Array<{ id: string; status: string }>> = [];
    let path: string | null = start;
    while (path !== null) {
      assert.ok(pages.length < 20, 'the pages end');
      const res = await client.get(path);
      assertPage(res, 200);
      assert.ok(!res.text.includes(escapeHtml(staleCursor)), `${path}: no stale-link notice`);
      pages.push(rowsOf(res.text));
      path = nextPageOf(res.text);
      if (path !== null) assert.match(path, /^\/documents\?/);
    }
    return pages;
  }

  const documentCount = (workspaceId: string) => countRows(h.ctx, 'documents', { workspace_id: workspaceId });

  async function mailCountOf(documentId: string): Promise<number> {
    return (await listMails(h.ctx, { documentId, limit: 1000 })).length;
  }

  /** A workspace's documents beyond one page: 40 samples of every status and 30 signed ones. */
  async function seedDocuments(account: Account, seed: number): Promise<void> {
    await insertSampleDocuments(h.ctx, account.workspaceId, 40, { seed });
    const now = h.clock.now().getTime();
    for (let i = 0; i < 30; i++) {
      await createTestDocument(h.ctx, {
        workspaceId: account.workspaceId,
        status: 'signed',
        createdAt: new Date(now - 8 * 60 * minute - i * 7 * minute),
      });
    }
  }

  /** An owner's browser on a list beyond one page (seeded with `seed`), beside another workspace of 30 documents. */
  async function ownerBesideAnother(seed: number) {
    const owner = await newOwner();
    const other = await newOwner();
    await seedDocuments(owner, seed);
    await insertSampleDocuments(h.ctx, other.workspaceId, 30, { seed: seed + 1 });
    return { owner, other, client: await signedIn(owner) };
  }

  // ---------------------------------------------------------------- the list

  test('list: GET /documents shows the workspace’s documents newest first, 25 a page; following "Next page" to the end shows each exactly once in the order of GET /v1/documents, and never another workspace’s', async () => {
    const { owner, other, client } = await ownerBesideAnother(3);

    const expected = await apiList(owner);
    assert.equal(expected.length, 70);
    for (let i = 1; i < expected.length; i++) {
      assert.ok(
        (expected[i - 1] as ApiDocument).createdAt >= (expected[i] as ApiDocument).createdAt,
        'the API lists newest first',
      );
    }
    const pages = await walkPages(client, '/documents');
    assert.deepEqual(
      pages.map((p) => p.length),
      [25, 25, 20],
    );
    const shown = pages.flat();
    assert.deepEqual(
      shown.map((r) => r.id),
      expected.map((d) => d.id),
      'every document once, in the API’s order',
    );
    assert.deepEqual(
      shown.map((r) => r.status),
      expected.map((d) => d.status),
    );
    assert.equal(new Set(shown.map((r) => r.id)).size, 70);

    const others = new Set((await apiList(other)).map((d) => d.id));
    assert.equal(others.size, 30);
    assert.ok(!shown.some((r) => others.has(r.id)), 'nothing of the other workspace');

    const first = await client.get('/documents');
    assert.ok(first.text.includes('<a href="/documents" aria-current="page">All</a>'));
    assert.ok(!first.text.includes('>Newest</a>'), 'the first page has no link to itself');
    const second = await client.get(nextPageOf(first.text) as string);
    assert.ok(second.text.includes('<a href="/documents">Newest</a>'));

    // The other workspace sees only its own.
    const otherShown = (await walkPages(await signedIn(other), '/documents')).flat().map((r) => r.id);
    assert.deepEqual(otherShown, [...others]);
  });

  test('list: the status filter shows only that status, paged in the order of GET /v1/documents?status=…', async () => {
    const owner = await newOwner();
    await seedDocuments(owner, 5);
    const client = await signedIn(owner);
    for (const status of ['signed', 'draft', 'declined']) {
      const expected = await apiList(owner, status);
      const path = `/documents?status=${status}`;
      const first = await client.get(path);
      assertPage(first, 200);
      const label = status[0]?.toUpperCase() + status.slice(1);
      assert.ok(first.text.includes(`<a href="${path}" aria-current="page">${label}</a>`), status);
      const pages = await walkPages(client, path);
      const shown = pages.flat();
      assert.deepEqual(
        shown.map((r) => r.id),
        expected.map((d) => d.id),
        status,
      );
      assert.ok(
        shown.every((r) => r.status === status),
        `${status}: only ${status}`,
      );
      for (const page of pages.slice(0, -1)) assert.equal(page.length, pageSize, status);
      if (status === 'signed') assert.ok(pages.length >= 2, 'the signed documents fill more than a page');
    }
    // An unknown status is no filter at all.
    const unknown = await client.get('/documents?status=bogus');
    assertPage(unknown, 200);
    assert.deepEqual(
      rowsOf(unknown.text).map((r) => r.id),
      (await apiList(owner)).slice(0, pageSize).map((d) => d.id),
    );
  });

  test('list: a tampered cursor, another workspace’s cursor and another filter’s cursor each show the first page with a notice', async () => {
    const { owner, other, client } = await ownerBesideAnother(6);
    const otherClient = await signedIn(other);

    const first = await client.get('/documents');
    const firstIds = rowsOf(first.text).map((r) => r.id);
    assert.equal(firstIds.length, pageSize);
    const cursor = nextCursorOf(first.text);
    assert.ok(cursor);
    const flipped = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
    const otherCursor = nextCursorOf((await otherClient.get('/documents')).text);
    const signedFirst = await client.get('/documents?status=signed');
    const signedCursor = nextCursorOf(signedFirst.text);

    const cases: Record<string, string> = {
      'a changed character': `/documents?cursor=${flipped}`,
      'a cut cursor': `/documents?cursor=${cursor.slice(0, -3)}`,
      'made up': '/documents?cursor=not-a-cursor',
      'another workspace’s': `/documents?cursor=${otherCursor}`,
      'another filter’s': `/documents?cursor=${signedCursor}`,
    };
    for (const [label, path] of Object.entries(cases)) {
      const res = await client.get(path);
      assertPage(res, 200);
      assert.ok(res.text.includes(escapeHtml(staleCursor)), `${label}: ${res.text.slice(0, 400)}`);
      assert.deepEqual(
        rowsOf(res.text).map((r) => r.id),
        firstIds,
        `${label}: the first page`,
      );
      assert.equal(nextPageOf(res.text), nextPageOf(first.text), `${label}: its next page is the second`);
    }
    // A tampered cursor under a filter starts that filter again.
    const filtered = await client.get(`/documents?status=signed&cursor=${cursor}`);
    assertPage(filtered, 200);
    assert.ok(filtered.text.includes(escapeHtml(staleCursor)));
    assert.deepEqual(
      rowsOf(filtered.text).map((r) => r.id),
      rowsOf(signedFirst.text).map((r) => r.id),
    );
    // The genuine link still works.
    const second = await client.get(`/documents?cursor=${cursor}`);
    assert.ok(!second.text.includes(escapeHtml(staleCursor)));
    assert.deepEqual(
      rowsOf(second.text).map((r) => r.id),
      (await apiList(owner)).slice(pageSize, 2 * pageSize).map((d) => d.id),
    );
  });

  // ---------------------------------------------------------------- the form

  test('new document: "Show the value" shows the value the API later returns for the created document (VAT included, a recurring line, a currency with 3 or 0 decimals)', async () => {
    const owner = await newOwner();
    const client = await signedIn(owner);
    const cases = [
      {
        currency: 'KWD',
        prices: [
          { name: 'Setup', qty: '1', price: '100', vat: '5', billing: 'one-off' },
          { name: 'Hosting', qty: '2', price: '12.345', vat: '5', billing: 'month', periods: '12' },
        ] satisfies PriceRow[],
        // 100 / 1.05 + 2 × 12.345 × 12 / 1.05 = 95.238… + 282.171… = 377.409… → 377.410
        value: { amount: 377.41, currency: 'KWD' },
      },
      {
        currency: 'JPY',
        prices: [
          { name: 'Licence', qty: '3', price: '1000', vat: '10', billing: 'one-off' },
          { name: 'Support', qty: '1', price: '550', vat: '10', billing: 'quarter', periods: '7' },
        ] satisfies PriceRow[],
        // 3000 / 1.1 + 550 × 7 / 1.1 = 2727.27… + 3500 = 6227.27… → 6227
        value: { amount: 6227, currency: 'JPY' },
      },
    ];
    for (const c of cases) {
      const form = documentForm({
        title: `Priced in ${c.currency}`,
        recipients: [{ email: 'ann@client.example', name: 'Ann Lee' }],
        currency: c.currency.toLowerCase(),
        vatIncluded: true,
        prices: c.prices,
      });
      assertPage(await client.get('/documents/new'), 200);
      const preview = await client.post('/documents', { ...form, preview: '1' });
      assertPage(preview, 200);
      const shown = /Value \(excluding VAT, whole contract\): ([^<]+)<\/div>/.exec(preview.text)?.[1];
      assert.ok(shown, `${c.currency}: a value is shown: ${preview.text.slice(0, 3000)}`);
      for (const p of c.prices) {
        assert.ok(preview.text.includes(`value="${p.name}"`), `${c.currency}: ${p.name} is kept`);
      }
      assert.equal(await documentCount(owner.workspaceId), cases.indexOf(c), 'a preview creates nothing');

      const created = await client.post('/documents', form);
      assert.equal(created.status, 303, created.text.slice(0, 2000));
      const id = /^\/documents\/([0-9a-f-]{36})$/.exec(created.location ?? '')?.[1];
      assert.ok(id, `${created.location}`);
      const detail = await apiDetail(owner, id);
      assert.deepEqual(detail.value, c.value, c.currency);
      assert.equal(shown, escapeHtml(formatMoney(String(detail.value?.amount), c.currency)), c.currency);
      const listed = (await apiList(owner)).find((d) => d.id === id);
      assert.deepEqual(listed?.value, c.value);
      const page = await client.get(`/documents/${id}`);
      assert.ok(
        page.text.includes(`<dt>Value</dt><dd>${shown}</dd>`),
        `${c.currency}: the detail shows it too`,
      );
    }
  });

  test('new document: "More recipient rows" and "More pricing rows" add three rows each, keep what was typed and create nothing', async () => {
    const owner = await newOwner();
    const client = await signedIn(owner);
    const form = documentForm({
      title: 'Rows',
      recipients: [{ email: 'ann@client.example', name: 'Ann Lee', order: '2' }],
      prices: [{ name: 'Setup', qty: '1', price: '10', vat: '0', billing: 'one-off' }],
    });
    const page = await client.get('/documents/new');
    assertPage(page, 200);
    assertRowCount(page.text, 'r', 'email', 3, 'three rows at first');

    const more = await client.post('/documents', { ...form, more: 'recipients' });
    assertPage(more, 200);
    assert.ok(more.text.includes('<input type="hidden" name="recipientRows" value="6">'));
    assertRowCount(more.text, 'r', 'email', 6, 'six rows');
    assert.ok(more.text.includes('id="r0_email" name="r0_email" type="email" value="ann@client.example"'));
    assert.ok(more.text.includes('id="r0_order" name="r0_order" type="number" min="1" max="100" value="2"'));
    assert.ok(more.text.includes('value="Rows"'), 'the title is kept');
    assert.ok(more.text.includes('id="p0_name" name="p0_name" type="text" value="Setup"'));

    const evenMore = await client.post('/documents', {
      ...form,
      recipientRows: '6',
      more: 'recipients',
    });
    assertRowCount(evenMore.text, 'r', 'email', 9, 'nine rows');

    const prices = await client.post('/documents', { ...form, more: 'prices' });
    assertPage(prices, 200);
    assert.ok(prices.text.includes('<input type="hidden" name="priceRows" value="5">'));
    assertRowCount(prices.text, 'p', 'name', 5, 'five price rows');
    assert.equal(await documentCount(owner.workspaceId), 0, 'nothing was created');
  });

  test('new document: each refusal of createDocument re-renders the form with 400, its sentence beside its input and in the summary, and creates nothing', async () => {
    const owner = await newOwner();
    const client = await signedIn(owner);
    const ann: RecipientRow = { email: 'ann@client.example', name: 'Ann Lee' };
    const badPrice = { name: 'Setup', qty: '1', price: 'ten', vat: '0', billing: 'one-off' } as const;
    // [label, form, the input the sentence sits beside (or the section's), the sentence]
    const cases: Array<[string, Record<string, string>, string, string]> = [
      [
        'no title',
        documentForm({ title: '  ', recipients: [ann] }),
        'title',
        'Title must be 1 to 200 characters.',
      ],
      ['no recipient', documentForm({ title: 'Offer' }), 'recipients', 'A document has 1 to 20 recipients.'],
      [
        'no signer',
        documentForm({ title: 'Offer', recipients: [{ ...ann, role: 'viewer' }] }),
        'recipients',
        'A document needs at least one signer.',
      ],
      [
        'an invalid email',
        documentForm({ title: 'Offer', recipients: [ann, { email: 'bob@', name: 'Bob Ray' }] }),
        'r1_email',
        'Recipient 2: the email address is not valid.',
      ],
      [
        'a duplicate email',
        documentForm({
          title: 'Offer',
          recipients: [ann, { email: 'ANN@client.example', name: 'Ann Again' }],
        }),
        'r1_email',
        'Recipient 2: ANN@client.example is listed twice.',
      ],
      [
        'a name missing',
        documentForm({ title: 'Offer', recipients: [{ email: 'ann@client.example', name: '' }] }),
        'r0_name',
        'Recipient 1: full name must be 1 to 200 characters.',
      ],
      [
        'a price that is not a number',
        documentForm({ title: 'Offer', recipients: [ann], prices: [badPrice] }),
        'p0_price',
        'Line 1: unit price must be a number such as 2, 19.99 or 0.0125 (up to 15 digits before the point and 6 after).',
      ],
      [
        'an unknown currency',
        documentForm({
          title: 'Offer',
          recipients: [ann],
          currency: 'XYZ',
          prices: [{ ...badPrice, price: '10' }],
        }),
        'currency',
        'Currency must be an ISO 4217 currency code in capitals, such as "EUR".',
      ],
    ];
    const sections: Record<string, string> = { recipients: 'recipients-title', pricing: 'pricing-title' };
    for (const [label, form, input, sentence] of cases) {
      assertPage(await client.get('/documents/new'), 200);
      const res = await client.post('/documents', form);
      assertPage(res, 400);
      const escaped = escapeHtml(sentence);
      const beside = sections[input]
        ? `<p class="field-error" id="${input}-error" role="alert">${escaped}</p>`
        : `<span class="field-error" id="${input}-error">${escaped}</span>`;
      assert.ok(res.text.includes(beside), `${label}: «${sentence}» beside ${input}`);
      assert.ok(
        res.text.includes(`<li><a href="#${sections[input] ?? input}">${escaped}</a></li>`),
        `${label}: in the summary`,
      );
      assert.ok(
        res.text.includes('<strong>One thing to fix</strong>'),
        `${label}: one problem, one sentence`,
      );
      assert.ok(res.text.includes('action="/documents"'), `${label}: the form is shown again`);
      if (form.title?.trim())
        assert.ok(res.text.includes(`value="${form.title}"`), `${label}: the title is kept`);
      assert.equal(await documentCount(owner.workspaceId), 0, `${label}: nothing was created`);
    }
  });

  test('new document: a valid form creates a draft (303 to /documents/{id}) whose API detail matches what was typed; blank rows are ignored', async () => {
    const owner = await newOwner();
    const client = await signedIn(owner);
    assertPage(await client.get('/documents/new'), 200);
    const form = documentForm({
      title: '  Supply agreement  ',
      body: 'The supplier supplies.\n\nThe buyer pays.',
      recipientRows: 6,
      recipients: [
        { email: 'ann@client.example', name: 'Ann Lee', role: 'signer', method: 'standard', order: '1' },
        null,
        { email: 'bob@client.example', name: ' Bob Ray ', role: 'signer', method: 'email-code', order: '2' },
        null,
        null,
        { email: 'val@client.example', name: 'Val Kim', role: 'viewer', method: 'standard', order: '3' },
      ],
    });
    const res = await client.post('/documents', form);
    assert.equal(res.status, 303, res.text.slice(0, 2000));
    const id = /^\/documents\/([0-9a-f-]{36})$/.exec(res.location ?? '')?.[1];
    assert.ok(id && uuidPattern.test(id), `${res.location}`);

    const detail = await apiDetail(owner, id);
    assert.equal(detail.title, 'Supply agreement');
    assert.equal(detail.status, 'draft');
    assert.equal(detail.value, null);
    assert.deepEqual(detail.events, []);
    assert.deepEqual(
      detail.recipients.map((r) => [
        r.email,
        r.fullName,
        r.role,
        r.signingMethod,
        r.signingOrder,
        r.signedAt,
      ]),
      [
        ['ann@client.example', 'Ann Lee', 'signer', 'standard', 1, null],
        ['bob@client.example', 'Bob Ray', 'signer', 'email-code', 2, null],
        ['val@client.example', 'Val Kim', 'viewer', 'standard', 3, null],
      ],
    );
    const stored = await h.ctx.db
      .selectFrom('documents')
      .select('body')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.body.replaceAll('\r\n', '\n'), 'The supplier supplies.\n\nThe buyer pays.');
    assert.equal(await documentCount(owner.workspaceId), 1);
    assert.equal(await mailCountOf(id), 0, 'a draft mails nobody');

    const page = await client.get(res.location as string);
    assertPage(page, 200);
    assert.ok(page.text.includes('<h1>Supply agreement</h1>'));
    const list = await client.get('/documents');
    assert.deepEqual(rowsOf(list.text), [{ id, status: 'draft' }]);
  });

  // ---------------------------------------------------------------- the detail page

  test('detail: a draft shows its status, recipients and timeline; sending it makes it sent, the page shows the signing link of each recipient mailed (a later signer’s once their turn comes, none before), and each link opens the signing page; sending twice answers 409 and changes nothing', async () => {
    const owner = await newOwner();
    const client = await signedIn(owner);
    const { id } = await createDraftDocument(h.ctx, owner.workspaceId, { recipients: withViewer });
    const emails = withViewer.map((r) => r.email);

    const draft = await client.get(`/documents/${id}`);
    assertPage(draft, 200);
    assert.ok(
      draft.text.includes('<h1>Consulting agreement</h1><span class="badge badge-neutral">draft</span>'),
    );
    assert.ok(draft.text.includes(`href="/documents/${id}/send"`), 'a send button (to its confirmation)');
    for (const r of withViewer) {
      const item = recipientItem(draft.text, r.email);
      assert.ok(item.startsWith(`${escapeHtml(r.fullName)}</span>`), item);
      assert.ok(item.includes(`${r.role}, order ${r.signingOrder}, ${r.signingMethod}`), item);
      assert.ok(item.includes('not sent'), item);
      assert.ok(!item.includes('<code'), 'no link before sending');
    }
    assert.ok(draft.text.includes('Nothing has happened yet: the document is a draft.'));

    h.clock.advance(minute);
    const sent = await client.post(`/documents/${id}/send`);
    assertRedirect(sent, `/documents/${id}`);
    let detail = await apiDetail(owner, id);
    assert.equal(detail.status, 'sent');
    assert.equal(detail.events.length, 1);
    // The first signing group is mailed: Ann (order 1) and the viewer Val; Bob (order 2) at his turn.
    const firstGroup = ['ann@client.example', 'val@client.example'];
    const bob = 'bob@client.example';
    const mailedTo = async () =>
      (await listMails(h.ctx, { documentId: id, limit: 1000 })).map((m) => m.to).sort();
    assert.deepEqual(await mailedTo(), firstGroup, 'one mail per recipient of the first group');
    const mails = await mailCountOf(id);

    const page = await client.get(`/documents/${id}`);
    assertPage(page, 200);
    assert.ok(page.text.includes('<span class="badge badge-pending">sent</span>'));
    assert.ok(!page.text.includes(`href="/documents/${id}/send"`), 'no send button any more');
    assert.ok(page.text.includes(`<dt>Sent</dt><dd>${formatTime(h.clock.now().toISOString(), 'UTC')}</dd>`));
    assert.ok(
      page.text.includes(
        `${formatTime(h.clock.now().toISOString(), 'UTC', true)}: Sent <code>document.sent</code>`,
      ),
    );
    const links = signingLinksOnPage(page.text, emails);
    assert.deepEqual([...links.keys()], firstGroup, 'a link for each recipient mailed');
    const mailed = await signingLinksOf(h.ctx, id);
    for (const email of firstGroup) {
      assert.equal(links.get(email), mailed.get(email)?.path, `${email}: the link that was mailed`);
      assert.ok(recipientItem(page.text, email).includes('waiting'), email);
    }
    const queued = recipientItem(page.text, bob);
    assert.ok(!queued.includes('<code'), 'no link for Bob: none was mailed to him yet');
    assert.ok(
      queued.includes('<span class="badge badge-neutral">mailed at their turn</span>'),
      `Bob is shown as mailed at his turn: ${queued}`,
    );

    // Sending again is refused and changes nothing: not the status, the events, the mails or the links.
    const twice = await client.post(`/documents/${id}/send`);
    assertPage(twice, 409);
    assert.ok(
      twice.text.includes(
        `<div class="notice notice-error" role="alert">${escapeHtml(refusalMessages['not-allowed'])}</div>`,
      ),
      twice.text.slice(0, 3000),
    );
    assert.ok(twice.text.includes('<h1>Consulting agreement</h1>'), 'the detail page with the sentence');
    detail = await apiDetail(owner, id);
    assert.equal(detail.status, 'sent');
    assert.equal(detail.events.length, 1);
    assert.equal(await mailCountOf(id), mails);

    for (const [email, path] of links) {
      const signing = await browser().get(path);
      assertPage(signing, 200);
      assert.ok(signing.text.includes('Consulting agreement'), email);
    }
    detail = await apiDetail(owner, id);
    assert.equal(detail.status, 'sent', 'fetching the pages is not viewing them');
    // What a browser does next: it loads the pages' images (signing/opening.ts).
    for (const [, path] of links) assert.equal((await browser().get(`${path}/pages/1`)).status, 200);
    detail = await apiDetail(owner, id);
    assert.equal(detail.status, 'viewed', 'the links opened the document');
    const opened = await client.get(`/documents/${id}`);
    for (const email of firstGroup) assert.ok(recipientItem(opened.text, email).includes('opened'), email);
    assert.ok(!recipientItem(opened.text, bob).includes('<code'), 'still no link for Bob');

    // Ann signs: Bob's turn comes, he is mailed, and the page shows his link, which opens the signing page.
    const ann = browser();
    const annPath = links.get('ann@client.example') as string;
    assertPage(await ann.get(annPath), 200);
    const signed = await ann.post(`${annPath}/sign`, { fullName: 'Ann Lee', consent: 'yes' });
    assert.equal(signed.status, 303, signed.text.slice(0, 500));
    assert.deepEqual(await mailedTo(), [...firstGroup, bob].sort(), 'Bob is mailed, once');
    const bobsTurn = await client.get(`/documents/${id}`);
    const bobPath = signingLinksOnPage(bobsTurn.text, [bob]).get(bob);
    assert.ok(bobPath, 'Bob’s link shows once mailed');
    assert.equal(
      bobPath,
      (await signingLinksOf(h.ctx, id)).get(bob)?.path,
      'the link that was mailed to Bob',
    );
    const bobsPage = await browser().get(bobPath);
    assertPage(bobsPage, 200);
    assert.ok(bobsPage.text.includes('Consulting agreement'));
    assert.ok(bobsPage.text.includes(`action="${bobPath}/sign"`), 'his turn: the sign form');
    assert.match(
      recipientItem((await client.get(`/documents/${id}`)).text, bob),
      /link fetched .*, not viewed/,
    );
    // His browser loads the pages' images: viewed (signing/opening.ts).
    assert.equal((await browser().get(`${bobPath}/pages/1`)).status, 200);
    assert.ok(recipientItem((await client.get(`/documents/${id}`)).text, bob).includes('opened'));
  });

  test('detail: after a recipient signs on the signing page, the detail shows them signed and the timeline has document.signed', async () => {
    const owner = await newOwner();
    const client = await signedIn(owner);
    const { id } = await createDraftDocument(h.ctx, owner.workspaceId);
    assertPage(await client.get(`/documents/${id}`), 200);
    assertRedirect(await client.post(`/documents/${id}/send`), `/documents/${id}`);
    const page = await client.get(`/documents/${id}`);
    const links = signingLinksOnPage(page.text, ['ann@client.example', 'bob@client.example']);
    const annPath = links.get('ann@client.example');
    assert.ok(annPath);

    h.clock.advance(minute);
    const recipient = browser();
    assertPage(await recipient.get(annPath), 200);
    h.clock.advance(minute);
    const signed = await recipient.post(`${annPath}/sign`, { fullName: 'Ann Lee', consent: 'yes' });
    assert.equal(signed.status, 303, signed.text.slice(0, 500));
    const signedAt = h.clock.now().toISOString();

    const after = await client.get(`/documents/${id}`);
    assertPage(after, 200);
    assert.ok(
      recipientItem(after.text, 'ann@client.example').includes(
        `<span class="badge badge-success">signed ${formatTime(signedAt, 'UTC')}</span>`,
      ),
      recipientItem(after.text, 'ann@client.example'),
    );
    assert.ok(
      !recipientItem(after.text, 'bob@client.example').includes('badge-success'),
      'Bob has not signed',
    );
    assert.ok(
      after.text.includes(
        `${formatTime(signedAt, 'UTC', true)}: Signed (ann@client.example) <code>document.signed</code>`,
      ),
      after.text,
    );
    const timeline = [...after.text.matchAll(/<code>(document\.[a-z]+)<\/code>/g)].map((m) => m[1]);
    assert.deepEqual(timeline, ['document.sent', 'document.opened', 'document.signed']);
    const detail = await apiDetail(owner, id);
    assert.equal(detail.recipients.find((r) => r.email === 'ann@client.example')?.signedAt, signedAt);
    assert.deepEqual(
      detail.events.map((e) => e.type),
      timeline,
    );
  });

  // ---------------------------------------------------------------- the mail outbox

  test('your mail: GET /mails lists only the mails addressed to the signed-in person, of any workspace', async () => {
    const owner = await newOwner();
    const other = await newOwner();
    const mine = await createDocument(h.ctx, {
      workspaceId: owner.workspaceId,
      title: 'Alpha agreement',
      body: 'The parties agree.',
      recipients: [signer('alpha-signer@client.example'), signer(owner.email.toUpperCase())],
      pricing: null,
    });
    const theirs = await createDocument(h.ctx, {
      workspaceId: other.workspaceId,
      title: 'Beta agreement',
      body: 'The parties agree.',
      recipients: [signer('beta-signer@client.example'), signer(owner.email)],
      pricing: null,
    });
    const client = await signedIn(owner);
    const otherClient = await signedIn(other);
    for (const [c, id] of [
      [client, mine.id],
      [otherClient, theirs.id],
    ] as const) {
      assertPage(await c.get(`/documents/${id}`), 200);
      assertRedirect(await c.post(`/documents/${id}/send`), `/documents/${id}`);
    }
    await requestSignup(h.ctx, { email: uniqueEmail('signup'), password, workspaceName: 'Gamma' });

    const page = await client.get('/mails');
    assertPage(page, 200);
    assert.equal((page.text.match(/<details class="card">/g) ?? []).length, 2);
    assert.ok(page.text.includes('<strong>Please sign: Alpha agreement</strong>'));
    assert.ok(
      page.text.includes('<strong>Please sign: Beta agreement</strong>'),
      'addressed to them from another workspace',
    );
    assert.ok(!page.text.includes('alpha-signer@client.example'), 'no mail to anyone else');
    assert.ok(!page.text.includes('beta-signer@client.example'));
    assert.ok(!page.text.includes('Confirm your Signet account'), 'no mail of no workspace');

    const theirPage = await otherClient.get('/mails');
    assertPage(theirPage, 200);
    assert.ok(!theirPage.text.includes('Please sign'), 'the other owner was sent nothing');
    assert.ok(theirPage.text.includes('No mails yet.'));
    assert.ok(!theirPage.text.includes('<details'));
  });

  // ---------------------------------------------------------------- isolation

  test('isolation: a member of another workspace gets the same 404 page for that workspace’s document id, a random UUID and a non-UUID on the detail page and on send; the draft stays a draft', async () => {
    const ownerA = await newOwner();
    const ownerB = await newOwner();
    const memberB = await newMember(ownerB);
    const draft = await createDraftDocument(h.ctx, ownerA.workspaceId, {
      title: 'Secret merger terms',
      body: 'Confidential.',
    });
    const client = await signedIn(memberB);
    const routes: Array<{ method: 'GET' | 'POST'; path: (id: string) => string }> = [
      { method: 'GET', path: (id) => `/documents/${id}` },
      { method: 'POST', path: (id) => `/documents/${id}/send` },
    ];
    for (const route of routes) {
      const name = `${route.method} ${route.path('{id}')}`;
      const page = await assertSameNotFound(client, '/documents', route, probeIds(draft.id));
      assert.ok(!page.includes('Secret merger terms'), name);
      assert.ok(!page.includes('ann@client.example'), name);
    }
    const detail = await apiDetail(ownerA, draft.id);
    assert.equal(detail.status, 'draft');
    assert.deepEqual(detail.events, []);
    assert.equal(await mailCountOf(draft.id), 0);
    // Its own workspace's owner does see it.
    assertPage(await (await signedIn(ownerA)).get(`/documents/${draft.id}`), 200);
  });

  // ---------------------------------------------------------------- CSRF

  test('CSRF: creating or sending a document without a token or with another session’s token is 403, and nothing is created or sent', async () => {
    const owner = await newOwner();
    const client = await signedIn(owner);
    const draft = await createDraftDocument(h.ctx, owner.workspaceId, { title: 'Draft' });
    const otherToken = await tokenOfAnotherSession();
    const form = documentForm({
      title: 'Forged',
      recipients: [{ email: 'ann@client.example', name: 'Ann Lee' }],
    });
    const posts: Array<[string, string, Record<string, string>, string]> = [
      ['create', '/documents', form, '/documents/new'],
      ['preview', '/documents', { ...form, preview: '1' }, '/documents/new'],
      ['send', `/documents/${draft.id}/send`, {}, `/documents/${draft.id}`],
    ];
    for (const [label, path, fields, formPage] of posts) {
      assertPage(await client.get(formPage), 200);
      await assertForgeriesRefused(client, path, fields, otherToken, label);
    }
    assert.equal(await documentCount(owner.workspaceId), 1, 'nothing was created');
    const detail = await apiDetail(owner, draft.id);
    assert.equal(detail.status, 'draft', 'nothing was sent');
    assert.deepEqual(detail.events, []);
    assert.equal(await mailCountOf(draft.id), 0);
    // With the page's own token both work.
    assertPage(await client.get(`/documents/${draft.id}`), 200);
    assertRedirect(await client.post(`/documents/${draft.id}/send`), `/documents/${draft.id}`);
  });

  // ---------------------------------------------------------------- visitors

  test('visitors: every documents page redirects 303 to /login?next=<the page>, and logging in returns there; a visitor’s POST goes to /login and does nothing', async () => {
    const owner = await newOwner();
    const { id } = await createDraftDocument(h.ctx, owner.workspaceId, { title: 'Draft', body: '' });
    const paths = [
      '/documents',
      '/documents?status=signed',
      '/documents?status=draft&cursor=abc',
      '/documents/new',
      `/documents/${id}`,
      '/documents/not-a-uuid',
      '/mails',
    ];
    for (const path of paths) {
      const res = await browser().get(path);
      assertRedirect(res, loginNext(path));
    }
    const client = browser();
    assertRedirect(await client.get(`/documents/${id}`), loginNext(`/documents/${id}`));
    assertRedirect(await logIn(client, owner.email, `/documents/${id}`), `/documents/${id}`);
    assertPage(await client.get(`/documents/${id}`), 200);

    const visitor = browser();
    assertPage(await visitor.get('/login'), 200);
    const form = documentForm({
      title: 'By a visitor',
      recipients: [{ email: 'ann@client.example', name: 'Ann Lee' }],
    });
    assertRedirect(await visitor.post('/documents', form), '/login');
    assertRedirect(await visitor.post(`/documents/${id}/send`), '/login');
    assert.equal(await documentCount(owner.workspaceId), 1, 'nothing was created');
    assert.equal((await apiDetail(owner, id)).status, 'draft', 'nothing was sent');
  });
});
