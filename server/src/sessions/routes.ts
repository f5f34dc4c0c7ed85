import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as C from '../../../contract/sessions.js';
import type { AppContext } from '../core/context.js';
import { fieldError, NotFoundError, VALIDATION_FAILED, ValidationError } from '../core/errors.js';
import { confirmSession, freshUntil, notWhileViewingAs, type Proof } from '../core/reauth.js';
import { endSessions, listSessions, viewingOperators } from '../core/sessions.js';
import { inTransaction } from '../core/transaction.js';
import { requireAuth, requireFreshAuth } from '../http/auth.js';
import { clientOf } from '../http/client.js';
import { formatDate } from '../tools/time.js';

/**
 * The member's signed-in devices (list them, end one, end all others, log out of this one) and
 * "Confirm it's you" for this one (core/reauth.ts), with the proofs the features offer. Each
 * route's schema is in contract/sessions.ts.
 */
export function sessionRoutes(ctx: AppContext, proofs: Proof[]) {
  return async (app: FastifyInstance) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/api/gatehouse/sessions', { schema: C.listSessions }, async (request) => {
      const { user, session: current } = await requireAuth(ctx, request);
      const sessions = await listSessions(ctx.db, user.id);
      const operators = await viewingOperators(ctx.db, sessions);
      return {
        items: sessions.map((s) => ({
          id: s.id,
          created: s.created,
          lastSeen: s.last_seen,
          ip: s.ip,
          userAgent: s.user_agent,
          current: s.id === current.id,
          viewedBy: s.impersonated_by ? (operators.get(s.impersonated_by) ?? '') : null,
        })),
      };
    });

    api.delete('/api/gatehouse/sessions/:id', { schema: C.endSession }, async (request, reply) => {
      const auth = await requireAuth(ctx, request);
      const { user } = auth;
      const only = request.params.id;
      // An operator viewing as the member does not sign out the member's devices.
      if (only !== auth.session.id) notWhileViewingAs(auth);
      const ended = await inTransaction(ctx, (work) =>
        endSessions(work, user.id, { only }, () => ({
          type: 'session_ended',
          client: clientOf(request),
          detail: { session: only },
        })),
      );
      if (ended === 0) throw new NotFoundError();
      return reply.code(204).send(null);
    });

    // Ending every other device hands this one the account: it needs a fresh session.
    api.delete(
      '/api/gatehouse/sessions',
      { schema: C.endOtherSessions },
      async (request, reply) => {
        const { user, session } = await requireFreshAuth(ctx, request);
        await inTransaction(ctx, (work) =>
          endSessions(work, user.id, { keep: session.id }, (count) => ({
            type: 'sessions_ended',
            client: clientOf(request),
            detail: { count },
          })),
        );
        return reply.code(204).send(null);
      },
    );

    // Log Out; for an operator viewing as a member, Stop (docs/decisions/0056): the member's log
    // says the view ended, not that they signed out.
    api.post('/api/gatehouse/logout', { schema: C.logout }, async (request, reply) => {
      const { user, session } = await requireAuth(ctx, request);
      const operator = session.impersonated_by;
      await inTransaction(ctx, (work) =>
        endSessions(work, user.id, { only: session.id }, () =>
          operator
            ? {
                type: 'admin_view_as_ended',
                client: clientOf(request),
                detail: { actor: operator, session: session.id },
              }
            : { type: 'signed_out', client: clientOf(request) },
        ),
      );
      return reply.code(204).send(null);
    });

    // Whether this session is fresh, and the proofs this member can give to make it so.
    api.get('/api/gatehouse/reauth', { schema: C.reauthStatus }, async (request) => {
      const { user, session } = await requireAuth(ctx, request);
      const until = freshUntil(ctx, session);
      const methods: Proof['field'][] = [];
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
    // An operator viewing as a member cannot prove to be them (and a wrong try would count
    // against the member's sign-in).
    api.post('/api/gatehouse/reauth', { schema: C.reauth }, async (request) => {
      const auth = notWhileViewingAs(await requireAuth(ctx, request));
      const body = request.body;
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
