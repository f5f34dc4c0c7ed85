import { currentLanguage, intlLocale } from '../../lib/i18n';
import { msg, t } from '@lingui/core/macro';
import { i18n } from '@lingui/core';
import { queryOptions } from '@tanstack/react-query';
import type {
  RecoveryCodesAnswer,
  TotpSetupAnswer,
  TwoStepStatusAnswer,
} from '../../../../contract/two-step';
import { fieldCodeOf, statusOf } from '../../lib/api-error';
import { fieldText, serverText } from '../../lib/messages';
import { pb } from '../../lib/pb';
import type { UserRecord } from '../../lib/session';
import { nameTooLongMessage } from './name-rule';
import { noteMailRequested } from './resend-wait';
import { SAME_EMAIL_MESSAGE } from './validation';

const users = () => pb.collection('users');

export async function requestVerification(email: string): Promise<void> {
  await users().requestVerification(email.trim());
}

export async function signUp(input: {
  email: string;
  inviteCode: string;
  password: string;
  passwordConfirm: string;
  /** Optional: sent only when one was typed. */
  name?: string;
}): Promise<void> {
  const email = input.email.trim();
  const name = input.name?.trim() ?? '';
  await users().create({
    email,
    password: input.password,
    passwordConfirm: input.passwordConfirm,
    inviteCode: input.inviteCode.trim(),
    ...(name ? { name } : {}),
    // The language of the member's mail: the one the app speaks now (docs/decisions/0072).
    language: currentLanguage(),
  });
  // The account exists; ask for the verification mail. If that request fails the user can still
  // ask again from the login screen, so it does not turn the sign-up into a failure.
  try {
    await requestVerification(email);
    noteMailRequested('verification', email);
  } catch (err) {
    console.error('Failed to request the verification email', err);
  }
}

/** The sign-up error, in the priority docs/product.md gives: email, password, invite code, message, default. */
export function signUpErrorMessage(err: unknown): string {
  const email = fieldText(err, 'email');
  if (email) return t`Email: ${email}`;
  const password = fieldText(err, 'password');
  if (password) return t`Password: ${password}`;
  const inviteCode = fieldText(err, 'inviteCode');
  if (inviteCode) return t`Invite code: ${inviteCode}`;
  if (fieldCodeOf(err, 'name')) return profileNameError(err);
  return serverText(err) ?? t`Failed to create account. Please try again.`;
}

export async function requestPasswordReset(email: string): Promise<void> {
  await users().requestPasswordReset(email.trim());
}

/**
 * Whether a typed invite code would let someone sign up now (POST
 * /api/gatehouse/invite-codes/check): 'invalid' with the server's message, or 'ok'; 'unknown'
 * when the server could not say (offline, the limit), and sign-up will tell.
 */
export async function checkInviteCode(
  code: string,
): Promise<{ status: 'ok' | 'initial' | 'unknown' } | { status: 'invalid'; message: string }> {
  try {
    const answer: unknown = await pb.send('/api/gatehouse/invite-codes/check', {
      method: 'POST',
      body: { inviteCode: code.trim() },
    });
    // 200 {"initialUser":true}: the printed code that makes the first member.
    const initial = (answer as { initialUser?: unknown } | null)?.initialUser === true;
    return { status: initial ? 'initial' : 'ok' };
  } catch (err) {
    const message = fieldText(err, 'inviteCode');
    return message && statusOf(err) === 400
      ? { status: 'invalid', message }
      : { status: 'unknown' };
  }
}

/** The link in the mail is bad, expired or used: the token is what the server refused. */
export function isBadLink(err: unknown): boolean {
  return fieldCodeOf(err, 'token') !== undefined;
}

/**
 * Asks the server whether a reset link still works, without changing anything: confirm-password-
 * reset with no password reports every field's error together, the token's among them
 * (docs/api.md). 'bad' when the server refused the token, else 'ok' (an answer it could not give
 * counts as ok: the form will tell).
 */
export async function checkResetLink(token: string): Promise<'ok' | 'bad'> {
  try {
    await users().confirmPasswordReset(token, '', '');
  } catch (err) {
    return isBadLink(err) ? 'bad' : 'ok';
  }
  return 'ok';
}

export async function confirmPasswordReset(
  token: string,
  password: string,
  passwordConfirm: string,
): Promise<void> {
  await users().confirmPasswordReset(token, password, passwordConfirm);
}

/** An empty or unreadable token never gets here: the screen refuses it at once (`readLinkToken`). */
export async function confirmVerification(token: string): Promise<void> {
  await users().confirmVerification(token);
}

/** Deletes the account. The caller then ends the session (the SDK may already have). */
export async function deleteAccount(userId: string): Promise<void> {
  await users().delete(userId);
}

/** "2026-08-14 07:16:55.123Z" (the server's UTC format) → "August 14, 2026". */
export function formatCreated(created: string | undefined): string {
  if (!created) return t`Unknown`;
  const date = new Date(created.trim().replace(' ', 'T'));
  if (Number.isNaN(date.getTime())) return created;
  return date.toLocaleDateString(intlLocale(), { year: 'numeric', month: 'long', day: 'numeric' });
}

/**
 * Changes the password. The server ends every other session and answers with a fresh token for
 * this one, which the session's owner stores (`lib/auth.ts`); the SDK then stores the record.
 */
export async function changePassword(
  userId: string,
  input: { oldPassword: string; password: string; passwordConfirm: string },
): Promise<UserRecord> {
  return users().update<UserRecord>(userId, input);
}

export function changePasswordErrorMessage(err: unknown): string {
  if (fieldCodeOf(err, 'oldPassword')) return t`Current password is incorrect.`;
  const password = fieldCodeOf(err, 'password');
  if (password === 'validation_min_text_constraint') {
    return t`Password must be at least 8 characters`;
  }
  if (password) return fieldText(err, 'password') ?? t`Password is not valid.`;
  if (fieldCodeOf(err, 'passwordConfirm') === 'validation_values_mismatch') {
    return t`Passwords do not match`;
  }
  return (
    fieldText(err, 'passwordConfirm') ??
    serverText(err) ??
    t`Failed to change password. Please try again.`
  );
}

/**
 * Saves the member's name and photo (the record update): a new photo goes as a file, which makes
 * the SDK send a multipart form; `photo: null` removes the one there is; undefined keeps it. The
 * SDK stores the answered record as the session's, so every screen shows the change at once.
 */
export async function updateProfile(
  userId: string,
  input: { name: string; photo?: File | null },
): Promise<UserRecord> {
  const body: Record<string, unknown> = { name: input.name.trim() };
  if (input.photo === null) body.avatar = '';
  else if (input.photo) body.avatar = input.photo;
  return users().update<UserRecord>(userId, body);
}

/** What the server (docs/api.md) and the browser take as a photo. */
export const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'];
export const MAX_PHOTO_BYTES = 5 * 1024 * 1024;
export const PHOTO_TYPE_MESSAGE = msg`Please choose a JPEG, PNG, WebP or GIF image.`;
export const PHOTO_SIZE_MESSAGE = msg`The photo can be at most 5 MB. Please choose a smaller one.`;

/** A chosen file the server would refuse, in words; null when it may go. */
export function checkPhoto(file: File): string | null {
  if (!PHOTO_TYPES.includes(file.type)) return i18n._(PHOTO_TYPE_MESSAGE);
  if (file.size > MAX_PHOTO_BYTES) return i18n._(PHOTO_SIZE_MESSAGE);
  return null;
}

/** The server's refusal of a name, in words. */
function profileNameError(err: unknown): string {
  return fieldCodeOf(err, 'name') === 'validation_max_text_constraint'
    ? nameTooLongMessage()
    : 'The name has characters that cannot be used (control or text-direction characters). Please remove them.';
}

export function profileErrorMessage(err: unknown): string {
  if (fieldCodeOf(err, 'name')) return profileNameError(err);
  const photo = fieldCodeOf(err, 'avatar');
  if (photo === 'validation_file_size_limit' || statusOf(err) === 413)
    return i18n._(PHOTO_SIZE_MESSAGE);
  if (photo) return t`That file is not a photo we can use. ${i18n._(PHOTO_TYPE_MESSAGE)}`;
  return serverText(err) ?? t`Failed to save your profile. Please try again.`;
}

export async function requestEmailChange(newEmail: string): Promise<void> {
  await users().requestEmailChange(newEmail.trim());
}

export function emailChangeErrorMessage(err: unknown): string {
  if (fieldCodeOf(err, 'newEmail') === 'validation_not_in_invalid')
    return i18n._(SAME_EMAIL_MESSAGE);
  return (
    fieldText(err, 'newEmail') ??
    serverText(err) ??
    t`Failed to send the confirmation link. Please try again.`
  );
}

/** Confirms the mailed email-change link with the account's password; every session ends. */
export async function confirmEmailChange(token: string, password: string): Promise<void> {
  await users().confirmEmailChange(token, password);
}

/**
 * Whether an email-change link still works, without changing anything: confirm-email-change
 * with no password reports the token's error with the password's (as `checkResetLink`).
 */
export async function checkEmailChangeLink(token: string): Promise<'ok' | 'bad'> {
  try {
    await users().confirmEmailChange(token, '');
  } catch (err) {
    return isBadLink(err) ? 'bad' : 'ok';
  }
  return 'ok';
}

export const LINK_INVALID_MESSAGE = msg`This link is invalid or has expired.`;

/** What the confirm screen shows: a message for the form, or one under the password field. */
export function confirmEmailChangeError(err: unknown): {
  form: string | null;
  password: string | null;
} {
  if (fieldCodeOf(err, 'token')) return { form: i18n._(LINK_INVALID_MESSAGE), password: null };
  const password = fieldText(err, 'password');
  if (password) return { form: null, password };
  return {
    form: serverText(err) ?? t`Failed to confirm the email change. Please try again.`,
    password: null,
  };
}

export function exportFileName(userId: string): string {
  return `gatehouse-export-${userId}.json`;
}

/** Fetches everything the server holds about the member and saves it as a JSON file. */
export async function downloadMyData(userId: string): Promise<void> {
  const data = await pb.send<unknown>('/api/gatehouse/export', {});
  const blob = new Blob([`${JSON.stringify(data, null, 2)}\n`], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = exportFileName(userId);
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the file by the time this runs.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// The two-step answers' types are the server's schemas (contract/two-step.ts).
/** Two-step sign-in as the member has it (docs/api.md, GET /api/gatehouse/totp). */
export type TwoStepStatus = TwoStepStatusAnswer;

export const twoStepKeys = {
  all: ['two-step'] as const,
  of: (userId: string) => [...twoStepKeys.all, userId] as const,
};

export const twoStepQueryOptions = (userId: string) =>
  queryOptions({
    queryKey: twoStepKeys.of(userId),
    queryFn: () => pb.send<TwoStepStatus>('/api/gatehouse/totp', {}),
  });

/** A new seed for the authenticator app; nothing is on until `enableTwoStep`. */
export async function setUpAuthenticator(): Promise<TotpSetupAnswer> {
  return pb.send('/api/gatehouse/totp/setup', { method: 'POST' });
}

/** Turns two-step sign-in on with a code of the set-up seed; answers the 10 recovery codes. */
export async function enableTwoStep(code: string): Promise<string[]> {
  const body = await pb.send<RecoveryCodesAnswer>('/api/gatehouse/totp/enable', {
    method: 'POST',
    body: { code: code.trim() },
  });
  return body.recoveryCodes;
}

export async function disableTwoStep(password: string): Promise<void> {
  await pb.send('/api/gatehouse/totp/disable', { method: 'POST', body: { password } });
}

/** New recovery codes (the old ones stop working). */
export async function newRecoveryCodes(password: string): Promise<string[]> {
  const body = await pb.send<RecoveryCodesAnswer>('/api/gatehouse/recovery-codes', {
    method: 'POST',
    body: { password },
  });
  return body.recoveryCodes;
}

/** The password check of Turn Off and New Recovery Codes, in words. */
export function twoStepPasswordErrorMessage(err: unknown): string {
  if (fieldCodeOf(err, 'password')) return t`Incorrect password. Please try again.`;
  if (statusOf(err) === 429) {
    return t`Too many password attempts. Please wait 15 minutes and try again.`;
  }
  return serverText(err) ?? t`Something went wrong. Please try again.`;
}

/** Saves `text` as a file named `name` (a download). */
export function saveTextFile(name: string, text: string): void {
  const blob = new Blob([text], { type: 'text/plain' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
