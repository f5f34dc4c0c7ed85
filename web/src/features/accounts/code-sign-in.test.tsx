import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { AUTH_STORAGE_KEY } from '../../lib/session';
import {
  changelogOk,
  fakeServer,
  json,
  makeToken,
  makeUser,
  pbError,
  type Handler,
} from '../../test/fake-server';
import { expectFocus, findAnnounced, renderApp } from '../../test/render-app';

const REQUEST = 'POST /api/collections/users/request-otp';
const SIGN_IN = 'POST /api/collections/users/auth-with-otp';
const alice = makeUser();

/** The request-otp answers in turn: otp000000000001, otp000000000002, … */
function otpIds(): Handler {
  let n = 0;
  return () => json(200, { otpId: `otp${String(++n).padStart(12, '0')}` });
}

const signedIn: Handler = () => json(200, { token: makeToken(alice.id), record: alice });

/** The login screen, the email typed, then "Email me a sign-in code": the code screen. */
async function toCodeScreen(routes: Record<string, Handler>, options = { fakeTimers: false }) {
  const server = fakeServer({
    [REQUEST]: otpIds(),
    'GET /changelog.json': changelogOk([]),
    ...routes,
  });
  const view = renderApp('/', options);
  await view.user.type(await screen.findByLabelText('Email'), 'alice@example.com');
  await view.user.click(screen.getByRole('button', { name: 'Email me a sign-in code' }));
  const heading = await screen.findByRole('heading', { level: 1, name: 'Check your email' });
  return { ...view, server, heading };
}

/** The eight digit fields of the sign-in code. */
function digits() {
  return within(screen.getByRole('group', { name: 'Sign-in code' })).getAllByRole('textbox');
}

describe('Login: sign in with a code sent by email', () => {
  it('sends a code to the typed address at once and asks for it, one field per digit', async () => {
    const { server, heading } = await toCodeScreen({});
    await waitFor(() => expect(heading).toHaveFocus());
    expect(server.to('POST', '/api/collections/users/request-otp')[0]?.body).toEqual({
      email: 'alice@example.com',
    });
    const said =
      'If alice@example.com has an account, we sent it an 8-digit sign-in code. It works once, for 3 minutes.';
    expect(
      screen.getByText((_, el) => el?.tagName === 'P' && el.textContent === said),
    ).toBeVisible();
    const fields = digits();
    expect(fields).toHaveLength(8);
    expect(fields[0]).toHaveAttribute('autocomplete', 'one-time-code');
    expect(fields[0]).toHaveAccessibleName('Digit 1 of 8');
    expect(fields[7]).toHaveAccessibleName('Digit 8 of 8');
    expect(fields.slice(1).every((f) => f.getAttribute('autocomplete') === 'off')).toBe(true);
    expect(screen.getByRole('button', { name: /^Send a new code in 0:(30|29)$/ })).toBeDisabled();
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  it('signs in by itself once the code is typed whole (Signing in... while busy), then Home', async () => {
    let release!: () => void;
    const { user, router, server } = await toCodeScreen({
      [SIGN_IN]: () =>
        new Promise<Response>((resolve) => {
          release = () => resolve(signedIn({} as never) as Response);
        }),
    });
    await user.type(digits()[0]!, '1234567');
    await expectFocus(digits()[7]);
    expect(server.to('POST', '/api/collections/users/auth-with-otp')).toHaveLength(0);
    // Backspace on an empty field goes back and clears the one before.
    await user.keyboard('{Backspace}');
    await expectFocus(digits()[6]);
    expect(digits()[6]).toHaveValue('');
    await user.keyboard('78');
    expect(await screen.findByRole('button', { name: 'Signing in...' })).toBeDisabled();
    release();
    expect(await screen.findByRole('heading', { name: 'Welcome!' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/home');
    expect(server.to('POST', '/api/collections/users/auth-with-otp')).toHaveLength(1);
    expect(server.to('POST', '/api/collections/users/auth-with-otp')[0]?.body).toEqual({
      otpId: 'otp000000000001',
      password: '12345678',
    });
    expect(JSON.parse(window.localStorage.getItem(AUTH_STORAGE_KEY) ?? '{}').record.id).toBe(
      alice.id,
    );
  });

  it('takes the whole code pasted into any field', async () => {
    const { user, server } = await toCodeScreen({ [SIGN_IN]: signedIn });
    await user.click(digits()[3]!);
    await user.paste(' 8765-4321 ');
    expect(await screen.findByRole('heading', { name: 'Welcome!' })).toBeInTheDocument();
    expect(server.to('POST', '/api/collections/users/auth-with-otp')[0]?.body).toEqual({
      otpId: 'otp000000000001',
      password: '87654321',
    });
  });

  it('a wrong or expired code: "That code isn\'t right or has expired.", the fields emptied for another try', async () => {
    const { user, server } = await toCodeScreen({
      [SIGN_IN]: () => pbError(400, 'Invalid or expired OTP.'),
    });
    await user.type(digits()[0]!, '00000000');
    await findAnnounced("That code isn't right or has expired.");
    await waitFor(() => expect(digits()[0]).toHaveFocus());
    expect(digits().every((d) => (d as HTMLInputElement).value === '')).toBe(true);
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled();
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    await user.keyboard('11111111');
    await waitFor(() =>
      expect(server.to('POST', '/api/collections/users/auth-with-otp')).toHaveLength(2),
    );
  });

  it('says so when the code has no tries left, or too many sign-ins were tried', async () => {
    let answer = pbError(429, 'Too many attempts, please try again later with a new OTP.');
    const { user } = await toCodeScreen({ [SIGN_IN]: () => answer });
    await user.type(digits()[0]!, '12345678');
    await findAnnounced('Too many tries with this code. Send a new code and try again.');
    answer = pbError(429, 'Too Many Requests.');
    await user.keyboard('12345678');
    await findAnnounced('Too many sign-in attempts. Please wait a minute and try again.');
  });

  it('asks for the whole code before sending it', async () => {
    const { user, server } = await toCodeScreen({});
    await user.type(digits()[0]!, '123');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await findAnnounced('Please enter the 8-digit code from the email.');
    expect(server.to('POST', '/api/collections/users/auth-with-otp')).toHaveLength(0);
  });

  it('offers a new code after 30 seconds; the next sign-in uses it', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { user, server } = await toCodeScreen({ [SIGN_IN]: signedIn }, { fakeTimers: true });
    expect(screen.getByRole('button', { name: /^Send a new code in 0:\d\d$/ })).toBeDisabled();
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(screen.getByRole('button', { name: /^Send a new code in 0:(20|19)$/ })).toBeDisabled();
    await act(() => vi.advanceTimersByTimeAsync(21_000));
    await user.click(screen.getByRole('button', { name: 'Send a new code' }));
    await findAnnounced('A new code is on its way. Enter the newest one.', 'status');
    expect(server.to('POST', '/api/collections/users/request-otp')).toHaveLength(2);
    expect(screen.getByRole('button', { name: /^Send a new code in 0:\d\d$/ })).toBeDisabled();
    await user.type(digits()[0]!, '24681357');
    expect(await screen.findByRole('heading', { name: 'Welcome!' })).toBeInTheDocument();
    expect(server.to('POST', '/api/collections/users/auth-with-otp')[0]?.body).toEqual({
      otpId: 'otp000000000002',
      password: '24681357',
    });
  });

  it('asks for the address first when the form had none, then sends the code', async () => {
    const server = fakeServer({ [REQUEST]: otpIds() });
    const { user } = renderApp('/');
    await user.click(await screen.findByRole('button', { name: 'Email me a sign-in code' }));
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Sign in with a code' }),
    ).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Email Me a Code' }));
    await findAnnounced('Please enter your email address.');
    await expectFocus(screen.getByLabelText('Email'));
    expect(server.to('POST', '/api/collections/users/request-otp')).toHaveLength(0);
    await user.type(screen.getByLabelText('Email'), 'alice@example.com');
    await user.click(screen.getByRole('button', { name: 'Email Me a Code' }));
    expect(await screen.findByRole('heading', { name: 'Check your email' })).toBeInTheDocument();
    expect(server.to('POST', '/api/collections/users/request-otp')[0]?.body).toEqual({
      email: 'alice@example.com',
    });
  });

  it('says so when no code could be asked for', async () => {
    fakeServer({ [REQUEST]: () => pbError(429, 'Too Many Requests.') });
    const { user } = renderApp('/');
    await user.type(await screen.findByLabelText('Email'), 'alice@example.com');
    await user.click(screen.getByRole('button', { name: 'Email me a sign-in code' }));
    await findAnnounced('Too many codes were asked for. Please wait a few minutes and try again.');
    expect(screen.getByRole('heading', { name: 'Sign in with a code' })).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveValue('alice@example.com');
  });

  it('goes on to the second step when two-step sign-in is on', async () => {
    const { user } = await toCodeScreen({
      [SIGN_IN]: () =>
        json(401, {
          data: {},
          message: 'Please complete the second authentication step.',
          status: 401,
          mfaId: 'mfa123456789012',
        }),
      'POST /api/gatehouse/auth-with-totp': signedIn,
    });
    await user.type(digits()[0]!, '12345678');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Two-Step Verification' }),
    ).toBeInTheDocument();
    const app = within(screen.getByRole('group', { name: 'Authentication Code' }));
    await user.type(app.getAllByRole('textbox')[0]!, '654321');
    expect(await screen.findByRole('heading', { name: 'Welcome!' })).toBeInTheDocument();
  });

  it('shows the Email Not Verified notice for an account that is not verified', async () => {
    const bob = makeUser({ verified: false });
    const { user } = await toCodeScreen({
      [SIGN_IN]: () => json(200, { token: makeToken(bob.id), record: bob }),
    });
    await user.type(digits()[0]!, '12345678');
    expect(await screen.findByRole('heading', { name: 'Email Not Verified' })).toBeVisible();
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  it('Back returns to the password form with the address', async () => {
    const { user } = await toCodeScreen({});
    await user.click(screen.getByRole('button', { name: 'Back' }));
    await expectFocus(screen.findByRole('heading', { name: 'Welcome back' }));
    expect(screen.getByLabelText('Email')).toHaveValue('alice@example.com');
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled();
  });
});
