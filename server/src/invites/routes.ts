import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { requireUser } from '../http/auth.js';
import { forbidden } from '../http/errors.js';
import { LIMITS } from '../http/rate-limit.js';
import { createInviteCodes, GENERATE_BATCH, listInviteCodes } from './service.js';

const codeSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, code: { type: 'string' }, created: { type: 'string' } },
} as const;

export function inviteRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    app.get(
      '/api/invite-codes',
      {
        schema: {
          response: {
            200: {
              type: 'object',
              properties: { codes: { type: 'array', items: codeSchema } },
            },
          },
        },
      },
      async (request) => {
        const user = await requireUser(ctx, request);
        // An unverified account can not keep a session: its token opens no invite endpoint.
        if (user.verified !== 1) throw forbidden();
        return { codes: await listInviteCodes(ctx, user.id) };
      },
    );

    app.post('/api/invite-codes/generate', async (request) => {
      const user = await requireUser(ctx, request);
      if (user.is_initial_user !== 1) {
        throw forbidden('Only the initial user can generate unlimited invite codes.');
      }
      if (user.verified !== 1) throw forbidden();
      await ctx.limiter.check(LIMITS.generate, user.id);
      const codes = await createInviteCodes(ctx.db, user.id, GENERATE_BATCH);
      return { generated: codes.length, codes };
    });
  };
}
