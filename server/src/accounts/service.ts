import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/connect.js';
import type { Database, User } from '../db/schema.js';
import {
  assertNoFieldErrors,
  badRequest,
  fieldError,
  type FieldErrors,
  VALIDATION_FAILED,
} from '../http/errors.js';
import { createInviteCodes } from '../invites/service.js';
import { formatInviteCode, normalizeInviteCode } from '../invites/codes.js';
import { enqueueMail } from '../mail/outbox.js';
import { passwordResetMail, verificationMail } from '../mail/templates.js';
import { newId, newSecret } from '../tools/random.js';
import { fromNow, nowString } from '../tools/time.js';
import {
  hashPassword,
  resetPasswordError,
  signUpPasswordError,
  verifyAgainstDummy,
  verifyPassword,
} from './passwords.js';
import { isEmail, normalizeEmail } from './records.js';
import { Tokens } from './tokens.js';

/** A mail of either kind is sent to one account at most once per this interval. */
export const RESEND_THROTTLE_MS = 2 * 60_000;

const CREATE_FAILED = 'Failed to create record.';

export function findUserByEmail(ctx: AppContext, email: string): Promise<User | undefined> {
  return ctx.db
    .selectFrom('users')
    .selectAll()
    .where('email', '=', normalizeEmail(email))
    .executeTakeFirst();
}

export function findUserById(ctx: AppContext, id: string): Promise<User | undefined> {
  return ctx.queries.userById(id);
}

/** The email field rule shared by the request-* endpoints. */
export function emailFieldErrors(email: string): FieldErrors {
  if (email.trim() === '') return { email: fieldError.required() };
  if (!isEmail(email.trim())) return { email: fieldError.isEmail() };
  return {};
}

/**
 * Password sign-in. Unknown email and wrong password are the same failure, with the same cost:
 * an unknown email still runs one verification against a dummy hash.
 */
export async function authenticate(
  ctx: AppContext,
  identity: string,
  password: string,
): Promise<User | undefined> {
  const user = isEmail(identity.trim()) ? await findUserByEmail(ctx, identity) : undefined;
  if (!user) {
    await verifyAgainstDummy(password);
    return undefined;
  }
  return (await verifyPassword(user.password_hash, password)) ? user : undefined;
}

export interface SignUpInput {
  email: string;
  password: string;
  passwordConfirm: string;
  inviteCode: string;
  emailVisibility: boolean | undefined;
  verified: boolean | undefined;
}

/**
 * Sign-up in the contract's four stages; a failing stage answers with all of its field errors and
 * later stages do not run. The invite code is consumed, the account created and its own codes
 * issued in one transaction, so two sign-ups racing for one code have exactly one winner.
 */
export async function signUp(ctx: AppContext, input: SignUpInput): Promise<User> {
  // 1. Passwords present and equal; a client may not declare itself verified.
  const stage1: FieldErrors = {};
  if (input.password === '') stage1.password = fieldError.required();
  if (input.passwordConfirm === '') stage1.passwordConfirm = fieldError.required();
  else if (input.passwordConfirm !== input.password) {
    stage1.passwordConfirm = fieldError.mismatch();
  }
  if (input.verified === true) stage1.verified = fieldError.mismatch();
  assertNoFieldErrors(stage1, CREATE_FAILED);

  // 2. Field rules.
  const email = normalizeEmail(input.email);
  const stage2: FieldErrors = {};
  if (email === '') stage2.email = fieldError.required();
  else if (!isEmail(email)) stage2.email = fieldError.isEmail();
  const passwordError = signUpPasswordError(input.password);
  if (passwordError) stage2.password = passwordError;
  const code = normalizeInviteCode(input.inviteCode);
  if (code === '') stage2.inviteCode = fieldError.required();
  assertNoFieldErrors(stage2, CREATE_FAILED);

  // 3. The invite code exists and is unused.
  const invite = await ctx.db
    .selectFrom('invite_codes')
    .select(['id', 'owner_id', 'bootstrap'])
    .where('code', '=', code)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (!invite) throw badRequest(CREATE_FAILED, { inviteCode: fieldError.invalidInviteCode() });

  // 4. The email is new. Checked only after a valid code: nobody without one can probe emails.
  if (await findUserByEmail(ctx, email)) {
    throw badRequest(CREATE_FAILED, { email: fieldError.notUnique() });
  }

  const passwordHash = await hashPassword(input.password);
  const now = nowString();
  const user: User = {
    id: newId(),
    email,
    password_hash: passwordHash,
    token_key: newSecret(),
    verified: 0,
    email_visibility: input.emailVisibility ? 1 : 0,
    is_initial_user: invite.bootstrap,
    invite_code: formatInviteCode(code),
    invited_by: invite.owner_id,
    verification_sent_at: null,
    reset_sent_at: null,
    created: now,
    updated: now,
  };

  try {
    await ctx.db.transaction().execute(async (trx) => {
      const consumed = await trx
        .updateTable('invite_codes')
        .set({ used_at: now, used_by: user.id })
        .where('id', '=', invite.id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (Number(consumed.numUpdatedRows) !== 1) {
        throw badRequest(CREATE_FAILED, { inviteCode: fieldError.invalidInviteCode() });
      }
      await trx.insertInto('users').values(user).execute();
      await createInviteCodes(trx, user.id, ctx.config.invitesPerUser);
    });
  } catch (error) {
    // Lost a race on the same email (or, for the bootstrap code, on the one initial user).
    if (isUniqueViolation(error)) {
      if (user.is_initial_user && !(await findUserByEmail(ctx, email))) {
        throw badRequest(CREATE_FAILED, { inviteCode: fieldError.invalidInviteCode() });
      }
      throw badRequest(CREATE_FAILED, { email: fieldError.notUnique() });
    }
    throw error;
  }
  return user;
}

type MailKind = 'verification' | 'passwordReset';

/**
 * Queues a verification or password-reset mail for the account with this email, if it should get
 * one: it exists (and, for verification, is unverified) and was not sent one of this kind within
 * the throttle interval. The throttle is a conditional update in the database, so it holds
 * across restarts and instances. Says nothing about the outcome: the endpoints always answer 204.
 */
export async function requestMail(ctx: AppContext, kind: MailKind, email: string): Promise<void> {
  const column = kind === 'verification' ? 'verification_sent_at' : 'reset_sent_at';
  const queued = await ctx.db.transaction().execute(async (trx) => {
    const now = nowString();
    let update = trx
      .updateTable('users')
      .set({ [column]: now })
      .where('email', '=', normalizeEmail(email))
      .where((eb) =>
        eb.or([eb(column, 'is', null), eb(column, '<=', fromNow(-RESEND_THROTTLE_MS))]),
      );
    if (kind === 'verification') update = update.where('verified', '=', 0);
    const throttled = await update.returningAll().executeTakeFirst();
    if (!throttled) return false;
    await queueAccountMail(ctx, trx, kind, throttled);
    return true;
  });
  if (queued) ctx.mailQueued();
}

async function queueAccountMail(
  ctx: AppContext,
  trx: Transaction<Database>,
  kind: MailKind,
  user: User,
): Promise<void> {
  const { appName, appUrl } = ctx.config;
  const token = ctx.tokens.sign(kind, user);
  const content =
    kind === 'verification'
      ? verificationMail(appName, appUrl, token)
      : passwordResetMail(appName, appUrl, token);
  await enqueueMail(trx, { ...content, to: user.email, userId: user.id });
}

/**
 * The user a verification or reset token belongs to, when the token is live: right type,
 * signature, not expired, and still addressed to the account's current email.
 */
async function userForToken(
  ctx: AppContext,
  token: string,
  type: MailKind,
): Promise<User | undefined> {
  const claims = Tokens.decode(token);
  if (!claims || claims.type !== type) return undefined;
  const user = await findUserById(ctx, claims.id);
  if (!user || claims.email !== user.email || !ctx.tokens.verify(token, type, user)) {
    return undefined;
  }
  return user;
}

export async function confirmVerification(ctx: AppContext, token: string): Promise<void> {
  if (token === '') throw badRequest(VALIDATION_FAILED, { token: fieldError.required() });
  if (!Tokens.isJwt(token)) {
    throw badRequest(VALIDATION_FAILED, { token: fieldError.invalidTokenClaims() });
  }
  const user = await userForToken(ctx, token, 'verification');
  if (!user) throw badRequest(VALIDATION_FAILED, { token: fieldError.invalidToken() });
  if (user.verified === 1) return;
  await ctx.db
    .updateTable('users')
    .set({ verified: 1, updated: nowString() })
    .where('id', '=', user.id)
    .execute();
}

/**
 * Sets a new password from a reset token. The tokenKey rotates in the same update (guarded by the
 * old key), so every session and outstanding token dies, this reset token included, and two
 * uses of one token cannot both succeed. An unverified account becomes verified: the mail reached
 * its owner.
 */
export async function confirmPasswordReset(
  ctx: AppContext,
  input: { token: string; password: string; passwordConfirm: string },
): Promise<void> {
  const errors: FieldErrors = {};
  let user: User | undefined;
  if (input.token === '') errors.token = fieldError.required();
  else {
    user = await userForToken(ctx, input.token, 'passwordReset');
    if (!user) errors.token = fieldError.invalidToken();
  }
  if (input.password === '') errors.password = fieldError.required();
  else {
    const passwordError = resetPasswordError(input.password);
    if (passwordError) errors.password = passwordError;
  }
  if (input.passwordConfirm === '') errors.passwordConfirm = fieldError.required();
  else if (input.passwordConfirm !== input.password) {
    errors.passwordConfirm = fieldError.mismatch();
  }
  assertNoFieldErrors(errors, VALIDATION_FAILED);
  if (!user) throw badRequest(VALIDATION_FAILED, { token: fieldError.invalidToken() });

  const passwordHash = await hashPassword(input.password);
  const changed = await ctx.db
    .updateTable('users')
    .set({
      password_hash: passwordHash,
      token_key: newSecret(),
      verified: 1,
      updated: nowString(),
    })
    .where('id', '=', user.id)
    .where('token_key', '=', user.token_key)
    .where('email', '=', user.email)
    .executeTakeFirst();
  if (Number(changed.numUpdatedRows) !== 1) {
    throw badRequest(VALIDATION_FAILED, { token: fieldError.invalidToken() });
  }
}

/** Deletes the account, its invite codes and its queued mail. People it invited are unaffected. */
export async function deleteAccount(ctx: AppContext, userId: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('outbox').where('user_id', '=', userId).execute();
    await trx.deleteFrom('invite_codes').where('owner_id', '=', userId).execute();
    await trx.deleteFrom('users').where('id', '=', userId).execute();
  });
}
