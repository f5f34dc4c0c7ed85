/**
 * The email rule, the same in the web app (web/src/lib/email-rule.ts; one test checks both against
 * one table): the HTML standard's valid email address (what `<input type=email>` accepts), with at
 * least one dot in the domain (mail must be deliverable: `a@localhost` is refused) and at most 254
 * characters, after trimming.
 */
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

export const EMAIL_MAX_LENGTH = 254;

export function isEmail(email: string): boolean {
  const value = email.trim();
  return value.length <= EMAIL_MAX_LENGTH && EMAIL.test(value);
}

/** Emails are trimmed and compared case-insensitively (stored lower-cased). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** An address as logs show it: `a***@example.com` (the first character and the domain). */
export function redactEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email[0]}***${email.slice(at)}`;
}
