import { sql } from 'kysely';
import { memberEvents, lastSignIn, lastSignIns } from '../audit/service.js';
import type { AppContext } from '../core/context.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import { listSessions, viewingOperators } from '../core/sessions.js';
import { isOperator, userRecord } from '../core/users.js';
import { databaseKind } from '../db/connect.js';
import type { User } from '../db/schema.js';
import { listAnswer, type ListQuery } from '../http/list.js';
import { listAllCodesOf } from '../invites/service.js';
import {
  readFilter,
  readSort,
  toSql,
  type Condition,
  type FieldSpec,
  type SortBy,
} from './record-filter.js';
import { emailCandidates, USER_FIELDS } from './record-list.js';

/**
 * The console's view of members: the list (search, filter, sort, paged) and one member's page.
 * Without a `filter` or a `sort` of its own the list reads only indexed columns in a fixed total
 * order (created or email, then id), so a page costs the same at a million members as at a
 * thousand. Without `q` or `filter` the total is read from `member_counts` (kept by triggers); a
 * search finds its rows through a trigram index (SQLite FTS5 `users_email_search`, PostgreSQL
 * `pg_trgm`) and counts only those (docs/decisions/0031). `filter` and `sort` are PocketBase's
 * grammar over the record's fields and `disabled` (docs/decisions/0052, 0057).
 */

export const STATUSES = ['verified', 'unverified', 'disabled'] as const;
export type MemberStatus = (typeof STATUSES)[number];

/**
 * What the console's `filter` and `sort` may name: the record's fields (as the record list) and
 * `disabled`, which the console shows beside them. Every one is a column that holds no NULL, as
 * the filter's compiler expects (`invited_by` does: the initial user's). Built on first use:
 * record-list.ts, which holds the record's fields, imports this module too.
 */
let memberFields: readonly FieldSpec[] | undefined;
export function MEMBER_FIELDS(): readonly FieldSpec[] {
  memberFields ??= [...USER_FIELDS, { name: 'disabled', column: 'disabled', type: 'bool' }];
  return memberFields;
}

/**
 * What the console's `sort` may name besides MEMBER_FIELDS: the table's two-step, last sign-in and
 * inviter columns (the inviter's email), from `member_sort` (docs/decisions/0057). Not filters:
 * the filter's compiler assumes columns without NULL.
 */
let memberSortFields: readonly FieldSpec[] | undefined;
export function MEMBER_SORT_FIELDS(): readonly FieldSpec[] {
  memberSortFields ??= [
    ...MEMBER_FIELDS(),
    { name: 'twoStep', column: 'two_step', type: 'bool', memberSort: true },
    { name: 'lastSignIn', column: 'last_sign_in', type: 'text', memberSort: true },
    { name: 'invitedBy', column: 'inviter_email', type: 'text', memberSort: true },
  ];
  return memberSortFields;
}

/** Fields no two members share: after one of them, the order is total. */
const UNIQUE = new Set(['id', 'email']);

export interface MemberFilter {
  /** Part of the email, matched literally (case-insensitive: emails are stored lower-cased). */
  q: string;
  status: MemberStatus | undefined;
  /** PocketBase's filter, checked against MEMBER_FIELDS; undefined: none. */
  condition: Condition | undefined;
  /** The order, total (`id` last unless a unique field is in it); newest first by default. */
  order: SortBy[];
}

/**
 * Reads `q`, `status`, `filter` and `sort` from the query string; 400 for a status it does not
 * know, and PocketBase's 400 (with a `filter` or `sort` field error) for a filter or sort it cannot
 * read.
 */
export function memberFilter(query: unknown): MemberFilter {
  const raw = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const status = text(raw.status);
  if (status !== '' && !(STATUSES as readonly string[]).includes(status)) {
    throw new ValidationError('Unknown status: use verified, unverified or disabled.');
  }
  const fields = MEMBER_FIELDS();
  const sort = readSort(text(raw.sort).trim() || '-created', MEMBER_SORT_FIELDS());
  const condition = readFilter(text(raw.filter), fields);
  return {
    q: text(raw.q).trim().toLowerCase(),
    status: status === '' ? undefined : (status as MemberStatus),
    // A filter that keeps everyone is none (the total then comes from the kept counts).
    condition: condition?.kind === 'const' && condition.value ? undefined : condition,
    order: totalOrder(sort),
  };
}

/**
 * The asked order, made total: `id` last (in the last term's direction) unless a unique field is
 * in it. After a `member_sort` column the id is that table's `user_id` (the same value), so that
 * its index (column, user_id) gives the whole order.
 */
function totalOrder(sort: SortBy[]): SortBy[] {
  if (sort.some((s) => UNIQUE.has(s.field.name))) return sort;
  const id = sort.some((s) => s.field.memberSort) ? SORT_USER_ID : USER_FIELDS[0]!;
  return [...sort, { field: id, direction: sort.at(-1)?.direction ?? 'desc' }];
}

/** The member's id as `member_sort` holds it. */
const SORT_USER_ID: FieldSpec = { name: 'id', column: 'user_id', type: 'text', memberSort: true };

/** `text` as a LIKE pattern that matches it literally anywhere (with ESCAPE '\'). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `email` contains `text` (lower-cased already), matched literally, as a bound parameter. */
export function emailContains(text: string) {
  return sql<boolean>`email LIKE ${containsPattern(text)} ESCAPE '\\'`;
}

const MEMBER_COLUMNS = [
  'id',
  'email',
  'email_visibility',
  'verified',
  'name',
  'avatar',
  'language',
  'is_initial_user',
  'is_operator',
  'disabled',
  'invite_code',
  'invited_by',
  'created',
  'updated',
] as const;

export type MemberRow = Pick<User, (typeof MEMBER_COLUMNS)[number]>;

/** A member as the console shows one: the record (with email, always) plus role and state. */
export function memberJson(user: MemberRow) {
  return {
    ...userRecord(user as User, { withEmail: true }),
    email: user.email,
    isOperator: isOperator(user),
    disabled: user.disabled === 1,
  };
}

/**
 * SQLite: a search whose trigram lookup finds at most this many emails reads just those rows;
 * one that finds more matches so many members that walking the list's index finds a page soon.
 */
export const SEARCH_CANDIDATES = 2000;

/**
 * A search counts its matches up to this many; beyond it the total is not given (-1, as with
 * skipTotal): counting a fragment that a tenth of a million members share reads every one of
 * them (0.35 s at a million), and "more than ten thousand" tells the operator to narrow it.
 */
export const COUNT_LIMIT = 10_000;

/** Of `q`, the longest run without LIKE wildcards: what a trigram index can look up (3+ chars). */
function trigramKey(q: string): string | undefined {
  const longest = q.split(/[%_]/).reduce((a, b) => (b.length > a.length ? b : a), '');
  return longest.length >= 3 ? longest : undefined;
}

/**
 * SQLite: how to narrow a search through users_email_search. The index's LIKE (no ESCAPE, so
 * the key holds no wildcard) is a superset of the exact match, which `filtered` still applies.
 * `ids`: every candidate, when there are few; `all`: the candidates as a subquery, when many.
 */
async function searchCandidates(ctx: AppContext, filter: MemberFilter) {
  const key = filter.q === '' ? undefined : trigramKey(filter.q);
  if (key === undefined || databaseKind(ctx.db) !== 'sqlite') return undefined;
  const pattern = `%${key}%`;
  const { rows } = await sql<{ id: string }>`SELECT id FROM users_email_search
    WHERE email LIKE ${pattern} LIMIT ${SEARCH_CANDIDATES + 1}`.execute(ctx.db);
  return {
    ids: rows.length <= SEARCH_CANDIDATES ? rows.map((r) => r.id) : undefined,
    all: sql<string>`(SELECT id FROM users_email_search WHERE email LIKE ${pattern})`,
    /** How many emails hold the key, counted up to COUNT_LIMIT + 1 (for the total). */
    count: async () => {
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM (
        SELECT 1 FROM users_email_search WHERE email LIKE ${pattern}
        LIMIT ${COUNT_LIMIT + 1})`.execute(ctx.db);
      return Number(rows[0]?.n ?? 0);
    },
    /** Whether the index's match is the exact one: `q` itself holds no wildcard. */
    exact: key === filter.q,
  };
}

export function filtered(ctx: AppContext, filter: MemberFilter) {
  let query = ctx.db.selectFrom('users');
  const { condition } = filter;
  if (condition) query = query.where((eb) => toSql(condition, eb, databaseKind(ctx.db)));
  if (filter.status === 'disabled') query = query.where('disabled', '=', 1);
  else if (filter.status) {
    query = query
      .where('disabled', '=', 0)
      .where('verified', '=', filter.status === 'verified' ? 1 : 0);
  }
  if (filter.q !== '') {
    query = query.where(emailContains(filter.q));
  }
  return query;
}

/**
 * The rows a search narrows the list to, on SQLite: `q`'s trigram candidates, or else those of an
 * `email ~ "…"` that every row of the filter meets (as the record list finds them). `ids`: the
 * few candidates (none: nothing matches); undefined: the list is walked in its order instead.
 */
export async function narrowing(ctx: AppContext, filter: MemberFilter) {
  const candidates = await searchCandidates(ctx, filter);
  const ids =
    candidates?.ids ??
    (candidates || databaseKind(ctx.db) !== 'sqlite'
      ? undefined
      : await emailCandidates(ctx, filter.condition));
  return { candidates, ids };
}

/**
 * The number of members the filter keeps, without counting rows when there is no `q` and no
 * `filter`; undefined when the fragment `q` matches more than COUNT_LIMIT members (whatever the
 * status filter), or when the filter keeps more than COUNT_LIMIT.
 */
async function countMembers(
  ctx: AppContext,
  filter: MemberFilter,
  { candidates, ids }: Awaited<ReturnType<typeof narrowing>>,
): Promise<number | undefined> {
  if (filter.condition) {
    let query = filtered(ctx, filter);
    if (ids) query = query.where('id', 'in', ids);
    else if (candidates) query = query.where('id', 'in', candidates.all);
    const found = await countUpTo(ctx, query);
    return found > COUNT_LIMIT ? undefined : found;
  }
  if (filter.q === '') {
    let counts = ctx.db.selectFrom('member_counts').select((eb) => eb.fn.sum<number>('n').as('n'));
    if (filter.status) counts = counts.where('status', '=', filter.status);
    const row = await counts.executeTakeFirst();
    return Number(row?.n ?? 0);
  }
  let query = filtered(ctx, filter);
  if (candidates?.ids) {
    if (candidates.ids.length === 0) return 0;
    query = query.where('id', 'in', candidates.ids);
  } else if (candidates) {
    // SQLite, a common fragment: the index counts its emails, and the FTS table's LIKE is the
    // exact match when `q` has no wildcard; with a status, those few thousand rows are read.
    const found = await candidates.count();
    if (found > COUNT_LIMIT) return undefined;
    if (candidates.exact && !filter.status) return found;
    query = query.where('id', 'in', candidates.all);
  } else {
    // PostgreSQL (or a fragment too short for the index): the fragment's members, counted up
    // to the limit, then those of the status among them.
    const found = await countUpTo(ctx, filtered(ctx, { ...filter, status: undefined }));
    if (found > COUNT_LIMIT) return undefined;
    if (!filter.status) return found;
  }
  return countUpTo(ctx, query);
}

/** How many rows the query finds, counting no further than COUNT_LIMIT + 1. */
async function countUpTo(ctx: AppContext, query: ReturnType<typeof filtered>): Promise<number> {
  const row = await ctx.db
    .selectFrom(
      query
        .select('id')
        .limit(COUNT_LIMIT + 1)
        .as('matches'),
    )
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The members the filter keeps, in its order (the caller pages or walks them), narrowed to `ids`.
 * An order on a `member_sort` column joins it (one row per member) and selects its columns too,
 * for the CSV's keyset reads; its NULLs come first going up, last going down, on both databases.
 */
export function orderedMembers(ctx: AppContext, filter: MemberFilter, ids?: readonly string[]) {
  const joined = filter.order.some((s) => s.field.memberSort);
  let query = filtered(ctx, filter).select(MEMBER_COLUMNS.map((c) => `users.${c}` as const));
  if (joined) {
    query = query
      .innerJoin('member_sort', 'member_sort.user_id', 'users.id')
      .select(['member_sort.user_id', 'two_step', 'last_sign_in', 'inviter_email']);
  }
  if (ids) query = query.where('users.id', 'in', ids);
  const postgres = databaseKind(ctx.db) === 'postgres';
  for (const { field, direction } of filter.order) {
    const column = sql.ref(
      field.memberSort ? `member_sort.${field.column}` : `users.${field.column}`,
    );
    query =
      postgres && field.memberSort && field.type === 'text'
        ? query.orderBy(
            direction === 'asc' ? sql`${column} asc nulls first` : sql`${column} desc nulls last`,
          )
        : query.orderBy(column, direction);
  }
  return query;
}

export async function listMembers(ctx: AppContext, filter: MemberFilter, list: ListQuery) {
  const nothing = filter.condition?.kind === 'const' && !filter.condition.value;
  const narrowed = nothing ? { candidates: undefined, ids: [] } : await narrowing(ctx, filter);
  const none = narrowed.ids?.length === 0;
  const rows = none
    ? []
    : await orderedMembers(ctx, filter, narrowed.ids)
        .limit(list.perPage)
        .offset((list.page - 1) * list.perPage)
        .execute();
  const total = list.skipTotal ? undefined : none ? 0 : await countMembers(ctx, filter, narrowed);
  return listAnswer(list, await memberRows(ctx, rows), total);
}

/**
 * The members of a page as the console's list shows them: each with whether two-step sign-in is
 * on, their last sign-in on record and who invited them, read in one query each for the page.
 */
export async function memberRows(ctx: AppContext, rows: readonly MemberRow[]) {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const inviterIds = [...new Set(rows.flatMap((r) => (r.invited_by ? [r.invited_by] : [])))];
  const [signIns, twoStep, inviters] = await Promise.all([
    lastSignIns(ctx, ids),
    // Two-step sign-in's own table (two-step/): read here for a whole page at once.
    ctx.db
      .selectFrom('two_step')
      .select('user_id')
      .where('user_id', 'in', ids)
      .where('enabled', '=', 1)
      .execute(),
    inviterIds.length === 0
      ? []
      : ctx.db.selectFrom('users').select(['id', 'email']).where('id', 'in', inviterIds).execute(),
  ]);
  const on = new Set(twoStep.map((r) => r.user_id));
  const emailOf = new Map(inviters.map((r) => [r.id, r.email]));
  return rows.map((row) => {
    const inviter = row.invited_by === null ? undefined : emailOf.get(row.invited_by);
    return {
      ...memberJson(row),
      invitedBy: row.invited_by && inviter ? { id: row.invited_by, email: inviter } : null,
      inviterDeleted: row.invited_by !== null && inviter === undefined,
      lastSignIn: signIns.get(row.id) ?? null,
      twoStep: on.has(row.id),
    };
  });
}

/** The member, or NotFoundError. */
export async function memberOr404(ctx: AppContext, id: string): Promise<User> {
  const user = await ctx.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  if (!user) throw new NotFoundError();
  return user;
}

/** A member's page: the record, who invited them, how many they invited, codes, sessions, events. */
export async function memberDetail(ctx: AppContext, id: string) {
  const user = await memberOr404(ctx, id);
  const [inviter, invitees, codes, sessions, signIn, events, waysIn] = await Promise.all([
    user.invited_by
      ? ctx.db
          .selectFrom('users')
          .select(['id', 'email'])
          .where('id', '=', user.invited_by)
          .executeTakeFirst()
      : undefined,
    ctx.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('invited_by', '=', user.id)
      .executeTakeFirstOrThrow(),
    listAllCodesOf(ctx, user.id),
    listSessions(ctx.db, user.id),
    lastSignIn(ctx, user.id),
    memberEvents(ctx, user.id, { page: 1, perPage: 20, skipTotal: true }),
    waysInOf(ctx, user),
  ]);
  const operators = await viewingOperators(ctx.db, sessions);
  return {
    ...memberJson(user),
    invitedBy: inviter ? { id: inviter.id, email: inviter.email } : null,
    // The account that invited this member was deleted (its id is kept in the record).
    inviterDeleted: user.invited_by !== null && !inviter,
    invitees: Number(invitees.n),
    codes,
    sessions: sessions.map((s) => ({
      id: s.id,
      created: s.created,
      lastSeen: s.last_seen,
      ip: s.ip,
      userAgent: s.user_agent,
      // An operator viewing as the member (docs/decisions/0056).
      viewedBy: s.impersonated_by ? (operators.get(s.impersonated_by) ?? '') : null,
    })),
    lastSignIn: signIn,
    events: events.items,
    waysIn,
  };
}

/**
 * How the member signs in, for the console's Reset Two-Step Sign-In (what it would remove, and
 * whether anything is left): a password of their own, two-step sign-in on, passkeys, providers.
 */
async function waysInOf(ctx: AppContext, user: User) {
  const ways = await ctx.waysIn.summary(ctx.db, user);
  return { ...ways, twoStep: ways.twoStep > 0 };
}
