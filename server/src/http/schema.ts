import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { Value } from 'typebox/value';

/**
 * How Fastify reads the contract's schemas (contract/schema.ts). Ajv validates as the contract
 * says and nothing more: no coercion (a number where text is expected is unreadable, as PocketBase
 * reads it, not silently "123"), and a text field's default ('') fills it when missing. A failure is
 * Fastify's 400, which the envelope answers with PocketBase's loading message.
 */
export const AJV_OPTIONS = {
  customOptions: {
    coerceTypes: false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
  },
} as const;

/**
 * PocketBase reads a request field that is `null` as unset, and a request without a body as an
 * empty one: before its schema checks the body, a route that has one gets `{}` for no body, and
 * its top-level `null` fields are dropped (so their defaults apply).
 */
function normalizeBody(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const body = request.body;
  if (body === undefined || body === null) request.body = {};
  else if (typeof body === 'object' && !Array.isArray(body)) {
    for (const key of Object.keys(body)) {
      if ((body as Record<string, unknown>)[key] === null) {
        delete (body as Record<string, unknown>)[key];
      }
    }
  }
  done();
}

/**
 * A body read as the route whose body schema is `schema` reads its own, for a request that did
 * not come through that route (a request inside a batch): its `null` fields unset (normalizeBody),
 * its text fields' defaults filled, then checked against the schema, without coercion, as Ajv
 * does for the route. Changes `body` in place (as the route does its own); undefined when the
 * route would refuse it (400 LOADING_FAILED).
 */
export function readBodyAs<T extends TSchema>(
  schema: T,
  body: Record<string, unknown> | undefined,
): Static<T> | undefined {
  const read = body ?? {};
  for (const key of Object.keys(read)) if (read[key] === null) delete read[key];
  Value.Default(schema, read);
  return Value.Check(schema, read) ? (read as Static<T>) : undefined;
}

/** For `onRoute`: a route whose schema has a body reads it as PocketBase does (normalizeBody). */
export function withBodyReading(route: RouteOptions): void {
  if (!route.schema?.body) return;
  const existing = route.preValidation;
  route.preValidation = [
    normalizeBody,
    ...(existing ? (Array.isArray(existing) ? existing : [existing]) : []),
  ];
}
