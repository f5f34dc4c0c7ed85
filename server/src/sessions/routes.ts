import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../core/context.js';
import { fieldError, NotFoundError, VALIDATION_FAILED, ValidationError } from '../core/errors.js';
import { confirmSession, freshUntil, type Proof } from '../core/reauth.js';
import { endSessions, listSessions } from '../core/sessions.js';
import { inTransaction } from '../core/transaction.js';
import { requireAuth, requireFreshAuth } from '../http/auth.js';
import { readBody } from '../http/body.js';
import { clientOf } from '../http/client.js';
import { formatDate } from '../tools/time.js';

/**
 * The member's signed-in devices (list them, end one, end all others, log out of this one) and
 * "Confirm it's you" for this one (core/reauth.ts), with the proofs the features offer.
 */
export function sessionRoutes(ctx: AppContext, proofs: Proof[]) {
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
        const only = request.params.id;
        const ended = await inTransaction(ctx, (work) =>
          endSessions(work, user.id, { only }, () => ({
            type: 'session_ended',
            client: clientOf(request),
            detail: { session: only },
          })),
        );
        if (ended === 0) throw new NotFoundError();
        return reply.code(204).send();
      },
    );

    // Ending every other device hands this one the account: it needs a fresh session.
    app.delete('/api/gatehouse/sessions', async (request, reply) => {
      const { user, session } = await requireFreshAuth(ctx, request);
      await inTransaction(ctx, (work) =>
        endSessions(work, user.id, { keep: session.id }, (count) => ({
          type: 'sessions_ended',
          client: clientOf(request),
          detail: { count },
        })),
      );
      return reply.code(204).send();
    });

    app.post('/api/gatehouse/logout', async (request, reply) => {
      const { user, session } = await requireAuth(ctx, request);
      await inTransaction(ctx, (work) =>
        endSessions(work, user.id, { only: session.id }, () => ({
          type: 'signed_out',
          client: clientOf(request),
        })),
      );
      return reply.code(204).send();
    });

    // Whether this session is fresh, and the proofs this member can give to make it so.
    app.get('/api/gatehouse/reauth', async (request) => {
      const { user, session } = await requireAuth(ctx, request);
      const until = freshUntil(ctx, session);
      const methods: string[] = [];
      for (const proof of proofs) {
        if (await proof.available(ctx, user)) methods.push(proof.field);
      }
      return {
        fresh: until > Date.now(),
        freshUntil: until > 0 ? formatDate(new Date(until)) : '',
        methods,
      };
    });

    // One proof: `password`, `code` (authenticator or recovery code) or `response` (a passkey).
    app.post('/api/gatehouse/reauth', async (request) => {
      const auth = await requireAuth(ctx, request);
      const body = readBody(request.body, {
        password: 'string',
        code: 'string',
        response: 'object',
      });
      const given = proofs.filter((p) => body[p.field] !== undefined && body[p.field] !== '');
      if (given.length !== 1) {
        const field = given[1]?.field ?? proofs.find((p) => body[p.field] === '')?.field;
        throw new ValidationError(
          VALIDATION_FAILED,
          given.length > 1
            ? { [field!]: { code: 'validation_one_proof', message: 'Give one proof at a time.' } }
            : { [field ?? 'password']: fieldError.required() },
        );
      }
      const proof = given[0]!;
      await proof.check(ctx, auth.user, body[proof.field], clientOf(request));
      const method = proof.field === 'response' ? 'passkey' : proof.field;
      const until = await confirmSession(ctx, auth, clientOf(request), method);
      return { fresh: true, freshUntil: formatDate(new Date(until)) };
    });
  };
}
