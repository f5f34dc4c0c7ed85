import { Type, type Static, type TSchema } from 'typebox';

/**
 * The building blocks of the wire contract: one schema per route (request body, query, params and
 * answers), in TypeBox, which the server hands to Fastify (it validates requests with Ajv and
 * serializes answers with fast-json-stringify) and to the OpenAPI document, and from which the web
 * app takes its types (`import type`, so no schema code reaches the browser).
 *
 * Request fields follow PocketBase's reading of a body: a missing or `null` field is unset (a text
 * field then reads as ''), a field of the wrong type makes the whole body unreadable (400 "An error
 * occurred while loading the submitted data."). What a value must be (required, an email, long
 * enough) is the action's to check, with PocketBase's field errors.
 */

export { Type, type Static, type TSchema };

/** No NUL character: nobody's email, password, code or token holds one, and PostgreSQL text cannot. */
const NO_NUL = '^[^\\u0000]*$';

/** A text field of a request: '' when missing or null. */
export const Text = (options: { description?: string } = {}) =>
  Type.String({ pattern: NO_NUL, default: '', ...options });

/**
 * A text field of a request that changes something only when sent (a record update's `name`):
 * undefined when missing. Its route reads `null` as '' itself where PocketBase clears the field.
 */
export const OptionalText = (options: { description?: string } = {}) =>
  Type.Optional(Type.String({ pattern: NO_NUL, ...options }));

/** An optional yes/no field of a request. */
export const Flag = (options: { description?: string } = {}) =>
  Type.Optional(Type.Boolean(options));

/** A JSON object a request passes on as it is (a WebAuthn response, OAuth2 createData). */
export const AnyObject = (options: { description?: string } = {}) =>
  Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object', ...options }));

/** A request body: an object, whatever other fields it has (they are ignored). */
export const Body = <T extends Parameters<typeof Type.Object>[0]>(properties: T) =>
  Type.Object(properties, { additionalProperties: true });

/** PocketBase's date format: `2026-11-25 10:00:00.000Z`. */
export const DateText = () => Type.String({ description: 'UTC, `YYYY-MM-DD hh:mm:ss.sssZ`' });

/** A member's language (PocketBase's select field): `en` or `de`. */
export const Language = (options: { description?: string } = {}) =>
  Type.Union([Type.Literal('en'), Type.Literal('de')], options);

/** A record id: 15 lower-case letters and digits. */
export const Id = () => Type.String({ description: 'a 15-character id' });

/** One field's error in an error envelope. */
export const FieldError = Type.Object({
  code: Type.String(),
  message: Type.String(),
  params: Type.Optional(Type.Record(Type.String(), Type.Union([Type.Number(), Type.String()]))),
});

/**
 * PocketBase's error envelope, the answer to every error, in its key order (the answer is
 * serialized in the order of these properties): `{"data":{},"message":"…","status":N}`.
 */
export const ErrorEnvelope = Type.Object(
  {
    data: Type.Record(Type.String(), FieldError),
    message: Type.String(),
    status: Type.Integer(),
    mfaId: Type.Optional(
      Type.String({ description: 'only on the 401 asking for the second sign-in step' }),
    ),
    reason: Type.Optional(
      Type.Union(
        [
          Type.Literal('disabled'),
          Type.Literal('expired'),
          Type.Literal('signed-out'),
          Type.Literal('password-changed'),
        ],
        { description: 'only on a 401 to a token that once signed a device in: why no longer' },
      ),
    ),
  },
  { additionalProperties: true },
);
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

/** An answer with no body. */
export const NoContent = Type.Null({ description: 'No content' });

/** The parts of a route's schema, as Fastify takes them. */
export interface RouteSchema {
  summary?: string;
  description?: string;
  tags?: string[];
  body?: TSchema;
  /** Request content types besides JSON (the reference lists the body under each). */
  consumes?: string[];
  querystring?: TSchema;
  params?: TSchema;
  response?: Record<number, TSchema>;
  /** Routes that need a signed-in member say so (for the reference). */
  security?: Array<Record<string, string[]>>;
  hide?: boolean;
}

/** The `:id` of a path. */
export const IdParams = Type.Object({ id: Type.String() });

/** The signed-in member's auth token. */
export const SIGNED_IN = [{ authToken: [] }];
