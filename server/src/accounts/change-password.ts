import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  assertNoFieldErrors,
  type FieldError,
  fieldError,
  type FieldErrors,
} from '../core/errors.js';
import { endSessions, sessionToken } from '../core/sessions.js';
import { inTransaction } from '../core/transaction.js';
import type { Auth } from '../core/users.js';
import type { User } from '../db/schema.js';
import { newSecret } from '../tools/random.js';
import { formatDate, nowString } from '../tools/time.js';
import { passwordChangedNotice } from './mails.js';
import { queueNotice } from './notices.js';
import {
  hashPassword,
  isCurrentPassword,
  normalizePassword,
  signUpPasswordError,
} from './passwords.js';
import { countFailure } from './sign-in.js';

const UPDATE_FAILED = 'Failed to update record.';

const invalidOldPassword = (): FieldError => ({
  code: 'validation_invalid_old_password',
  message: 'Missing or invalid old password.',
});

export interface RecordUpdateInput {
  oldPassword: string;
  password: string;
  passwordConfirm: string;
  emailVisibility?: boolean;
}

/**
 * PocketBase's record update on the member's own record, for the two fields a member may change:
 * `emailVisibility`, and the password (with `oldPassword`). Every other field is ignored. A new
 * password rotates the tokenKey (outstanding reset and verification links die), ends every other
 * session, queues a notice mail, and returns a fresh token for this device's session.
 */
export async function updateOwnRecord(
  ctx: AppContext,
  auth: Auth,
  input: RecordUpdateInput,
  client: Client,
): Promise<{ user: User; token?: string }> {
  const { user, session } = auth;
  const changingPassword =
    input.oldPassword !== '' || input.password !== '' || input.passwordConfirm !== '';
  if (!changingPassword) {
    if (input.emailVisibility === undefined) return { user };
    const visibility = input.emailVisibility ? 1 : 0;
    const updated = { ...user, email_visibility: visibility, updated: nowString() };
    await ctx.db
      .updateTable('users')
      .set({ email_visibility: visibility, updated: updated.updated })
      .where('id', '=', user.id)
      .execute();
    ctx.events.publish({ type: 'user-changed', userId: user.id });
    return { user: updated };
  }

  const password = normalizePassword(input.password);
  const errors: FieldErrors = {};
  if (input.password === '') errors.password = fieldError.required();
  else {
    const context = { appName: ctx.config.appName, email: user.email };
    const passwordError = signUpPasswordError(password, context);
    if (passwordError) errors.password = passwordError;
  }
  if (input.passwordConfirm === '') errors.passwordConfirm = fieldError.required();
  else if (normalizePassword(input.passwordConfirm) !== password) {
    errors.passwordConfirm = fieldError.mismatch();
  }
  if (input.oldPassword === '') errors.oldPassword = invalidOldPassword();
  else {
    // A guess at the current password counts like a failed sign-in on this account.
    const takeBack = await countFailure(ctx, user.email, client);
    if (await isCurrentPassword(user.password_hash, input.oldPassword)) await takeBack();
    else {
      errors.oldPassword = invalidOldPassword();
      await recordEvent(ctx.db, {
        type: 'password_changed',
        userId: user.id,
        client,
        outcome: 'failure',
        detail: { reason: 'wrong_old_password' },
      });
    }
  }
  assertNoFieldErrors(errors, UPDATE_FAILED);

  const at = new Date();
  const now = formatDate(at);
  const updated: User = {
    ...user,
    password_hash: await hashPassword(password),
    token_key: newSecret(),
    email_visibility:
      input.emailVisibility === undefined ? user.email_visibility : input.emailVisibility ? 1 : 0,
    updated: now,
  };
  await inTransaction(ctx, async (work) => {
    const { trx } = work;
    await trx
      .updateTable('users')
      .set({
        password_hash: updated.password_hash,
        token_key: updated.token_key,
        email_visibility: updated.email_visibility,
        updated: now,
      })
      .where('id', '=', user.id)
      .execute();
    work.publish({ type: 'user-changed', userId: user.id });
    await endSessions(work, user.id, { keep: session.id }, (ended) => ({
      type: 'password_changed',
      client,
      detail: { otherSessionsEnded: ended },
    }));
    const { appName } = ctx.config;
    await queueNotice(ctx, trx, user, client, passwordChangedNotice(appName, 'others'));
    work.mailQueued();
  });
  return { user: updated, token: sessionToken(ctx, updated, session) };
}
