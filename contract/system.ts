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
