import type { FastifyInstance } from 'fastify';
import { recordEvent } from '../core/audit.js';
import type { AppContext } from '../core/context.js';
import { NotFoundError } from '../core/errors.js';
import { endSession, endSessions, listSessions } from '../core/sessions.js';
import { requireAuth } from '../http/auth.js';
import { clientOf } from '../http/client.js';

/** The member's signed-in devices: list them, end one, end all others, log out of this one. */
export function sessionRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    app.get('/api/gatehouse/sessions', async (request) => {
      const { user, session: current } = await requireAuth(ctx, request);
      const sessions = await listSessions(ctx.db, user.id);
      return {
        items: sessions.map((s) => ({
          id: s.id,
          created: s.created,
          lastSeen: s.last_seen,
          ip: s.ip,
          userAgent: s.user_agent,
          current: s.id === current.id,
        })),
      };
    });

    app.delete<{ Params: { id: string } }>(
      '/api/gatehouse/sessions/:id',
      async (request, reply) => {
        const { user } = await requireAuth(ctx, request);
        const ended = await ctx.db.transaction().execute(async (trx) => {
          if (!(await endSession(trx, user.id, request.params.id))) return false;
          await recordEvent(trx, {
            type: 'session_ended',
            userId: user.id,
            client: clientOf(request),
            detail: { session: request.params.id },
          });
          return true;
        });
        if (!ended) throw new NotFoundError();
        ctx.events.publish({
          type: 'session-ended',
          userId: user.id,
          sessionId: request.params.id,
        });
        return reply.code(204).send();
      },
    );

    app.delete('/api/gatehouse/sessions', async (request, reply) => {
      const { user, session } = await requireAuth(ctx, request);
      await ctx.db.transaction().execute(async (trx) => {
        const count = await endSessions(trx, user.id, session.id);
        await recordEvent(trx, {
          type: 'sessions_ended',
          userId: user.id,
          client: clientOf(request),
          detail: { count },
        });
      });
      ctx.events.publish({ type: 'session-ended', userId: user.id, sessionId: null });
      return reply.code(204).send();
    });

    app.post('/api/gatehouse/logout', async (request, reply) => {
      const { user, session } = await requireAuth(ctx, request);
      await ctx.db.transaction().execute(async (trx) => {
        await endSession(trx, user.id, session.id);
        await recordEvent(trx, { type: 'signed_out', userId: user.id, client: clientOf(request) });
      });
      ctx.events.publish({ type: 'session-ended', userId: user.id, sessionId: session.id });
      return reply.code(204).send();
    });
  };
}
