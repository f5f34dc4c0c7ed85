import { AuthAnswer, UserRecord } from './records.js';
import {
  Body,
  ErrorEnvelope,
  Flag,
  IdParams,
  NoContent,
  OptionalText,
  type RouteSchema,
  SIGNED_IN,
  Text,
  Type,
  type Static,
} from './schema.js';

/** The users collection's PocketBase-shaped endpoints (server/src/accounts/routes.ts). */
const tags = ['Accounts'];
const errors = { 400: ErrorEnvelope, 429: ErrorEnvelope };

export const authWithPassword = {
  summary: 'Sign in with email and password',
  description:
    'A member with two-step sign-in on gets 401 with an `mfaId` instead (then auth-with-totp). A right password also sets the device cookie.',
  tags,
  body: Body({ identity: Text({ description: 'the email' }), password: Text() }),
  response: { 200: AuthAnswer, ...errors, 401: ErrorEnvelope, 403: ErrorEnvelope },
} satisfies RouteSchema;

export const authRefresh = {
  summary: "Keep the session: a fresh token for it, and the member's record",
  tags,
  security: SIGNED_IN,
  response: { 200: AuthAnswer, 401: ErrorEnvelope },
} satisfies RouteSchema;

export const signUp = {
  summary: 'Sign up with an invite code',
  tags,
  body: Body({
    email: Text(),
    password: Text(),
    passwordConfirm: Text(),
    inviteCode: Text(),
    name: Text({ description: "optional: the member's name (trimmed, up to 100 characters)" }),
    language: Text({
      description: "optional: `en` (when missing or '') or `de`, the language of the member's mail",
    }),
    emailVisibility: Flag(),
    verified: Flag({ description: 'ignored: an account is verified through its mail' }),
  }),
  response: { 200: UserRecord, ...errors },
} satisfies RouteSchema;

/** A query-string value: always text (the route reads numbers and flags from it, with its 400s). */
const QueryText = (description: string) => Type.Optional(Type.String({ description }));

/** PocketBase's list of records; `fields` may leave any key out, hence every one optional. */
export const RecordListAnswer = Type.Object({
  page: Type.Integer(),
  perPage: Type.Integer(),
  totalItems: Type.Integer({
    description: '-1 with skipTotal, or when a filter matches more than 10,000',
  }),
  totalPages: Type.Integer({ description: '-1 when totalItems is' }),
  items: Type.Array(Type.Partial(UserRecord), {
    description: 'members as their own record shows them (with the email); `fields` picks keys',
  }),
});
export type RecordListAnswer = Static<typeof RecordListAnswer>;

export const listRecords = {
  summary:
    "List members with PocketBase's filter and sort (operators only: PocketBase's superusers)",
  description:
    'Members and guests get 403 `Only superusers can perform this action.`, as from PocketBase. ' +
    'The filter grammar, the fields it may name and its errors are in docs/api.md; a filter or sort ' +
    "that cannot be read is a 400 with PocketBase's message and a `filter` or `sort` field error.",
  tags,
  security: SIGNED_IN,
  querystring: Type.Object({
    page: QueryText('from 1'),
    perPage: QueryText('default 30, at most 1000'),
    sort: QueryText('fields separated by commas, `-` first for descending: `-created,email`'),
    filter: QueryText('PocketBase\'s filter: `verified = true && created > "2026-01-01"`'),
    skipTotal: QueryText('`true` or `1`: totalItems and totalPages are -1'),
    fields: QueryText('the record keys to answer, comma-separated (`*` for all)'),
  }),
  response: { 200: RecordListAnswer, 400: ErrorEnvelope, 403: ErrorEnvelope },
} satisfies RouteSchema;

export const viewRecord = {
  summary: "The member's own record (anyone else's is a 404)",
  tags,
  security: SIGNED_IN,
  params: IdParams,
  response: { 200: UserRecord, 404: ErrorEnvelope },
} satisfies RouteSchema;

export const updateRecord = {
  summary: 'Change the own name, avatar, language, emailVisibility or password (with oldPassword)',
  description:
    'A new password ends every other session; this device gets a fresh token in the `X-Gatehouse-Token` header. ' +
    'An avatar is uploaded as `multipart/form-data` (what the SDK sends when a value is a `File`): the file in the ' +
    '`avatar` part (JPEG, PNG, WebP or GIF by its content, at most 5 MB; the whole form at most 6 MB), the other ' +
    'fields as text parts (`true`/`false` for emailVisibility) or as JSON in an `@jsonPayload` part. ' +
    "`avatar` sent as `null` or '' removes the avatar; a missing field is left as it is.",
  tags,
  security: SIGNED_IN,
  params: IdParams,
  consumes: ['application/json', 'multipart/form-data'],
  body: Body({
    oldPassword: Text(),
    password: Text(),
    passwordConfirm: Text(),
    emailVisibility: Flag(),
    name: OptionalText({
      description: "trimmed, up to 100 characters, no control characters; null or '' clears it",
    }),
    avatar: OptionalText({
      description:
        "null or '' removes the avatar; the current file name keeps it; a file (multipart) replaces it",
    }),
    language: OptionalText({
      description: "`en` or `de`: the language of the member's mail; '' leaves it as it is",
    }),
  }),
  response: {
    200: UserRecord,
    ...errors,
    404: ErrorEnvelope,
    413: ErrorEnvelope,
    415: ErrorEnvelope,
  },
} satisfies RouteSchema;

export const deleteRecord = {
  summary: 'Delete the own account (a fresh session: Confirm it’s you)',
  tags,
  security: SIGNED_IN,
  params: IdParams,
  response: { 204: NoContent, 403: ErrorEnvelope, 404: ErrorEnvelope },
} satisfies RouteSchema;

export const requestEmailChange = {
  summary: 'Ask to move the account to a new address (a fresh session)',
  tags,
  security: SIGNED_IN,
  body: Body({ newEmail: Text() }),
  response: { 204: NoContent, ...errors, 401: ErrorEnvelope, 403: ErrorEnvelope },
} satisfies RouteSchema;

export const confirmEmailChange = {
  summary: "Move the account to the new address: the mail's token and the password",
  tags,
  body: Body({ token: Text(), password: Text() }),
  response: { 204: NoContent, ...errors },
} satisfies RouteSchema;

export const exportData = {
  summary: "Download the member's data as JSON (a fresh session)",
  tags,
  security: SIGNED_IN,
  response: {
    200: Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      additionalProperties: true,
      description: 'account, invite codes, sessions, security events, passkeys, providers',
    }),
    401: ErrorEnvelope,
    403: ErrorEnvelope,
  },
} satisfies RouteSchema;

const requestMail = (summary: string) =>
  ({
    summary,
    description: 'Always 204, whether or not the address has an account.',
    tags,
    body: Body({ email: Text() }),
    response: { 204: NoContent, ...errors },
  }) satisfies RouteSchema;

export const requestVerification = requestMail('Send the verification mail again');
export const requestPasswordReset = requestMail('Send a password-reset mail');

export const confirmVerification = {
  summary: "Verify the address with the mail's token",
  tags,
  body: Body({ token: Text() }),
  response: { 204: NoContent, ...errors },
} satisfies RouteSchema;

export const confirmPasswordReset = {
  summary: "Set a new password with the mail's token",
  tags,
  body: Body({ token: Text(), password: Text(), passwordConfirm: Text() }),
  response: { 204: NoContent, ...errors },
} satisfies RouteSchema;
