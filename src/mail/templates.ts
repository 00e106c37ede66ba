// The texts of the mails Signet sends. Plain text: it reads well everywhere and carries
// nothing a mail client could load behind the recipient's back. A recipient's mails are in
// their language (a Translator, i18n/messages.ts: its catalogues hold every sentence), a
// member's in theirs (else the workspace's), an invitation in the inviting member's.
import type { Translator } from '../i18n/messages.ts';

/** A mail's text: its paragraphs, a blank line between, and the sign-off. */
function mailText(tr: Translator, paragraphs: Array<string | null>): string {
  return `${[...paragraphs.filter((p) => p !== null), tr.t('mail.signOff')].join('\n\n')}\n`;
}

export function signingRequestMail(
  tr: Translator,
  input: {
    recipientName: string;
    documentTitle: string;
    workspaceName: string;
    link: string;
    role: 'signer' | 'viewer';
    expiresAt: Date | null;
    /** The workspace's time zone: the expiry is shown in it, named. */
    timeZone: string;
  },
): { subject: string; text: string; fromName: string } {
  const title = input.documentTitle;
  const signer = input.role === 'signer';
  return {
    fromName: tr.t('mail.fromName', { sender: input.workspaceName }),
    subject: tr.t(signer ? 'mail.signingRequest.subjectSigner' : 'mail.signingRequest.subjectViewer', {
      title,
    }),
    text: mailText(tr, [
      tr.t('mail.greetingNamed', { name: input.recipientName }),
      `${tr.t('mail.signingRequest.sent', { workspace: input.workspaceName, title })} ${tr.t(
        signer ? 'mail.signingRequest.askSigner' : 'mail.signingRequest.askViewer',
      )}`,
      input.link,
      input.expiresAt ? tr.t('mail.linkUntil', { time: tr.dateTime(input.expiresAt, input.timeZone) }) : null,
      tr.t('mail.personalLink'),
    ]),
  };
}

/** The personal signing link in a signing-request mail's text, or null. */
export function signingLinkIn(text: string): string | null {
  return /https?:\/\/\S+\/sign\/\S+/.exec(text)?.[0] ?? null;
}

export function signingCodeMail(
  tr: Translator,
  input: { code: string; documentTitle: string; workspaceName: string; validMinutes: number },
): { subject: string; text: string; fromName: string } {
  const title = input.documentTitle;
  return {
    fromName: tr.t('mail.fromName', { sender: input.workspaceName }),
    // The code is in the text only: a subject is shown in notifications and lock screens.
    subject: tr.t('mail.code.subject', { title }),
    text: mailText(tr, [
      tr.t('mail.code.intro', { title, workspace: input.workspaceName }),
      `    ${input.code}`,
      tr.t('mail.code.validity', { minutes: input.validMinutes }),
    ]),
  };
}

export function signupConfirmationMail(
  tr: Translator,
  input: { link: string; workspaceName: string; validHours: number },
): { subject: string; text: string } {
  return {
    subject: tr.t('mail.signup.subject'),
    text: mailText(tr, [
      tr.t('mail.greeting'),
      `${tr.t('mail.signup.body', { workspace: input.workspaceName })}\n\n${input.link}`,
      tr.t('mail.signup.validity', { hours: input.validHours }),
    ]),
  };
}

export function accountExistsMail(
  tr: Translator,
  input: { signInLink: string },
): { subject: string; text: string } {
  return {
    subject: tr.t('mail.accountExists.subject'),
    text: mailText(tr, [
      tr.t('mail.greeting'),
      `${tr.t('mail.accountExists.body')}\n\n${input.signInLink}`,
      tr.t('mail.accountExists.ignore'),
    ]),
  };
}

/** The "Forgot your password?" mail for an address that has an account. */
export function passwordResetMail(
  tr: Translator,
  input: { link: string; validMinutes: number },
): { subject: string; text: string } {
  return {
    subject: tr.t('mail.reset.subject'),
    text: mailText(tr, [
      tr.t('mail.greeting'),
      `${tr.t('mail.reset.body')}\n\n${input.link}`,
      tr.t('mail.reset.validity', { minutes: input.validMinutes }),
    ]),
  };
}

/**
 * The same request for an address without an account: mailed too, so the page's answer
 * ("we sent a mail") is true and the same either way, and the person learns which address
 * is not theirs on Signet.
 */
export function passwordResetNoAccountMail(
  tr: Translator,
  input: { signUpLink: string; logInLink: string },
): { subject: string; text: string } {
  return {
    subject: tr.t('mail.reset.subject'),
    text: mailText(tr, [
      tr.t('mail.greeting'),
      `${tr.t('mail.resetNoAccount.body')}\n\n${input.logInLink}`,
      `${tr.t('mail.resetNoAccount.signUp')}\n\n${input.signUpLink}`,
      tr.t('mail.resetNoAccount.ignore'),
    ]),
  };
}

/** An invitation to join a workspace, in the inviting member's language (accounts/members.service.ts). */
export function invitationMail(
  tr: Translator,
  input: { workspaceName: string; inviter: string; link: string; validDays: number },
): { subject: string; text: string } {
  const workspace = input.workspaceName;
  return {
    subject: tr.t('mail.invitation.subject', { workspace }),
    text: mailText(tr, [
      tr.t('mail.greeting'),
      `${tr.t('mail.invitation.body', { inviter: input.inviter, workspace })}\n\n${input.link}`,
      tr.t('mail.invitation.validity', { days: input.validDays }),
    ]),
  };
}

/** The mail every recipient and the workspace's owners get when a document is sealed. */
export function completionMail(
  tr: Translator,
  input: {
    documentTitle: string;
    workspaceName: string;
    /** The sealed PDF's file name when it is attached, else null and `link` is set. */
    attachmentName: string | null;
    link: string | null;
    linkValidDays: number;
    verifyUrl: string;
  },
): { subject: string; text: string; fromName: string } {
  const title = input.documentTitle;
  return {
    fromName: tr.t('mail.fromName', { sender: input.workspaceName }),
    subject: tr.t('mail.completion.subject', { title }),
    text: mailText(tr, [
      tr.t('mail.greeting'),
      tr.t('mail.completion.everyoneSigned', { title, workspace: input.workspaceName }),
      input.attachmentName
        ? tr.t('mail.completion.attached', { file: input.attachmentName })
        : `${tr.t('mail.completion.tooLarge', { days: input.linkValidDays })}\n\n${input.link}`,
      `${tr.t('mail.completion.sealed', { url: input.verifyUrl })}\n${tr.t('mail.completion.readers')}`,
    ]),
  };
}

/** The mail the sending workspace's owners get when a recipient declines. */
/**
 * Text a stranger typed, quoted in a mail Signet sends so that no mail program makes a link
 * of it: a signing-link holder could otherwise put a phishing link into a mail from the
 * service. Schemes, host names and addresses are defanged the way security teams quote
 * indicators (`https[:]//evil[.]example`, `name[@]example[.]com`), which still reads.
 */
export function unlinked(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*):\/\//gi, '$1[:]//')
    .replace(/@/g, '[@]')
    .replace(/([\p{L}\p{N}_-])\.(?=[\p{L}\p{N}])/gu, '$1[.]');
}

/** The mail each owner gets when a signer declines, in the owner's language. */
export function declinedMail(
  tr: Translator,
  input: {
    documentTitle: string;
    recipientName: string;
    recipientEmail: string;
    reason: string | null;
    documentLink: string;
  },
): { subject: string; text: string } {
  const title = input.documentTitle;
  const reason = input.reason
    ? `${tr.t('mail.declined.reason')}\n\n${unlinked(input.reason)
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n')}`
    : tr.t('mail.declined.noReason');
  return {
    subject: tr.t('mail.declined.subject', { title }),
    text: mailText(tr, [
      tr.t('mail.greeting'),
      tr.t('mail.declined.body', { name: input.recipientName, email: input.recipientEmail, title }),
      reason,
      tr.t('mail.declined.link', { link: input.documentLink }),
    ]),
  };
}

/** The mail a recipient who had the document gets when the sender withdraws it. */
export function withdrawnMail(
  tr: Translator,
  input: { recipientName: string; documentTitle: string; workspaceName: string },
): { subject: string; text: string; fromName: string } {
  const title = input.documentTitle;
  return {
    fromName: tr.t('mail.fromName', { sender: input.workspaceName }),
    subject: tr.t('mail.withdrawn.subject', { title }),
    text: mailText(tr, [
      tr.t('mail.greetingNamed', { name: input.recipientName }),
      tr.t('mail.withdrawn.body', { title, workspace: input.workspaceName }),
    ]),
  };
}

/** A reminder to a signer who has not signed yet, with their own link again. */
export function reminderMail(
  tr: Translator,
  input: {
    recipientName: string;
    documentTitle: string;
    workspaceName: string;
    link: string;
    expiresAt: Date | null;
    /** The workspace's time zone: the expiry is shown in it, named. */
    timeZone: string;
  },
): { subject: string; text: string; fromName: string } {
  const title = input.documentTitle;
  return {
    fromName: tr.t('mail.fromName', { sender: input.workspaceName }),
    subject: tr.t('mail.reminder.subject', { title }),
    text: mailText(tr, [
      tr.t('mail.greetingNamed', { name: input.recipientName }),
      tr.t('mail.reminder.waiting', { workspace: input.workspaceName, title }),
      input.link,
      input.expiresAt ? tr.t('mail.linkUntil', { time: tr.dateTime(input.expiresAt, input.timeZone) }) : null,
      tr.t('mail.personalLink'),
    ]),
  };
}

/** A bulk send's end, to the member who started it (templates/bulk-send.ts). */
export function bulkSendEndMail(
  tr: Translator,
  input: { file: string; template: string; sent: number; failed: number; refused: number; link: string },
): { subject: string; text: string } {
  const { file, template, sent, failed, refused } = input;
  return {
    subject: tr.t('mail.bulkEnd.subject', { file }),
    text: mailText(tr, [
      tr.t('mail.greeting'),
      tr.t('mail.bulkEnd.body', { file, template, sent, failed }),
      refused > 0 ? tr.t('mail.bulkEnd.refused', { refused }) : null,
      tr.t('mail.bulkEnd.link', { link: input.link }),
    ]),
  };
}

/** The one mail each owner gets when Signet pauses one of the workspace's webhook endpoints. */
export function endpointPausedMail(
  tr: Translator,
  input: { url: string; failures: number; link: string },
): { subject: string; text: string } {
  return {
    subject: tr.t('mail.endpointPaused.subject', { url: input.url }),
    text: mailText(tr, [
      tr.t('mail.greeting'),
      tr.t('mail.endpointPaused.body', { url: input.url, failures: input.failures }),
      tr.t('mail.endpointPaused.link', { link: input.link }),
    ]),
  };
}
