import {
  Body,
  DateText,
  ErrorEnvelope,
  type RouteSchema,
  SIGNED_IN,
  Type,
  type Static,
} from './schema.js';

/**
 * PocketBase's collections API, read-only (server/src/admin/collections.ts): the users collection
 * described in PocketBase's schema shape, for operators (PocketBase: superusers). Guests get 401,
 * members who are not operators 403; creating, changing, importing, truncating or deleting a
 * collection is refused (403).
 */
const tags = ['Collections'];
const superuser = { 401: ErrorEnvelope, 403: ErrorEnvelope };

const QueryText = (description: string) => Type.Optional(Type.String({ description }));

/** An API rule: a filter expression, '' (anyone) or null (superusers only). */
const Rule = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

/** A token's lifetime. */
const TokenConfig = Type.Object({ duration: Type.Integer({ description: 'seconds' }) });

/** A field of the collection: its options depend on its type, as in PocketBase. */
const CollectionField = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  description:
    "PocketBase's field: `id`, `name`, `type`, `system`, `hidden`, `presentable` and the options of its type",
});

/** PocketBase's auth collection, with the options that describe how Gatehouse signs members in. */
export const CollectionModel = Type.Object({
  id: Type.String(),
  listRule: Rule('null: operators only'),
  viewRule: Rule('the member themselves'),
  createRule: Rule("'': anyone with an invite code (the server checks the code)"),
  updateRule: Rule('the member themselves'),
  deleteRule: Rule('the member themselves'),
  name: Type.String(),
  type: Type.String({ description: '`auth`' }),
  fields: Type.Array(CollectionField),
  indexes: Type.Array(Type.String(), { description: 'the indexes a list can use' }),
  created: DateText(),
  updated: DateText(),
  system: Type.Boolean({ description: 'true: fixed by the server' }),
  authRule: Rule("'': any member may sign in (a disabled one may not)"),
  manageRule: Rule('null: nobody manages other members through the records API'),
  authAlert: Type.Object({ enabled: Type.Boolean() }),
  oauth2: Type.Object({
    enabled: Type.Boolean(),
    mappedFields: Type.Object({
      id: Type.String(),
      name: Type.String(),
      username: Type.String(),
      avatarURL: Type.String(),
    }),
    providers: Type.Array(
      Type.Object({ name: Type.String(), displayName: Type.String(), clientId: Type.String() }),
    ),
  }),
  passwordAuth: Type.Object({
    enabled: Type.Boolean(),
    identityFields: Type.Array(Type.String()),
  }),
  mfa: Type.Object({
    enabled: Type.Boolean({ description: 'two-step sign-in, for the members who turn it on' }),
    duration: Type.Integer({ description: 'seconds to complete the second step' }),
    rule: Type.String(),
  }),
  authToken: TokenConfig,
  passwordResetToken: TokenConfig,
  emailChangeToken: TokenConfig,
  verificationToken: TokenConfig,
  fileToken: TokenConfig,
});
export type CollectionModel = Static<typeof CollectionModel>;

export const CollectionListAnswer = Type.Object({
  page: Type.Integer(),
  perPage: Type.Integer(),
  totalItems: Type.Integer({ description: '-1 with skipTotal' }),
  totalPages: Type.Integer({ description: '-1 with skipTotal' }),
  items: Type.Array(CollectionModel),
});
export type CollectionListAnswer = Static<typeof CollectionListAnswer>;

const CollectionParams = Type.Object({ idOrName: Type.String() });

export const listCollections = {
  summary: 'The collections: users, in PocketBase’s schema shape (operators only)',
  description:
    'PocketBase’s list: `page`, `perPage`, `skipTotal`, and `filter` and `sort` over id, name, type, system, created and updated.',
  tags,
  security: SIGNED_IN,
  querystring: Type.Object({
    page: QueryText('from 1'),
    perPage: QueryText('default 30, at most 1000'),
    sort: QueryText('fields separated by commas, `-` first for descending'),
    filter: QueryText('PocketBase\'s filter: `name = "users"`'),
    skipTotal: QueryText('`true` or `1`: totalItems and totalPages are -1'),
  }),
  response: { 200: CollectionListAnswer, 400: ErrorEnvelope, ...superuser },
} satisfies RouteSchema;

export const viewCollection = {
  summary: 'One collection by id or name: `users` or `_pb_users_auth_` (operators only)',
  tags,
  security: SIGNED_IN,
  params: CollectionParams,
  response: { 200: CollectionModel, ...superuser, 404: ErrorEnvelope },
} satisfies RouteSchema;

const refused = (summary: string, params: boolean, body: boolean) =>
  ({
    summary,
    description: "Always refused: Gatehouse's collections are fixed (403 for an operator).",
    tags,
    security: SIGNED_IN,
    ...(params ? { params: CollectionParams } : {}),
    ...(body ? { body: Body({}) } : {}),
    response: { ...superuser, 400: ErrorEnvelope, 404: ErrorEnvelope },
  }) satisfies RouteSchema;

export const createCollection = refused('Create a collection: refused', false, true);
export const updateCollection = refused('Change a collection: refused', true, true);
export const deleteCollection = refused('Delete a collection: refused', true, false);
export const truncateCollection = refused("Delete a collection's records: refused", true, false);
export const importCollections = refused('Import collections: refused', false, true);
