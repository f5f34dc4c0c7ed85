import type { FastifyInstance, FastifyRequest } from 'fastify';
import { allEvents } from '../audit/queries.js';
import type { AppContext } from '../core/context.js';
import { ForbiddenError, NotFoundError } from '../core/errors.js';
import { isOperator } from '../core/users.js';
import type { User } from '../db/schema.js';
import { assertFresh } from '../core/reauth.js';
import { requireAuth, requireUser } from '../http/auth.js';
import { readBody } from '../http/body.js';
import { clientOf } from '../http/client.js';
import { listAnswer, listQuery } from '../http/list.js';
import { composeMail } from '../mail/compose.js';
import { enqueueMail, listQueuedMail, mailStats, retryMailNow } from '../mail/outbox.js';
import {
  deleteMember,
  disableMember,
  enableMember,
  giveCodes,
  readCodeCount,
  recordOperatorAction,
  resendVerification,
  resetTwoStep,
  revokeCode,
  setOperator,
} from './actions.js';
import { listMembers, memberDetail, memberFilter, memberJson } from './members.js';
import { inviteTree, readTreeQuery } from './tree.js';

type WithId = FastifyRequest<{ Params: { id: string } }>;

/** The signed-in operator: guests get 401, members who are not operators 403. */
async function requireOperator(ctx: AppContext, request: FastifyRequest): Promise<User> {
  const user = await requireUser(ctx, request);
  if (!isOperator(user)) throw new ForbiddenError();
  return user;
}

/**
 * The signed-in operator on a fresh session, for every action that changes another member
 * (docs/decisions/0046): outside the window, 403 `Confirm it's you to continue.`
 */
async function requireFreshOperator(ctx: AppContext, request: FastifyRequest): Promise<User> {
  const user = await requireOperator(ctx, request);
  assertFresh(ctx, await requireAuth(ctx, request));
  return user;
}

/** The operator console's API (/api/admin/*) and the member's own role (/api/gatehouse/me). */
export function adminRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    // Whether to show Admin: the record JSON stays PocketBase's, the role is asked for here.
    app.get('/api/gatehouse/me', async (request) => {
      const user = await requireUser(ctx, request);
      return {
        id: user.id,
        email: user.email,
        isInitialUser: user.is_initial_user === 1,
        isOperator: isOperator(user),
      };
    });

    app.get('/api/admin/members', async (request) => {
      await requireOperator(ctx, request);
      return listMembers(ctx, memberFilter(request.query), listQuery(request.query));
    });

    app.get('/api/admin/members/:id', async (request: WithId) => {
      await requireOperator(ctx, request);
      return memberDetail(ctx, request.params.id);
    });

    app.post('/api/admin/members/:id/disable', async (request: WithId) => {
      const op = await requireFreshOperator(ctx, request);
      return memberJson(await disableMember(ctx, request.params.id, op.id, clientOf(request)));
    });

    app.post('/api/admin/members/:id/enable', async (request: WithId) => {
      const op = await requireFreshOperator(ctx, request);
      return memberJson(await enableMember(ctx, request.params.id, op.id, clientOf(request)));
    });

    for (const method of ['POST', 'DELETE'] as const) {
      app.route({
        method,
        url: '/api/admin/members/:id/operator',
        handler: async (request: WithId) => {
          const op = await requireFreshOperator(ctx, request);
          if (op.is_initial_user !== 1) {
            throw new ForbiddenError('Only the initial user can make or remove operators.');
          }
          const member = await setOperator(
            ctx,
            request.params.id,
            method === 'POST',
            op.id,
            clientOf(request),
          );
          return memberJson(member);
        },
      });
    }

    app.post('/api/admin/members/:id/invites', async (request: WithId) => {
      const op = await requireFreshOperator(ctx, request);
      const count = readCodeCount(request.body);
      const codes = await giveCodes(ctx, request.params.id, count, op.id, clientOf(request));
      return { codes };
    });

    app.post('/api/admin/members/:id/resend-verification', async (request: WithId, reply) => {
      const op = await requireOperator(ctx, request);
      await resendVerification(ctx, request.params.id, op.id, clientOf(request));
      return reply.code(204).send();
    });

    app.post('/api/admin/members/:id/reset-two-step', async (request: WithId) => {
      const op = await requireFreshOperator(ctx, request);
      const { member } = await resetTwoStep(ctx, request.params.id, op.id, clientOf(request));
      return memberJson(member);
    });

    app.delete('/api/admin/members/:id', async (request: WithId, reply) => {
      const op = await requireFreshOperator(ctx, request);
      await deleteMember(ctx, request.params.id, op.id, clientOf(request));
      return reply.code(204).send();
    });

    app.delete('/api/admin/invite-codes/:id', async (request: WithId, reply) => {
      const op = await requireFreshOperator(ctx, request);
      await revokeCode(ctx, request.params.id, op.id, clientOf(request));
      return reply.code(204).send();
    });

    app.get('/api/admin/invite-tree', async (request) => {
      await requireOperator(ctx, request);
      return inviteTree(ctx, readTreeQuery(request.query));
    });

    app.get('/api/admin/outbox', async (request) => {
      await requireOperator(ctx, request);
      const list = listQuery(request.query);
      const [items, stats] = await Promise.all([
        listQueuedMail(ctx.db, { limit: list.perPage, offset: (list.page - 1) * list.perPage }),
        mailStats(ctx.db),
      ]);
      return { ...listAnswer(list, items, list.skipTotal ? undefined : stats.queued), stats };
    });

    app.post('/api/admin/outbox/:id/retry', async (request: WithId, reply) => {
      const op = await requireOperator(ctx, request);
      const mail = await retryMailNow(ctx.db, request.params.id);
      if (!mail) throw new NotFoundError();
      await recordOperatorAction(ctx, 'admin_mail_retry', mail.userId, op.id, clientOf(request), {
        mail: request.params.id,
      });
      ctx.mailQueued();
      return reply.code(204).send();
    });

    app.post('/api/admin/test-mail', async (request, reply) => {
      const op = await requireOperator(ctx, request);
      readBody(request.body, {});
      const { appName, appUrl } = ctx.config;
      const content = composeMail({
        appName,
        subject: `${appName} test email`,
        intro: `This is a test email from ${appName}, sent from the operator console. Mail is being delivered.`,
        action: `Open ${appName}`,
        link: `${appUrl}/`,
        outro: 'Nothing to do: you asked for this email.',
      });
      await enqueueMail(ctx.db, { ...content, to: op.email, userId: op.id, kind: 'testMail' });
      await recordOperatorAction(ctx, 'admin_test_mail', op.id, op.id, clientOf(request));
      ctx.mailQueued();
      return reply.code(204).send();
    });

    app.get('/api/admin/security-events', async (request) => {
      await requireOperator(ctx, request);
      const query = (request.query ?? {}) as Record<string, unknown>;
      const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
      return allEvents(
        ctx,
        { member: text(query.member), type: text(query.type) },
        listQuery(request.query),
      );
    });
  };
}
