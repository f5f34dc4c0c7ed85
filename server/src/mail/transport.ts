import type nodemailer from 'nodemailer';
import { lazyRequire } from '../tools/lazy-require.js';

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface MailTransport {
  readonly kind: 'smtp' | 'console';
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** SMTP through nodemailer when SMTP_URL is set; otherwise mail is printed to the console (logged). */
export function createTransport(smtpUrl: string | undefined): MailTransport {
  if (!smtpUrl) return consoleTransport;
  // A mail server that hangs must not hold the outbox for minutes (nodemailer reads these
  // options from the URL's query; an operator's own values win).
  const url = new URL(smtpUrl);
  for (const [key, ms] of [
    ['connectionTimeout', 10_000],
    ['greetingTimeout', 10_000],
    ['socketTimeout', 30_000],
  ] as const) {
    if (!url.searchParams.has(key)) url.searchParams.set(key, String(ms));
  }
  const transporter = lazyRequire<typeof nodemailer>('nodemailer').createTransport(url.toString());
  return {
    kind: 'smtp',
    async send(mail) {
      await transporter.sendMail(mail);
    },
    close: () => transporter.close(),
  };
}

/** Sends nothing: the worker's "mail printed" log line (recipient, subject, link) is the mail. */
const consoleTransport: MailTransport = {
  kind: 'console',
  async send() {},
  close() {},
};
