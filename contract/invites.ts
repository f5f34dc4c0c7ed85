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

/**
 * A member who joined with one of the caller's codes, as their inviter sees them: PocketBase's
 * rule for another member's record, so the email only when they show it (`emailVisibility`).
 */
export const JoinedMember = Type.Object({
  id: Id(),
  name: Type.String({ description: "'' when unset" }),
  email: Type.Optional(
    Type.String({ description: 'only when the member shows their email (emailVisibility)' }),
  ),
  avatar: Type.String({
    description:
      "the avatar's file name ('' when none): GET /api/files/users/{id}/{avatar}?token=…, which the inviter may see",
  }),
});
export type JoinedMember = Static<typeof JoinedMember>;

/** A code someone signed up with, and who. */
export const UsedInviteCode = Type.Object({
  id: Id(),
  code: Type.String({ description: 'in groups of four: `XXXX-XXXX-XXXX-XXXX-XXXX`' }),
  usedAt: DateText(),
  member: Type.Union([JoinedMember, Type.Null()], {
    description: 'null: the account has since been deleted',
  }),
});
export type UsedInviteCode = Static<typeof UsedInviteCode>;

export const InviteCodesAnswer = Type.Object({
  codes: Type.Array(InviteCode, { description: 'the unused codes, newest first' }),
  used: Type.Array(UsedInviteCode, {
    description:
      'the codes people joined with, most recently used first, at most 50 (codes burnt or revoked are not here)',
  }),
});
export type InviteCodesAnswer = Static<typeof InviteCodesAnswer>;

export const listInviteCodes = {
  summary: "The member's unused invite codes, and who joined with the used ones",
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

/** The check's answer for the code that makes the initial member: the community is being set up. */
export const InitialUserCodeAnswer = Type.Object({
  initialUser: Type.Literal(true, {
    description: 'the code makes the initial member (no one has signed up yet)',
  }),
});

export const checkInviteCode = {
  summary: 'Whether a typed code would let someone sign up now',
  description:
    '204, or sign-up\'s own field error for `inviteCode`. The code that makes the initial member (the printed bootstrap link\'s) answers 200 `{"initialUser":true}` instead of 204. Case, spaces and dashes are ignored; nothing changes.',
  tags,
  body: Body({ inviteCode: Text() }),
  response: {
    200: InitialUserCodeAnswer,
    204: NoContent,
    400: ErrorEnvelope,
    429: ErrorEnvelope,
  },
} satisfies RouteSchema;
