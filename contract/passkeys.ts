import { AuthAnswer } from './records.js';
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

/**
 * Passkeys (WebAuthn): the member's list and registration, and sign-in with one
 * (server/src/passkeys/routes.ts). Options are the JSON @simplewebauthn/server makes and
 * @simplewebauthn/browser takes; the WebAuthn responses are passed on as they are.
 */
const tags = ['Passkeys'];

/** A passkey as the API shows it: never its credential id or public key. */
export const PasskeyAnswer = Type.Object({
  id: Id(),
  name: Type.String(),
  created: DateText(),
  lastUsed: Type.Union([DateText(), Type.Null()], { description: 'null until its first sign-in' }),
});
export type PasskeyAnswer = Static<typeof PasskeyAnswer>;

export const PasskeyListAnswer = Type.Object({
  items: Type.Array(PasskeyAnswer, { description: 'newest first' }),
});
export type PasskeyListAnswer = Static<typeof PasskeyListAnswer>;

/**
 * A part of the options that the WebAuthn library owns: sent as it makes it (an open-ended
 * schema, so the serializer neither drops nor reorders what a newer version adds).
 */
const Owned = (description: string) =>
  Type.Unsafe<object>({ type: 'object', additionalProperties: true, description });
const OwnedList = (description: string) =>
  Type.Unsafe<unknown[]>({ type: 'array', items: {}, description });

/**
 * Creation options for `startRegistration({ optionsJSON })`. The keys in the order the library
 * makes them: the answer's bytes are its JSON.
 */
export const RegistrationOptionsAnswer = Type.Object({
  challenge: Type.String({ description: 'base64url' }),
  rp: Owned('`{name: APP_NAME, id: the host of APP_URL}`'),
  user: Owned('`{id: base64url of the member id, name: email, displayName: email}`'),
  pubKeyCredParams: OwnedList('`{alg, type: "public-key"}`: EdDSA, ES256, RS256'),
  timeout: Type.Optional(Type.Number({ description: 'milliseconds' })),
  attestation: Type.Optional(Type.String()),
  excludeCredentials: Type.Optional(
    OwnedList("the member's passkeys `{id, transports, type}`: not made twice"),
  ),
  authenticatorSelection: Type.Optional(
    Owned('`{residentKey: "required", userVerification: "required", requireResidentKey: true}`'),
  ),
  extensions: Type.Optional(Owned('`{credProps: true}`')),
  hints: Type.Optional(OwnedList('preferred kinds of authenticator: none')),
});
export type RegistrationOptionsAnswer = Static<typeof RegistrationOptionsAnswer>;

/** Request options for `startAuthentication({ optionsJSON })`, in the library's order. */
export const AuthenticationOptionsAnswer = Type.Object({
  rpId: Type.String({ description: 'the host of APP_URL' }),
  challenge: Type.String({ description: 'base64url' }),
  allowCredentials: Type.Optional(
    OwnedList('`{id, transports, type}` of the passkeys offered; empty for any of this site'),
  ),
  timeout: Type.Optional(Type.Number({ description: 'milliseconds' })),
  userVerification: Type.Optional(Type.String()),
  extensions: Type.Optional(Owned('not sent')),
});
export type AuthenticationOptionsAnswer = Static<typeof AuthenticationOptionsAnswer>;

export const list = {
  summary: "The member's passkeys",
  tags,
  security: SIGNED_IN,
  response: { 200: PasskeyListAnswer, 401: ErrorEnvelope },
} satisfies RouteSchema;

export const registrationOptions = {
  summary: 'Start a passkey registration: creation options (a fresh session)',
  description:
    'Body ignored. Needs a verified address. A member holds at most 5 live registration challenges; each lives 5 minutes.',
  tags,
  security: SIGNED_IN,
  response: { 200: RegistrationOptionsAnswer, 401: ErrorEnvelope, 403: ErrorEnvelope },
} satisfies RouteSchema;

export const reauthOptions = {
  summary: "“Confirm it's you” with a passkey: request options offering the member's own passkeys",
  tags,
  security: SIGNED_IN,
  response: { 200: AuthenticationOptionsAnswer, 401: ErrorEnvelope, 429: ErrorEnvelope },
} satisfies RouteSchema;

export const add = {
  summary: 'Add a passkey: its name and the registration response',
  tags,
  security: SIGNED_IN,
  body: Body({
    name: Text({ description: '1 to 64 characters, trimmed' }),
    response: AnyObject({ description: "@simplewebauthn/browser's registration response" }),
  }),
  response: { 200: PasskeyAnswer, 400: ErrorEnvelope, 401: ErrorEnvelope },
} satisfies RouteSchema;

export const rename = {
  summary: 'Rename a passkey',
  tags,
  security: SIGNED_IN,
  params: IdParams,
  body: Body({ name: Text({ description: '1 to 64 characters, trimmed' }) }),
  response: { 200: PasskeyAnswer, 400: ErrorEnvelope, 401: ErrorEnvelope, 404: ErrorEnvelope },
} satisfies RouteSchema;

export const remove = {
  summary: 'Remove a passkey (never the last way in)',
  tags,
  security: SIGNED_IN,
  params: IdParams,
  response: { 204: NoContent, 400: ErrorEnvelope, 401: ErrorEnvelope, 404: ErrorEnvelope },
} satisfies RouteSchema;

export const loginOptions = {
  summary: 'Start a passkey sign-in: request options for any passkey of this site',
  tags,
  response: { 200: AuthenticationOptionsAnswer, 429: ErrorEnvelope },
} satisfies RouteSchema;

export const authWithPasskey = {
  summary: 'Sign in with a passkey: the authentication response',
  description: 'Complete on its own: no second step, even with two-step sign-in on.',
  tags,
  body: Body({
    response: AnyObject({ description: "@simplewebauthn/browser's authentication response" }),
  }),
  response: { 200: AuthAnswer, 400: ErrorEnvelope, 403: ErrorEnvelope, 429: ErrorEnvelope },
} satisfies RouteSchema;
