// **The** two kinds of a document's history (issue 36). Webhook events are the spec's: each
// is stored in the history, listed by the API's document detail, and delivered to endpoints.
// History events are the audit trail's alone: the owner's timeline and the certificate of
// completion show them; the API never lists them and no endpoint ever receives them.
import { type MessageKey, type Translator, translator } from '../i18n/messages.ts';

export const documentEventTypes = [
  'document.sent',
  'document.opened',
  'document.signed',
  'document.completed',
  'document.declined',
  'document.expired',
] as const;

export type DocumentEventType = (typeof documentEventTypes)[number];

export const historyEventTypes = [
  /** The link's page was fetched, the document not (yet) viewed: a scanner, a preview, curl. */
  'link.fetched',
  /** A signer was mailed their link again; detail: 'by hand' or 'automatic'. */
  'reminder.sent',
  /** A one-time code was mailed to an email-code signer. */
  'code.sent',
  /** A one-time code was refused; detail: why. */
  'code.refused',
  /** A one-time code was accepted (the signature follows). */
  'code.accepted',
  /** The sender withdrew the document (the API's document.expired follows); detail: the reason. */
  'document.withdrawn',
] as const;

export type HistoryEventType = (typeof historyEventTypes)[number];

/** How the history (the owner's timeline, the certificate) names each kind of event. */
const historyKeys: Record<DocumentEventType | HistoryEventType, MessageKey> = {
  'document.sent': 'history.document.sent',
  'document.opened': 'history.document.opened',
  'document.signed': 'history.document.signed',
  'document.completed': 'history.document.completed',
  'document.declined': 'history.document.declined',
  'document.expired': 'history.document.expired',
  'link.fetched': 'history.link.fetched',
  'reminder.sent': 'history.reminder.sent',
  'code.sent': 'history.code.sent',
  'code.refused': 'history.code.refused',
  'code.accepted': 'history.code.accepted',
  'document.withdrawn': 'history.document.withdrawn',
};

/**
 * The details Signet itself writes (signing/codes.ts, sending/reminders.ts), each a sentence of
 * the catalogues; any other detail is a person's own words (a decline's or a withdrawal's
 * reason), shown as they wrote it.
 */
function signetDetail(type: string, detail: string, tr: Translator): string | null {
  if (type === 'reminder.sent') {
    if (detail === 'by hand') return tr.t('history.reminder.byHand');
    if (detail === 'automatic') return tr.t('history.reminder.automatic');
  }
  if (type === 'code.refused') {
    const wrong = /^wrong code \((\d+) of (\d+) tries\)$/.exec(detail);
    if (wrong) return tr.t('history.code.wrong', { attempt: wrong[1] ?? '', max: wrong[2] ?? '' });
    if (detail === 'expired code') return tr.t('history.code.expired');
    if (detail === 'too many wrong codes: the code is void') return tr.t('history.code.void');
  }
  return null;
}

/**
 * "Reminder sent (automatic)", "Declined: the price is wrong": an event as the history reads,
 * in `tr`'s language (English unless given).
 */
export function historyLabel(type: string, detail: string | null, tr: Translator = translator('en')): string {
  const key = historyKeys[type as DocumentEventType];
  const label = key ? tr.t(key) : type;
  if (!detail) return label;
  return signetDetail(type, detail, tr) ?? tr.t('history.withDetail', { label, detail });
}
