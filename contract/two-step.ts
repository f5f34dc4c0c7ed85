import { AuthAnswer } from './records.js';
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

/** Two-step sign-in: the member's settings and the second step of a sign-in (server/src/two-step/routes.ts). */
const tags = ['Two-step sign-in'];

/** Whether two-step sign-in is on, and how many unused recovery codes are left (0 when off). */
export const TwoStepStatusAnswer = Type.Object({
  enabled: Type.Boolean(),
  recoveryCodesLeft: Type.Integer(),
});
export type TwoStepStatusAnswer = Static<typeof TwoStepStatusAnswer>;

/** A new seed waiting for its first code: nothing is on yet. */
export const TotpSetupAnswer = Type.Object({
  secret: Type.String({ description: 'the seed, base32' }),
  uri: Type.String({ description: 'its `otpauth://totp/…` URI' }),
  qrSvg: Type.String({ description: 'that URI as a QR code: an SVG document, as text' }),
});
export type TotpSetupAnswer = Static<typeof TotpSetupAnswer>;

/** Ten recovery codes, shown this once. */
export const RecoveryCodesAnswer = Type.Object({ recoveryCodes: Type.Array(Type.String()) });
export type RecoveryCodesAnswer = Static<typeof RecoveryCodesAnswer>;

export const status = {
  summary: 'Whether two-step sign-in is on, and the recovery codes left',
  tags,
  security: SIGNED_IN,
  response: { 200: TwoStepStatusAnswer, 401: ErrorEnvelope },
} satisfies RouteSchema;

export const setup = {
  summary: 'Set up the authenticator app: a new seed, its URI and QR code (a fresh session)',
  description:
    'Body ignored. Nothing is on until enable confirms a code; a second setup replaces the seed. Needs a verified address.',
  tags,
  security: SIGNED_IN,
  response: { 200: TotpSetupAnswer, 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope },
} satisfies RouteSchema;

export const enable = {
  summary: "Turn two-step sign-in on with a code from the set-up seed; the answer's recovery codes",
  tags,
  security: SIGNED_IN,
  body: Body({ code: Text({ description: 'the code the authenticator app shows' }) }),
  response: {
    200: RecoveryCodesAnswer,
    400: ErrorEnvelope,
    401: ErrorEnvelope,
    429: ErrorEnvelope,
  },
} satisfies RouteSchema;

export const disable = {
  summary: 'Turn two-step sign-in off (the password; a fresh session)',
  tags,
  security: SIGNED_IN,
  body: Body({ password: Text() }),
  response: {
    204: NoContent,
    400: ErrorEnvelope,
    401: ErrorEnvelope,
    403: ErrorEnvelope,
    429: ErrorEnvelope,
  },
} satisfies RouteSchema;

export const recoveryCodes = {
  summary: 'New recovery codes; the old ones stop working (the password; a fresh session)',
  tags,
  security: SIGNED_IN,
  body: Body({ password: Text() }),
  response: {
    200: RecoveryCodesAnswer,
    400: ErrorEnvelope,
    401: ErrorEnvelope,
    403: ErrorEnvelope,
    429: ErrorEnvelope,
  },
} satisfies RouteSchema;

export const authWithTotp = {
  summary: "The second step of a sign-in: the password's `mfaId` and a code",
  description:
    'A current code from the authenticator app or an unused recovery code. A 200 also sets the device cookie.',
  tags,
  body: Body({
    mfaId: Text({ description: 'from the 401 of auth-with-password (or auth-with-oauth2)' }),
    code: Text({ description: 'from the authenticator app, or a recovery code' }),
  }),
  response: { 200: AuthAnswer, 400: ErrorEnvelope, 403: ErrorEnvelope, 429: ErrorEnvelope },
} satisfies RouteSchema;
