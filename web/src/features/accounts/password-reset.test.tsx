import { act, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import {
  fakeServer,
  fieldErrors,
  makeLinkToken,
  noContent,
  pbError,
  type FakeServer,
} from '../../test/fake-server';
import { expectFocus, findAnnounced, renderApp } from '../../test/render-app';

const REQUEST = 'POST /api/collections/users/request-password-reset';
const CONFIRM = 'POST /api/collections/users/confirm-password-reset';
const token = makeLinkToken('passwordReset', { email: 'carol@example.com' });
const badToken = () =>
  pbError(
    400,
    'An error occurred while validating the submitted data.',
    fieldErrors({ token: 'Invalid or expired token.' }),
  );
/** The confirmations that carried a new password (not the screen's look at the link on load). */
const resets = (server: FakeServer) =>
  server
    .to('POST', '/api/collections/users/confirm-password-reset')
    .filter((r) => (r.body as { password?: string }).password);

describe('Forgot password (/forgot-password)', () => {
  it('shows an email field and Send Reset Link', async () => {
    fakeServer({});
    renderApp('/forgot-password');
    await expectFocus(screen.findByRole('heading', { level: 1 }));
    expect(document.title).toBe('Forgot password · Gatehouse');
    expect(screen.getByLabelText('Email')).toHaveAttribute('type', 'email');
    expect(screen.getByLabelText('Email')).toBeRequired();
    expect(screen.getByRole('button', { name: 'Send Reset Link' })).toBeEnabled();
  });

  it('sends the reset email and shows Email Sent', async () => {
    let release!: () => void;
    const server = fakeServer({
      [REQUEST]: () =>
        new Promise<Response>((resolve) => {
          release = () => resolve(noContent());
        }),
    });
    const { user } = renderApp('/forgot-password');
    await user.type(await screen.findByLabelText('Email'), 'alice@example.com');
    await user.click(screen.getByRole('button', { name: 'Send Reset Link' }));
    expect(await screen.findByRole('button', { name: 'Sending...' })).toBeDisabled();
    await act(async () => release());
    await expectFocus(screen.findByRole('heading', { name: 'Email Sent' }));
    expect(
      screen.getByText('Password reset email sent! Please check your inbox and spam folder.'),
    ).toBeInTheDocument();
    expect(server.to('POST', '/api/collections/users/request-password-reset')[0]?.body).toEqual({
      email: 'alice@example.com',
    });
  });

  it('offers a way back to login once sent', async () => {
    fakeServer({ [REQUEST]: () => noContent() });
    const { user, router } = renderApp('/forgot-password');
    await user.type(await screen.findByLabelText('Email'), 'alice@example.com');
    await user.click(screen.getByRole('button', { name: 'Send Reset Link' }));
    await user.click(await screen.findByRole('button', { name: 'Back to Login' }));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
  });

  it('shows the failure message', async () => {
    fakeServer({
      [REQUEST]: () =>
        pbError(
          400,
          'An error occurred while validating the submitted data.',
          fieldErrors({ email: 'Must be a valid email address.' }),
        ),
    });
    const { user } = renderApp('/forgot-password');
    await user.type(await screen.findByLabelText('Email'), 'alice@example.com');
    await user.click(screen.getByRole('button', { name: 'Send Reset Link' }));
    await findAnnounced(
      'Failed to send password reset email. Please check your email address and try again.',
    );
    expect(screen.getByRole('button', { name: 'Send Reset Link' })).toBeEnabled();
  });
});

describe('Reset password (/reset-password)', () => {
  async function submit(
    user: ReturnType<typeof renderApp>['user'],
    password: string,
    confirm: string,
  ) {
    await user.type(await screen.findByLabelText('New Password'), password);
    await user.type(screen.getByLabelText('Confirm Password'), confirm);
    await user.click(screen.getByRole('button', { name: 'Reset Password' }));
  }

  it('shows New Password and Confirm Password', async () => {
    fakeServer({});
    renderApp(`/reset-password?token=${token}`);
    await expectFocus(screen.findByRole('heading', { level: 1, name: 'Reset Password' }));
    expect(document.title).toBe('Reset password · Gatehouse');
    expect(screen.getByLabelText('New Password')).toHaveAttribute('minlength', '8');
    expect(screen.getByLabelText('Confirm Password')).toBeRequired();
  });

  it('Passwords do not match', async () => {
    const server = fakeServer({});
    const { user } = renderApp(`/reset-password?token=${token}`);
    await submit(user, 'new password 1', 'new password 2');
    await findAnnounced('Passwords do not match');
    expect(resets(server)).toHaveLength(0);
  });

  it('Password must be at least 8 characters', async () => {
    const server = fakeServer({});
    const { user } = renderApp(`/reset-password?token=${token}`);
    await submit(user, 'short', 'short');
    await findAnnounced('Password must be at least 8 characters');
    expect(resets(server)).toHaveLength(0);
  });

  it('resets, says so, counts down 3 s and shows login', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = fakeServer({ [CONFIRM]: () => noContent() });
    const { user, router } = renderApp(`/reset-password?token=${token}`, { fakeTimers: true });
    await submit(user, 'a new password', 'a new password');
    const heading = await screen.findByRole('heading', { name: 'Password reset successfully!' });
    await waitFor(() => expect(heading).toHaveFocus());
    expect(resets(server)[0]?.body).toEqual({
      token,
      password: 'a new password',
      passwordConfirm: 'a new password',
    });
    expect(screen.getByText('Opening the sign-in screen in 3 seconds...')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Go to Login' })).toBeEnabled();
    await act(() => vi.advanceTimersByTimeAsync(2000));
    expect(screen.getByText('Opening the sign-in screen in 1 second...')).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
    // The sign-in's email is the reset account's.
    expect(screen.getByLabelText('Email')).toHaveValue('carol@example.com');
  });

  it('a link refused on submit: the failure text and Request a New Link, with the email', async () => {
    fakeServer({
      [CONFIRM]: (req) => ((req.body as { password: string }).password ? badToken() : noContent()),
    });
    const { user, router } = renderApp(`/reset-password?token=${token}`);
    await submit(user, 'a new password', 'a new password');
    await findAnnounced('Failed to reset password. The link may be invalid or expired.');
    await user.click(screen.getByRole('button', { name: 'Request a New Link' }));
    expect(await screen.findByRole('heading', { name: 'Forgot Password' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/forgot-password');
    expect(screen.getByLabelText('Email')).toHaveValue('carol@example.com');
  });

  it('a used link is found on load: no form to fill, the way forward instead', async () => {
    const server = fakeServer({ [CONFIRM]: () => badToken() });
    renderApp(`/reset-password?token=${token}`);
    await findAnnounced('Failed to reset password. The link may be invalid or expired.');
    expect(screen.queryByLabelText('New Password')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Request a New Link' })).toBeEnabled();
    // The look on load sent no password.
    expect(server.to('POST', '/api/collections/users/confirm-password-reset')[0]?.body).toEqual({
      token,
      password: '',
      passwordConfirm: '',
    });
  });

  it('an expired link is known from its own expiry, without asking the server', async () => {
    const server = fakeServer({});
    renderApp(`/reset-password?token=${makeLinkToken('passwordReset', { secondsLeft: -1 })}`);
    await findAnnounced('Failed to reset password. The link may be invalid or expired.');
    expect(screen.getByRole('button', { name: 'Request a New Link' })).toBeEnabled();
    expect(server.requests).toHaveLength(0);
  });

  it('falls back to the default reset failure message', async () => {
    fakeServer({ [CONFIRM]: () => new Response('', { status: 502 }) });
    const { user } = renderApp(`/reset-password?token=${token}`);
    await submit(user, 'a new password', 'a new password');
    await findAnnounced('Failed to reset password. The link may be invalid or expired.');
  });
});
