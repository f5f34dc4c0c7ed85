import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
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
import { findAnnounced, renderApp } from '../../test/render-app';
import type { LogEventAnswer, MeAnswer, MemberAnswer } from '../../../../contract/admin';

const alice = makeUser({ isInitialUser: true });

function me(isOperator: boolean, isInitialUser = isOperator): Handler {
  const answer: MeAnswer = { id: alice.id, email: alice.email, isInitialUser, isOperator };
  return () => json(200, answer);
}

/** A member as the server answers one (contract/admin.ts). */
function member(n: number): MemberAnswer {
  return {
    id: `member${String(n).padStart(9, '0')}`,
    collectionId: '_pb_users_auth_',
    collectionName: 'users',
    email: `member${n}@example.com`,
    emailVisibility: false,
    verified: true,
    name: '',
    avatar: '',
    isInitialUser: false,
    inviteCode: 'ABCD-EFGH-JKLM-NPQR-STVW',
    created: '2026-11-20 10:00:00.000Z',
    updated: '2026-11-20 10:00:00.000Z',
    isOperator: false,
    disabled: false,
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

/** A member's page, as GET /api/admin/members/{id} answers it. */
function memberDetail(over: Record<string, unknown> = {}) {
  return {
    ...member(7),
    invitedBy: { id: alice.id, email: alice.email },
    inviterDeleted: false,
    invitees: 0,
    codes: [
      {
        id: 'code00000000001',
        code: 'ABCD-EFGH-JKLM',
        created: '2026-11-20 10:00:00.000Z',
        used: null,
        usedBy: null,
      },
    ],
    sessions: [],
    lastSignIn: null,
    events: [],
    waysIn: { password: true, twoStep: true, passkeys: 2, providers: 0 },
    ...over,
  };
}

const TARGET = member(7);
const TARGET_PATH = `/api/admin/members/${TARGET.id}`;

/** Each action that asks first: its button, question, what it says, and the request it sends. */
const CONFIRMED: Array<{
  button: string;
  member?: Record<string, unknown>;
  title: string;
  says: RegExp;
  confirm: string;
  request: [string, string];
  /** The notice on the page afterwards; undefined: the page is left (back to Members). */
  done?: string;
}> = [
  {
    button: 'Disable',
    title: `Disable ${TARGET.email}?`,
    says: /They are signed out everywhere and cannot sign in until the account is enabled again/,
    confirm: 'Yes, Disable',
    request: ['POST', `${TARGET_PATH}/disable`],
    done: `${TARGET.email} has been disabled and signed out everywhere.`,
  },
  {
    button: 'Enable',
    member: { disabled: true },
    title: `Enable ${TARGET.email}?`,
    says: /They can sign in again/,
    confirm: 'Yes, Enable',
    request: ['POST', `${TARGET_PATH}/enable`],
    done: `${TARGET.email} has been enabled and can sign in again.`,
  },
  {
    button: 'Make Operator',
    title: `Make ${TARGET.email} an operator?`,
    says: /They can use the operator console/,
    confirm: 'Yes, Make Operator',
    request: ['POST', `${TARGET_PATH}/operator`],
    done: `${TARGET.email} is now an operator.`,
  },
  {
    button: 'Remove Operator',
    member: { isOperator: true },
    title: `Remove ${TARGET.email} as an operator?`,
    says: /They can no longer use the operator console/,
    confirm: 'Yes, Remove Operator',
    request: ['DELETE', `${TARGET_PATH}/operator`],
    done: `${TARGET.email} is no longer an operator.`,
  },
  {
    button: 'Revoke',
    title: `Revoke invite code ABCD-EFGH-JKLM of ${TARGET.email}?`,
    says: /Nobody can sign up with it any more/,
    confirm: 'Yes, Revoke',
    request: ['DELETE', '/api/admin/invite-codes/code00000000001'],
    done: 'Invite code ABCD-EFGH-JKLM has been revoked.',
  },
  {
    button: 'Reset Two-Step Sign-In',
    title: `Reset two-step sign-in for ${TARGET.email}?`,
    says: /Two-step sign-in is turned off \(their recovery codes stop working\) and their 2 passkeys are removed\. They sign in with their password alone/,
    confirm: 'Yes, Reset',
    request: ['POST', `${TARGET_PATH}/reset-two-step`],
    done: `Two-step sign-in of ${TARGET.email} has been reset. They can sign in with their password alone.`,
  },
  {
    button: 'Delete',
    title: `Delete ${TARGET.email}?`,
    says: /This action cannot be undone/,
    confirm: 'Yes, Delete',
    request: ['DELETE', TARGET_PATH],
  },
];

/** The initial user on a member's page, every action answered as the server would. */
function onMemberPage(over: Record<string, unknown> = {}, routes: Record<string, Handler> = {}) {
  const answer = () => json(200, { ...TARGET, ...over });
  return signedIn({
    'GET /api/gatehouse/me': me(true),
    'GET /api/admin/members': membersList,
    [`GET ${TARGET_PATH}`]: () => json(200, memberDetail(over)),
    [`POST ${TARGET_PATH}/disable`]: answer,
    [`POST ${TARGET_PATH}/enable`]: answer,
    [`POST ${TARGET_PATH}/operator`]: answer,
    [`DELETE ${TARGET_PATH}/operator`]: answer,
    [`POST ${TARGET_PATH}/reset-two-step`]: answer,
    [`DELETE ${TARGET_PATH}`]: () => noContent(),
    'DELETE /api/admin/invite-codes/code00000000001': () => noContent(),
    ...routes,
  });
}

/** An invite tree node (contract/admin.ts) with no children shown. */
function treeNode(id: string, email: string) {
  return {
    id,
    email,
    name: '',
    avatar: '',
    created: '2026-11-20 10:00:00.000Z',
    disabled: false,
    isOperator: false,
    inviterDeleted: false,
    childCount: 0,
    descendants: 0,
    children: [],
  };
}

/** A security log entry: defaults for what the test does not care about. */
function logEvent(n: number, over: Record<string, unknown>) {
  const event: LogEventAnswer = {
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
  };
  return { ...event, ...over };
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

  it.each(CONFIRMED.map((action) => [action.button, action] as const))(
    '%s asks first, naming the member and what will happen; only its Yes sends it',
    async (_button, action) => {
      const server = onMemberPage(action.member);
      const { user, router } = renderApp(`/admin/members/${TARGET.id}`);
      await screen.findByRole('heading', { level: 1, name: TARGET.email });
      const sent = () => server.to(...action.request);

      await user.click(screen.getByRole('button', { name: action.button }));
      const dialog = await screen.findByRole('dialog', { name: action.title });
      expect(dialog).toHaveAccessibleDescription(action.says);
      expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
      expect(sent()).toHaveLength(0);

      await user.click(within(dialog).getByRole('button', { name: action.confirm }));
      if (action.done) expect(await findAnnounced(action.done, 'status')).toBeInTheDocument();
      else {
        await screen.findByRole('heading', { level: 1, name: 'Members' });
        expect(router.state.location.pathname).toBe('/admin');
      }
      expect(sent()).toHaveLength(1);
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    },
  );

  it('a question is cancelled by Cancel or Escape: nothing is sent, focus goes back to its button', async () => {
    const server = onMemberPage();
    const { user } = renderApp(`/admin/members/${TARGET.id}`);
    await screen.findByRole('heading', { level: 1, name: TARGET.email });
    const reset = screen.getByRole('button', { name: 'Reset Two-Step Sign-In' });

    await user.click(reset);
    await screen.findByRole('dialog', { name: `Reset two-step sign-in for ${TARGET.email}?` });
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(reset).toHaveFocus());

    const disable = screen.getByRole('button', { name: 'Disable' });
    await user.click(disable);
    const dialog = await screen.findByRole('dialog', { name: `Disable ${TARGET.email}?` });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(disable).toHaveFocus());

    const actions = server.requests.filter((r) => r.method !== 'GET');
    expect(actions.filter((r) => r.path.startsWith('/api/admin/'))).toEqual([]);
  });

  it('Reset Two-Step Sign-In: not offered with nothing to reset; a refusal is said on the page', async () => {
    const nothing = onMemberPage({
      waysIn: { password: true, twoStep: false, passkeys: 0, providers: 0 },
    });
    const first = renderApp(`/admin/members/${TARGET.id}`);
    await screen.findByRole('heading', { level: 1, name: TARGET.email });
    expect(screen.getByText('Password')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Reset Two-Step Sign-In' })).toBeNull();
    expect(nothing.to('POST', `${TARGET_PATH}/reset-two-step`)).toHaveLength(0);
    first.unmount();

    // Passkeys only, no password: the server refuses, and says why.
    const refusal =
      'This member has no password and no connected account: their passkeys are their only way in.';
    onMemberPage(
      { waysIn: { password: false, twoStep: false, passkeys: 1, providers: 0 } },
      { [`POST ${TARGET_PATH}/reset-two-step`]: () => pbError(400, refusal) },
    );
    const { user } = renderApp(`/admin/members/${TARGET.id}`);
    await screen.findByRole('heading', { level: 1, name: TARGET.email });
    expect(screen.getByText('1 passkey')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Reset Two-Step Sign-In' }));
    const dialog = await screen.findByRole('dialog', {
      name: `Reset two-step sign-in for ${TARGET.email}?`,
    });
    expect(dialog).toHaveAccessibleDescription(
      /^Their passkey is removed\. They sign in with their connected account alone/,
    );
    await user.click(within(dialog).getByRole('button', { name: 'Yes, Reset' }));
    await findAnnounced(refusal);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
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

  it('the members list shows each member’s name and face', async () => {
    const named = (n: number, over: Partial<MemberAnswer>) => ({ ...member(n), ...over });
    const list: Handler = () =>
      json(200, {
        page: 1,
        perPage: 30,
        totalItems: 2,
        totalPages: 1,
        items: [
          named(1, { name: 'Ada Lovelace', avatar: 'ada_k2j4h5g6f7.png' }),
          named(2, { name: '' }),
        ],
      });
    signedIn({
      'GET /api/gatehouse/me': me(true),
      'GET /api/admin/members': list,
      'POST /api/files/token': () => json(200, { token: 'op-token' }),
    });
    renderApp('/admin');
    const rows = within(await screen.findByRole('list', { name: 'Members' })).getAllByRole(
      'listitem',
    );
    expect(rows[0]).toHaveTextContent('Ada Lovelace · Joined');
    await waitFor(() =>
      expect(rows[0]!.querySelector('img')).toHaveAttribute(
        'src',
        '/api/files/users/member000000001/ada_k2j4h5g6f7.png?thumb=100x100&token=op-token',
      ),
    );
    // No photo: the initials of the email, beside it.
    expect(rows[1]!.querySelector('img')).toBeNull();
    expect(rows[1]).toHaveTextContent(/^Mmember2@example\.com/);
  });

  it('a member page says the name (or Not set) and shows the photo or initials', async () => {
    onMemberPage(
      { name: 'Grace Hopper', invitees: 1 },
      {
        'POST /api/files/token': () => json(200, { token: 'op-token' }),
        'GET /api/admin/invite-tree': () =>
          json(200, {
            ...treeNode(TARGET.id, TARGET.email),
            childCount: 1,
            descendants: 1,
            children: [
              { ...treeNode('kid000000000001', 'kid@example.com'), name: 'Kit', avatar: 'k.png' },
            ],
          }),
      },
    );
    renderApp(`/admin/members/${TARGET.id}`);
    await screen.findByRole('heading', { level: 1, name: TARGET.email });
    const details = screen.getByRole('region', { name: 'Details' });
    expect(within(details).getByText('Name').nextSibling).toHaveTextContent('Grace Hopper');
    expect(within(details).getByText('GH')).toBeInTheDocument();
    const invited = await screen.findByRole('list', { name: 'People they invited' });
    expect(within(invited).getByText('Kit')).toBeInTheDocument();
    await waitFor(() =>
      expect(invited.querySelector('img')).toHaveAttribute(
        'src',
        '/api/files/users/kid000000000001/k.png?thumb=100x100&token=op-token',
      ),
    );
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
