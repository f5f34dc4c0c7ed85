import type { AppContext } from '../core/context.js';
import { fieldError, VALIDATION_FAILED, ValidationError } from '../core/errors.js';
import { databaseKind } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { newId } from '../tools/random.js';
import { fromNow, nowString } from '../tools/time.js';
import type { Kysely } from 'kysely';

/**
 * WebAuthn challenges, kept in the database so that any instance can check the answer: each lives
 * 5 minutes and is used up by the first response that names it, right or wrong; a member holds at
 * most 5 live ones of a kind. A response is
 * matched to its challenge by the challenge inside its signed clientDataJSON.
 */

export const CHALLENGE_LIFETIME_MS = 5 * 60_000;

type Kind = 'registration' | 'authentication';

/**
 * The relying party: RP id and origin come from APP_URL (what the browser checks); its name, which
 * the browser shows, is the app's name in the settings.
 */
export function relyingParty(ctx: AppContext) {
  const url = new URL(ctx.config.appUrl);
  return { rpID: url.hostname, origin: url.origin, rpName: ctx.settings.appName };
}

export const invalidResponse = () =>
  new ValidationError(VALIDATION_FAILED, { response: fieldError.invalidPasskey() });

/**
 * How many live challenges of one kind a member may hold (options asked for again and again, in
 * several tabs): a new one first deletes the oldest beyond the newest four.
 */
export const MEMBER_CHALLENGES_MAX = 5;

/**
 * Stores a challenge. One bound to a member (registration options) takes the place of that
 * member's oldest of its kind beyond `MEMBER_CHALLENGES_MAX`, in one transaction that holds the
 * member's row on PostgreSQL (on SQLite the transaction has the database to itself), so parallel
 * requests cannot each see room and all add one. A guest's sign-in challenges are bounded by the
 * per-address limit instead.
 */
export async function storeChallenge(
  ctx: AppContext,
  challenge: string,
  kind: Kind,
  userId: string | null,
): Promise<void> {
  const row = {
    id: newId(),
    challenge,
    kind,
    user_id: userId,
    expires: fromNow(CHALLENGE_LIFETIME_MS),
  };
  if (userId === null) {
    await ctx.db.insertInto('passkey_challenges').values(row).execute();
    return;
  }
  await ctx.db.transaction().execute(async (trx) => {
    if (databaseKind(trx) === 'postgres') {
      await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
    }
    const newest = trx
      .selectFrom('passkey_challenges')
      .select('id')
      .where('user_id', '=', userId)
      .where('kind', '=', kind)
      .orderBy('expires', 'desc')
      .orderBy('id', 'desc')
      .limit(MEMBER_CHALLENGES_MAX - 1);
    await trx
      .deleteFrom('passkey_challenges')
      .where('user_id', '=', userId)
      .where('kind', '=', kind)
      .where('id', 'not in', newest)
      .execute();
    await trx.insertInto('passkey_challenges').values(row).execute();
  });
}

/** The challenge inside a response's clientDataJSON (base64url JSON), or undefined for garbage. */
export function challengeOf(response: Record<string, unknown>): string | undefined {
  const inner = response.response;
  if (!inner || typeof inner !== 'object') return undefined;
  const clientData = (inner as Record<string, unknown>).clientDataJSON;
  if (typeof clientData !== 'string' || clientData.length > 4096) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(clientData, 'base64url').toString('utf8')) as unknown;
    const challenge = (parsed as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === 'string' && challenge.length <= 512 ? challenge : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Uses up the live challenge of `kind` that the response names (for `userId`'s registration, or
 * any sign-in); 400 when there is none: unknown, expired, already used, another member's.
 */
export async function consumeChallenge(
  ctx: AppContext,
  response: Record<string, unknown>,
  kind: Kind,
  userId: string | null,
): Promise<string> {
  const challenge = challengeOf(response);
  if (!challenge) throw invalidResponse();
  let query = ctx.db
    .deleteFrom('passkey_challenges')
    .where('challenge', '=', challenge)
    .where('kind', '=', kind)
    .where('expires', '>', nowString());
  query = userId ? query.where('user_id', '=', userId) : query.where('user_id', 'is', null);
  const result = await query.executeTakeFirst();
  if (Number(result.numDeletedRows) !== 1) throw invalidResponse();
  return challenge;
}

/** Deletes challenges past their end (housekeeping; they are refused anyway). */
export async function deleteExpiredChallenges(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('passkey_challenges')
    .where('expires', '<=', nowString())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
