import { act, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAuth, type Auth } from './lib/auth';
import { AUTH_STORAGE_KEY } from './lib/session';
import {
  authRefreshOk,
  changelogOk,
  fakeServer,
  json,
  makeToken,
  makeUser,
  pbError,
  storeSession,
} from './test/fake-server';
import { expectFocus, renderApp } from './test/render-app';

const alice = makeUser();
const REFRESH = 'POST /api/collections/users/auth-refresh';

afterEach(() => {
  document.head.querySelectorAll('meta[name="application-name"]').forEach((m) => m.remove());
});

describe('redirects', () => {
  it.each(['/', '/signup', '/forgot-password', '/reset-password?token=t', '/verify-email?token=t'])(
    'a signed-in user opening %s is sent to /home',
    async (path) => {
      storeSession(alice);
      const server = fakeServer({
        [REFRESH]: authRefreshOk(alice),
        'GET /changelog.json': changelogOk([]),
      });
      const { router } = renderApp(path);
      expect(await screen.findByRole('heading', { name: 'Welcome!' })).toBeInTheDocument();
      expect(router.state.location.pathname).toBe('/home');
      // Nothing of the guest screen ran (no verification was confirmed).
      expect(server.to('POST', '/api/collections/users/confirm-verification')).toHaveLength(0);
    },
  );

  it.each(['/home', '/profile'])('a visitor opening %s is sent to /', async (path) => {
    fakeServer({});
    const { router } = renderApp(path);
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
  });

  it("What's New is open to visitors too", async () => {
    fakeServer({ 'GET /changelog.json': changelogOk() });
    const { router } = renderApp('/whats-new');
    expect(await screen.findByRole('heading', { name: "What's New" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/whats-new');
  });
});

describe('session on load', () => {
  it('refreshes a stored token once and keeps the session; login never shows', async () => {
    storeSession(alice);
    let release!: () => void;
    const server = fakeServer({
      [REFRESH]: () =>
        new Promise<Response>((resolve) => {
          release = () => resolve(json(200, { token: makeToken(alice.id), record: alice }));
        }),
      'GET /changelog.json': changelogOk([]),
    });
    renderApp('/home');
    await waitFor(() =>
      expect(server.to('POST', '/api/collections/users/auth-refresh')).toHaveLength(1),
    );
    expect(screen.queryByRole('heading', { name: 'Welcome back' })).not.toBeInTheDocument();
    await act(async () => release());
    expect(await screen.findByRole('heading', { name: 'Welcome!' })).toBeInTheDocument();
    expect(server.to('POST', '/api/collections/users/auth-refresh')).toHaveLength(1);
    expect(screen.queryByRole('heading', { name: 'Welcome back' })).not.toBeInTheDocument();
  });

  it('clears the session when the refresh fails', async () => {
    storeSession(alice);
    fakeServer({
      [REFRESH]: () => pbError(401, 'The request requires valid record authorization token.'),
    });
    const { router } = renderApp('/home');
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  it.each([
    ['signed-out', 'You were signed out on this device from another device.'],
    ['password-changed', 'You were signed out because your password or email was changed.'],
    ['disabled', 'You were signed out because an operator disabled your account.'],
    ['expired', 'Your session expired. Please sign in again.'],
  ])('says why when the server tells the session ended elsewhere (%s)', async (reason, words) => {
    storeSession(alice);
    fakeServer({
      [REFRESH]: () =>
        json(401, {
          data: {},
          message: 'The request requires valid record authorization token.',
          status: 401,
          reason,
        }),
    });
    renderApp('/home');
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(await screen.findByText(words)).toBeInTheDocument();
  });

  it('says the session expired for a stored token past its end', async () => {
    storeSession(alice, makeToken(alice.id, -60));
    fakeServer({});
    renderApp('/home');
    expect(
      await screen.findByText('Your session expired. Please sign in again.'),
    ).toBeInTheDocument();
  });

  it('clears the session when the account turns out unverified', async () => {
    storeSession(alice);
    fakeServer({ [REFRESH]: authRefreshOk({ ...alice, verified: false }) });
    renderApp('/profile');
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  it('clears an expired token without asking the server', async () => {
    storeSession(alice, makeToken(alice.id, -60));
    const server = fakeServer({});
    renderApp('/home');
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(server.requests).toHaveLength(0);
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  it('sends no request for a visitor', async () => {
    const server = fakeServer({});
    renderApp('/');
    await screen.findByRole('heading', { name: 'Welcome back' });
    expect(server.requests).toHaveLength(0);
  });
});

describe('page titles', () => {
  it('use the APP_NAME the server wrote into the page', async () => {
    const meta = document.createElement('meta');
    meta.name = 'application-name';
    meta.content = 'Acme Club';
    document.head.append(meta);
    fakeServer({});
    renderApp('/forgot-password');
    await screen.findByRole('heading', { level: 1 });
    expect(document.title).toBe('Forgot password · Acme Club');
  });
});

describe('Not Found', () => {
  it('an unknown route shows Not Found with a link home', async () => {
    fakeServer({});
    const { user, router } = renderApp('/no/such/page');
    await expectFocus(screen.findByRole('heading', { level: 1, name: 'Not Found' }));
    expect(document.title).toBe('Not Found · Gatehouse');
    await user.click(screen.getByRole('link', { name: 'Go to Home' }));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
  });
});

describe('generic failure view', () => {
  it('shows Something went wrong! with a Show Error / Hide Error toggle', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    fakeServer({});
    const broken: Auth = {
      ...createAuth(),
      ready: () => Promise.reject(new Error('Storage is unavailable')),
      user: () => null,
      isAuthenticated: () => false,
    };
    const { user } = renderApp('/', { auth: broken });
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Something went wrong!' }),
    ).toBeInTheDocument();
    expect(screen.queryByText('Storage is unavailable')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Show Error' }));
    expect(screen.getByText('Storage is unavailable')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Hide Error' }));
    expect(screen.queryByText('Storage is unavailable')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Show Error' })).toBeInTheDocument();
  });
});
