import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  assertNoFieldErrors,
  fieldError,
  type FieldErrors,
  ValidationError,
} from '../core/errors.js';
import { newAccountLanguage, type Language } from '../core/language.js';
import { findUserByEmail } from '../core/users.js';
import type { Transaction } from 'kysely';
import { isUniqueViolation } from '../db/connect.js';
import type { Database, User } from '../db/schema.js';
import {
  allowTakenEmailAnswer,
  consumeCode,
  createInviteCodes,
  publishCodes,
  findUsableCode,
  isBlankCode,
  type UsableInviteCode,
} from '../invites/service.js';
import { isEmail, normalizeEmail } from '../tools/email.js';
import { newId, newSecret } from '../tools/random.js';
import { nowString } from '../tools/time.js';
import { ACCOUNT_LIMITS } from './limits.js';
import { hashPassword, normalizePassword, signUpPasswordError } from './passwords.js';
import { nameError, normalizeName } from './profile.js';
import { queueAccountMail } from './request-mail.js';

const CREATE_FAILED = 'Failed to create record.';

export interface SignUpInput {
  email: string;
  password: string;
  passwordConfirm: string;
  inviteCode: string;
  /** Optional: '' is no name. */
  name: string;
  /** Optional: the language of the member's mail; '' is English. */
  language: string;
  emailVisibility?: boolean;
  verified?: boolean;
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
 * do not run. Then createAccount below.
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
  const passwordError = signUpPasswordError(password, { appName: ctx.settings.appName, email });
  if (passwordError) stage2.password = passwordError;
  if (isBlankCode(input.inviteCode)) stage2.inviteCode = fieldError.required();
  const name = normalizeName(input.name);
  const badName = nameError(name);
  if (badName) stage2.name = badName;
  const language = newAccountLanguage(input.language, stage2);
  assertNoFieldErrors(stage2, CREATE_FAILED);

  // 3. The invite code exists and is unused.
  const invite = await findUsableCode(ctx, input.inviteCode);
  if (!invite) throw invalidCode();

  // 4. The email is new. Checked only after a valid code: nobody without one can probe emails, and
  //    one code can tell only a few times that an email is taken.
  if (await findUserByEmail(ctx, email)) throw await takenEmail(ctx, invite);

  return createAccount(ctx, invite, {
    email,
    passwordHash: await hashPassword(password),
    passwordSet: true,
    verified: false,
    emailVisibility: input.emailVisibility === true,
    name,
    language,
    client,
    method: 'password',
  });
}

export interface ProviderSignUpInput {
  /** The email the provider gave (may be empty: the provider shared none). */
  email: string;
  /** Whether the provider says the member has verified that email. */
  emailVerified: boolean;
  inviteCode: string;
  emailVisibility: boolean | undefined;
  /** createData.language: the language of the member's mail; '' is English. */
  language: string;
  provider: string;
  /** Links the provider identity to the new account, inside its transaction. */
  link: (trx: Transaction<Database>, user: User) => Promise<void>;
}

/**
 * Sign-up with a provider (auth-with-oauth2 for an identity nobody has): the same invite checks,
 * messages and single-use transaction as sign-up, with the provider's email instead of a typed
 * one and no password of the member's (a random one is hashed, `password_set` 0). The account is
 * verified when the provider says the email is; otherwise the verification mail goes out with it.
 */
export async function signUpWithProvider(
  ctx: AppContext,
  input: ProviderSignUpInput,
  client: Client,
): Promise<User> {
  await ctx.limiter.check(ACCOUNT_LIMITS.signUp, client.network);
  const email = normalizeEmail(input.email);
  const errors: FieldErrors = {};
  if (isBlankCode(input.inviteCode)) errors.inviteCode = fieldError.required();
  else if (email === '') errors.email = fieldError.required();
  else if (!isEmail(email)) errors.email = fieldError.isEmail();
  const language = newAccountLanguage(input.language, errors);
  assertNoFieldErrors(errors, CREATE_FAILED);

  const invite = await findUsableCode(ctx, input.inviteCode);
  if (!invite) throw invalidCode();
  if (await findUserByEmail(ctx, email)) throw await takenEmail(ctx, invite);

  return createAccount(ctx, invite, {
    email,
    passwordHash: await hashPassword(newSecret()),
    passwordSet: false,
    verified: input.emailVerified,
    emailVisibility: input.emailVisibility === true,
    name: '',
    language,
    client,
    method: 'oauth2',
    provider: input.provider,
    link: input.link,
  });
}

/**
 * The account, its invite code consumed and its own codes issued, in one transaction: two
 * sign-ups racing for one code have exactly one winner.
 */
async function createAccount(
  ctx: AppContext,
  invite: UsableInviteCode,
  account: {
    email: string;
    passwordHash: string;
    passwordSet: boolean;
    verified: boolean;
    emailVisibility: boolean;
    name: string;
    language: Language;
    client: Client;
    method: 'password' | 'oauth2';
    provider?: string;
    link?: (trx: Transaction<Database>, user: User) => Promise<void>;
  },
): Promise<User> {
  const { email, client } = account;
  const now = nowString();
  const user: User = {
    id: newId(),
    email,
    password_hash: account.passwordHash,
    password_set: account.passwordSet ? 1 : 0,
    token_key: newSecret(),
    verified: account.verified ? 1 : 0,
    email_visibility: account.emailVisibility ? 1 : 0,
    is_initial_user: invite.bootstrap ? 1 : 0,
    // The initial user is always an operator.
    is_operator: invite.bootstrap ? 1 : 0,
    disabled: 0,
    invite_code: invite.formatted,
    invited_by: invite.ownerId,
    // An unverified provider email gets its verification mail with the account.
    verification_sent_at: account.method === 'oauth2' && !account.verified ? now : null,
    reset_sent_at: null,
    created: now,
    updated: now,
    name: account.name,
    avatar: '',
    language: account.language,
  };

  try {
    await ctx.db.transaction().execute(async (trx) => {
      if (!(await consumeCode(trx, invite.id, user.id))) throw invalidCode();
      await trx.insertInto('users').values(user).execute();
      await createInviteCodes(trx, user.id, ctx.settings.invitesPerMember);
      await recordEvent(trx, {
        type: 'sign_up',
        userId: user.id,
        client,
        ...(account.provider
          ? { detail: { method: account.method, provider: account.provider } }
          : {}),
      });
      await account.link?.(trx, user);
      if (user.verification_sent_at) await queueAccountMail(ctx, trx, 'verification', user);
    });
  } catch (error) {
    // Lost a race on the same email (or, for the bootstrap code, on the one initial user).
    if (isUniqueViolation(error)) {
      if (invite.bootstrap && !(await findUserByEmail(ctx, email))) throw invalidCode();
      throw await takenEmail(ctx, invite);
    }
    throw error;
  }
  if (user.verification_sent_at) ctx.mailQueued();
  // The inviter's list drops the code at once, wherever it is open.
  publishCodes(ctx, invite.ownerId, 'delete', [{ id: invite.id, code: invite.formatted }]);
  return user;
}
