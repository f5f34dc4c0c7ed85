import { AuthAnswer } from './records.js';
import { Body, ErrorEnvelope, IdParams, type RouteSchema, SIGNED_IN, Type } from './schema.js';

/**
 * View as member: PocketBase's impersonate on the users collection (server/src/admin/routes.ts;
 * docs/decisions/0056), which the SDK's `pb.collection('users').impersonate(id, duration)` calls.
 */
const tags = ['Operator console'];

export const impersonate = {
  summary: 'View as member: a short, non-renewable token of a member, for an operator',
  description:
    `PocketBase limits it to superusers, Gatehouse to operators on a fresh session (403 "Confirm it's you to continue."). ` +
    'A guest gets 401, a member who is not an operator 403 "The authorized record is not allowed to perform this action.", an unknown id 404, ' +
    'a negative `duration` 400 with a `duration` field error; the operator themselves, the initial user, another operator and a disabled member are refused (403, saying which). ' +
    'The token names a session of the member that ends after `duration` seconds (0 or absent: 30 minutes; at most 60 minutes), that auth-refresh answers with the same token, that is never fresh, and that the member sees among their devices.',
  tags,
  security: SIGNED_IN,
  params: IdParams,
  body: Body({
    duration: Type.Optional(
      Type.Integer({ description: 'seconds; 0 or absent: 1800; more than 3600 is cut to 3600' }),
    ),
  }),
  response: {
    200: AuthAnswer,
    400: ErrorEnvelope,
    401: ErrorEnvelope,
    403: ErrorEnvelope,
    404: ErrorEnvelope,
  },
} satisfies RouteSchema;
