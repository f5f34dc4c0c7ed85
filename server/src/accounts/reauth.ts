import { recordEvent } from '../core/audit.js';
import { fieldError, VALIDATION_FAILED, ValidationError } from '../core/errors.js';
import type { Proof } from '../core/reauth.js';
import { isCurrentPassword } from './passwords.js';
import { countFailure } from './sign-in.js';

/**
 * "Confirm it's you" with the member's password (core/reauth.ts). A wrong one counts in the
 * sign-in failure buckets of the account, as a wrong password at sign-in does, and is recorded.
 * Members who joined with a provider and never set a password cannot use it.
 */
export const passwordProof: Proof = {
  field: 'password',
  available: async (_ctx, user) => user.password_set === 1,
  async check(ctx, user, value, client) {
    const password = typeof value === 'string' ? value : '';
    if (password === '') {
      throw new ValidationError(VALIDATION_FAILED, { password: fieldError.required() });
    }
    const takeBack = await countFailure(ctx, user.email, client);
    if (user.password_set === 1 && (await isCurrentPassword(user.password_hash, password))) {
      await takeBack();
      return;
    }
    await recordEvent(ctx.db, {
      type: 'reauthenticated',
      userId: user.id,
      client,
      outcome: 'failure',
      detail: { method: 'password', reason: 'wrong_password' },
    });
    throw new ValidationError(VALIDATION_FAILED, { password: fieldError.invalidPassword() });
  },
};
