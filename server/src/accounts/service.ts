/**
 * What accounts/ offers other features, its one public module: deleting an account exactly as
 * self-deletion does, a verification or password-reset mail an operator sends and the invitation
 * an operator mails (admin/); signing up with a provider (providers/); how long a sign-in code by
 * email lives (auth-methods); the security notice mail of a credential change (two-step/,
 * passkeys/, providers/, admin/); the password check (two-step/); the device cookie a completed
 * sign-in sets (two-step/); the member mails' templates (settings/' test email); a member's avatar
 * file (oidc/: the `picture` claim's address); the users records' create, update and delete with
 * every check of their routes, and the largest avatar (batch/).
 */
export { deleteAccount } from './delete-account.js';
export { operatorAccountMail, resendVerificationMail } from './request-mail.js';
export { signUpWithProvider, type ProviderSignUpInput } from './sign-up.js';
export { CODE_LIFETIME_MS as SIGN_IN_CODE_LIFETIME_MS } from './sign-in-code.js';
export { queueNotice } from './notices.js';
export { isCurrentPassword } from './passwords.js';
export { rememberDevice } from './device-cookie.js';
export { avatarFile } from './avatars.js';
export {
  clearNullFields,
  createUserRecord,
  deleteUserRecord,
  type RecordCaller,
  TOKEN_HEADER,
  updateUserRecord,
  userRecordExists,
} from './records.js';
export { AVATAR_MAX_BYTES } from './profile.js';
export {
  emailChangeMail,
  inviteMail,
  operatorTestMail,
  type Notice,
  passwordResetMail,
  securityNotice,
  signInCodeMail,
  verificationMail,
} from './mails.js';
