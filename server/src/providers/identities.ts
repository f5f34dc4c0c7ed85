import type { Kysely, Transaction } from 'kysely';
import { queueNotice } from '../accounts/service.js';
import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import type { Database, ExternalAuth, User } from '../db/schema.js';
import { newId } from '../tools/random.js';
import { nowString } from '../tools/time.js';

/**
 * Provider identities (PocketBase's external auths): one row links a member to their id at one
 * provider. A member has at most one identity per provider, an identity at most one member (both
 * unique indexes), so a link that loses a race fails with a unique violation.
 */

type Db = Kysely<Database> | Transaction<Database>;

export function findIdentity(
  db: Db,
  provider: string,
  providerId: string,
): Promise<ExternalAuth | undefined> {
  return db
    .selectFrom('external_auths')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_id', '=', providerId)
    .executeTakeFirst();
}

/** The member's linked identities, oldest first. */
export function identitiesOf(db: Db, userId: string): Promise<ExternalAuth[]> {
  return db
    .selectFrom('external_auths')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created')
    .orderBy('id')
    .execute();
}

/**
 * Links the identity to the member inside `trx`: the row, the security event and the notice mail
 * ("{Provider} was connected"), so a link nobody asked for never goes unnoticed. The caller wakes
 * the mail worker after the commit.
 */
export async function linkIdentity(
  ctx: AppContext,
  trx: Transaction<Database>,
  user: Pick<User, 'id' | 'email' | 'language'>,
  identity: { provider: string; displayName: string; providerId: string },
  client: Client,
  how: 'sign_up' | 'email' | 'connect',
): Promise<void> {
  await trx
    .insertInto('external_auths')
    .values({
      id: newId(),
      user_id: user.id,
      provider: identity.provider,
      provider_id: identity.providerId,
      created: nowString(),
    })
    .execute();
  await recordEvent(trx, {
    type: 'provider_linked',
    userId: user.id,
    client,
    detail: { provider: identity.provider, how },
  });
  if (how === 'sign_up') return;
  const { appName } = ctx.settings;
  await queueNotice(ctx, trx, user, client, {
    kind: 'providerConnected',
    en: {
      subject: `${identity.displayName} was connected to your ${appName} account`,
      what: `${identity.displayName} was connected to your ${appName} account: it can now sign you in without the password.`,
    },
    de: {
      subject: `${identity.displayName} wurde mit Ihrem Konto bei ${appName} verbunden`,
      what: `${identity.displayName} wurde mit Ihrem Konto bei ${appName} verbunden: Damit können Sie sich jetzt ohne das Passwort anmelden.`,
    },
  });
}
