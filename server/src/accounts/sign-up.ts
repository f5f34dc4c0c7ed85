import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  assertNoFieldErrors,
  fieldError,
  type FieldErrors,
  ValidationError,
} from '../core/errors.js';
import { findUserByEmail } from '../core/users.js';
import { isUniqueViolation } from '../db/connect.js';
import type { User } from '../db/schema.js';
import {
  allowTakenEmailAnswer,
  consumeCode,
  createInviteCodes,
  findUsableCode,
  isBlankCode,
  type UsableInviteCode,
} from '../invites/service.js';
import { isEmail, normalizeEmail } from '../tools/email.js';
import { newId, newSecret } from '../tools/random.js';
import { nowString } from '../tools/time.js';
import { ACCOUNT_LIMITS } from './limits.js';
import { hashPassword, normalizePassword, signUpPasswordError } from './passwords.js';

const CREATE_FAILED = 'Failed to create record.';

export interface SignUpInput {
  email: string;
  password: string;
  passwordConfirm: string;
  inviteCode: string;
  emailVisibility: boolean | undefined;
  verified: boolean | undefined;
}

const invalidCode = () =>
  new ValidationError(CREATE_FAILED, { inviteCode: fieldError.invalidInviteCode() });

/**
 * "This email has an account", to someone holding a valid code: only a few times per code and per
 * inviter, then the code is burnt and the answer is the invalid-code one (docs/decisions/0019).
 */
async function takenEmail(ctx: AppContext, invite: UsableInviteCode): Promise<ValidationError> {
  if (!(await allowTakenEmailAnswer(ctx, invite))) return invalidCode();
  return new ValidationError(CREATE_FAILED, { email: fieldError.notUnique() });
}

/**
 * Sign-up in four stages; a failing stage answers with all of its field errors and later stages
 * do not run. The invite code is consumed, the account created and its own codes issued in one
 * transaction, so two sign-ups racing for one code have exactly one winner.
 */
export async function signUp(ctx: AppContext, input: SignUpInput, client: Client): Promise<User> {
  await ctx.limiter.check(ACCOUNT_LIMITS.signUp, client.network);

  // 1. Passwords present and equal (once normalised); a client may not declare itself verified.
  const password = normalizePassword(input.password);
  const stage1: FieldErrors = {};
  if (password === '') stage1.password = fieldError.required();
  if (input.passwordConfirm === '') stage1.passwordConfirm = fieldError.required();
  else if (normalizePassword(input.passwordConfirm) !== password) {
    stage1.passwordConfirm = fieldError.mismatch();
  }
  if (input.verified === true) stage1.verified = fieldError.mismatch();
  assertNoFieldErrors(stage1, CREATE_FAILED);

  // 2. Field rules.
  const email = normalizeEmail(input.email);
  const stage2: FieldErrors = {};
  if (email === '') stage2.email = fieldError.required();
  else if (!isEmail(email)) stage2.email = fieldError.isEmail();
  const passwordError = signUpPasswordError(password, { appName: ctx.config.appName, email });
  if (passwordError) stage2.password = passwordError;
  if (isBlankCode(input.inviteCode)) stage2.inviteCode = fieldError.required();
  assertNoFieldErrors(stage2, CREATE_FAILED);

  // 3. The invite code exists and is unused.
  const invite = await findUsableCode(ctx, input.inviteCode);
  if (!invite) throw invalidCode();

  // 4. The email is new. Checked only after a valid code: nobody without one can probe emails, and
  //    one code can tell only a few times that an email is taken.
  if (await findUserByEmail(ctx, email)) throw await takenEmail(ctx, invite);

  const now = nowString();
  const user: User = {
    id: newId(),
    email,
    password_hash: await hashPassword(password),
    token_key: newSecret(),
    verified: 0,
    email_visibility: input.emailVisibility ? 1 : 0,
    is_initial_user: invite.bootstrap ? 1 : 0,
    // The initial user is always an operator.
    is_operator: invite.bootstrap ? 1 : 0,
    disabled: 0,
    invite_code: invite.formatted,
    invited_by: invite.ownerId,
    verification_sent_at: null,
    reset_sent_at: null,
    created: now,
    updated: now,
  };

  try {
    await ctx.db.transaction().execute(async (trx) => {
      if (!(await consumeCode(trx, invite.id, user.id))) throw invalidCode();
      await trx.insertInto('users').values(user).execute();
      await createInviteCodes(trx, user.id, ctx.config.invitesPerUser);
      await recordEvent(trx, { type: 'sign_up', userId: user.id, client });
    });
  } catch (error) {
    // Lost a race on the same email (or, for the bootstrap code, on the one initial user).
    if (isUniqueViolation(error)) {
      if (invite.bootstrap && !(await findUserByEmail(ctx, email))) throw invalidCode();
      throw await takenEmail(ctx, invite);
    }
    throw error;
  }
  return user;
}
