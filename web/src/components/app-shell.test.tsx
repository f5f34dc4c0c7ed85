import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { safeReturnPath } from '../lib/return-to';
import {
  authRefreshOk,
  changelogOk,
  fakeServer,
  json,
  makeToken,
  makeUser,
  noContent,
  storeSession,
} from '../test/fake-server';
import { expectFocus, findAnnounced, renderApp } from '../test/render-app';

const alice = makeUser({ email: 'alice@example.com' });

function signedIn() {
  storeSession(alice);
  return fakeServer({
    'POST /api/collections/users/auth-refresh': authRefreshOk(alice),
    'POST /api/gatehouse/logout': () => noContent(),
    'GET /changelog.json': changelogOk(),
    'GET /api/invite-codes': () => json(200, { codes: [] }),
  });
}

describe('the app shell', () => {
  it('a visitor sees the wordmark and a skip link, and no menu', async () => {
    fakeServer({});
    renderApp('/');
    await screen.findByRole('heading', { level: 1, name: 'Welcome back' });
    const banner = screen.getByRole('banner');
    expect(within(banner).getByRole('link', { name: 'Gatehouse' })).toHaveAttribute('href', '/');
    expect(within(banner).queryByRole('button', { name: 'Menu' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Skip to content' })).toHaveAttribute(
      'href',
      '#content',
    );
    expect(screen.getByRole('main')).toHaveAttribute('id', 'content');
  });

  it("a member's header leads to Home, Profile, Settings and What's New and marks the current page; the Menu holds who, the theme and Log Out", async () => {
    const server = signedIn();
    const { user, router } = renderApp('/profile');
    await screen.findByRole('heading', { level: 1, name: 'Profile' });
    const banner = screen.getByRole('banner');
    const nav = await within(banner).findByRole('navigation', { name: 'Main' });
    const links = within(nav).getAllByRole('link');
    expect(links.map((l) => l.textContent)).toEqual(['Home', 'Profile', 'Settings', "What's New"]);
    expect(within(nav).getByRole('link', { name: 'Profile' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    expect(within(nav).getByRole('link', { name: 'Home' })).not.toHaveAttribute('aria-current');
    // Not an operator (the fake server answers /me with nothing it knows): no Admin.
    expect(server.to('GET', '/api/gatehouse/me').length).toBeGreaterThan(0);
    expect(within(nav).queryByRole('link', { name: 'Admin' })).toBeNull();

    const menu = within(banner).getByRole('button', { name: 'Menu' });
    expect(menu).toHaveAttribute('aria-expanded', 'false');
    await user.click(menu);
    expect(menu).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByText('alice@example.com', { selector: 'p' })).toBeInTheDocument();

    // The theme: System at first; Dark is remembered and applied.
    const theme = screen.getByRole('group', { name: 'Theme' });
    expect(within(theme).getByRole('radio', { name: 'System' })).toBeChecked();
    await user.click(within(theme).getByRole('radio', { name: 'Dark' }));
    expect(within(theme).getByRole('radio', { name: 'Dark' })).toBeChecked();
    expect(window.localStorage.getItem('gatehouse.theme')).toBe('dark');
    await user.click(within(theme).getByRole('radio', { name: 'System' }));
    expect(window.localStorage.getItem('gatehouse.theme')).toBeNull();

    // Escape closes it and gives focus back to the button.
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('group', { name: 'Theme' })).not.toBeInTheDocument();
    await expectFocus(menu);

    await user.click(menu);
    await user.click(within(banner).getByRole('button', { name: 'Log Out' }));
    await findAnnounced('You have been signed out.', 'status');
    expect(router.state.location.pathname).toBe('/');
    expect(within(screen.getByRole('banner')).queryByRole('button', { name: 'Menu' })).toBeNull();
    expect(within(screen.getByRole('banner')).queryByRole('navigation')).toBeNull();
  });

  it('Home Log Out lands on the login screen saying so', async () => {
    signedIn();
    const { user } = renderApp('/home');
    await user.click(await screen.findByRole('button', { name: 'Log Out' }));
    await findAnnounced('You have been signed out.', 'status');
    expect(screen.getByRole('heading', { level: 1, name: 'Welcome back' })).toBeInTheDocument();
  });
});

describe('return to the screen after sign-in', () => {
  it('a visitor opening /profile signs in and lands on /profile', async () => {
    fakeServer({
      'POST /api/collections/users/auth-with-password': () =>
        json(200, { token: makeToken(alice.id), record: alice }),
      'GET /api/invite-codes': () => json(200, { codes: [] }),
      'GET /changelog.json': changelogOk(),
    });
    const { user, router } = renderApp('/profile');
    await screen.findByRole('heading', { level: 1, name: 'Welcome back' });
    expect(router.state.location.pathname).toBe('/');
    expect(router.state.location.search).toEqual({ redirect: '/profile' });
    await user.type(screen.getByLabelText('Email'), 'alice@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Profile' })).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/profile'));
  });

  it('a redirect to another site is ignored: the sign-in ends on Home', async () => {
    fakeServer({
      'POST /api/collections/users/auth-with-password': () =>
        json(200, { token: makeToken(alice.id), record: alice }),
      'GET /changelog.json': changelogOk(),
    });
    const { user, router } = renderApp('/?redirect=%2F%2Fevil.example%2Fhome');
    await user.type(await screen.findByLabelText('Email'), 'alice@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome!' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/home');
  });

  it.each([
    ['//evil.example/x', null],
    ['/\\evil.example', null],
    ['https://evil.example/home', null],
    ['javascript:alert(1)', null],
    ['/api/collections/users/records', null],
    ['/', null],
    ['/profile\n', null],
    ['/settings?tab=1#devices', '/settings?tab=1#devices'],
    ['/profile', '/profile'],
  ])('safeReturnPath(%j) is %j', (value, expected) => {
    expect(safeReturnPath(value)).toBe(expected);
  });
});
