import { sql } from 'kysely';
import { memberEvents, lastSignIn } from '../audit/service.js';
import type { AppContext } from '../core/context.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import { listSessions } from '../core/sessions.js';
import { isOperator, userRecord } from '../core/users.js';
import { databaseKind } from '../db/connect.js';
import type { User } from '../db/schema.js';
import { listAnswer, type ListQuery } from '../http/list.js';
import { listAllCodesOf } from '../invites/service.js';

/**
 * The console's view of members: the list (search, filter, sort, paged) and one member's page.
 * The list reads only indexed columns in a fixed total order (created or email, then id), so a
 * page costs the same at a million members as at a thousand. Without `q` the total is read from
 * `member_counts` (kept by triggers); a search finds its rows through a trigram index (SQLite
 * FTS5 `users_email_search`, PostgreSQL `pg_trgm`) and counts only those (docs/decisions/0031).
 */

export const STATUSES = ['verified', 'unverified', 'disabled'] as const;
export const SORTS = ['created', '-created', 'email'] as const;
export type MemberStatus = (typeof STATUSES)[number];
export type MemberSort = (typeof SORTS)[number];

export interface MemberFilter {
  /** Part of the email, matched literally (case-insensitive: emails are stored lower-cased). */
  q: string;
  status: MemberStatus | undefined;
  sort: MemberSort;
}

/** Reads `q`, `status` and `sort` from the query string; 400 for a status or sort it does not know. */
export function memberFilter(query: unknown): MemberFilter {
  const raw = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const status = text(raw.status);
  const sort = text(raw.sort);
  if (status !== '' && !(STATUSES as readonly string[]).includes(status)) {
    throw new ValidationError('Unknown status: use verified, unverified or disabled.');
  }
  if (sort !== '' && !(SORTS as readonly string[]).includes(sort)) {
    throw new ValidationError('Unknown sort: use created, -created or email.');
  }
  return {
    q: text(raw.q).trim().toLowerCase(),
    status: status === '' ? undefined : (status as MemberStatus),
    sort: sort === '' ? '-created' : (sort as MemberSort),
  };
}

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
  'is_initial_user',
  'is_operator',
  'disabled',
  'invite_code',
  'invited_by',
  'created',
  'updated',
] as const;

type MemberRow = Pick<User, (typeof MEMBER_COLUMNS)[number]>;

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

function filtered(ctx: AppContext, filter: MemberFilter) {
  let query = ctx.db.selectFrom('users');
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
 * The number of members the filter keeps, without counting rows when there is no `q`; undefined
 * when the fragment `q` matches more than COUNT_LIMIT members (whatever the status filter).
 */
async function countMembers(
  ctx: AppContext,
  filter: MemberFilter,
  candidates: Awaited<ReturnType<typeof searchCandidates>>,
): Promise<number | undefined> {
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

export async function listMembers(ctx: AppContext, filter: MemberFilter, list: ListQuery) {
  const candidates = await searchCandidates(ctx, filter);
  const none = candidates?.ids?.length === 0;
  let query = filtered(ctx, filter).select(MEMBER_COLUMNS);
  if (candidates?.ids && !none) query = query.where('id', 'in', candidates.ids);
  query =
    filter.sort === 'email'
      ? query.orderBy('email')
      : query
          .orderBy('created', filter.sort === 'created' ? 'asc' : 'desc')
          .orderBy('id', filter.sort === 'created' ? 'asc' : 'desc');
  const rows = none
    ? []
    : await query
        .limit(list.perPage)
        .offset((list.page - 1) * list.perPage)
        .execute();
  const total = list.skipTotal ? undefined : await countMembers(ctx, filter, candidates);
  return listAnswer(list, rows.map(memberJson), total);
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
