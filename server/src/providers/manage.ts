import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import type { User } from '../db/schema.js';
import type { ProviderClients } from './clients.js';
import { identitiesOf } from './identities.js';

/**
 * The member's connected providers (Settings' Connected Accounts) and disconnecting one. A
 * provider is never the last way in: disconnecting is refused when the member has no password of
 * their own (an account made with a provider), no other provider and no passkey.
 */

export const LAST_WAY_IN =
  'This is your only way to sign in. Set a password (Forgot password on the login screen) or connect another way first.';

export async function listProviders(ctx: AppContext, clients: ProviderClients, user: User) {
  const identities = await identitiesOf(ctx.db, user.id);
  const others = await otherWaysIn(ctx, user);
  return {
    passwordSet: user.password_set === 1,
    items: identities.map((i) => ({
      name: i.provider,
      displayName: clients.find(i.provider)?.displayName ?? i.provider,
      created: i.created,
      // This one may go when something else still signs the member in.
      canDisconnect: others + identities.length - 1 > 0,
    })),
  };
}

export async function disconnectProvider(
  ctx: AppContext,
  user: User,
  name: string,
  client: Client,
): Promise<void> {
  const identities = await identitiesOf(ctx.db, user.id);
  const identity = identities.find((i) => i.provider === name);
  if (!identity) throw new NotFoundError();
  if ((await otherWaysIn(ctx, user)) + identities.length - 1 === 0) {
    throw new ValidationError(LAST_WAY_IN);
  }
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('external_auths').where('id', '=', identity.id).execute();
    await recordEvent(trx, {
      type: 'provider_unlinked',
      userId: user.id,
      client,
      detail: { provider: name },
    });
  });
}

/** Ways in besides providers: the member's own password (1) and their passkeys. */
async function otherWaysIn(ctx: AppContext, user: User): Promise<number> {
  const passkeys = await ctx.db
    .selectFrom('passkeys')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  return (user.password_set === 1 ? 1 : 0) + Number(passkeys?.n ?? 0);
}
