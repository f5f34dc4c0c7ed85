/**
 * The errors domain code raises. They say what went wrong (a validation failure, something not
 * found, an action not allowed), not how HTTP shows it: `http/envelope.ts` is the one place that
 * turns them into PocketBase's error envelope.
 */

export interface FieldError {
  code: string;
  message: string;
  params?: Record<string, number | string>;
}

export type FieldErrors = Record<string, FieldError>;

/**
 * The errors of a form in parts (the settings' `smtp.port`), nested as its fields are: PocketBase
 * answers `{"data":{"smtp":{"port":{"code":…,"message":…}}}}`.
 */
export interface NestedFieldErrors {
  [part: string]: FieldError | NestedFieldErrors;
}

/** The message of a validation failure on the auth actions (PocketBase's). */
export const VALIDATION_FAILED = 'An error occurred while validating the submitted data.';

/** The answer to a disabled account's right password (403). */
export const ACCOUNT_DISABLED = 'This account has been disabled.';

/** What an unverified member may not do yet (403): add a way in, or use one added before. */
export const VERIFY_EMAIL_FIRST = 'Verify your email first.';

/** A sensitive action outside the session's fresh window (403; core/reauth.ts). */
export const CONFIRM_IT_IS_YOU = "Confirm it's you to continue.";

/**
 * What an operator viewing as a member cannot do (403; core/reauth.ts): what needs the member's
 * own confirmation, or changes how they sign in.
 */
export const NOT_WHILE_VIEWING_AS =
  'Only the member can do this: it cannot be done while viewing as them.';

/** Input that breaks a rule: a message for the whole request, and one error per field. */
export class ValidationError extends Error {
  constructor(
    message: string,
    public readonly fields: FieldErrors | NestedFieldErrors = {},
  ) {
    super(message);
    this.name = 'ValidationError';
  }
}

/** The thing asked for does not exist, or the caller may not know that it does. */
export class NotFoundError extends Error {
  constructor() {
    super('Not found');
    this.name = 'NotFoundError';
  }
}

/** The caller is known but may not do this; `message` is shown when given. */
export class ForbiddenError extends Error {
  constructor(public readonly reason?: string) {
    super(reason ?? 'Forbidden');
    this.name = 'ForbiddenError';
  }
}

/** The action needs a signed-in member and the request has none. */
export class UnauthenticatedError extends Error {
  /**
   * @param reason why a token that once let its device in no longer does (core/users.ts
   *   `sessionEndReason`), answered as the 401's `reason`.
   */
  constructor(readonly reason?: string) {
    super('The request requires valid record authorization token.');
    this.name = 'UnauthenticatedError';
  }
}

/**
 * The password was right but the member has two-step sign-in on: no token yet. The answer is
 * PocketBase's MFA answer, a 401 that also carries `mfaId` (core/second-step.ts).
 */
export class SecondStepRequiredError extends Error {
  constructor(public readonly mfaId: string) {
    super('Please complete the second authentication step.');
    this.name = 'SecondStepRequiredError';
  }
}

/** Over an abuse limit. */
export class TooManyRequestsError extends Error {
  constructor() {
    super('Too Many Requests.');
    this.name = 'TooManyRequestsError';
  }
}

/**
 * The service cannot answer now but may soon: the database is busy or does not answer in time,
 * or the server is shutting down. `retryAfterSeconds` is a hint for the client.
 */
export class UnavailableError extends Error {
  constructor(public readonly retryAfterSeconds = 5) {
    super('Service unavailable');
    this.name = 'UnavailableError';
  }
}

/** Throws a ValidationError with `message` when any field has an error. */
export function assertNoFieldErrors(errors: FieldErrors, message: string): void {
  if (Object.keys(errors).length > 0) throw new ValidationError(message, errors);
}

/** The field error codes the API uses, with their exact messages (PocketBase's, plus ours). */
export const fieldError = {
  required: (): FieldError => ({ code: 'validation_required', message: 'Cannot be blank.' }),
  isEmail: (): FieldError => ({
    code: 'validation_is_email',
    message: 'Must be a valid email address.',
  }),
  minText: (min: number): FieldError => ({
    code: 'validation_min_text_constraint',
    message: `Must be at least ${min} character(s).`,
    params: { min },
  }),
  maxText: (max: number): FieldError => ({
    code: 'validation_max_text_constraint',
    message: `Must be no more than ${max} character(s).`,
    params: { max },
  }),
  lengthOutOfRange: (min: number, max: number): FieldError => ({
    code: 'validation_length_out_of_range',
    message: `The length must be between ${min} and ${max}.`,
    params: { min, max },
  }),
  mismatch: (): FieldError => ({
    code: 'validation_values_mismatch',
    message: "Values don't match.",
  }),
  notUnique: (): FieldError => ({
    code: 'validation_not_unique',
    message: 'Value must be unique.',
  }),
  invalidToken: (): FieldError => ({
    code: 'validation_invalid_token',
    message: 'Invalid or expired token.',
  }),
  invalidTokenClaims: (): FieldError => ({
    code: 'validation_invalid_token_claims',
    message: 'Missing email token claim.',
  }),
  invalidInviteCode: (): FieldError => ({
    code: 'validation_invalid_invite_code',
    message: 'Invalid or already used invite code.',
  }),
  invalidPassword: (): FieldError => ({
    code: 'validation_invalid_password',
    message: 'Missing or invalid auth record password.',
  }),
  invalidCode: (): FieldError => ({
    code: 'validation_invalid_code',
    message: 'Invalid or expired code.',
  }),
  invalidMfaId: (): FieldError => ({
    code: 'validation_invalid_mfa_id',
    message: 'Invalid or expired second-step session.',
  }),
  invalidPasskey: (): FieldError => ({
    code: 'validation_invalid_passkey',
    message: 'Invalid or expired passkey response.',
  }),
  numberOutOfRange: (min: number, max: number): FieldError => ({
    code: 'validation_number_out_of_range',
    message: `Must be a whole number from ${min} to ${max}.`,
    params: { min, max },
  }),
  passwordTooCommon: (): FieldError => ({
    code: 'validation_password_too_common',
    message: 'This password is too common. Choose one that is harder to guess.',
  }),
};
