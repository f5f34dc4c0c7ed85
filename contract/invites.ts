import {
  Body,
  DateText,
  ErrorEnvelope,
  Id,
  NoContent,
  type RouteSchema,
  SIGNED_IN,
  Text,
  Type,
  type Static,
} from './schema.js';

/** A member's invite codes, and sign-up's early look at a code (server/src/invites/routes.ts). */
const tags = ['Invite codes'];

/** An unused invite code as its owner sees it. */
export const InviteCode = Type.Object({
  id: Id(),
  code: Type.String({ description: 'in groups of four: `XXXX-XXXX-XXXX-XXXX-XXXX`' }),
  created: DateText(),
});
export type InviteCode = Static<typeof InviteCode>;

export const InviteCodesAnswer = Type.Object({ codes: Type.Array(InviteCode) });
export type InviteCodesAnswer = Static<typeof InviteCodesAnswer>;

export const listInviteCodes = {
  summary: "The member's unused invite codes, newest first",
  description: 'Needs a verified member (403 otherwise).',
  tags,
  security: SIGNED_IN,
  response: { 200: InviteCodesAnswer, 401: ErrorEnvelope, 403: ErrorEnvelope },
} satisfies RouteSchema;

export const GeneratedCodesAnswer = Type.Object({
  generated: Type.Integer(),
  codes: Type.Array(InviteCode),
});
export type GeneratedCodesAnswer = Static<typeof GeneratedCodesAnswer>;

export const generateInviteCodes = {
  summary: 'Five new invite codes: the initial member only',
  description: 'No body (one is ignored). Any other member gets a 403.',
  tags,
  security: SIGNED_IN,
  response: {
    200: GeneratedCodesAnswer,
    401: ErrorEnvelope,
    403: ErrorEnvelope,
    429: ErrorEnvelope,
  },
} satisfies RouteSchema;

export const checkInviteCode = {
  summary: 'Whether a typed code would let someone sign up now',
  description:
    "204, or sign-up's own field error for `inviteCode`. Case, spaces and dashes are ignored; nothing changes.",
  tags,
  body: Body({ inviteCode: Text() }),
  response: { 204: NoContent, 400: ErrorEnvelope, 429: ErrorEnvelope },
} satisfies RouteSchema;
