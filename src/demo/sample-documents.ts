// Realistic sample documents for demos, benchmarks and tests: every status, recipients
// whose progress matches it, the event history that got it there, and prices in several
// currencies (VAT-inclusive and exclusive, one-off and subscriptions). Deterministic for
// a given random source.
import type { Ids } from '../context.ts';
import type { DocumentStatus, RecipientRole, SigningMethod } from '../db/schema.ts';
import type { NewDocumentRow, NewEventRow, NewRecipientRow } from '../documents/documents.repository.ts';
import { documentStatuses } from '../documents/lifecycle.ts';
import { computeValueAmount, type LineItem, type PricingBlock } from '../documents/value.ts';

export interface DocumentGraph {
  document: NewDocumentRow;
  recipients: NewRecipientRow[];
  events: NewEventRow[];
}

export interface SampleRecipient {
  email: string;
  fullName: string;
  role: RecipientRole;
  signingMethod: SigningMethod;
  signingOrder: number;
}

export interface SampleDocumentInput {
  workspaceId: string;
  createdAt: Date;
  status?: DocumentStatus;
  title?: string;
  pricing?: PricingBlock | null;
  recipients?: SampleRecipient[];
}

/** A small seeded PRNG (mulberry32): the same seed gives the same documents. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const statuses = documentStatuses;
const titles = [
  'Master Services Agreement',
  'Mutual NDA',
  'Website redesign proposal',
  'Annual support subscription',
  'Consulting engagement letter',
  'Office lease renewal',
  'Software licence order form',
  'Statement of work: data migration',
  'Employment offer',
  'Sponsorship agreement',
];
const companies = [
  'Acme',
  'Globex',
  'Initech',
  'Umbrella',
  'Hooli',
  'Stark Industries',
  'Wayne Enterprises',
  'Tyrell',
];
const people = [
  ['Ada', 'Lovelace'],
  ['Grace', 'Hopper'],
  ['Alan', 'Turing'],
  ['Katherine', 'Johnson'],
  ['Linus', 'Torvalds'],
  ['Margaret', 'Hamilton'],
  ['Tim', 'Berners-Lee'],
  ['Barbara', 'Liskov'],
] as const;
const pricingProfiles: Array<{ currency: string; vat: string; includeVat: boolean; scale: number }> = [
  { currency: 'EUR', vat: '21', includeVat: false, scale: 1 },
  { currency: 'EUR', vat: '19', includeVat: true, scale: 1 },
  { currency: 'USD', vat: '0', includeVat: false, scale: 1 },
  { currency: 'GBP', vat: '20', includeVat: true, scale: 1 },
  { currency: 'CHF', vat: '8.1', includeVat: false, scale: 1 },
  { currency: 'JPY', vat: '10', includeVat: true, scale: 150 },
  { currency: 'KWD', vat: '0', includeVat: false, scale: 0.3 },
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function samplePricing(random: () => number): PricingBlock | null {
  if (random() < 0.2) return null;
  const profile = pick(random, pricingProfiles);
  const digits = profile.currency === 'JPY' ? 0 : profile.currency === 'KWD' ? 3 : 2;
  const price = (base: number) => (base * profile.scale).toFixed(digits);
  const items: LineItem[] = [
    {
      name: 'Implementation',
      quantity: String(1 + Math.floor(random() * 40)),
      unitPrice: price(95 + Math.floor(random() * 60) + 0.5),
      vatRate: profile.vat,
      billing: { type: 'one-off' },
    },
  ];
  if (random() < 0.5) {
    items.push({
      name: 'Platform subscription',
      quantity: '1',
      unitPrice: price(49.99 + Math.floor(random() * 200)),
      vatRate: profile.vat,
      billing: { type: 'recurring', interval: 'month', periods: pick(random, [12, 24, 36]) },
    });
  }
  return { currency: profile.currency, pricesIncludeVat: profile.includeVat, items };
}

function sampleRecipients(random: () => number): SampleRecipient[] {
  const company = pick(random, companies).toLowerCase().replaceAll(' ', '');
  const count = 1 + Math.floor(random() * 3);
  const recipients: SampleRecipient[] = [];
  for (let i = 0; i < count; i++) {
    const [first, last] = pick(random, people);
    recipients.push({
      email: `${first.toLowerCase()}.${last.toLowerCase()}+${i}@${company}.example`,
      fullName: `${first} ${last}`,
      role: i === count - 1 && count > 1 && random() < 0.3 ? 'viewer' : 'signer',
      signingMethod: random() < 0.25 ? 'email-code' : 'standard',
      signingOrder: random() < 0.5 ? 1 : i + 1,
    });
  }
  if (!recipients.some((r) => r.role === 'signer') && recipients[0]) recipients[0].role = 'signer';
  return recipients;
}

const minute = 60_000;

export function sampleDocument(random: () => number, ids: Ids, input: SampleDocumentInput): DocumentGraph {
  const status = input.status ?? pick(random, statuses);
  const pricing = input.pricing === undefined ? samplePricing(random) : input.pricing;
  const documentId = ids.uuid();
  const created = input.createdAt.getTime();
  const sentAt = status === 'draft' ? null : new Date(created + 5 * minute);
  // Expired samples had a short offer window, so their expiry lies in the past too.
  const expiryMs = status === 'expired' ? 3 * 60 * minute : 30 * 24 * 60 * minute;
  const expiresAt = sentAt ? new Date(sentAt.getTime() + expiryMs) : null;
  const recipientsIn = input.recipients ?? sampleRecipients(random);
  const events: NewEventRow[] = [];
  const event = (type: string, at: number, recipient: NewRecipientRow | null) =>
    events.push({
      id: ids.uuid(),
      workspace_id: input.workspaceId,
      document_id: documentId,
      type,
      recipient_id: recipient?.id ?? null,
      recipient_email: recipient?.email ?? null,
      created_at: new Date(at),
    });

  const recipients: NewRecipientRow[] = recipientsIn.map((r, position) => ({
    id: ids.uuid(),
    workspace_id: input.workspaceId,
    document_id: documentId,
    position,
    email: r.email,
    full_name: r.fullName,
    role: r.role,
    signing_method: r.signingMethod,
    signing_order: r.signingOrder,
    signed_at: null,
    created_at: input.createdAt,
  }));

  let at = created + 5 * minute;
  let signedAt: Date | null = null;
  if (sentAt) event('document.sent', at, null);
  if (status === 'viewed' || status === 'signed' || status === 'declined') {
    at += 30 * minute;
    event('document.opened', at, recipients[0] ?? null);
  }
  if (status === 'signed') {
    for (const recipient of recipients) {
      if (recipient.role !== 'signer') continue;
      at += 60 * minute;
      recipient.signed_at = new Date(at);
      event('document.signed', at, recipient);
    }
    event('document.completed', at, null);
    signedAt = new Date(at);
  }
  if (status === 'declined') event('document.declined', at + 10 * minute, recipients[0] ?? null);
  if (status === 'expired' && expiresAt) event('document.expired', expiresAt.getTime(), null);

  return {
    document: {
      id: documentId,
      workspace_id: input.workspaceId,
      title: input.title ?? `${pick(random, titles)} — ${pick(random, companies)}`,
      body: 'This agreement is made between the parties named below. By signing, each party accepts its terms.',
      status,
      created_at: input.createdAt,
      sent_at: sentAt,
      signed_at: signedAt,
      expires_at: expiresAt,
      pricing: pricing ? JSON.stringify(pricing) : null,
      value_amount: pricing ? computeValueAmount(pricing) : null,
      value_currency: pricing ? pricing.currency : null,
    },
    recipients,
    events,
  };
}
