import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../core/context.js';
import { startSession } from '../core/sessions.js';
import { userRecord } from '../core/users.js';
import { requireUser } from '../http/auth.js';
import { readBody } from '../http/body.js';
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

    app.post('/api/gatehouse/totp/setup', async (request) => {
      return setUpTotp(ctx, await requireUser(ctx, request));
    });

    app.post('/api/gatehouse/totp/enable', async (request) => {
      const user = await requireUser(ctx, request);
      const body = readBody(request.body, { code: 'string' });
      return enableTotp(ctx, user, body, client(request));
    });

    app.post('/api/gatehouse/totp/disable', async (request, reply) => {
      const user = await requireUser(ctx, request);
      const body = readBody(request.body, { password: 'string' });
      await disableTotp(ctx, user, body, client(request));
      return reply.code(204).send();
    });

    app.post('/api/gatehouse/recovery-codes', async (request) => {
      const user = await requireUser(ctx, request);
      const body = readBody(request.body, { password: 'string' });
      return renewRecoveryCodes(ctx, user, body, client(request));
    });

    app.post('/api/gatehouse/auth-with-totp', async (request) => {
      const body = readBody(request.body, { mfaId: 'string', code: 'string' });
      const { user, method } = await signInWithSecondStep(ctx, body, client(request));
      return {
        token: await startSession(ctx, user, client(request), method),
        record: userRecord(user, { withEmail: true }),
      };
    });
  };
}
