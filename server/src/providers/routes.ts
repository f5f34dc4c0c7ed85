import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as C from '../../../contract/providers.js';
import { SIGN_IN_CODE_LIFETIME_MS } from '../accounts/service.js';
import type { AppContext } from '../core/context.js';
import { MFA_LIFETIME_MS } from '../core/second-step.js';
import { confirmSession } from '../core/reauth.js';
import { sessionToken } from '../core/sessions.js';
import { signIn } from '../core/sign-in.js';
import { userRecord } from '../core/users.js';
import { requestAuth, requireFreshUser, requireUser } from '../http/auth.js';
import { clientOf as client } from '../http/client.js';
import { type AuthMethodProvider, ProviderClients } from './clients.js';
import { disconnectProvider, listProviders } from './manage.js';
import { signInWithProvider } from './sign-in.js';

/**
 * Sign-in with a provider in PocketBase's wire format (auth-methods, auth-with-oauth2), and the
 * member's connected providers (Settings' Connected Accounts). Each route's schema
 * (contract/providers.ts) reads its body and shapes its answer.
 */
export function providerRoutes(ctx: AppContext) {
  const clients = new ProviderClients(ctx.config.providers, ctx.config.providerTimeoutMs, ctx.log);
  clients.warm();
  return async (app: FastifyInstance) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    api.get('/api/collections/users/auth-methods', { schema: C.authMethods }, async () => {
      // A provider whose metadata cannot be had now is left out, as PocketBase does.
      const providers = (
        await Promise.all(
          clients.providers.map((p) =>
            clients.authMethod(p).catch((err: unknown) => {
              ctx.log.warn({ provider: p.name, err: String(err) }, 'provider left out');
              return undefined;
            }),
          ),
        )
      ).filter((p): p is AuthMethodProvider => p !== undefined);
      return {
        password: { enabled: true, identityFields: ['email'] },
        oauth2: { enabled: clients.providers.length > 0, providers },
        mfa: { enabled: true, duration: MFA_LIFETIME_MS / 1000 },
        otp: { enabled: true, duration: SIGN_IN_CODE_LIFETIME_MS / 1000 },
      };
    });

    api.post(
      '/api/collections/users/auth-with-oauth2',
      { schema: C.authWithOAuth2 },
      async (request) => {
        const auth = await requestAuth(ctx, request);
        const result = await signInWithProvider(ctx, clients, request.body, client(request), auth);
        let token: string;
        if (result.connected && auth) {
          if (result.reauthenticated) await confirmSession(ctx, auth, client(request), 'oauth2');
          token = sessionToken(ctx, auth.user, auth.session);
        } else token = await signIn(ctx, result.user, client(request), 'oauth2');
        const p = result.providerUser;
        return {
          token,
          record: userRecord(result.user, { withEmail: true }),
          // PocketBase's meta, without the provider's tokens: Gatehouse never acts on the
          // member's behalf at the provider, so they are not handed to the browser.
          meta: {
            id: p.id,
            name: p.name,
            username: p.username,
            email: p.email,
            avatarURL: p.avatarURL,
            accessToken: '',
            refreshToken: '',
            expiry: '',
            rawUser: p.rawUser,
            isNew: result.isNew,
          },
        };
      },
    );

    api.get('/api/gatehouse/providers', { schema: C.connected }, async (request) => {
      return listProviders(ctx, clients, await requireUser(ctx, request));
    });

    api.delete(
      '/api/gatehouse/providers/:name',
      { schema: C.disconnect },
      async (request, reply) => {
        const user = await requireFreshUser(ctx, request);
        await disconnectProvider(ctx, user, request.params.name, client(request));
        return reply.code(204).send(null);
      },
    );
  };
}
