import {
  AnyObject,
  Body,
  DateText,
  ErrorEnvelope,
  Id,
  IdParams,
  NoContent,
  type RouteSchema,
  SIGNED_IN,
  Text,
  Type,
  type Static,
} from './schema.js';

/** The member's signed-in devices and "Confirm it's you" (server/src/sessions/routes.ts). */
const tags = ['Sessions'];

/** One signed-in device: a session of the member. */
export const DeviceSession = Type.Object({
  id: Id(),
  created: DateText(),
  lastSeen: DateText(),
  ip: Type.String(),
  userAgent: Type.String(),
  current: Type.Boolean({ description: 'the session of the token that asks' }),
  viewedBy: Type.Union([Type.String(), Type.Null()], {
    description:
      "an operator viewing as the member (POST /api/collections/users/impersonate/{id}): the operator's email ('' when that account is gone); null for the member's own sessions",
  }),
});
export type DeviceSession = Static<typeof DeviceSession>;

export const SessionsAnswer = Type.Object({ items: Type.Array(DeviceSession) });
export type SessionsAnswer = Static<typeof SessionsAnswer>;

export const listSessions = {
  summary: "The member's live sessions, newest first",
  tags,
  security: SIGNED_IN,
  response: { 200: SessionsAnswer, 401: ErrorEnvelope },
} satisfies RouteSchema;

export const endSession = {
  summary: 'End one of the own sessions (its device is signed out)',
  description: "Another member's session, or an unknown id, is a 404.",
  tags,
  security: SIGNED_IN,
  params: IdParams,
  response: { 204: NoContent, 401: ErrorEnvelope, 404: ErrorEnvelope },
} satisfies RouteSchema;

export const endOtherSessions = {
  summary: 'End every session but this one (a fresh session: Confirm it’s you)',
  tags,
  security: SIGNED_IN,
  response: { 204: NoContent, 401: ErrorEnvelope, 403: ErrorEnvelope },
} satisfies RouteSchema;

export const logout = {
  summary: 'End this session: its token is refused from then on',
  tags,
  security: SIGNED_IN,
  response: { 204: NoContent, 401: ErrorEnvelope },
} satisfies RouteSchema;

/**
 * A proof the member can give. An enum, not a union of literals: fast-json-stringify checks each
 * value of a union against its branches at every answer, an enum it writes as it is.
 */
export const ReauthMethod = Type.Enum(['password', 'code', 'response']);
export type ReauthMethod = Static<typeof ReauthMethod>;

export const ReauthStatusAnswer = Type.Object({
  fresh: Type.Boolean(),
  freshUntil: Type.String({
    description: 'UTC, `YYYY-MM-DD hh:mm:ss.sssZ`; `""` for a session that never proved anything',
  }),
  methods: Type.Array(ReauthMethod, {
    description: '`password` (an own password), `code` (two-step is on), `response` (a passkey)',
  }),
});
export type ReauthStatusAnswer = Static<typeof ReauthStatusAnswer>;

export const reauthStatus = {
  summary: 'Whether this session is fresh, until when, and the proofs the member has',
  tags,
  security: SIGNED_IN,
  response: { 200: ReauthStatusAnswer, 401: ErrorEnvelope },
} satisfies RouteSchema;

export const ReauthAnswer = Type.Object({
  fresh: Type.Boolean(),
  freshUntil: DateText(),
});
export type ReauthAnswer = Static<typeof ReauthAnswer>;

export const reauth = {
  summary: 'Confirm it’s you: make this session fresh with one proof',
  description:
    'Exactly one of `password`, `code` (an authenticator or recovery code) or `response` (a passkey assertion). A wrong proof counts like a failed sign-in.',
  tags,
  security: SIGNED_IN,
  body: Body({
    password: Text(),
    code: Text({ description: 'a code from the authenticator app, or an unused recovery code' }),
    response: AnyObject({ description: 'the passkey assertion (`startAuthentication`)' }),
  }),
  response: { 200: ReauthAnswer, 400: ErrorEnvelope, 401: ErrorEnvelope, 429: ErrorEnvelope },
} satisfies RouteSchema;
