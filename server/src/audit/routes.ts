import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../core/context.js';
import { requireUser } from '../http/auth.js';
import { listQuery } from '../http/list.js';
import { memberEvents } from './queries.js';

/** The member's own security events, in PocketBase's list shape. */
export function auditRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    app.get('/api/gatehouse/security-events', async (request) => {
      const user = await requireUser(ctx, request);
      return memberEvents(ctx, user.id, listQuery(request.query));
    });
  };
}
