import { recordEvent } from '../core/audit.js';
import { fieldError, VALIDATION_FAILED, ValidationError } from '../core/errors.js';
import type { Proof } from '../core/reauth.js';
import {
  admitAttempt,
  attemptFailed,
  clearFailures,
  codeMethod,
  spendCode,
  twoStepOf,
} from './codes.js';

/**
 * "Confirm it's you" with a code from the authenticator app or an unused recovery code
 * (core/reauth.ts), for members with two-step sign-in on. The attempt goes through the same lock
 * as at sign-in (5 wrong in a row: 15 minutes, answered 429) and a wrong code is recorded.
 */
export const codeProof: Proof = {
  field: 'code',
  available: async (ctx, user) => (await twoStepOf(ctx.db, user.id))?.enabled === 1,
  async check(ctx, user, value, client) {
    const code = typeof value === 'string' ? value.trim() : '';
    if (code === '') throw new ValidationError(VALIDATION_FAILED, { code: fieldError.required() });
    const row = await twoStepOf(ctx.db, user.id);
    const wrong = () => new ValidationError(VALIDATION_FAILED, { code: fieldError.invalidCode() });
    if (row?.enabled !== 1 || code.length > 64) throw wrong();
    const attempt = await admitAttempt(ctx.db, user.id);
    const method = codeMethod(code);
    const right = await spendCode(ctx.db, ctx.box, row, code);
    if (right) {
      await clearFailures(ctx.db, user.id, attempt);
      return;
    }
    await recordEvent(ctx.db, {
      type: 'reauthenticated',
      userId: user.id,
      client,
      outcome: 'failure',
      detail: { method, reason: 'wrong_code' },
    });
    await attemptFailed(ctx, user.id, client, attempt);
    throw wrong();
  },
};
