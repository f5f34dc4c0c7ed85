import { createHash, timingSafeEqual } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import * as C from '../../../contract/system.js';
import type { AppContext } from '../core/context.js';
import { bearerToken } from '../http/auth.js';
import { HttpError } from '../http/envelope.js';
import { mailStats } from '../mail/service.js';
import { nowString } from '../tools/time.js';

const SIGN_IN_ROUTE = '/api/collections/users/auth-with-password';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * GET /api/metrics in Prometheus's text format, for the bearer token METRICS_TOKEN (unset: the
 * route does not exist, 404; another token: 401). Requests by matched route pattern (never the
 * raw URL: ids and tokens stay out, and the label set stays small), method and status; sign-ins
 * by outcome; outbox depth and failures, live sessions (read from the database at scrape time);
 * realtime connections on this instance;
 * and prom-client's default process metrics (memory, CPU, event-loop lag, GC).
 */
export function metricsRoutes(
  ctx: AppContext,
  sources: { realtimeConnections: () => number } = { realtimeConnections: () => 0 },
) {
  const token = ctx.config.metricsToken;
  const plugin = async (app: FastifyInstance) => {
    if (!token) return;
    const expected = digest(token);
    const register = new Registry();
    collectDefaultMetrics({ register });
    const labels = ['method', 'route', 'status'] as const;
    const requests = new Counter({
      name: 'gatehouse_http_requests_total',
      help: 'HTTP requests by method, matched route pattern and status.',
      labelNames: labels,
      registers: [register],
    });
    const latency = new Histogram({
      name: 'gatehouse_http_request_duration_seconds',
      help: 'HTTP request latency by method, matched route pattern and status.',
      labelNames: labels,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [register],
    });
    const signIns = new Counter({
      name: 'gatehouse_sign_ins_total',
      help: 'Password sign-ins by outcome: success, failure, disabled, limited.',
      labelNames: ['outcome'],
      registers: [register],
    });
    const db = ctx.db;
    new Gauge({
      name: 'gatehouse_outbox_queued',
      help: 'Mails waiting in the outbox.',
      registers: [register],
      async collect() {
        this.set((await mailStats(db)).queued);
      },
    });
    new Gauge({
      name: 'gatehouse_outbox_failing',
      help: 'Mails in the outbox that failed at least once.',
      registers: [register],
      async collect() {
        this.set((await mailStats(db)).failing);
      },
    });
    new Gauge({
      name: 'gatehouse_mail_failed_last_24h',
      help: 'Failed delivery attempts in the last 24 hours.',
      registers: [register],
      async collect() {
        this.set((await mailStats(db)).failedLast24h);
      },
    });
    new Gauge({
      name: 'gatehouse_mail_sent_last_24h',
      help: 'Mails sent in the last 24 hours.',
      registers: [register],
      async collect() {
        this.set((await mailStats(db)).sentLast24h);
      },
    });
    new Gauge({
      name: 'gatehouse_sessions_live',
      help: 'Sessions that have not reached their end.',
      registers: [register],
      async collect() {
        const row = await db
          .selectFrom('sessions')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('expires', '>', nowString())
          .executeTakeFirstOrThrow();
        this.set(Number(row.n));
      },
    });

    new Gauge({
      name: 'gatehouse_realtime_connections',
      help: 'Realtime (SSE) clients connected to this instance.',
      registers: [register],
      collect() {
        this.set(sources.realtimeConnections());
      },
    });

    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? '(unmatched)';
      const status = String(reply.statusCode);
      const values = { method: request.method, route, status };
      requests.inc(values);
      latency.observe(values, reply.elapsedTime / 1000);
      if (route === SIGN_IN_ROUTE && request.method === 'POST') {
        const code = reply.statusCode;
        const outcome =
          code === 200
            ? 'success'
            : code === 403
              ? 'disabled'
              : code === 429
                ? 'limited'
                : 'failure';
        signIns.inc({ outcome });
      }
      done();
    });

    // A text answer (contract/system.ts): Fastify sends the string as it is.
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    api.get('/api/metrics', { schema: C.metrics }, async (request, reply) => {
      const given = digest(bearerToken(request));
      if (!timingSafeEqual(given, expected)) throw new HttpError(401);
      reply.header('content-type', register.contentType);
      return register.metrics();
    });
  };
  // The hook above counts every route, not only this plugin's own.
  Object.assign(plugin, { [Symbol.for('skip-override')]: true });
  return plugin;
}
