import { randomBytes } from 'node:crypto';

/**
 * Random strings from a CSPRNG over a given alphabet, without modulo bias: a byte is used only
 * when it falls below the largest multiple of the alphabet's size.
 */
export function randomString(length: number, alphabet: string): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= limit) continue;
      out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A record id as PocketBase makes them: 15 characters of [a-z0-9]. */
export function newId(): string {
  return randomString(15, ID_ALPHABET);
}

/** A long random secret (token keys and signing secrets). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}
