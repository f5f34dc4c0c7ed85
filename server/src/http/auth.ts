import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../core/context.js';
import { UnauthenticatedError } from '../core/errors.js';
import { findAuthByToken, type Auth } from '../core/users.js';
import type { User } from '../db/schema.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's auth once asked for (requestAuth); app.ts gives every request the slot. */
    authLoaded: Promise<Auth | undefined> | null;
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
export function requestAuth(ctx: AppContext, request: FastifyRequest): Promise<Auth | undefined> {
  return (request.authLoaded ??= findAuthByToken(ctx, bearerToken(request)));
}

/** The signed-in user, or undefined for a guest. */
export async function authUser(
  ctx: AppContext,
  request: FastifyRequest,
): Promise<User | undefined> {
  return (await requestAuth(ctx, request))?.user;
}

/** The signed-in member and session, or UnauthenticatedError (401). */
export async function requireAuth(ctx: AppContext, request: FastifyRequest): Promise<Auth> {
  const auth = await requestAuth(ctx, request);
  if (!auth) throw new UnauthenticatedError();
  return auth;
}

/** The signed-in user, or UnauthenticatedError (401). */
export async function requireUser(ctx: AppContext, request: FastifyRequest): Promise<User> {
  return (await requireAuth(ctx, request)).user;
}
