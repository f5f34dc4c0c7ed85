import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { formatTimeAgo } from '../../lib/dates';
import {
  authRefreshOk,
  changelogOk,
  fakeServer,
  json,
  makeUser,
  pbError,
  settingsAnswer,
  storeSession,
  type Handler,
} from '../../test/fake-server';
import { renderApp } from '../../test/render-app';

/** Home's cards beside the spec's (docs/decisions/0069): invites, who joined, the nudge, first steps. */

const alice = makeUser();
const initial = makeUser({ id: 'initial00000001', email: 'root@example.com', isInitialUser: true });

const code = (n: number, value: string) => ({
  id: `code${n}`.padEnd(15, '0'),
  code: value,
  created: '2026-11-01 10:00:00.000Z',
});

/** A server date `ms` ago, in the server's format. */
const ago = (ms: number) => new Date(Date.now() - ms).toISOString().replace('T', ' ');
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

function joined(n: number, name: string, usedAt: string, member: 'gone' | 'here' = 'here') {
  return {
    id: `used${n}`.padEnd(15, '0'),
    code: `USED-000${n}-AAAA-BBBB-CCCC`,
    usedAt,
    member: member === 'gone' ? null : { id: `member${n}`.padEnd(15, '0'), name, avatar: '' },
  };
}

const noneOn: Record<string, Handler> = {
  'GET /api/gatehouse/totp': () => json(200, { enabled: false, recoveryCodesLeft: 0 }),
  'GET /api/gatehouse/passkeys': () => json(200, { items: [] }),
};

function signedIn(who = alice, extra: Record<string, Handler> = {}) {
  storeSession(who);
  return fakeServer({
    'POST /api/collections/users/auth-refresh': authRefreshOk(who),
    'GET /changelog.json': changelogOk(),
    'GET /api/invite-codes': () => json(200, { codes: [], used: [] }),
    'GET /api/gatehouse/totp': () => json(200, { enabled: true, recoveryCodesLeft: 10 }),
    'GET /api/gatehouse/passkeys': () => json(200, { items: [] }),
    ...extra,
  });
}

const codesAnswer =
  (codes: unknown[], used: unknown[] = []): Handler =>
  () =>
    json(200, { codes, used });

describe('Home: Your Invites', () => {
  it('says how many codes are left and Copy Link copies the first one’s sign-up link', async () => {
    signedIn(alice, {
      'GET /api/invite-codes': codesAnswer([
        code(1, 'K7M2-QX9R-T4WD-8HNP-AAAA'),
        code(2, 'B3VZ-6JFA-2YCE-MQ5K-BBBB'),
        code(3, 'C4WX-7KGB-3ZDF-NR6L-CCCC'),
      ]),
    });
    const { user } = renderApp('/home');
    const card = await screen.findByRole('region', { name: 'Your Invites' });
    expect(await within(card).findByText(/invite codes left/)).toHaveTextContent(
      'You have 3 invite codes left.',
    );
    const copy = within(card).getByRole('button', { name: 'Copy Link' });
    expect(copy).toHaveAccessibleDescription('K7M2-QX9R-T4WD-8HNP-AAAA');
    await user.click(copy);
    expect(await navigator.clipboard.readText()).toBe(
      `${window.location.origin}/signup?code=K7M2-QX9R-T4WD-8HNP-AAAA`,
    );
    expect(copy).toHaveTextContent('Copied');
    // The profile's mark for this visit: Profile shows the same code as copied.
    expect(within(card).getByText('Link copied')).toBeInTheDocument();
    expect(within(card).getByRole('link', { name: 'See all your invite codes' })).toHaveAttribute(
      'href',
      '/profile',
    );
  });

  it('says "1 invite code left" for the last one', async () => {
    signedIn(alice, {
      'GET /api/invite-codes': codesAnswer([code(1, 'K7M2-QX9R-T4WD-8HNP-AAAA')]),
    });
    renderApp('/home');
    const card = await screen.findByRole('region', { name: 'Your Invites' });
    expect(await within(card).findByText(/invite code left/)).toHaveTextContent(
      'You have 1 invite code left.',
    );
  });

  it('with no codes left says so plainly, with no Copy Link', async () => {
    signedIn();
    renderApp('/home');
    const card = await screen.findByRole('region', { name: 'Your Invites' });
    expect(
      await within(card).findByText(
        'You have no invite codes left. If you need more, ask the person who runs this community.',
      ),
    ).toBeInTheDocument();
    expect(within(card).queryByRole('button', { name: 'Copy Link' })).not.toBeInTheDocument();
  });

  it('the initial user with no codes left is pointed to Profile, where codes are generated', async () => {
    signedIn(initial, { 'GET /api/settings': () => json(200, settingsAnswer()) });
    const { user, router } = renderApp('/home');
    const card = await screen.findByRole('region', { name: 'Your Invites' });
    const link = await within(card).findByRole('link', { name: 'Generate more on your Profile' });
    expect(card).toHaveTextContent('You have no invite codes left. Generate more on your Profile.');
    await user.click(link);
    expect(await screen.findByRole('button', { name: 'Generate Codes' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/profile');
  });

  it('lists the three who joined most recently, newest first, with how long ago', async () => {
    signedIn(alice, {
      'GET /api/invite-codes': codesAnswer(
        [],
        [
          joined(1, 'Dana', ago(5 * MINUTE)),
          joined(2, '', ago(90 * MINUTE), 'gone'),
          joined(3, 'Eli', ago(DAY + MINUTE)),
          joined(4, 'Fay', ago(3 * DAY)),
          joined(5, 'Gus', ago(40 * DAY)),
        ],
      ),
    });
    renderApp('/home');
    const card = await screen.findByRole('region', { name: 'Your Invites' });
    const list = await within(card).findByRole('list', { name: 'Joined Recently' });
    const rows = within(list).getAllByRole('listitem');
    // An account deleted since is not among them (Profile still lists its code).
    expect(rows.map((row) => row.textContent)).toEqual([
      expect.stringContaining('Dana'),
      expect.stringContaining('Eli'),
      expect.stringContaining('Fay'),
    ]);
    expect(rows[0]).toHaveTextContent('Joined 5 minutes ago');
    expect(rows[1]).toHaveTextContent('Joined yesterday');
    expect(rows[2]).toHaveTextContent('Joined 3 days ago');
    expect(card).not.toHaveTextContent('Gus');
    expect(
      within(card).getByRole('link', { name: 'See everyone who joined with your codes' }),
    ).toHaveAttribute('href', '/profile');
  });

  it('says nobody has joined yet, with no link to more', async () => {
    signedIn(alice, {
      'GET /api/invite-codes': codesAnswer([code(1, 'K7M2-QX9R-T4WD-8HNP-AAAA')]),
    });
    renderApp('/home');
    const card = await screen.findByRole('region', { name: 'Your Invites' });
    expect(
      await within(card).findByText(
        'Nobody has joined with your codes yet. When someone does, they show here.',
      ),
    ).toBeInTheDocument();
    expect(within(card).queryByRole('link', { name: /See everyone/ })).not.toBeInTheDocument();
  });

  it('says so when the codes could not be loaded', async () => {
    signedIn(alice, { 'GET /api/invite-codes': () => pbError(500, 'Something went wrong.') });
    renderApp('/home');
    const card = await screen.findByRole('region', { name: 'Your Invites' });
    expect(
      await within(card).findByText("We couldn't load your invite codes. Please try again later."),
    ).toHaveAttribute('role', 'alert');
    expect(within(card).queryByRole('button', { name: 'Copy Link' })).not.toBeInTheDocument();
  });
});

describe('Home: Protect Your Account', () => {
  it('nudges a member with neither two-step sign-in nor a passkey towards Settings', async () => {
    signedIn(alice, noneOn);
    const { user, router } = renderApp('/home');
    const card = await screen.findByRole('region', { name: 'Protect Your Account' });
    expect(card).toHaveTextContent('Turn on two-step sign-in or add a passkey in Settings');
    await user.click(within(card).getByRole('button', { name: 'Open Settings' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Settings' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/settings');
  });

  it.each([
    [
      'two-step sign-in is on',
      { 'GET /api/gatehouse/passkeys': noneOn['GET /api/gatehouse/passkeys']! },
    ],
    [
      'the member has a passkey',
      {
        'GET /api/gatehouse/totp': noneOn['GET /api/gatehouse/totp']!,
        'GET /api/gatehouse/passkeys': () =>
          json(200, {
            items: [
              {
                id: 'passkey00000001',
                name: 'Chrome on Linux',
                created: '2026-11-01 10:00:00.000Z',
                lastUsed: null,
              },
            ],
          }),
      },
    ],
  ])('is not there once %s', async (_what, routes) => {
    const server = signedIn(alice, routes);
    renderApp('/home');
    await screen.findByRole('region', { name: 'Your Invites' });
    await waitFor(() => {
      expect(server.to('GET', '/api/gatehouse/totp')).toHaveLength(1);
      expect(server.to('GET', '/api/gatehouse/passkeys')).toHaveLength(1);
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByRole('region', { name: 'Protect Your Account' })).not.toBeInTheDocument();
  });
});

describe('Home: Getting Started (the initial user)', () => {
  function operator(settings: object, used: unknown[] = []) {
    return signedIn(initial, {
      'GET /api/settings': () => json(200, settings),
      'GET /api/invite-codes': codesAnswer([], used),
    });
  }

  it('ticks what the server says is done, each step linking to where it is done', async () => {
    operator(
      settingsAnswer({ smtp: { enabled: false }, lockedByEnv: [], backups: { cron: '0 3 * * *' } }),
    );
    renderApp('/home');
    const card = await screen.findByRole('region', { name: 'Getting Started' });
    const steps = await within(card).findByRole('list', { name: 'First steps' });
    const [mail, members, backups] = within(steps).getAllByRole('listitem');
    expect(mail).toHaveTextContent('Set up mail');
    expect(mail).toHaveTextContent('To do');
    expect(mail).toHaveTextContent(
      'Mail is not sent yet: the server prints each mail to its console.',
    );
    expect(within(mail!).getByRole('link', { name: 'Mail Server settings' })).toHaveAttribute(
      'href',
      '/admin/settings#mail-server',
    );
    expect(members).toHaveTextContent('Invite your first members');
    expect(members).toHaveTextContent('To do');
    expect(within(members!).getByRole('link', { name: 'Your invite codes' })).toHaveAttribute(
      'href',
      '/profile',
    );
    expect(backups).toHaveTextContent('Schedule backups');
    expect(backups).toHaveTextContent('Done');
    expect(within(backups!).getByRole('link', { name: 'Backups' })).toHaveAttribute(
      'href',
      '/admin/backups',
    );
    expect(card).toHaveTextContent('2 of 3 still to do');
  });

  it('once everything is done, one line says the community is set up', async () => {
    operator(settingsAnswer({ backups: { cron: '0 3 * * *' } }), [
      joined(1, 'Dana', ago(5 * MINUTE)),
    ]);
    renderApp('/home');
    const card = await screen.findByRole('region', { name: 'Getting Started' });
    expect(
      await within(card).findByText(
        'Your community is set up: mail is sent, members have joined and backups are scheduled.',
      ),
    ).toBeInTheDocument();
    expect(within(card).queryByRole('list')).not.toBeInTheDocument();
  });

  it('says so when the settings could not be loaded', async () => {
    signedIn(initial, { 'GET /api/settings': () => pbError(500, 'Something went wrong.') });
    renderApp('/home');
    const card = await screen.findByRole('region', { name: 'Getting Started' });
    expect(await within(card).findByRole('alert')).toHaveTextContent(
      "We couldn't load your first steps.",
    );
  });

  it('is not there for anyone but the initial user, who asks nothing of the settings', async () => {
    const server = signedIn();
    renderApp('/home');
    await screen.findByRole('region', { name: 'Your Invites' });
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByRole('region', { name: 'Getting Started' })).not.toBeInTheDocument();
    expect(server.to('GET', '/api/settings')).toHaveLength(0);
  });
});

describe('formatTimeAgo', () => {
  const now = Date.parse('2026-11-28T12:00:00Z');
  it.each([
    ['2026-11-28 11:59:30.000Z', 'just now'],
    ['2026-11-28 11:55:00.000Z', '5 minutes ago'],
    ['2026-11-28 10:00:00.000Z', '2 hours ago'],
    ['2026-11-27 11:00:00.000Z', 'yesterday'],
    ['2026-11-14 12:00:00.000Z', '2 weeks ago'],
    ['2026-09-01 12:00:00.000Z', '2 months ago'],
    ['2024-11-01 12:00:00.000Z', '2 years ago'],
  ])('%s reads "%s"', (value, words) => {
    expect(formatTimeAgo(value, now)).toBe(words);
  });
});
