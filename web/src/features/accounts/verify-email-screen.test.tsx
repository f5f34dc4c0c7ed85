import { act, screen, waitFor } from '@testing-library/react';
import { StrictMode } from 'react';
import { render } from '@testing-library/react';
import { createMemoryHistory } from '@tanstack/react-router';
import { describe, expect, it, vi } from 'vitest';
import { App } from '../../app';
import { createAuth } from '../../lib/auth';
import { lazyQueries } from '../../lib/queries';
import { createAppRouter } from '../../router';
import { fakeServer, fieldErrors, makeLinkToken, noContent, pbError } from '../../test/fake-server';
import { expectFocus, findAnnounced, renderApp } from '../../test/render-app';

const CONFIRM = 'POST /api/collections/users/confirm-verification';
const RESEND = 'POST /api/collections/users/request-verification';
const token = makeLinkToken('verification', { email: 'bob@example.com' });

describe('Verify email (/verify-email)', () => {
  it('shows Verifying Email... while the token is confirmed, without a Go to Login button', async () => {
    fakeServer({ [CONFIRM]: () => new Promise<Response>(() => undefined) });
    renderApp(`/verify-email?token=${token}`);
    await expectFocus(screen.findByRole('heading', { name: 'Verifying Email...' }));
    expect(document.title).toBe('Verify email · Gatehouse');
    expect(screen.queryByRole('button', { name: 'Go to Login' })).not.toBeInTheDocument();
  });

  it('confirms on load, shows Email Verified!, counts down 3 s, then shows login', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = fakeServer({ [CONFIRM]: () => noContent() });
    const { router } = renderApp(`/verify-email?token=${token}`, { fakeTimers: true });
    const heading = await screen.findByRole('heading', { name: 'Email Verified!' });
    await waitFor(() => expect(heading).toHaveFocus());
    expect(server.to('POST', '/api/collections/users/confirm-verification')).toHaveLength(1);
    expect(server.to('POST', '/api/collections/users/confirm-verification')[0]?.body).toEqual({
      token,
    });
    expect(screen.getByText('Opening the sign-in screen in 3 seconds...')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Go to Login' })).toBeEnabled();
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(screen.getByText('Opening the sign-in screen in 2 seconds...')).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(2000));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
  });

  it('confirms once under React StrictMode', async () => {
    const server = fakeServer({ [CONFIRM]: () => noContent() });
    const router = createAppRouter({
      auth: createAuth(),
      queries: lazyQueries(),
      history: createMemoryHistory({ initialEntries: [`/verify-email?token=${token}`] }),
    });
    render(
      <StrictMode>
        <App router={router} />
      </StrictMode>,
    );
    expect(await screen.findByRole('heading', { name: 'Email Verified!' })).toBeInTheDocument();
    expect(server.to('POST', '/api/collections/users/confirm-verification')).toHaveLength(1);
  });

  it('a refused link: Verification Failed with the failure text, a new link, and Go to Login', async () => {
    const server = fakeServer({
      [CONFIRM]: () =>
        pbError(
          400,
          'An error occurred while validating the submitted data.',
          fieldErrors({ token: 'Invalid or expired token.' }),
        ),
      [RESEND]: () => noContent(),
    });
    const { user, router } = renderApp(`/verify-email?token=${token}`);
    const heading = await screen.findByRole('heading', { name: 'Verification Failed' });
    // The heading takes focus just after it appears (a passive effect).
    await waitFor(() => expect(heading).toHaveFocus());
    expect(
      screen.getByText('Failed to verify email. The link may be invalid or expired.'),
    ).toBeInTheDocument();
    // The way forward: a new link to the address the link was for, then a wait of 2 minutes.
    await user.click(screen.getByRole('button', { name: 'Send a New Link' }));
    await findAnnounced(
      'If this address still needs verifying, a new link is on its way. Check your inbox.',
      'status',
    );
    expect(server.to('POST', '/api/collections/users/request-verification')[0]?.body).toEqual({
      email: 'bob@example.com',
    });
    expect(screen.getByRole('button', { name: /^Send again in [12]:\d\d$/ })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Go to Login' }));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
    // The address comes along to the login screen.
    expect(screen.getByLabelText('Email')).toHaveValue('bob@example.com');
  });

  it('an expired link fails at once, without asking the server to confirm it', async () => {
    const server = fakeServer({});
    const expired = makeLinkToken('verification', { secondsLeft: -60 });
    renderApp(`/verify-email?token=${expired}`);
    expect(await screen.findByRole('heading', { name: 'Verification Failed' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Send a New Link' })).toBeEnabled();
    expect(server.requests).toHaveLength(0);
  });

  it('shows the default failure message when there is none, or no token at all', async () => {
    const server = fakeServer({});
    renderApp('/verify-email');
    expect(await screen.findByRole('heading', { name: 'Verification Failed' })).toBeInTheDocument();
    expect(
      screen.getByText('Failed to verify email. The link may be invalid or expired.'),
    ).toBeInTheDocument();
    expect(server.requests).toHaveLength(0);
  });

  it('shows the default failure message on a network failure', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    renderApp(`/verify-email?token=${token}`);
    expect(
      await screen.findByText('Failed to verify email. The link may be invalid or expired.'),
    ).toBeInTheDocument();
  });
});
