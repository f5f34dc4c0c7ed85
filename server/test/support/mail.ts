import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

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

// ---------------------------------------------------------------------------------------------
// A minimal MIME parser: headers (unfolded, RFC 2047 decoded), multipart bodies, quoted-printable
// and base64 transfer encodings. `raw` is a latin1 string, i.e. one char per byte.

interface Entity {
  headers: Record<string, string>;
  body: string;
}

function splitEntity(raw: string): Entity {
  const m = /\r?\n\r?\n/.exec(raw);
  const head = m ? raw.slice(0, m.index) : raw;
  const body = m ? raw.slice(m.index + m[0].length) : '';
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    if (!(name in headers)) headers[name] = line.slice(i + 1).trim();
  }
  return { headers, body };
}

function param(header: string, name: string): string | undefined {
  const re = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i');
  const m = re.exec(header);
  return m ? (m[1] ?? m[2]) : undefined;
}

function decodeBody(body: string, encoding: string, charset: string): string {
  let bytes: Buffer;
  const enc = encoding.toLowerCase();
  if (enc === 'quoted-printable') {
    const s = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    bytes = Buffer.from(s, 'latin1');
  } else if (enc === 'base64') {
    bytes = Buffer.from(body.replace(/\s+/g, ''), 'base64');
  } else {
    bytes = Buffer.from(body, 'latin1');
  }
  const cs = charset.toLowerCase();
  return cs === 'iso-8859-1' || cs === 'latin1' ? bytes.toString('latin1') : bytes.toString('utf8');
}

function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(
      /=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g,
      (_, _charset: string, kind: string, text: string) => {
        if (kind.toUpperCase() === 'B') return Buffer.from(text, 'base64').toString('utf8');
        const s = text
          .replace(/_/g, ' ')
          .replace(/=([0-9A-Fa-f]{2})/g, (__, h: string) => String.fromCharCode(parseInt(h, 16)));
        return Buffer.from(s, 'latin1').toString('utf8');
      },
    );
}

function collectParts(entity: Entity, out: { text: string; html: string }): void {
  const type = entity.headers['content-type'] ?? 'text/plain';
  const mime = type.split(';')[0]!.trim().toLowerCase();
  if (mime.startsWith('multipart/')) {
    const boundary = param(type, 'boundary');
    if (!boundary) return;
    const pieces = entity.body.split(`--${boundary}`);
    // pieces[0] is the preamble; a piece starting with "--" is the end marker.
    for (const piece of pieces.slice(1)) {
      if (piece.startsWith('--')) break;
      collectParts(splitEntity(piece.replace(/^\r?\n/, '')), out);
    }
    return;
  }
  const encoding = entity.headers['content-transfer-encoding'] ?? '7bit';
  const charset = param(type, 'charset') ?? 'utf-8';
  const decoded = decodeBody(entity.body, encoding, charset);
  if (mime === 'text/plain' && !out.text) out.text = decoded;
  else if (mime === 'text/html' && !out.html) out.html = decoded;
}

export function parseMail(raw: string): Omit<ReceivedMail, 'to' | 'from' | 'raw' | 'receivedAt'> {
  const root = splitEntity(raw);
  const out = { text: '', html: '' };
  collectParts(root, out);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(root.headers)) headers[k] = decodeWords(v);
  return { subject: headers['subject'] ?? '', text: out.text, html: out.html, headers };
}
