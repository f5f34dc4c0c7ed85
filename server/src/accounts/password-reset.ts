import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  assertNoFieldErrors,
  fieldError,
  type FieldErrors,
  VALIDATION_FAILED,
  ValidationError,
} from '../core/errors.js';
import { endSessions } from '../core/sessions.js';
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
 * cannot both succeed. An unverified account becomes verified: the mail reached its owner. The
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
    const context = { appName: ctx.config.appName, email: user?.email };
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
  const { appName } = ctx.config;
  const at = new Date();
  const resetUser = user;
  await ctx.db.transaction().execute(async (trx) => {
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
    const ended = await endSessions(trx, resetUser.id);
    await recordEvent(trx, {
      type: 'password_reset',
      userId: resetUser.id,
      client,
      detail: { sessionsEnded: ended },
    });
    await queueNotice(ctx, trx, resetUser, client, passwordChangedNotice(appName, 'all'));
  });
  ctx.mailQueued();
  ctx.events.publish({ type: 'user-changed', userId: resetUser.id });
  ctx.events.publish({ type: 'session-ended', userId: resetUser.id, sessionId: null });
}
