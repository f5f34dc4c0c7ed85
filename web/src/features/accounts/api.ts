import { ClientResponseError } from 'pocketbase';
import { fieldError, errorMessage, pb } from '../../lib/pb';

const users = () => pb.collection('users');

export async function requestVerification(email: string): Promise<void> {
  await users().requestVerification(email.trim());
}

export async function signUp(input: {
  email: string;
  inviteCode: string;
  password: string;
  passwordConfirm: string;
}): Promise<void> {
  const email = input.email.trim();
  await users().create({
    email,
    password: input.password,
    passwordConfirm: input.passwordConfirm,
    inviteCode: input.inviteCode.trim(),
  });
  // The account exists; ask for the verification mail. If that request fails the user can still
  // ask again from the login screen, so it does not turn the sign-up into a failure.
  try {
    await requestVerification(email);
  } catch (err) {
    console.error('Failed to request the verification email', err);
  }
}

/** The sign-up error, in the priority docs/product.md gives: email, password, invite code, message, default. */
export function signUpErrorMessage(err: unknown): string {
  const email = fieldError(err, 'email');
  if (email) return `Email: ${email}`;
  const password = fieldError(err, 'password');
  if (password) return `Password: ${password}`;
  const inviteCode = fieldError(err, 'inviteCode');
  if (inviteCode) return `Invite code: ${inviteCode}`;
  return errorMessage(err) ?? 'Failed to create account. Please try again.';
}

export async function requestPasswordReset(email: string): Promise<void> {
  await users().requestPasswordReset(email.trim());
}

export async function confirmPasswordReset(
  token: string,
  password: string,
  passwordConfirm: string,
): Promise<void> {
  await users().confirmPasswordReset(token, password, passwordConfirm);
}

export async function confirmVerification(token: string): Promise<void> {
  if (!token) {
    throw new ClientResponseError({ status: 400, response: {} });
  }
  await users().confirmVerification(token);
}

/** Deletes the account. The caller then ends the session (the SDK may already have). */
export async function deleteAccount(userId: string): Promise<void> {
  await users().delete(userId);
}

/** "2026-08-14 07:16:55.123Z" (the server's UTC format) → "August 14, 2026". */
export function formatCreated(created: string | undefined): string {
  if (!created) return 'Unknown';
  const date = new Date(created.trim().replace(' ', 'T'));
  if (Number.isNaN(date.getTime())) return created;
  return date.toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric' });
}
