import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  assertNoFieldErrors,
  fieldError,
  type FieldErrors,
  VALIDATION_FAILED,
  ValidationError,
} from '../core/errors.js';
import { findUserByEmail } from '../core/users.js';
import type { User } from '../db/schema.js';
import { isEmail, normalizeEmail } from '../tools/email.js';
import { type DeviceCookie, trustedDevice } from './device-cookie.js';
import { ACCOUNT_LIMITS } from './limits.js';
import {
  hashPassword,
  normalizePassword,
  verifyAgainstDummy,
  verifyPassword,
} from './passwords.js';

/**
 * Password sign-in. Unknown email and wrong password are the same failure, with the same cost:
 * an unknown email still runs the same verifications against a dummy hash.
 *
 * Limits: every attempt counts per client network; failures count per (email, network) and per
 * email. Each failure counter is counted before the password check (so parallel guesses cannot
 * all slip under it) and taken back when the password is right. Only a well-formed email is a
 * counter subject; anything else fails without touching them.
 *
 * The password is checked in its NFKC form. Hashes made before passwords were normalised hold the
 * password as it was typed: when the typed form differs from its NFKC form and the NFKC form does
 * not match, the typed form is tried too, and on success the hash is replaced by one of the NFKC
 * form (so the member's other devices, which may type another form, work from then on).
 *
 * A right password returns the member; the sign-in gate (core/sign-in.ts) then decides what it
 * leads to (a session; the second step for a member with two-step sign-in on; a disabled account's
 * 403).
 */
export async function signInWithPassword(
  ctx: AppContext,
  input: { identity: string; password: string },
  client: Client,
  /** The browser's device cookie, if it sent one (accounts/device-cookie.ts). */
  device?: DeviceCookie,
): Promise<User> {
  await ctx.limiter.check(ACCOUNT_LIMITS.signIn, client.network);
  const errors: FieldErrors = {};
  if (input.identity.trim() === '') errors.identity = fieldError.required();
  if (input.password === '') errors.password = fieldError.required();
  assertNoFieldErrors(errors, VALIDATION_FAILED);

  const password = normalizePassword(input.password);
  const typedDiffers = password !== input.password;
  if (!isEmail(input.identity)) {
    await verifyAgainstDummy(password);
    if (typedDiffers) await verifyAgainstDummy(input.password);
    throw new ValidationError('Failed to authenticate.');
  }
  const takeBack = await countFailure(ctx, normalizeEmail(input.identity), client, device);
  const user = await findUserByEmail(ctx, input.identity);
  if (!user) {
    await verifyAgainstDummy(password);
    if (typedDiffers) await verifyAgainstDummy(input.password);
  } else if (await verifyPassword(user.password_hash, password)) {
    await takeBack();
    return user;
  } else if (typedDiffers && (await verifyPassword(user.password_hash, input.password))) {
    await rehash(ctx, user, password);
    await takeBack();
    return user;
  }
  await recordEvent(ctx.db, {
    type: 'sign_in',
    userId: user?.id ?? null,
    client,
    outcome: 'failure',
    detail: { method: 'password', reason: user ? 'wrong_password' : 'unknown_email' },
  });
  throw new ValidationError('Failed to authenticate.');
}

/** Replaces a hash of the typed password by one of its NFKC form (unless it changed meanwhile). */
async function rehash(ctx: AppContext, user: User, password: string): Promise<void> {
  await ctx.db
    .updateTable('users')
    .set({ password_hash: await hashPassword(password) })
    .where('id', '=', user.id)
    .where('password_hash', '=', user.password_hash)
    .execute();
}

/**
 * Counts a failed password in advance on both failure limits (so parallel guesses cannot all slip
 * under them); the result takes both back when the password turns out right. Also used when a
 * signed-in member's current password is asked for again. A browser with the member's device
 * cookie counts on its device's limit instead of the per-email ceiling, which anyone can fill.
 */
export async function countFailure(
  ctx: AppContext,
  email: string,
  client: Client,
  device?: DeviceCookie,
) {
  const { signInFailuresPerEmailAndNetwork: local, signInFailuresPerEmail: wide } = ACCOUNT_LIMITS;
  const takeBackLocal = await ctx.limiter.attempt(local, `${email} ${client.network}`);
  let takeBackWide: () => Promise<void>;
  try {
    const deviceId = await trustedDevice(ctx, device, email);
    takeBackWide = deviceId
      ? await ctx.limiter.attempt(ACCOUNT_LIMITS.signInFailuresPerDevice, deviceId)
      : await ctx.limiter.attempt(wide, email);
  } catch (error) {
    await takeBackLocal(); // refused by the ceiling (or the device's): not this network's failure
    throw error;
  }
  return async () => {
    await takeBackLocal();
    await takeBackWide();
  };
}
