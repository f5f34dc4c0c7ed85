/** The API's paths, messages and codes, as docs/api.md lists them. */

export const USERS = '/api/collections/users';
export const PATHS = {
  login: `${USERS}/auth-with-password`,
  records: `${USERS}/records`,
  record: (id: string) => `${USERS}/records/${encodeURIComponent(id)}`,
  requestVerification: `${USERS}/request-verification`,
  confirmVerification: `${USERS}/confirm-verification`,
  requestReset: `${USERS}/request-password-reset`,
  confirmReset: `${USERS}/confirm-password-reset`,
  refresh: `${USERS}/auth-refresh`,
  codes: '/api/invite-codes',
  generate: '/api/invite-codes/generate',
  health: '/api/health',
  requestEmailChange: `${USERS}/request-email-change`,
  confirmEmailChange: `${USERS}/confirm-email-change`,
  sessions: '/api/gatehouse/sessions',
  session: (id: string) => `/api/gatehouse/sessions/${encodeURIComponent(id)}`,
  logout: '/api/gatehouse/logout',
  exportData: '/api/gatehouse/export',
  securityEvents: '/api/gatehouse/security-events',
  ready: '/api/ready',
  totp: '/api/gatehouse/totp',
  totpSetup: '/api/gatehouse/totp/setup',
  totpEnable: '/api/gatehouse/totp/enable',
  totpDisable: '/api/gatehouse/totp/disable',
  recoveryCodes: '/api/gatehouse/recovery-codes',
  authWithTotp: '/api/gatehouse/auth-with-totp',
  passkeys: '/api/gatehouse/passkeys',
  passkey: (id: string) => `/api/gatehouse/passkeys/${encodeURIComponent(id)}`,
  passkeyOptions: '/api/gatehouse/passkeys/options',
  passkeyLoginOptions: '/api/gatehouse/passkey-login/options',
  authWithPasskey: '/api/gatehouse/auth-with-passkey',
  requestOtp: `${USERS}/request-otp`,
  authWithOtp: `${USERS}/auth-with-otp`,
} as const;

export const MSG = {
  400: 'Something went wrong while processing your request.',
  401: 'Missing or invalid authentication.',
  403: 'You are not allowed to perform this request.',
  404: "The requested resource wasn't found.",
  413: 'Request entity too large.',
  429: 'Too Many Requests.',
  500: 'Something went wrong while processing your request.',
  503: 'The service is temporarily unavailable. Please try again shortly.',
  load: 'An error occurred while loading the submitted data.',
  validate: 'An error occurred while validating the submitted data.',
  create: 'Failed to create record.',
  update: 'Failed to update record.',
  auth: 'Failed to authenticate.',
  needsAuth: 'The request requires valid record authorization token.',
  superusers: 'Only superusers can perform this action.',
  onlyInitial: 'Only the initial user can generate unlimited invite codes.',
  secondStep: 'Please complete the second authentication step.',
  twoStepOn: 'Two-step sign-in is already on.',
  twoStepOff: 'Two-step sign-in is not on.',
  notSetUp: 'Set up the authenticator app first.',
  otpInvalid: 'Invalid or expired OTP.',
  otpAttemptsSpent: 'Too many attempts, please try again later with a new OTP.',
} as const;

export const FIELD: Record<string, { message: string; params?: Record<string, number> }> = {
  validation_required: { message: 'Cannot be blank.' },
  validation_is_email: { message: 'Must be a valid email address.' },
  validation_min_text_constraint: {
    message: 'Must be at least 8 character(s).',
    params: { min: 8 },
  },
  validation_max_text_constraint: {
    message: 'Must be no more than 256 character(s).',
    params: { max: 256 },
  },
  validation_values_mismatch: { message: "Values don't match." },
  validation_length_out_of_range: {
    message: 'The length must be between 8 and 256.',
    params: { min: 8, max: 256 },
  },
  validation_not_unique: { message: 'Value must be unique.' },
  validation_invalid_token: { message: 'Invalid or expired token.' },
  validation_invalid_token_claims: { message: 'Missing email token claim.' },
  validation_invalid_invite_code: { message: 'Invalid or already used invite code.' },
  validation_invalid_old_password: { message: 'Missing or invalid old password.' },
  validation_invalid_password: { message: 'Missing or invalid auth record password.' },
  validation_not_in_invalid: { message: 'Must not be in list.' },
  validation_invalid_code: { message: 'Invalid or expired code.' },
  validation_invalid_mfa_id: { message: 'Invalid or expired second-step session.' },
  validation_invalid_passkey: { message: 'Invalid or expired passkey response.' },
  validation_password_too_common: {
    message: 'This password is too common. Choose one that is harder to guess.',
  },
};

/** The exact `data` object for a map of field → error code. */
export function fieldErrors(fields: Record<string, string>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [field, code] of Object.entries(fields)) {
    const def = FIELD[code];
    if (!def) throw new Error(`Unknown field error code in test: ${code}`);
    data[field] = def.params
      ? { code, message: def.message, params: def.params }
      : { code, message: def.message };
  }
  return data;
}

/** The exact error envelope. */
export function envelope(status: number, message: string, fields: Record<string, string> = {}) {
  return { data: fieldErrors(fields), message, status };
}

export const RECORD_KEYS = [
  'avatar',
  'collectionId',
  'collectionName',
  'created',
  'email',
  'emailVisibility',
  'id',
  'inviteCode',
  'isInitialUser',
  'language',
  'name',
  'updated',
  'verified',
].sort();

export const DATE_RE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const ID_RE = /^[a-z0-9]{15}$/;

export const AUTH_TTL = 432_000;
export const VERIFICATION_TTL = 86_400;
export const RESET_TTL = 1_800;

export const subjects = (appName = 'Gatehouse') => ({
  verify: `Verify your ${appName} email`,
  reset: `Reset your ${appName} password`,
  passwordChanged: `Your ${appName} password was changed`,
  emailChange: `Confirm your new ${appName} email`,
  emailChanged: `Your ${appName} email was changed`,
  emailTaken: `Someone tried to move a ${appName} account to this email`,
  twoStepOn: `Two-step sign-in was turned on for your ${appName} account`,
  twoStepOff: `Two-step sign-in was turned off for your ${appName} account`,
  recoveryCodes: `New recovery codes for your ${appName} account`,
  passkeyAdded: `A passkey was added to your ${appName} account`,
  signInCode: `Your ${appName} sign-in code`,
  confirmedByCode: `Your ${appName} email was confirmed with a sign-in code`,
});
