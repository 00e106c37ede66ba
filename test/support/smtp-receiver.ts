// A local SMTP server (smtp-server) that accepts every mail and keeps its raw text: the
// tests that check what Signet really sends over SMTP (who gets which mail, attachments).
// `refuse` makes it answer a recipient with an SMTP error instead (a 451 "slow down").
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SmtpReceiver {
  url: string;
  received: Array<{ to: string[]; raw: string }>;
  close(): Promise<void>;
}

export async function startSmtpReceiver(
  options: { refuse?: (to: string) => { code: number; message: string } | null } = {},
): Promise<SmtpReceiver> {
  const received: SmtpReceiver['received'] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const refusal = options.refuse?.(address.address);
      if (!refusal) return callback();
      callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
