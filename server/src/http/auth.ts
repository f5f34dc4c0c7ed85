import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../core/context.js';
import { ForbiddenError, UnauthenticatedError } from '../core/errors.js';
import { assertFresh, notWhileViewingAs } from '../core/reauth.js';
import { findAuthByToken, isOperator, sessionEndReason, type Auth } from '../core/users.js';
import { andThen, type Maybe } from '../tools/maybe.js';
import type { User } from '../db/schema.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's auth once asked for (requestAuth); app.ts gives every request the slot. */
    authLoaded: Maybe<Auth | undefined> | null;
  }
}

/** The token from `Authorization: <token>` or `Authorization: Bearer <token>`. */
export function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization ?? '';
  return header.replace(/^bearer\s+/i, '').trim();
}

/**
 * The signed-in member and their session, or undefined for a guest. A bad token never fails a
 * request by itself: the request is simply a guest's. Loaded once per request.
 */
export function requestAuth(ctx: AppContext, request: FastifyRequest): Maybe<Auth | undefined> {
  // null: not asked yet (a guest's answer is undefined).
  if (request.authLoaded === null) request.authLoaded = findAuthByToken(ctx, bearerToken(request));
  return request.authLoaded;
}

/** The signed-in user, or undefined for a guest. */
export function authUser(ctx: AppContext, request: FastifyRequest): Maybe<User | undefined> {
  return andThen(requestAuth(ctx, request), (auth) => auth?.user);
}

/**
 * The signed-in member and session, or UnauthenticatedError (401); when a token was sent, the
 * error says why it no longer lets the device in (its `reason`).
 */
export function requireAuth(ctx: AppContext, request: FastifyRequest): Maybe<Auth> {
  return andThen(requestAuth(ctx, request), (auth): Maybe<Auth> => {
    if (auth) return auth;
    return andThen(sessionEndReason(ctx, bearerToken(request)), (reason) => {
      throw new UnauthenticatedError(reason);
    });
  });
}

/** The signed-in user, or UnauthenticatedError (401). */
export function requireUser(ctx: AppContext, request: FastifyRequest): Maybe<User> {
  return andThen(requireAuth(ctx, request), (auth) => auth.user);
}

/**
 * The signed-in user on a session of their own: an operator viewing as them gets 403 (what changes
 * how the member signs in is theirs alone; docs/decisions/0056).
 */
export function requireOwnUser(ctx: AppContext, request: FastifyRequest): Maybe<User> {
  return andThen(requireAuth(ctx, request), (auth) => notWhileViewingAs(auth).user);
}

/**
 * PocketBase's superuser guard (its settings and backups APIs), for Gatehouse's operators: a guest
 * gets 401, a member who is not an operator 403 with PocketBase's message.
 */
export function requireSuperuser(ctx: AppContext, request: FastifyRequest): Maybe<Auth> {
  return andThen(requireAuth(ctx, request), (auth) => {
    if (!isOperator(auth.user)) throw new ForbiddenError(NOT_A_SUPERUSER);
    return auth;
  });
}

/** PocketBase's 403 to an auth record that is not a superuser. */
export const NOT_A_SUPERUSER = 'The authorized record is not allowed to perform this action.';

/**
 * The signed-in member on a fresh session, for the sensitive actions: guests get 401, a session
 * outside its REAUTH_MINUTES window 403 `Confirm it's you to continue.` (core/reauth.ts).
 */
export function requireFreshAuth(ctx: AppContext, request: FastifyRequest): Maybe<Auth> {
  return andThen(requireAuth(ctx, request), (auth) => assertFresh(ctx, auth));
}

/** The signed-in user on a fresh session (requireFreshAuth). */
export function requireFreshUser(ctx: AppContext, request: FastifyRequest): Maybe<User> {
  return andThen(requireFreshAuth(ctx, request), (auth) => auth.user);
}
