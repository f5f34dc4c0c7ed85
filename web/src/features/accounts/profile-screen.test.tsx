import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pb } from '../../lib/pb';
import { AUTH_STORAGE_KEY, type UserRecord } from '../../lib/session';
import {
  authRefreshOk,
  changelogOk,
  fakeServer,
  json,
  makeUser,
  noContent,
  pbError,
  storeSession,
  type Handler,
} from '../../test/fake-server';
import { expectFocus, findAnnounced, renderApp } from '../../test/render-app';

const alice = makeUser({ id: 'a1b2c3d4e5f6g7h', email: 'alice@example.com' });
const root = makeUser({ id: 'r00tr00tr00tr00', email: 'root@example.com', isInitialUser: true });
const codes = [
  { id: 'c1', code: 'K7M2-QX9R-T4WD-8HNP', created: '2026-11-21 10:00:00.000Z' },
  { id: 'c2', code: 'B3VZ-6JFA-2YCE-MQ5K', created: '2026-11-21 09:00:00.000Z' },
];

function signedIn(user: UserRecord, routes: Record<string, Handler> = {}) {
  storeSession(user);
  return fakeServer({
    'POST /api/collections/users/auth-refresh': authRefreshOk(user),
    'GET /changelog.json': changelogOk(),
    'GET /api/invite-codes': () => json(200, { codes }),
    ...routes,
  });
}

afterEach(() => {
  document.head.querySelectorAll('meta[name="app-url"]').forEach((m) => m.remove());
});

describe('Profile (/profile)', () => {
  it('shows email, user id, Email verified Yes and the created date', async () => {
    signedIn(alice);
    renderApp('/profile');
    await expectFocus(screen.findByRole('heading', { level: 1, name: 'Profile' }));
    expect(document.title).toBe('Profile · Gatehouse');
    const details = screen.getByRole('region', { name: 'Account' });
    expect(within(details).getByText('alice@example.com')).toBeInTheDocument();
    expect(within(details).getByText('a1b2c3d4e5f6g7h')).toBeInTheDocument();
    expect(within(details).getByText('Email verified')).toBeInTheDocument();
    expect(within(details).getByText('Yes')).toBeInTheDocument();
    expect(within(details).getByText('August 14, 2026')).toBeInTheDocument();
  });

  it('lists the invite codes, each with Copy Invite; no generate buttons for other users', async () => {
    const server = signedIn(alice);
    renderApp('/profile');
    const list = await screen.findByRole('list', { name: 'Your invite codes' });
    expect(within(list).getByText('K7M2-QX9R-T4WD-8HNP')).toBeInTheDocument();
    expect(within(list).getByText('B3VZ-6JFA-2YCE-MQ5K')).toBeInTheDocument();
    expect(within(list).getAllByRole('button', { name: 'Copy Invite' })).toHaveLength(2);
    expect(screen.queryByRole('button', { name: 'Generate 5 More' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Generate Codes' })).not.toBeInTheDocument();
    expect(server.to('GET', '/api/invite-codes')[0]?.headers.get('Authorization')).toBeTruthy();
  });

  it('Copy Invite copies the sign-up link (own origin when APP_URL is empty) and shows Copied for 2 s', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    signedIn(alice);
    const { user } = renderApp('/profile', { fakeTimers: true });
    const list = await screen.findByRole('list', { name: 'Your invite codes' });
    const [first, second] = within(list).getAllByRole('button', { name: 'Copy Invite' });
    await user.click(first!);
    expect(await navigator.clipboard.readText()).toBe(
      `${window.location.origin}/signup?code=K7M2-QX9R-T4WD-8HNP`,
    );
    expect(within(list).getByRole('button', { name: 'Copied' })).toBe(first);
    expect(second).toHaveTextContent('Copy Invite');
    await act(() => vi.advanceTimersByTimeAsync(1900));
    expect(first).toHaveTextContent('Copied');
    await act(() => vi.advanceTimersByTimeAsync(200));
    expect(first).toHaveTextContent('Copy Invite');
  });

  it('marks a copied code for the rest of the visit (also after a reload)', async () => {
    signedIn(alice);
    const first = renderApp('/profile');
    const list = await screen.findByRole('list', { name: 'Your invite codes' });
    await first.user.click(within(list).getAllByRole('button', { name: 'Copy Invite' })[0]!);
    const [copied, other] = within(list).getAllByRole('listitem');
    expect(within(copied!).getByText('Link copied')).toBeInTheDocument();
    expect(within(other!).queryByText('Link copied')).toBeNull();
    first.unmount();
    renderApp('/profile');
    const again = await screen.findByRole('list', { name: 'Your invite codes' });
    expect(
      within(within(again).getAllByRole('listitem')[0]!).getByText('Link copied'),
    ).toBeVisible();
  });

  it('offers Share beside Copy Invite where the browser can share, and marks a shared code', async () => {
    const shared: ShareData[] = [];
    vi.stubGlobal('navigator', {
      ...navigator,
      clipboard: navigator.clipboard,
      share: (data: ShareData) => {
        shared.push(data);
        return Promise.resolve();
      },
      canShare: () => true,
    });
    signedIn(alice);
    const { user } = renderApp('/profile');
    const list = await screen.findByRole('list', { name: 'Your invite codes' });
    await user.click(within(list).getAllByRole('button', { name: 'Share' })[1]!);
    expect(shared[0]?.url).toBe(`${window.location.origin}/signup?code=B3VZ-6JFA-2YCE-MQ5K`);
    expect(
      within(within(list).getAllByRole('listitem')[1]!).getByText('Link shared'),
    ).toBeVisible();
  });

  it('shows no Share button where the browser cannot share', async () => {
    signedIn(alice);
    renderApp('/profile');
    const list = await screen.findByRole('list', { name: 'Your invite codes' });
    expect(within(list).getAllByRole('button', { name: 'Copy Invite' })).toHaveLength(2);
    expect(within(list).queryByRole('button', { name: 'Share' })).toBeNull();
  });

  it('Copy Invite uses APP_URL from the page when the server set it', async () => {
    const meta = document.createElement('meta');
    meta.name = 'app-url';
    meta.content = 'https://gatehouse.example/';
    document.head.append(meta);
    signedIn(alice);
    const { user } = renderApp('/profile');
    const list = await screen.findByRole('list', { name: 'Your invite codes' });
    await user.click(within(list).getAllByRole('button', { name: 'Copy Invite' })[1]!);
    expect(await navigator.clipboard.readText()).toBe(
      'https://gatehouse.example/signup?code=B3VZ-6JFA-2YCE-MQ5K',
    );
  });

  it('shows the name and photo on the Account card, with the way to change them', async () => {
    signedIn(
      { ...alice, name: 'Alice Liddell', avatar: 'alice_k2j4h5g6f7.png' },
      {
        'POST /api/files/token': () => json(200, { token: 'ft1' }),
      },
    );
    renderApp('/profile');
    const details = await screen.findByRole('region', { name: 'Account' });
    expect(within(details).getByText('Alice Liddell')).toBeInTheDocument();
    await waitFor(() =>
      expect(details.querySelector('img')).toHaveAttribute(
        'src',
        '/api/files/users/a1b2c3d4e5f6g7h/alice_k2j4h5g6f7.png?thumb=200x200&token=ft1',
      ),
    );
    expect(
      within(details).getByRole('link', { name: 'Change your name or photo' }),
    ).toHaveAttribute('href', '/settings');
  });

  it('lists who joined with the used codes: photo or initials, name or shown email, when, most recent first', async () => {
    const used = [
      {
        id: 'u3',
        code: 'GONE-GONE-GONE-GONE',
        usedAt: '2026-11-24 12:00:00.000Z',
        member: null,
      },
      {
        id: 'u2',
        code: 'SHOW-SHOW-SHOW-SHOW',
        usedAt: '2026-11-23 12:00:00.000Z',
        member: { id: 'm2', name: '', email: 'bob@example.com', avatar: '' },
      },
      {
        id: 'u1',
        code: 'NAME-NAME-NAME-NAME',
        usedAt: '2026-11-22 12:00:00.000Z',
        member: { id: 'm1', name: 'Ada Lovelace', avatar: 'ada_k2j4h5g6f7.png' },
      },
      {
        id: 'u0',
        code: 'NONE-NONE-NONE-NONE',
        usedAt: '2026-11-21 12:00:00.000Z',
        member: { id: 'm0', name: '', avatar: '' },
      },
    ];
    signedIn(alice, {
      'GET /api/invite-codes': () => json(200, { codes, used }),
      'POST /api/files/token': () => json(200, { token: 'ft1' }),
    });
    renderApp('/profile');
    const list = await screen.findByRole('list', { name: 'Joined with Your Codes' });
    const rows = within(list).getAllByRole('listitem');
    const when = (iso: string) =>
      new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' });
    // Each row: the initials (or a photo), who, then when and with which code.
    expect(rows.map((r) => r.textContent)).toEqual([
      `?An account that has since been deletedJoined ${when('2026-11-24T12:00:00Z')} with GONE-GONE-GONE-GONE`,
      `Bbob@example.comJoined ${when('2026-11-23T12:00:00Z')} with SHOW-SHOW-SHOW-SHOW`,
      expect.stringMatching(/^(AL)?Ada LovelaceJoined .* with NAME-NAME-NAME-NAME$/),
      `?Someone who has not added a nameJoined ${when('2026-11-21T12:00:00Z')} with NONE-NONE-NONE-NONE`,
    ]);
    // Ada's photo: a thumb of her avatar with this member's file token (decorative: her name is there).
    await waitFor(() =>
      expect(rows[2]!.querySelector('img')).toHaveAttribute(
        'src',
        '/api/files/users/m1/ada_k2j4h5g6f7.png?thumb=100x100&token=ft1',
      ),
    );
    expect(rows[2]!.querySelector('img')).toHaveAttribute('alt', '');
    // The used codes are not in the open list.
    expect(
      within(screen.getByRole('list', { name: 'Your invite codes' })).queryByText(
        'NAME-NAME-NAME-NAME',
      ),
    ).toBeNull();
  });

  it('says nobody has joined yet when no code was used', async () => {
    signedIn(alice, { 'GET /api/invite-codes': () => json(200, { codes, used: [] }) });
    renderApp('/profile');
    expect(
      await screen.findByText(
        'Nobody has joined with your codes yet. When someone does, they show here.',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByRole('list', { name: 'Joined with Your Codes' })).toBeNull();
  });

  it('says when there are no invite codes', async () => {
    signedIn(alice, { 'GET /api/invite-codes': () => json(200, { codes: [] }) });
    renderApp('/profile');
    expect(await screen.findByText('No invite codes available.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Generate Codes' })).not.toBeInTheDocument();
  });

  it('only logs invite list errors', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    signedIn(alice, {
      'GET /api/invite-codes': () => pbError(403, 'You are not allowed to perform this request.'),
    });
    renderApp('/profile');
    await waitFor(() => expect(logged).toHaveBeenCalled());
    expect(screen.queryByRole('list', { name: 'Your invite codes' })).not.toBeInTheDocument();
    expect(screen.queryByText(/not allowed/)).not.toBeInTheDocument();
    expect(screen.queryByText(/Failed/)).not.toBeInTheDocument();
    expect(screen.getByText('alice@example.com')).toBeInTheDocument();
  });

  describe('the initial user', () => {
    it('sees Generate 5 More and Generate Codes; generating refetches the list', async () => {
      let list = codes;
      const server = signedIn(root, {
        'GET /api/invite-codes': () => json(200, { codes: list }),
        'POST /api/invite-codes/generate': () => {
          const fresh = ['N1', 'N2', 'N3', 'N4', 'N5'].map((c, i) => ({
            id: `n${i}`,
            code: `${c}AA-BBBB-CCCC-DDDD`,
            created: '2026-11-21 11:00:00.000Z',
          }));
          list = [...fresh, ...codes];
          return json(200, { generated: 5, codes: fresh });
        },
      });
      const { user } = renderApp('/profile');
      await screen.findByRole('list', { name: 'Your invite codes' });
      expect(screen.getByRole('button', { name: 'Generate Codes' })).toBeInTheDocument();
      await user.click(screen.getByRole('button', { name: 'Generate 5 More' }));
      await findAnnounced('Generated 5 new invite codes.', 'status');
      const listEl = await screen.findByRole('list', { name: 'Your invite codes' });
      await waitFor(() => expect(within(listEl).getAllByRole('listitem')).toHaveLength(7));
      expect(server.to('GET', '/api/invite-codes').length).toBeGreaterThanOrEqual(2);
      expect(server.to('POST', '/api/invite-codes/generate')).toHaveLength(1);
    });

    it('can generate from an empty list with Generate Codes', async () => {
      let list: typeof codes = [];
      signedIn(root, {
        'GET /api/invite-codes': () => json(200, { codes: list }),
        'POST /api/invite-codes/generate': () => {
          list = codes;
          return json(200, { generated: 2, codes });
        },
      });
      const { user } = renderApp('/profile');
      expect(await screen.findByText('No invite codes available.')).toBeInTheDocument();
      await user.click(screen.getByRole('button', { name: 'Generate Codes' }));
      expect(await screen.findByText('K7M2-QX9R-T4WD-8HNP')).toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'Generate 5 More' })).toBeInTheDocument();
    });

    const generateErrors: Array<[string, Handler, string]> = [
      [
        '403',
        () => pbError(403, 'Only the initial user can generate unlimited invite codes.'),
        'Only the initial user can generate unlimited invite codes.',
      ],
      [
        'another error',
        () => pbError(429, 'Too Many Requests.'),
        'Too many attempts. Please wait a moment and try again.',
      ],
      ['no message', () => new Response('', { status: 500 }), 'Failed to generate invite codes.'],
    ];
    it.each(generateErrors)('shows the generation error: %s', async (_n, handler, message) => {
      signedIn(root, { 'POST /api/invite-codes/generate': handler });
      const { user } = renderApp('/profile');
      await user.click(await screen.findByRole('button', { name: 'Generate 5 More' }));
      await findAnnounced(message);
      expect(screen.getByRole('button', { name: 'Generate 5 More' })).toBeEnabled();
    });
  });

  it('a 401 on its next request (session ended elsewhere) ends the session and shows login', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    signedIn(alice, {
      'GET /api/invite-codes': () =>
        pbError(401, 'The request requires valid record authorization token.'),
    });
    const { router } = renderApp('/profile');
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    logged.mockRestore();
  });

  it('Back to Home goes home', async () => {
    signedIn(alice);
    const { user, router } = renderApp('/profile');
    await user.click(await screen.findByRole('button', { name: 'Back to Home' }));
    expect(await screen.findByRole('heading', { name: 'Welcome!' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/home');
  });

  describe('Delete Account', () => {
    const DELETE = `DELETE /api/collections/users/records/${alice.id}`;

    it('asks for confirmation with the warning; Cancel goes back', async () => {
      const server = signedIn(alice);
      const { user } = renderApp('/profile');
      await user.click(await screen.findByRole('button', { name: 'Delete Account' }));
      expect(
        screen.getByText(
          'This action cannot be undone. All your data will be permanently deleted.',
        ),
      ).toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'Yes, Delete' })).toBeEnabled();
      await user.click(screen.getByRole('button', { name: 'Cancel' }));
      expect(screen.queryByRole('button', { name: 'Yes, Delete' })).not.toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'Delete Account' })).toBeInTheDocument();
      expect(server.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);
    });

    it('deletes the account, clears the session and shows login', async () => {
      let release!: () => void;
      const server = signedIn(alice, {
        [DELETE]: () =>
          new Promise<Response>((resolve) => {
            release = () => resolve(noContent());
          }),
      });
      const { user, router } = renderApp('/profile');
      await user.click(await screen.findByRole('button', { name: 'Delete Account' }));
      await user.click(screen.getByRole('button', { name: 'Yes, Delete' }));
      expect(await screen.findByRole('button', { name: 'Deleting...' })).toBeDisabled();
      await act(async () => release());
      expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
      expect(router.state.location.pathname).toBe('/');
      expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
      expect(server.to('DELETE', `/api/collections/users/records/${alice.id}`)).toHaveLength(1);
    });

    it('says why on failure and re-enables the button', async () => {
      signedIn(alice, { [DELETE]: () => pbError(404, "The requested resource wasn't found.") });
      const { user, router } = renderApp('/profile');
      await user.click(await screen.findByRole('button', { name: 'Delete Account' }));
      await user.click(screen.getByRole('button', { name: 'Yes, Delete' }));
      await findAnnounced("This doesn't exist, or it was removed.");
      expect(screen.getByRole('button', { name: 'Yes, Delete' })).toBeEnabled();
      expect(router.state.location.pathname).toBe('/profile');
    });

    it('shows the default failure message when there is none', async () => {
      signedIn(alice, { [DELETE]: () => new Response('', { status: 500 }) });
      const { user } = renderApp('/profile');
      await user.click(await screen.findByRole('button', { name: 'Delete Account' }));
      await user.click(screen.getByRole('button', { name: 'Yes, Delete' }));
      await findAnnounced('Failed to delete account. Please try again.');
      expect(screen.getByRole('button', { name: 'Yes, Delete' })).toBeEnabled();
    });

    it('says No user found. when the session is gone', async () => {
      const server = signedIn(alice);
      const { user } = renderApp('/profile');
      await user.click(await screen.findByRole('button', { name: 'Delete Account' }));
      // Signed out elsewhere (another tab) while the profile is open.
      act(() => pb.authStore.clear());
      await user.click(screen.getByRole('button', { name: 'Yes, Delete' }));
      await findAnnounced('No user found.');
      expect(server.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);
    });
  });
});
