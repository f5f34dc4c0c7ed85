import type * as Argon2 from '@node-rs/argon2';
import { createRequire } from 'node:module';
import { fieldError, type FieldError } from '../core/errors.js';
import { lazyRequire } from '../tools/lazy-require.js';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

/**
 * argon2id at OWASP's parameters (19 MiB, t=2, p=1). @node-rs/argon2 runs on libuv's thread
 * pool, so hashing never blocks the event loop. (Argon2id is the library's default algorithm.)
 */
const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/** The native library, loaded at the first password hashed or checked (docs/decisions/0041). */
const argon2 = () => lazyRequire<typeof Argon2>('@node-rs/argon2');

export function hashPassword(password: string): Promise<string> {
  return argon2().hash(password, ARGON2);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  const { verify } = argon2(); // a missing library is an error, not a wrong password
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

/**
 * ~49,000 passwords from zxcvbn-ts's common list (a maintained package), lower-cased, each between
 * newlines in one string (~0.4 MB). Read at the first password set; a Set of the same strings, with
 * the package's modules kept by Node's module cache, held ~5 MB for the server's life. A search of
 * the string takes ~0.2 ms, beside the ~50 ms of hashing the password it checks.
 */
let commonPasswords: string | undefined;

export function isCommonPassword(password: string): boolean {
  commonPasswords ??= readCommonPasswords();
  // No entry holds a newline: such a password is not common, and must not match across two.
  const word = password.toLowerCase();
  return !word.includes('\n') && commonPasswords.includes(`\n${word}\n`);
}

/**
 * The list as one string, and every module the read loaded dropped from Node's cache: a `require`
 * of its own, so that nothing keeps the list's modules afterwards. The list's module loads a
 * decompressor that stays cached unless dropped too, and a cached module keeps the module that
 * first loaded it (its parent): the list, its words and its compressed form, ~3 MB.
 */
function readCommonPasswords(): string {
  const require = createRequire(import.meta.url);
  const cached = new Set(Object.keys(require.cache));
  try {
    const list = require('@zxcvbn-ts/language-common/dist/passwords.json.cjs') as unknown[];
    return `\n${list.map((p) => String(p).toLowerCase()).join('\n')}\n`;
  } finally {
    for (const file of Object.keys(require.cache)) {
      if (!cached.has(file)) delete require.cache[file];
    }
  }
}

/**
 * The form a password is hashed and checked in: Unicode NFKC, so the same password typed on
 * keyboards or systems that compose characters differently (NFC "é" or NFD "e" + accent, full-width
 * digits, ligatures) is one password (NIST SP 800-63B 5.1.1.2). Nothing else changes: no trimming,
 * no case folding. Hashes made before normalisation are still accepted at sign-in (sign-in.ts).
 */
/**
 * Whether `typed` is the password of this hash, in its NFKC form or (for hashes made before
 * passwords were normalised) as typed.
 */
export async function isCurrentPassword(passwordHash: string, typed: string): Promise<boolean> {
  const normalized = normalizePassword(typed);
  if (await verifyPassword(passwordHash, normalized)) return true;
  return normalized !== typed && verifyPassword(passwordHash, typed);
}

export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

/** Length in characters (code points), as PocketBase counts runes. */
export function passwordLength(password: string): number {
  return [...password].length;
}

/** What a password must not be built from: the app's name and the member's email. */
export interface PasswordContext {
  appName: string;
  /** The member's email, when known (may be blank or malformed at sign-up). */
  email?: string;
}

/** Up to 4 trailing digits, punctuation marks or symbols after a context word ("gatehouse2024!"). */
const CONTEXT_SUFFIX = /^[0-9\p{P}\p{S}]{0,4}$/u;

function contextWords({ appName, email }: PasswordContext): string[] {
  const words = [appName];
  const address = email?.trim() ?? '';
  if (address !== '') {
    const local = address.includes('@') ? address.slice(0, address.lastIndexOf('@')) : address;
    words.push(address, local, local.split('+', 1)[0]!);
  }
  const forms = words.flatMap((w) => {
    const word = normalizePassword(w).toLowerCase();
    return [word, word.replace(/\s+/g, '')];
  });
  return [...new Set(forms)].filter((w) => w !== '');
}

/**
 * Whether the password is, ignoring case, a context word (the app name, the email, the email's
 * local part, or the local part before a "+tag"), alone or followed by up to 4 digits, punctuation
 * marks or symbols (docs/decisions/0018-password-normalisation-and-context-words.md).
 */
export function isContextPassword(password: string, context: PasswordContext): boolean {
  const candidate = password.toLowerCase();
  return contextWords(context).some(
    (word) => candidate.startsWith(word) && CONTEXT_SUFFIX.test(candidate.slice(word.length)),
  );
}

function guessable(password: string, context: PasswordContext): boolean {
  return isCommonPassword(password) || isContextPassword(password, context);
}

/** The sign-up rule, on the normalised password: 8..256 characters, not common, no context word. */
export function signUpPasswordError(
  password: string,
  context: PasswordContext,
): FieldError | undefined {
  const length = passwordLength(password);
  if (length < PASSWORD_MIN) return fieldError.minText(PASSWORD_MIN);
  if (length > PASSWORD_MAX) return fieldError.maxText(PASSWORD_MAX);
  if (guessable(password, context)) return fieldError.passwordTooCommon();
  return undefined;
}

/** The reset rule: same limits, reported as one length range (as confirm-password-reset reports it). */
export function resetPasswordError(
  password: string,
  context: PasswordContext,
): FieldError | undefined {
  const length = passwordLength(password);
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) {
    return fieldError.lengthOutOfRange(PASSWORD_MIN, PASSWORD_MAX);
  }
  if (guessable(password, context)) return fieldError.passwordTooCommon();
  return undefined;
}
