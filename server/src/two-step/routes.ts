import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as C from '../../../contract/two-step.js';
import type { AppContext } from '../core/context.js';
import { signIn } from '../core/sign-in.js';
import { userRecord } from '../core/users.js';
import { ForbiddenError, VERIFY_EMAIL_FIRST } from '../core/errors.js';
import { requireFreshUser, requireUser } from '../http/auth.js';
import { rememberDevice } from '../accounts/service.js';
import { clientOf as client } from '../http/client.js';
import {
  disableTotp,
  enableTotp,
  renewRecoveryCodes,
  setUpTotp,
  twoStepStatus,
} from './settings.js';
import { signInWithSecondStep } from './sign-in.js';

/**
 * Two-step sign-in: the member's settings, and the second step of a sign-in. Each route's schema
 * (contract/two-step.ts) reads its body and shapes its answer.
 */
export function twoStepRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    api.get('/api/gatehouse/totp', { schema: C.status }, async (request) => {
      return twoStepStatus(ctx, await requireUser(ctx, request));
    });

    // A new way in: a fresh session and a verified address (docs/decisions/0046).
    api.post('/api/gatehouse/totp/setup', { schema: C.setup }, async (request) => {
      const user = await requireFreshUser(ctx, request);
      if (user.verified !== 1) throw new ForbiddenError(VERIFY_EMAIL_FIRST);
      return setUpTotp(ctx, user);
    });

    api.post('/api/gatehouse/totp/enable', { schema: C.enable }, async (request) => {
      const user = await requireUser(ctx, request);
      return enableTotp(ctx, user, request.body, client(request));
    });

    api.post('/api/gatehouse/totp/disable', { schema: C.disable }, async (request, reply) => {
      const user = await requireFreshUser(ctx, request);
      await disableTotp(ctx, user, request.body, client(request));
      return reply.code(204).send(null);
    });

    api.post('/api/gatehouse/recovery-codes', { schema: C.recoveryCodes }, async (request) => {
      const user = await requireFreshUser(ctx, request);
      return renewRecoveryCodes(ctx, user, request.body, client(request));
    });

    // Completes a sign-in: the browser gets a device cookie, as after a password alone.
    api.post(
      '/api/gatehouse/auth-with-totp',
      { schema: C.authWithTotp },
      async (request, reply) => {
        const { user, method } = await signInWithSecondStep(ctx, request.body, client(request));
        return rememberDevice(ctx, reply, user, {
          token: await signIn(ctx, user, client(request), method),
          record: userRecord(user, { withEmail: true }),
        });
      },
    );
  };
}
