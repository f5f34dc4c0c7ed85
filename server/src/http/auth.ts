import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../core/context.js';
import { UnauthenticatedError } from '../core/errors.js';
import { findUserByToken } from '../core/users.js';
import type { User } from '../db/schema.js';

const loaded = new WeakMap<FastifyRequest, Promise<User | undefined>>();

/** The token from `Authorization: <token>` or `Authorization: Bearer <token>`. */
export function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization ?? '';
  return header.replace(/^bearer\s+/i, '').trim();
}

/**
 * The signed-in user, or undefined for a guest. A bad token never fails a request by itself: the
 * request is simply a guest's. Loaded once per request.
 */
export function authUser(ctx: AppContext, request: FastifyRequest): Promise<User | undefined> {
  let user = loaded.get(request);
  if (!user) {
    user = findUserByToken(ctx, bearerToken(request), 'auth');
    loaded.set(request, user);
  }
  return user;
}

/** The signed-in user, or UnauthenticatedError (401). */
export async function requireUser(ctx: AppContext, request: FastifyRequest): Promise<User> {
  const user = await authUser(ctx, request);
  if (!user) throw new UnauthenticatedError();
  return user;
}
