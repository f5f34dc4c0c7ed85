import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  authRefreshOk,
  changelogOk,
  fakeServer,
  json,
  makeUser,
  storeSession,
  type Handler,
} from '../../test/fake-server';
import { renderApp } from '../../test/render-app';

const alice = makeUser({ isInitialUser: true });

function me(isOperator: boolean, isInitialUser = isOperator): Handler {
  return () => json(200, { id: alice.id, email: alice.email, isInitialUser, isOperator });
}

function member(n: number) {
  return {
    id: `member${String(n).padStart(9, '0')}`,
    email: `member${n}@example.com`,
    verified: true,
    isInitialUser: false,
    isOperator: false,
    disabled: false,
    created: '2026-11-20 10:00:00.000Z',
  };
}

/** The members list: 45 members in all, 30 a page; the total only when not skipped. */
const membersList: Handler = (req) => {
  const page = Number(req.query.get('page') ?? '1');
  const skip = req.query.get('skipTotal') === '1' || req.query.get('skipTotal') === 'true';
  const items = Array.from({ length: page === 1 ? 30 : 15 }, (_, i) => member((page - 1) * 30 + i));
  return json(200, {
    page,
    perPage: 30,
    totalItems: skip ? -1 : 45,
    totalPages: skip ? -1 : 2,
    items,
  });
};

function signedIn(routes: Record<string, Handler>) {
  storeSession(alice);
  return fakeServer({
    'POST /api/collections/users/auth-refresh': authRefreshOk(alice),
    'GET /changelog.json': changelogOk(),
    ...routes,
  });
}

/** A security log entry: defaults for what the test does not care about. */
function logEvent(n: number, over: Record<string, unknown>) {
  return {
    id: `event${String(n).padStart(10, '0')}`,
    created: '2026-11-25 09:00:00.000Z',
    type: 'admin_disable',
    member: 'member000000001',
    email: 'member1@example.com',
    actor: null,
    ip: '203.0.113.7',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
    outcome: 'success',
    detail: {},
    ...over,
  };
}

describe('the operator console', () => {
  it('Home shows Admin to an operator, and it opens Members', async () => {
    signedIn({ 'GET /api/gatehouse/me': me(true), 'GET /api/admin/members': membersList });
    const { user, router } = renderApp('/home');
    await user.click(await screen.findByRole('link', { name: 'Admin' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Members' })).toHaveFocus();
    expect(router.state.location.pathname).toBe('/admin');
    expect(document.title).toBe('Members · Gatehouse');
  });

  it('Home shows no Admin to a member who is not an operator', async () => {
    const server = signedIn({ 'GET /api/gatehouse/me': me(false) });
    renderApp('/home');
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome!' })).toBeInTheDocument();
    await screen.findByRole('button', { name: 'Log Out' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.to('GET', '/api/gatehouse/me')).toHaveLength(1);
    expect(screen.queryByRole('link', { name: 'Admin' })).toBeNull();
  });

  it('/admin tells a member who is not an operator, and asks the console API nothing', async () => {
    const server = signedIn({ 'GET /api/gatehouse/me': me(false) });
    renderApp('/admin');
    expect(await screen.findByRole('heading', { level: 1, name: 'Not Allowed' })).toHaveFocus();
    expect(screen.getByText(/Only operators can use the operator console\./)).toBeInTheDocument();
    expect(document.title).toBe('Not Allowed · Gatehouse');
    expect(server.requests.filter((r) => r.path.startsWith('/api/admin/'))).toEqual([]);
  });

  it('/admin sends a visitor to sign in', async () => {
    fakeServer({ 'GET /changelog.json': changelogOk() });
    const { router } = renderApp('/admin');
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
  });

  it('counts the members once per search and turns pages with skipTotal', async () => {
    const server = signedIn({
      'GET /api/gatehouse/me': me(true),
      'GET /api/admin/members': membersList,
    });
    const { user, router } = renderApp('/admin');
    expect(await screen.findByText('45 members')).toBeInTheDocument();
    const list = screen.getByRole('list', { name: 'Members' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(30);
    expect(screen.getByText('1–30 of 45 · Page 1 of 2')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('31–45 of 45 · Page 2 of 2')).toBeInTheDocument();
    expect(router.state.location.searchStr).toBe('?page=2');
    const asked = server.to('GET', '/api/admin/members');
    expect(asked.map((r) => [r.query.get('page'), r.query.get('skipTotal')])).toEqual([
      ['1', null],
      ['2', '1'],
    ]);
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();

    // A new search counts again, from its first page.
    await user.type(screen.getByLabelText('Search by email'), 'member4');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    await screen.findByRole('heading', { name: 'Members matching “member4”' });
    const last = server.to('GET', '/api/admin/members').at(-1);
    expect([last?.query.get('q'), last?.query.get('page'), last?.query.get('skipTotal')]).toEqual([
      'member4',
      '1',
      null,
    ]);
    expect(router.state.location.searchStr).toBe('?q=member4');
  });

  it('the security log names the operator who acted: by email, the command line, or a deleted operator', async () => {
    const events = [
      logEvent(1, {
        type: 'admin_disable',
        actor: { id: 'operator0000001', email: 'ops@example.com' },
        detail: { actor: 'operator0000001', sessions: 1 },
      }),
      logEvent(2, {
        type: 'admin_reset_two_step',
        actor: { id: 'cli', email: null },
        detail: { actor: 'cli', twoStep: true, passkeys: 1 },
      }),
      logEvent(3, {
        type: 'admin_enable',
        actor: { id: 'operator0000002', email: null },
        detail: { actor: 'operator0000002' },
      }),
      logEvent(4, { type: 'password_changed' }),
    ];
    signedIn({
      'GET /api/gatehouse/me': me(true),
      'GET /api/admin/security-events': () =>
        json(200, { page: 1, perPage: 30, totalItems: 4, totalPages: 1, items: events }),
    });
    renderApp('/admin/security-log');
    const list = await screen.findByRole('list', { name: 'Security events' });
    const [disabled, reset, enabled, changed] = within(list).getAllByRole('listitem');
    expect(disabled).toHaveTextContent('Account disabled by an operator');
    expect(disabled).toHaveTextContent('member1@example.com · by ops@example.com');
    expect(within(disabled!).getByRole('link', { name: 'ops@example.com' })).toHaveAttribute(
      'href',
      '/admin/members/operator0000001',
    );
    expect(reset).toHaveTextContent('Two-step sign-in reset by an operator');
    expect(reset).toHaveTextContent('member1@example.com · by the command line');
    expect(enabled).toHaveTextContent('member1@example.com · by a deleted operator');
    expect(within(enabled!).getAllByRole('link')).toHaveLength(1);
    // Not an operator action: nobody named beside the member, and no operator id anywhere.
    expect(changed).not.toHaveTextContent(' · by ');
    expect(list).not.toHaveTextContent('operator000000');
  });

  it('a search matching more members than the server counts says so, and still turns pages', async () => {
    // The server counts up to 10,000 matches; beyond that its totals are -1.
    const many: Handler = (req) => {
      const page = Number(req.query.get('page') ?? '1');
      const items = Array.from({ length: 30 }, (_, i) => member((page - 1) * 30 + i));
      return json(200, { page, perPage: 30, totalItems: -1, totalPages: -1, items });
    };
    signedIn({ 'GET /api/gatehouse/me': me(true), 'GET /api/admin/members': many });
    const { user } = renderApp('/admin?q=example');
    expect(await screen.findByText('More than 10,000 members')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByRole('button', { name: 'Previous' })).toBeEnabled();
    expect(screen.getByText('More than 10,000 members')).toBeInTheDocument();
  });
});
