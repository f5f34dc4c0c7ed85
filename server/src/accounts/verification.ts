import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import { inTransaction } from '../core/transaction.js';
import { fieldError, VALIDATION_FAILED, ValidationError } from '../core/errors.js';
import { Tokens } from '../core/tokens.js';
import { findUserByToken } from '../core/users.js';
import { nowString } from '../tools/time.js';
import { ACCOUNT_LIMITS } from './limits.js';

/**
 * confirm-verification: a live verification token marks its account verified. Repeating it with
 * the same token is a no-op until the token expires.
 */
export async function confirmVerification(
  ctx: AppContext,
  input: { token: string },
  client: Client,
): Promise<void> {
  await ctx.limiter.check(ACCOUNT_LIMITS.confirm, client.network);
  const token = input.token.trim();
  if (token === '') throw new ValidationError(VALIDATION_FAILED, { token: fieldError.required() });
  if (!Tokens.isJwt(token)) {
    throw new ValidationError(VALIDATION_FAILED, { token: fieldError.invalidTokenClaims() });
  }
  const user = await findUserByToken(ctx, token, 'verification');
  if (!user) throw new ValidationError(VALIDATION_FAILED, { token: fieldError.invalidToken() });
  if (user.verified === 1) return;
  await inTransaction(ctx, async ({ trx, publish }) => {
    await trx
      .updateTable('users')
      .set({ verified: 1, updated: nowString() })
      .where('id', '=', user.id)
      .execute();
    await recordEvent(trx, { type: 'email_verified', userId: user.id, client });
    publish({ type: 'user-changed', userId: user.id });
  });
}
