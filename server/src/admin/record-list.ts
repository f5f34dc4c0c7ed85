import { sql } from 'kysely';
import { ValidationError } from '../core/errors.js';
import type { AppContext } from '../core/context.js';
import { userRecord } from '../core/users.js';
import { databaseKind } from '../db/connect.js';
import { listAnswer, listQuery } from '../http/list.js';
import { COUNT_LIMIT, SEARCH_CANDIDATES } from './members.js';
import {
  BAD_LIST_QUERY,
  likeKey,
  readFilter,
  readSort,
  requiredLikes,
  toSql,
  type Condition,
  type FieldSpec,
  type SortBy,
} from './record-filter.js';

/**
 * PocketBase's record list of the users collection, for operators (PocketBase: superusers):
 * `GET /api/collections/users/records` with `page`, `perPage`, `sort`, `filter`, `skipTotal` and
 * `fields`, answering the records as the member's own record shows them (with the email).
 *
 * Fast at a million members where the filter and sort use indexed fields, as the console's list
 * is (docs/decisions/0031): the page walks `users_created` (`created, id`), the email index or the
 * primary key in the asked order; `email ~ "…"` joined to the rest by `&&` finds its rows through
 * the email trigram index (SQLite: the ids from `users_email_search` first, when few; PostgreSQL:
 * `pg_trgm`, chosen by the planner). Totals: without a filter, the kept counts; with one, counted up
 * to COUNT_LIMIT, past which they are -1 as with `skipTotal` (docs/decisions/0052).
 */

/** The fields a filter or sort may name: the record's, without the ones that are not a column. */
export const USER_FIELDS: readonly FieldSpec[] = [
  { name: 'id', column: 'id', type: 'text', lowerCase: true },
  { name: 'email', column: 'email', type: 'text', lowerCase: true },
  { name: 'emailVisibility', column: 'email_visibility', type: 'bool' },
  { name: 'verified', column: 'verified', type: 'bool' },
  { name: 'name', column: 'name', type: 'text' },
  { name: 'inviteCode', column: 'invite_code', type: 'text' },
  { name: 'created', column: 'created', type: 'text' },
  { name: 'updated', column: 'updated', type: 'text' },
];

/** PocketBase's largest page. */
export const MAX_PER_PAGE = 1000;

/** Fields each of which no two members share: after one of them, the order is total. */
const UNIQUE = new Set(['id', 'email']);

export interface RecordListQuery {
  page?: string;
  perPage?: string;
  sort?: string;
  filter?: string;
  skipTotal?: string;
  fields?: string;
}

export async function listUserRecords(ctx: AppContext, query: RecordListQuery) {
  const list = listQuery(query, MAX_PER_PAGE);
  const condition = readFilter(query.filter, USER_FIELDS);
  const order = orderOf(readSort(query.sort, USER_FIELDS));
  const pick = readFields(query.fields);
  const kind = databaseKind(ctx.db);

  if (condition?.kind === 'const' && !condition.value) return listAnswer(list, [], 0);
  const ids = kind === 'sqlite' ? await emailCandidates(ctx, condition) : undefined;
  if (ids?.length === 0) return listAnswer(list, [], list.skipTotal ? undefined : 0);

  let rows = ctx.db.selectFrom('users').selectAll();
  if (condition) rows = rows.where((eb) => toSql(condition, eb, kind));
  if (ids) rows = rows.where('id', 'in', ids);
  for (const { field, direction } of order) rows = rows.orderBy(sql.ref(field.column), direction);
  const [found, total] = await Promise.all([
    rows
      .limit(list.perPage)
      .offset((list.page - 1) * list.perPage)
      .execute(),
    list.skipTotal ? undefined : countRecords(ctx, condition, ids),
  ]);
  const items = found.map((user) => pick(userRecord(user, { withEmail: true })));
  return listAnswer(list, items, total);
}

/**
 * The asked order, made total: `id` last (in the last term's direction) unless a unique field is
 * in it already. No sort: oldest first, as PocketBase lists rows in the order they were added.
 */
function orderOf(sort: SortBy[]): SortBy[] {
  const id = USER_FIELDS[0]!;
  if (sort.length === 0)
    return [
      { field: USER_FIELDS[6]!, direction: 'asc' },
      { field: id, direction: 'asc' },
    ];
  if (sort.some((s) => UNIQUE.has(s.field.name))) return sort;
  return [...sort, { field: id, direction: sort.at(-1)!.direction }];
}

/**
 * SQLite: the ids whose email holds the key of a `~` that every match meets, when there are at
 * most SEARCH_CANDIDATES of them (the page and the total then read just those rows); undefined
 * when there is no such `~` or its key is common (walking the ordered index finds a page soon).
 */
export async function emailCandidates(
  ctx: AppContext,
  condition: Condition | undefined,
): Promise<string[] | undefined> {
  for (const like of requiredLikes(condition)) {
    if (like.field.name !== 'email') continue;
    const key = likeKey(like.pattern);
    if (key === undefined) continue;
    // The index's LIKE has no ESCAPE: the key holds no `%` or `_`, and `\` is itself there.
    const { rows } = await sql<{ id: string }>`SELECT id FROM users_email_search
      WHERE email LIKE ${`%${key}%`} LIMIT ${SEARCH_CANDIDATES + 1}`.execute(ctx.db);
    if (rows.length <= SEARCH_CANDIDATES) return rows.map((r) => r.id);
  }
  return undefined;
}

/** All members (the kept counts) without a filter; with one, counted up to COUNT_LIMIT. */
async function countRecords(
  ctx: AppContext,
  condition: Condition | undefined,
  ids: string[] | undefined,
): Promise<number | undefined> {
  if (!condition) {
    const row = await ctx.db
      .selectFrom('member_counts')
      .select((eb) => eb.fn.sum<number>('n').as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
  const kind = databaseKind(ctx.db);
  let matching = ctx.db
    .selectFrom('users')
    .select('id')
    .where((eb) => toSql(condition, eb, kind));
  if (ids) matching = matching.where('id', 'in', ids);
  const row = await ctx.db
    .selectFrom(matching.limit(COUNT_LIMIT + 1).as('matches'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const n = Number(row.n);
  return n > COUNT_LIMIT ? undefined : n;
}

/**
 * PocketBase's `fields`: the record keys to answer, comma-separated; `*` for all; a dotted path
 * keeps its first key. No value: every key. A modifier (`:excerpt(…)`) is not supported: 400.
 */
function readFields(text: string | undefined) {
  const wanted = (text ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  const modifier = wanted.find((f) => f.includes(':') || f.includes('('));
  if (modifier !== undefined) {
    throw new ValidationError(BAD_LIST_QUERY, {
      fields: {
        code: 'validation_invalid_fields',
        message: `Field modifiers such as ${JSON.stringify(modifier)} are not supported.`,
      },
    });
  }
  const keys = new Set(wanted.map((f) => f.split('.')[0]!));
  const all = keys.size === 0 || keys.has('*');
  return <T extends object>(record: T): Partial<T> =>
    all
      ? record
      : (Object.fromEntries(Object.entries(record).filter(([key]) => keys.has(key))) as Partial<T>);
}
