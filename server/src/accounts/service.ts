/**
 * What accounts/ offers other features (the operator console): deleting an account exactly as
 * self-deletion does, and sending a verification mail on an operator's request; auth-methods
 * (providers/) tells how long a sign-in code by email lives.
 */
export { deleteAccount } from './delete-account.js';
export { resendVerificationMail } from './request-mail.js';
export { signUpWithProvider, type ProviderSignUpInput } from './sign-up.js';
export { CODE_LIFETIME_MS as SIGN_IN_CODE_LIFETIME_MS } from './sign-in-code.js';
