import fs from 'node:fs/promises';
import type net from 'node:net';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import type { CapturedMail } from './env';
import { parseMail } from '../../server/test/support/mime';

export interface MailReceiver {
  url: string;
  port: number;
  /** Stops listening and drops open connections: the mail server is down. */
  close(): Promise<void>;
}

/**
 * A real SMTP receiver on 127.0.0.1 (`port`, or a free one): every message becomes a JSON file
 * (`CapturedMail`) in `dir`, which support/mail.ts reads.
 */
export async function startMailReceiver(dir: string, port = 0): Promise<MailReceiver> {
  let seq = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 200,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mail: CapturedMail = {
          ...parseMail(Buffer.concat(chunks).toString('latin1')),
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          receivedAt: Date.now(),
        };
        const name = `${Date.now()}-${process.pid}-${String(++seq).padStart(5, '0')}.json`;
        const file = path.join(dir, name);
        // Written under a temporary name first so that a reader never sees half a file.
        fs.writeFile(`${file}.tmp`, JSON.stringify(mail))
          .then(() => fs.rename(`${file}.tmp`, file))
          .then(() => callback(), callback);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.server.address() as net.AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    url: `smtp://127.0.0.1:${bound}`,
    port: bound,
    close: () => (closed ??= new Promise<void>((resolve) => server.close(() => resolve()))),
  };
}
