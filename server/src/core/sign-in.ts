import type { User } from '../db/schema.js';
import { recordEvent } from './audit.js';
import type { AppContext, Client } from './context.js';
import { ACCOUNT_DISABLED, ForbiddenError, VERIFY_EMAIL_FIRST } from './errors.js';
import { requireSecondStep } from './second-step.js';
import { startSession } from './sessions.js';

/**
 * The ways in, by what they prove:
 * - a first factor (a password; a provider vouching for the member; a code sent by email, which
 *   proves the mailbox and nothing more) is followed by the second step when the member has
 *   two-step sign-in on;
 * - a second step (an authenticator code, a recovery code) completes a first factor;
 * - a passkey is possession plus user verification: complete on its own.
 */
export type WayIn = 'password' | 'oauth2' | 'otp' | 'totp' | 'recovery_code' | 'passkey';

const FIRST_FACTORS: ReadonlySet<WayIn> = new Set(['password', 'oauth2', 'otp']);

/**
 * Ways in that an account nobody has shown to own its address cannot use. A passkey can only be
 * added once the email is verified (a spare invite must not pre-claim someone's address), so one
 * on an unverified account predates that rule: it is refused. A password or a provider still
 * gives the unverified member a session, as PocketBase does; the web app ends it and shows the
 * "Email Not Verified" notice. A code by email proves the address: it verifies the account before
 * it comes here (accounts/sign-in-code.ts).
 */
const NEED_VERIFIED: ReadonlySet<WayIn> = new Set(['passkey']);

/**
 * The one door to a session: every way in, once its proof was right, ends here. It refuses a
 * disabled account (403; only someone who passed the proof learns that it is disabled), refuses
 * a way the account may not use while unverified, sends a first factor on to the second step
 * when two-step sign-in is on (a 401 with an `mfaId`), and otherwise opens the session, records
 * the sign-in and returns its auth token.
 */
export async function signIn(
  ctx: AppContext,
  user: Pick<User, 'id' | 'email' | 'token_key' | 'disabled' | 'verified'>,
  client: Client,
  method: WayIn,
): Promise<string> {
  const refuse = async (reason: string, message: string): Promise<never> => {
    await recordEvent(ctx.db, {
      type: 'sign_in',
      userId: user.id,
      client,
      outcome: 'failure',
      detail: { method, reason },
    });
    throw new ForbiddenError(message);
  };
  if (user.disabled === 1) return refuse('disabled', ACCOUNT_DISABLED);
  if (user.verified !== 1 && NEED_VERIFIED.has(method)) {
    return refuse('not_verified', VERIFY_EMAIL_FIRST);
  }
  if (FIRST_FACTORS.has(method) && (await ctx.waysIn.secondStepRequired(ctx.db, user.id))) {
    return requireSecondStep(ctx, user.id, client, method);
  }
  return startSession(ctx, user, client, method);
}
