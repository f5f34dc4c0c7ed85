import { UserRecord } from './records.js';
import {
  AnyObject,
  Body,
  DateText,
  ErrorEnvelope,
  NoContent,
  type RouteSchema,
  SIGNED_IN,
  Text,
  Type,
  type Static,
} from './schema.js';

/**
 * Sign-in with a provider in PocketBase's wire format (auth-methods, auth-with-oauth2), and the
 * member's connected providers (server/src/providers/routes.ts).
 */
const tags = ['Sign-in providers'];

/** One provider in auth-methods (PocketBase's providerInfo): a fresh state and PKCE pair. */
export const AuthMethodProvider = Type.Object({
  name: Type.String({ description: '`github`, `google` or `oidc`' }),
  displayName: Type.String(),
  state: Type.String(),
  authURL: Type.String({ description: 'ends in `&redirect_uri=`: the client appends its own' }),
  codeVerifier: Type.String(),
  codeChallenge: Type.String(),
  codeChallengeMethod: Type.String({ description: '`S256`' }),
});
export type AuthMethodProvider = Static<typeof AuthMethodProvider>;

const Method = Type.Object({
  enabled: Type.Boolean(),
  duration: Type.Integer({ description: 'seconds' }),
});

/**
 * PocketBase's auth-methods: the password by email, the providers, the second step, and the code
 * by email (OTP).
 */
export const AuthMethodsAnswer = Type.Object({
  password: Type.Object({ enabled: Type.Boolean(), identityFields: Type.Array(Type.String()) }),
  oauth2: Type.Object({ enabled: Type.Boolean(), providers: Type.Array(AuthMethodProvider) }),
  mfa: Method,
  otp: Method,
});
export type AuthMethodsAnswer = Static<typeof AuthMethodsAnswer>;

/** PocketBase's OAuth2 answer: the provider's tokens are always empty (never handed out). */
export const ProviderAuthAnswer = Type.Object({
  token: Type.String(),
  record: UserRecord,
  meta: Type.Object({
    id: Type.String({ description: "the member's id at the provider" }),
    name: Type.String(),
    username: Type.String(),
    email: Type.String(),
    avatarURL: Type.String(),
    accessToken: Type.String({ description: 'always empty' }),
    refreshToken: Type.String({ description: 'always empty' }),
    expiry: Type.String({ description: 'always empty' }),
    rawUser: Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      additionalProperties: true,
      description: "the provider's user as it sent it",
    }),
    isNew: Type.Boolean({ description: 'a new account was made' }),
  }),
});
export type ProviderAuthAnswer = Static<typeof ProviderAuthAnswer>;

/** A provider connected to the member. */
export const ConnectedProvider = Type.Object({
  name: Type.String(),
  displayName: Type.String(),
  created: DateText(),
  canDisconnect: Type.Boolean({ description: "false for the member's last way in" }),
});
export type ConnectedProvider = Static<typeof ConnectedProvider>;

export const ConnectedProvidersAnswer = Type.Object({
  passwordSet: Type.Boolean({
    description:
      'whether the member has a password of their own (not an account made with a provider)',
  }),
  items: Type.Array(ConnectedProvider, { description: 'oldest first' }),
});
export type ConnectedProvidersAnswer = Static<typeof ConnectedProvidersAnswer>;

export const authMethods = {
  summary: 'The ways to sign in: password, the configured providers, the second step',
  description:
    'Every call makes a fresh `state` and PKCE pair. A provider whose metadata cannot be had now is left out.',
  tags,
  response: { 200: AuthMethodsAnswer },
} satisfies RouteSchema;

export const authWithOAuth2 = {
  summary: "Sign in, sign up or connect with a provider's code",
  description:
    "With a member's auth token, connects the provider to them (or confirms their session). A new member signs up with `createData.inviteCode`. A member with two-step sign-in on gets 401 with an `mfaId`.",
  tags,
  body: Body({
    provider: Text(),
    code: Text({ description: "the provider's authorization code" }),
    codeVerifier: Text({ description: 'the PKCE verifier from auth-methods' }),
    redirectURL: Text({ description: '`{APP_URL}/api/oauth2-redirect`' }),
    createData: AnyObject({ description: '`{inviteCode, emailVisibility}` for a sign-up' }),
  }),
  response: {
    200: ProviderAuthAnswer,
    400: ErrorEnvelope,
    401: ErrorEnvelope,
    403: ErrorEnvelope,
    429: ErrorEnvelope,
  },
} satisfies RouteSchema;

export const connected = {
  summary: "The member's connected providers",
  tags,
  security: SIGNED_IN,
  response: { 200: ConnectedProvidersAnswer, 401: ErrorEnvelope },
} satisfies RouteSchema;

export const disconnect = {
  summary: 'Disconnect a provider (never the last way in; a fresh session)',
  tags,
  security: SIGNED_IN,
  params: Type.Object({ name: Type.String() }),
  response: {
    204: NoContent,
    400: ErrorEnvelope,
    401: ErrorEnvelope,
    403: ErrorEnvelope,
    404: ErrorEnvelope,
  },
} satisfies RouteSchema;
