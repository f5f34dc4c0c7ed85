import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as C from '../../../contract/files.js';
import type { AppContext } from '../core/context.js';
import { NotFoundError } from '../core/errors.js';
import { sessionEnd } from '../core/sessions.js';
import { USERS_COLLECTION_ID, USERS_COLLECTION_NAME } from '../core/tokens.js';
import { findAuthByToken, findUserById } from '../core/users.js';
import { requireAuth } from '../http/auth.js';
import { avatarFile, maySeeFilesOf } from './avatars.js';

/**
 * Uploaded files, served as PocketBase serves a protected file field's: an `<img>` sends no
 * Authorization header, so the URL carries a short-lived file token (`?token=`), asked for with
 * the member's auth token (the SDK's `pb.files.getToken()`). Anyone the file is not for gets the
 * same 404 as for a file that does not exist.
 */

/** What a served file may do in a browser: nothing (PocketBase's header for its files). */
const FILE_POLICY = "default-src 'none'; media-src 'self'; style-src 'unsafe-inline'; sandbox";

/** Go's strconv.ParseBool's "true" (PocketBase's `download` parameter). */
const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

export function fileRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    // Bound to this session: it dies with it (sign-out, another device ending it), and after three
    // minutes in any case.
    api.post('/api/files/token', { schema: C.fileToken }, async (request) => {
      const { user, session } = await requireAuth(ctx, request);
      return {
        token: ctx.tokens.sign('file', user, { sid: session.id, notAfter: sessionEnd(session) }),
      };
    });

    api.get(
      '/api/files/:collection/:recordId/:filename',
      { schema: C.downloadFile },
      async (request, reply) => {
        const { collection, recordId, filename } = request.params;
        // The SDK names the collection by its id (`pb.files.getURL`), a person by its name.
        if (collection !== USERS_COLLECTION_NAME && collection !== USERS_COLLECTION_ID) {
          throw new NotFoundError();
        }
        const viewer = await findAuthByToken(ctx, request.query.token ?? '', 'file');
        if (!viewer) throw new NotFoundError();
        const owner = await findUserById(ctx, recordId);
        if (!owner || !maySeeFilesOf(viewer.user, owner)) throw new NotFoundError();
        const file = await avatarFile(ctx, owner, filename, request.query.thumb);
        if (!file) throw new NotFoundError();
        const disposition = TRUE.has(request.query.download ?? '') ? 'attachment' : 'inline';
        return (
          reply
            .header('content-type', file.type)
            .header('content-disposition', `${disposition}; filename=${file.name}`)
            .header('content-security-policy', FILE_POLICY)
            // The content at a name never changes (a new upload gets a new name); the URL's token
            // lives three minutes, so a cached copy is never kept much longer than that.
            .header('cache-control', 'private, max-age=180')
            .send(file.data)
        );
      },
    );
  };
}
