import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import { NotFoundError } from '../core/errors.js';
import type { User } from '../db/schema.js';
import type { ProviderClients } from './clients.js';
import { identitiesOf } from './identities.js';

/**
 * The member's connected providers (Settings' Connected Accounts) and disconnecting one. A
 * provider is never the last way in (core/ways-in.ts): disconnecting is refused when the member
 * has no password of their own (an account made with a provider), no other provider and no passkey.
 */

export async function listProviders(ctx: AppContext, clients: ProviderClients, user: User) {
  const [identities, ways] = await Promise.all([
    identitiesOf(ctx.db, user.id),
    ctx.waysIn.count(ctx.db, user.id),
  ]);
  return {
    passwordSet: user.password_set === 1,
    items: identities.map((i) => ({
      name: i.provider,
      displayName: clients.find(i.provider)?.displayName ?? i.provider,
      created: i.created,
      // This one may go when something else still signs the member in.
      canDisconnect: ways > 1,
    })),
  };
}

export async function disconnectProvider(
  ctx: AppContext,
  user: User,
  name: string,
  client: Client,
): Promise<void> {
  const identity = (await identitiesOf(ctx.db, user.id)).find((i) => i.provider === name);
  if (!identity) throw new NotFoundError();
  await ctx.db.transaction().execute((trx) =>
    ctx.waysIn.keepOne(trx, user.id, async () => {
      const result = await trx
        .deleteFrom('external_auths')
        .where('id', '=', identity.id)
        .executeTakeFirst();
      // Disconnected meanwhile (another tab): gone all the same, and said once.
      if (Number(result.numDeletedRows) !== 1) throw new NotFoundError();
      await recordEvent(trx, {
        type: 'provider_unlinked',
        userId: user.id,
        client,
        detail: { provider: name },
      });
    }),
  );
}
