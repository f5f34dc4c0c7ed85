import type { AppContext, Client } from '../core/context.js';
import {
  assertNoFieldErrors,
  fieldError,
  type FieldErrors,
  VALIDATION_FAILED,
  ValidationError,
} from '../core/errors.js';
import { endSessions } from '../core/sessions.js';
import { inTransaction } from '../core/transaction.js';
import { findUserByToken } from '../core/users.js';
import type { User } from '../db/schema.js';
import { newSecret } from '../tools/random.js';
import { formatDate } from '../tools/time.js';
import { ACCOUNT_LIMITS } from './limits.js';
import { passwordChangedNotice } from './mails.js';
import { queueNotice } from './notices.js';
import { hashPassword, normalizePassword, resetPasswordError } from './passwords.js';

/**
 * confirm-password-reset: sets a new password from a reset token, reporting every field's error
 * together. The tokenKey rotates in the same update (guarded by the old key) and every session
 * ends, so every outstanding token dies, this reset token included, and two uses of one token
 * cannot both succeed. An unverified account becomes verified: the mail reached its owner, and
 * every other way in (passkeys, providers, two-step) added while it was unverified is removed. The
 * password is checked and hashed in its NFKC form, and a notice mail (when, from which IP and
 * browser) is queued in the same transaction as the change.
 */
export async function confirmPasswordReset(
  ctx: AppContext,
  input: { token: string; password: string; passwordConfirm: string },
  client: Client,
): Promise<void> {
  await ctx.limiter.check(ACCOUNT_LIMITS.confirm, client.network);
  const token = input.token.trim();
  const errors: FieldErrors = {};
  let user: User | undefined;
  if (token === '') errors.token = fieldError.required();
  else {
    user = await findUserByToken(ctx, token, 'passwordReset');
    if (!user) errors.token = fieldError.invalidToken();
  }
  const password = normalizePassword(input.password);
  if (password === '') errors.password = fieldError.required();
  else {
    const context = { appName: ctx.settings.appName, email: user?.email };
    const passwordError = resetPasswordError(password, context);
    if (passwordError) errors.password = passwordError;
  }
  if (input.passwordConfirm === '') errors.passwordConfirm = fieldError.required();
  else if (normalizePassword(input.passwordConfirm) !== password) {
    errors.passwordConfirm = fieldError.mismatch();
  }
  assertNoFieldErrors(errors, VALIDATION_FAILED);
  if (!user) throw new ValidationError(VALIDATION_FAILED, { token: fieldError.invalidToken() });

  const passwordHash = await hashPassword(password);
  const { appName } = ctx.settings;
  const at = new Date();
  const resetUser = user;
  await inTransaction(ctx, async (work) => {
    const { trx } = work;
    const changed = await trx
      .updateTable('users')
      .set({
        password_hash: passwordHash,
        // A member who joined with a provider has a password of their own from now on.
        password_set: 1,
        token_key: newSecret(),
        verified: 1,
        updated: formatDate(at),
      })
      .where('id', '=', resetUser.id)
      .where('token_key', '=', resetUser.token_key)
      .where('email', '=', resetUser.email)
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) !== 1) {
      throw new ValidationError(VALIDATION_FAILED, { token: fieldError.invalidToken() });
    }
    work.publish({ type: 'user-changed', userId: resetUser.id });
    // The reset proves the mailbox: on an account nobody had proved it for, every way in added
    // before is removed (a spare invite must not pre-claim someone's address).
    const removed =
      resetUser.verified === 1 ? undefined : await ctx.waysIn.remove(trx, resetUser.id);
    const removedAny =
      removed && (removed.passkeys > 0 || removed.providers > 0 || removed.twoStep > 0);
    await endSessions(work, resetUser.id, {}, (ended) => ({
      type: 'password_reset',
      client,
      detail: {
        sessionsEnded: ended,
        ...(removedAny
          ? {
              passkeysRemoved: removed.passkeys,
              providersRemoved: removed.providers,
              twoStepRemoved: removed.twoStep > 0,
            }
          : {}),
      },
    }));
    await queueNotice(
      ctx,
      trx,
      resetUser,
      client,
      passwordChangedNotice(appName, removedAny ? 'all-ways-in' : 'all'),
    );
    work.mailQueued();
  });
}
