import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { authUser, requireUser } from '../http/auth.js';
import { readBody } from '../http/body.js';
import {
  ApiError,
  assertNoFieldErrors,
  badRequest,
  fieldError,
  type FieldErrors,
  notFound,
  VALIDATION_FAILED,
} from '../http/errors.js';
import { LIMITS } from '../http/rate-limit.js';
import { normalizeEmail, userRecord } from './records.js';
import {
  authenticate,
  confirmPasswordReset,
  confirmVerification,
  deleteAccount,
  emailFieldErrors,
  requestMail,
  signUp,
} from './service.js';

/** The users collection's PocketBase-shaped endpoints that the product uses. */
export function accountRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const { limiter } = ctx;
    const ip = (request: FastifyRequest) => request.ip;

    app.post('/api/collections/users/auth-with-password', async (request) => {
      await limiter.check(LIMITS.login, ip(request));
      const body = readBody(request.body, { identity: 'string', password: 'string' });
      const errors: FieldErrors = {};
      if (body.identity.trim() === '') errors.identity = fieldError.required();
      if (body.password === '') errors.password = fieldError.required();
      assertNoFieldErrors(errors, VALIDATION_FAILED);
      await limiter.check(LIMITS.loginPerEmail, normalizeEmail(body.identity));

      const user = await authenticate(ctx, body.identity, body.password);
      if (!user) throw badRequest('Failed to authenticate.');
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
      await limiter.check(LIMITS.signUp, ip(request));
      const body = readBody(request.body, {
        email: 'string',
        password: 'string',
        passwordConfirm: 'string',
        inviteCode: 'string',
        emailVisibility: 'boolean',
        verified: 'boolean',
      });
      const user = await signUp(ctx, body);
      return userRecord(user, { withEmail: false });
    });

    app.get('/api/collections/users/records', async () => {
      throw new ApiError(403, 'Only superusers can perform this action.');
    });

    app.get<{ Params: { id: string } }>('/api/collections/users/records/:id', async (request) => {
      const user = await authUser(ctx, request);
      if (!user || user.id !== request.params.id) throw notFound();
      return userRecord(user, { withEmail: true });
    });

    app.delete<{ Params: { id: string } }>(
      '/api/collections/users/records/:id',
      async (request, reply) => {
        const user = await authUser(ctx, request);
        if (!user || user.id !== request.params.id) throw notFound();
        await deleteAccount(ctx, user.id);
        return reply.code(204).send();
      },
    );

    for (const [path, kind] of [
      ['request-verification', 'verification'],
      ['request-password-reset', 'passwordReset'],
    ] as const) {
      app.post(`/api/collections/users/${path}`, async (request, reply) => {
        await limiter.check(LIMITS.requestMail, ip(request));
        const { email } = readBody(request.body, { email: 'string' });
        assertNoFieldErrors(emailFieldErrors(email), VALIDATION_FAILED);
        await requestMail(ctx, kind, email);
        return reply.code(204).send();
      });
    }

    app.post('/api/collections/users/confirm-verification', async (request, reply) => {
      await limiter.check(LIMITS.confirm, ip(request));
      const { token } = readBody(request.body, { token: 'string' });
      await confirmVerification(ctx, token.trim());
      return reply.code(204).send();
    });

    app.post('/api/collections/users/confirm-password-reset', async (request, reply) => {
      await limiter.check(LIMITS.confirm, ip(request));
      const body = readBody(request.body, {
        token: 'string',
        password: 'string',
        passwordConfirm: 'string',
      });
      await confirmPasswordReset(ctx, { ...body, token: body.token.trim() });
      return reply.code(204).send();
    });
  };
}
