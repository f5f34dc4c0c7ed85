import type { AppContext } from './context.js';
import type { Session, User } from '../db/schema.js';
import { liveSession } from './sessions.js';
import { normalizeEmail } from '../tools/email.js';
import { andThen, type Maybe } from '../tools/maybe.js';
import {
  EMAIL_BOUND,
  Tokens,
  USERS_COLLECTION_ID,
  USERS_COLLECTION_NAME,
  type TokenClaims,
  type TokenType,
} from './tokens.js';

/**
 * A user as PocketBase shows a record; never the password hash or tokenKey. `name` and `avatar`
 * are PocketBase's fields (docs/decisions/0050); a row read without them shows them empty.
 * `language` is the language of the member's mail (docs/decisions/0072).
 */
export function userRecord(user: User, options: { withEmail: boolean }) {
  const visibleEmail = options.withEmail || user.email_visibility === 1;
  return {
    id: user.id,
    collectionId: USERS_COLLECTION_ID,
    collectionName: USERS_COLLECTION_NAME,
    ...(visibleEmail ? { email: user.email } : {}),
    emailVisibility: user.email_visibility === 1,
    verified: user.verified === 1,
    name: user.name ?? '',
    avatar: user.avatar ?? '',
    language: user.language ?? 'en',
    isInitialUser: user.is_initial_user === 1,
    inviteCode: user.invite_code,
    created: user.created,
    updated: user.updated,
  };
}

/** Whether the member may use the operator console: the initial user always may. */
export function isOperator(user: Pick<User, 'is_operator' | 'is_initial_user'>): boolean {
  return user.is_operator === 1 || user.is_initial_user === 1;
}

export function findUserById(ctx: AppContext, id: string): Maybe<User | undefined> {
  return ctx.queries.userById(id);
}

export function findUserByEmail(ctx: AppContext, email: string): Promise<User | undefined> {
  return ctx.db
    .selectFrom('users')
    .selectAll()
    .where('email', '=', normalizeEmail(email))
    .executeTakeFirst();
}

export interface Auth {
  user: User;
  session: Session;
}

/**
 * The signed-in member behind an auth token: the token verifies for its user, and the session it
 * names is live and theirs. undefined for a guest (no token, a bad one, an ended session). A file
 * token (`type` 'file', in a file's URL) is held to the same rule: it ends with its session.
 */
export function findAuthByToken(
  ctx: AppContext,
  token: string,
  type: 'auth' | 'file' = 'auth',
): Maybe<Auth | undefined> {
  return andThen(verifiedToken(ctx, token, type), (found) => {
    const user = found?.user;
    const sid = found?.claims.sid;
    if (!user || typeof sid !== 'string') return undefined;
    return andThen(liveSession(ctx, sid), (session) =>
      sessionAllows(user, session) ? { user, session } : undefined,
    );
  });
}

/**
 * Why a signed-in device's token no longer lets it in (the 401's `reason`, docs/api.md), so its
 * sign-in screen can say so: `disabled` (an operator disabled the account), `expired` (the token
 * or the session reached its end), `signed-out` (its session was ended: Sign Out on another
 * device, or Log Out elsewhere), `password-changed` (the account's key was renewed by a password
 * or email change or a reset). A token that does not verify with the member's current key earns
 * only `password-changed`, never more: it may be forged, and tells nothing about the account then.
 * undefined for no token, another kind of token, or one naming no member.
 */
export type SessionEndReason = 'disabled' | 'expired' | 'signed-out' | 'password-changed';

export function sessionEndReason(
  ctx: AppContext,
  token: string,
): Maybe<SessionEndReason | undefined> {
  const claims = token ? Tokens.decode(token) : undefined;
  if (!claims || claims.type !== 'auth' || claims.collectionId !== USERS_COLLECTION_ID) {
    return undefined;
  }
  return andThen(findUserById(ctx, claims.id), (user): Maybe<SessionEndReason | undefined> => {
    if (!user) return undefined;
    if (claims.exp <= Math.floor(Date.now() / 1000)) return 'expired';
    if (!ctx.tokens.verify(token, 'auth', user)) return 'password-changed';
    if (user.disabled === 1) return 'disabled';
    const sid = claims.sid;
    if (typeof sid !== 'string') return undefined;
    return andThen(ctx.queries.sessionById(sid), (session) =>
      session && session.user_id === user.id ? 'expired' : 'signed-out',
    );
  });
}

/**
 * The rule for a session to let its member in, for requests and realtime streams alike: it is live
 * (liveSession: it exists and has not reached its end), it is the member's, and the member is not
 * disabled (disabling deletes the sessions too; this also covers a sign-in racing the disable).
 */
export function sessionAllows(
  user: Pick<User, 'id' | 'disabled'>,
  session: Session | undefined,
): session is Session {
  return session !== undefined && session.user_id === user.id && user.disabled !== 1;
}

/**
 * The one way from a token to its user (PocketBase's FindAuthRecordByToken), for request auth and
 * every confirm action: the token is of `type`, names an existing user, verifies with that user's
 * key and has not expired. Tokens that carry an email (verification, reset) must still name the
 * account's current email. undefined for anything else.
 */
export async function findUserByToken(
  ctx: AppContext,
  token: string,
  type: TokenType,
): Promise<User | undefined> {
  return (await verifiedToken(ctx, token, type))?.user;
}

/** findUserByToken's work, keeping the token's claims (request auth reads its `sid`). */
function verifiedToken(
  ctx: AppContext,
  token: string,
  type: TokenType,
): Maybe<{ user: User; claims: TokenClaims } | undefined> {
  if (!token) return undefined;
  const claims = Tokens.decode(token);
  if (!claims || claims.type !== type) return undefined;
  return andThen(findUserById(ctx, claims.id), (user) => {
    if (!user || !ctx.tokens.verify(token, type, user)) return undefined;
    if (EMAIL_BOUND.includes(type) && claims.email !== user.email) return undefined;
    return { user, claims };
  });
}
