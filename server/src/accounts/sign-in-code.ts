import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  assertNoFieldErrors,
  fieldError,
  type FieldErrors,
  VALIDATION_FAILED,
  ValidationError,
} from '../core/errors.js';
import type { Limit } from '../core/rate-limit.js';
import { endSessions } from '../core/sessions.js';
import { inTransaction, type Work } from '../core/transaction.js';
import { findUserById } from '../core/users.js';
import { databaseKind } from '../db/connect.js';
import type { Database, EmailCode, User } from '../db/schema.js';
import { HttpError } from '../http/envelope.js';
import { enqueueMail } from '../mail/service.js';
import { isEmail, normalizeEmail } from '../tools/email.js';
import { newId, newSecret, randomString } from '../tools/random.js';
import { formatDate, nowString } from '../tools/time.js';
import { confirmedByCodeNotice, signInCodeMail } from './mails.js';
import { queueNotice } from './notices.js';
import { hashPassword } from './passwords.js';
import { afterAnswer } from './request-mail.js';

/**
 * Sign-in with a code sent by email: PocketBase's OTP (request-otp, auth-with-otp), with its
 * defaults: 8 digits, 3 minutes, 5 attempts. The code is a first factor (it proves the mailbox):
 * the sign-in gate (core/sign-in.ts) then asks for the second step when two-step sign-in is on.
 * Invite-only holds: a code is only ever sent to an account that exists.
 */

/** PocketBase's `otp.length` default. */
export const CODE_LENGTH = 8;
/** PocketBase's `otp.duration` default (180 s). */
export const CODE_LIFETIME_MS = 3 * 60_000;
/** Attempts at one code (PocketBase: 5 per record and 180 s); the sixth is refused with 429. */
export const CODE_MAX_ATTEMPTS = 5;
/** Live codes per member: past this, a request sends no new code (PocketBase reuses its last). */
export const MAX_LIVE_CODES = 10;

/** PocketBase's answer to a code that is unknown, expired, used or wrong (400, no field errors). */
export const CODE_INVALID = 'Invalid or expired OTP.';
/** PocketBase's answer once a code's attempts are spent (429). */
export const CODE_ATTEMPTS_SPENT = 'Too many attempts, please try again later with a new OTP.';

/**
 * The abuse limits of sign-in codes (besides the attempts per code, kept in the database): per
 * client network, per address asked for (whether or not it has an account, so the 429 tells
 * nothing), and wrong codes per member, counted before the code is checked and taken back when
 * it is right, as sign-in failures are (accounts/sign-in.ts).
 */
export const SIGN_IN_CODE_LIMITS = {
  request: { name: 'otp-request', max: 5, windowMs: 60_000 },
  requestPerEmail: { name: 'otp-request-email', max: 5, windowMs: 15 * 60_000, per: 'account' },
  signIn: { name: 'otp-login', max: 10, windowMs: 60_000 },
  failuresPerMember: { name: 'otp-fail', max: 10, windowMs: 15 * 60_000, per: 'account' },
} satisfies Record<string, Limit>;

const DIGITS = '0123456789';
/** The keyed digest's purpose (core/secret-box.ts): a digest made for anything else never matches. */
const DIGEST_PURPOSE = 'sign-in-code';

/** The stored form of a code: a keyed digest over its otpId and itself. */
const codeHash = (ctx: AppContext, otpId: string, code: string) =>
  ctx.box.digest(`${otpId}\n${code}`, DIGEST_PURPOSE);

/**
 * request-otp: checks the email field and the limits, and answers an `otpId` at once, for any
 * address (unknown, disabled or not): only after the answer is the account looked up and, when
 * there is one that may sign in, the code stored and its mail queued (sendCode). So neither the
 * answer nor its timing says whether the address has an account (docs/decisions/0019).
 */
export async function requestSignInCode(
  ctx: AppContext,
  email: string,
  client: Client,
): Promise<{ otpId: string }> {
  await ctx.limiter.check(SIGN_IN_CODE_LIMITS.request, client.network);
  const errors: FieldErrors = {};
  if (email.trim() === '') errors.email = fieldError.required();
  else if (!isEmail(email)) errors.email = fieldError.isEmail();
  assertNoFieldErrors(errors, VALIDATION_FAILED);
  const address = normalizeEmail(email);
  await ctx.limiter.check(SIGN_IN_CODE_LIMITS.requestPerEmail, address);
  const otpId = newId();
  afterAnswer(ctx, () => sendCode(ctx, otpId, address, client));
  return { otpId };
}

/**
 * Stores a new code under `otpId` for the account of `email` and queues its mail (expiring with
 * the code), in one transaction; nothing for an unknown or disabled address, or a member with
 * MAX_LIVE_CODES live codes already.
 */
async function sendCode(ctx: AppContext, otpId: string, email: string, client: Client) {
  const code = randomString(CODE_LENGTH, DIGITS);
  await inTransaction(ctx, async ({ trx, mailQueued }) => {
    const user = await trx
      .selectFrom('users')
      .select(['id', 'disabled', 'language'])
      .where('email', '=', email)
      .executeTakeFirst();
    if (!user || user.disabled === 1) return;
    const now = new Date();
    await trx
      .deleteFrom('email_codes')
      .where('user_id', '=', user.id)
      .where('expires', '<=', formatDate(now))
      .execute();
    const live = await trx
      .selectFrom('email_codes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    if (Number(live.n) >= MAX_LIVE_CODES) {
      ctx.log.warn({ userId: user.id }, 'sign-in code not sent: too many live codes');
      return;
    }
    const expires = new Date(now.getTime() + CODE_LIFETIME_MS);
    await trx
      .insertInto('email_codes')
      .values({
        id: otpId,
        user_id: user.id,
        email,
        code_hash: codeHash(ctx, otpId, code),
        created: formatDate(now),
        expires: formatDate(expires),
      })
      .execute();
    const mail = signInCodeMail(
      user.language,
      ctx.settings.appName,
      code,
      CODE_LIFETIME_MS / 60_000,
    );
    await enqueueMail(trx, {
      ...mail,
      to: email,
      userId: user.id,
      kind: 'signInCode',
      expiresAt: expires,
    });
    await recordEvent(trx, { type: 'otp_requested', userId: user.id, client, detail: { otpId } });
    mailQueued();
  });
}

/**
 * auth-with-otp: the `otpId` and its code (sent as `password`, PocketBase's name) return the
 * member, for the sign-in gate. Unknown, expired, used and wrong codes get the same 400, as do
 * codes sent to an address the account no longer has. Each attempt is counted on the code before
 * it is checked (the sixth gets 429, even with the right code) and on the member's failure limit
 * (taken back when it is right). A right code is used up; on an unverified account it proves the
 * mailbox, as a verifying password reset does (verifyByCode).
 */
export async function signInWithCode(
  ctx: AppContext,
  input: { otpId: string; password: string },
  client: Client,
): Promise<User> {
  await ctx.limiter.check(SIGN_IN_CODE_LIMITS.signIn, client.network);
  const errors: FieldErrors = {};
  // PocketBase's rules: both required, at most 255 and 71 characters.
  if (input.otpId === '') errors.otpId = fieldError.required();
  else if ([...input.otpId].length > 255) errors.otpId = fieldError.lengthOutOfRange(1, 255);
  if (input.password === '') errors.password = fieldError.required();
  else if ([...input.password].length > 71) errors.password = fieldError.lengthOutOfRange(1, 71);
  assertNoFieldErrors(errors, VALIDATION_FAILED);

  const refuse = async (reason: string, userId: string | null): Promise<never> => {
    await recordEvent(ctx.db, {
      type: 'sign_in',
      userId,
      client,
      outcome: 'failure',
      detail: { method: 'otp', reason, ...(userId ? { otpId: input.otpId } : {}) },
    });
    throw new ValidationError(CODE_INVALID);
  };

  const row = await ctx.db
    .selectFrom('email_codes')
    .selectAll()
    .where('id', '=', input.otpId)
    .executeTakeFirst();
  if (!row) return refuse('unknown_code', null);
  if (row.expires <= nowString()) return refuse('expired_code', row.user_id);
  const user = await findUserById(ctx, row.user_id);
  if (!user || user.email !== row.email) return refuse('email_changed', row.user_id);

  const takeBack = await ctx.limiter.attempt(SIGN_IN_CODE_LIMITS.failuresPerMember, user.id);
  const admitted = await ctx.db
    .updateTable('email_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', row.id)
    .where('attempts', '<', CODE_MAX_ATTEMPTS)
    .where('expires', '>', nowString())
    .executeTakeFirst();
  if (Number(admitted.numUpdatedRows) !== 1) {
    await takeBack(); // not checked: not a failure
    if (!(await liveCode(ctx, row.id))) return refuse('expired_code', user.id);
    await recordEvent(ctx.db, {
      type: 'sign_in',
      userId: user.id,
      client,
      outcome: 'failure',
      detail: { method: 'otp', reason: 'attempts_spent', otpId: row.id },
    });
    throw new HttpError(429, CODE_ATTEMPTS_SPENT);
  }
  if (!sameDigest(row.code_hash, codeHash(ctx, row.id, input.password))) {
    return refuse('wrong_code', user.id);
  }
  await takeBack();

  // Hashed outside the transaction (argon2 takes a while): the password that replaces an
  // unverified account's.
  const randomHash = user.verified === 1 ? undefined : await hashPassword(newSecret());
  const outcome = await inTransaction(ctx, async (work) => {
    const used = await work.trx
      .deleteFrom('email_codes')
      .where('id', '=', row.id)
      .executeTakeFirst();
    if (Number(used.numDeletedRows) !== 1) return 'used_code';
    let query = work.trx.selectFrom('users').selectAll().where('id', '=', user.id);
    if (databaseKind(work.trx) === 'postgres') query = query.forUpdate();
    const fresh = await query.executeTakeFirst();
    if (!fresh || fresh.email !== row.email) return 'email_changed';
    if (fresh.verified === 1 || fresh.disabled === 1) return fresh;
    return verifyByCode(ctx, work, fresh, randomHash ?? (await hashPassword(newSecret())), client);
  });
  // Used meanwhile by another request (nothing changed), or the address changed (the code is void).
  return typeof outcome === 'string' ? refuse(outcome, user.id) : outcome;
}

/** The code row while it is live (not used, not expired). */
async function liveCode(ctx: AppContext, otpId: string): Promise<EmailCode | undefined> {
  return ctx.db
    .selectFrom('email_codes')
    .selectAll()
    .where('id', '=', otpId)
    .where('expires', '>', nowString())
    .executeTakeFirst();
}

function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * A right code for an unverified account proves the mailbox (PocketBase verifies it too). Whoever
 * signed up with the address before its owner (a spare invite must not pre-claim it) loses every
 * way in they set: the passkeys, providers and two-step (ctx.waysIn.remove, as a verifying
 * password reset does) and the password, replaced by a random one as PocketBase does (the owner
 * signs in with codes, or chooses a password with Forgot password). The tokenKey rotates, every
 * session ends, and the notice mail says so, all in `work`'s transaction. Returns the member as
 * they are now (the new tokenKey signs the session the gate opens next).
 */
async function verifyByCode(
  ctx: AppContext,
  work: Work,
  user: User,
  randomHash: string,
  client: Client,
): Promise<User> {
  const { trx } = work;
  const changes = {
    verified: 1,
    password_hash: randomHash,
    password_set: 0,
    token_key: newSecret(),
    updated: nowString(),
  };
  await trx.updateTable('users').set(changes).where('id', '=', user.id).execute();
  work.publish({ type: 'user-changed', userId: user.id });
  const removed = await ctx.waysIn.remove(trx, user.id);
  await endSessions(work, user.id, {}, (ended) => ({
    type: 'email_verified',
    client,
    detail: {
      method: 'otp',
      sessionsEnded: ended,
      passwordRemoved: true,
      passkeysRemoved: removed.passkeys,
      providersRemoved: removed.providers,
      twoStepRemoved: removed.twoStep > 0,
    },
  }));
  await queueNotice(ctx, trx, user, client, confirmedByCodeNotice(ctx.settings.appName));
  work.mailQueued();
  return { ...user, ...changes };
}

/** Deletes codes past their end (housekeeping; they are refused anyway). */
export async function deleteExpiredSignInCodes(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('email_codes')
    .where('expires', '<=', nowString())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
