import { ErrorEnvelope, type RouteSchema, Type } from './schema.js';

/** The answer of the health and readiness checks (PocketBase's health answer). */
export const HealthAnswer = Type.Object({
  code: Type.Integer(),
  message: Type.String(),
  data: Type.Object({}),
});

export const health = {
  summary: 'Liveness: the process answers (no database call)',
  tags: ['System'],
  response: { 200: HealthAnswer },
} satisfies RouteSchema;

export const ready = {
  summary: 'Readiness: the database answers within a second',
  description: 'For load balancers: 503 while the database does not answer.',
  tags: ['System'],
  response: { 200: HealthAnswer, 503: ErrorEnvelope },
} satisfies RouteSchema;

export const metrics = {
  summary: 'Prometheus metrics, for `Authorization: Bearer $METRICS_TOKEN`',
  description:
    'Only with `METRICS_TOKEN` set (otherwise the route does not exist: 404); another token is a 401. Requests by route pattern, sign-ins by outcome, the outbox, live sessions, realtime clients, the process.',
  tags: ['System'],
  response: {
    200: Type.Unsafe<string>({
      description: 'Prometheus text format (`text/plain; version=0.0.4`)',
      content: { 'text/plain': { schema: Type.String() } },
    }),
    401: ErrorEnvelope,
  },
} satisfies RouteSchema;
