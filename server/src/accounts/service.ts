/**
 * What accounts/ offers other features (the operator console): deleting an account exactly as
 * self-deletion does, and sending a verification mail on an operator's request.
 */
export { deleteAccount } from './delete-account.js';
export { resendVerificationMail } from './request-mail.js';
export { signUpWithProvider, type ProviderSignUpInput } from './sign-up.js';
