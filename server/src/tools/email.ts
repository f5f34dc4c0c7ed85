/** Emails are trimmed and compared case-insensitively (stored lower-cased). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

// The HTML living standard's definition of a valid email address (what <input type=email> checks).
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

export function isEmail(email: string): boolean {
  return email.length <= 254 && EMAIL.test(email);
}
