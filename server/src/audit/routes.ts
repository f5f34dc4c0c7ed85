import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as C from '../../../contract/audit.js';
import type { AppContext } from '../core/context.js';
import { requireUser } from '../http/auth.js';
import { listQuery } from '../http/list.js';
import { memberEvents } from './queries.js';

/** The member's own security events, in PocketBase's list shape (contract/audit.ts). */
export function auditRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    api.get('/api/gatehouse/security-events', { schema: C.securityEvents }, async (request) => {
      const user = await requireUser(ctx, request);
      return memberEvents(ctx, user.id, listQuery(request.query));
    });
  };
}
