import { ClientResponseError } from 'pocketbase';
import { describe, expect, it } from 'vitest';
import { providerErrorMessage } from './provider-errors';

/** The server's answer to a provider sign-in of an identity nobody has, without an invite code. */
const noAccount = new ClientResponseError({
  status: 400,
  response: {
    status: 400,
    message: 'Failed to authenticate.',
    data: { inviteCode: { code: 'validation_required', message: 'Missing required value.' } },
  },
});

describe('a provider sign-in of an identity nobody has', () => {
  it('on the login screen: sign up with an invite code first', () => {
    expect(providerErrorMessage(noAccount, 'Test ID')).toBe(
      'An invite code is needed to join. Sign up with your invite code first.',
    );
  });

  it('on the way to another app: membership is by invitation, no sign-up offered', () => {
    expect(providerErrorMessage(noAccount, 'Test ID', true)).toBe(
      'Membership is by invitation: if you have no account, ask a member for an invite.',
    );
  });
});
