import * as Accounts from '../../../contract/accounts.js';
import type { BatchRequest, BatchResult } from '../../../contract/batch.js';
import {
  clearNullFields,
  createUserRecord,
  deleteUserRecord,
  type RecordCaller,
  updateUserRecord,
  userRecordExists,
} from '../accounts/service.js';
import type { AppContext, Client } from '../core/context.js';
import {
  type FieldError,
  type FieldErrors,
  fieldError,
  type NestedFieldErrors,
  ValidationError,
} from '../core/errors.js';
import { inOneTransaction, TransactionEndedError } from '../core/one-transaction.js';
import { API_LIMIT } from '../core/rate-limit.js';
import { findAuthByToken } from '../core/users.js';
import { type Envelope, envelopeOf, HttpError, LOADING_FAILED } from '../http/envelope.js';
import type { UploadedFile } from '../http/multipart.js';
import { readBodyAs } from '../http/schema.js';

/**
 * A batch's requests, run as PocketBase's apis/batch.go runs them: in order, in one transaction
 * (core/one-transaction.ts), each by the action its own route runs (accounts/records.ts), with the
 * batch's caller as theirs. The first request that fails fails the batch, and nothing is saved.
 */

/** PocketBase's messages. */
export const BATCH_MESSAGES = {
  notAllowed: 'Batch requests are not allowed.',
  readFailed: 'Failed to read the submitted batch data.',
  invalid: 'Invalid batch request data.',
  failed: 'Batch transaction failed.',
  requestFailed: 'Batch request failed.',
  missingCollection: 'Missing collection context.',
} as const;

/** PocketBase's defaults for a setting of 0: a 3-second transaction, a 128 MiB body. */
export const DEFAULT_TIMEOUT_SECONDS = 3;
export const DEFAULT_MAX_BODY_SIZE = 128 * 1024 * 1024;

/** The actions a batch may hold (PocketBase's ValidBatchActions), by method and URL. */
const ACTIONS = [
  ['upsert', /^PUT \/api\/collections\/(?<collection>[^/?]+)\/records(?:\?.*)?$/],
  ['create', /^POST \/api\/collections\/(?<collection>[^/?]+)\/records(?:\?.*)?$/],
  ['update', /^PATCH \/api\/collections\/(?<collection>[^/?]+)\/records\/(?<id>[^/?]+)(?:\?.*)?$/],
  ['delete', /^DELETE \/api\/collections\/(?<collection>[^/?]+)\/records\/(?<id>[^/?]+)(?:\?.*)?$/],
] as const;

type Action = (typeof ACTIONS)[number][0];

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const URL_MAX_BYTES = 2000;

/** ozzo-validation's Length(0, max) error, as PocketBase answers it. */
const lengthTooLong = (max: number): FieldError => ({
  code: 'validation_length_too_long',
  message: `The length must be no more than ${max}.`,
  params: { max, min: 0 },
});

const notIn = (): FieldError => ({
  code: 'validation_in_invalid',
  message: 'Must be a valid value.',
});

/**
 * PocketBase's checks of the batch itself: at least one request and at most `maxRequests`, each
 * with a method and a URL; 400 `Invalid batch request data.` otherwise. Returns the requests.
 */
export function checkBatch(
  requests: readonly BatchRequest[] | undefined,
  maxRequests: number,
): readonly BatchRequest[] {
  if (!requests || requests.length === 0) {
    throw new ValidationError(BATCH_MESSAGES.invalid, { requests: fieldError.required() });
  }
  if (requests.length > maxRequests) {
    throw new ValidationError(BATCH_MESSAGES.invalid, { requests: lengthTooLong(maxRequests) });
  }
  const problems: NestedFieldErrors = {};
  requests.forEach((request, index) => {
    const errors: FieldErrors = {};
    const method = request.method ?? '';
    const url = request.url ?? '';
    if (method === '') errors.method = fieldError.required();
    else if (!METHODS.includes(method)) errors.method = notIn();
    if (url === '') errors.url = fieldError.required();
    else if (Buffer.byteLength(url) > URL_MAX_BYTES) errors.url = lengthTooLong(URL_MAX_BYTES);
    if (Object.keys(errors).length > 0) problems[String(index)] = errors;
  });
  if (Object.keys(problems).length > 0) {
    throw new ValidationError(BATCH_MESSAGES.invalid, { requests: problems });
  }
  return requests;
}

/** A batch to run: its requests, each one's files, and the batch's caller. */
export interface Batch {
  requests: readonly BatchRequest[];
  /** Request `i`'s files by field (`requests.i.avatar` in the form: `avatar`). */
  files: ReadonlyArray<Record<string, UploadedFile>>;
  /** The batch's auth token ('' for a guest). */
  token: string;
  client: Client;
}

/** The batch failed: one request did (its index and answer), or the transaction ran out. */
export class BatchFailedError extends ValidationError {
  constructor(data: NestedFieldErrors = {}) {
    super(BATCH_MESSAGES.failed, data);
    this.name = 'BatchFailedError';
  }
}

/** One request failed: which, and how its route answers it. */
class RequestFailed extends Error {
  constructor(
    readonly index: number,
    readonly response: Envelope,
  ) {
    super(`batch request ${index} failed (${response.status})`);
  }
}

/**
 * Runs the batch in one transaction of at most `timeoutMs`; answers each request's status and
 * body, and the caller's fresh token when a request changed their password. A failing request,
 * the time limit or `signal` (the client left) roll everything back: BatchFailedError.
 */
export async function runBatch(
  ctx: AppContext,
  batch: Batch,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<{ results: BatchResult[]; token?: string }> {
  const state = { token: batch.token, renewed: false };
  try {
    const results = await inOneTransaction(ctx, options, async (tx) => {
      const answers: BatchResult[] = [];
      for (const [index, request] of batch.requests.entries()) {
        try {
          answers.push(await runRequest(tx, request, batch.files[index] ?? {}, batch, state));
        } catch (error) {
          throw new RequestFailed(index, answerOf(ctx, error));
        }
      }
      return answers;
    });
    return { results, ...(state.renewed ? { token: state.token } : {}) };
  } catch (error) {
    if (error instanceof RequestFailed) {
      throw new BatchFailedError({
        requests: {
          [String(error.index)]: {
            code: 'batch_request_failed',
            message: BATCH_MESSAGES.requestFailed,
            response: error.response,
          } as unknown as FieldError,
        },
      });
    }
    if (error instanceof TransactionEndedError) throw new BatchFailedError();
    throw error;
  }
}

/**
 * A failed request's answer, its route's: a known refusal as its envelope; a database that does not
 * answer fails the whole batch as it fails any request (503); anything else is logged and a 500.
 */
function answerOf(ctx: AppContext, error: unknown): Envelope {
  const known = envelopeOf(error);
  if (known?.status === 503 || error instanceof TransactionEndedError) throw error;
  if (known) return known;
  ctx.log.error({ err: error }, 'a batch request failed');
  return envelopeOf(new HttpError(500))!;
}

/** Runs one request with the batch's caller; its answer as its route gives it. */
async function runRequest(
  ctx: AppContext,
  request: BatchRequest,
  files: Record<string, UploadedFile>,
  batch: Batch,
  state: { token: string; renewed: boolean },
): Promise<BatchResult> {
  // Each request counts against the API limit as it would sent alone.
  await ctx.limiter.check(API_LIMIT, batch.client.network);
  const found = actionOf(request.method ?? '', request.url ?? '');
  // PocketBase's answer to what is not a record change of a collection: its generic 400.
  if (!found) throw new HttpError(400);
  if (found.collection !== 'users') throw new HttpError(404, BATCH_MESSAGES.missingCollection);
  const caller: RecordCaller = {
    // Read again for each request, in the transaction: a request sees what the ones before did.
    auth: () => findAuthByToken(ctx, state.token),
    client: batch.client,
  };
  const body = request.body ?? undefined;

  let action: Action = found.action;
  let id = found.id;
  if (action === 'upsert') {
    // PocketBase's upsert: an update when the body names a record that exists, else a create.
    const named = body?.id;
    id = typeof named === 'string' || typeof named === 'number' ? String(named) : '';
    action = id !== '' && (await userRecordExists(ctx, id)) ? 'update' : 'create';
  }

  switch (action) {
    case 'create': {
      const read = readBodyAs(Accounts.signUp.body, body);
      if (!read) throw new HttpError(400, LOADING_FAILED);
      return { body: await createUserRecord(ctx, read, caller), status: 200 };
    }
    case 'update': {
      clearNullFields(body);
      const read = readBodyAs(Accounts.updateRecord.body, body);
      if (!read) throw new HttpError(400, LOADING_FAILED);
      const { record, token } = await updateUserRecord(ctx, id, read, files.avatar, caller);
      if (token) Object.assign(state, { token, renewed: true });
      return { body: record, status: 200 };
    }
    case 'delete':
      await deleteUserRecord(ctx, id, caller);
      return { body: null, status: 204 };
  }
  throw new HttpError(400);
}

/** The action `method url` names, its collection and record id (URL-decoded), or undefined. */
function actionOf(
  method: string,
  url: string,
): { action: Action; collection: string; id: string } | undefined {
  const line = `${method.toUpperCase()} ${url}`;
  for (const [action, pattern] of ACTIONS) {
    const match = pattern.exec(line);
    if (!match) continue;
    const { collection = '', id = '' } = match.groups ?? {};
    return { action, collection: decoded(collection), id: decoded(id) };
  }
  return undefined;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
