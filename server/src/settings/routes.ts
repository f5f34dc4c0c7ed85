import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as C from '../../../contract/settings.js';
import type { AppContext } from '../core/context.js';
import { assertFresh } from '../core/reauth.js';
import { requireSuperuser } from '../http/auth.js';
import { clientOf } from '../http/client.js';
import { sendTestEmail } from './test-email.js';
import { updateSettings } from './update.js';

/**
 * The app's settings, PocketBase's settings API (core/settings.ts holds them; docs/decisions/0054):
 * operators read them and send test mail; a change also needs a fresh session, like the console's
 * other actions (docs/decisions/0046). A change and a test email are in the operator's security
 * log. Each route's schema is in contract/settings.ts.
 */
export function settingsRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/api/settings', { schema: C.getSettings }, async (request) => {
      await requireSuperuser(ctx, request);
      return settingsAnswer(ctx);
    });

    api.patch('/api/settings', { schema: C.updateSettings }, async (request) => {
      const { user } = assertFresh(ctx, await requireSuperuser(ctx, request));
      await updateSettings(ctx, request.body, { userId: user.id, client: clientOf(request) });
      return settingsAnswer(ctx);
    });

    api.post('/api/settings/test/email', { schema: C.testEmail }, async (request, reply) => {
      const { user } = await requireSuperuser(ctx, request);
      await sendTestEmail(ctx, request.body, {
        userId: user.id,
        client: clientOf(request),
        language: user.language,
      });
      return reply.code(204).send(null);
    });
  };
}

/** What GET and PATCH answer: every value in force but the SMTP password (PocketBase omits it). */
function settingsAnswer(ctx: AppContext): C.SettingsAnswer {
  const { smtp, backups, meta, batch, logs, gatehouse } = ctx.settings.values();
  const { password: _password, ...shown } = smtp;
  const { lockedByEnv } = ctx.settings;
  return { smtp: shown, backups, meta, batch, logs, gatehouse, lockedByEnv };
}
