import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  ACCOUNT_DISABLED,
  assertNoFieldErrors,
  ForbiddenError,
  fieldError,
  type FieldErrors,
  VALIDATION_FAILED,
  ValidationError,
} from '../core/errors.js';
import { findUserByEmail } from '../core/users.js';
import type { User } from '../db/schema.js';
import { isEmail, normalizeEmail } from '../tools/email.js';
import { ACCOUNT_LIMITS } from './limits.js';
import { verifyAgainstDummy, verifyPassword } from './passwords.js';

/**
 * Password sign-in. Unknown email and wrong password are the same failure, with the same cost:
 * an unknown email still runs one verification against a dummy hash.
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

  const user = isEmail(input.identity) ? await findUserByEmail(ctx, input.identity) : undefined;
  if (!user) await verifyAgainstDummy(input.password);
  else if (await verifyPassword(user.password_hash, input.password)) {
    if (user.disabled !== 1) return user;
    // Only the right password learns that the account is disabled.
    await recordEvent(ctx.db, {
      type: 'sign_in',
      userId: user.id,
      client,
      outcome: 'failure',
      detail: { method: 'password', reason: 'disabled' },
    });
    throw new ForbiddenError(ACCOUNT_DISABLED);
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
