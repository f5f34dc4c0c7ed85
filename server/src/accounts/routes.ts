import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext, Client } from '../core/context.js';
import { ForbiddenError, NotFoundError } from '../core/errors.js';
import { userRecord } from '../core/users.js';
import { authUser, requireUser } from '../http/auth.js';
import { readBody } from '../http/body.js';
import { deleteAccount } from './delete-account.js';
import { confirmPasswordReset } from './password-reset.js';
import { requestAccountMail, settleAccountMail } from './request-mail.js';
import { signInWithPassword } from './sign-in.js';
import { signUp } from './sign-up.js';
import { confirmVerification } from './verification.js';

const client = (request: FastifyRequest): Client => ({
  ip: request.ip,
  userAgent: request.headers['user-agent'] ?? '',
});

/**
 * The users collection's PocketBase-shaped endpoints. Each reads its body and hands it to its
 * action, which owns the checks, limits and rules.
 */
export function accountRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    // Mail requests finish their work after answering: let it end before the database closes.
    app.addHook('onClose', () => settleAccountMail(ctx));

    app.post('/api/collections/users/auth-with-password', async (request) => {
      const body = readBody(request.body, { identity: 'string', password: 'string' });
      const user = await signInWithPassword(ctx, body, client(request));
      return {
        token: ctx.tokens.sign('auth', user),
        record: userRecord(user, { withEmail: true }),
      };
    });

    app.post('/api/collections/users/auth-refresh', async (request) => {
      const user = await requireUser(ctx, request);
      return {
        token: ctx.tokens.sign('auth', user),
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

    app.get<{ Params: { id: string } }>('/api/collections/users/records/:id', async (request) => {
      const user = await authUser(ctx, request);
      if (!user || user.id !== request.params.id) throw new NotFoundError();
      return userRecord(user, { withEmail: true });
    });

    app.delete<{ Params: { id: string } }>(
      '/api/collections/users/records/:id',
      async (request, reply) => {
        const user = await authUser(ctx, request);
        if (!user || user.id !== request.params.id) throw new NotFoundError();
        await deleteAccount(ctx, user.id);
        return reply.code(204).send();
      },
    );

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
