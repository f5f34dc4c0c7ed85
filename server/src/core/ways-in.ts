import type { Kysely, Transaction } from 'kysely';
import { databaseKind } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { ValidationError } from './errors.js';

/**
 * A member always keeps a way to sign in: their own password, a passkey or a connected provider.
 * Removing the last one (disconnecting the provider an account was made with, removing the only
 * passkey of an account without a password) is refused with this message.
 */
export const LAST_WAY_IN =
  'This is your only way to sign in. Set a password (Forgot password on the login screen) or connect another way first.';

/** How many ways the member has to sign in: their password (1 or 0), passkeys and providers. */
export async function waysIn(db: Kysely<Database>, userId: string): Promise<number> {
  const [user, passkeys, providers] = await Promise.all([
    db.selectFrom('users').select('password_set').where('id', '=', userId).executeTakeFirst(),
    countOf(db, 'passkeys', userId),
    countOf(db, 'external_auths', userId),
  ]);
  return (user?.password_set === 1 ? 1 : 0) + passkeys + providers;
}

/**
 * Runs `remove` (which deletes one way in) inside `trx`, then refuses, rolling it back, when no
 * way in is left (with `refusal`: the member's own message by default, an operator's otherwise). The member's row is locked first on PostgreSQL, so two removals at once (two
 * tabs, two instances) cannot each see the other's way in and both go through; on SQLite the
 * transaction already has the database to itself.
 */
export async function removeWayIn<T>(
  trx: Transaction<Database>,
  userId: string,
  remove: () => Promise<T>,
  refusal: string = LAST_WAY_IN,
): Promise<T> {
  if (databaseKind(trx) === 'postgres') {
    await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
  }
  const result = await remove();
  if ((await waysIn(trx, userId)) === 0) throw new ValidationError(refusal);
  return result;
}

async function countOf(
  db: Kysely<Database>,
  table: 'passkeys' | 'external_auths',
  userId: string,
): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** What removeTwoStepAndPasskeys took away. */
export interface RemovedSecondFactors {
  passkeys: number;
  /** Whether two-step sign-in was on (a setup never finished does not count). */
  twoStep: boolean;
}

/**
 * Removes the member's passkeys and two-step sign-in: the seed (on or only being set up), recovery
 * codes, passkey registrations under way and sign-ins waiting for their second step. Keeps the
 * password and connected providers. Used by removeWaysInBesidesPassword and by an operator's reset
 * of a member who lost their phone and recovery codes.
 */
export async function removeTwoStepAndPasskeys(
  trx: Transaction<Database>,
  userId: string,
): Promise<RemovedSecondFactors> {
  const count = (result: { numDeletedRows: bigint }) => Number(result.numDeletedRows);
  const passkeys = count(
    await trx.deleteFrom('passkeys').where('user_id', '=', userId).executeTakeFirst(),
  );
  await trx.deleteFrom('passkey_challenges').where('user_id', '=', userId).execute();
  const twoStep = count(
    await trx
      .deleteFrom('two_step')
      .where('user_id', '=', userId)
      .where('enabled', '=', 1)
      .executeTakeFirst(),
  );
  await trx.deleteFrom('two_step').where('user_id', '=', userId).execute();
  await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await trx.deleteFrom('mfa_challenges').where('user_id', '=', userId).execute();
  return { passkeys, twoStep: twoStep > 0 };
}

/** What removeWaysInBesidesPassword took away. */
export interface RemovedWaysIn extends RemovedSecondFactors {
  providers: number;
}

/**
 * Removes every way in but the password: passkeys, connected providers, two-step sign-in (seed and
 * recovery codes) and sign-ins waiting for their second step. Used when an unverified account is
 * verified by a password reset: whatever was added before anyone proved they own the address may
 * be someone else's pre-claim, so only the mailbox owner's new password is left.
 */
export async function removeWaysInBesidesPassword(
  trx: Transaction<Database>,
  userId: string,
): Promise<RemovedWaysIn> {
  const removed = await removeTwoStepAndPasskeys(trx, userId);
  const providers = Number(
    (await trx.deleteFrom('external_auths').where('user_id', '=', userId).executeTakeFirst())
      .numDeletedRows,
  );
  return { ...removed, providers };
}
