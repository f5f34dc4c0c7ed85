import {
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
 * Gatehouse as an OpenID provider for the community's other apps (server/src/oidc/): the sign-in
 * and consent steps the web app completes, the member's connected apps, and the apps operators
 * register. The provider's own endpoints (discovery, JWKS, authorize, token, userinfo, logout)
 * are under /oidc and speak OpenID Connect, not this contract.
 */
const tags = ['OpenID provider'];

const UidParams = Type.Object({ uid: Type.String() });
const AppParams = Type.Object({ id: Type.String() });

/** Where the browser goes next: back to the provider, which sends it on to the app. */
export const RedirectAnswer = Type.Object({ redirect: Type.String() });
export type RedirectAnswer = Static<typeof RedirectAnswer>;

export const InteractionAnswer = Type.Object({
  uid: Type.String(),
  prompt: Type.Union([Type.Literal('login'), Type.Literal('consent')], {
    description: 'login: a member must sign in; consent: the member is asked to share',
  }),
  app: Type.Object({ id: Type.String(), name: Type.String() }),
  scopes: Type.Array(Type.String(), { description: 'what the app asks for' }),
  group: Type.Union([Type.Literal('members'), Type.Literal('operators')], {
    description: 'who may use the app',
  }),
  allowed: Type.Boolean({
    description: 'whether the signed-in member (if any) may use the app; true for a guest',
  }),
});
export type InteractionAnswer = Static<typeof InteractionAnswer>;

export const interactionLanding = {
  summary: 'Where the provider sends the browser: on to the sign-in or consent screen',
  description:
    "Redirects (303) to the web app's `/authorize/{uid}`. The provider set a cookie for this path: the calls below carry it, so only the browser that started the sign-in can complete it.",
  tags,
  params: UidParams,
  response: { 303: NoContent },
} satisfies RouteSchema;

export const interactionDetails = {
  summary: 'The sign-in under way: the app, what it asks for, which step',
  tags,
  params: UidParams,
  response: { 200: InteractionAnswer, 404: ErrorEnvelope },
} satisfies RouteSchema;

export const interactionLogin = {
  summary: 'Complete the sign-in with the signed-in member',
  description:
    'Ties the provider session to this Gatehouse session (it ends with it). 403 when the app is for operators only.',
  tags,
  security: SIGNED_IN,
  params: UidParams,
  response: { 200: RedirectAnswer, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope },
} satisfies RouteSchema;

export const interactionConsent = {
  summary: 'Share what the app asks for (remembered until revoked)',
  tags,
  security: SIGNED_IN,
  params: UidParams,
  response: { 200: RedirectAnswer, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope },
} satisfies RouteSchema;

export const interactionAbort = {
  summary: 'Go back to the app without signing in (access_denied)',
  tags,
  params: UidParams,
  response: { 200: RedirectAnswer, 404: ErrorEnvelope },
} satisfies RouteSchema;

/** An app the member shares their name and email with. */
export const ConnectedApp = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  created: DateText(),
  lastUsed: DateText(),
});
export type ConnectedApp = Static<typeof ConnectedApp>;

export const ConnectedAppsAnswer = Type.Object({
  items: Type.Array(ConnectedApp, { description: 'by name' }),
});
export type ConnectedAppsAnswer = Static<typeof ConnectedAppsAnswer>;

export const connectedApps = {
  summary: "The apps the member agreed to share with (Settings' Connected Apps)",
  tags,
  security: SIGNED_IN,
  response: { 200: ConnectedAppsAnswer, 401: ErrorEnvelope },
} satisfies RouteSchema;

export const revokeApp = {
  summary: 'Stop sharing with an app: its access ends, it asks again next time',
  tags,
  security: SIGNED_IN,
  params: AppParams,
  response: { 204: NoContent, 401: ErrorEnvelope, 404: ErrorEnvelope },
} satisfies RouteSchema;

/** A registered app, as operators see it (never its secret). */
export const App = Type.Object({
  id: Type.String({ description: 'the client id' }),
  name: Type.String(),
  redirectUris: Type.Array(Type.String()),
  postLogoutRedirectUris: Type.Array(Type.String()),
  backchannelLogoutUri: Type.String({ description: "'' when none" }),
  type: Type.Union([Type.Literal('confidential'), Type.Literal('public')]),
  authMethod: Type.String({
    description: 'client_secret_post, client_secret_basic, or none (public)',
  }),
  group: Type.Union([Type.Literal('members'), Type.Literal('operators')]),
  created: DateText(),
  updated: DateText(),
});
export type App = Static<typeof App>;

export const AppsAnswer = Type.Object({
  issuer: Type.String({ description: 'what apps are configured with' }),
  items: Type.Array(App, { description: 'by name' }),
});
export type AppsAnswer = Static<typeof AppsAnswer>;

export const AppSavedAnswer = Type.Object({
  app: App,
  secret: Type.String({ description: "the client secret, shown this once ('' when none is new)" }),
});
export type AppSavedAnswer = Static<typeof AppSavedAnswer>;

const AppBody = Body({
  name: Text(),
  redirectUris: Type.Optional(Type.Array(Type.String())),
  postLogoutRedirectUris: Type.Optional(Type.Array(Type.String())),
  backchannelLogoutUri: Text(),
  type: Text({ description: 'confidential or public' }),
  authMethod: Text({
    description: 'confidential apps: client_secret_post (default) or client_secret_basic',
  }),
  group: Text({ description: 'members or operators' }),
});
export type AppBody = Static<typeof AppBody>;

export const listApps = {
  summary: 'The registered apps (operators)',
  tags,
  security: SIGNED_IN,
  response: { 200: AppsAnswer, 401: ErrorEnvelope, 403: ErrorEnvelope },
} satisfies RouteSchema;

export const addApp = {
  summary: 'Register an app (operators, a fresh session); its secret is shown once',
  tags,
  security: SIGNED_IN,
  body: AppBody,
  response: { 200: AppSavedAnswer, 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope },
} satisfies RouteSchema;

export const updateApp = {
  summary: "Change an app's settings (operators, a fresh session)",
  tags,
  security: SIGNED_IN,
  params: AppParams,
  body: AppBody,
  response: {
    200: AppSavedAnswer,
    400: ErrorEnvelope,
    401: ErrorEnvelope,
    403: ErrorEnvelope,
    404: ErrorEnvelope,
  },
} satisfies RouteSchema;

export const newAppSecret = {
  summary: 'A new secret for an app; the old one stops working (operators, a fresh session)',
  tags,
  security: SIGNED_IN,
  params: AppParams,
  response: {
    200: Type.Object({ secret: Type.String() }),
    401: ErrorEnvelope,
    403: ErrorEnvelope,
    404: ErrorEnvelope,
  },
} satisfies RouteSchema;

export const removeApp = {
  summary: 'Remove an app: everything it was given ends (operators, a fresh session)',
  tags,
  security: SIGNED_IN,
  params: AppParams,
  response: { 204: NoContent, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope },
} satisfies RouteSchema;

/** The provider's own endpoints under /oidc (OpenID Connect; hidden from this reference). */
export const providerEndpoints = {
  summary: 'OpenID Connect endpoints (discovery, JWKS, authorize, token, userinfo, logout)',
  tags,
  hide: true,
} satisfies RouteSchema;

export const picture = {
  summary: "A member's picture, as the `picture` claim links it (signed address)",
  description:
    'The address is signed by the server and names the current avatar: it stops working when the member changes or removes it. 404 otherwise.',
  tags,
  params: Type.Object({ id: Type.String(), filename: Type.String() }),
  querystring: Type.Object({ sig: Type.Optional(Type.String()) }),
  response: {
    200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'the image' }),
    404: ErrorEnvelope,
  },
} satisfies RouteSchema;
