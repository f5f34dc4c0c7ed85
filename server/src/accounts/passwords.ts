import { hash, verify } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';
import { fieldError, type FieldError } from '../core/errors.js';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

/**
 * argon2id at OWASP's parameters (19 MiB, t=2, p=1). @node-rs/argon2 runs on libuv's thread
 * pool, so hashing never blocks the event loop. (Argon2id is the library's default algorithm.)
 */
const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same time as a real verification, for unknown emails: the answer's timing must not
 * tell whether an account exists.
 */
export async function verifyAgainstDummy(password: string): Promise<void> {
  dummyHash ??= hashPassword('gatehouse-dummy-password');
  await verifyPassword(await dummyHash, password);
}

/** ~49,000 passwords from zxcvbn-ts's common list (a maintained package), compared lower-cased. */
const COMMON_PASSWORDS = new Set(
  (dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()),
);

export function isCommonPassword(password: string): boolean {
  return COMMON_PASSWORDS.has(password.toLowerCase());
}

/** Length in characters (code points), as PocketBase counts runes. */
export function passwordLength(password: string): number {
  return [...password].length;
}

/** The sign-up rule: 8..256 characters, not a common password. */
export function signUpPasswordError(password: string): FieldError | undefined {
  const length = passwordLength(password);
  if (length < PASSWORD_MIN) return fieldError.minText(PASSWORD_MIN);
  if (length > PASSWORD_MAX) return fieldError.maxText(PASSWORD_MAX);
  if (isCommonPassword(password)) return fieldError.passwordTooCommon();
  return undefined;
}

/** The reset rule: same limits, reported as one length range (as confirm-password-reset reports it). */
export function resetPasswordError(password: string): FieldError | undefined {
  const length = passwordLength(password);
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) {
    return fieldError.lengthOutOfRange(PASSWORD_MIN, PASSWORD_MAX);
  }
  if (isCommonPassword(password)) return fieldError.passwordTooCommon();
  return undefined;
}
