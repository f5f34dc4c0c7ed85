import { SecurityEvent } from './audit.js';
import { UserRecord } from './records.js';
import {
  Body,
  DateText,
  Text,
  ErrorEnvelope,
  Id,
  IdParams,
  NoContent,
  type RouteSchema,
  SIGNED_IN,
  Type,
  type Static,
  type TSchema,
} from './schema.js';

/**
 * The operator console's API (server/src/admin/routes.ts) and the member's own role
 * (/api/gatehouse/me). Every /api/admin/ route answers 401 to a guest and 403 to a member who is
 * not an operator; the actions that change another member also need a fresh session (403
 * "Confirm it's you to continue.").
 */
const tags = ['Operator console'];
const operator = { 401: ErrorEnvelope, 403: ErrorEnvelope };

/** Text that may be absent: a JSON `null`. */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A query-string value: always text (the route reads numbers from it, with its own 400s). */
const QueryText = (description?: string) =>
  Type.Optional(Type.String(description ? { description } : {}));

/** PocketBase's list paging (server/src/http/list.ts reads and checks it). */
const paging = {
  page: QueryText('from 1'),
  perPage: QueryText('default 30, at most 100'),
  skipTotal: QueryText('`true` or `1`: totalItems and totalPages are -1'),
};

/** PocketBase's list answer; the totals are -1 when skipped (or, for a search, past 10,000). */
const ListAnswer = <T extends TSchema>(item: T) =>
  Type.Object({
    page: Type.Integer(),
    perPage: Type.Integer(),
    totalItems: Type.Integer(),
    totalPages: Type.Integer(),
    items: Type.Array(item),
  });

/** The signed-in member's role: whether the app shows Admin. */
export const MeAnswer = Type.Object({
  id: Id(),
  email: Type.String(),
  isInitialUser: Type.Boolean(),
  isOperator: Type.Boolean(),
});
export type MeAnswer = Static<typeof MeAnswer>;

/** A member as the console shows one: the users record (with the email), role and state. */
export const MemberAnswer = Type.Object({
  ...UserRecord.properties,
  email: Type.String(),
  isOperator: Type.Boolean({ description: 'the initial user always is' }),
  disabled: Type.Boolean(),
});
export type MemberAnswer = Static<typeof MemberAnswer>;

/** One of the member's invite codes, used or not. */
export const MemberCodeAnswer = Type.Object({
  id: Id(),
  code: Type.String({ description: 'in groups of four, `XXXX-XXXX-…`' }),
  created: DateText(),
  used: Nullable(DateText()),
  usedBy: Nullable(Type.String({ description: 'the id of the member who signed up with it' })),
});
export type MemberCodeAnswer = Static<typeof MemberCodeAnswer>;

/** One of the member's signed-in devices. */
export const MemberSessionAnswer = Type.Object({
  id: Id(),
  created: DateText(),
  lastSeen: DateText(),
  ip: Type.String(),
  userAgent: Type.String(),
  viewedBy: Nullable(
    Type.String({
      description:
        "an operator viewing as the member: the operator's email ('' when that account is gone)",
    }),
  ),
});
export type MemberSessionAnswer = Static<typeof MemberSessionAnswer>;

/** How the member signs in: what Reset Two-Step Sign-In would remove, and what it leaves. */
export const WaysInAnswer = Type.Object({
  password: Type.Boolean({ description: 'a password of their own' }),
  twoStep: Type.Boolean(),
  passkeys: Type.Integer(),
  providers: Type.Integer(),
});
export type WaysInAnswer = Static<typeof WaysInAnswer>;

/** A member's page: the member, who invited them, their codes, sessions and newest events. */
export const MemberDetailAnswer = Type.Object({
  ...MemberAnswer.properties,
  invitedBy: Nullable(Type.Object({ id: Id(), email: Type.String() })),
  inviterDeleted: Type.Boolean({ description: 'the account that invited them is gone' }),
  invitees: Type.Integer({ description: 'how many members they invited' }),
  codes: Type.Array(MemberCodeAnswer),
  sessions: Type.Array(MemberSessionAnswer),
  lastSignIn: Nullable(DateText()),
  events: Type.Array(SecurityEvent, {
    description: 'the 20 newest, as GET /api/gatehouse/security-events items',
  }),
  waysIn: WaysInAnswer,
});
export type MemberDetailAnswer = Static<typeof MemberDetailAnswer>;

/** A node of the invite tree: the member, their counts and the children shown (a cyclic type). */
const TreeNodeCycle = Type.Cyclic(
  {
    TreeNode: Type.Object({
      id: Id(),
      email: Type.String(),
      name: Type.String({ description: "'' when unset" }),
      avatar: Type.String({ description: "the avatar's file name ('' when none)" }),
      created: DateText(),
      disabled: Type.Boolean(),
      isOperator: Type.Boolean(),
      inviterDeleted: Type.Boolean({
        description: 'hung under the initial user: the account that invited them is gone',
      }),
      childCount: Type.Integer({ description: 'direct invitees, shown or not' }),
      descendants: Type.Integer({ description: 'everyone in the branch below' }),
      children: Type.Array(Type.Ref('TreeNode'), {
        description:
          'to `depth`, the first `limit` (oldest first); fewer than childCount: ask again with this node as `root`',
      }),
    }),
  },
  'TreeNode',
);
export type TreeNodeAnswer = Static<typeof TreeNodeCycle>;

/**
 * The tree node as a shared schema (`$id` TreeNode, its children `$ref` it): the server registers
 * it once (`app.addSchema`) and the answer refers to it, so the serializer follows the recursion
 * and the OpenAPI document holds it as one component (a `$defs` inside an answer it cannot emit).
 */
export const TreeNodeSchema = TreeNodeCycle.$defs.TreeNode;

/** The answer of GET /api/admin/invite-tree: the root node. */
export const TreeAnswer = Type.Unsafe<TreeNodeAnswer>(Type.Ref('TreeNode'));

/** A mail waiting in the outbox (not sent yet, or failing). */
export const QueuedMailAnswer = Type.Object({
  id: Id(),
  userId: Nullable(Type.String()),
  recipient: Type.String(),
  subject: Type.String(),
  attempts: Type.Integer(),
  lastError: Nullable(Type.String()),
  nextAttempt: DateText(),
  created: DateText(),
});
export type QueuedMailAnswer = Static<typeof QueuedMailAnswer>;

/** The outbox now, and the worker's last 24 hours. */
export const MailStatsAnswer = Type.Object({
  queued: Type.Integer(),
  failing: Type.Integer({ description: 'queued and tried at least once' }),
  sentLast24h: Type.Integer(),
  failedLast24h: Type.Integer(),
});
export type MailStatsAnswer = Static<typeof MailStatsAnswer>;

/** An entry of the whole security log: the event, its member and who acted. */
export const LogEventAnswer = Type.Object({
  id: Id(),
  created: DateText(),
  type: Type.String(),
  member: Nullable(Type.String({ description: "the member's id; null: no member" })),
  email: Nullable(Type.String({ description: 'null: no member, or the account is gone' })),
  actor: Nullable(
    Type.Object(
      {
        id: Type.String({ description: "the operator's id, or `cli` for the command line" }),
        email: Nullable(
          Type.String({ description: 'null: the command line, or a deleted operator' }),
        ),
      },
      { description: 'who did an operator action; null for other events' },
    ),
  ),
  ip: Type.String(),
  userAgent: Type.String(),
  outcome: SecurityEvent.properties.outcome,
  detail: SecurityEvent.properties.detail,
});
export type LogEventAnswer = Static<typeof LogEventAnswer>;

/** A member as the console's Members table lists them: the member, inviter, last sign-in, two-step. */
export const MemberListItem = Type.Object({
  ...MemberAnswer.properties,
  invitedBy: Nullable(Type.Object({ id: Id(), email: Type.String() })),
  inviterDeleted: Type.Boolean({ description: 'the account that invited them is gone' }),
  lastSignIn: Nullable(DateText()),
  twoStep: Type.Boolean({ description: 'two-step sign-in (an authenticator app) is on' }),
});
export type MemberListItem = Static<typeof MemberListItem>;

export const MembersAnswer = ListAnswer(MemberListItem);
export type MembersAnswer = Static<typeof MembersAnswer>;

export const OutboxAnswer = Type.Object({
  ...ListAnswer(QueuedMailAnswer).properties,
  stats: MailStatsAnswer,
});
export type OutboxAnswer = Static<typeof OutboxAnswer>;

export const SecurityLogAnswer = ListAnswer(LogEventAnswer);
export type SecurityLogAnswer = Static<typeof SecurityLogAnswer>;

export const GivenCodesAnswer = Type.Object({
  codes: Type.Array(
    Type.Object({
      id: Id(),
      code: Type.String({ description: 'in groups of four, `XXXX-XXXX-…`' }),
      created: DateText(),
    }),
  ),
});
export type GivenCodesAnswer = Static<typeof GivenCodesAnswer>;

export const me = {
  summary: "The signed-in member's role: whether to show the operator console",
  tags: ['Account'],
  security: SIGNED_IN,
  response: { 200: MeAnswer, 401: ErrorEnvelope },
} satisfies RouteSchema;

/** What picks the members: the list, the CSV export and the bulk actions' callers share it. */
const memberQuery = {
  q: QueryText('part of the email, matched literally, case-insensitive'),
  status: QueryText('`verified`, `unverified` or `disabled`'),
  filter: QueryText(
    "PocketBase's filter over id, email, emailVisibility, verified, name, inviteCode, created, updated, disabled",
  ),
  sort: QueryText(
    "PocketBase's sort over the filter's fields, e.g. `-created` (the default), `email`, `-verified`",
  ),
};

export const listMembers = {
  summary: 'Members, newest first: search by email, filter, sort, paged',
  description:
    "A search's or a filter's total is counted up to 10,000 matches; beyond it totalItems and totalPages are -1. An unknown `status`, or a `filter` or `sort` that cannot be read, is a 400.",
  tags,
  security: SIGNED_IN,
  querystring: Type.Object({ ...memberQuery, ...paging }),
  response: { 200: MembersAnswer, 400: ErrorEnvelope, ...operator },
} satisfies RouteSchema;

/** The answer of a bulk action: how many it did and skipped, and what it did to each member. */
export const BulkAnswer = Type.Object({
  done: Type.Integer(),
  skipped: Type.Integer(),
  results: Type.Array(
    Type.Object({
      id: Type.String(),
      result: Type.Union([Type.Literal('done'), Type.Literal('skipped')]),
      reason: Nullable(Type.String({ description: 'why it was skipped; null when done' })),
    }),
  ),
});
export type BulkAnswer = Static<typeof BulkAnswer>;

export const bulkMembers = {
  summary: 'Disable, enable, mark verified, or mail many members at once',
  description:
    '`action`: `disable`, `enable`, `resend-verification`, `password-reset` or `mark-verified`; `ids`: 1 to 200 member ids. A fresh session, as the single actions. One transaction: each member it applies to gets the single action (its events and mail); the others are skipped with a reason (the initial user, oneself and operators for `disable`, members already in that state, unknown ids).',
  tags,
  security: SIGNED_IN,
  body: Body({
    action: Text({ description: 'the action' }),
    ids: Type.Optional(Type.Array(Type.String(), { description: "the members' ids" })),
  }),
  response: { 200: BulkAnswer, 400: ErrorEnvelope, ...operator },
} satisfies RouteSchema;

export const exportMembers = {
  summary: 'The members a search and filter keep, as CSV, in the asked order',
  description:
    "Columns email, name, status, verified, two_step, last_sign_in, inviter_email, joined; streamed (RFC 4180, UTF-8, CRLF), a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return prefixed with `'`. Authorized by the Authorization header or `token`, a file token of an operator (POST /api/files/token), for a download link. 401 without either, 403 for a member who is not an operator, 400 for a bad `status`, `filter` or `sort`.",
  tags,
  security: SIGNED_IN,
  querystring: Type.Object({
    ...memberQuery,
    token: QueryText('a file token (POST /api/files/token), instead of the Authorization header'),
  }),
  response: {
    200: Type.Unsafe<AsyncIterable<string>>({
      type: 'string',
      description: 'text/csv, sent as a stream',
    }),
    400: ErrorEnvelope,
    ...operator,
  },
} satisfies RouteSchema;

/** An invite sent by email: the address and the code it holds. */
export const InviteSentAnswer = Type.Object({
  email: Type.String({ description: 'the address, as stored (trimmed, lower-case)' }),
  code: Type.Object({
    id: Id(),
    code: Type.String({ description: 'in groups of four, `XXXX-XXXX-…`' }),
    created: DateText(),
  }),
});
export type InviteSentAnswer = Static<typeof InviteSentAnswer>;

export const inviteByEmail = {
  summary: 'Invite someone by email: a new invite code of the operator, mailed as a sign-up link',
  description:
    'The code is the operator’s (they are the inviter); the mail goes through the outbox. 400 for a blank or bad address, or an address that already has an account; 429 past 20 invites an hour per operator or 3 a day to one address.',
  tags,
  security: SIGNED_IN,
  body: Body({ email: Text({ description: 'the address to invite' }) }),
  response: { 200: InviteSentAnswer, 400: ErrorEnvelope, ...operator, 429: ErrorEnvelope },
} satisfies RouteSchema;

export const memberDetail = {
  summary: "A member's page: who invited them, their codes, sessions, ways in, newest events",
  tags,
  security: SIGNED_IN,
  params: IdParams,
  response: { 200: MemberDetailAnswer, ...operator, 404: ErrorEnvelope },
} satisfies RouteSchema;

/** An action on a member that answers the member as it is after it (a fresh session). */
const memberAction = (summary: string, description?: string, refusals = {}) =>
  ({
    summary,
    ...(description ? { description } : {}),
    tags,
    security: SIGNED_IN,
    params: IdParams,
    response: { 200: MemberAnswer, ...refusals, ...operator, 404: ErrorEnvelope },
  }) satisfies RouteSchema;

export const disableMember = memberAction(
  'Disable a member: their sessions end, sign-in and their codes are refused',
  'Not the initial user, nor the operator themself (403).',
);
export const enableMember = memberAction('Enable a disabled member');
export const makeOperator = memberAction(
  'Make a member an operator',
  'The initial user alone may (403 for other operators).',
);
export const removeOperator = memberAction(
  "Take a member's operator role away",
  'The initial user alone may; the initial user stays an operator (403).',
);
export const resetTwoStep = memberAction(
  'Reset two-step sign-in: turn it off and remove every passkey (the member is mailed)',
  'The password, connected providers and sessions stay. 400 when there is nothing to reset, or when passkeys are their only way in; 403 for the own account (Settings does that) and the initial user (the command line can).',
  { 400: ErrorEnvelope },
);

export const giveCodes = {
  summary: 'Give a member new invite codes',
  tags,
  security: SIGNED_IN,
  params: IdParams,
  body: Body({ count: Type.Optional(Type.Number({ description: 'a whole number from 1 to 50' })) }),
  response: { 200: GivenCodesAnswer, 400: ErrorEnvelope, ...operator, 404: ErrorEnvelope },
} satisfies RouteSchema;

export const resendVerification = {
  summary: 'Send an unverified member the verification mail again',
  description: 'Needs an operator, not a fresh session. 400 when the email is already verified.',
  tags,
  security: SIGNED_IN,
  params: IdParams,
  response: { 204: NoContent, 400: ErrorEnvelope, ...operator, 404: ErrorEnvelope },
} satisfies RouteSchema;

export const deleteMember = {
  summary: 'Delete a member (as they would delete their own account)',
  description: 'Not the initial user (403).',
  tags,
  security: SIGNED_IN,
  params: IdParams,
  response: { 204: NoContent, ...operator, 404: ErrorEnvelope },
} satisfies RouteSchema;

export const revokeCode = {
  summary: 'Revoke an unused invite code',
  description: 'A used code is the record of who invited whom and stays (400).',
  tags,
  security: SIGNED_IN,
  params: IdParams,
  response: { 204: NoContent, 400: ErrorEnvelope, ...operator, 404: ErrorEnvelope },
} satisfies RouteSchema;

export const inviteTree = {
  summary: 'Who invited whom, from a root down to `depth` levels',
  description:
    'At most 2,000 nodes an answer. Members whose inviter deleted their account hang under the initial user, marked `inviterDeleted`.',
  tags,
  security: SIGNED_IN,
  querystring: Type.Object({
    root: QueryText("a member's id (default: the initial user)"),
    depth: QueryText('levels below the root, 0 to 10 (default 2)'),
    limit: QueryText('children listed per node, 1 to 1000 (default 100)'),
    offset: QueryText("the root's children to skip (default 0)"),
  }),
  response: { 200: TreeAnswer, 400: ErrorEnvelope, ...operator, 404: ErrorEnvelope },
} satisfies RouteSchema;

export const outbox = {
  summary: 'Mail waiting to be sent, next attempt first, and the last 24 hours of delivery',
  description: 'totalItems is the number of queued mails (-1 with skipTotal).',
  tags,
  security: SIGNED_IN,
  querystring: Type.Object(paging),
  response: { 200: OutboxAnswer, 400: ErrorEnvelope, ...operator },
} satisfies RouteSchema;

export const retryMail = {
  summary: 'Send a queued mail now (Retry Now)',
  tags,
  security: SIGNED_IN,
  params: IdParams,
  response: { 204: NoContent, ...operator, 404: ErrorEnvelope },
} satisfies RouteSchema;

export const testMail = {
  summary: 'Send a test mail to the operator',
  tags,
  security: SIGNED_IN,
  body: Body({}),
  response: { 204: NoContent, 400: ErrorEnvelope, ...operator },
} satisfies RouteSchema;

export const securityEvents = {
  summary: "Every member's security events, newest first",
  tags,
  security: SIGNED_IN,
  querystring: Type.Object({
    member: QueryText("a member's id: only their events"),
    type: QueryText('only events of this type'),
    ...paging,
  }),
  response: { 200: SecurityLogAnswer, 400: ErrorEnvelope, ...operator },
} satisfies RouteSchema;
