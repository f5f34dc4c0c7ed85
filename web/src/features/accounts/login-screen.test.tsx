import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AUTH_STORAGE_KEY } from '../../lib/session';
import {
  authRefreshOk,
  changelogOk,
  fakeServer,
  json,
  makeToken,
  makeUser,
  noContent,
  pbError,
  type Handler,
} from '../../test/fake-server';
import { expectFocus, findAnnounced, renderApp } from '../../test/render-app';

const AUTH = 'POST /api/collections/users/auth-with-password';
const RESEND = 'POST /api/collections/users/request-verification';

async function fillAndSubmit(
  user: ReturnType<typeof renderApp>['user'],
  email = 'alice@example.com',
  password = 'correct horse',
) {
  await user.type(await screen.findByLabelText('Email'), email);
  await user.type(screen.getByLabelText('Password'), password);
  await user.click(screen.getByRole('button', { name: 'Sign In' }));
}

describe('Login (/)', () => {
  it('shows the login form with its links, a page title and focus on the heading', async () => {
    fakeServer({});
    renderApp('/');
    await expectFocus(screen.findByRole('heading', { level: 1, name: 'Welcome back' }));
    expect(document.title).toBe('Sign in · Gatehouse');
    expect(screen.getByLabelText('Email')).toHaveAttribute('type', 'email');
    expect(screen.getByLabelText('Email')).toBeRequired();
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    expect(screen.getByRole('link', { name: 'Forgot password?' })).toHaveAttribute(
      'href',
      '/forgot-password',
    );
    expect(screen.getByRole('link', { name: 'Sign up' })).toHaveAttribute('href', '/signup');
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled();
  });

  it('signs a verified user in: Signing in... while busy, then Home', async () => {
    const alice = makeUser();
    let release!: () => void;
    const server = fakeServer({
      [AUTH]: () =>
        new Promise<Response>((resolve) => {
          release = () => resolve(json(200, { token: makeToken(alice.id), record: alice }));
        }),
      'GET /changelog.json': changelogOk([]),
    });
    const { user, router } = renderApp('/');
    await fillAndSubmit(user);
    const busy = await screen.findByRole('button', { name: 'Signing in...' });
    expect(busy).toBeDisabled();
    release();
    expect(await screen.findByRole('heading', { name: 'Welcome!' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/home');
    expect(server.to('POST', '/api/collections/users/auth-with-password')[0]?.body).toEqual({
      identity: 'alice@example.com',
      password: 'correct horse',
    });
    expect(JSON.parse(window.localStorage.getItem(AUTH_STORAGE_KEY) ?? '{}').record.id).toBe(
      alice.id,
    );
  });

  it('shows the login failure message and re-enables the button', async () => {
    fakeServer({ [AUTH]: () => pbError(400, 'Failed to authenticate.') });
    const { user } = renderApp('/');
    await fillAndSubmit(user, 'alice@example.com', 'wrong password');
    await findAnnounced('Invalid email or password. Please try again.');
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled();
    expect(screen.getByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
  });

  it('says when the attempt limit was hit, rather than blaming the password', async () => {
    fakeServer({ [AUTH]: () => pbError(429, 'Too Many Requests.') });
    const { user } = renderApp('/');
    await fillAndSubmit(user);
    await findAnnounced('Too many sign-in attempts. Please wait a minute and try again.');
    expect(screen.queryByText('Invalid email or password. Please try again.')).toBeNull();
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled();
  });

  it('checks the email before asking the server', async () => {
    const server = fakeServer({});
    const { user } = renderApp('/');
    await user.click(await screen.findByRole('button', { name: 'Sign In' }));
    await findAnnounced('Please enter your email address.');
    await expectFocus(screen.getByLabelText('Email'));
    await user.type(screen.getByLabelText('Email'), 'not-an-email');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(screen.getByText('Please enter a valid email address.')).toBeInTheDocument();
    await user.clear(screen.getByLabelText('Email'));
    await user.type(screen.getByLabelText('Email'), 'alice@example.com');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(screen.getByText('Please enter your password.')).toBeInTheDocument();
    expect(server.requests.filter((r) => r.path.startsWith('/api/'))).toHaveLength(0);
  });

  describe('unverified account', () => {
    const bob = makeUser({ email: 'bob@example.com', verified: false });

    it('clears the session and shows the Email Not Verified notice', async () => {
      fakeServer({ [AUTH]: () => json(200, { token: makeToken(bob.id), record: bob }) });
      const { user, router } = renderApp('/');
      await fillAndSubmit(user, 'bob@example.com');
      expect(await screen.findByRole('heading', { name: 'Email Not Verified' })).toBeVisible();
      expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
      expect(router.state.location.pathname).toBe('/');
      expect(screen.getByRole('button', { name: 'Resend Verification Email' })).toBeEnabled();
    });

    it('resends the verification email', async () => {
      const server = fakeServer({
        [AUTH]: () => json(200, { token: makeToken(bob.id), record: bob }),
        [RESEND]: () => noContent(),
      });
      const { user } = renderApp('/');
      await fillAndSubmit(user, 'bob@example.com');
      await user.click(await screen.findByRole('button', { name: 'Resend Verification Email' }));
      await findAnnounced('Verification email sent! Check your inbox.', 'status');
      expect(server.to('POST', '/api/collections/users/request-verification')[0]?.body).toEqual({
        email: 'bob@example.com',
      });
    });

    it('after a resend the button waits out the 2 minutes with a countdown, also after a reload', async () => {
      const server = fakeServer({
        [AUTH]: () => json(200, { token: makeToken(bob.id), record: bob }),
        [RESEND]: () => noContent(),
      });
      const first = renderApp('/');
      await fillAndSubmit(first.user, 'bob@example.com');
      await first.user.click(
        await screen.findByRole('button', { name: 'Resend Verification Email' }),
      );
      await findAnnounced('Verification email sent! Check your inbox.', 'status');
      const waiting = screen.getByRole('button', { name: /^Resend in [12]:\d\d$/ });
      expect(waiting).toBeDisabled();
      first.unmount();

      // The page is loaded again: signing in shows the same wait, and nothing more is sent.
      const second = renderApp('/');
      await fillAndSubmit(second.user, 'bob@example.com');
      expect(await screen.findByRole('button', { name: /^Resend in [12]:\d\d$/ })).toBeDisabled();
      expect(screen.queryByText('Verification email sent! Check your inbox.')).toBeNull();
      expect(server.to('POST', '/api/collections/users/request-verification')).toHaveLength(1);
    });

    it('the button is ready again once 2 minutes have passed', async () => {
      window.sessionStorage.setItem(
        'gatehouse.mailRequested',
        JSON.stringify({ 'verification:bob@example.com': Date.now() - 121_000 }),
      );
      fakeServer({ [AUTH]: () => json(200, { token: makeToken(bob.id), record: bob }) });
      const { user } = renderApp('/');
      await fillAndSubmit(user, 'bob@example.com');
      expect(
        await screen.findByRole('button', { name: 'Resend Verification Email' }),
      ).toBeEnabled();
    });

    it('says so when resending fails', async () => {
      fakeServer({
        [AUTH]: () => json(200, { token: makeToken(bob.id), record: bob }),
        [RESEND]: () => pbError(429, 'Too Many Requests.'),
      });
      const { user } = renderApp('/');
      await fillAndSubmit(user, 'bob@example.com');
      await user.click(await screen.findByRole('button', { name: 'Resend Verification Email' }));
      await findAnnounced('Failed to resend verification email. Please try again.');
    });
  });

  it('carries the typed email to Forgot Password', async () => {
    fakeServer({});
    const { user } = renderApp('/');
    await user.type(await screen.findByLabelText('Email'), 'carol@example.com');
    await user.click(screen.getByRole('link', { name: 'Forgot password?' }));
    await screen.findByRole('heading', { level: 1, name: 'Forgot Password' });
    expect(screen.getByLabelText('Email')).toHaveValue('carol@example.com');
  });

  it('sends a signed-in user to /home', async () => {
    const alice = makeUser();
    window.localStorage.setItem(
      AUTH_STORAGE_KEY,
      JSON.stringify({ token: makeToken(alice.id), record: alice }),
    );
    fakeServer({
      'POST /api/collections/users/auth-refresh': authRefreshOk(alice),
      'GET /changelog.json': changelogOk([]),
    });
    const { router } = renderApp('/');
    expect(await screen.findByRole('heading', { name: 'Welcome!' })).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/home'));
    expect(screen.queryByRole('heading', { name: 'Welcome back' })).not.toBeInTheDocument();
  });
});

describe('Login: the second step (two-step sign-in on)', () => {
  const TOTP = 'POST /api/gatehouse/auth-with-totp';
  const alice = makeUser();
  const mfa = () =>
    json(401, {
      data: {},
      message: 'Please complete the second authentication step.',
      status: 401,
      mfaId: 'mfa123456789012',
    });

  async function toSecondStep(routes: Record<string, Handler>) {
    const server = fakeServer({ [AUTH]: mfa, 'GET /changelog.json': changelogOk([]), ...routes });
    const view = renderApp('/');
    await fillAndSubmit(view.user);
    const heading = await screen.findByRole('heading', { level: 1, name: 'Two-Step Verification' });
    return { ...view, server, heading };
  }

  /** The six digit fields of the Authentication Code. */
  function digits() {
    return within(screen.getByRole('group', { name: 'Authentication Code' })).getAllByRole(
      'textbox',
    );
  }

  it('asks for the Authentication Code after a right password, focusing its heading', async () => {
    const { heading } = await toSecondStep({});
    await expectFocus(heading);
    const fields = digits();
    expect(fields).toHaveLength(6);
    expect(fields[0]).toHaveAttribute('autocomplete', 'one-time-code');
    expect(fields[0]).toHaveAccessibleName('Digit 1 of 6');
    expect(fields[0]).toHaveAttribute('inputmode', 'numeric');
    expect(screen.getByRole('group', { name: 'Authentication Code' })).toHaveAccessibleDescription(
      'A 6-digit code or a recovery code.',
    );
    expect(screen.getByRole('button', { name: 'Verify' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Back' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Use a recovery code' })).toBeEnabled();
    expect(screen.queryByLabelText('Password')).toBeNull();
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  it('signs in by itself once the 6 digits are typed (Verifying... while busy), then Home', async () => {
    let release!: () => void;
    const { user, router, server } = await toSecondStep({
      [TOTP]: () =>
        new Promise<Response>((resolve) => {
          release = () => resolve(json(200, { token: makeToken(alice.id), record: alice }));
        }),
    });
    await user.type(digits()[0]!, '12345');
    await expectFocus(digits()[5]);
    expect(server.to('POST', '/api/gatehouse/auth-with-totp')).toHaveLength(0);
    await user.keyboard('6');
    expect(await screen.findByRole('button', { name: 'Verifying...' })).toBeDisabled();
    release();
    expect(await screen.findByRole('heading', { name: 'Welcome!' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/home');
    expect(server.to('POST', '/api/gatehouse/auth-with-totp')).toHaveLength(1);
    expect(server.to('POST', '/api/gatehouse/auth-with-totp')[0]?.body).toEqual({
      mfaId: 'mfa123456789012',
      code: '123456',
    });
    expect(JSON.parse(window.localStorage.getItem(AUTH_STORAGE_KEY) ?? '{}').record.id).toBe(
      alice.id,
    );
  });

  it('takes a pasted code whole, spaces and all', async () => {
    const { user, server } = await toSecondStep({
      [TOTP]: () => json(200, { token: makeToken(alice.id), record: alice }),
    });
    await user.click(digits()[2]!);
    await user.paste('123 456');
    expect(await screen.findByRole('heading', { name: 'Welcome!' })).toBeInTheDocument();
    expect(server.to('POST', '/api/gatehouse/auth-with-totp')[0]?.body).toEqual({
      mfaId: 'mfa123456789012',
      code: '123456',
    });
  });

  it('says Invalid code. Please try again. for a wrong code, empties the digits and lets the member try again', async () => {
    const { user, server } = await toSecondStep({
      [TOTP]: () =>
        pbError(400, 'An error occurred while validating the submitted data.', {
          code: { code: 'validation_invalid_code', message: 'Invalid or expired code.' },
        }),
    });
    await user.type(digits()[0]!, '000000');
    await findAnnounced('Invalid code. Please try again.');
    expect(screen.getByRole('button', { name: 'Verify' })).toBeEnabled();
    await waitFor(() => expect(digits()[0]).toHaveFocus());
    expect(digits().map((d) => (d as HTMLInputElement).value)).toEqual(['', '', '', '', '', '']);
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    await user.keyboard('111111');
    await waitFor(() => expect(server.to('POST', '/api/gatehouse/auth-with-totp')).toHaveLength(2));
    expect(server.to('POST', '/api/gatehouse/auth-with-totp')[1]?.body).toMatchObject({
      code: '111111',
    });
  });

  it('a recovery code goes in one text field: Use a recovery code, or typing one into the digits', async () => {
    const { user, server } = await toSecondStep({
      [TOTP]: () =>
        pbError(400, 'An error occurred while validating the submitted data.', {
          code: { code: 'validation_invalid_code', message: 'Invalid or expired code.' },
        }),
    });
    await user.click(screen.getByRole('button', { name: 'Use a recovery code' }));
    const field = screen.getByLabelText('Authentication Code');
    await expectFocus(field);
    expect(field).toBeRequired();
    await user.type(field, 'k7mq-2xpd-h9tr');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    await findAnnounced('Invalid code. Please try again.');
    expect(server.to('POST', '/api/gatehouse/auth-with-totp')[0]?.body).toEqual({
      mfaId: 'mfa123456789012',
      code: 'k7mq-2xpd-h9tr',
    });

    // Back to the digits; a letter typed there opens the text field with it.
    await user.click(screen.getByRole('button', { name: 'Use a 6-digit code' }));
    await user.type(digits()[0]!, 'K');
    expect(screen.getByLabelText('Authentication Code')).toHaveValue('K');
    await expectFocus(screen.getByLabelText('Authentication Code'));
  });

  it('asks for a code before sending anything', async () => {
    const { user, server } = await toSecondStep({});
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    await findAnnounced('Please enter your authentication code.');
    await expectFocus(digits()[0]);
    expect(server.to('POST', '/api/gatehouse/auth-with-totp')).toHaveLength(0);
  });

  it('says the second step is locked for 15 minutes on 429', async () => {
    const { user } = await toSecondStep({ [TOTP]: () => pbError(429, 'Too Many Requests.') });
    await user.type(digits()[0]!, '123456');
    await findAnnounced(
      'Too many wrong codes. Two-step sign-in is locked for 15 minutes. Please try again later.',
    );
  });

  it('goes back to the first step when the second-step session is void', async () => {
    const { user } = await toSecondStep({
      [TOTP]: () =>
        pbError(400, 'An error occurred while validating the submitted data.', {
          mfaId: {
            code: 'validation_invalid_mfa_id',
            message: 'Invalid or expired second-step session.',
          },
        }),
    });
    await user.type(digits()[0]!, '123456');
    await expectFocus(screen.findByRole('heading', { name: 'Welcome back' }));
    await findAnnounced('Your sign-in took too long. Please enter your email and password again.');
    expect(screen.getByLabelText('Email')).toHaveValue('alice@example.com');
    expect(screen.getByLabelText('Password')).toHaveValue('');
  });

  it('Back returns to the first step, focusing Welcome back', async () => {
    const { user, server } = await toSecondStep({});
    await user.click(screen.getByRole('button', { name: 'Back' }));
    await expectFocus(screen.findByRole('heading', { name: 'Welcome back' }));
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled();
    expect(server.to('POST', '/api/gatehouse/auth-with-totp')).toHaveLength(0);
  });

  it('shows the Email Not Verified notice when the account is not verified', async () => {
    const bob = makeUser({ verified: false });
    const { user } = await toSecondStep({
      [TOTP]: () => json(200, { token: makeToken(bob.id), record: bob }),
    });
    await user.type(digits()[0]!, '123456');
    expect(await screen.findByRole('heading', { name: 'Email Not Verified' })).toBeVisible();
    expect(screen.getByText('alice@example.com')).toBeInTheDocument();
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });
});
