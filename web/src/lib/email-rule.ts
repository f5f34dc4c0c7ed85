/**
 * The email rule: the same rule as the server's (`isEmail` in the server's tools); both are tested
 * against one table. After trimming: the HTML standard's valid email address (what
 * `<input type="email">` accepts) with at least one dot in the domain, at most 254 characters.
 */
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

const MAX_EMAIL_LENGTH = 254;

export function isEmail(value: string): boolean {
  const email = value.trim();
  return email.length <= MAX_EMAIL_LENGTH && EMAIL.test(email);
}
