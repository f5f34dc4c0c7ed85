import type { Socket } from 'node:net';
import Fastify, {
  LogController,
  type FastifyError,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import { accountRoutes } from './accounts/routes.js';
import type { TrustProxy } from './config.js';
import type { AppContext } from './core/context.js';
import { NotFoundError, UnavailableError } from './core/errors.js';
import { API_LIMIT, clientNetwork } from './core/rate-limit.js';
import { isJsonContentType } from './http/body.js';
import { apiDocs } from './http/api-docs.js';
import { envelope, HttpError, LOADING_FAILED, replyWithError } from './http/envelope.js';
import { AJV_OPTIONS, withBodyReading } from './http/schema.js';
import packageJson from '../../package.json' with { type: 'json' };
import * as SystemSchemas from '../../contract/system.js';
import type { WebApp } from './http/web-app.js';
import { lazyCompilers } from './http/lazy-compile.js';
import { lazyChild } from './logger.js';
import { inviteRoutes } from './invites/routes.js';
import { sessionRoutes } from './sessions/routes.js';
import { passwordProof } from './accounts/reauth.js';
import { codeProof } from './two-step/reauth.js';
import { passkeyProof } from './passkeys/sign-in.js';
import { auditRoutes } from './audit/routes.js';
import { twoStepRoutes } from './two-step/routes.js';
import { passkeyRoutes } from './passkeys/routes.js';
import { providerRoutes } from './providers/routes.js';
import { adminRoutes } from './admin/routes.js';
import { metricsRoutes } from './metrics/routes.js';
import { realtimeRoutes } from './realtime/routes.js';
import type { BrokerOptions } from './realtime/broker.js';
import type { Crons } from './core/cron.js';
import { cronRoutes } from './crons/routes.js';
import type { RequestLog } from './logs/request-log.js';
import { logsRoutes } from './logs/routes.js';
import { settingsRoutes } from './settings/routes.js';
import { backupRoutes } from './backups/routes.js';
import { batchRoutes } from './batch/routes.js';
import { oidcRoutes } from './oidc/routes.js';
import { gateRoutes } from './gate/routes.js';

const packageVersion = packageJson.version;
const HEALTHY = { code: 200, message: 'API is healthy.', data: {} };

/** How long requests under way may still take once the server is closing. */
const CLOSE_GRACE_MS = 5000;

/** Request bodies are a few short fields; anything this large is not a client of ours. */
const BODY_LIMIT = 64 * 1024;

/** Query values that must never reach a log line (tokens in mailed links, invite codes). */
const SECRET_QUERY = /([?&](?:token|code)=)[^&]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}

/** Builds the HTTP app from its parts; server.ts starts it, tests may inject into it. */
export function buildApp(
  ctx: AppContext,
  webApp: WebApp,
  log: Logger,
  options: {
    realtime?: BrokerOptions;
    routes?: Array<{ method: string; url: string }>;
    /** The request log (logs/): every API request is recorded, and operators read it. */
    requestLog?: RequestLog;
    /** The scheduled jobs operators list and run (core/cron.ts). */
    crons?: Crons;
  } = {},
) {
  const securityHeaders = {
    'x-content-type-options': 'nosniff',
    // Tokens travel in URLs (mailed links): never leak them to another site.
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    // Popups this app opens (a sign-in provider, the SDK's OAuth2 flow) stay its own: the provider's
    // pages pass, and the redirect page can close its window when done.
    'cross-origin-opener-policy': 'same-origin-allow-popups',
    'cross-origin-resource-policy': 'same-origin',
    ...(ctx.config.appUrl.startsWith('https:')
      ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' }
      : {}),
  };
  // One line per request (logRequest below) at debug, or none: at the default level the request
  // log (logs/) is each API request's only record (docs/decisions/0030, 0058).
  const logRequests = log.isLevelEnabled('debug');
  // An entry per API request in the request log (logs/request-log.ts).
  const requestLog = options.requestLog;
  const app = Fastify({
    loggerInstance: log,
    childLoggerFactory: (parent, bindings, options) =>
      lazyChild(parent as Logger, bindings, options),
    // One line per request, written by the onResponse hook below (with secrets redacted).
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: proxyTrust(ctx.config.trustProxy),
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: 'idle',
    // Requests are checked against the contract's schemas as PocketBase reads them (http/schema.ts).
    ajv: AJV_OPTIONS,
    // Each route's schemas are compiled on its first request, not at start (http/lazy-compile.ts).
    schemaController: { compilersFactory: lazyCompilers() },
    // While closing, requests still arriving on open connections get our 503 envelope (below).
    return503OnClosing: false,
    // A path Fastify's router cannot take (a bad percent-escape or an over-long id in a route's
    // parameter) is answered here, before any hook runs: it gets what the hooks give every other
    // request (the headers, the API limit, the request log), and an envelope that does not echo
    // the path as Fastify's own answer does.
    frameworkErrors: (error, request, reply) => {
      reply.headers(securityHeaders);
      if (logRequests) reply.raw.once('finish', () => logRequest(request, reply));
      if (requestLog && isApi(request)) requestLog.recordUnmatched(request, reply);
      const answer = (err: unknown) => replyWithError(err, request, reply, redactUrl);
      if (!isApi(request)) return answer(routerError(error));
      reply.header('cache-control', 'no-store');
      if (!ctx.limiter.enabled) return answer(routerError(error));
      ctx.limiter
        .check(API_LIMIT, clientNetwork(request.ip))
        .then(() => answer(routerError(error)), answer);
    },
  });
  app.addHook('onRoute', (route) => {
    withBodyReading(route);
    // Each API route's own onResponse hook, which knows its pattern (logs/request-log.ts).
    if (requestLog && (route.url === '/api' || route.url.startsWith('/api/'))) {
      requestLog.attach(route);
    }
    for (const method of [route.method].flat()) options.routes?.push({ method, url: route.url });
  });
  // Each request's auth, loaded once (http/auth.ts): a declared slot keeps request objects alike.
  app.decorateRequest('authLoaded', null);
  let closing = false;
  // Every connection, to cut those still open CLOSE_GRACE_MS after closing began: Node closes idle
  // keep-alive connections by itself, but not one its client left half-closed (a realtime client
  // that went away mid-stream), which would hold the shutdown up until keep-alive ends.
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  app.addHook('preClose', (done) => {
    closing = true;
    setTimeout(() => {
      for (const socket of sockets) socket.destroy();
    }, CLOSE_GRACE_MS).unref();
    done();
  });

  // Any body is read as text here: an empty one is no body whatever its type (the SDK sends a JSON
  // content type even on DELETE); any other must be JSON (415 otherwise: docs/decisions/0017), and
  // bad JSON gets the contract's message. One exception, in its own plugin: the record update also
  // reads multipart/form-data, for an avatar (accounts/routes.ts, http/multipart.ts; 0050).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    if (text === '') return done(null, undefined);
    if (!isJsonContentType(request.headers['content-type'])) {
      return done(new HttpError(415), undefined);
    }
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new HttpError(400, LOADING_FAILED), undefined);
    }
  });

  // Callback-style hooks: on every request an async hook's promise costs more than its work.
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(securityHeaders);
    if (closing) {
      // A request arriving while closing (a realtime client reconnecting at once) must not keep
      // its connection open past the shutdown: it would hold it up until keep-alive ends.
      reply.header('connection', 'close');
      return done(new UnavailableError());
    }
    if (!isApi(request)) return done();
    reply.header('cache-control', 'no-store');
    // A NUL character is never part of a real path or query, and PostgreSQL text cannot hold one.
    if (hasNul(request.url)) return done(new HttpError(400, LOADING_FAILED));
    if (!ctx.limiter.enabled) return done();
    ctx.limiter.check(API_LIMIT, clientNetwork(request.ip)).then(() => done(), done);
  });

  // API requests at debug; the page and its files (a dozen per page view) at trace. Written by the
  // server's logger with the request's id, so no request logger is made for it.
  function logRequest(request: FastifyRequest, reply: FastifyReply) {
    log[isApi(request) ? 'debug' : 'trace'](
      {
        reqId: request.id,
        method: request.method,
        url: redactUrl(request.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        ip: request.ip,
      },
      'request',
    );
  }
  if (logRequests) {
    app.addHook('onResponse', (request, reply, done) => {
      logRequest(request, reply);
      done();
    });
  }

  app.setErrorHandler((error, request, reply) => replyWithError(error, request, reply, redactUrl));

  app.setNotFoundHandler((request, reply) => {
    if (!isApi(request) && (request.method === 'GET' || request.method === 'HEAD')) {
      return webApp.serve(request, reply);
    }
    if (requestLog && isApi(request)) requestLog.recordUnmatched(request, reply);
    return reply.code(404).send(envelope(404));
  });

  // First of the routes: the reference collects every route registered after it.
  app.register(apiDocs, { version: packageVersion });
  const realtime = realtimeRoutes(ctx, options.realtime);
  // First: its onResponse hook counts every route.
  app.register(metricsRoutes(ctx, { realtimeConnections: () => realtime.broker.size }));
  app.register(async (app) => {
    app.get('/api/health', { schema: SystemSchemas.health }, async () => HEALTHY);
    // Readiness for load balancers: touches the database (a second at most), unlike /api/health.
    app.get('/api/ready', { schema: SystemSchemas.ready }, async () => {
      if (!(await ctx.databaseReady())) throw new UnavailableError();
      return { code: 200, message: 'API is ready.', data: {} };
    });
  });
  app.register(accountRoutes(ctx));
  app.register(inviteRoutes(ctx));
  app.register(sessionRoutes(ctx, [passwordProof, codeProof, passkeyProof]));
  app.register(auditRoutes(ctx));
  app.register(twoStepRoutes(ctx));
  app.register(passkeyRoutes(ctx));
  app.register(providerRoutes(ctx));
  app.register(adminRoutes(ctx));
  if (requestLog) app.register(logsRoutes(ctx, requestLog));
  if (options.crons) app.register(cronRoutes(ctx, options.crons));
  app.register(settingsRoutes(ctx));
  app.register(backupRoutes(ctx));
  app.register(batchRoutes(ctx));
  app.register(oidcRoutes(ctx, options.crons));
  app.register(gateRoutes(ctx));
  app.register(realtime.plugin);
  return app;
}

/**
 * What a router refusal means to the client: a parameter longer than any id (`maxParamLength`,
 * 100 characters; ids are 15) names nothing, a 404 as for any unknown id; a bad percent-escape
 * is unreadable input, a 400 like a NUL character. Neither message echoes the path.
 */
function routerError(error: FastifyError): Error {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return new NotFoundError();
  if (error.code === 'FST_ERR_BAD_URL') return new HttpError(400, LOADING_FAILED);
  return error;
}

/** A NUL character in a URL, sent raw or percent-encoded. */
function hasNul(url: string): boolean {
  return url.includes('\u0000') || url.includes('%00');
}

/**
 * Whether the /api rules (limit, no-store, JSON 404) apply: decided by the route Fastify matched,
 * which it finds after decoding the path (`/%61pi/health` is /api/health), and for requests that
 * match no route by the decoded path, so no spelling of a path escapes them.
 */
function isApi(request: FastifyRequest): boolean {
  // As written: decoding cannot take `/api/…` elsewhere, and no other route starts so. Asked on
  // every request, before `routeOptions`, which Fastify builds anew on each read.
  if (request.url.startsWith('/api/')) return true;
  const path = request.routeOptions.url ?? decodedPath(request.url);
  return path === '/api' || path.startsWith('/api/');
}

function decodedPath(url: string): string {
  const end = url.search(/[?#]/);
  let path = end === -1 ? url : url.slice(0, end);
  try {
    path = decodeURIComponent(path);
  } catch {
    // A malformed escape: judge the path as written.
  }
  // `//api/x` and `/API/x` are not routes of ours, but they are no less API-shaped.
  return path.replace(/\/{2,}/g, '/').toLowerCase();
}

/**
 * Fastify's own hop count trusts nothing (it cannot check the peer), so a count becomes the
 * function "the first `hops` addresses, counted from the socket, are proxies".
 */
function proxyTrust(
  trust: TrustProxy,
): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== 'number') return trust;
  return (_address, hop) => hop < trust;
}
