import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as C from '../../../contract/passkeys.js';
import type { AppContext } from '../core/context.js';
import { signIn } from '../core/sign-in.js';
import { userRecord } from '../core/users.js';
import { ForbiddenError, VERIFY_EMAIL_FIRST } from '../core/errors.js';
import { requireFreshUser, requireOwnUser, requireUser } from '../http/auth.js';
import { clientOf as client } from '../http/client.js';
import {
  addPasskey,
  listPasskeys,
  passkeyView,
  registrationOptions,
  removePasskey,
  renamePasskey,
} from './manage.js';
import { loginOptions, reauthOptions, signInWithPasskey } from './sign-in.js';
import { relyingParty } from './challenges.js';

/**
 * Passkeys (WebAuthn): the member's list and registration, and sign-in with one. Each route's
 * schema (contract/passkeys.ts) reads its body and shapes its answer; the WebAuthn options go out
 * as the library makes them.
 */
export function passkeyRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    /**
     * Request options always name the relying party, though the library's type leaves `rpId`
     * optional. The contract requires it, as it does `challenge`: the serializer writes required
     * keys first, so only then does the library's JSON (`rpId` before `challenge`) go out unchanged.
     */
    const withRpId = <T extends { rpId?: string }>(options: T) => ({
      ...options,
      rpId: options.rpId ?? relyingParty(ctx).rpID,
    });

    api.get('/api/gatehouse/passkeys', { schema: C.list }, async (request) => {
      const user = await requireUser(ctx, request);
      return { items: (await listPasskeys(ctx, user.id)).map(passkeyView) };
    });

    // A new way in: a fresh session and a verified address (docs/decisions/0046).
    api.post(
      '/api/gatehouse/passkeys/options',
      { schema: C.registrationOptions },
      async (request) => {
        const user = await requireFreshUser(ctx, request);
        if (user.verified !== 1) throw new ForbiddenError(VERIFY_EMAIL_FIRST);
        return registrationOptions(ctx, user);
      },
    );

    // "Confirm it's you" with a passkey: options offering the member's own passkeys.
    api.post(
      '/api/gatehouse/reauth/passkey-options',
      { schema: C.reauthOptions },
      async (request) => {
        const user = await requireOwnUser(ctx, request);
        return withRpId(await reauthOptions(ctx, user, client(request)));
      },
    );

    api.post('/api/gatehouse/passkeys', { schema: C.add }, async (request) => {
      const user = await requireOwnUser(ctx, request);
      return addPasskey(ctx, user, request.body, client(request));
    });

    // Renaming or removing a passkey is the member's own (not an operator's viewing as them).
    api.patch('/api/gatehouse/passkeys/:id', { schema: C.rename }, async (request) => {
      const user = await requireOwnUser(ctx, request);
      return renamePasskey(ctx, user, request.params.id, request.body, client(request));
    });

    api.delete('/api/gatehouse/passkeys/:id', { schema: C.remove }, async (request, reply) => {
      const user = await requireOwnUser(ctx, request);
      await removePasskey(ctx, user, request.params.id, client(request));
      return reply.code(204).send(null);
    });

    api.post(
      '/api/gatehouse/passkey-login/options',
      { schema: C.loginOptions },
      async (request) => {
        return withRpId(await loginOptions(ctx, client(request)));
      },
    );

    api.post('/api/gatehouse/auth-with-passkey', { schema: C.authWithPasskey }, async (request) => {
      const user = await signInWithPasskey(ctx, request.body, client(request));
      return {
        token: await signIn(ctx, user, client(request), 'passkey'),
        record: userRecord(user, { withEmail: true }),
      };
    });
  };
}
