import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../core/context.js';
import { signIn } from '../core/sign-in.js';
import { userRecord } from '../core/users.js';
import { ForbiddenError, VERIFY_EMAIL_FIRST } from '../core/errors.js';
import { requireFreshUser, requireUser } from '../http/auth.js';
import { readBody } from '../http/body.js';
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

/** Passkeys (WebAuthn): the member's list and registration, and sign-in with one. */
export function passkeyRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    app.get('/api/gatehouse/passkeys', async (request) => {
      const user = await requireUser(ctx, request);
      return { items: (await listPasskeys(ctx, user.id)).map(passkeyView) };
    });

    // A new way in: a fresh session and a verified address (docs/decisions/0046).
    app.post('/api/gatehouse/passkeys/options', async (request) => {
      const user = await requireFreshUser(ctx, request);
      if (user.verified !== 1) throw new ForbiddenError(VERIFY_EMAIL_FIRST);
      return registrationOptions(ctx, user);
    });

    // "Confirm it's you" with a passkey: options offering the member's own passkeys.
    app.post('/api/gatehouse/reauth/passkey-options', async (request) => {
      return reauthOptions(ctx, await requireUser(ctx, request), client(request));
    });

    app.post('/api/gatehouse/passkeys', async (request) => {
      const user = await requireUser(ctx, request);
      const body = readBody(request.body, { name: 'string', response: 'object' });
      return addPasskey(ctx, user, body, client(request));
    });

    app.patch<{ Params: { id: string } }>('/api/gatehouse/passkeys/:id', async (request) => {
      const user = await requireUser(ctx, request);
      const body = readBody(request.body, { name: 'string' });
      return renamePasskey(ctx, user, request.params.id, body, client(request));
    });

    app.delete<{ Params: { id: string } }>(
      '/api/gatehouse/passkeys/:id',
      async (request, reply) => {
        const user = await requireUser(ctx, request);
        await removePasskey(ctx, user, request.params.id, client(request));
        return reply.code(204).send();
      },
    );

    app.post('/api/gatehouse/passkey-login/options', async (request) => {
      return loginOptions(ctx, client(request));
    });

    app.post('/api/gatehouse/auth-with-passkey', async (request) => {
      const body = readBody(request.body, { response: 'object' });
      const user = await signInWithPasskey(ctx, body, client(request));
      return {
        token: await signIn(ctx, user, client(request), 'passkey'),
        record: userRecord(user, { withEmail: true }),
      };
    });
  };
}
