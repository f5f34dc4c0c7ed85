import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as C from '../../../contract/oidc.js';
import { avatarFile } from '../accounts/service.js';
import type { AppContext } from '../core/context.js';
import type { Crons } from '../core/cron.js';
import { ForbiddenError, NotFoundError } from '../core/errors.js';
import { assertFresh } from '../core/reauth.js';
import { findUserById, isOperator } from '../core/users.js';
import type { User } from '../db/schema.js';
import { authUser, requireAuth, requireUser } from '../http/auth.js';
import { addApp, listApps, newAppSecret, removeApp, updateApp, type AppInput } from './clients.js';
import { connectedApps, revokeConnectedApp } from './connected-apps.js';
import { abort, completeLogin, describe, giveConsent, stepOf } from './interactions.js';
import { OIDC_PREFIX, OidcProvider } from './provider.js';
import { endProviderSessions } from './sessions.js';

/**
 * The job that looks for provider sessions whose Gatehouse session ended without an event having
 * ended them (another instance's event lost, a session past its absolute end): every 5 minutes,
 * one instance per run (docs/decisions/0063).
 */
export const OIDC_SESSIONS_JOB = 'oidc_sessions_cleanup';
const OIDC_SESSIONS_CRON = '*/5 * * * *';

/** The web app's screen for a sign-in or consent under way. */
const SCREEN = '/authorize';

/**
 * Gatehouse as an OpenID provider (docs/decisions/0060): the provider's endpoints under /oidc, the
 * steps the web app completes, the member's connected apps and the apps operators register.
 */
export function oidcRoutes(ctx: AppContext, crons?: Crons) {
  const pictureSig = (id: string, filename: string) =>
    ctx.box.digest(`${id}/${filename}`, 'oidc-picture');
  const oidc = new OidcProvider(ctx, (id, filename) => {
    const path = `/api/oidc/pictures/${id}/${encodeURIComponent(filename)}`;
    return `${ctx.settings.appUrl}${path}?sig=${pictureSig(id, filename)}`;
  });
  const endEnded = (userId?: string) => {
    endProviderSessions(ctx.db, () => oidc.provider(), ctx.log, userId).catch((err: unknown) => {
      ctx.log.warn({ err }, 'ending provider sessions failed; the next clean-up tries again');
    });
  };
  crons?.add(OIDC_SESSIONS_JOB, OIDC_SESSIONS_CRON, async () => ({
    providerSessions: await endProviderSessions(ctx.db, () => oidc.provider(), ctx.log),
  }));

  return async (app: FastifyInstance) => {
    // A Gatehouse session ended (signed out, everywhere, disabled, deleted): so do the provider
    // sessions opened on it, and the apps hear it (sessions.ts). The job above catches the rest.
    const unsubscribe = ctx.events.subscribe((event) => {
      if (event.type === 'session-ended') endEnded(event.userId);
      else if (event.type === 'resync' || event.type === 'database-restored') endEnded();
    });
    app.addHook('onClose', async () => {
      unsubscribe();
    });

    // The provider's endpoints: the raw request goes to oidc-provider, which reads its own body.
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
      const serve = (request: FastifyRequest, reply: import('fastify').FastifyReply) => {
        reply.hijack();
        // The app's security headers (app.ts set them on the reply) on the provider's answer too.
        for (const [name, value] of Object.entries(reply.getHeaders())) {
          if (value !== undefined) reply.raw.setHeader(name, value);
        }
        oidc.handle(request.raw, reply.raw).catch((err: unknown) => {
          ctx.log.error({ err }, 'OpenID provider unavailable');
          if (!reply.raw.headersSent) reply.raw.writeHead(503, { 'content-type': 'text/plain' });
          reply.raw.end('Service unavailable');
        });
      };
      scope.all(OIDC_PREFIX, { schema: C.providerEndpoints }, serve);
      scope.all(`${OIDC_PREFIX}/*`, { schema: C.providerEndpoints }, serve);
    });

    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get(
      '/api/oidc/interactions/:uid',
      { schema: C.interactionLanding },
      async (request, reply) => {
        const uid = encodeURIComponent(request.params.uid);
        return reply.code(303).header('location', `${SCREEN}/${uid}`).send(null);
      },
    );

    api.get(
      '/api/oidc/interactions/:uid/details',
      { schema: C.interactionDetails },
      async (request, reply) => {
        const step = await stepOf(ctx, oidc, request, reply, request.params.uid);
        return describe(step, await authUser(ctx, request));
      },
    );

    api.post(
      '/api/oidc/interactions/:uid/login',
      { schema: C.interactionLogin },
      async (request, reply) => {
        const auth = await requireAuth(ctx, request);
        const step = await stepOf(ctx, oidc, request, reply, request.params.uid);
        return { redirect: await completeLogin(step, auth, request, reply) };
      },
    );

    api.post(
      '/api/oidc/interactions/:uid/consent',
      { schema: C.interactionConsent },
      async (request, reply) => {
        const auth = await requireAuth(ctx, request);
        const step = await stepOf(ctx, oidc, request, reply, request.params.uid);
        return { redirect: await giveConsent(ctx, step, auth, request, reply) };
      },
    );

    api.post(
      '/api/oidc/interactions/:uid/abort',
      { schema: C.interactionAbort },
      async (request, reply) => {
        const step = await stepOf(ctx, oidc, request, reply, request.params.uid);
        return { redirect: await abort(step, request, reply) };
      },
    );

    api.get('/api/oidc/pictures/:id/:filename', { schema: C.picture }, async (request, reply) => {
      const { id, filename } = request.params;
      if (request.query.sig !== pictureSig(id, filename)) throw new NotFoundError();
      const owner = await findUserById(ctx, id);
      if (!owner || owner.disabled === 1) throw new NotFoundError();
      const file = await avatarFile(ctx, owner, filename, '100x100');
      if (!file) throw new NotFoundError();
      return (
        reply
          .header('content-type', file.type)
          .header('content-security-policy', "default-src 'none'; sandbox")
          // Apps show it on their own pages.
          .header('cross-origin-resource-policy', 'cross-origin')
          .header('cache-control', 'public, max-age=3600')
          .send(file.data)
      );
    });

    api.get('/api/gatehouse/apps', { schema: C.connectedApps }, async (request) => {
      const user = await requireUser(ctx, request);
      return { items: await connectedApps(ctx, user.id) };
    });

    api.delete('/api/gatehouse/apps/:id', { schema: C.revokeApp }, async (request, reply) => {
      const user = await requireUser(ctx, request);
      await revokeConnectedApp(ctx, oidc, user.id, request.params.id);
      return reply.code(204).send(null);
    });

    // The apps operators register (the console; the CLI's `oidc` commands do the same).
    api.get('/api/admin/apps', { schema: C.listApps }, async (request) => {
      await requireOperator(ctx, request);
      return { issuer: oidc.issuer, items: await listApps(ctx.db) };
    });

    api.post('/api/admin/apps', { schema: C.addApp }, async (request) => {
      await requireFreshOperator(ctx, request);
      return addApp(ctx.db, ctx.box, appInput(request.body));
    });

    api.patch('/api/admin/apps/:id', { schema: C.updateApp }, async (request) => {
      await requireFreshOperator(ctx, request);
      return updateApp(ctx.db, ctx.box, request.params.id, appInput(request.body));
    });

    api.post('/api/admin/apps/:id/secret', { schema: C.newAppSecret }, async (request) => {
      await requireFreshOperator(ctx, request);
      return { secret: await newAppSecret(ctx.db, ctx.box, request.params.id) };
    });

    api.delete('/api/admin/apps/:id', { schema: C.removeApp }, async (request, reply) => {
      await requireFreshOperator(ctx, request);
      await removeApp(ctx.db, request.params.id);
      return reply.code(204).send(null);
    });
  };
}

function appInput(body: C.AppBody): AppInput {
  return {
    name: body.name,
    redirectUris: body.redirectUris ?? [],
    postLogoutRedirectUris: body.postLogoutRedirectUris ?? [],
    backchannelLogoutUri: body.backchannelLogoutUri,
    type: body.type,
    authMethod: body.authMethod,
    group: body.group,
  };
}

/** The signed-in operator: guests get 401, members who are not operators 403. */
async function requireOperator(ctx: AppContext, request: FastifyRequest): Promise<User> {
  const user = await requireUser(ctx, request);
  if (!isOperator(user)) throw new ForbiddenError();
  return user;
}

/** An operator on a fresh session (docs/decisions/0046): an app's secret hands access over. */
async function requireFreshOperator(ctx: AppContext, request: FastifyRequest): Promise<User> {
  const user = await requireOperator(ctx, request);
  assertFresh(ctx, await requireAuth(ctx, request));
  return user;
}
