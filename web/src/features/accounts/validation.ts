import { i18n } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';
/** Client-side checks, in the order docs/product.md gives them, with its exact messages. */
import { fieldErrorsOf, statusOf } from '../../lib/api-error';
import { isEmail } from '../../lib/email-rule';
import type { FieldProblem } from '../../lib/use-form-submit';

export const MIN_PASSWORD_LENGTH = 8;

/**
 * A password's length as the server counts it (server/src/accounts/passwords.ts): characters (code
 * points, not UTF-16 units: "🦊" is one, not two) of its NFKC form, the form it is checked and stored in.
 */
export function passwordLength(password: string): number {
  return [...password.normalize('NFKC')].length;
}

export const SAME_EMAIL_MESSAGE = msg`This is already your email address.`;

export function checkEmail(email: string): FieldProblem<'email'> | null {
  const value = email.trim();
  if (!value) return { field: 'email', message: t`Please enter your email address.` };
  if (!isEmail(value)) return { field: 'email', message: t`Please enter a valid email address.` };
  return null;
}

export function checkLogin(input: {
  email: string;
  password: string;
}): FieldProblem<'email' | 'password'> | null {
  const email = checkEmail(input.email);
  if (email) return email;
  if (!input.password) return { field: 'password', message: t`Please enter your password.` };
  return null;
}

export function checkSignUp(input: {
  email: string;
  inviteCode: string;
  password: string;
  passwordConfirm: string;
}): FieldProblem<'email' | 'inviteCode' | 'password' | 'passwordConfirm'> | null {
  const email = checkEmail(input.email);
  if (email) return email;
  if (!input.inviteCode.trim()) return { field: 'inviteCode', message: t`Invite code is required` };
  if (input.password !== input.passwordConfirm) {
    return { field: 'passwordConfirm', message: t`Passwords do not match` };
  }
  if (passwordLength(input.password) < MIN_PASSWORD_LENGTH) {
    return { field: 'password', message: t`Password must be at least 8 characters long` };
  }
  return null;
}

export function checkNewPassword(input: {
  password: string;
  passwordConfirm: string;
}): FieldProblem<'password' | 'passwordConfirm'> | null {
  if (input.password !== input.passwordConfirm) {
    return { field: 'passwordConfirm', message: t`Passwords do not match` };
  }
  if (passwordLength(input.password) < MIN_PASSWORD_LENGTH) {
    return { field: 'password', message: t`Password must be at least 8 characters` };
  }
  return null;
}

export function checkChangePassword(input: {
  oldPassword: string;
  password: string;
  passwordConfirm: string;
}): FieldProblem<'oldPassword' | 'password' | 'passwordConfirm'> | null {
  if (!input.oldPassword) {
    return { field: 'oldPassword', message: t`Please enter your current password.` };
  }
  return checkNewPassword(input);
}

export function checkNewEmail(
  newEmail: string,
  currentEmail: string,
): FieldProblem<'newEmail'> | null {
  const value = newEmail.trim();
  if (!value) return { field: 'newEmail', message: t`Please enter your new email address.` };
  if (!isEmail(value))
    return { field: 'newEmail', message: t`Please enter a valid email address.` };
  if (value.toLowerCase() === currentEmail.trim().toLowerCase()) {
    return { field: 'newEmail', message: i18n._(SAME_EMAIL_MESSAGE) };
  }
  return null;
}

export function checkPassword(password: string): FieldProblem<'password'> | null {
  return password ? null : { field: 'password', message: t`Please enter your password.` };
}

/** The code of the second step, or of turning two-step sign-in on. */
export function checkAuthenticationCode(code: string): FieldProblem<'code'> | null {
  if (!code.trim()) return { field: 'code', message: t`Please enter your authentication code.` };
  return null;
}

/**
 * What a refused code means (docs/api.md, auth-with-totp and totp/enable): `expired` (the
 * second-step session is void: start again), `locked` (429: 5 wrong codes lock the second step for
 * 15 minutes), else a wrong code.
 */
export function secondStepFailure(err: unknown): 'expired' | 'locked' | 'wrong' {
  const status = statusOf(err);
  if (status === 429) return 'locked';
  if (status === 400 && fieldErrorsOf(err).mfaId) return 'expired';
  return 'wrong';
}

export const INVALID_CODE_MESSAGE = msg`Invalid code. Please try again.`;
export const LOCKED_MESSAGE = msg`Too many wrong codes. Two-step sign-in is locked for 15 minutes. Please try again later.`;

export function codeFailureMessage(err: unknown): string {
  return secondStepFailure(err) === 'locked'
    ? i18n._(LOCKED_MESSAGE)
    : i18n._(INVALID_CODE_MESSAGE);
}
