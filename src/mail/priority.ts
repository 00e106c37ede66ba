// **The** mail priorities: the closed list every place that queues a mail chooses from, and
// the rank each is stored as (migration 0038), which the outbox's claim orders by
// (mails.repository.ts). What a person is waiting for goes ahead of what can wait: a code
// or a reset mail that waited behind another workspace's bulk send outlived its use.

export const mailPriorities = {
  /**
   * A person is waiting for it now: one-time codes, password resets, sign-up and address
   * confirmations, member invitations, a document's first invitations sent by hand (the
   * web, the CLI, the API, a public link), a signer reminded by hand (their invitation again).
   */
  urgent: 0,
  /** Sent by Signet on its own: automatic reminders, completion copies, notices, later signing groups. */
  automatic: 1,
  /** A bulk send's invitations: thousands at once, which may take their share of the pace. */
  bulk: 2,
} as const;

export type MailPriority = keyof typeof mailPriorities;

/** The rank a priority is stored as: lower goes first. */
export function mailPriorityRank(priority: MailPriority): number {
  return mailPriorities[priority];
}
