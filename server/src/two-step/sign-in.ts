import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  assertNoFieldErrors,
  fieldError,
  type FieldErrors,
  VALIDATION_FAILED,
  ValidationError,
} from '../core/errors.js';
import { consumeMfa, mfaOwner } from '../core/second-step.js';
import { findUserById } from '../core/users.js';
import type { User } from '../db/schema.js';
import {
  admitAttempt,
  attemptFailed,
  clearFailures,
  codeMethod,
  spendCode,
  twoStepOf,
} from './codes.js';
import { TWO_STEP_LIMITS } from './limits.js';

/** A wrong code inside the transaction: rolls back the use of the mfaId. */
class WrongCode extends Error {}

const invalidMfa = () =>
  new ValidationError(VALIDATION_FAILED, { mfaId: fieldError.invalidMfaId() });

/**
 * The second step of a sign-in: the `mfaId` from a right password plus a current code from the
 * authenticator app or an unused recovery code. The `mfaId` is used up only by a right code; a
 * wrong one counts towards the member's lock-out (5 in a row: 15 minutes, answered 429). The
 * attempt is let through by the lock before the code is checked, so parallel guesses cannot all
 * be checked before it.
 */
export async function signInWithSecondStep(
  ctx: AppContext,
  input: { mfaId: string; code: string },
  client: Client,
): Promise<{ user: User; method: 'totp' | 'recovery_code' }> {
  await ctx.limiter.check(TWO_STEP_LIMITS.secondStep, client.network);
  const errors: FieldErrors = {};
  if (input.mfaId.trim() === '') errors.mfaId = fieldError.required();
  if (input.code.trim() === '') errors.code = fieldError.required();
  assertNoFieldErrors(errors, VALIDATION_FAILED);
  if (input.mfaId.length > 64 || input.code.length > 64) {
    throw new ValidationError(VALIDATION_FAILED, { code: fieldError.invalidCode() });
  }

  const userId = await mfaOwner(ctx.db, input.mfaId);
  const user = userId ? await findUserById(ctx, userId) : undefined;
  const row = user ? await twoStepOf(ctx.db, user.id) : undefined;
  // Two-step turned off meanwhile: the mfaId is void; signing in with the password is enough now.
  if (!user || row?.enabled !== 1) throw invalidMfa();
  const attempt = await admitAttempt(ctx.db, user.id);

  const method = codeMethod(input.code);
  try {
    await ctx.db.transaction().execute(async (trx) => {
      if (!(await consumeMfa(trx, input.mfaId))) throw invalidMfa();
      const right = await spendCode(trx, ctx.box, row, input.code);
      if (!right) throw new WrongCode();
      await clearFailures(trx, user.id, attempt);
    });
  } catch (error) {
    if (error instanceof WrongCode) {
      await recordEvent(ctx.db, {
        type: 'sign_in',
        userId: user.id,
        client,
        outcome: 'failure',
        detail: { method, reason: 'wrong_code' },
      });
    }
    await attemptFailed(ctx, user.id, client, attempt);
    if (error instanceof WrongCode) {
      throw new ValidationError(VALIDATION_FAILED, { code: fieldError.invalidCode() });
    }
    throw error;
  }
  return { user, method };
}
