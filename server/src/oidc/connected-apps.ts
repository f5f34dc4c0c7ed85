import type { ConnectedApp } from '../../../contract/oidc.js';
import type { AppContext } from '../core/context.js';
import { NotFoundError } from '../core/errors.js';
import type { OidcProvider } from './provider.js';
import { logoutApp } from './sessions.js';

/**
 * Settings → Connected Apps: the apps a member agreed to share with (the consent screen's
 * remembered answers), and taking that back.
 */

export async function connectedApps(ctx: AppContext, userId: string): Promise<ConnectedApp[]> {
  const rows = await ctx.db
    .selectFrom('oidc_consents')
    .innerJoin('oidc_clients', 'oidc_clients.id', 'oidc_consents.client_id')
    .select([
      'oidc_clients.id',
      'oidc_clients.name',
      'oidc_consents.scope',
      'oidc_consents.created',
      'oidc_consents.last_used',
    ])
    .where('oidc_consents.user_id', '=', userId)
    .orderBy('oidc_clients.name')
    .orderBy('oidc_clients.id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    scopes: r.scope.split(' ').filter(Boolean),
    created: r.created,
    lastUsed: r.last_used,
  }));
}

/**
 * Stops sharing with the app: the remembered consent goes, the app gets a back-channel logout for
 * the member, and its grants and tokens for them end. Next time it asks again.
 */
export async function revokeConnectedApp(
  ctx: AppContext,
  oidc: OidcProvider,
  userId: string,
  clientId: string,
): Promise<void> {
  const result = await ctx.db
    .deleteFrom('oidc_consents')
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw new NotFoundError();
  await logoutApp(ctx.db, () => oidc.provider(), ctx.log, userId, clientId);
}
