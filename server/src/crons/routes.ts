import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as C from '../../../contract/crons.js';
import type { AppContext } from '../core/context.js';
import type { Crons } from '../core/cron.js';
import { HttpError } from '../http/envelope.js';
import { requireSuperuser } from '../http/auth.js';

/**
 * PocketBase's crons API (apis/cron.go) for operators: the scheduled jobs, and running one now
 * (schemas in contract/crons.ts). The jobs themselves are registered at composition
 * (core/cron.ts, housekeeping.ts).
 */
export function cronRoutes(ctx: AppContext, crons: Crons) {
  return async (app: FastifyInstance) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/api/crons', { schema: C.listCrons }, async (request) => {
      await requireSuperuser(ctx, request);
      return crons.list();
    });

    api.post('/api/crons/:id', { schema: C.runCron }, async (request, reply) => {
      await requireSuperuser(ctx, request);
      if (!crons.runNow(request.params.id)) {
        throw new HttpError(404, 'Missing or invalid cron job.');
      }
      return reply.code(204).send(null);
    });
  };
}
