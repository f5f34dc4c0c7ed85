import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type Provider from 'oidc-provider';
import type { Database } from '../db/schema.js';
import { nowString } from '../tools/time.js';

/**
 * The provider's sessions end with the Gatehouse sessions they were opened on. When a member signs
 * in to an app, the provider's session (its own cookie) is linked to the Gatehouse session the web
 * app used: a row of model `SessionLink` in `oidc_records` (id: the provider session's uid,
 * session_id: the Gatehouse session). When that session ends (signed out, signed out everywhere,
 * the member disabled or deleted; core/sessions.ts's endSessions announces it), the provider's
 * session goes too: every app it signed the member in to gets a back-channel logout, and what the
 * provider issued under it (grants, codes, tokens) is revoked. A session that reached its absolute
 * end, which nothing announces, and an event an instance missed are caught by the job
 * `oidc_sessions_cleanup` (routes.ts, docs/decisions/0063).
 *
 * Several instances may hear the same event: each link is claimed by deleting it, and only the
 * instance whose delete removed it sends the logouts.
 */

type Db = Kysely<Database>;

const LINK = 'SessionLink';

/** Links the provider session `uid` to the Gatehouse session `sessionId` of `userId`. */
export async function linkSession(
  db: Db,
  link: { uid: string; sessionId: string; userId: string; expiresAt: number },
): Promise<void> {
  const row = {
    payload: '{}',
    session_id: link.sessionId,
    account_id: link.userId,
    expires_at: link.expiresAt,
  };
  await db
    .insertInto('oidc_records')
    .values({
      model: LINK,
      id: link.uid,
      ...row,
      grant_id: null,
      uid: link.uid,
      client_id: null,
      consumed_at: null,
    })
    .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet(row))
    .execute();
}

/**
 * The links whose Gatehouse session ended (gone, past its absolute end, or its member disabled;
 * of `userId`, or of anyone): claimed (deleted) and returned as the provider session uids to end.
 */
async function claimEndedLinks(db: Db, userId?: string): Promise<string[]> {
  let query = db
    .deleteFrom('oidc_records')
    .where('model', '=', LINK)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('sessions')
            .innerJoin('users', 'users.id', 'sessions.user_id')
            .select('sessions.id')
            .whereRef('sessions.id', '=', 'oidc_records.session_id')
            .where('sessions.expires', '>', nowString())
            .where('users.disabled', '=', 0),
        ),
      ),
    );
  if (userId) query = query.where('account_id', '=', userId);
  const rows = await query.returning('id').execute();
  return rows.map((r) => r.id);
}

interface Authorization {
  sid?: string;
  grantId?: string;
}

/**
 * Ends the provider sessions whose Gatehouse session ended: a back-channel logout to each app the
 * session signed in to (that asked for one), then the session, its grants and their tokens go.
 * Returns how many provider sessions ended. `provider` is asked for only when there is one.
 */
export async function endProviderSessions(
  db: Db,
  provider: () => Promise<Provider>,
  log: Logger,
  userId?: string,
): Promise<number> {
  const uids = await claimEndedLinks(db, userId);
  for (const uid of uids) {
    const rows = await db
      .deleteFrom('oidc_records')
      .where('model', '=', 'Session')
      .where('uid', '=', uid)
      .returning(['payload', 'account_id'])
      .execute();
    for (const row of rows) {
      const payload = JSON.parse(row.payload) as {
        accountId?: string;
        authorizations?: Record<string, Authorization>;
      };
      const accountId = payload.accountId ?? row.account_id;
      for (const [clientId, authorization] of Object.entries(payload.authorizations ?? {})) {
        if (authorization.grantId) await revokeGrant(db, authorization.grantId);
        if (accountId && authorization.sid) {
          await backchannelLogout(await provider(), log, clientId, accountId, authorization.sid);
        }
      }
    }
  }
  return uids.length;
}

async function revokeGrant(db: Db, grantId: string): Promise<void> {
  await db
    .deleteFrom('oidc_records')
    .where((eb) =>
      eb.or([
        eb('grant_id', '=', grantId),
        eb.and([eb('model', '=', 'Grant'), eb('id', '=', grantId)]),
      ]),
    )
    .execute();
}

/** Tells the app the member's session with it ended (when it gave a back-channel logout URI). */
export async function backchannelLogout(
  provider: Provider,
  log: Logger,
  clientId: string,
  accountId: string,
  sid: string,
): Promise<void> {
  try {
    const client = await provider.Client.find(clientId);
    if (!client?.backchannelLogoutUri) return;
    await client.backchannelLogout(accountId, sid);
  } catch (err) {
    log.warn({ err: String(err), clientId }, 'back-channel logout not delivered');
  }
}

/**
 * A member's connected app revoked (Settings → Connected Apps): the app gets a back-channel logout
 * for each of the member's provider sessions that signed in to it, and everything issued to it
 * for the member (grants, codes, tokens) goes.
 */
export async function logoutApp(
  db: Db,
  provider: () => Promise<Provider>,
  log: Logger,
  userId: string,
  clientId: string,
): Promise<void> {
  const sessions = await db
    .selectFrom('oidc_records')
    .select('payload')
    .where('model', '=', 'Session')
    .where('account_id', '=', userId)
    .execute();
  await db
    .deleteFrom('oidc_records')
    .where('account_id', '=', userId)
    .where('client_id', '=', clientId)
    .execute();
  for (const row of sessions) {
    const payload = JSON.parse(row.payload) as { authorizations?: Record<string, Authorization> };
    const authorization = payload.authorizations?.[clientId];
    if (authorization?.grantId) await revokeGrant(db, authorization.grantId);
    if (authorization?.sid) {
      await backchannelLogout(await provider(), log, clientId, userId, authorization.sid);
    }
  }
}
