import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import {
  changelogOk,
  fakeServer,
  type Handler,
  json,
  makeUser,
  noContent,
  pbError,
  signedInServer,
} from '../../test/fake-server';
import { chooseLanguage } from '../../lib/i18n';
import { expectFocus, findAnnounced, renderApp } from '../../test/render-app';
import type {
  LogEventAnswer,
  MeAnswer,
  MemberAnswer,
  MemberListItem,
} from '../../../../contract/admin';

const alice = makeUser({ isInitialUser: true });

/** The Members table is 30 rows of many elements: role queries over it take their time in jsdom. */
const TABLE_TIMEOUT = 30_000;

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
    language: 'en',
    isInitialUser: false,
    inviteCode: 'ABCD-EFGH-JKLM-NPQR-STVW',
    created: '2026-11-20 10:00:00.000Z',
    updated: '2026-11-20 10:00:00.000Z',
    isOperator: false,
    disabled: false,
  };
}

/** A row of the Members table (contract/admin.ts): the member, inviter, last sign-in, two-step. */
function row(n: number, over: Partial<MemberListItem> = {}): MemberListItem {
  return {
    ...member(n),
    invitedBy: { id: alice.id, email: alice.email },
    inviterDeleted: false,
    lastSignIn: null,
    twoStep: false,
    ...over,
  };
}

/** The members list: 45 members in all, 30 a page; the total only when not skipped. */
const membersList: Handler = (req) => {
  const page = Number(req.query.get('page') ?? '1');
  const skip = req.query.get('skipTotal') === '1' || req.query.get('skipTotal') === 'true';
  const items = Array.from({ length: page === 1 ? 30 : 15 }, (_, i) => row((page - 1) * 30 + i));
  return json(200, {
    page,
    perPage: 30,
    totalItems: skip ? -1 : 45,
    totalPages: skip ? -1 : 2,
    items,
  });
};

function signedIn(routes: Record<string, Handler>) {
  return signedInServer(alice, routes);
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
  it('the header shows Admin to an operator, and it opens Members', async () => {
    signedIn({ 'GET /api/gatehouse/me': me(true), 'GET /api/admin/members': membersList });
    const { user, router } = renderApp('/home');
    // Home's cards load on first use (a lazy chunk): room for that on a busy machine.
    await user.click(await screen.findByRole('link', { name: 'Admin' }, { timeout: 5000 }));
    await expectFocus(screen.findByRole('heading', { level: 1, name: 'Members' }));
    expect(router.state.location.pathname).toBe('/admin');
    expect(document.title).toBe('Members · Gatehouse');
  });

  it('the header shows no Admin to a member who is not an operator', async () => {
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
    await expectFocus(screen.findByRole('heading', { level: 1, name: 'Not Allowed' }));
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

  it(
    'counts the members once per search and turns pages with skipTotal',
    { timeout: TABLE_TIMEOUT },
    async () => {
      const server = signedIn({
        'GET /api/gatehouse/me': me(true),
        'GET /api/admin/members': membersList,
      });
      const { user, router } = renderApp('/admin');
      expect(await screen.findByText('45 members')).toBeInTheDocument();
      const table = screen.getByRole('table', { name: 'Members' });
      expect(within(table).getAllByRole('rowheader')).toHaveLength(30);
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
      expect([last?.query.get('q'), last?.query.get('page'), last?.query.get('skipTotal')]).toEqual(
        ['member4', '1', null],
      );
      expect(router.state.location.searchStr).toBe('?q=member4');
    },
  );

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
      await expectFocus(within(dialog).getByRole('button', { name: 'Cancel' }));
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

  it('in German, Reset Two-Step Sign-In asks and answers in whole German sentences', async () => {
    await chooseLanguage('de');
    onMemberPage();
    const { user } = renderApp(`/admin/members/${TARGET.id}`);
    await screen.findByRole('heading', { level: 1, name: TARGET.email });
    await user.click(screen.getByRole('button', { name: 'Zwei-Schritt-Anmeldung zurücksetzen' }));
    const dialog = await screen.findByRole('dialog', {
      name: `Zwei-Schritt-Anmeldung für ${TARGET.email} zurücksetzen?`,
    });
    expect(dialog).toHaveAccessibleDescription(
      'Die Zwei-Schritt-Anmeldung wird ausgeschaltet (die Wiederherstellungscodes gelten nicht mehr), und die 2 Passkeys werden entfernt. Das Mitglied meldet sich dann nur mit seinem Passwort an und erhält darüber eine E-Mail. Tun Sie das nur, wenn Sie sicher sind, dass die Anfrage vom Mitglied kommt.',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Ja, zurücksetzen' }));
    await findAnnounced(
      `Die Zwei-Schritt-Anmeldung von ${TARGET.email} wurde zurückgesetzt. Das Mitglied kann sich allein mit seinem Passwort anmelden.`,
      'status',
    );
  });

  /** The operator who acted is a link to their page (their id is never shown as text). */
  const expectOperatorLink = (item: HTMLElement) =>
    expect(within(item).getByRole('link', { name: 'ops@example.com' })).toHaveAttribute(
      'href',
      '/admin/members/operator0000001',
    );

  /** The security log with an operator's action, the command line's, and a gone operator's. */
  async function securityLogWithActors(listName = 'Security events') {
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
    const list = await screen.findByRole('list', { name: listName });
    const [disabled, reset, enabled, changed] = within(list).getAllByRole('listitem');
    return { list, disabled: disabled!, reset: reset!, enabled: enabled!, changed: changed! };
  }

  it('the security log names the operator who acted: by email, the command line, or a deleted operator', async () => {
    const { list, disabled, reset, enabled, changed } = await securityLogWithActors();
    expect(disabled).toHaveTextContent('Account disabled by an operator');
    expect(disabled).toHaveTextContent('member1@example.com · by ops@example.com');
    expectOperatorLink(disabled);
    expect(reset).toHaveTextContent('Two-step sign-in reset by an operator');
    expect(reset).toHaveTextContent('member1@example.com · by the command line');
    expect(enabled).toHaveTextContent('member1@example.com · by a deleted operator');
    expect(within(enabled).getAllByRole('link')).toHaveLength(1);
    // Not an operator action: nobody named beside the member, and no operator id anywhere.
    expect(changed).not.toHaveTextContent(' · by ');
    expect(list).not.toHaveTextContent('operator000000');
  });

  it('in German, who acted reads as German: von ops@…, von der Kommandozeile, von einem gelöschten Betreiber', async () => {
    await chooseLanguage('de');
    const { disabled, reset, enabled } = await securityLogWithActors('Sicherheitsereignisse');
    expect(disabled).toHaveTextContent('member1@example.com · von ops@example.com');
    expectOperatorLink(disabled);
    expect(reset).toHaveTextContent('member1@example.com · von der Kommandozeile');
    expect(enabled).toHaveTextContent('member1@example.com · von einem gelöschten Betreiber');
  });

  it(
    'the members table shows each member’s name and face, state, inviter and last sign-in',
    { timeout: TABLE_TIMEOUT },
    async () => {
      const list: Handler = () =>
        json(200, {
          page: 1,
          perPage: 30,
          totalItems: 3,
          totalPages: 1,
          items: [
            row(1, {
              name: 'Ada Lovelace',
              avatar: 'ada_k2j4h5g6f7.png',
              twoStep: true,
              lastSignIn: '2026-11-24 09:30:00.000Z',
            }),
            row(2, {
              name: '',
              disabled: true,
              verified: false,
              invitedBy: null,
              inviterDeleted: true,
            }),
            row(3, { isOperator: true, invitedBy: null }),
          ],
        });
      signedIn({
        'GET /api/gatehouse/me': me(true),
        'GET /api/admin/members': list,
        'POST /api/files/token': () => json(200, { token: 'op-token' }),
      });
      renderApp('/admin');
      const table = await screen.findByRole('table', { name: 'Members' });
      expect(
        within(table)
          .getAllByRole('columnheader')
          .map((h) => h.textContent?.replace(/[▲▼↕]/g, '')),
      ).toEqual([
        '',
        'Email',
        'Status',
        'Verified',
        'Two-step',
        'Last sign-in',
        'Inviter',
        'Joined',
      ]);
      const [, ada, second, third] = within(table).getAllByRole('row');
      const cells = (r: HTMLElement) =>
        within(r)
          .getAllByRole('cell')
          .map((c) => c.textContent);
      expect(within(ada!).getByRole('rowheader')).toHaveTextContent('Ada Lovelace');
      expect(cells(ada!).slice(1, 5)).toEqual([
        'Active',
        'Yes',
        'On',
        expect.stringMatching(/2026/),
      ]);
      expect(within(ada!).getByRole('link', { name: alice.email })).toHaveAttribute(
        'href',
        `/admin/members/${alice.id}`,
      );
      await waitFor(() =>
        expect(ada!.querySelector('img')).toHaveAttribute(
          'src',
          '/api/files/users/member000000001/ada_k2j4h5g6f7.png?thumb=100x100&token=op-token',
        ),
      );
      // No photo: the initials of the email, beside it.
      expect(second!.querySelector('img')).toBeNull();
      expect(within(second!).getByRole('rowheader')).toHaveTextContent(/^Mmember2@example\.com/);
      expect(cells(second!).slice(1)).toEqual([
        'Disabled',
        'No',
        'Off',
        'None on record',
        'A deleted account',
        expect.stringMatching(/2026/),
      ]);
      expect(within(third!).getByRole('rowheader')).toHaveTextContent('Operator');
      expect(cells(third!)[5]).toBe('Nobody');
    },
  );

  it(
    'a column header sorts the list on the server, by click or keyboard, and says how it is sorted',
    { timeout: TABLE_TIMEOUT },
    async () => {
      const server = signedIn({
        'GET /api/gatehouse/me': me(true),
        'GET /api/admin/members': membersList,
      });
      const { user, router } = renderApp('/admin');
      await screen.findByRole('table', { name: 'Members' });
      // The table is drawn again for each order: each look finds it afresh.
      const table = () => screen.getByRole('table', { name: 'Members' });
      const header = (name: string) =>
        within(table()).getByRole('button', { name }).closest('th') as HTMLElement;
      expect(header('Joined')).toHaveAttribute('aria-sort', 'descending');
      expect(header('Email')).toHaveAttribute('aria-sort', 'none');

      await user.click(within(table()).getByRole('button', { name: 'Email' }));
      await waitFor(() => expect(router.state.location.searchStr).toBe('?sort=email'));
      await waitFor(() => expect(header('Email')).toHaveAttribute('aria-sort', 'ascending'));
      expect(header('Joined')).toHaveAttribute('aria-sort', 'none');
      expect(server.to('GET', '/api/admin/members').at(-1)?.query.get('sort')).toBe('email');
      expect(screen.getByLabelText('Sort')).toHaveValue('email');

      // The keyboard: the header is a button; Enter turns the order round.
      within(table()).getByRole('button', { name: 'Email' }).focus();
      await user.keyboard('{Enter}');
      await waitFor(() => expect(router.state.location.searchStr).toBe('?sort=-email'));
      await waitFor(() => expect(header('Email')).toHaveAttribute('aria-sort', 'descending'));
      expect(server.to('GET', '/api/admin/members').at(-1)?.query.get('sort')).toBe('-email');

      // Every other column sorts too, each with its own first direction.
      for (const [name, first] of [
        ['Verified', 'verified'],
        ['Two-step', '-twoStep'],
        ['Last sign-in', '-lastSignIn'],
        ['Inviter', 'invitedBy'],
      ] as const) {
        await user.click(within(table()).getByRole('button', { name }));
        await waitFor(() => expect(router.state.location.searchStr).toBe(`?sort=${first}`));
        await waitFor(() =>
          expect(header(name)).toHaveAttribute(
            'aria-sort',
            first.startsWith('-') ? 'descending' : 'ascending',
          ),
        );
        expect(server.to('GET', '/api/admin/members').at(-1)?.query.get('sort')).toBe(first);
      }
    },
  );

  it(
    'the filter box sends PocketBase’s grammar; a filter the server cannot read shows its words beside the box',
    { timeout: TABLE_TIMEOUT },
    async () => {
      const refusal = 'Unknown field "passwrd": filter by id, email, verified.';
      const list: Handler = (req) =>
        req.query.get('filter')?.includes('passwrd')
          ? pbError(400, 'Something went wrong while processing your request.', {
              filter: { code: 'validation_invalid_filter', message: refusal },
            })
          : membersList(req);
      const server = signedIn({
        'GET /api/gatehouse/me': me(true),
        'GET /api/admin/members': list,
      });
      const { user, router } = renderApp('/admin');
      await screen.findByText('45 members');
      const box = screen.getByLabelText('Filter');

      await user.type(box, 'verified = false && created > "2026-01-01"');
      await user.click(screen.getByRole('button', { name: 'Search' }));
      await screen.findByRole('heading', { name: 'Members matching the filter' });
      expect(server.to('GET', '/api/admin/members').at(-1)?.query.get('filter')).toBe(
        'verified = false && created > "2026-01-01"',
      );
      expect(new URLSearchParams(router.state.location.searchStr).get('filter')).toBe(
        'verified = false && created > "2026-01-01"',
      );

      await user.clear(box);
      await user.type(box, 'passwrd = "x"');
      await user.click(screen.getByRole('button', { name: 'Search' }));
      const said = await findAnnounced(refusal);
      expect(box).toHaveAttribute('aria-invalid', 'true');
      expect(box).toHaveAccessibleDescription(expect.stringContaining(refusal));
      expect(screen.queryByRole('table', { name: 'Members' })).toBeNull();
      expect(said).toBeInTheDocument();
    },
  );

  it(
    'selected members get a bulk action after a question naming how many; what it skipped is said',
    { timeout: TABLE_TIMEOUT },
    async () => {
      const server = signedIn({
        'GET /api/gatehouse/me': me(true),
        'GET /api/admin/members': membersList,
        'POST /api/admin/members/bulk': (req) => {
          const { ids } = req.body as { ids: string[] };
          return json(200, {
            done: 1,
            skipped: 1,
            results: [
              { id: ids[0], result: 'done', reason: null },
              { id: ids[1], result: 'skipped', reason: 'Already disabled.' },
            ],
          });
        },
      });
      const { user } = renderApp('/admin');
      const table = await screen.findByRole('table', { name: 'Members' });
      const bulk = screen.getByRole('group', { name: 'Bulk actions' });
      expect(within(bulk).getByRole('button', { name: 'Disable' })).toBeDisabled();

      await user.click(within(table).getByLabelText('Select member3@example.com'));
      await user.click(within(table).getByLabelText('Select member5@example.com'));
      expect(within(bulk).getByText('2 selected')).toBeInTheDocument();
      const disable = within(bulk).getByRole('button', { name: 'Disable' });
      await user.click(disable);
      const dialog = await screen.findByRole('dialog', { name: 'Disable 2 members?' });
      expect(dialog).toHaveAccessibleDescription(/signed out everywhere/);
      await expectFocus(within(dialog).getByRole('button', { name: 'Cancel' }));
      expect(server.to('POST', '/api/admin/members/bulk')).toHaveLength(0);

      await user.click(within(dialog).getByRole('button', { name: 'Yes, Disable' }));
      await findAnnounced('Disabled 1 member. Skipped 1 member:', 'status');
      expect(screen.getByText('member5@example.com: Already disabled.')).toBeInTheDocument();
      expect(server.to('POST', '/api/admin/members/bulk').map((r) => r.body)).toEqual([
        { action: 'disable', ids: ['member000000003', 'member000000005'] },
      ]);
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
      // Done: nothing is selected any more.
      expect(within(bulk).getByText('Select members for an action')).toBeInTheDocument();

      // Select all on the page, then Mark Verified asks for all 30.
      await user.click(within(table).getByLabelText('Select every member on this page'));
      await user.click(within(bulk).getByRole('button', { name: 'Mark Verified' }));
      const marked = await screen.findByRole('dialog', { name: 'Mark 30 members verified?' });
      await user.keyboard('{Escape}');
      await waitFor(() => expect(marked).not.toBeInTheDocument());
      expect(server.to('POST', '/api/admin/members/bulk')).toHaveLength(1);
    },
  );

  it(
    'Export CSV downloads the current search and order through a link with a file token',
    { timeout: TABLE_TIMEOUT },
    async () => {
      const clicked: string[] = [];
      const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
        this: HTMLAnchorElement,
      ) {
        clicked.push(this.getAttribute('href') ?? '');
      });
      try {
        signedIn({
          'GET /api/gatehouse/me': me(true),
          'GET /api/admin/members': membersList,
          'POST /api/files/token': () => json(200, { token: 'file-token-1' }),
        });
        const { user } = renderApp('/admin?q=member&filter=verified%20%3D%20true&sort=email');
        await screen.findByRole('table', { name: 'Members' });
        await user.click(screen.getByRole('button', { name: 'Export CSV' }));
        await waitFor(() => expect(clicked).toHaveLength(1));
        const url = new URL(clicked[0]!, 'http://localhost');
        expect(url.pathname).toBe('/api/admin/members.csv');
        expect(Object.fromEntries(url.searchParams)).toEqual({
          q: 'member',
          status: '',
          filter: 'verified = true',
          sort: 'email',
          token: 'file-token-1',
        });
      } finally {
        click.mockRestore();
      }
    },
  );

  it(
    'Invite by Email checks the address, then says the invite went or the server’s reason',
    { timeout: TABLE_TIMEOUT },
    async () => {
      const server = signedIn({
        'GET /api/gatehouse/me': me(true),
        'GET /api/admin/members': membersList,
        'POST /api/admin/invite-email': (req) => {
          const { email } = req.body as { email: string };
          return email === 'member1@example.com'
            ? pbError(400, 'This address is already a member.', {
                email: {
                  code: 'validation_already_member',
                  message: 'This address is already a member.',
                },
              })
            : json(200, {
                email,
                code: { id: 'code00000000009', code: 'ABCD-EFGH-JKLM-NPQR-STVW', created: '' },
              });
        },
      });
      const { user } = renderApp('/admin');
      const form = await screen.findByRole('form', { name: 'Invite by email' });
      const field = within(form).getByLabelText('Email address');
      const send = within(form).getByRole('button', { name: 'Send Invite' });

      await user.type(field, 'not an address');
      await user.click(send);
      await findAnnounced('Please enter a valid email address.');
      await expectFocus(field);
      expect(server.to('POST', '/api/admin/invite-email')).toHaveLength(0);

      await user.clear(field);
      await user.type(field, 'member1@example.com');
      await user.click(send);
      await findAnnounced('This address is already a member.');

      await user.clear(field);
      await user.type(field, 'friend@example.org');
      await user.click(send);
      await findAnnounced('Invite sent to friend@example.org.', 'status');
      expect(field).toHaveValue('');
      expect(server.to('POST', '/api/admin/invite-email').map((r) => r.body)).toEqual([
        { email: 'member1@example.com' },
        { email: 'friend@example.org' },
      ]);
    },
  );

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

  it(
    'a search matching more members than the server counts says so, and still turns pages',
    { timeout: TABLE_TIMEOUT },
    async () => {
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
    },
  );
});
