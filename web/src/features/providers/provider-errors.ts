import { i18n, type MessageDescriptor } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';
import { fieldErrorsOf, statusOf } from '../../lib/api-error';
import { serverText } from '../../lib/messages';

const FIELD_MESSAGES: Record<string, MessageDescriptor> = {
  validation_required: msg`Invite code is required`,
  validation_invalid_invite_code: msg`Invalid or already used invite code.`,
  validation_not_unique: msg`An account with this email already exists. Sign in with your password.`,
};

/** An unknown identity in an app's sign-in: joining is not a way forward from there. */
export const BY_INVITATION = msg`Membership is by invitation: if you have no account, ask a member for an invite.`;

/**
 * What to tell a member whose sign-in with a provider failed: the server's reason when it gave
 * one (an invite code, an unverified account, a disabled account, a provider that is down), or
 * that the provider's window did not finish (closed, blocked, interrupted). `forApp`: the sign-in
 * is for another app (the login screen's `redirect` is /authorize/… or /gate), where an identity
 * nobody has hears that membership is by invitation rather than to sign up. (Read here, in this
 * module loaded on a failure, so that the login screen's first load stays as small.)
 */
export function providerErrorMessage(
  err: unknown,
  displayName: string,
  forApp = isAppSignIn(window.location.search),
): string {
  const status = statusOf(err) ?? 0;
  if (status > 0) {
    if (status === 429) {
      return t`Too many sign-in attempts. Please wait a minute and try again.`;
    }
    const fields = fieldErrorsOf(err);
    for (const field of ['inviteCode', 'email', 'provider']) {
      const problem = fields[field];
      if (!problem) continue;
      if (field === 'inviteCode' && problem.code === 'validation_required') {
        if (forApp) return i18n._(BY_INVITATION);
        return t`An invite code is needed to join. Sign up with your invite code first.`;
      }
      const known = problem.code ? FIELD_MESSAGES[problem.code] : undefined;
      return (known && i18n._(known)) || problem.message || '';
    }
    const message = serverText(err);
    if (message && message !== 'Failed to authenticate.') return message;
  }
  return t`Signing in with ${displayName} did not finish. Please try again.`;
}

/** The login screen was reached from an app's sign-in (/authorize/{uid}) or the gate (/gate). */
export function isAppSignIn(search: string): boolean {
  const redirect = new URLSearchParams(search).get('redirect') ?? '';
  return /^\/(authorize\/|gate(\?|$))/.test(redirect);
}
