import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../core/context.js';
import { ForbiddenError } from '../core/errors.js';
import type { Limit } from '../core/rate-limit.js';
import { requireUser } from '../http/auth.js';
import { createInviteCodes, GENERATE_BATCH, listInviteCodes } from './service.js';

/** Generation by the initial user: 10 presses a minute. */
const GENERATE_LIMIT: Limit = { name: 'generate', max: 10, windowMs: 60_000 };

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
        if (user.verified !== 1) throw new ForbiddenError();
        return { codes: await listInviteCodes(ctx, user.id) };
      },
    );

    app.post('/api/invite-codes/generate', async (request) => {
      const user = await requireUser(ctx, request);
      if (user.is_initial_user !== 1) {
        throw new ForbiddenError('Only the initial user can generate unlimited invite codes.');
      }
      if (user.verified !== 1) throw new ForbiddenError();
      await ctx.limiter.check(GENERATE_LIMIT, user.id);
      const codes = await createInviteCodes(ctx.db, user.id, GENERATE_BATCH);
      return { generated: codes.length, codes };
    });
  };
}
