import { HttpError, LOADING_FAILED } from './envelope.js';

/**
 * Whether a Content-Type header names JSON: `application/json` or any `application/…+json`, with
 * any parameters (`; charset=utf-8`). Only these reach the API with a body: a browser sends them
 * cross-site only after a CORS preflight, which the API never grants (docs/decisions/0017).
 */
export function isJsonContentType(header: string | undefined): boolean {
  const mediaType = (header ?? '').split(';', 1)[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[\w.!#$&^-]+\+json$/.test(mediaType);
}

type FieldKind = 'string' | 'boolean' | 'object';
type Shape = Record<string, FieldKind>;
type Parsed<S extends Shape> = {
  [K in keyof S]: S[K] extends 'string'
    ? string
    : S[K] extends 'boolean'
      ? boolean | undefined
      : Record<string, unknown> | undefined;
};

/**
 * Reads a JSON body the way PocketBase's loader does: it must be an object; a known field of the
 * wrong JSON type is a loading error (400), `null` or a missing field reads as empty; unknown
 * fields are ignored. Strings are returned as sent (the actions trim where their rules say so).
 * An `object` field (a WebAuthn response) must be a JSON object, not an array.
 */
export function readBody<S extends Shape>(body: unknown, shape: S): Parsed<S> {
  if (body === undefined || body === null) body = {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new HttpError(400, LOADING_FAILED);
  }
  const source = body as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, kind] of Object.entries(shape)) {
    const value = Object.hasOwn(source, key) ? source[key] : undefined;
    if (value === undefined || value === null) {
      out[key] = kind === 'string' ? '' : undefined;
    } else if (typeof value === kind && !Array.isArray(value)) {
      // A NUL character is no one's email, password, code or token, and PostgreSQL text cannot
      // hold one: refused as unreadable input rather than failing deeper down.
      if (typeof value === 'string' && value.includes('\u0000')) {
        throw new HttpError(400, LOADING_FAILED);
      }
      out[key] = value;
    } else {
      throw new HttpError(400, LOADING_FAILED);
    }
  }
  return out as Parsed<S>;
}
