import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AUTH_STORAGE_KEY } from '../../lib/session';
import {
  authRefreshOk,
  changelogOk,
  fakeServer,
  json,
  makeUser,
  noContent,
  pbError,
  storeSession,
} from '../../test/fake-server';
import { renderApp } from '../../test/render-app';
import { LAST_VIEWED_VERSION_KEY } from '../changelog/api';

const alice = makeUser();

function signedIn(extra: Parameters<typeof fakeServer>[0] = {}) {
  storeSession(alice);
  return fakeServer({
    'POST /api/collections/users/auth-refresh': authRefreshOk(alice),
    'GET /changelog.json': changelogOk(),
    'GET /api/invite-codes': () => json(200, { codes: [] }),
    ...extra,
  });
}

describe('Home (/home)', () => {
  it("shows Welcome! with View Profile, What's New and Log Out", async () => {
    signedIn();
    renderApp('/home');
    const heading = await screen.findByRole('heading', { level: 1, name: 'Welcome!' });
    // The screen's heading takes focus in an effect, just after it shows.
    await waitFor(() => expect(heading).toHaveFocus());
    expect(document.title).toBe('Home · Gatehouse');
    expect(screen.getByRole('button', { name: 'View Profile' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: "What's New" })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Log Out' })).toBeInTheDocument();
  });

  it('View Profile opens the profile', async () => {
    signedIn();
    const { user, router } = renderApp('/home');
    await user.click(await screen.findByRole('button', { name: 'View Profile' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Profile' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/profile');
  });

  it("What's New opens the release notes", async () => {
    signedIn();
    const { user, router } = renderApp('/home');
    await user.click(await screen.findByRole('button', { name: "What's New" }));
    expect(await screen.findByText('Latest features and improvements')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/whats-new');
  });

  it('Log Out clears the session and shows login', async () => {
    signedIn();
    const { user, router } = renderApp('/home');
    await user.click(await screen.findByRole('button', { name: 'Log Out' }));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  it('Log Out ends the session on the server first, with its token', async () => {
    const server = signedIn({ 'POST /api/gatehouse/logout': () => noContent() });
    const { user } = renderApp('/home');
    const logOut = await screen.findByRole('button', { name: 'Log Out' });
    // The token the device holds when the member logs out (the start's refresh renewed it).
    const { token } = JSON.parse(window.localStorage.getItem(AUTH_STORAGE_KEY) ?? '{}') as {
      token: string;
    };
    await user.click(logOut);
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    const logout = server.to('POST', '/api/gatehouse/logout');
    expect(logout).toHaveLength(1);
    expect(logout[0]?.headers.get('Authorization')).toBe(token);
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  it.each([
    ['the server fails', () => new Response('', { status: 500 })],
    [
      'the session had already ended',
      () => pbError(401, 'The request requires valid record authorization token.'),
    ],
    ['the server is unreachable', () => Promise.reject(new TypeError('Failed to fetch'))],
  ])('Log Out clears the local session all the same when %s', async (_what, handler) => {
    const server = signedIn({ 'POST /api/gatehouse/logout': handler as () => Response });
    const { user, router } = renderApp('/home');
    await user.click(await screen.findByRole('button', { name: 'Log Out' }));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
    expect(server.to('POST', '/api/gatehouse/logout')).toHaveLength(1);
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  describe('New Update banner', () => {
    // Decision 0066: a first visit on this browser records the latest version without a banner
    // (the spec showed it whenever the stored version differed, also when none was stored).
    it('a first visit on this browser records the latest version silently, with no banner', async () => {
      const server = signedIn();
      renderApp('/home');
      await screen.findByRole('heading', { name: 'Welcome!' });
      await waitForChangelog(server);
      expect(screen.queryByRole('region', { name: 'New Update' })).not.toBeInTheDocument();
      expect(window.localStorage.getItem(LAST_VIEWED_VERSION_KEY)).toBe('1.2.0');
    });

    it('shows the latest version and title when an older one was viewed', async () => {
      window.localStorage.setItem(LAST_VIEWED_VERSION_KEY, '1.1.0');
      signedIn();
      renderApp('/home');
      const banner = await screen.findByRole('region', { name: 'New Update' });
      expect(within(banner).getByText('v1.2.0')).toBeInTheDocument();
      expect(within(banner).getByText(/Faster invites/)).toBeInTheDocument();
      expect(within(banner).getByRole('button', { name: "View What's New" })).toBeInTheDocument();
      expect(within(banner).getByRole('button', { name: 'Dismiss update' })).toBeInTheDocument();
    });

    it('shows when an older version was viewed', async () => {
      window.localStorage.setItem(LAST_VIEWED_VERSION_KEY, '1.1.0');
      signedIn();
      renderApp('/home');
      expect(await screen.findByRole('region', { name: 'New Update' })).toBeInTheDocument();
    });

    it('is hidden when the latest version was viewed', async () => {
      window.localStorage.setItem(LAST_VIEWED_VERSION_KEY, '1.2.0');
      const server = signedIn();
      renderApp('/home');
      await screen.findByRole('heading', { name: 'Welcome!' });
      await waitForChangelog(server);
      expect(screen.queryByRole('region', { name: 'New Update' })).not.toBeInTheDocument();
    });

    it('is hidden when there are no releases', async () => {
      const server = signedIn({ 'GET /changelog.json': changelogOk([]) });
      renderApp('/home');
      await screen.findByRole('heading', { name: 'Welcome!' });
      await waitForChangelog(server);
      expect(screen.queryByRole('region', { name: 'New Update' })).not.toBeInTheDocument();
    });

    it('dismissing stores the version and hides the banner', async () => {
      window.localStorage.setItem(LAST_VIEWED_VERSION_KEY, '1.1.0');
      signedIn();
      const { user } = renderApp('/home');
      const banner = await screen.findByRole('region', { name: 'New Update' });
      await user.click(within(banner).getByRole('button', { name: 'Dismiss update' }));
      expect(screen.queryByRole('region', { name: 'New Update' })).not.toBeInTheDocument();
      expect(window.localStorage.getItem(LAST_VIEWED_VERSION_KEY)).toBe('1.2.0');
    });

    it("View What's New stores the version and opens the release notes", async () => {
      window.localStorage.setItem(LAST_VIEWED_VERSION_KEY, '1.1.0');
      signedIn();
      const { user, router } = renderApp('/home');
      const banner = await screen.findByRole('region', { name: 'New Update' });
      await user.click(within(banner).getByRole('button', { name: "View What's New" }));
      expect(await screen.findByText('Latest features and improvements')).toBeInTheDocument();
      expect(router.state.location.pathname).toBe('/whats-new');
      expect(window.localStorage.getItem(LAST_VIEWED_VERSION_KEY)).toBe('1.2.0');
    });
  });
});

async function waitForChangelog(server: ReturnType<typeof fakeServer>) {
  await waitFor(() => expect(server.to('GET', '/changelog.json').length).toBeGreaterThan(0));
  // Let the answer reach the screen.
  await new Promise((r) => setTimeout(r, 50));
}
