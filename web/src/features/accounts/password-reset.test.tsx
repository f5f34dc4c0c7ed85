import { act, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeServer, fieldErrors, noContent, pbError } from '../../test/fake-server';
import { findAnnounced, renderApp } from '../../test/render-app';

const REQUEST = 'POST /api/collections/users/request-password-reset';
const CONFIRM = 'POST /api/collections/users/confirm-password-reset';

describe('Forgot password (/forgot-password)', () => {
  it('shows an email field and Send Reset Link', async () => {
    fakeServer({});
    renderApp('/forgot-password');
    expect(await screen.findByRole('heading', { level: 1 })).toHaveFocus();
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
    expect(await screen.findByRole('heading', { name: 'Email Sent' })).toHaveFocus();
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
    renderApp('/reset-password?token=abc');
    expect(await screen.findByRole('heading', { level: 1, name: 'Reset Password' })).toHaveFocus();
    expect(document.title).toBe('Reset password · Gatehouse');
    expect(screen.getByLabelText('New Password')).toHaveAttribute('minlength', '8');
    expect(screen.getByLabelText('Confirm Password')).toBeRequired();
  });

  it('Passwords do not match', async () => {
    const server = fakeServer({});
    const { user } = renderApp('/reset-password?token=abc');
    await submit(user, 'new password 1', 'new password 2');
    await findAnnounced('Passwords do not match');
    expect(server.requests).toHaveLength(0);
  });

  it('Password must be at least 8 characters', async () => {
    const server = fakeServer({});
    const { user } = renderApp('/reset-password?token=abc');
    await submit(user, 'short', 'short');
    await findAnnounced('Password must be at least 8 characters');
    expect(server.requests).toHaveLength(0);
  });

  it('resets, says so, counts down 3 s and shows login', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = fakeServer({ [CONFIRM]: () => noContent() });
    const { user, router } = renderApp('/reset-password?token=12345', { fakeTimers: true });
    await submit(user, 'a new password', 'a new password');
    const heading = await screen.findByRole('heading', { name: 'Password reset successfully!' });
    await waitFor(() => expect(heading).toHaveFocus());
    expect(server.to('POST', '/api/collections/users/confirm-password-reset')[0]?.body).toEqual({
      token: '12345',
      password: 'a new password',
      passwordConfirm: 'a new password',
    });
    expect(screen.getByText('Redirecting to login in 3 seconds...')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Go to Login' })).toBeEnabled();
    await act(() => vi.advanceTimersByTimeAsync(2000));
    expect(screen.getByText('Redirecting to login in 1 second...')).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
  });

  it("shows the server's error message", async () => {
    fakeServer({
      [CONFIRM]: () =>
        pbError(
          400,
          'An error occurred while validating the submitted data.',
          fieldErrors({ token: 'Invalid or expired token.' }),
        ),
    });
    const { user } = renderApp('/reset-password?token=expired');
    await submit(user, 'a new password', 'a new password');
    await findAnnounced('An error occurred while validating the submitted data.');
    expect(screen.getByRole('button', { name: 'Reset Password' })).toBeEnabled();
  });

  it('falls back to the default reset failure message', async () => {
    fakeServer({ [CONFIRM]: () => new Response('', { status: 502 }) });
    const { user } = renderApp('/reset-password?token=abc');
    await submit(user, 'a new password', 'a new password');
    await findAnnounced('Failed to reset password. The link may be invalid or expired.');
  });
});
