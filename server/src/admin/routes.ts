import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as C from '../../../contract/admin.js';
import { listRecords } from '../../../contract/accounts.js';
import * as Collections from '../../../contract/collections.js';
import { impersonate } from '../../../contract/impersonation.js';
import { operatorTestMail } from '../accounts/service.js';
import { allEvents } from '../audit/service.js';
import type { AppContext } from '../core/context.js';
import { ForbiddenError, NotFoundError, UnauthenticatedError } from '../core/errors.js';
import { findAuthByToken, isOperator } from '../core/users.js';
import type { User } from '../db/schema.js';
import { assertFresh } from '../core/reauth.js';
import { authUser, requireAuth, requireUser } from '../http/auth.js';
import { clientOf } from '../http/client.js';
import { listAnswer, listQuery } from '../http/list.js';
import { enqueueMail, listQueuedMail, mailStats, retryMailNow } from '../mail/service.js';
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
import { bulkAction, readBulk } from './bulk.js';
import { listCollections, refuseCollectionChange, viewCollection } from './collections.js';
import { membersCsv } from './export.js';
import { viewAsMember } from './impersonate.js';
import { inviteByEmail } from './invite-email.js';
import { listMembers, memberDetail, memberFilter, memberJson } from './members.js';
import { listUserRecords } from './record-list.js';
import { inviteTree, readTreeQuery } from './tree.js';

/** The signed-in operator: guests get 401, members who are not operators 403. */
async function requireOperator(ctx: AppContext, request: FastifyRequest): Promise<User> {
  const user = await requireUser(ctx, request);
  if (!isOperator(user)) throw new ForbiddenError();
  return user;
}

/**
 * An operator for PocketBase's superuser routes, with PocketBase's answers to anyone else: a
 * guest 401, a member who is not an operator 403 `The authorized record is not allowed to perform
 * this action.`
 */
async function requireSuperuser(ctx: AppContext, request: FastifyRequest): Promise<User> {
  const user = await requireUser(ctx, request);
  if (!isOperator(user)) {
    throw new ForbiddenError('The authorized record is not allowed to perform this action.');
  }
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

/**
 * The operator console's API (/api/admin/*) and the member's own role (/api/gatehouse/me). Each
 * route's schema (contract/admin.ts) reads its request and writes its answer.
 */
export function adminRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    // The invite tree's recursive node, which the tree's answer refers to by its $id.
    app.addSchema(C.TreeNodeSchema);
    // Whether to show Admin: the record JSON stays PocketBase's, the role is asked for here.
    api.get('/api/gatehouse/me', { schema: C.me }, async (request) => {
      const user = await requireUser(ctx, request);
      return {
        id: user.id,
        email: user.email,
        isInitialUser: user.is_initial_user === 1,
        isOperator: isOperator(user),
      };
    });

    api.get('/api/admin/members', { schema: C.listMembers }, async (request) => {
      await requireOperator(ctx, request);
      return listMembers(ctx, memberFilter(request.query), listQuery(request.query));
    });

    // The Members table's bulk actions: the single actions' code, for up to 200 members at once.
    api.post('/api/admin/members/bulk', { schema: C.bulkMembers }, async (request) => {
      const op = await requireFreshOperator(ctx, request);
      const { action, ids } = readBulk(request.body);
      return bulkAction(ctx, action, ids, op.id, clientOf(request));
    });

    // The members a search and filter keep, as CSV, streamed. A download link carries a file
    // token (the browser sends no Authorization header when it follows a link).
    api.get('/api/admin/members.csv', { schema: C.exportMembers }, async (request, reply) => {
      const { token } = request.query;
      const user = token
        ? (await findAuthByToken(ctx, token, 'file'))?.user
        : await authUser(ctx, request);
      if (!user) throw new UnauthenticatedError();
      if (!isOperator(user)) throw new ForbiddenError();
      const filter = memberFilter(request.query);
      await recordOperatorAction(
        ctx,
        'admin_members_exported',
        user.id,
        user.id,
        clientOf(request),
      );
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="members-${day}.csv"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(membersCsv(ctx, filter)));
    });

    api.post('/api/admin/invite-email', { schema: C.inviteByEmail }, async (request) => {
      const op = await requireOperator(ctx, request);
      return inviteByEmail(ctx, op, request.body.email, clientOf(request));
    });

    api.get('/api/admin/members/:id', { schema: C.memberDetail }, async (request) => {
      await requireOperator(ctx, request);
      return memberDetail(ctx, request.params.id);
    });

    api.post('/api/admin/members/:id/disable', { schema: C.disableMember }, async (request) => {
      const op = await requireFreshOperator(ctx, request);
      return memberJson(await disableMember(ctx, request.params.id, op.id, clientOf(request)));
    });

    api.post('/api/admin/members/:id/enable', { schema: C.enableMember }, async (request) => {
      const op = await requireFreshOperator(ctx, request);
      return memberJson(await enableMember(ctx, request.params.id, op.id, clientOf(request)));
    });

    for (const [method, schema] of [
      ['POST', C.makeOperator],
      ['DELETE', C.removeOperator],
    ] as const) {
      api.route({
        method,
        url: '/api/admin/members/:id/operator',
        schema,
        handler: async (request) => {
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

    api.post('/api/admin/members/:id/invites', { schema: C.giveCodes }, async (request) => {
      const op = await requireFreshOperator(ctx, request);
      const count = readCodeCount(request.body.count);
      const codes = await giveCodes(ctx, request.params.id, count, op.id, clientOf(request));
      return { codes };
    });

    api.post(
      '/api/admin/members/:id/resend-verification',
      { schema: C.resendVerification },
      async (request, reply) => {
        const op = await requireOperator(ctx, request);
        await resendVerification(ctx, request.params.id, op.id, clientOf(request));
        return reply.code(204).send(null);
      },
    );

    api.post(
      '/api/admin/members/:id/reset-two-step',
      { schema: C.resetTwoStep },
      async (request) => {
        const op = await requireFreshOperator(ctx, request);
        const { member } = await resetTwoStep(ctx, request.params.id, op.id, clientOf(request));
        return memberJson(member);
      },
    );

    api.delete('/api/admin/members/:id', { schema: C.deleteMember }, async (request, reply) => {
      const op = await requireFreshOperator(ctx, request);
      await deleteMember(ctx, request.params.id, op.id, clientOf(request));
      return reply.code(204).send(null);
    });

    api.delete('/api/admin/invite-codes/:id', { schema: C.revokeCode }, async (request, reply) => {
      const op = await requireFreshOperator(ctx, request);
      await revokeCode(ctx, request.params.id, op.id, clientOf(request));
      return reply.code(204).send(null);
    });

    api.get('/api/admin/invite-tree', { schema: C.inviteTree }, async (request) => {
      await requireOperator(ctx, request);
      return inviteTree(ctx, readTreeQuery(request.query));
    });

    api.get('/api/admin/outbox', { schema: C.outbox }, async (request) => {
      await requireOperator(ctx, request);
      const list = listQuery(request.query);
      const [items, stats] = await Promise.all([
        listQueuedMail(ctx.db, { limit: list.perPage, offset: (list.page - 1) * list.perPage }),
        mailStats(ctx.db),
      ]);
      return { ...listAnswer(list, items, list.skipTotal ? undefined : stats.queued), stats };
    });

    api.post('/api/admin/outbox/:id/retry', { schema: C.retryMail }, async (request, reply) => {
      const op = await requireOperator(ctx, request);
      const mail = await retryMailNow(ctx.db, request.params.id);
      if (!mail) throw new NotFoundError();
      await recordOperatorAction(ctx, 'admin_mail_retry', mail.userId, op.id, clientOf(request), {
        mail: request.params.id,
      });
      ctx.mailQueued();
      return reply.code(204).send(null);
    });

    // The body is read (an object, whatever it holds) though nothing of it is used.
    api.post('/api/admin/test-mail', { schema: C.testMail }, async (request, reply) => {
      const op = await requireOperator(ctx, request);
      // The app's name and address as the settings have them now, as every other mail.
      const { appName, appUrl } = ctx.settings;
      const content = operatorTestMail(op.language, appName, appUrl);
      await enqueueMail(ctx.db, { ...content, to: op.email, userId: op.id, kind: 'testMail' });
      await recordOperatorAction(ctx, 'admin_test_mail', op.id, op.id, clientOf(request));
      ctx.mailQueued();
      return reply.code(204).send(null);
    });

    // PocketBase's records list of the users collection: for superusers only, so here for
    // operators; guests and other members get PocketBase's 403 (its list rule is null).
    api.get('/api/collections/users/records', { schema: listRecords }, async (request) => {
      const user = await authUser(ctx, request);
      if (!user || !isOperator(user)) {
        throw new ForbiddenError('Only superusers can perform this action.');
      }
      return listUserRecords(ctx, request.query);
    });

    // PocketBase's impersonate, for operators on a fresh session: View as member (impersonate.ts).
    api.post('/api/collections/users/impersonate/:id', { schema: impersonate }, async (request) => {
      await requireSuperuser(ctx, request);
      const auth = await requireAuth(ctx, request);
      return viewAsMember(ctx, auth, request.params.id, request.body.duration, clientOf(request));
    });

    // PocketBase's collections API, read-only (admin/collections.ts).
    api.get('/api/collections', { schema: Collections.listCollections }, async (request) => {
      await requireSuperuser(ctx, request);
      return listCollections(ctx, request.query);
    });

    api.get(
      '/api/collections/:idOrName',
      { schema: Collections.viewCollection },
      async (request) => {
        await requireSuperuser(ctx, request);
        return viewCollection(ctx, request.params.idOrName);
      },
    );

    for (const [method, url, schema] of [
      ['POST', '/api/collections', Collections.createCollection],
      ['PUT', '/api/collections/import', Collections.importCollections],
      ['PATCH', '/api/collections/:idOrName', Collections.updateCollection],
      ['DELETE', '/api/collections/:idOrName', Collections.deleteCollection],
      ['DELETE', '/api/collections/:idOrName/truncate', Collections.truncateCollection],
    ] as const) {
      api.route({
        method,
        url,
        schema,
        handler: async (request) => {
          await requireSuperuser(ctx, request);
          const params = request.params as { idOrName?: string };
          return refuseCollectionChange(params.idOrName);
        },
      });
    }

    api.get('/api/admin/security-events', { schema: C.securityEvents }, async (request) => {
      await requireOperator(ctx, request);
      const { member, type } = request.query;
      return allEvents(
        ctx,
        { member: member || undefined, type: type || undefined },
        listQuery(request.query),
      );
    });
  };
}
