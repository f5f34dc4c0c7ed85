import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * HS256 JSON Web Tokens with node:crypto: sign, parse (without trusting), check a signature.
 * Knows nothing of what the claims mean; core/tokens.ts does.
 */

const STANDARD_HEADER = Object.freeze({ alg: 'HS256', typ: 'JWT' });
const HEADER = Buffer.from(JSON.stringify(STANDARD_HEADER)).toString('base64url');

export interface ParsedJwt {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
}

/** Signs `claims` with `key`. The payload is plain ASCII JSON (clients decode it with atob). */
export function signJwt(claims: object, key: string): string {
  // \u-escape anything outside ASCII (an email address may carry some).
  const json = JSON.stringify(claims).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  const body = `${HEADER}.${Buffer.from(json).toString('base64url')}`;
  return `${body}.${hmac(key, body)}`;
}

/**
 * The header and claims of a JWT, read without checking anything: three parts whose first two are
 * JSON objects (the signature may be empty, as in an unsigned token). undefined for anything else.
 */
export function parseJwt(token: string): ParsedJwt | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[0] || !parts[1]) return undefined;
  try {
    // Our own tokens all carry the same header: skip decoding it.
    const header =
      parts[0] === HEADER
        ? STANDARD_HEADER
        : (JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as unknown);
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as unknown;
    return isObject(header) && isObject(claims) ? { header, claims } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the token's HS256 signature is right for `key` (in constant time). */
export function hasValidSignature(token: string, key: string): boolean {
  const cut = token.lastIndexOf('.');
  if (cut <= 0) return false;
  const expected = Buffer.from(hmac(key, token.slice(0, cut)));
  const actual = Buffer.from(token.slice(cut + 1));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function hmac(key: string, body: string): string {
  return createHmac('sha256', key).update(body).digest('base64url');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
