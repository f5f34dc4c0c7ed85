import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../core/context.js';
import { findUserById } from '../core/users.js';
import type { User } from '../db/schema.js';

/**
 * Device cookies (OWASP's brute-force guidance): a browser that completed a password sign-in is
 * given `gh_device`, naming a random device id and the member, signed with an HMAC keyed from the
 * token secrets (SecretBox's keyed digest). When that browser later signs in with a password for
 * that member's email, the per-email failure ceiling does not hold it: anyone can fill that ceiling
 * from enough addresses, and it would then refuse the owner too. Its failures count against its own
 * limit instead (ACCOUNT_LIMITS.signInFailuresPerDevice), besides the per-email-and-network one.
 * The cookie only ever speaks for its own member: for any other email it is ignored, so it cannot
 * help guess another account's password. It grants no access by itself (it is not a session), and
 * carries no email (docs/decisions/0049-device-cookies-and-the-per-email-ceiling.md).
 *
 * The value: `v1.{device id}.{member id}.{HMAC}`. HttpOnly (scripts never see it), SameSite=Lax,
 * Secure when APP_URL is https, a year long, and sent only to the one request that reads it.
 */
export const DEVICE_COOKIE = 'gh_device';

/** Where the browser sends it: password sign-in, the only request that reads it. */
export const DEVICE_COOKIE_PATH = '/api/collections/users/auth-with-password';

export const DEVICE_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

const VERSION = 'v1';
/** The keyed digest's purpose: a digest made for anything else never verifies as a device's. */
const PURPOSE = 'device-cookie';
/** Cookie headers past this length are not searched (they are not ours). */
const MAX_HEADER = 8192;
const PART = /^[A-Za-z0-9_-]{1,64}$/;

/** A device cookie as the browser sent it: well-formed, not yet checked. */
export interface DeviceCookie {
  deviceId: string;
  userId: string;
  mac: string;
}

const macOf = (ctx: AppContext, deviceId: string, userId: string) =>
  ctx.box.digest(`${VERSION}\n${deviceId}\n${userId}`, PURPOSE);

/** The request's device cookie when it has a well-formed one (checked later, against an email). */
export function deviceCookieOf(request: FastifyRequest): DeviceCookie | undefined {
  const header = request.headers.cookie;
  if (!header || header.length > MAX_HEADER) return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq === -1 || pair.slice(0, eq).trim() !== DEVICE_COOKIE) continue;
    const [version, deviceId, userId, mac, ...rest] = pair
      .slice(eq + 1)
      .trim()
      .split('.');
    if (version !== VERSION || rest.length > 0) return undefined;
    if (![deviceId, userId, mac].every((part) => part !== undefined && PART.test(part))) {
      return undefined;
    }
    return { deviceId: deviceId!, userId: userId!, mac: mac! };
  }
  return undefined;
}

/**
 * The device id when `device` is a cookie this server signed for the member whose (normalised)
 * email is `email`; undefined for anything else: no cookie, a forged or altered one, or another
 * member's.
 */
export async function trustedDevice(
  ctx: AppContext,
  device: DeviceCookie | undefined,
  email: string,
): Promise<string | undefined> {
  if (!device) return undefined;
  const expected = Buffer.from(macOf(ctx, device.deviceId, device.userId));
  const given = Buffer.from(device.mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const user = await findUserById(ctx, device.userId);
  return user?.email === email ? device.deviceId : undefined;
}

/**
 * After a completed password sign-in (the password, or the second step that follows it): gives
 * this browser a new device cookie for `user`, and returns `answer` unchanged.
 */
export function rememberDevice<T>(
  ctx: AppContext,
  reply: FastifyReply,
  user: Pick<User, 'id'>,
  answer: T,
): T {
  const deviceId = randomBytes(16).toString('base64url');
  const value = `${VERSION}.${deviceId}.${user.id}.${macOf(ctx, deviceId, user.id)}`;
  const cookie = [
    `${DEVICE_COOKIE}=${value}`,
    `Path=${DEVICE_COOKIE_PATH}`,
    `Max-Age=${DEVICE_COOKIE_MAX_AGE_SECONDS}`,
    'HttpOnly',
    'SameSite=Lax',
  ];
  // As HSTS (app.ts): over https, the browser sends it over https only.
  if (ctx.config.appUrl.startsWith('https:')) cookie.push('Secure');
  reply.header('set-cookie', cookie.join('; '));
  return answer;
}
