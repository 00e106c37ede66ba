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

export const refusalMessages: Record<Refusal, string> = {
  'not-allowed': 'This document can no longer be changed that way.',
  'not-a-draft': 'This document has been sent, so it can no longer be edited.',
  'not-remindable': 'Only a signer whose turn it is and who has not signed yet can be reminded.',
  'reminded-recently': 'This signer was reminded less than an hour ago; remind them again later.',
  expired: 'This document has expired.',
  'no-signers': 'A document needs at least one signer before it can be sent.',
  'nothing-to-send':
    'This document has neither a PDF nor any text, so there is nothing to sign: give it its PDF or its text, then send it.',
  'not-a-signer': 'Only signers can sign or decline this document.',
  'already-signed': 'You have already signed this document.',
  'not-your-turn': 'It is not your turn to sign yet.',
  'consent-required': 'Please tick the box to agree to sign electronically.',
  'name-mismatch': 'Please type your full name exactly as shown on the document.',
  'code-required': 'Please enter the 6-digit code we sent you.',
  'code-invalid': 'That code is not right. Check the latest email and try again.',
  'code-expired': 'That code has expired. Send yourself a new one.',
  'code-attempts-exceeded': 'Too many wrong codes. Send yourself a new one.',
  'code-too-soon': 'A code was sent less than a minute ago. Please check your email.',
  'not-email-code': 'This recipient does not sign with an email code.',
};

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
