import { t } from '@lingui/core/macro';
import type { ClientResponseError } from 'pocketbase';

/**
 * The one reader of the API's errors. The server answers a failure in PocketBase's envelope
 * (`{"data":{…},"message":"…","status":N}`, docs/api.md); the SDK hands it over as a
 * `ClientResponseError` (`status`, `response`: the envelope, `isAbort`). Screens ask this module
 * what an error says instead of picking it apart themselves.
 *
 * It reads errors by shape, never with `instanceof`, and imports the SDK's types only: the login
 * screen reads errors before the SDK has loaded, and the SDK stays out of a visitor's first
 * download (docs/decisions/0045).
 */

/** What the app reads of the SDK's error. */
type SdkError = Pick<ClientResponseError, 'status' | 'response' | 'isAbort'>;

/** One field's problem in the envelope's `data` (`validation_…` code, and words for it). */
export interface RefusedField {
  code?: string;
  message?: string;
  /** The rule's limits, when it has any (`{min, max}` of a length). */
  params?: Record<string, unknown>;
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

/** A non-empty string, or undefined. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}

/** `err` as the SDK's error (a status and the answer's body), or null when it is not one. */
function sdkError(err: unknown): SdkError | null {
  const shape = record(err);
  return shape && typeof shape.status === 'number' && record(shape.response)
    ? (shape as unknown as SdkError)
    : null;
}

/**
 * The HTTP status a failure carries: the server's answer, or 0 when none came (offline, aborted).
 * Undefined for anything else (a browser's WebAuthn error). Besides the SDK's errors this reads
 * any error with a numeric `status`, such as the passkey prompt's refused options request.
 */
export function statusOf(err: unknown): number | undefined {
  const status = record(err)?.status;
  return typeof status === 'number' ? status : undefined;
}

/**
 * The server's message (`message` of the envelope), or undefined when it gave none worth showing.
 * An error that is not the SDK's gives its own message (the words of a thrown `Error`).
 */
export function messageOf(err: unknown): string | undefined {
  const failure = sdkError(err);
  if (failure) return text(failure.response.message);
  return err instanceof Error ? text(err.message) : undefined;
}

/**
 * The fields the server refused (`data` of a 400), by field name; empty when there are none. With
 * `section`, those of that section of a form whose errors are nested (the app settings':
 * `data.smtp.port`).
 */
export function fieldErrorsOf(err: unknown, section?: string): Record<string, RefusedField> {
  let data = record(sdkError(err)?.response.data);
  if (section) data = record(data?.[section]);
  const fields: Record<string, RefusedField> = {};
  for (const [field, value] of Object.entries(data ?? {})) {
    const problem = record(value);
    if (!problem) continue;
    fields[field] = {
      code: text(problem.code),
      message: text(problem.message),
      ...(record(problem.params) && { params: record(problem.params)! }),
    };
  }
  return fields;
}

/** The server's words for one refused field, if any. */
export function fieldMessageOf(err: unknown, field: string): string | undefined {
  return fieldErrorsOf(err)[field]?.message;
}

/** The code (`validation_…`) of one refused field, if any. */
export function fieldCodeOf(err: unknown, field: string): string | undefined {
  return fieldErrorsOf(err)[field]?.code;
}

/**
 * The `mfaId` of a first step's 401 (a password, a passkey, a provider) asking for the second
 * step of the sign-in, if it is one. The envelope carries it beside `message`, as PocketBase does.
 */
export function mfaIdOf(err: unknown): string | undefined {
  const failure = sdkError(err);
  return failure?.status === 401 ? text(failure.response.mfaId) : undefined;
}

/** Why a session ended elsewhere, as a 401 tells a device that still held it (docs/api.md). */
export type SessionEndReason = 'signed-out' | 'password-changed' | 'disabled' | 'expired';

/**
 * The `reason` of a 401's body (an SDK error's, or the body itself). A reason this app does not
 * know yet has no text on the login screen, which then says nothing more than before.
 */
export function endReasonOf(errOrBody: unknown): SessionEndReason | undefined {
  const failure = sdkError(errOrBody);
  const body = failure
    ? failure.status === 401
      ? failure.response
      : undefined
    : record(errOrBody);
  return text(body?.reason) as SessionEndReason | undefined;
}

/**
 * Whether the request or prompt was ended on this side before it finished (an aborted request, a
 * page that ended a browser prompt, an action the member did not confirm): nothing to report as a
 * failure of the server.
 */
export function isAbort(err: unknown): boolean {
  const shape = record(err);
  return shape?.isAbort === true || shape?.name === 'AbortError';
}

/** The server's message for an action that needs a recent confirmation (docs/api.md). */
export const CONFIRM_IT_IS_YOU = "Confirm it's you to continue.";

/** Whether `err` is the server's "Confirm it's you" refusal. */
export function needsConfirmation(err: unknown): boolean {
  return statusOf(err) === 403 && sdkError(err)?.response.message === CONFIRM_IT_IS_YOU;
}

/**
 * What an action the member did not confirm fails with (Cancel in "Confirm it's you", see
 * `confirmed` in `lib/pb.ts`). It is a quiet note, not an error: the places that show an action's
 * failure (`LiveMessage`, `useFormSubmit`) show it as a status.
 */
export const NOT_CONFIRMED_MESSAGE = 'Cancelled. Nothing was changed.';

/** `NOT_CONFIRMED_MESSAGE` in the member's language: what the screens show for it. */
export const notConfirmedText = () => t`Cancelled. Nothing was changed.`;

/** Whether `err` is an action the member chose not to confirm. */
export function isNotConfirmed(err: unknown): boolean {
  return isAbort(err) && sdkError(err)?.response.message === NOT_CONFIRMED_MESSAGE;
}
