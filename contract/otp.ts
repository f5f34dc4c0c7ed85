import { AuthAnswer } from './records.js';
import { Body, ErrorEnvelope, Id, type RouteSchema, Text, Type, type Static } from './schema.js';

/** Sign-in with a code sent by email: PocketBase's OTP (server/src/accounts/sign-in-code.ts). */
const tags = ['Accounts'];

export const OtpRequestAnswer = Type.Object({
  otpId: Id(),
});
export type OtpRequestAnswer = Static<typeof OtpRequestAnswer>;

export const requestOtp = {
  summary: 'Send a sign-in code to an address',
  description:
    'Always 200 with an `otpId`, whether or not the address has an account: the code (8 digits, 3 minutes) is mailed only to an account that may sign in.',
  tags,
  body: Body({ email: Text() }),
  response: { 200: OtpRequestAnswer, 400: ErrorEnvelope, 429: ErrorEnvelope },
} satisfies RouteSchema;

export const authWithOtp = {
  summary: 'Sign in with the code sent by email',
  description:
    'The code goes in `password`, as in PocketBase. Single-use; 5 attempts per code. A member with two-step sign-in on gets 401 with an `mfaId` instead (then auth-with-totp). On an unverified account the code verifies it, and removes the ways in set before.',
  tags,
  body: Body({
    otpId: Text({ description: 'from request-otp' }),
    password: Text({ description: 'the code from the mail' }),
  }),
  response: {
    200: AuthAnswer,
    400: ErrorEnvelope,
    401: ErrorEnvelope,
    403: ErrorEnvelope,
    429: ErrorEnvelope,
  },
} satisfies RouteSchema;
