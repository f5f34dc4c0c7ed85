import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../core/context.js';
import { ForbiddenError, NotFoundError } from '../core/errors.js';
import { sessionToken, touchSession } from '../core/sessions.js';
import { signIn } from '../core/sign-in.js';
import { userRecord } from '../core/users.js';
import { assertFresh } from '../core/reauth.js';
import { requestAuth, requireAuth, requireFreshUser } from '../http/auth.js';
import { readBody } from '../http/body.js';
import { clientOf as client } from '../http/client.js';
import { confirmEmailChange, requestEmailChange } from './change-email.js';
import { deviceCookieOf, rememberDevice } from './device-cookie.js';
import { updateOwnRecord } from './change-password.js';
import { deleteAccount } from './delete-account.js';
import { confirmPasswordReset } from './password-reset.js';
import { requestAccountMail, settleAccountMail } from './request-mail.js';
import { signInWithPassword } from './sign-in.js';
import { signUp } from './sign-up.js';
import { exportData } from './export.js';
import { confirmVerification } from './verification.js';

/** The header that carries a fresh token after a password change (the SDK ignores it). */
export const TOKEN_HEADER = 'x-gatehouse-token';

/**
 * The users collection's PocketBase-shaped endpoints. Each reads its body and hands it to its
 * action, which owns the checks, limits and rules.
 */
export function accountRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    // Mail requests finish their work after answering: let it end before the database closes.
    app.addHook('onClose', () => settleAccountMail(ctx));

    // A completed sign-in gives the browser a device cookie: later, the per-email failure ceiling
    // does not hold it (accounts/device-cookie.ts).
    app.post('/api/collections/users/auth-with-password', async (request, reply) => {
      const body = readBody(request.body, { identity: 'string', password: 'string' });
      const user = await signInWithPassword(ctx, body, client(request), deviceCookieOf(request));
      return rememberDevice(ctx, reply, user, {
        token: await signIn(ctx, user, client(request), 'password'),
        record: userRecord(user, { withEmail: true }),
      });
    });

    // Keeps the session (moving its last seen) and hands out a fresh token for it.
    app.post('/api/collections/users/auth-refresh', async (request) => {
      const { user, session } = await requireAuth(ctx, request);
      await touchSession(ctx, session.id, client(request));
      return {
        token: sessionToken(ctx, user, session),
        record: userRecord(user, { withEmail: true }),
      };
    });

    app.post('/api/collections/users/records', async (request) => {
      const body = readBody(request.body, {
        email: 'string',
        password: 'string',
        passwordConfirm: 'string',
        inviteCode: 'string',
        emailVisibility: 'boolean',
        verified: 'boolean',
      });
      const user = await signUp(ctx, body, client(request));
      return userRecord(user, { withEmail: false });
    });

    app.get('/api/collections/users/records', async () => {
      throw new ForbiddenError('Only superusers can perform this action.');
    });

    /** The caller's own record; anyone else's, or a guest's request, is a 404. */
    const ownRecord = async (request: FastifyRequest<{ Params: { id: string } }>) => {
      const auth = await requestAuth(ctx, request);
      if (!auth || auth.user.id !== request.params.id) throw new NotFoundError();
      return auth;
    };

    app.get<{ Params: { id: string } }>('/api/collections/users/records/:id', async (request) => {
      const { user } = await ownRecord(request);
      return userRecord(user, { withEmail: true });
    });

    app.patch<{ Params: { id: string } }>(
      '/api/collections/users/records/:id',
      async (request, reply) => {
        const auth = await ownRecord(request);
        const body = readBody(request.body, {
          oldPassword: 'string',
          password: 'string',
          passwordConfirm: 'string',
          emailVisibility: 'boolean',
        });
        const { user, token } = await updateOwnRecord(ctx, auth, body, client(request));
        if (token) reply.header(TOKEN_HEADER, token);
        return userRecord(user, { withEmail: true });
      },
    );

    app.delete<{ Params: { id: string } }>(
      '/api/collections/users/records/:id',
      async (request, reply) => {
        const { user } = assertFresh(ctx, await ownRecord(request));
        await deleteAccount(ctx, user.id, client(request));
        return reply.code(204).send();
      },
    );

    app.post('/api/collections/users/request-email-change', async (request, reply) => {
      const user = await requireFreshUser(ctx, request);
      const body = readBody(request.body, { newEmail: 'string' });
      await requestEmailChange(ctx, user, body, client(request));
      return reply.code(204).send();
    });

    app.post('/api/collections/users/confirm-email-change', async (request, reply) => {
      const body = readBody(request.body, { token: 'string', password: 'string' });
      await confirmEmailChange(ctx, body, client(request));
      return reply.code(204).send();
    });

    app.get('/api/gatehouse/export', async (request, reply) => {
      const user = await requireFreshUser(ctx, request);
      const data = await exportData(ctx, user);
      reply.header(
        'content-disposition',
        `attachment; filename="gatehouse-export-${user.id}.json"`,
      );
      return data;
    });

    for (const [path, kind] of [
      ['request-verification', 'verification'],
      ['request-password-reset', 'passwordReset'],
    ] as const) {
      app.post(`/api/collections/users/${path}`, async (request, reply) => {
        const { email } = readBody(request.body, { email: 'string' });
        await requestAccountMail(ctx, kind, email, client(request));
        return reply.code(204).send();
      });
    }

    app.post('/api/collections/users/confirm-verification', async (request, reply) => {
      const body = readBody(request.body, { token: 'string' });
      await confirmVerification(ctx, body, client(request));
      return reply.code(204).send();
    });

    app.post('/api/collections/users/confirm-password-reset', async (request, reply) => {
      const body = readBody(request.body, {
        token: 'string',
        password: 'string',
        passwordConfirm: 'string',
      });
      await confirmPasswordReset(ctx, body, client(request));
      return reply.code(204).send();
    });
  };
}
