import { fieldErrorsOf, messageOf, statusOf } from '../../lib/api-error';

const FIELD_MESSAGES: Record<string, string> = {
  validation_required: 'Invite code is required',
  validation_invalid_invite_code: 'Invalid or already used invite code.',
  validation_not_unique: 'An account with this email already exists. Sign in with your password.',
};

/**
 * What to tell a member whose sign-in with a provider failed: the server's reason when it gave
 * one (an invite code, an unverified account, a disabled account, a provider that is down), or
 * that the provider's window did not finish (closed, blocked, interrupted).
 */
export function providerErrorMessage(err: unknown, displayName: string): string {
  const status = statusOf(err) ?? 0;
  if (status > 0) {
    if (status === 429) {
      return 'Too many sign-in attempts. Please wait a minute and try again.';
    }
    const fields = fieldErrorsOf(err);
    for (const field of ['inviteCode', 'email', 'provider']) {
      const problem = fields[field];
      if (!problem) continue;
      if (field === 'inviteCode' && problem.code === 'validation_required') {
        return 'An invite code is needed to join. Sign up with your invite code first.';
      }
      return (problem.code && FIELD_MESSAGES[problem.code]) || problem.message || '';
    }
    const message = messageOf(err);
    if (message && message !== 'Failed to authenticate.') return message;
  }
  return `Signing in with ${displayName} did not finish. Please try again.`;
}
