import { sql } from 'kysely';
import type { CollectionModel } from '../../../contract/collections.js';
import type { AppContext } from '../core/context.js';
import { ForbiddenError, NotFoundError } from '../core/errors.js';
import { MFA_LIFETIME_MS } from '../core/second-step.js';
import {
  TOKEN_LIFETIME_SECONDS,
  USERS_COLLECTION_ID,
  USERS_COLLECTION_NAME,
} from '../core/tokens.js';
import { listAnswer, listQuery } from '../http/list.js';
import { formatDate } from '../tools/time.js';
import { compareText, matches, readFilter, readSort, type FieldSpec } from './record-filter.js';
import { MAX_PER_PAGE } from './record-list.js';

/**
 * PocketBase's collections API, read-only: Gatehouse has one collection, `users`, fixed by the
 * server. Operators (PocketBase: superusers) may read its description in PocketBase's schema shape,
 * so that tools built on the SDK (`pb.collections.getFullList()`, `getOne('users')`) find what they
 * expect; every change is refused (docs/decisions/0052).
 *
 * The description says what the server does: the records' fields (PocketBase's field JSON, keys in
 * PocketBase's alphabetical order, field ids as PocketBase makes them: the type and the CRC-32 of
 * the name), the rules (the member themselves; lists for operators), how members sign in
 * (password by email, providers, two-step sign-in) and the tokens' lifetimes. Mail templates, OTP
 * and alert options are not part of it: Gatehouse composes its mails in code.
 */

/** The refusal of every change to a collection. */
export const COLLECTIONS_FIXED =
  "Gatehouse's collections are fixed: users is the only one, and the server defines its fields and rules.";

/** The fields a collections filter or sort may name (PocketBase's). */
const COLLECTION_FIELDS: readonly FieldSpec[] = [
  { name: 'id', column: 'id', type: 'text' },
  { name: 'created', column: 'created', type: 'text' },
  { name: 'updated', column: 'updated', type: 'text' },
  { name: 'name', column: 'name', type: 'text' },
  { name: 'system', column: 'system', type: 'bool' },
  { name: 'type', column: 'type', type: 'text' },
];

const OWNER = 'id = @request.auth.id';

/** The users record's fields, in the record's order (core/users.ts userRecord). */
const FIELDS: Array<Record<string, unknown>> = [
  {
    autogeneratePattern: '[a-z0-9]{15}',
    hidden: false,
    id: 'text3208210256',
    max: 15,
    min: 15,
    name: 'id',
    pattern: '^[a-z0-9]+$',
    presentable: false,
    primaryKey: true,
    required: true,
    system: true,
    type: 'text',
  },
  {
    cost: 0,
    hidden: true,
    id: 'password901924565',
    max: 256,
    min: 8,
    name: 'password',
    pattern: '',
    presentable: false,
    required: true,
    system: true,
    type: 'password',
  },
  {
    autogeneratePattern: '',
    hidden: true,
    id: 'text2504183744',
    max: 0,
    min: 0,
    name: 'tokenKey',
    pattern: '',
    presentable: false,
    primaryKey: false,
    required: true,
    system: true,
    type: 'text',
  },
  {
    exceptDomains: null,
    hidden: false,
    id: 'email3885137012',
    name: 'email',
    onlyDomains: null,
    presentable: false,
    required: true,
    system: true,
    type: 'email',
  },
  {
    hidden: false,
    id: 'bool1547992806',
    name: 'emailVisibility',
    presentable: false,
    required: false,
    system: true,
    type: 'bool',
  },
  {
    hidden: false,
    id: 'bool256245529',
    name: 'verified',
    presentable: false,
    required: false,
    system: true,
    type: 'bool',
  },
  {
    autogeneratePattern: '',
    hidden: false,
    id: 'text1579384326',
    max: 100,
    min: 0,
    name: 'name',
    pattern: '',
    presentable: false,
    primaryKey: false,
    required: false,
    system: false,
    type: 'text',
  },
  {
    hidden: false,
    id: 'file376926767',
    maxSelect: 1,
    maxSize: 5 * 1024 * 1024,
    mimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'],
    name: 'avatar',
    presentable: false,
    protected: false,
    required: false,
    system: false,
    thumbs: ['100x100', '40x40', '200x200', '400x400', '100x100t', '100x100f', '200x0', '0x200'],
    type: 'file',
  },
  {
    hidden: false,
    id: 'select3571151285',
    maxSelect: 1,
    name: 'language',
    presentable: false,
    required: false,
    system: false,
    type: 'select',
    values: ['en', 'de'],
  },
  {
    hidden: false,
    id: 'bool3801520098',
    name: 'isInitialUser',
    presentable: false,
    required: false,
    system: true,
    type: 'bool',
  },
  {
    autogeneratePattern: '',
    hidden: false,
    id: 'text432700299',
    max: 0,
    min: 0,
    name: 'inviteCode',
    pattern: '',
    presentable: false,
    primaryKey: false,
    required: true,
    system: true,
    type: 'text',
  },
  {
    hidden: false,
    id: 'autodate2990389176',
    name: 'created',
    onCreate: true,
    onUpdate: false,
    presentable: false,
    system: false,
    type: 'autodate',
  },
  {
    hidden: false,
    id: 'autodate3332085495',
    name: 'updated',
    onCreate: true,
    onUpdate: true,
    presentable: false,
    system: false,
    type: 'autodate',
  },
];

/**
 * When the database was set up and when its schema last changed: the first and last migration's
 * time, as PocketBase's `created` and `updated` of a collection.
 */
async function schemaDates(ctx: AppContext): Promise<{ created: string; updated: string }> {
  const { rows } = await sql<{ first: string | null; last: string | null }>`
    SELECT min(timestamp) AS first, max(timestamp) AS last FROM kysely_migration`.execute(ctx.db);
  const date = (value: string | null | undefined) => {
    const parsed = value ? new Date(value) : undefined;
    return parsed && !Number.isNaN(parsed.getTime()) ? formatDate(parsed) : '';
  };
  return { created: date(rows[0]?.first), updated: date(rows[0]?.last) };
}

/** The users collection as PocketBase describes an auth collection. */
async function usersCollection(ctx: AppContext): Promise<CollectionModel> {
  const { created, updated } = await schemaDates(ctx);
  const providers = ctx.config.providers;
  return {
    id: USERS_COLLECTION_ID,
    listRule: null,
    viewRule: OWNER,
    createRule: '',
    updateRule: OWNER,
    deleteRule: OWNER,
    name: USERS_COLLECTION_NAME,
    type: 'auth',
    fields: FIELDS,
    indexes: [
      'CREATE UNIQUE INDEX `users_email` ON `users` (`email`)',
      'CREATE INDEX `users_created` ON `users` (`created`, `id`)',
    ],
    created,
    updated,
    system: true,
    authRule: '',
    manageRule: null,
    authAlert: { enabled: false },
    oauth2: {
      enabled: providers.length > 0,
      mappedFields: { id: '', name: '', username: '', avatarURL: '' },
      providers: providers.map((p) => ({
        name: p.name,
        displayName: p.displayName,
        clientId: p.clientId,
      })),
    },
    passwordAuth: { enabled: true, identityFields: ['email'] },
    mfa: { enabled: true, duration: MFA_LIFETIME_MS / 1000, rule: '' },
    authToken: { duration: TOKEN_LIFETIME_SECONDS.auth },
    passwordResetToken: { duration: TOKEN_LIFETIME_SECONDS.passwordReset },
    emailChangeToken: { duration: TOKEN_LIFETIME_SECONDS.emailChange },
    verificationToken: { duration: TOKEN_LIFETIME_SECONDS.verification },
    fileToken: { duration: TOKEN_LIFETIME_SECONDS.file },
  };
}

/** Whether `idOrName` names the users collection: its id, or its name in any case (PocketBase's). */
function isUsers(idOrName: string): boolean {
  return idOrName === USERS_COLLECTION_ID || idOrName.toLowerCase() === USERS_COLLECTION_NAME;
}

export interface CollectionListQuery {
  page?: string;
  perPage?: string;
  sort?: string;
  filter?: string;
  skipTotal?: string;
}

/** PocketBase's collections list: the users collection, if the filter keeps it. */
export async function listCollections(ctx: AppContext, query: CollectionListQuery) {
  const list = listQuery(query, MAX_PER_PAGE);
  const condition = readFilter(query.filter, COLLECTION_FIELDS);
  const sort = readSort(query.sort, COLLECTION_FIELDS);
  const all = [await usersCollection(ctx)].filter((c) => !condition || matches(condition, c));
  all.sort((a, b) => {
    for (const { field, direction } of sort) {
      const [x, y] = [
        a[field.name as keyof CollectionModel],
        b[field.name as keyof CollectionModel],
      ];
      const order =
        typeof x === 'boolean' ? Number(x) - Number(y) : compareText(String(x), String(y));
      if (order !== 0) return direction === 'asc' ? order : -order;
    }
    return 0;
  });
  const start = (list.page - 1) * list.perPage;
  return listAnswer(
    list,
    all.slice(start, start + list.perPage),
    list.skipTotal ? undefined : all.length,
  );
}

/** One collection by id or name; 404 for any other. */
export async function viewCollection(ctx: AppContext, idOrName: string) {
  if (!isUsers(idOrName)) throw new NotFoundError();
  return usersCollection(ctx);
}

/** A change to a collection: 404 for one that does not exist, else refused. */
export function refuseCollectionChange(idOrName?: string): never {
  if (idOrName !== undefined && !isUsers(idOrName)) throw new NotFoundError();
  throw new ForbiddenError(COLLECTIONS_FIXED);
}
