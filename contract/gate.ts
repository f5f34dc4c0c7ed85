import {
  Body,
  ErrorEnvelope,
  NoContent,
  type RouteSchema,
  SIGNED_IN,
  Text,
  Type,
  type Static,
} from './schema.js';

/**
 * The gate for apps that speak no OpenID (server/src/gate/): the reverse proxy's question about
 * each request, and the cookie a signed-in member gets to pass it.
 */
const tags = ['Gate'];

export const check = {
  summary: 'May this request through? (nginx auth_request, forward auth)',
  description:
    'Reads the gate cookie and the host the proxy names (`X-Forwarded-Host`, else `Host`). 200 with `X-Gatehouse-Id`, `X-Gatehouse-Email`, `X-Gatehouse-Name` (UTF-8) and `X-Gatehouse-Groups` (`members` or `members,operators`) for a member allowed on that host; 401 otherwise.',
  tags,
  response: { 200: NoContent, 401: ErrorEnvelope },
} satisfies RouteSchema;

export const GatePassBody = Body({
  redirect: Text({ description: 'the address to go back to, on a host GATE_HOSTS lists' }),
});
export type GatePassBody = Static<typeof GatePassBody>;

export const GatePassAnswer = Type.Object({
  redirect: Type.String({ description: 'where the browser goes now' }),
});
export type GatePassAnswer = Static<typeof GatePassAnswer>;

export const pass = {
  summary: 'Let the signed-in member through the gate, and back to where they were going',
  description:
    'Sets the gate cookie (HttpOnly, Secure, SameSite=Lax, for GATE_COOKIE_DOMAIN) for this session: it ends with it. 400 when the address is not on a host GATE_HOSTS lists; 403 when the host is for operators only.',
  tags,
  security: SIGNED_IN,
  body: GatePassBody,
  response: { 200: GatePassAnswer, 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope },
} satisfies RouteSchema;
