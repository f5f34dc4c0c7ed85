import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { parseMail } from './mime.js';

/** One message as the receiver got it. */
export interface ReceivedMail {
  /** Envelope recipients, lower-cased. */
  to: string[];
  from: string;
  subject: string;
  /** The decoded text/plain part ('' when absent). */
  text: string;
  /** The decoded text/html part ('' when absent). */
  html: string;
  headers: Record<string, string>;
  raw: string;
  receivedAt: number;
}

type Predicate = (mail: ReceivedMail) => boolean;

/** A real SMTP server (smtp-server) on 127.0.0.1 that collects and parses every message. */
export class MailReceiver {
  readonly messages: ReceivedMail[] = [];
  port = 0;
  private server: SMTPServer | null = null;
  private waiters: { predicate: Predicate; resolve: (m: ReceivedMail) => void }[] = [];
  private rejectNext = 0;

  /** Starts listening: on a random port the first time, on the same port after stop(). */
  async start(): Promise<void> {
    if (this.server) return;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      closeTimeout: 200,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          if (this.rejectNext > 0) {
            this.rejectNext -= 1;
            const err = new Error('Try again later') as Error & { responseCode: number };
            err.responseCode = 451;
            callback(err);
            return;
          }
          const raw = Buffer.concat(chunks).toString('latin1');
          const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          this.add({ ...parseMail(raw), to, from, raw, receivedAt: Date.now() });
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', () => {});
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening (connections refused) until start() is called again. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The next `n` messages are refused with a temporary SMTP error (451). */
  refuseNext(n: number): void {
    this.rejectNext = n;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  private add(mail: ReceivedMail): void {
    this.messages.push(mail);
    this.waiters = this.waiters.filter((w) => {
      if (w.predicate(mail)) {
        w.resolve(mail);
        return false;
      }
      return true;
    });
  }

  filter(predicate: Predicate): ReceivedMail[] {
    return this.messages.filter(predicate);
  }

  /** Resolves with the first message (received or future) matching, or rejects after `timeoutMs`. */
  waitFor(predicate: Predicate, timeoutMs = 5000, what = 'a matching mail'): Promise<ReceivedMail> {
    const found = this.messages.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter = {
        predicate,
        resolve: (m: ReceivedMail) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(
          new Error(
            `No mail arrived within ${timeoutMs} ms: expected ${what}. Received: ${JSON.stringify(
              this.messages.map((m) => ({ to: m.to, subject: m.subject })),
            )}`,
          ),
        );
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Waits for a mail to `address` whose subject equals `subject` (when given). */
  waitForMailTo(address: string, subject?: string, timeoutMs = 5000): Promise<ReceivedMail> {
    const to = address.trim().toLowerCase();
    return this.waitFor(
      (m) => m.to.includes(to) && (subject === undefined || m.subject === subject),
      timeoutMs,
      `a mail to ${to}${subject ? ` with subject "${subject}"` : ''}`,
    );
  }

  /** Waits `ms`, then throws if any message matching arrived. */
  async expectNone(predicate: Predicate, ms = 500, what = 'mail'): Promise<void> {
    await new Promise((r) => setTimeout(r, ms));
    const got = this.messages.filter(predicate);
    if (got.length > 0) {
      throw new Error(
        `Expected no ${what}, got ${got.length}: ${JSON.stringify(got.map((m) => ({ to: m.to, subject: m.subject })))}`,
      );
    }
  }

  expectNoMailTo(address: string, ms = 500): Promise<void> {
    const to = address.trim().toLowerCase();
    return this.expectNone((m) => m.to.includes(to), ms, `mail to ${to}`);
  }

  countTo(address: string, subject?: string): number {
    const to = address.trim().toLowerCase();
    return this.messages.filter(
      (m) => m.to.includes(to) && (subject === undefined || m.subject === subject),
    ).length;
  }
}

/** Every http(s) link in a text. */
export function linksIn(text: string): string[] {
  return [...text.matchAll(/https?:\/\/[^\s<>"']+/g)].map((m) => m[0].replace(/[.,)]+$/, ''));
}

/** The `token` query parameter of the first link in the mail's text part that starts with `prefix`. */
export function tokenFromMail(mail: ReceivedMail, prefix: string): string {
  const link = linksIn(mail.text).find((l) => l.startsWith(prefix));
  if (!link) throw new Error(`No link starting with ${prefix} in the text part:\n${mail.text}`);
  const token = new URL(link).searchParams.get('token');
  if (!token) throw new Error(`Link without token: ${link}`);
  return token;
}
