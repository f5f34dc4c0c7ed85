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
 * The password is checked in its NFKC form. Hashes made before passwords were normalised hold the
 * password as it was typed: when the typed form differs from its NFKC form and the NFKC form does
 * not match, the typed form is tried too, and on success the hash is replaced by one of the NFKC
 * form (so the member's other devices, which may type another form, work from then on).
 */
export async function signInWithPassword(
  ctx: AppContext,
  input: { identity: string; password: string },
  client: Client,
): Promise<User> {
  await ctx.limiter.check(ACCOUNT_LIMITS.signIn, client.ip);
  const errors: FieldErrors = {};
  if (input.identity.trim() === '') errors.identity = fieldError.required();
  if (input.password === '') errors.password = fieldError.required();
  assertNoFieldErrors(errors, VALIDATION_FAILED);
  await ctx.limiter.check(ACCOUNT_LIMITS.signInPerEmail, normalizeEmail(input.identity));

  const password = normalizePassword(input.password);
  const typedDiffers = password !== input.password;
  const user = isEmail(input.identity) ? await findUserByEmail(ctx, input.identity) : undefined;
  if (!user) {
    await verifyAgainstDummy(password);
    if (typedDiffers) await verifyAgainstDummy(input.password);
  } else if (await verifyPassword(user.password_hash, password)) {
    return user;
  } else if (typedDiffers && (await verifyPassword(user.password_hash, input.password))) {
    await rehash(ctx, user, password);
    return user;
  }
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
