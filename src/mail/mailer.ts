// Where mail goes: SMTP through nodemailer when SMTP_URL is set; otherwise the mail is
// written to the log (and stays in the mails table), so a developer can follow signing
// links locally. Secrets in a logged mail are the reason this mode is for development.
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface MailTransport {
  /** 'sent' through a server, or 'logged' when no server is configured. Throws on failure. */
  send(mail: OutgoingMail): Promise<'sent' | 'logged'>;
  close(): void;
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
          { mail: { to: mail.to, subject: mail.subject, text: mail.text } },
          'mail (no SMTP_URL: logged, not sent)',
        );
        return 'logged';
      },
      close() {},
    };
  }
  const transporter = nodemailer.createTransport(options.smtpUrl);
  return {
    async send(mail) {
      await transporter.sendMail({ from: options.from, to: mail.to, subject: mail.subject, text: mail.text });
      return 'sent';
    },
    close() {
      transporter.close();
    },
  };
}
