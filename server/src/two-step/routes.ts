import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../core/context.js';
import { signIn } from '../core/sign-in.js';
import { userRecord } from '../core/users.js';
import { ForbiddenError, VERIFY_EMAIL_FIRST } from '../core/errors.js';
import { requireFreshUser, requireUser } from '../http/auth.js';
import { readBody } from '../http/body.js';
import { rememberDevice } from '../accounts/device-cookie.js';
import { clientOf as client } from '../http/client.js';
import {
  disableTotp,
  enableTotp,
  renewRecoveryCodes,
  setUpTotp,
  twoStepStatus,
} from './settings.js';
import { signInWithSecondStep } from './sign-in.js';

/** Two-step sign-in: the member's settings, and the second step of a sign-in. */
export function twoStepRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    app.get('/api/gatehouse/totp', async (request) => {
      return twoStepStatus(ctx, await requireUser(ctx, request));
    });

    // A new way in: a fresh session and a verified address (docs/decisions/0046).
    app.post('/api/gatehouse/totp/setup', async (request) => {
      const user = await requireFreshUser(ctx, request);
      if (user.verified !== 1) throw new ForbiddenError(VERIFY_EMAIL_FIRST);
      return setUpTotp(ctx, user);
    });

    app.post('/api/gatehouse/totp/enable', async (request) => {
      const user = await requireUser(ctx, request);
      const body = readBody(request.body, { code: 'string' });
      return enableTotp(ctx, user, body, client(request));
    });

    app.post('/api/gatehouse/totp/disable', async (request, reply) => {
      const user = await requireFreshUser(ctx, request);
      const body = readBody(request.body, { password: 'string' });
      await disableTotp(ctx, user, body, client(request));
      return reply.code(204).send();
    });

    app.post('/api/gatehouse/recovery-codes', async (request) => {
      const user = await requireFreshUser(ctx, request);
      const body = readBody(request.body, { password: 'string' });
      return renewRecoveryCodes(ctx, user, body, client(request));
    });

    // Completes a sign-in: the browser gets a device cookie, as after a password alone.
    app.post('/api/gatehouse/auth-with-totp', async (request, reply) => {
      const body = readBody(request.body, { mfaId: 'string', code: 'string' });
      const { user, method } = await signInWithSecondStep(ctx, body, client(request));
      return rememberDevice(ctx, reply, user, {
        token: await signIn(ctx, user, client(request), method),
        record: userRecord(user, { withEmail: true }),
      });
    });
  };
}
