import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AUTH_STORAGE_KEY } from '../../lib/session';
import {
  authRefreshOk,
  changelogOk,
  fakeServer,
  json,
  makeToken,
  makeUser,
  noContent,
  pbError,
} from '../../test/fake-server';
import { findAnnounced, renderApp } from '../../test/render-app';

const AUTH = 'POST /api/collections/users/auth-with-password';
const RESEND = 'POST /api/collections/users/request-verification';

async function fillAndSubmit(
  user: ReturnType<typeof renderApp>['user'],
  email = 'alice@example.com',
  password = 'correct horse',
) {
  await user.type(await screen.findByLabelText('Email'), email);
  await user.type(screen.getByLabelText('Password'), password);
  await user.click(screen.getByRole('button', { name: 'Sign In' }));
}

describe('Login (/)', () => {
  it('shows the login form with its links, a page title and focus on the heading', async () => {
    fakeServer({});
    renderApp('/');
    const heading = await screen.findByRole('heading', { level: 1, name: 'Welcome back' });
    expect(heading).toHaveFocus();
    expect(document.title).toBe('Sign in · Gatehouse');
    expect(screen.getByLabelText('Email')).toHaveAttribute('type', 'email');
    expect(screen.getByLabelText('Email')).toBeRequired();
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    expect(screen.getByRole('link', { name: 'Forgot password?' })).toHaveAttribute(
      'href',
      '/forgot-password',
    );
    expect(screen.getByRole('link', { name: 'Sign up' })).toHaveAttribute('href', '/signup');
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled();
  });

  it('signs a verified user in: Signing in... while busy, then Home', async () => {
    const alice = makeUser();
    let release!: () => void;
    const server = fakeServer({
      [AUTH]: () =>
        new Promise<Response>((resolve) => {
          release = () => resolve(json(200, { token: makeToken(alice.id), record: alice }));
        }),
      'GET /changelog.json': changelogOk([]),
    });
    const { user, router } = renderApp('/');
    await fillAndSubmit(user);
    const busy = await screen.findByRole('button', { name: 'Signing in...' });
    expect(busy).toBeDisabled();
    release();
    expect(await screen.findByRole('heading', { name: 'Welcome!' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/home');
    expect(server.to('POST', '/api/collections/users/auth-with-password')[0]?.body).toEqual({
      identity: 'alice@example.com',
      password: 'correct horse',
    });
    expect(JSON.parse(window.localStorage.getItem(AUTH_STORAGE_KEY) ?? '{}').record.id).toBe(
      alice.id,
    );
  });

  it('shows the login failure message and re-enables the button', async () => {
    fakeServer({ [AUTH]: () => pbError(400, 'Failed to authenticate.') });
    const { user } = renderApp('/');
    await fillAndSubmit(user, 'alice@example.com', 'wrong password');
    await findAnnounced('Invalid email or password. Please try again.');
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled();
    expect(screen.getByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
  });

  it('says when the attempt limit was hit, rather than blaming the password', async () => {
    fakeServer({ [AUTH]: () => pbError(429, 'Too Many Requests.') });
    const { user } = renderApp('/');
    await fillAndSubmit(user);
    await findAnnounced('Too many sign-in attempts. Please wait a minute and try again.');
    expect(screen.queryByText('Invalid email or password. Please try again.')).toBeNull();
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled();
  });

  it('checks the email before asking the server', async () => {
    const server = fakeServer({});
    const { user } = renderApp('/');
    await user.click(await screen.findByRole('button', { name: 'Sign In' }));
    await findAnnounced('Please enter your email address.');
    expect(screen.getByLabelText('Email')).toHaveFocus();
    await user.type(screen.getByLabelText('Email'), 'not-an-email');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(screen.getByText('Please enter a valid email address.')).toBeInTheDocument();
    await user.clear(screen.getByLabelText('Email'));
    await user.type(screen.getByLabelText('Email'), 'alice@example.com');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(screen.getByText('Please enter your password.')).toBeInTheDocument();
    expect(server.requests.filter((r) => r.path.startsWith('/api/'))).toHaveLength(0);
  });

  describe('unverified account', () => {
    const bob = makeUser({ email: 'bob@example.com', verified: false });

    it('clears the session and shows the Email Not Verified notice', async () => {
      fakeServer({ [AUTH]: () => json(200, { token: makeToken(bob.id), record: bob }) });
      const { user, router } = renderApp('/');
      await fillAndSubmit(user, 'bob@example.com');
      expect(await screen.findByRole('heading', { name: 'Email Not Verified' })).toBeVisible();
      expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
      expect(router.state.location.pathname).toBe('/');
      expect(screen.getByRole('button', { name: 'Resend Verification Email' })).toBeEnabled();
    });

    it('resends the verification email', async () => {
      const server = fakeServer({
        [AUTH]: () => json(200, { token: makeToken(bob.id), record: bob }),
        [RESEND]: () => noContent(),
      });
      const { user } = renderApp('/');
      await fillAndSubmit(user, 'bob@example.com');
      await user.click(await screen.findByRole('button', { name: 'Resend Verification Email' }));
      await findAnnounced('Verification email sent! Check your inbox.', 'status');
      expect(server.to('POST', '/api/collections/users/request-verification')[0]?.body).toEqual({
        email: 'bob@example.com',
      });
    });

    it('says so when resending fails', async () => {
      fakeServer({
        [AUTH]: () => json(200, { token: makeToken(bob.id), record: bob }),
        [RESEND]: () => pbError(429, 'Too Many Requests.'),
      });
      const { user } = renderApp('/');
      await fillAndSubmit(user, 'bob@example.com');
      await user.click(await screen.findByRole('button', { name: 'Resend Verification Email' }));
      await findAnnounced('Failed to resend verification email. Please try again.');
    });
  });

  it('sends a signed-in user to /home', async () => {
    const alice = makeUser();
    window.localStorage.setItem(
      AUTH_STORAGE_KEY,
      JSON.stringify({ token: makeToken(alice.id), record: alice }),
    );
    fakeServer({
      'POST /api/collections/users/auth-refresh': authRefreshOk(alice),
      'GET /changelog.json': changelogOk([]),
    });
    const { router } = renderApp('/');
    expect(await screen.findByRole('heading', { name: 'Welcome!' })).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/home'));
    expect(screen.queryByRole('heading', { name: 'Welcome back' })).not.toBeInTheDocument();
  });
});
