import { act, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { AUTH_STORAGE_KEY } from '../../lib/session';
import {
  authRefreshOk,
  changelogOk,
  fakeServer,
  makeLinkToken,
  makeUser,
  noContent,
  pbError,
  storeSession,
  type FakeRequest,
  type Handler,
} from '../../test/fake-server';
import { expectFocus, findAnnounced, renderApp } from '../../test/render-app';

const CONFIRM = 'POST /api/collections/users/confirm-email-change';
const alice = makeUser({ id: 'a1b2c3d4e5f6g7h', email: 'alice@example.com' });
// An emailChange token for alice: the SDK reads its id to clear a session of the same account.
const token = makeLinkToken('emailChange', {
  id: alice.id,
  email: alice.email,
  newEmail: 'alice.new@example.com',
});
/** The screen's look at the link on load: no password; the token alone decides. */
const isLinkCheck = (req: FakeRequest) => (req.body as { password?: string }).password === '';
const passwordRequired = () =>
  invalid({ password: { code: 'validation_required', message: 'Cannot be blank.' } });

function invalid(fields: Record<string, { code: string; message: string }>) {
  return pbError(400, 'An error occurred while validating the submitted data.', fields);
}

/** The confirmations that carried a password (not the look on load). */
const confirmations = (server: { to(m: string, p: string): FakeRequest[] }) =>
  server.to('POST', '/api/collections/users/confirm-email-change').filter((r) => !isLinkCheck(r));

async function open(
  routes: Record<string, Handler>,
  { fakeTimers = false, path = `/confirm-email-change?token=${token}` } = {},
) {
  const { linkCheck, [CONFIRM]: confirm, ...rest } = routes;
  const server = fakeServer({
    'GET /changelog.json': changelogOk(),
    ...rest,
    // The link still works unless a test says otherwise for the look on load.
    [CONFIRM]: (req) => {
      if (isLinkCheck(req)) return linkCheck ? linkCheck(req) : passwordRequired();
      return confirm ? confirm(req) : noContent();
    },
  });
  const view = renderApp(path, { fakeTimers });
  await screen.findByRole('heading', { level: 1, name: 'Confirm New Email' });
  return { ...view, server };
}

describe('Confirm New Email (/confirm-email-change)', () => {
  it('has its title, focuses its heading, a Password field and Confirm Email Change', async () => {
    await open({});
    await expectFocus(screen.getByRole('heading', { level: 1, name: 'Confirm New Email' }));
    expect(document.title).toBe('Confirm New Email · Gatehouse');
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    expect(screen.getByRole('button', { name: 'Confirm Email Change' })).toBeEnabled();
  });

  it('asks for the password before sending anything', async () => {
    const { user, server } = await open({});
    await user.click(screen.getByRole('button', { name: 'Confirm Email Change' }));
    await findAnnounced('Please enter your password.');
    await expectFocus(screen.getByLabelText('Password'));
    expect(confirmations(server)).toHaveLength(0);
  });

  it('confirms (Confirming...), says so, and opens the login screen after 3 seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let release!: () => void;
    const { user, server, router } = await open(
      {
        [CONFIRM]: () =>
          new Promise<Response>((resolve) => {
            release = () => resolve(noContent());
          }),
      },
      { fakeTimers: true },
    );
    await user.type(screen.getByLabelText('Password'), 'my-password-1');
    await user.click(screen.getByRole('button', { name: 'Confirm Email Change' }));
    expect(await screen.findByRole('button', { name: 'Confirming...' })).toBeDisabled();
    await act(async () => release());
    await findAnnounced('Email changed. Please sign in with your new email.', 'status');
    expect(confirmations(server)[0]?.body).toEqual({ token, password: 'my-password-1' });
    await act(() => vi.advanceTimersByTimeAsync(2_000));
    expect(router.state.location.pathname).toBe('/confirm-email-change');
    await act(() => vi.advanceTimersByTimeAsync(1_500));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
  });

  it('is open to a signed-in member, and ends their local session on success', async () => {
    storeSession(alice);
    const { user, router } = await open({
      'POST /api/collections/users/auth-refresh': authRefreshOk(alice),
      [CONFIRM]: () => noContent(),
    });
    expect(router.state.location.pathname).toBe('/confirm-email-change');
    await user.type(screen.getByLabelText('Password'), 'my-password-1');
    await user.click(screen.getByRole('button', { name: 'Confirm Email Change' }));
    await findAnnounced('Email changed. Please sign in with your new email.', 'status');
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Go to Login' }));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
  });

  it.each([
    [
      'an invalid or expired token',
      { code: 'validation_invalid_token', message: 'Invalid or expired token.' },
    ],
    ['no token', { code: 'validation_required', message: 'Cannot be blank.' }],
  ])('says This link is invalid or has expired. for %s', async (_what, tokenError) => {
    const { user } = await open({ [CONFIRM]: () => invalid({ token: tokenError }) });
    await user.type(screen.getByLabelText('Password'), 'my-password-1');
    await user.click(screen.getByRole('button', { name: 'Confirm Email Change' }));
    await findAnnounced('This link is invalid or has expired.');
    expect(screen.queryByText(/Email changed/)).not.toBeInTheDocument();
  });

  it('says a wrong password plainly under the field, and a retry can succeed', async () => {
    let answer = invalid({
      password: {
        code: 'validation_invalid_password',
        message: 'Missing or invalid auth record password.',
      },
    });
    const { user, server } = await open({ [CONFIRM]: () => answer });
    const field = screen.getByLabelText('Password');
    await user.type(field, 'wrong-password');
    await user.click(screen.getByRole('button', { name: 'Confirm Email Change' }));
    const message = await findAnnounced("That password isn't right.");
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toHaveAccessibleDescription("That password isn't right.");
    await expectFocus(field);
    expect(message.closest('form')).not.toBeNull();

    answer = noContent();
    await user.clear(field);
    await user.type(field, 'right-password');
    await user.click(screen.getByRole('button', { name: 'Confirm Email Change' }));
    await findAnnounced('Email changed. Please sign in with your new email.', 'status');
    expect(confirmations(server)).toHaveLength(2);
  });

  it('shows the new address from the link, and fills it in at sign-in afterwards', async () => {
    const { user } = await open({});
    expect(screen.getByText('alice.new@example.com')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Password'), 'my-password-1');
    await user.click(screen.getByRole('button', { name: 'Confirm Email Change' }));
    await findAnnounced('Email changed. Please sign in with your new email.', 'status');
    await user.click(screen.getByRole('button', { name: 'Go to Login' }));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveValue('alice.new@example.com');
  }, 15_000);

  it('a used link is found on load and said above the form', async () => {
    const { server } = await open({
      linkCheck: () =>
        invalid({
          token: { code: 'validation_invalid_token', message: 'Invalid or expired token.' },
          password: { code: 'validation_required', message: 'Cannot be blank.' },
        }),
    });
    await findAnnounced('This link is invalid or has expired.');
    expect(screen.getAllByText('This link is invalid or has expired.')).toHaveLength(1);
    expect(server.to('POST', '/api/collections/users/confirm-email-change')[0]?.body).toEqual({
      token,
      password: '',
    });
  });

  it('an expired link is known from its own expiry, without asking the server', async () => {
    const expired = makeLinkToken('emailChange', { secondsLeft: -1, newEmail: 'x@example.com' });
    const { server } = await open({}, { path: `/confirm-email-change?token=${expired}` });
    await findAnnounced('This link is invalid or has expired.');
    expect(screen.getAllByText('This link is invalid or has expired.')).toHaveLength(1);
    expect(server.to('POST', '/api/collections/users/confirm-email-change')).toHaveLength(0);
  });

  it("shows the server's message otherwise (too many attempts)", async () => {
    const { user } = await open({ [CONFIRM]: () => pbError(429, 'Too Many Requests.') });
    await user.type(screen.getByLabelText('Password'), 'my-password-1');
    await user.click(screen.getByRole('button', { name: 'Confirm Email Change' }));
    await findAnnounced('Too many attempts. Please wait a moment and try again.');
    expect(screen.getByRole('button', { name: 'Confirm Email Change' })).toBeEnabled();
  });
});
