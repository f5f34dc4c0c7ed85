import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  assertNoFieldErrors,
  fieldError,
  type FieldErrors,
  VALIDATION_FAILED,
  ValidationError,
} from '../core/errors.js';
import { requireSecondStep } from '../core/second-step.js';
import { findUserByEmail } from '../core/users.js';
import type { User } from '../db/schema.js';
import { isEmail, normalizeEmail } from '../tools/email.js';
import { ACCOUNT_LIMITS } from './limits.js';
import { verifyAgainstDummy, verifyPassword } from './passwords.js';

/**
 * Password sign-in. Unknown email and wrong password are the same failure, with the same cost:
 * an unknown email still runs one verification against a dummy hash. A member with two-step
 * sign-in on goes on to the second step (core/second-step.ts) instead of getting a token.
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
    // With two-step sign-in on, a right password answers 401 with an mfaId, and no token.
    await requireSecondStep(ctx, user, client, 'password');
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
