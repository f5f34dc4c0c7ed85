import type { AppContext } from '../core/context.js';
import { fieldError, VALIDATION_FAILED, ValidationError } from '../core/errors.js';
import type { Database } from '../db/schema.js';
import { newId } from '../tools/random.js';
import { fromNow, nowString } from '../tools/time.js';
import type { Kysely } from 'kysely';

/**
 * WebAuthn challenges, kept in the database so that any instance can check the answer: each lives
 * 5 minutes and is used up by the first response that names it, right or wrong. A response is
 * matched to its challenge by the challenge inside its signed clientDataJSON.
 */

export const CHALLENGE_LIFETIME_MS = 5 * 60_000;

type Kind = 'registration' | 'authentication';

/** The relying party: RP id and origin come from APP_URL. */
export function relyingParty(ctx: AppContext) {
  const url = new URL(ctx.config.appUrl);
  return { rpID: url.hostname, origin: url.origin, rpName: ctx.config.appName };
}

export const invalidResponse = () =>
  new ValidationError(VALIDATION_FAILED, { response: fieldError.invalidPasskey() });

export async function storeChallenge(
  ctx: AppContext,
  challenge: string,
  kind: Kind,
  userId: string | null,
): Promise<void> {
  await ctx.db
    .insertInto('passkey_challenges')
    .values({
      id: newId(),
      challenge,
      kind,
      user_id: userId,
      expires: fromNow(CHALLENGE_LIFETIME_MS),
    })
    .execute();
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
