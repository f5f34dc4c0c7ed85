import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as C from '../../../contract/accounts.js';
import * as OTP from '../../../contract/otp.js';
import type { AppContext } from '../core/context.js';
import { NotFoundError } from '../core/errors.js';
import { sessionToken, touchSession } from '../core/sessions.js';
import { signIn } from '../core/sign-in.js';
import { userRecord } from '../core/users.js';
import { bearerToken, requestAuth, requireAuth, requireFreshUser } from '../http/auth.js';
import { clientOf as client } from '../http/client.js';
import { multipartForms, uploadedFiles } from '../http/multipart.js';
import { confirmEmailChange, requestEmailChange } from './change-email.js';
import { deviceCookieOf, rememberDevice } from './device-cookie.js';
import { confirmPasswordReset } from './password-reset.js';
import { requestAccountMail, settleAccountMail } from './request-mail.js';
import { requestSignInCode, signInWithCode } from './sign-in-code.js';
import { signInWithPassword } from './sign-in.js';
import { exportData } from './export.js';
import { confirmVerification } from './verification.js';
import {
  clearNullFields,
  createUserRecord,
  deleteUserRecord,
  type RecordCaller,
  TOKEN_HEADER,
  updateUserRecord,
} from './records.js';
import { fileRoutes } from './file-routes.js';
import { AVATAR_FORM_LIMIT, AVATAR_MAX_BYTES } from './profile.js';

/**
 * The users collection's PocketBase-shaped endpoints. Each route's schema (contract/accounts.ts)
 * reads its body; the route hands it to its action, which owns the checks, limits and rules.
 */
export function accountRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    // Mail requests finish their work after answering: let it end before the database closes.
    app.addHook('onClose', () => settleAccountMail(ctx));

    // A completed sign-in gives the browser a device cookie: later, the per-email failure ceiling
    // does not hold it (accounts/device-cookie.ts).
    api.post(
      '/api/collections/users/auth-with-password',
      { schema: C.authWithPassword },
      async (request, reply) => {
        const user = await signInWithPassword(
          ctx,
          request.body,
          client(request),
          deviceCookieOf(request),
        );
        return rememberDevice(ctx, reply, user, {
          token: await signIn(ctx, user, client(request), 'password'),
          record: userRecord(user, { withEmail: true }),
        });
      },
    );

    // Sign-in with a code by email (PocketBase's OTP): the code is mailed after the answer, which
    // is the same for every address; a right code is a first factor for the sign-in gate.
    api.post('/api/collections/users/request-otp', { schema: OTP.requestOtp }, async (request) =>
      requestSignInCode(ctx, request.body.email, client(request)),
    );

    api.post(
      '/api/collections/users/auth-with-otp',
      { schema: OTP.authWithOtp },
      async (request) => {
        const user = await signInWithCode(ctx, request.body, client(request));
        return {
          token: await signIn(ctx, user, client(request), 'otp'),
          record: userRecord(user, { withEmail: true }),
        };
      },
    );

    // Keeps the session (moving its last seen) and hands out a fresh token for it. An operator's
    // view as a member is not renewed: PocketBase answers a token that is not refreshable with
    // itself (docs/decisions/0056).
    api.post('/api/collections/users/auth-refresh', { schema: C.authRefresh }, async (request) => {
      const { user, session } = await requireAuth(ctx, request);
      const record = userRecord(user, { withEmail: true });
      if (session.impersonated_by) return { token: bearerToken(request), record };
      await touchSession(ctx, session.id, client(request));
      return { token: sessionToken(ctx, user, session), record };
    });

    /** The caller of a record action (accounts/records.ts, shared with batch requests). */
    const caller = (request: FastifyRequest): RecordCaller => ({
      auth: () => requestAuth(ctx, request),
      client: client(request),
    });

    api.post('/api/collections/users/records', { schema: C.signUp }, async (request) =>
      createUserRecord(ctx, request.body, caller(request)),
    );

    // GET /api/collections/users/records (the list) is the operators': admin/routes.ts.

    /** The caller's own record; anyone else's, or a guest's request, is a 404. */
    const ownRecord = async (request: FastifyRequest & { params: { id: string } }) => {
      const auth = await requestAuth(ctx, request);
      if (!auth || auth.user.id !== request.params.id) throw new NotFoundError();
      return auth;
    };

    api.get('/api/collections/users/records/:id', { schema: C.viewRecord }, async (request) => {
      const { user } = await ownRecord(request);
      return userRecord(user, { withEmail: true });
    });

    // The one route that also takes multipart/form-data (the SDK sends a form when a value is a
    // File: an avatar), in a plugin of its own so that no other route reads a form
    // (http/multipart.ts; docs/decisions/0017 and 0050).
    app.register(async (forms) => {
      await multipartForms(forms, { fileLimit: AVATAR_MAX_BYTES, bodyLimit: AVATAR_FORM_LIMIT });
      // PocketBase clears `name` and removes `avatar` sent as null; other null fields are dropped
      // before the schema as unset (http/schema.ts), so these two read as '' first.
      forms.addHook('preValidation', async (request) => clearNullFields(request.body));
      forms
        .withTypeProvider<TypeBoxTypeProvider>()
        .patch(
          '/api/collections/users/records/:id',
          { schema: C.updateRecord },
          async (request, reply) => {
            const avatar = uploadedFiles(request).avatar;
            const { record, token } = await updateUserRecord(
              ctx,
              request.params.id,
              request.body,
              avatar,
              caller(request),
            );
            if (token) reply.header(TOKEN_HEADER, token);
            return record;
          },
        );
    });

    api.delete(
      '/api/collections/users/records/:id',
      { schema: C.deleteRecord },
      async (request, reply) => {
        await deleteUserRecord(ctx, request.params.id, caller(request));
        return reply.code(204).send(null);
      },
    );

    api.post(
      '/api/collections/users/request-email-change',
      { schema: C.requestEmailChange },
      async (request, reply) => {
        const user = await requireFreshUser(ctx, request);
        await requestEmailChange(ctx, user, request.body, client(request));
        return reply.code(204).send(null);
      },
    );

    api.post(
      '/api/collections/users/confirm-email-change',
      { schema: C.confirmEmailChange },
      async (request, reply) => {
        await confirmEmailChange(ctx, request.body, client(request));
        return reply.code(204).send(null);
      },
    );

    api.get('/api/gatehouse/export', { schema: C.exportData }, async (request, reply) => {
      const user = await requireFreshUser(ctx, request);
      const data = await exportData(ctx, user);
      reply.header(
        'content-disposition',
        `attachment; filename="gatehouse-export-${user.id}.json"`,
      );
      return data;
    });

    for (const [path, kind, schema] of [
      ['request-verification', 'verification', C.requestVerification],
      ['request-password-reset', 'passwordReset', C.requestPasswordReset],
    ] as const) {
      api.post(`/api/collections/users/${path}`, { schema }, async (request, reply) => {
        await requestAccountMail(ctx, kind, request.body.email, client(request));
        return reply.code(204).send(null);
      });
    }

    api.post(
      '/api/collections/users/confirm-verification',
      { schema: C.confirmVerification },
      async (request, reply) => {
        await confirmVerification(ctx, request.body, client(request));
        return reply.code(204).send(null);
      },
    );

    app.register(fileRoutes(ctx));

    api.post(
      '/api/collections/users/confirm-password-reset',
      { schema: C.confirmPasswordReset },
      async (request, reply) => {
        await confirmPasswordReset(ctx, request.body, client(request));
        return reply.code(204).send(null);
      },
    );
  };
}
