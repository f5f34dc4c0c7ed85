import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as C from '../../../contract/invites.js';
import type { AppContext } from '../core/context.js';
import { fieldError, ForbiddenError, VALIDATION_FAILED, ValidationError } from '../core/errors.js';
import type { Limit } from '../core/rate-limit.js';
import { requireUser } from '../http/auth.js';
import { clientOf } from '../http/client.js';
import {
  createInviteCodes,
  findUsableCode,
  GENERATE_BATCH,
  isBlankCode,
  inviteCodesBody,
  publishCodes,
} from './service.js';

/** Generation by the initial user: 10 presses a minute. */
const GENERATE_LIMIT: Limit = { name: 'generate', max: 10, windowMs: 60_000, per: 'account' };

/**
 * Sign-up's early look at a typed code: 10 a minute per client network, as sign-up itself
 * (docs/decisions/0033-invite-code-check-before-sign-up.md).
 */
export const CHECK_LIMIT: Limit = { name: 'invite-check', max: 10, windowMs: 60_000 };

/** What Fastify sends for an object it serializes; a string body needs it said. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A member's invite codes (list, generate) and sign-up's early look at a typed code. Each route's
 * schema is in contract/invites.ts.
 */
export function inviteRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    // `{"codes":[{id, code, created}],"used":[{id, code, usedAt, member}]}`, serialized once per
    // state of the member's codes: the schema is the answer's reference, and Fastify sends a
    // string body as it is. Registered untyped, as the reply is that string rather than the object
    // the schema describes.
    app.get('/api/invite-codes', { schema: C.listInviteCodes }, async (request, reply) => {
      const user = await requireUser(ctx, request);
      // An unverified account can not keep a session: its token opens no invite endpoint.
      if (user.verified !== 1) throw new ForbiddenError();
      return reply.type(JSON_TYPE).send(await inviteCodesBody(ctx, user.id));
    });

    api.post('/api/invite-codes/generate', { schema: C.generateInviteCodes }, async (request) => {
      const user = await requireUser(ctx, request);
      if (user.is_initial_user !== 1) {
        throw new ForbiddenError('Only the initial user can generate unlimited invite codes.');
      }
      if (user.verified !== 1) throw new ForbiddenError();
      await ctx.limiter.check(GENERATE_LIMIT, user.id);
      const codes = await createInviteCodes(ctx.db, user.id, GENERATE_BATCH);
      publishCodes(ctx, user.id, 'create', codes);
      return { generated: codes.length, codes };
    });

    // Whether a typed code would let someone sign up now: 204, or sign-up's own field error.
    // It says nothing about emails or owners, only what the code's holder learns at sign-up.
    api.post(
      '/api/gatehouse/invite-codes/check',
      { schema: C.checkInviteCode },
      async (request, reply) => {
        const { inviteCode } = request.body;
        await ctx.limiter.check(CHECK_LIMIT, clientOf(request).network);
        if (isBlankCode(inviteCode)) {
          throw new ValidationError(VALIDATION_FAILED, { inviteCode: fieldError.required() });
        }
        const usable = await findUsableCode(ctx, inviteCode);
        if (!usable) {
          throw new ValidationError(VALIDATION_FAILED, {
            inviteCode: fieldError.invalidInviteCode(),
          });
        }
        // The printed bootstrap code: its holder is setting up the community.
        if (usable.bootstrap) return reply.code(200).send({ initialUser: true as const });
        return reply.code(204).send(null);
      },
    );
  };
}
