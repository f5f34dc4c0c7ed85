import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError, LOADING_FAILED } from './envelope.js';

/**
 * `multipart/form-data` for the few routes that take a file (the record update's avatar), read as
 * PocketBase reads such a form: text parts are the body's fields (`true`/`false` where the route's
 * schema has a yes/no field), an `@jsonPayload` part holds more fields as JSON (the SDK sends
 * objects and `null` that way), and files are kept aside (uploadedFiles), never in the body, so a
 * JSON body can never pass for an upload. Registered inside the plugin that holds those routes
 * only: everywhere else a body must be JSON (docs/decisions/0017, 0050).
 */

export interface UploadedFile {
  /** The name the client gave the file (for messages and the readable part of the stored name). */
  filename: string;
  /** The bytes; when `truncated`, only the first `fileLimit` of them. Empty when on disk (`path`). */
  data: Buffer;
  /**
   * With MultipartLimits.fileDir: the file the bytes were written to (0600). The route moves it
   * where it belongs; what is still there when the answer is sent is removed.
   */
  path?: string;
  /** The file was larger than `fileLimit`. */
  truncated: boolean;
}

export interface MultipartLimits {
  /** Largest file taken whole; a larger one is read up to this and marked `truncated`. */
  fileLimit: number;
  /** Largest whole request (413 beyond it); a function is asked at each request (a setting). */
  bodyLimit: number | (() => number);
  /** How many files one request may carry (413 beyond it); 1 unless given. */
  files?: number;
  /** Largest text part (413 beyond it); 64 KiB unless given. */
  fieldLimit?: number;
  /**
   * A folder to write files to as they arrive, instead of memory (a backup of any size): each gets
   * a temporary name of its own there (UploadedFile.path).
   */
  fileDir?: string;
}

/** A text part is a short field, like a whole JSON body elsewhere (app.ts). */
const FIELD_LIMIT = 64 * 1024;
const MAX_FIELDS = 50;
const JSON_PAYLOAD = '@jsonPayload';

const uploads = new WeakMap<FastifyRequest, Record<string, UploadedFile>>();

/** The files a multipart request carried, by field name (none for a JSON request). */
export function uploadedFiles(request: FastifyRequest): Record<string, UploadedFile> {
  return uploads.get(request) ?? {};
}

/** Adds multipart form reading to `app` (a plugin's own instance: its routes only). */
export async function multipartForms(app: FastifyInstance, limits: MultipartLimits) {
  await app.register(multipart, {
    limits: {
      fileSize: limits.fileLimit,
      files: limits.files ?? 1,
      fields: MAX_FIELDS,
      fieldSize: limits.fieldLimit ?? FIELD_LIMIT,
      parts: MAX_FIELDS + (limits.files ?? 1),
    },
    // A file over the limit is a field error of the route's (PocketBase's), not a failed request.
    throwFileSizeLimit: false,
  });

  app.addHook('preValidation', async (request) => {
    if (!request.isMultipart()) return;
    const bodyLimit =
      typeof limits.bodyLimit === 'function' ? limits.bodyLimit() : limits.bodyLimit;
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > bodyLimit) throw new HttpError(413);
    // A body without a length (chunked) is counted as it arrives, and cut off past the limit.
    let received = 0;
    request.raw.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > bodyLimit) request.raw.destroy(new HttpError(413));
    });

    const body: Record<string, unknown> = {};
    const files: Record<string, UploadedFile> = {};
    // Known at once: files already on disk are removed even when the form fails half-way.
    uploads.set(request, files);
    try {
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          if (limits.fileDir) {
            const target = path.join(limits.fileDir, `.upload-${randomBytes(9).toString('hex')}`);
            files[part.fieldname] = {
              filename: part.filename,
              data: EMPTY,
              path: target,
              truncated: false,
            };
            await pipeline(part.file, fs.createWriteStream(target, { mode: 0o600 }));
            files[part.fieldname]!.truncated = part.file.truncated;
            continue;
          }
          const data = await part.toBuffer();
          files[part.fieldname] = {
            filename: part.filename,
            data,
            truncated: part.file.truncated,
          };
          continue;
        }
        if (part.valueTruncated || part.fieldnameTruncated) throw new HttpError(413);
        if (part.fieldname === JSON_PAYLOAD) mergeJson(body, part.value);
        else addField(body, part.fieldname, formValue(request, part.fieldname, part.value));
      }
    } catch (error) {
      throw unreadable(error);
    }
    request.body = body;
  });

  // Files written to disk that the route did not take (it failed, or refused them) go.
  if (limits.fileDir) {
    app.addHook('onResponse', async (request) => {
      for (const file of Object.values(uploads.get(request) ?? {})) {
        if (file.path) fs.rmSync(file.path, { force: true });
      }
    });
  }
}

const EMPTY = Buffer.alloc(0);

/**
 * A form that cannot be read is the client's: the limits' own 413s and refusals keep their
 * status; anything the parser throws without one (no boundary, a form cut short) is PocketBase's
 * loading error, 400.
 */
function unreadable(error: unknown): unknown {
  if (error instanceof HttpError) return error;
  if (typeof (error as { statusCode?: unknown } | null)?.statusCode === 'number') return error;
  return new HttpError(400, LOADING_FAILED);
}

/** Fields named like Object.prototype's own would change the body's prototype, not a field. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** A repeated field becomes a list, as PocketBase reads it (and the route's schema refuses it). */
function addField(body: Record<string, unknown>, name: string, value: unknown): void {
  if (FORBIDDEN.has(name)) throw new HttpError(400, LOADING_FAILED);
  if (!Object.hasOwn(body, name)) body[name] = value;
  else if (Array.isArray(body[name])) (body[name] as unknown[]).push(value);
  else body[name] = [body[name], value];
}

/** `@jsonPayload`: a JSON object whose fields are the body's (set over the text parts). */
function mergeJson(body: Record<string, unknown>, value: unknown): void {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new HttpError(400, LOADING_FAILED);
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new HttpError(400, LOADING_FAILED);
  }
  for (const [name, field] of Object.entries(parsed)) {
    if (FORBIDDEN.has(name)) throw new HttpError(400, LOADING_FAILED);
    body[name] = field;
  }
}

/** Go's strconv.ParseBool, which PocketBase's form reading comes down to for a yes/no field. */
const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** A text part's value as the route's body schema wants it: a yes/no field's text as a boolean. */
function formValue(request: FastifyRequest, name: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const schema = request.routeOptions.schema?.body as
    { properties?: Record<string, { type?: unknown }> } | undefined;
  if (schema?.properties?.[name]?.type !== 'boolean') return value;
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  return value;
}
