import { ClientResponseError } from 'pocketbase';
import { describe, expect, it } from 'vitest';
import { isAppSignIn, providerErrorMessage } from './provider-errors';

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

  it('knows an app sign-in by where the login screen goes next', () => {
    expect(isAppSignIn('?redirect=%2Fauthorize%2Fabc123')).toBe(true);
    expect(isAppSignIn('?redirect=%2Fgate%3Fredirect%3Dhttps%3A%2F%2Fwiki.example.org%2F')).toBe(
      true,
    );
    expect(isAppSignIn('?redirect=%2Fsettings')).toBe(false);
    expect(isAppSignIn('?redirect=%2Fgateway')).toBe(false);
    expect(isAppSignIn('')).toBe(false);
  });

  it('on the way to another app: membership is by invitation, no sign-up offered', () => {
    expect(providerErrorMessage(noAccount, 'Test ID', true)).toBe(
      'Membership is by invitation: if you have no account, ask a member for an invite.',
    );
  });
});
