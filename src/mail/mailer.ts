// Where mail goes: SMTP through nodemailer when SMTP_URL is set; otherwise the mail stays
// in the mails table (the development outbox: `signet mail list`, and /mails for the
// addressee's own account) and the log says only that it is there. The log never carries a
// mail's text nor its subject: sign-up links, invitations and one-time codes are their
// addressee's alone, and a subject is written by templates that may one day quote one.
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

export interface OutgoingMail {
  /** The mail's row, named in the log line of a mail kept rather than sent. */
  id: string;
  to: string;
  subject: string;
  text: string;
  /** The name it is sent under, at SIGNET_MAIL_FROM's address; null: SIGNET_MAIL_FROM as it is. */
  fromName?: string | null;
  /** Where a reply goes; null: no Reply-To (replies reach SIGNET_MAIL_FROM's address). */
  replyTo?: string | null;
  attachments?: Array<{ filename: string; content: Buffer; contentType: string }>;
}

export interface MailTransport {
  /** 'sent' through a server, or 'logged' when no server is configured. Throws on failure. */
  send(mail: OutgoingMail): Promise<'sent' | 'logged'>;
  close(): void;
}

/** The address of a From header as SIGNET_MAIL_FROM writes it: `Name <address>` or `address`. */
export function addressOf(from: string): string {
  return /<([^<>]+)>\s*$/.exec(from)?.[1]?.trim() ?? from.trim();
}

export function createMailTransport(options: {
  smtpUrl: string | null;
  from: string;
  log: Logger;
}): MailTransport {
  if (!options.smtpUrl) {
    return {
      async send(mail) {
        options.log.info(
          { mail: { id: mail.id, to: mail.to } },
          'mail kept, not sent (no SMTP_URL): `signet mail list --to ADDRESS` shows it',
        );
        return 'logged';
      },
      close() {},
    };
  }
  const transporter = nodemailer.createTransport(options.smtpUrl);
  const address = addressOf(options.from);
  return {
    async send(mail) {
      await transporter.sendMail({
        // nodemailer quotes the name, and encodes it (RFC 2047) when it is not ASCII.
        from: mail.fromName ? { name: mail.fromName, address } : options.from,
        to: mail.to,
        ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
        subject: mail.subject,
        text: mail.text,
        attachments: mail.attachments,
      });
      return 'sent';
    },
    close() {
      transporter.close();
    },
  };
}
