import fs from 'node:fs/promises';
import path from 'node:path';
import { e2eEnv, type CapturedMail } from './env';

/** Reads the mail the global setup's SMTP receiver captured. */

async function allMail(): Promise<CapturedMail[]> {
  const dir = e2eEnv().mailDir;
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  return Promise.all(
    files.map(
      async (f) => JSON.parse(await fs.readFile(path.join(dir, f), 'utf8')) as CapturedMail,
    ),
  );
}

export async function mailTo(address: string, subject?: string): Promise<CapturedMail[]> {
  const to = address.trim().toLowerCase();
  return (await allMail()).filter(
    (m) => m.to.includes(to) && (subject === undefined || m.subject === subject),
  );
}

/**
 * Waits until the `n`-th (1-based) mail to `address` with `subject` has arrived and returns it.
 * The server's outbox worker polls every 100 ms here, so a mail takes well under a second.
 */
export async function waitForMail(
  address: string,
  subject: string,
  { nth = 1, timeoutMs = 15_000 } = {},
): Promise<CapturedMail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await mailTo(address, subject))[nth - 1];
    if (found) return found;
    if (Date.now() > deadline) {
      const seen = (await allMail()).map((m) => `${m.to.join(',')}: ${m.subject}`);
      throw new Error(
        `Mail #${nth} to ${address} with subject "${subject}" did not arrive within ${timeoutMs} ms. ` +
          `Received so far:\n  ${seen.join('\n  ') || '(nothing)'}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The first link in the mail's plain-text part that starts with `prefix`. */
export function linkIn(mail: CapturedMail, prefix: string): string {
  const links = [...mail.text.matchAll(/https?:\/\/[^\s<>"']+/g)].map((m) => m[0]);
  const link = links.find((l) => l.startsWith(prefix));
  if (!link) throw new Error(`No link starting with ${prefix} in the mail:\n${mail.text}`);
  if (!mail.html.includes(link.replace(/&/g, '&amp;')) && !mail.html.includes(link)) {
    throw new Error(`The HTML part of "${mail.subject}" does not carry the link ${link}`);
  }
  return link;
}

export const VERIFY_SUBJECT = 'Verify your Gatehouse email';
export const RESET_SUBJECT = 'Reset your Gatehouse password';
export const EMAIL_CHANGE_SUBJECT = 'Confirm your new Gatehouse email';
export const PASSWORD_CHANGED_SUBJECT = 'Your Gatehouse password was changed';
export const EMAIL_CHANGED_SUBJECT = 'Your Gatehouse email was changed';
export const SIGN_IN_CODE_SUBJECT = 'Your Gatehouse sign-in code';

/** The sign-in code of a mail: 8 digits on a line of their own in the plain-text part. */
export function signInCodeIn(mail: CapturedMail): string {
  const code = /^\s*(\d{8})\s*$/m.exec(mail.text)?.[1];
  if (!code) throw new Error(`No sign-in code in the mail:\n${mail.text}`);
  if (!mail.html.includes(code)) {
    throw new Error(`The HTML part of "${mail.subject}" does not carry the code`);
  }
  return code;
}
