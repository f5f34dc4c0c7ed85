import { Transform } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as C from '../../../contract/batch.js';
import { AVATAR_MAX_BYTES, TOKEN_HEADER } from '../accounts/service.js';
import type { AppContext } from '../core/context.js';
import { ForbiddenError } from '../core/errors.js';
import { bearerToken } from '../http/auth.js';
import { clientOf } from '../http/client.js';
import { envelopeOf, HttpError, LOADING_FAILED } from '../http/envelope.js';
import { multipartForms, type UploadedFile, uploadedFiles } from '../http/multipart.js';
import {
  BATCH_MESSAGES,
  checkBatch,
  DEFAULT_MAX_BODY_SIZE,
  DEFAULT_TIMEOUT_SECONDS,
  runBatch,
} from './run.js';

/** The most files one batch form may carry (each an avatar of at most 5 MB). */
const MAX_FILES = 1000;

/**
 * PocketBase's batch endpoint, POST /api/batch (docs/decisions/0055): off unless the settings turn
 * it on, with PocketBase's limits (requests, time, body size) and errors; the requests run in one
 * transaction (batch/run.ts). Its body is JSON or, as the SDK sends it, `multipart/form-data`: the
 * batch as JSON in an `@jsonPayload` part and files as `requests.N.field` parts, read here only
 * (http/multipart.ts). A form from another site is refused like any form elsewhere (415,
 * docs/decisions/0017): browsers send one without asking first, and it could sign up from the
 * visitor's address.
 */
export function batchRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const bodyLimit = () => ctx.settings.batch.maxBodySize || DEFAULT_MAX_BODY_SIZE;

    // Before the body is read: refused while off, as PocketBase does, and a form from elsewhere.
    app.addHook('onRequest', async (request) => {
      const { enabled, maxRequests } = ctx.settings.batch;
      if (!enabled || maxRequests <= 0) throw new ForbiddenError(BATCH_MESSAGES.notAllowed);
      if (isForm(request) && fromAnotherSite(request)) throw new HttpError(415);
    });

    // A JSON body is held to the settings' size as it arrives (a form: http/multipart.ts).
    app.addHook('preParsing', async (request, _reply, payload) => {
      if (isForm(request)) return payload;
      const limit = bodyLimit();
      if (Number(request.headers['content-length'] ?? 0) > limit) throw new HttpError(413);
      return capped(payload, limit);
    });

    await multipartForms(app, {
      fileLimit: AVATAR_MAX_BYTES,
      bodyLimit,
      files: MAX_FILES,
      fieldLimit: DEFAULT_MAX_BODY_SIZE,
    });

    // A body that cannot be read at all is PocketBase's batch message, not the usual one.
    app.setErrorHandler((error) => {
      const known = envelopeOf(error);
      if (known?.status === 400 && known.message === LOADING_FAILED) {
        throw new HttpError(400, BATCH_MESSAGES.readFailed);
      }
      throw error;
    });

    app.withTypeProvider<TypeBoxTypeProvider>().post(
      '/api/batch',
      // The settings' limit is applied above; this one only lets Fastify read up to it.
      { schema: C.batch, bodyLimit: Number.MAX_SAFE_INTEGER },
      async (request, reply) => {
        const { maxRequests, timeout } = ctx.settings.batch;
        const requests = checkBatch(request.body.requests, maxRequests);
        const files = filesByRequest(uploadedFiles(request), requests.length);
        // The client going away before the answer ends the batch (PocketBase's "interrupted").
        const left = new AbortController();
        const onClose = () => {
          if (!reply.raw.writableFinished) left.abort();
        };
        reply.raw.once('close', onClose);
        try {
          const { results, token } = await runBatch(
            ctx,
            { requests, files, token: bearerToken(request), client: clientOf(request) },
            { timeoutMs: (timeout || DEFAULT_TIMEOUT_SECONDS) * 1000, signal: left.signal },
          );
          if (token) reply.header(TOKEN_HEADER, token);
          return results;
        } finally {
          reply.raw.off('close', onClose);
        }
      },
    );
  };
}

function isForm(request: FastifyRequest): boolean {
  const type = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
  return type === 'multipart/form-data' || type === 'application/x-www-form-urlencoded';
}

/**
 * Whether a browser says the request comes from a page of another site: `Sec-Fetch-Site` (every
 * current browser sends it), else an `Origin` that is not this host. Clients that are not browsers
 * send neither.
 */
function fromAnotherSite(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}

/**
 * Each request's files: `requests.N.field` or `requests[N].field` parts, as PocketBase takes
 * them; parts for no request are ignored.
 */
function filesByRequest(
  uploads: Record<string, UploadedFile>,
  count: number,
): Array<Record<string, UploadedFile>> {
  // Without a prototype: a part named `requests.0.__proto__` is a field like any other.
  const files = Array.from(
    { length: count },
    () => Object.create(null) as Record<string, UploadedFile>,
  );
  for (const [name, file] of Object.entries(uploads)) {
    const match = /^requests(?:\.(\d+)\.|\[(\d+)\]\.)(.+)$/.exec(name);
    if (!match) continue;
    const index = Number(match[1] ?? match[2]);
    if (index < count) files[index]![match[3]!] = file;
  }
  return files;
}

/** `payload`, failing with 413 once more than `limit` bytes have come. */
function capped(payload: NodeJS.ReadableStream, limit: number): NodeJS.ReadableStream {
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > limit) done(new HttpError(413));
      else done(null, chunk);
    },
  });
  payload.on('error', (error) => counter.destroy(error));
  return payload.pipe(counter);
}
