import { Body, ErrorEnvelope, NoContent, type RouteSchema, Text, Type } from './schema.js';

/**
 * PocketBase's realtime API and OAuth2 redirect target (server/src/realtime/routes.ts and
 * oauth2-redirect.ts), for the SDK's `pb.realtime`, `collection.subscribe` and `authWithOAuth2`.
 */
const tags = ['Realtime'];

export const connect = {
  summary: 'Open a realtime stream (Server-Sent Events)',
  description:
    'The first message is `PB_CONNECT` with `{"clientId"}` (also its `id`); a comment line every 30 s keeps it open. 429 past the network’s limit of open streams.',
  tags,
  response: {
    200: Type.Unsafe<string>({
      description: 'messages `id:{clientId}\\nevent:{name}\\ndata:{json}\\n\\n`',
      content: { 'text/event-stream': { schema: Type.String() } },
    }),
    429: ErrorEnvelope,
  },
} satisfies RouteSchema;

/**
 * The subscription request's 400: its field errors may nest one per topic
 * (`data.subscriptions` `{"1": {code, message, params}}`), which the common envelope's flat
 * field errors do not describe.
 */
const SubscribeError = Type.Object({
  ...ErrorEnvelope.properties,
  data: Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    additionalProperties: true,
    description: 'one error per field; `subscriptions` may hold one per topic, by its index',
  }),
});

export const subscribe = {
  summary: "Set a realtime client's topics",
  description:
    "Replaces the client's topics. With a member's token (or none: a guest); a client bound to a member stays theirs (403 otherwise). A field of the wrong type is a 400 with PocketBase's default message here.",
  tags,
  // Plain strings, not Text(): a client id or topic is only ever compared, never stored, and the
  // route refused none of them before (a NUL character names no client: 404).
  body: Body({
    clientId: Type.String({ default: '', description: "the stream's, 1–255 characters" }),
    subscriptions: Type.Array(Type.String(), {
      default: [],
      description: 'at most 1000 topics of at most 2500 characters',
    }),
  }),
  response: {
    204: NoContent,
    400: SubscribeError,
    403: ErrorEnvelope,
    404: ErrorEnvelope,
    429: ErrorEnvelope,
  },
} satisfies RouteSchema;

/** The page the provider's popup lands on, whatever it was sent. */
const RedirectPage = Type.Unsafe<string>({
  description:
    'an HTML page: "Auth completed…" (it closes itself) or "Failed to authenticate…" (no `state`, an `error`, no `code`, or a client that is unknown, not subscribed to `@oauth2` or elsewhere)',
  content: { 'text/html': { schema: Type.String() } },
});

const redirect = {
  summary: "The OAuth2 provider's redirect: hands `{state, code, error}` to the realtime client",
  description:
    'Sent on `@oauth2` to the client whose id is `state`, on whichever instance holds it. Always 200.',
  tags: ['Sign-in providers'],
};

export const oauth2RedirectGet = {
  ...redirect,
  querystring: Type.Object({
    state: Type.Optional(Type.String({ description: 'the realtime client id' })),
    code: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
  }),
  response: { 200: RedirectPage },
} satisfies RouteSchema;

export const oauth2RedirectPost = {
  ...redirect,
  description: `${redirect.description} A form (\`response_mode=form_post\`) or a JSON body.`,
  body: Body({
    state: Text({ description: 'the realtime client id' }),
    code: Text(),
    error: Text(),
  }),
  response: { 200: RedirectPage },
} satisfies RouteSchema;
