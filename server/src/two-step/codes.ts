import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import * as OTPAuth from 'otpauth';
import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import { TooManyRequestsError } from '../core/errors.js';
import type { SecretBox } from '../core/secret-box.js';
import type { Database, TwoStep } from '../db/schema.js';
import { newId, randomString } from '../tools/random.js';
import { fromNow, nowString } from '../tools/time.js';

/**
 * The codes of the second step: TOTP (RFC 6238: SHA-1, 6 digits, 30 s, ±1 step) from the
 * member's authenticator app, single-use recovery codes, and the lock-out after wrong ones.
 */

type Db = Kysely<Database> | Transaction<Database>;

export const PERIOD = 30;
export const DIGITS = 6;
/** Steps either side of now that are still accepted (clock drift, typing time). */
const WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
export const MAX_FAILURES = 5;
export const LOCK_MS = 15 * 60_000;

/** The TOTP of a base32 seed, labelled for the authenticator app. */
export function totpOf(secret: string, issuer: string, label: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD,
    secret: OTPAuth.Secret.fromBase32(secret),
  });
}

/** A new 160-bit seed, base32 (RFC 4226's recommended length). */
export function newTotpSecret(): string {
  return new OTPAuth.Secret({ size: 20 }).base32;
}

/** The code as typed: spaces and dashes dropped. */
export function cleanCode(code: string): string {
  return code.replace(/[\s-]/g, '');
}

export function looksLikeTotp(code: string): boolean {
  return new RegExp(`^\\d{${DIGITS}}$`).test(cleanCode(code));
}

/** The time step a right code belongs to, or undefined for a wrong one. */
export function totpStep(secret: string, code: string): number | undefined {
  const token = cleanCode(code);
  if (!looksLikeTotp(token)) return undefined;
  const totp = totpOf(secret, 'x', 'x');
  const now = Date.now();
  const delta = totp.validate({ token, timestamp: now, window: WINDOW });
  if (delta === null) return undefined;
  return Math.floor(now / 1000 / PERIOD) + delta;
}

/**
 * Accepts `step` for the member once: only when it is later than the last step accepted, so a
 * code (or an earlier one from its window) never works twice, on any instance.
 */
export async function acceptStep(db: Db, userId: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable('two_step')
    .set({ last_step: step, failures: 0, updated: nowString() })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

// ------------------------------------------------------------------------------ recovery codes

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** `xxxx-xxxx-xxxx`: 12 characters of a 31-letter alphabet (~59 bits), easy to read out. */
function newRecoveryCode(): string {
  return randomString(12, RECOVERY_ALPHABET).replace(/(.{4})(?=.)/g, '$1-');
}

/**
 * Stored recovery codes are keyed: `k1.` and the box's digest (HMAC-SHA256 under a key derived
 * from the token secrets, core/secret-box.ts) of the code's unkeyed hash, so a copy of the
 * database cannot check a guess. Codes made before were stored as the unkeyed hash alone; taking
 * the digest over it lets such a row be keyed without knowing its code (`keyOldRecoveryCodes`).
 */
const KEYED = 'k1.';
const DIGEST_PURPOSE = 'recovery-code';

/** SHA-256 of the member's id and the code (case, spaces and dashes dropped): the old stored form. */
function unkeyedHash(userId: string, code: string): string {
  const normalized = cleanCode(code).toLowerCase();
  return createHash('sha256').update(`${userId}:${normalized}`).digest('base64url');
}

const keyed = (box: SecretBox, unkeyed: string) => KEYED + box.digest(unkeyed, DIGEST_PURPOSE);

function recoveryHash(box: SecretBox, userId: string, code: string): string {
  return keyed(box, unkeyedHash(userId, code));
}

/** Replaces the member's recovery codes with ten new ones; returns them (shown once). */
export async function replaceRecoveryCodes(
  db: Db,
  box: SecretBox,
  userId: string,
): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const created = nowString();
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await db
    .insertInto('recovery_codes')
    .values(
      codes.map((code) => ({
        id: newId(),
        user_id: userId,
        code_hash: recoveryHash(box, userId, code),
        used_at: null,
        created,
      })),
    )
    .execute();
  return codes;
}

/**
 * Rewrites the member's recovery codes still stored unkeyed into the keyed form (each keeps
 * working). Done when the member next uses one; new codes replace them all.
 */
async function keyOldRecoveryCodes(db: Db, box: SecretBox, userId: string): Promise<void> {
  const old = await db
    .selectFrom('recovery_codes')
    .select(['id', 'code_hash'])
    .where('user_id', '=', userId)
    .where('code_hash', 'not like', `${KEYED}%`)
    .execute();
  for (const row of old) {
    await db
      .updateTable('recovery_codes')
      .set({ code_hash: keyed(box, row.code_hash) })
      .where('id', '=', row.id)
      .where('code_hash', '=', row.code_hash)
      .execute();
  }
}

/** Uses one of the member's unused recovery codes; false when it is not one. */
export async function useRecoveryCode(
  db: Db,
  box: SecretBox,
  userId: string,
  code: string,
): Promise<boolean> {
  const clean = cleanCode(code);
  if (clean.length === 0 || clean.length > 64) return false;
  await keyOldRecoveryCodes(db, box, userId);
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: nowString() })
    .where('user_id', '=', userId)
    .where('code_hash', '=', recoveryHash(box, userId, clean))
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Which kind of code a member typed: six digits are the app's, anything else a recovery code. */
export function codeMethod(code: string): 'totp' | 'recovery_code' {
  return looksLikeTotp(code) ? 'totp' : 'recovery_code';
}

/**
 * Spends `code` as the member's second step (a sign-in's, or "Confirm it's you"): a current
 * authenticator code whose time step was not used before, or an unused recovery code. False for
 * anything else; the caller has let the attempt through the lock first (admitAttempt).
 */
export async function spendCode(
  db: Db,
  box: SecretBox,
  row: Pick<TwoStep, 'user_id' | 'secret'>,
  code: string,
): Promise<boolean> {
  if (codeMethod(code) === 'recovery_code') return useRecoveryCode(db, box, row.user_id, code);
  const secret = row.secret ? box.open(row.secret, row.user_id) : undefined;
  const step = secret ? totpStep(secret, code) : undefined;
  return step !== undefined && (await acceptStep(db, row.user_id, step));
}

export async function unusedRecoveryCodes(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

// ------------------------------------------------------------------------------ state, lock-out

export function twoStepOf(db: Db, userId: string): Promise<TwoStep | undefined> {
  return db.selectFrom('two_step').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** An attempt at a code that `admitAttempt` let through. */
export interface Attempt {
  /** It was the last one allowed in a row: it started the lock (lifted again if it is right). */
  locked: boolean;
}

/**
 * Lets one attempt at a code through, before the code is checked: it is counted in advance, and
 * the fifth in a row starts the 15-minute lock (kept in the database, so it holds on every
 * instance) and starts the count again, in one conditional update. Parallel attempts therefore
 * queue on the member's row, and no more than five are ever checked; a locked member gets 429,
 * even for a right code. The code's outcome then settles the attempt: `clearFailures` when it was
 * right, `attemptFailed` otherwise.
 */
export async function admitAttempt(db: Db, userId: string): Promise<Attempt> {
  const now = nowString();
  const lockedUntil = fromNow(LOCK_MS);
  const row = await db
    .updateTable('two_step')
    .set((eb) => {
      const last = eb('failures', '>=', MAX_FAILURES - 1);
      return {
        failures: eb
          .case()
          .when(last)
          .then(0)
          .else(eb('failures', '+', 1))
          .end(),
        locked_until: eb.case().when(last).then(lockedUntil).else(null).end(),
        updated: now,
      };
    })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .returning('locked_until')
    .executeTakeFirst();
  if (!row) throw new TooManyRequestsError();
  return { locked: row.locked_until !== null };
}

/** A right code: the count starts again, and a lock this attempt started is lifted. */
export async function clearFailures(db: Db, userId: string, attempt: Attempt): Promise<void> {
  await db
    .updateTable('two_step')
    .set({ failures: 0, ...(attempt.locked ? { locked_until: null } : {}), updated: nowString() })
    .where('user_id', '=', userId)
    .execute();
}

/** A wrong code (or none checked): the attempt stays counted; a lock it started is logged. */
export async function attemptFailed(
  ctx: AppContext,
  userId: string,
  client: Client,
  attempt: Attempt,
): Promise<void> {
  if (!attempt.locked) return;
  await recordEvent(ctx.db, {
    type: 'second_step_locked',
    userId,
    client,
    outcome: 'failure',
    detail: { minutes: LOCK_MS / 60_000 },
  });
}
