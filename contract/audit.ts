import {
  DateText,
  ErrorEnvelope,
  Id,
  type RouteSchema,
  SIGNED_IN,
  Type,
  type Static,
} from './schema.js';

/** The member's own security log (server/src/audit/routes.ts). */
const tags = ['Security log'];

/** One entry of the member's security log. */
export const SecurityEvent = Type.Object({
  id: Id(),
  created: DateText(),
  type: Type.String({ description: '`sign_in`, `password_changed`, … (docs/api.md)' }),
  ip: Type.String(),
  userAgent: Type.String(),
  outcome: Type.Enum(['success', 'failure']),
  detail: Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    additionalProperties: true,
    description: 'what else the event says (`method`, `reason`, `provider`…), never a secret',
  }),
});
export type SecurityEvent = Static<typeof SecurityEvent>;

/** PocketBase's list shape; the totals are -1 with `skipTotal`. */
export const SecurityEventsAnswer = Type.Object({
  page: Type.Integer(),
  perPage: Type.Integer(),
  totalItems: Type.Integer(),
  totalPages: Type.Integer(),
  items: Type.Array(SecurityEvent),
});
export type SecurityEventsAnswer = Static<typeof SecurityEventsAnswer>;

export const securityEvents = {
  summary: "The member's own security events, newest first",
  description: 'Kept `AUDIT_RETENTION_DAYS`. A bad `page` or `perPage` is a 400 naming it.',
  tags,
  security: SIGNED_IN,
  querystring: Type.Object({
    page: Type.Optional(Type.String({ description: 'from 1' })),
    perPage: Type.Optional(Type.String({ description: 'default 30, at most 100' })),
    skipTotal: Type.Optional(Type.String({ description: '`true` or `1`: the totals are -1' })),
  }),
  response: { 200: SecurityEventsAnswer, 400: ErrorEnvelope, 401: ErrorEnvelope },
} satisfies RouteSchema;
