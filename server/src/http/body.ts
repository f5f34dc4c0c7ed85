/**
 * Request bodies are read by each route's schema (contract/, http/schema.ts); this decides which
 * bodies are read at all.
 *
 * Whether a Content-Type header names JSON: `application/json` or any `application/…+json`, with
 * any parameters (`; charset=utf-8`). Only these reach the API with a body: a browser sends them
 * cross-site only after a CORS preflight, which the API never grants (docs/decisions/0017).
 */
export function isJsonContentType(header: string | undefined): boolean {
  const mediaType = (header ?? '').split(';', 1)[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[\w.!#$&^-]+\+json$/.test(mediaType);
}
