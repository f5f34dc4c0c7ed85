/**
 * PocketBase's error envelope: `{"data":{},"message":"…","status":N}`. Every error the API
 * answers is an ApiError; anything else becomes a 500 with the default message (the detail is
 * logged, never sent).
 */

export interface FieldError {
  code: string;
  message: string;
  params?: Record<string, number>;
}

export type FieldErrors = Record<string, FieldError>;

export const DEFAULT_MESSAGES: Record<number, string> = {
  400: 'Something went wrong while processing your request.',
  401: 'Missing or invalid authentication.',
  403: 'You are not allowed to perform this request.',
  404: "The requested resource wasn't found.",
  413: 'Request entity too large.',
  429: 'Too Many Requests.',
  500: 'Something went wrong while processing your request.',
};

export class ApiError extends Error {
  constructor(
    public readonly status: number,
    message?: string,
    public readonly data: FieldErrors = {},
  ) {
    super(message ?? DEFAULT_MESSAGES[status] ?? DEFAULT_MESSAGES[500]);
  }

  toJSON() {
    return { data: this.data, message: this.message, status: this.status };
  }
}

export const LOADING_FAILED = 'An error occurred while loading the submitted data.';
export const VALIDATION_FAILED = 'An error occurred while validating the submitted data.';
export const AUTH_REQUIRED = 'The request requires valid record authorization token.';

export const badRequest = (message = DEFAULT_MESSAGES[400], data: FieldErrors = {}) =>
  new ApiError(400, message, data);
export const notFound = () => new ApiError(404);
export const forbidden = (message?: string) => new ApiError(403, message);
export const unauthorized = () => new ApiError(401, AUTH_REQUIRED);

/** The field error codes of the contract, with their exact messages. */
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
  passwordTooCommon: (): FieldError => ({
    code: 'validation_password_too_common',
    message: 'This password is too common. Choose one that is harder to guess.',
  }),
};

/** Throws a 400 with `message` when any field has an error. */
export function assertNoFieldErrors(errors: FieldErrors, message: string): void {
  if (Object.keys(errors).length > 0) throw badRequest(message, errors);
}
