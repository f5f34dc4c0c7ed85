import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/connect.js';
import {
  ForbiddenError,
  NotFoundError,
  SecondStepRequiredError,
  TooManyRequestsError,
  UnauthenticatedError,
  UnavailableError,
  ValidationError,
  type FieldErrors,
  type NestedFieldErrors,
} from '../core/errors.js';

/**
 * PocketBase's error envelope, `{"data":{},"message":"…","status":N}`, and the one place that maps
 * errors to it: the domain's errors (core/errors.ts) and the HTTP layer's own refusals
 * (HttpError). Anything else is a 500 with the default message; its detail goes to the log only.
 */

export const DEFAULT_MESSAGES: Record<number, string> = {
  400: 'Something went wrong while processing your request.',
  401: 'Missing or invalid authentication.',
  403: 'You are not allowed to perform this request.',
  404: "The requested resource wasn't found.",
  413: 'Request entity too large.',
  415: 'Unsupported Content-Type.',
  429: 'Too Many Requests.',
  500: 'Something went wrong while processing your request.',
  503: 'The service is temporarily unavailable. Please try again shortly.',
};

/** Retry-After (seconds) when SQLite's write lock is held elsewhere: locks are short. */
const RETRY_AFTER_BUSY = 1;

/** A body that is not JSON, or JSON of the wrong type for a field. */
export const LOADING_FAILED = 'An error occurred while loading the submitted data.';

/** A refusal by the HTTP layer itself (bad body, unknown route, too large). */
export class HttpError extends Error {
  constructor(
    public readonly status: number,
    message?: string,
  ) {
    super(message ?? DEFAULT_MESSAGES[status] ?? DEFAULT_MESSAGES[500]);
    this.name = 'HttpError';
  }
}

export interface Envelope {
  status: number;
  message: string;
  data: FieldErrors | NestedFieldErrors;
  /** Only on the answer that asks for the second sign-in step (PocketBase's MFA answer). */
  mfaId?: string;
  /** Only on a 401 to a token that once let its device in: why it no longer does (docs/api.md). */
  reason?: string;
}

export function envelope(
  status: number,
  message?: string,
  data: FieldErrors | NestedFieldErrors = {},
): Envelope {
  return { data, message: message ?? DEFAULT_MESSAGES[status] ?? DEFAULT_MESSAGES[500]!, status };
}

/** The envelope for a known error; undefined for anything unexpected (a 500). */
export function envelopeOf(error: unknown): Envelope | undefined {
  if (error instanceof ValidationError) return envelope(400, error.message, error.fields);
  if (error instanceof NotFoundError) return envelope(404);
  if (error instanceof ForbiddenError) return envelope(403, error.reason);
  if (error instanceof UnauthenticatedError) {
    const answer = envelope(401, error.message);
    return error.reason ? { ...answer, reason: error.reason } : answer;
  }
  if (error instanceof SecondStepRequiredError) {
    return { ...envelope(401, error.message), mfaId: error.mfaId };
  }
  if (error instanceof TooManyRequestsError) return envelope(429);
  if (error instanceof HttpError) return envelope(error.status, error.message);
  if (error instanceof UnavailableError || isDatabaseUnavailable(error)) return envelope(503);
  const status = (error as Partial<FastifyError>).statusCode;
  if (status === 413 || status === 415) return envelope(status);
  // Fastify's own refusals of malformed requests (bad content, bad headers).
  if (status !== undefined && status >= 400 && status < 500) return envelope(400, LOADING_FAILED);
  return undefined;
}

/** Seconds for Retry-After on a 503. */
export function retryAfterOf(error: unknown): number {
  if (error instanceof UnavailableError) return error.retryAfterSeconds;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('SQLITE_BUSY')) return RETRY_AFTER_BUSY;
  return new UnavailableError().retryAfterSeconds;
}

/**
 * Answers any error in the envelope; an unexpected one is logged (URL redacted) and is a 500.
 * A 503 (database busy or not answering) carries Retry-After and is logged as a warning.
 */
export function replyWithError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  redactUrl: (url: string) => string,
): FastifyReply {
  const known = envelopeOf(error);
  if (known?.status === 503) {
    request.log.warn({ err: error, url: redactUrl(request.url) }, 'service unavailable');
    reply.header('retry-after', String(retryAfterOf(error)));
  }
  if (known) return reply.code(known.status).send(known);
  request.log.error({ err: error, url: redactUrl(request.url) }, 'request failed');
  return reply.code(500).send(envelope(500));
}
