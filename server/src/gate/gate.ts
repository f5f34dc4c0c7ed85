import { timingSafeEqual } from 'node:crypto';
import type { GateHost } from '../config.js';
import type { AppContext } from '../core/context.js';
import { liveSession, sessionEnd } from '../core/sessions.js';
import { findUserById, isOperator, sessionAllows } from '../core/users.js';
import type { Session, User } from '../db/schema.js';
import { andThen, type Maybe } from '../tools/maybe.js';

/**
 * The gate in front of apps that speak no OpenID (docs/decisions/0061): a reverse proxy asks it
 * about every request (nginx auth_request, Traefik's or Caddy's forward auth). What it reads is one
 * cookie for the operator's parent domain (GATE_COOKIE_DOMAIN): HttpOnly, Secure, SameSite=Lax,
 * naming a Gatehouse session and signed with the server's secret. It is worth nothing on its own:
 * the session it names must be live and its member not disabled, so it ends with the session
 * (sign-out, signed out everywhere, disabled, deleted) on the very next request.
 */

export const GATE_COOKIE = 'gatehouse_gate';
const VERSION = 'v1';

/** The cookie's value for a session: `v1.<session id>.<member id>.<signature>`. */
export function cookieValue(ctx: AppContext, session: Pick<Session, 'id' | 'user_id'>): string {
  const body = `${VERSION}.${session.id}.${session.user_id}`;
  return `${body}.${ctx.box.digest(body, 'gate-cookie')}`;
}

/** The Set-Cookie header that lets the member through the gate until the session's end. */
export function setCookieHeader(ctx: AppContext, session: Session): string {
  const maxAge = Math.max(0, sessionEnd(session) - Math.floor(Date.now() / 1000));
  return [
    `${GATE_COOKIE}=${cookieValue(ctx, session)}`,
    `Domain=${ctx.config.gate.cookieDomain}`,
    'Path=/',
    `Max-Age=${maxAge}`,
    'HttpOnly',
    'Secure',
    'SameSite=Lax',
  ].join('; ');
}

/** The cookie's value from a Cookie header, or ''. */
export function readCookie(header: string | undefined): string {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === GATE_COOKIE) return part.slice(eq + 1).trim();
  }
  return '';
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The member and live session the cookie names, or undefined. */
export function memberOfCookie(
  ctx: AppContext,
  value: string,
): Maybe<{ user: User; session: Session } | undefined> {
  const parts = value.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) return undefined;
  const [, sid, userId, signature] = parts as [string, string, string, string];
  const body = `${VERSION}.${sid}.${userId}`;
  if (!sameText(signature, ctx.box.digest(body, 'gate-cookie'))) return undefined;
  return andThen(findUserById(ctx, userId), (user) =>
    !user
      ? undefined
      : andThen(liveSession(ctx, sid), (session) =>
          sessionAllows(user, session) ? { user, session } : undefined,
        ),
  );
}

/** The host GATE_HOSTS lists for `name` (the request's host, port left out), if any. */
export function gateHost(ctx: AppContext, name: string | undefined): GateHost | undefined {
  const host = (name ?? '').trim().toLowerCase().replace(/:\d+$/, '');
  return ctx.config.gate.hosts.find((h) => h.host === host);
}

export function mayPass(user: User, host: GateHost): boolean {
  return host.group === 'members' || isOperator(user);
}

/** The groups as the X-Gatehouse-Groups header and the OpenID `groups` claim name them. */
export function groupsOf(user: User): string[] {
  return isOperator(user) ? ['members', 'operators'] : ['members'];
}
