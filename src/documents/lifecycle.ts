// The document state machine, written once. Every status change goes through
// `nextStatus`; anything it does not list is refused.
//
//   draft ──edit──► draft (fields placed, moved, removed: only before it is sent)
//   draft ──send──► sent ──open──► viewed
//                    │               │
//                    ├──sign─────────┤ (a signer signs; others still to sign)
//                    ├──complete─────┴──► signed    (the last signer signed)
//                    ├──decline──────────► declined (any signer declined)
//                    ├──expire───────────► expired  (expiresAt passed)
//                    └──withdraw─────────► expired  (the sender withdrew it)
//
// `sent` and `viewed` are the active states: the only ones a recipient can act in
// (`activeStatuses`, read off the table below).
import { type MessageKey, translator } from '../i18n/messages.ts';

/** Every status a document can have, in lifecycle order: the one list (API schema, pages, demo). */
export const documentStatuses = ['draft', 'sent', 'viewed', 'signed', 'declined', 'expired'] as const;
export type DocumentStatus = (typeof documentStatuses)[number];

/** A signer signs; a viewer only receives the document. */
/**
 * Why an `expired` document ended (the spec's statuses and event types stay closed lists, so
 * the reason goes beside them): `withdrawn` by its sender, or `lapsed` when its time ran out.
 */
export const expiredReasons = ['withdrawn', 'lapsed'] as const;
export type ExpiredReason = (typeof expiredReasons)[number];

/** An expired document's reason (withdrawn when it has a withdrawal time), null for any other status. */
export function expiredReasonOf(status: DocumentStatus, withdrawnAt: Date | null): ExpiredReason | null {
  if (status !== 'expired') return null;
  return withdrawnAt ? 'withdrawn' : 'lapsed';
}

export const recipientRoles = ['signer', 'viewer'] as const;
export type RecipientRole = (typeof recipientRoles)[number];

/** standard: the signing link, a typed name and consent; email-code: also a one-time code mailed to them. */
export const signingMethods = ['standard', 'email-code'] as const;

export type DocumentAction =
  | 'edit'
  | 'send'
  | 'open'
  | 'sign'
  | 'complete'
  | 'decline'
  | 'expire'
  | 'withdraw';

const active = {
  open: 'viewed',
  sign: 'viewed',
  complete: 'signed',
  decline: 'declined',
  expire: 'expired',
  withdraw: 'expired',
} as const;

const transitions: Record<DocumentStatus, Partial<Record<DocumentAction, DocumentStatus>>> = {
  draft: { edit: 'draft', send: 'sent' },
  sent: active,
  viewed: active,
  signed: {},
  declined: {},
  expired: {},
};

/** Why an action on a document was refused; each has a message for people in `refusalMessages`. */
export type Refusal =
  | 'not-allowed'
  | 'not-a-draft'
  | 'not-remindable'
  | 'reminded-recently'
  | 'expired'
  | 'no-signers'
  | 'nothing-to-send'
  | 'not-a-signer'
  | 'already-signed'
  | 'not-your-turn'
  | 'consent-required'
  | 'name-mismatch'
  | 'code-required'
  | 'code-invalid'
  | 'code-expired'
  | 'code-attempts-exceeded'
  | 'code-too-soon'
  | 'not-email-code';

/** Each refusal's sentence, a key of the catalogues (i18n/): a recipient reads it in their language. */
export const refusalKeys: Record<Refusal, MessageKey> = {
  'not-allowed': 'refusal.not-allowed',
  'not-a-draft': 'refusal.not-a-draft',
  'not-remindable': 'refusal.not-remindable',
  'reminded-recently': 'refusal.reminded-recently',
  expired: 'refusal.expired',
  'no-signers': 'refusal.no-signers',
  'nothing-to-send': 'refusal.nothing-to-send',
  'not-a-signer': 'refusal.not-a-signer',
  'already-signed': 'refusal.already-signed',
  'not-your-turn': 'refusal.not-your-turn',
  'consent-required': 'refusal.consent-required',
  'name-mismatch': 'refusal.name-mismatch',
  'code-required': 'refusal.code-required',
  'code-invalid': 'refusal.code-invalid',
  'code-expired': 'refusal.code-expired',
  'code-attempts-exceeded': 'refusal.code-attempts-exceeded',
  'code-too-soon': 'refusal.code-too-soon',
  'not-email-code': 'refusal.not-email-code',
};

/** Each refusal's sentence in English: the message of a DocumentActionError (logs, the API's `message`, the sender's pages). */
export const refusalMessages: Record<Refusal, string> = Object.fromEntries(
  Object.entries(refusalKeys).map(([refusal, key]) => [refusal, translator('en').t(key)]),
) as Record<Refusal, string>;

export class DocumentActionError extends Error {
  readonly refusal: Refusal;
  constructor(refusal: Refusal) {
    super(refusalMessages[refusal]);
    this.name = 'DocumentActionError';
    this.refusal = refusal;
  }
}

export function canTransition(status: DocumentStatus, action: DocumentAction): boolean {
  return transitions[status][action] !== undefined;
}

/** The status after `action`, or a refusal when the state machine does not allow it. */
export function nextStatus(status: DocumentStatus, action: DocumentAction): DocumentStatus {
  const next = transitions[status][action];
  if (next === undefined) throw new DocumentActionError('not-allowed');
  return next;
}

/** The statuses in which a recipient can act: those the state machine lets a signer sign in. */
export const activeStatuses: readonly DocumentStatus[] = documentStatuses.filter((status) =>
  canTransition(status, 'sign'),
);

export function isActive(status: DocumentStatus): boolean {
  return activeStatuses.includes(status);
}

interface SignerState {
  id: string;
  role: RecipientRole;
  signing_order: number;
  signed_at: Date | null;
}

/**
 * Signers who must sign before `recipient` may (spec of signingOrder: a signer signs only
 * after every signer with a lower order has signed; equal orders sign in parallel).
 */
export function signersAhead<T extends SignerState>(recipients: T[], recipient: SignerState): T[] {
  return recipients.filter(
    (r) => r.role === 'signer' && r.signing_order < recipient.signing_order && r.signed_at === null,
  );
}

/** `signed` means every recipient with role signer has signed. */
export function isEverySignerDone(recipients: SignerState[]): boolean {
  const signers = recipients.filter((r) => r.role === 'signer');
  return signers.length > 0 && signers.every((r) => r.signed_at !== null);
}

/** The typed name must be the recipient's, ignoring case, accents' encoding and extra spaces. */
export function isSameName(typed: string, expected: string): boolean {
  const normalise = (s: string) => s.normalize('NFC').trim().replace(/\s+/g, ' ').toLocaleLowerCase('en');
  return typed.trim().length > 0 && normalise(typed) === normalise(expected);
}
