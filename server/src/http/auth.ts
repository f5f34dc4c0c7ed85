import type { FastifyRequest } from 'fastify';
import { Tokens } from '../accounts/tokens.js';
import type { AppContext } from '../context.js';
import type { User } from '../db/schema.js';
import { unauthorized } from './errors.js';

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
    user = load(ctx, bearerToken(request));
    loaded.set(request, user);
  }
  return user;
}

async function load(ctx: AppContext, token: string): Promise<User | undefined> {
  if (!token) return undefined;
  const claims = Tokens.decode(token);
  if (!claims || claims.type !== 'auth') return undefined;
  const user = await ctx.queries.userById(claims.id);
  if (!user || !ctx.tokens.verify(token, 'auth', user)) return undefined;
  return user;
}

/** The signed-in user, or 401. */
export async function requireUser(ctx: AppContext, request: FastifyRequest): Promise<User> {
  const user = await authUser(ctx, request);
  if (!user) throw unauthorized();
  return user;
}
