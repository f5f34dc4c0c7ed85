import type { Kysely, Transaction } from 'kysely';
import type { Database, Session, User } from '../db/schema.js';
import { recordEvent, type SecurityEventInput } from './audit.js';
import { andThen, type Maybe } from '../tools/maybe.js';
import { newId } from '../tools/random.js';
import { formatDate, nowString } from '../tools/time.js';
import type { AppContext, Client } from './context.js';
import { inTransaction, type Work } from './transaction.js';

/**
 * Server-side sessions. Every sign-in opens one; the auth token names it (`sid`), so deleting the
 * row ends the token on the next request: the per-request read of the session goes through the
 * read cache, which every commit invalidates (db/prepared.ts). A session lasts at most
 * SESSION_MAX_DAYS from sign-in; the auth token's own 5 days are its idle limit.
 */

type Db = Kysely<Database> | Transaction<Database>;

const DAY_MS = 24 * 60 * 60_000;

export async function openSession(
  ctx: AppContext,
  userId: string,
  client: Client,
  db: Db = ctx.db,
): Promise<Session> {
  const now = new Date();
  const session: Session = {
    id: newId(),
    user_id: userId,
    created: formatDate(now),
    last_seen: formatDate(now),
    expires: formatDate(new Date(now.getTime() + ctx.settings.sessionMaxDays * DAY_MS)),
    ip: client.ip,
    user_agent: client.userAgent,
    confirmed_at: formatDate(now),
    impersonated_by: null,
  };
  await db.insertInto('sessions').values(session).execute();
  return session;
}

/** How long an operator views as a member when they do not say (seconds; docs/decisions/0056). */
export const VIEW_AS_DEFAULT_SECONDS = 30 * 60;
/** The longest view as a member: a longer `duration` is cut to this (seconds). */
export const VIEW_AS_MAX_SECONDS = 60 * 60;

/**
 * An operator's view as a member (docs/decisions/0056): a session of the member marked with the
 * operator's id, ending `seconds` from now (0: the default; capped at VIEW_AS_MAX_SECONDS). It
 * proved nothing about the member (no `confirmed_at`, so never fresh) and it is no sign-in of
 * theirs: the caller records what happened, on both sides, in the same work.
 */
export async function openViewingSession(
  work: Work,
  memberId: string,
  operatorId: string,
  client: Client,
  seconds: number,
): Promise<Session> {
  const now = new Date();
  const lasts = Math.min(seconds > 0 ? seconds : VIEW_AS_DEFAULT_SECONDS, VIEW_AS_MAX_SECONDS);
  const session: Session = {
    id: newId(),
    user_id: memberId,
    created: formatDate(now),
    last_seen: formatDate(now),
    expires: formatDate(new Date(now.getTime() + lasts * 1000)),
    ip: client.ip,
    user_agent: client.userAgent,
    confirmed_at: null,
    impersonated_by: operatorId,
  };
  await work.trx.insertInto('sessions').values(session).execute();
  return session;
}

/**
 * Ends every view as a member that the operator has open (they were disabled, lost the role, or
 * their account is going), each through endSessions with the security event `record` makes.
 * Returns how many ended.
 */
export async function endViewsBy(
  work: Work,
  operatorId: string,
  record?: (ended: number) => Omit<SecurityEventInput, 'userId'>,
): Promise<number> {
  const views = await work.trx
    .selectFrom('sessions')
    .select(['id', 'user_id'])
    .where('impersonated_by', '=', operatorId)
    .execute();
  let ended = 0;
  for (const view of views)
    ended += await endSessions(work, view.user_id, { only: view.id }, record);
  return ended;
}

/** The emails of the operators viewing as the member in `sessions`, by operator id. */
export async function viewingOperators(
  db: Db,
  sessions: readonly Pick<Session, 'impersonated_by'>[],
): Promise<Map<string, string>> {
  const ids = [
    ...new Set(sessions.map((s) => s.impersonated_by).filter((id): id is string => !!id)),
  ];
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('users')
    .select(['id', 'email'])
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r.email]));
}

/** The session, when it exists and has not reached its absolute end. */
export function liveSession(ctx: AppContext, id: string): Maybe<Session | undefined> {
  return andThen(ctx.queries.sessionById(id), (session) =>
    !session || endMs(session) <= Date.now() ? undefined : session,
  );
}

/**
 * A session row's end in epoch ms, parsed once per row object: on every authenticated request the
 * row comes from the read cache, and formatting "now" to compare strings cost more than the read.
 */
const ends = new WeakMap<Session, number>();
function endMs(session: Session): number {
  let end = ends.get(session);
  if (end === undefined) {
    end = Date.parse(session.expires.replace(' ', 'T'));
    ends.set(session, end);
  }
  return end;
}

/** Unix seconds of the session's absolute end (auth tokens never outlive it). */
export function sessionEnd(session: Session): number {
  return Math.floor(endMs(session) / 1000);
}

/**
 * How far a session's `last seen` may lag before a refresh writes it again. A refresh is the SDK's
 * most frequent call, and on SQLite every write drops the read cache for every member
 * (db/prepared.ts): a refresh within the minute from the same address writes nothing.
 */
export const LAST_SEEN_STEP_MS = 60_000;

/** A session row's `last seen` in epoch ms, parsed once per row object (as its end). */
const lastSeens = new WeakMap<Session, number>();
function lastSeenMs(session: Session): number {
  let seen = lastSeens.get(session);
  if (seen === undefined) {
    seen = Date.parse(session.last_seen.replace(' ', 'T'));
    lastSeens.set(session, seen);
  }
  return seen;
}

/**
 * Moves the session's `last seen` (auth-refresh), keeping where it was used from current: written
 * only when it is older than LAST_SEEN_STEP_MS or the client's address changed.
 */
export function touchSession(ctx: AppContext, id: string, client: Client): Maybe<void> {
  return andThen(ctx.queries.sessionById(id), (session) => {
    if (session?.ip === client.ip && Date.now() - lastSeenMs(session) < LAST_SEEN_STEP_MS) return;
    return ctx.db
      .updateTable('sessions')
      .set({ last_seen: nowString(), ip: client.ip })
      .where('id', '=', id)
      .execute()
      .then(() => {});
  });
}

/**
 * Which of a member's sessions to end: all, all but `keep` (this device), only `only`, or only
 * operators' views as the member (`views`).
 */
export interface SessionScope {
  keep?: string;
  only?: string;
  views?: boolean;
}

/**
 * The one way sessions end: deletes the member's sessions in `scope`, records the security event
 * `record` makes of how many ended (when given), and announces the end to every instance once the
 * work commits (their read caches and realtime streams). Returns how many ended.
 */
export async function endSessions(
  work: Work,
  userId: string,
  scope: SessionScope = {},
  record?: (ended: number) => Omit<SecurityEventInput, 'userId'>,
): Promise<number> {
  let query = work.trx.deleteFrom('sessions').where('user_id', '=', userId);
  if (scope.only) query = query.where('id', '=', scope.only);
  if (scope.keep) query = query.where('id', '!=', scope.keep);
  if (scope.views) query = query.where('impersonated_by', 'is not', null);
  const ended = Number((await query.executeTakeFirst()).numDeletedRows);
  if (record) await recordEvent(work.trx, { ...record(ended), userId });
  if (ended > 0) work.publish({ type: 'session-ended', userId, sessionId: scope.only ?? null });
  return ended;
}

/** The user's live sessions, newest first. */
export function listSessions(db: Db, userId: string): Promise<Session[]> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('expires', '>', nowString())
    .orderBy('created', 'desc')
    .orderBy('id')
    .execute();
}

/** Deletes sessions past their absolute end (housekeeping; they are refused anyway). */
export async function deleteExpiredSessions(db: Db): Promise<number> {
  const result = await db
    .deleteFrom('sessions')
    .where('expires', '<=', nowString())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Signs a member in on a new session (every way in ends here: password, second step, passkey,
 * provider): opens the session and records the sign-in in one transaction (a session nobody's
 * security log shows, or a sign-in recorded with no session, never stays), and returns the auth
 * token naming it.
 */
export async function startSession(
  ctx: AppContext,
  user: Pick<User, 'id' | 'email' | 'token_key'>,
  client: Client,
  method: string,
): Promise<string> {
  const session = await inTransaction(ctx, async ({ trx }) => {
    const opened = await openSession(ctx, user.id, client, trx);
    await recordEvent(trx, { type: 'sign_in', userId: user.id, client, detail: { method } });
    return opened;
  });
  return sessionToken(ctx, user, session);
}

/** A fresh auth token for the session (never outliving the session's absolute end). */
export function sessionToken(
  ctx: AppContext,
  user: Pick<User, 'id' | 'email' | 'token_key'>,
  session: Session,
): string {
  return ctx.tokens.sign('auth', user, {
    sid: session.id,
    notAfter: sessionEnd(session),
    // An operator's view as a member is never renewed (PocketBase's static token).
    refreshable: !session.impersonated_by,
  });
}
