// **The** two kinds of a document's history (issue 36). Webhook events are the spec's: each
// is stored in the history, listed by the API's document detail, and delivered to endpoints.
// History events are the audit trail's alone: the owner's timeline and the certificate of
// completion show them; the API never lists them and no endpoint ever receives them.

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
export const historyLabels: Record<DocumentEventType | HistoryEventType, string> = {
  'document.sent': 'Sent',
  'document.opened': 'Opened',
  'document.signed': 'Signed',
  'document.completed': 'Completed',
  'document.declined': 'Declined',
  'document.expired': 'Expired',
  'link.fetched': 'Link fetched, not viewed',
  'reminder.sent': 'Reminder sent',
  'code.sent': 'One-time code sent',
  'code.refused': 'One-time code refused',
  'code.accepted': 'One-time code accepted',
  'document.withdrawn': 'Withdrawn',
};

/** "Reminder sent (automatic)", "Declined: the price is wrong": an event as the history reads. */
export function historyLabel(type: string, detail: string | null): string {
  const label = historyLabels[type as DocumentEventType] ?? type;
  if (!detail) return label;
  return type === 'reminder.sent' ? `${label} (${detail})` : `${label}: ${detail}`;
}
