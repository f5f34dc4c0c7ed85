import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { recordEvent } from './audit.js';
import type { AppContext, Client } from './context.js';
import { SecondStepRequiredError } from './errors.js';
import { newId } from '../tools/random.js';
import { fromNow, nowString } from '../tools/time.js';

/**
 * The step between a right first factor (a password, a provider) and a session, for members with
 * a second step on (ctx.waysIn.secondStepRequired): the first step opens an `mfaId` (PocketBase's name) that lives 10
 * minutes, belongs to that member and serves one sign-in; `two-step/` completes it with a code.
 * Kept here, below the features, so that every way in can ask for it without depending on
 * `two-step/`.
 */

type Db = Kysely<Database> | Transaction<Database>;

export const MFA_LIFETIME_MS = 10 * 60_000;

/**
 * Opens the second step for a member whose first factor was right: an `mfaId` (PocketBase's name)
 * living 10 minutes, and the 401 that carries it. Called by the sign-in gate (core/sign-in.ts).
 */
export async function requireSecondStep(
  ctx: AppContext,
  userId: string,
  client: Client,
  method: string,
): Promise<never> {
  const id = newId();
  await ctx.db
    .insertInto('mfa_challenges')
    .values({ id, user_id: userId, created: nowString(), expires: fromNow(MFA_LIFETIME_MS) })
    .execute();
  await recordEvent(ctx.db, {
    type: 'second_step_required',
    userId,
    client,
    detail: { method },
  });
  throw new SecondStepRequiredError(id);
}

/** The member an `mfaId` belongs to, while it is live and unused. */
export async function mfaOwner(db: Db, mfaId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('mfa_challenges')
    .select('user_id')
    .where('id', '=', mfaId)
    .where('expires', '>', nowString())
    .executeTakeFirst();
  return row?.user_id;
}

/** Uses up an `mfaId`; false when it was already used (or has expired) meanwhile. */
export async function consumeMfa(db: Db, mfaId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('mfa_challenges')
    .where('id', '=', mfaId)
    .where('expires', '>', nowString())
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Deletes `mfaId`s past their end (housekeeping; they are refused anyway). */
export async function deleteExpiredMfa(db: Db): Promise<number> {
  const result = await db
    .deleteFrom('mfa_challenges')
    .where('expires', '<=', nowString())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
