import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import * as OTPAuth from 'otpauth';
import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import { TooManyRequestsError } from '../core/errors.js';
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

/** Recovery codes are compared without case, spaces or dashes, hashed with the member's id. */
function recoveryHash(userId: string, code: string): string {
  const normalized = cleanCode(code).toLowerCase();
  return createHash('sha256').update(`${userId}:${normalized}`).digest('base64url');
}

/** Replaces the member's recovery codes with ten new ones; returns them (shown once). */
export async function replaceRecoveryCodes(db: Db, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const created = nowString();
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await db
    .insertInto('recovery_codes')
    .values(
      codes.map((code) => ({
        id: newId(),
        user_id: userId,
        code_hash: recoveryHash(userId, code),
        used_at: null,
        created,
      })),
    )
    .execute();
  return codes;
}

/** Uses one of the member's unused recovery codes; false when it is not one. */
export async function useRecoveryCode(db: Db, userId: string, code: string): Promise<boolean> {
  const clean = cleanCode(code);
  if (clean.length === 0 || clean.length > 64) return false;
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: nowString() })
    .where('user_id', '=', userId)
    .where('code_hash', '=', recoveryHash(userId, clean))
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
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

/** 429 while the member's second step is locked. */
export function assertNotLocked(row: TwoStep | undefined): void {
  if (row?.locked_until && row.locked_until > nowString()) throw new TooManyRequestsError();
}

/**
 * Counts a wrong code. The fifth in a row locks the member's second step for 15 minutes (kept in
 * the database, so it holds on every instance) and starts the count again.
 */
export async function countFailure(ctx: AppContext, userId: string, client: Client): Promise<void> {
  await ctx.db
    .updateTable('two_step')
    .set((eb) => ({ failures: eb('failures', '+', 1) }))
    .where('user_id', '=', userId)
    .execute();
  const locked = await ctx.db
    .updateTable('two_step')
    .set({ failures: 0, locked_until: fromNow(LOCK_MS), updated: nowString() })
    .where('user_id', '=', userId)
    .where('failures', '>=', MAX_FAILURES)
    .executeTakeFirst();
  if (Number(locked.numUpdatedRows) === 1) {
    await recordEvent(ctx.db, {
      type: 'second_step_locked',
      userId,
      client,
      outcome: 'failure',
      detail: { minutes: LOCK_MS / 60_000 },
    });
  }
}
