import type nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type { SmtpChoice } from '../core/settings.js';
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

/** A mail server that hangs must not hold the outbox for minutes. */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** SMTP through nodemailer when SMTP_URL is set; otherwise mail is printed to the console (logged). */
export function createTransport(smtpUrl: string | undefined): MailTransport {
  if (!smtpUrl) return consoleTransport;
  // nodemailer reads these options from the URL's query; an operator's own values win.
  const url = new URL(smtpUrl);
  for (const [key, ms] of Object.entries(TIMEOUTS)) {
    if (!url.searchParams.has(key)) url.searchParams.set(key, String(ms));
  }
  return smtpTransport(
    lazyRequire<typeof nodemailer>('nodemailer').createTransport(url.toString()),
  );
}

/**
 * The transport the settings choose (core/settings.ts: SMTP_URL, else the SMTP fields when
 * enabled, else the console), made again on the first mail after they changed: an operator's new
 * SMTP server is used without a restart, on every instance.
 */
export function settingsTransport(choice: () => SmtpChoice): MailTransport {
  let key = '';
  let current: MailTransport = consoleTransport;
  const now = (): MailTransport => {
    const chosen = choice();
    const next = JSON.stringify(chosen ?? null);
    if (next !== key) {
      current.close();
      current = transportFor(chosen);
      key = next;
    }
    return current;
  };
  return {
    get kind() {
      return now().kind;
    },
    send: (mail) => now().send(mail),
    close: () => current.close(),
  };
}

function transportFor(choice: SmtpChoice): MailTransport {
  if (!choice) return consoleTransport;
  if ('url' in choice) return createTransport(choice.url);
  const smtp = choice.fields;
  return smtpTransport(
    lazyRequire<typeof nodemailer>('nodemailer').createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.tls,
      ...(smtp.username ? { auth: { user: smtp.username, pass: smtp.password } } : {}),
      ...(smtp.authMethod ? { authMethod: smtp.authMethod } : {}),
      ...(smtp.localName ? { name: smtp.localName } : {}),
      ...TIMEOUTS,
    }),
  );
}

function smtpTransport(transporter: Transporter): MailTransport {
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
