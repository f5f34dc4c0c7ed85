import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AUTH_STORAGE_KEY, readStoredSession } from '../../lib/session';
import {
  changelogOk,
  fakeServer,
  json,
  makeToken,
  makeUser,
  noContent,
  pbError,
  storeSession,
  type Handler,
} from '../../test/fake-server';
import { expectFocus, findAnnounced, renderApp } from '../../test/render-app';

const alice = makeUser({ id: 'a1b2c3d4e5f6g7h', email: 'alice@example.com' });
const PATCH = `PATCH /api/collections/users/records/${alice.id}`;
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const SAFARI_IOS =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const sessions = [
  {
    id: 'sess-here',
    created: '2026-11-23 09:00:00.000Z',
    lastSeen: '2026-11-23 10:15:00.000Z',
    ip: '203.0.113.7',
    userAgent: FIREFOX_LINUX,
    current: true,
  },
  {
    id: 'sess-phone',
    created: '2026-11-20 08:00:00.000Z',
    lastSeen: '2026-11-22 18:30:00.000Z',
    ip: '198.51.100.23',
    userAgent: SAFARI_IOS,
    current: false,
  },
  {
    id: 'sess-office',
    created: '2026-11-19 07:00:00.000Z',
    lastSeen: '2026-11-19 17:00:00.000Z',
    ip: '192.0.2.44',
    userAgent: CHROME_WINDOWS,
    current: false,
  },
];

function event(type: string, extra: Record<string, unknown> = {}) {
  return {
    id: `ev-${type}-${String(extra.outcome ?? 'success')}`,
    created: '2026-11-23 10:00:00.000Z',
    type,
    ip: '203.0.113.7',
    userAgent: FIREFOX_LINUX,
    outcome: 'success',
    detail: {},
    ...extra,
  };
}

const events = [
  event('sign_in', { detail: { method: 'password' } }),
  event('sign_in', {
    outcome: 'failure',
    ip: '198.51.100.9',
    userAgent: CHROME_WINDOWS,
    detail: { method: 'password', reason: 'wrong_password' },
  }),
  event('password_changed'),
  event('email_changed', { outcome: 'failure', detail: { reason: 'wrong_password' } }),
  event('email_changed'),
  event('signed_out'),
  event('session_ended', { detail: { session: 'sess-x' } }),
  event('sessions_ended', { detail: { count: 2 } }),
];

function list(items: unknown[]) {
  return json(200, { page: 1, perPage: 20, totalItems: -1, totalPages: -1, items });
}

function signedIn(routes: Record<string, Handler> = {}) {
  const token = storeSession(alice);
  const server = fakeServer({
    'POST /api/collections/users/auth-refresh': () => json(200, { token, record: alice }),
    'GET /changelog.json': changelogOk(),
    'GET /api/invite-codes': () => json(200, { codes: [] }),
    'GET /api/gatehouse/sessions': () => json(200, { items: sessions }),
    'GET /api/gatehouse/security-events': () => list(events),
    'GET /api/gatehouse/totp': () => json(200, { enabled: false, recoveryCodesLeft: 0 }),
    'GET /api/gatehouse/passkeys': () => json(200, { items: [] }),
    ...routes,
  });
  return { server, token };
}

async function openSettings(routes: Record<string, Handler> = {}) {
  const { server, token } = signedIn(routes);
  const view = renderApp('/settings');
  await screen.findByRole('heading', { level: 1, name: 'Settings' });
  return { ...view, server, token };
}

function card(name: string) {
  return screen.getByRole('region', { name });
}

/** A handler that answers only when `release` is called (to see busy labels). */
function held(answer: () => Response) {
  let release!: () => void;
  const handler: Handler = () =>
    new Promise<Response>((resolve) => {
      release = () => resolve(answer());
    });
  return { handler, release: () => release() };
}

describe('Settings (/settings)', () => {
  it('has its title, focuses its heading and shows one card per part, each with a heading', async () => {
    await openSettings();
    await expectFocus(screen.getByRole('heading', { level: 1, name: 'Settings' }));
    expect(document.title).toBe('Settings · Gatehouse');
    for (const name of [
      'Password',
      'Two-Step Sign-In',
      'Passkeys',
      'Email',
      'Signed-In Devices',
      'Recent Activity',
      'Your Data',
    ]) {
      expect(within(card(name)).getByRole('heading', { level: 2, name })).toBeInTheDocument();
    }
  });

  it('is reached from the Settings button on Profile, beside Back to Home', async () => {
    signedIn();
    const { user, router } = renderApp('/profile');
    await screen.findByRole('heading', { level: 1, name: 'Profile' });
    const back = screen.getByRole('button', { name: 'Back to Home' });
    const settings = screen.getByRole('button', { name: 'Settings' });
    expect(back.parentElement).toBe(settings.parentElement);
    await user.click(settings);
    await expectFocus(screen.findByRole('heading', { level: 1, name: 'Settings' }));
    expect(router.state.location.pathname).toBe('/settings');
  });

  it('sends a visitor to the login screen', async () => {
    fakeServer({});
    const { router } = renderApp('/settings');
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
  });

  describe('Password', () => {
    async function fill(
      user: Awaited<ReturnType<typeof openSettings>>['user'],
      values: { old: string; next: string; confirm?: string },
    ) {
      const scope = within(card('Password'));
      await user.type(scope.getByLabelText('Current Password'), values.old);
      await user.type(scope.getByLabelText('New Password'), values.next);
      await user.type(scope.getByLabelText('Confirm New Password'), values.confirm ?? values.next);
      return scope;
    }

    it('has the three fields as password inputs and the Change Password button', async () => {
      await openSettings();
      const scope = within(card('Password'));
      for (const label of ['Current Password', 'New Password', 'Confirm New Password']) {
        expect(scope.getByLabelText(label)).toHaveAttribute('type', 'password');
        expect(scope.getByLabelText(label)).toBeRequired();
      }
      expect(scope.getByLabelText('Current Password')).toHaveAttribute(
        'autocomplete',
        'current-password',
      );
      expect(scope.getByLabelText('New Password')).toHaveAttribute('autocomplete', 'new-password');
      expect(scope.getByRole('button', { name: 'Change Password' })).toBeEnabled();
    });

    it("checks the reset screen's rules before sending anything", async () => {
      const { user, server } = await openSettings();
      const scope = await fill(user, {
        old: 'old-password-1',
        next: 'long-enough-1',
        confirm: 'long-enough-2',
      });
      await user.click(scope.getByRole('button', { name: 'Change Password' }));
      await findAnnounced('Passwords do not match');
      await expectFocus(scope.getByLabelText('Confirm New Password'));

      await user.clear(scope.getByLabelText('New Password'));
      await user.clear(scope.getByLabelText('Confirm New Password'));
      await user.type(scope.getByLabelText('New Password'), 'short');
      await user.type(scope.getByLabelText('Confirm New Password'), 'short');
      await user.click(scope.getByRole('button', { name: 'Change Password' }));
      await findAnnounced('Password must be at least 8 characters');
      await expectFocus(scope.getByLabelText('New Password'));
      expect(scope.getByLabelText('New Password')).toHaveAttribute('aria-invalid', 'true');
      expect(server.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
    });

    it('asks for the current password first', async () => {
      const { user, server } = await openSettings();
      const scope = within(card('Password'));
      await user.click(scope.getByRole('button', { name: 'Change Password' }));
      await findAnnounced('Please enter your current password.');
      await expectFocus(scope.getByLabelText('Current Password'));
      expect(server.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
    });

    it('changes the password (Changing...), keeps this device signed in with the fresh token', async () => {
      const fresh = makeToken(alice.id, 7200);
      const answer = held(
        () =>
          new Response(JSON.stringify({ ...alice, updated: '2026-11-23 10:20:00.000Z' }), {
            status: 200,
            headers: { 'Content-Type': 'application/json', 'X-Gatehouse-Token': fresh },
          }),
      );
      let devices = sessions;
      const { user, server, router } = await openSettings({
        [PATCH]: answer.handler,
        'GET /api/gatehouse/sessions': () => json(200, { items: devices }),
      });
      await screen.findByText('Safari on iOS');
      const scope = await fill(user, { old: 'old-password-1', next: 'Brand-New-Lantern-7' });
      await user.click(scope.getByRole('button', { name: 'Change Password' }));
      expect(await scope.findByRole('button', { name: 'Changing...' })).toBeDisabled();
      devices = sessions.filter((s) => s.current);
      await act(async () => answer.release());
      await findAnnounced('Password changed. Your other devices have been signed out.', 'status');
      expect(server.to('PATCH', `/api/collections/users/records/${alice.id}`)[0]?.body).toEqual({
        oldPassword: 'old-password-1',
        password: 'Brand-New-Lantern-7',
        passwordConfirm: 'Brand-New-Lantern-7',
      });
      const stored = readStoredSession();
      expect(stored.token).toBe(fresh);
      expect(stored.record).toMatchObject({ id: alice.id, email: alice.email });
      expect(router.state.location.pathname).toBe('/settings');
      // The fields are emptied and the device list is asked again.
      expect(scope.getByLabelText('Current Password')).toHaveValue('');
      expect(scope.getByLabelText('New Password')).toHaveValue('');
      await waitFor(() => expect(screen.queryByText('Safari on iOS')).not.toBeInTheDocument());
      // The next request carries the fresh token.
      expect(server.to('GET', '/api/gatehouse/sessions').at(-1)?.headers.get('Authorization')).toBe(
        fresh,
      );
    });

    it('says Current password is incorrect. for a wrong current password', async () => {
      const { user } = await openSettings({
        [PATCH]: () =>
          pbError(400, 'Failed to update record.', {
            oldPassword: {
              code: 'validation_invalid_old_password',
              message: 'Missing or invalid old password.',
            },
          }),
      });
      const scope = await fill(user, { old: 'wrong-password', next: 'Brand-New-Lantern-7' });
      await user.click(scope.getByRole('button', { name: 'Change Password' }));
      await findAnnounced('Current password is incorrect.');
      expect(scope.getByRole('button', { name: 'Change Password' })).toBeEnabled();
      expect(
        screen.queryByText('Password changed. Your other devices have been signed out.'),
      ).not.toBeInTheDocument();
    });

    it("shows the server's message for another password error (a common password)", async () => {
      const { user } = await openSettings({
        [PATCH]: () =>
          pbError(400, 'Failed to update record.', {
            password: {
              code: 'validation_password_too_common',
              message: 'This password is too common. Choose one that is harder to guess.',
            },
          }),
      });
      const scope = await fill(user, { old: 'old-password-1', next: 'password123' });
      await user.click(scope.getByRole('button', { name: 'Change Password' }));
      await findAnnounced('This password is too common. Choose one that is harder to guess.');
    });

    it("uses the reset screen's texts when the server finds the mismatch or the length", async () => {
      let answer = pbError(400, 'Failed to update record.', {
        password: {
          code: 'validation_min_text_constraint',
          message: 'Must be at least 8 character(s).',
          params: { min: 8 },
        },
      });
      const { user } = await openSettings({ [PATCH]: () => answer });
      const scope = await fill(user, { old: 'old-password-1', next: 'Brand-New-Lantern-7' });
      await user.click(scope.getByRole('button', { name: 'Change Password' }));
      await findAnnounced('Password must be at least 8 characters');
      answer = pbError(400, 'Failed to update record.', {
        passwordConfirm: { code: 'validation_values_mismatch', message: "Values don't match." },
      });
      await user.click(scope.getByRole('button', { name: 'Change Password' }));
      await findAnnounced('Passwords do not match');
    });

    it("says in plain words what the server's refusal means (too many attempts)", async () => {
      const { user } = await openSettings({ [PATCH]: () => pbError(429, 'Too Many Requests.') });
      const scope = await fill(user, { old: 'old-password-1', next: 'Brand-New-Lantern-7' });
      await user.click(scope.getByRole('button', { name: 'Change Password' }));
      await findAnnounced('Too many attempts. Please wait a moment and try again.');
    });
  });

  describe('Two-Step Sign-In', () => {
    const TOTP = 'GET /api/gatehouse/totp';
    const SETUP = 'POST /api/gatehouse/totp/setup';
    const ENABLE = 'POST /api/gatehouse/totp/enable';
    const DISABLE = 'POST /api/gatehouse/totp/disable';
    const RENEW = 'POST /api/gatehouse/recovery-codes';
    const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    const QR =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>';
    const codes = Array.from({ length: 10 }, (_, i) => `k7mq-2xpd-h9t${i}`);
    const on =
      (left = 10): Handler =>
      () =>
        json(200, { enabled: true, recoveryCodesLeft: left });
    const wrongPassword = () =>
      pbError(400, 'An error occurred while validating the submitted data.', {
        password: {
          code: 'validation_invalid_password',
          message: 'Missing or invalid auth record password.',
        },
      });
    const scope = () => within(card('Two-Step Sign-In'));

    async function toSetup(routes: Record<string, Handler> = {}) {
      const view = await openSettings({
        [SETUP]: () => json(200, { secret: SECRET, uri: 'otpauth://totp/x', qrSvg: QR }),
        ...routes,
      });
      await view.user.click(
        await scope().findByRole('button', { name: 'Set Up Authenticator App' }),
      );
      await scope().findByRole('heading', { level: 3, name: 'Set Up Authenticator App' });
      return view;
    }

    it('off: says so and offers Set Up Authenticator App', async () => {
      await openSettings();
      expect(await scope().findByText('Two-step sign-in is off.')).toBeInTheDocument();
      expect(scope().getByRole('button', { name: 'Set Up Authenticator App' })).toBeEnabled();
      expect(scope().queryByRole('button', { name: 'Turn Off' })).toBeNull();
    });

    it('set up: a QR code image, the key as text and the Authentication Code field; heading focused', async () => {
      const answer = held(() => json(200, { secret: SECRET, uri: 'otpauth://totp/x', qrSvg: QR }));
      const { user } = await openSettings({ [SETUP]: answer.handler });
      await user.click(await scope().findByRole('button', { name: 'Set Up Authenticator App' }));
      expect(await scope().findByRole('button', { name: 'Setting up...' })).toBeDisabled();
      await act(async () => answer.release());
      const heading = await scope().findByRole('heading', {
        level: 3,
        name: 'Set Up Authenticator App',
      });
      await expectFocus(heading);
      const img = scope().getByRole('img', {
        name: 'QR code to add your account to an authenticator app',
      });
      expect(img.getAttribute('src')).toBe(`data:image/svg+xml;utf8,${encodeURIComponent(QR)}`);
      // The markup is never put into the page as HTML.
      expect(card('Two-Step Sign-In').querySelector('svg rect')).toBeNull();
      expect(scope().getByLabelText('Setup key').textContent?.replace(/\s/g, '')).toBe(SECRET);
      expect(scope().getByLabelText('Authentication Code')).toHaveAttribute(
        'autocomplete',
        'one-time-code',
      );
      expect(scope().getByRole('button', { name: 'Turn On' })).toBeEnabled();
    });

    it('Turn On (Turning on...) shows the 10 recovery codes once, with Copy, Download and Done', async () => {
      const answer = held(() => json(200, { recoveryCodes: codes }));
      let enabled = false;
      const { user, server } = await toSetup({
        [ENABLE]: (req) => {
          enabled = true;
          return answer.handler(req);
        },
        [TOTP]: () => json(200, { enabled, recoveryCodesLeft: enabled ? 10 : 0 }),
      });
      await user.type(scope().getByLabelText('Authentication Code'), '123456');
      await user.click(scope().getByRole('button', { name: 'Turn On' }));
      expect(await scope().findByRole('button', { name: 'Turning on...' })).toBeDisabled();
      await act(async () => answer.release());
      await expectFocus(scope().findByRole('heading', { level: 3, name: 'Your Recovery Codes' }));
      expect(server.to('POST', '/api/gatehouse/totp/enable')[0]?.body).toEqual({ code: '123456' });
      const list = scope().getByRole('list', { name: 'Recovery codes' });
      expect(
        within(list)
          .getAllByRole('listitem')
          .map((li) => li.textContent),
      ).toEqual(codes);

      await user.click(scope().getByRole('button', { name: 'Copy' }));
      await findAnnounced('Recovery codes copied.', 'status');
      expect(await navigator.clipboard.readText()).toBe(`${codes.join('\n')}\n`);

      let saved: { name: string; blob: Blob } | undefined;
      let blob: Blob | undefined;
      vi.stubGlobal(
        'URL',
        Object.assign(URL, {
          createObjectURL: (b: Blob) => {
            blob = b;
            return 'blob:codes';
          },
          revokeObjectURL: () => undefined,
        }),
      );
      vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
        this: HTMLAnchorElement,
      ) {
        if (blob) saved = { name: this.download, blob };
      });
      await user.click(scope().getByRole('button', { name: 'Download' }));
      expect(saved?.name).toBe('gatehouse-recovery-codes.txt');
      expect(await saved?.blob.text()).toBe(`${codes.join('\n')}\n`);

      await user.click(scope().getByRole('button', { name: 'Done' }));
      const state = (await scope().findByText('Two-step sign-in is on.')).closest('p');
      await waitFor(() => expect(state).toHaveFocus());
      expect(scope().queryByRole('list', { name: 'Recovery codes' })).toBeNull();
      expect(scope().getByRole('button', { name: 'New Recovery Codes' })).toBeEnabled();
      expect(scope().getByRole('button', { name: 'Turn Off' })).toBeEnabled();
    });

    it('Turn On: a wrong code says Invalid code. Please try again.; none asks first', async () => {
      const { user, server } = await toSetup({
        [ENABLE]: () =>
          pbError(400, 'An error occurred while validating the submitted data.', {
            code: { code: 'validation_invalid_code', message: 'Invalid or expired code.' },
          }),
      });
      await user.click(scope().getByRole('button', { name: 'Turn On' }));
      await findAnnounced('Please enter your authentication code.');
      await expectFocus(scope().getByLabelText('Authentication Code'));
      expect(server.to('POST', '/api/gatehouse/totp/enable')).toHaveLength(0);
      await user.type(scope().getByLabelText('Authentication Code'), '000000');
      await user.click(scope().getByRole('button', { name: 'Turn On' }));
      await findAnnounced('Invalid code. Please try again.');
      expect(scope().getByRole('button', { name: 'Turn On' })).toBeEnabled();
    });

    it('Turn On: locked for 15 minutes on 429; Cancel goes back', async () => {
      const { user } = await toSetup({ [ENABLE]: () => pbError(429, 'Too Many Requests.') });
      await user.type(scope().getByLabelText('Authentication Code'), '000000');
      await user.click(scope().getByRole('button', { name: 'Turn On' }));
      await findAnnounced(
        'Too many wrong codes. Two-step sign-in is locked for 15 minutes. Please try again later.',
      );
      await user.click(scope().getByRole('button', { name: 'Cancel' }));
      expect(await scope().findByText('Two-step sign-in is off.')).toBeInTheDocument();
      expect(scope().getByRole('button', { name: 'Set Up Authenticator App' })).toBeEnabled();
    });

    it('on: shows the recovery codes left, New Recovery Codes and Turn Off', async () => {
      await openSettings({ [TOTP]: on(7) });
      expect(await scope().findByText('You have 7 recovery codes left.')).toBeInTheDocument();
      expect(scope().getByRole('button', { name: 'New Recovery Codes' })).toBeEnabled();
      expect(scope().getByRole('button', { name: 'Turn Off' })).toBeEnabled();
      expect(scope().queryByRole('button', { name: 'Set Up Authenticator App' })).toBeNull();
    });

    it('New Recovery Codes asks for the password (Creating...), then shows the new codes', async () => {
      const answer = held(() => json(200, { recoveryCodes: codes }));
      const { user, server } = await openSettings({ [TOTP]: on(2), [RENEW]: answer.handler });
      await user.click(await scope().findByRole('button', { name: 'New Recovery Codes' }));
      await expectFocus(scope().findByRole('heading', { level: 3, name: 'New Recovery Codes' }));
      await user.click(scope().getByRole('button', { name: 'New Recovery Codes' }));
      await findAnnounced('Please enter your password.');
      await user.type(scope().getByLabelText('Password'), 'pw-1234567');
      await user.click(scope().getByRole('button', { name: 'New Recovery Codes' }));
      expect(await scope().findByRole('button', { name: 'Creating...' })).toBeDisabled();
      await act(async () => answer.release());
      await expectFocus(scope().findByRole('heading', { level: 3, name: 'Your Recovery Codes' }));
      expect(server.to('POST', '/api/gatehouse/recovery-codes')[0]?.body).toEqual({
        password: 'pw-1234567',
      });
    });

    it('a wrong password is said, for New Recovery Codes and Turn Off', async () => {
      const { user, server } = await openSettings({
        [TOTP]: on(),
        [RENEW]: wrongPassword,
        [DISABLE]: wrongPassword,
      });
      await user.click(await scope().findByRole('button', { name: 'New Recovery Codes' }));
      await user.type(scope().getByLabelText('Password'), 'wrong');
      await user.click(scope().getByRole('button', { name: 'New Recovery Codes' }));
      await findAnnounced('Incorrect password. Please try again.');
      await user.click(scope().getByRole('button', { name: 'Cancel' }));
      await user.click(await scope().findByRole('button', { name: 'Turn Off' }));
      await expectFocus(
        scope().findByRole('heading', { level: 3, name: 'Turn Off Two-Step Sign-In' }),
      );
      await user.type(scope().getByLabelText('Password'), 'wrong');
      await user.click(scope().getByRole('button', { name: 'Turn Off' }));
      await findAnnounced('Incorrect password. Please try again.');
      expect(server.to('POST', '/api/gatehouse/totp/disable')).toHaveLength(1);
    });

    it('Turn Off asks for the password (Turning off...), then says it is off', async () => {
      let enabled = true;
      const answer = held(() => {
        enabled = false;
        return noContent();
      });
      const { user, server } = await openSettings({
        [TOTP]: () => json(200, { enabled, recoveryCodesLeft: enabled ? 10 : 0 }),
        [DISABLE]: answer.handler,
      });
      await user.click(await scope().findByRole('button', { name: 'Turn Off' }));
      await user.type(scope().getByLabelText('Password'), 'pw-1234567');
      await user.click(scope().getByRole('button', { name: 'Turn Off' }));
      expect(await scope().findByRole('button', { name: 'Turning off...' })).toBeDisabled();
      await act(async () => answer.release());
      await findAnnounced('Two-step sign-in is off.', 'status');
      expect(
        await scope().findByRole('button', { name: 'Set Up Authenticator App' }),
      ).toBeEnabled();
      expect(server.to('POST', '/api/gatehouse/totp/disable')[0]?.body).toEqual({
        password: 'pw-1234567',
      });
    });
  });

  describe('Email', () => {
    const REQUEST = 'POST /api/collections/users/request-email-change';

    it('shows the current email, the New Email field and Send Confirmation Link', async () => {
      await openSettings();
      const scope = within(card('Email'));
      expect(scope.getByText('alice@example.com')).toBeInTheDocument();
      expect(scope.getByLabelText('New Email')).toHaveAttribute('type', 'email');
      expect(scope.getByRole('button', { name: 'Send Confirmation Link' })).toBeEnabled();
    });

    it('sends the link (Sending...), then says where to look', async () => {
      const answer = held(() => noContent());
      const { user, server } = await openSettings({ [REQUEST]: answer.handler });
      const scope = within(card('Email'));
      await user.type(scope.getByLabelText('New Email'), ' alice.new@example.com ');
      await user.click(scope.getByRole('button', { name: 'Send Confirmation Link' }));
      expect(await scope.findByRole('button', { name: 'Sending...' })).toBeDisabled();
      await act(async () => answer.release());
      await findAnnounced('Check alice.new@example.com for a confirmation link.', 'status');
      expect(server.to('POST', '/api/collections/users/request-email-change')[0]?.body).toEqual({
        newEmail: 'alice.new@example.com',
      });
      expect(scope.getByLabelText('New Email')).toHaveValue('');
    });

    it('checks the address first: blank, invalid, the current one', async () => {
      const { user, server } = await openSettings();
      const scope = within(card('Email'));
      const send = scope.getByRole('button', { name: 'Send Confirmation Link' });
      await user.click(send);
      await findAnnounced('Please enter your new email address.');
      await user.type(scope.getByLabelText('New Email'), 'not-an-email');
      await user.click(send);
      await findAnnounced('Please enter a valid email address.');
      await user.clear(scope.getByLabelText('New Email'));
      await user.type(scope.getByLabelText('New Email'), 'Alice@Example.com');
      await user.click(send);
      await findAnnounced('This is already your email address.');
      await expectFocus(scope.getByLabelText('New Email'));
      expect(server.to('POST', '/api/collections/users/request-email-change')).toHaveLength(0);
    });

    it('says what the server found wrong with the field, or with the request', async () => {
      let answer = pbError(400, 'An error occurred while validating the submitted data.', {
        newEmail: { code: 'validation_is_email', message: 'Must be a valid email address.' },
      });
      const { user } = await openSettings({ [REQUEST]: () => answer });
      const scope = within(card('Email'));
      await user.type(scope.getByLabelText('New Email'), 'bob@example.com');
      await user.click(scope.getByRole('button', { name: 'Send Confirmation Link' }));
      await findAnnounced('Enter a valid email address, such as name@example.com.');
      answer = pbError(429, 'Too Many Requests.');
      await user.click(scope.getByRole('button', { name: 'Send Confirmation Link' }));
      await findAnnounced('Too many attempts. Please wait a moment and try again.');
    });
  });

  describe('Signed-In Devices', () => {
    it('lists each device: browser and system, IP, signed in, last active; This device has no Sign Out', async () => {
      await openSettings();
      const devices = await screen.findByRole('list', { name: 'Your signed-in devices' });
      const rows = within(devices).getAllByRole('listitem');
      expect(rows).toHaveLength(3);
      const [here, phone, office] = rows as [HTMLElement, HTMLElement, HTMLElement];
      expect(within(here).getByText('Firefox on Linux')).toBeInTheDocument();
      expect(within(here).getByText('This device')).toBeInTheDocument();
      expect(within(here).getByText('203.0.113.7')).toBeInTheDocument();
      expect(within(here).getByText('Signed in')).toBeInTheDocument();
      expect(within(here).getByText('Last active')).toBeInTheDocument();
      expect(within(here).queryByRole('button', { name: 'Sign Out' })).not.toBeInTheDocument();
      expect(within(phone).getByText('Safari on iOS')).toBeInTheDocument();
      expect(within(phone).getByText('198.51.100.23')).toBeInTheDocument();
      expect(within(phone).queryByText('This device')).not.toBeInTheDocument();
      expect(within(phone).getByRole('button', { name: 'Sign Out' })).toHaveAccessibleDescription(
        'Safari on iOS',
      );
      expect(within(office).getByText('Chrome on Windows')).toBeInTheDocument();
      expect(
        within(card('Signed-In Devices')).getByRole('button', {
          name: 'Sign Out All Other Devices',
        }),
      ).toBeEnabled();
    });

    it('Sign Out ends that session (Signing out...) and the list is asked again', async () => {
      let devices = sessions;
      const answer = held(() => noContent());
      const { user, server } = await openSettings({
        'GET /api/gatehouse/sessions': () => json(200, { items: devices }),
        'DELETE /api/gatehouse/sessions/sess-phone': answer.handler,
      });
      const devicesList = await screen.findByRole('list', { name: 'Your signed-in devices' });
      const phone = within(devicesList).getByText('Safari on iOS').closest('li') as HTMLElement;
      await user.click(within(phone).getByRole('button', { name: 'Sign Out' }));
      expect(await within(phone).findByRole('button', { name: 'Signing out...' })).toBeDisabled();
      devices = sessions.filter((s) => s.id !== 'sess-phone');
      await act(async () => answer.release());
      await findAnnounced('Safari on iOS has been signed out.', 'status');
      await waitFor(() => expect(screen.queryByText('Safari on iOS')).not.toBeInTheDocument());
      expect(server.to('DELETE', '/api/gatehouse/sessions/sess-phone')).toHaveLength(1);
      expect(server.to('GET', '/api/gatehouse/security-events').length).toBeGreaterThanOrEqual(2);
    });

    it('Sign Out All Other Devices ends the others; then only This device is left', async () => {
      let devices = sessions;
      const { user, server } = await openSettings({
        'GET /api/gatehouse/sessions': () => json(200, { items: devices }),
        'DELETE /api/gatehouse/sessions': () => {
          devices = sessions.filter((s) => s.current);
          return noContent();
        },
      });
      await screen.findByText('Safari on iOS');
      await user.click(screen.getByRole('button', { name: 'Sign Out All Other Devices' }));
      await findAnnounced('All other devices have been signed out.', 'status');
      await waitFor(() =>
        expect(screen.queryByRole('button', { name: 'Sign Out' })).not.toBeInTheDocument(),
      );
      expect(screen.getByText('No other device is signed in.')).toBeInTheDocument();
      expect(
        screen.queryByRole('button', { name: 'Sign Out All Other Devices' }),
      ).not.toBeInTheDocument();
      expect(server.to('DELETE', '/api/gatehouse/sessions')).toHaveLength(1);
    });

    it('says why when a sign-out fails', async () => {
      const { user } = await openSettings({
        'DELETE /api/gatehouse/sessions/sess-office': () =>
          pbError(404, "The requested resource wasn't found."),
      });
      const office = (await screen.findByText('Chrome on Windows')).closest('li') as HTMLElement;
      await user.click(within(office).getByRole('button', { name: 'Sign Out' }));
      await findAnnounced("This doesn't exist, or it was removed.");
      expect(within(office).getByRole('button', { name: 'Sign Out' })).toBeEnabled();
    });

    it('says when the list cannot be loaded', async () => {
      await openSettings({
        'GET /api/gatehouse/sessions': () => new Response('', { status: 500 }),
      });
      await findAnnounced("We couldn't load your devices. Please try again later.");
    });

    it('shows Loading devices... while the list loads', async () => {
      const answer = held(() => json(200, { items: sessions }));
      await openSettings({ 'GET /api/gatehouse/sessions': answer.handler });
      expect(screen.getByText('Loading devices...')).toBeInTheDocument();
      await act(async () => answer.release());
      expect(await screen.findByText('Safari on iOS')).toBeInTheDocument();
    });
  });

  describe('Recent Activity', () => {
    it('asks for the last 20 events and says each in plain words', async () => {
      const { server } = await openSettings();
      const activity = await screen.findByRole('list', { name: 'Your recent activity' });
      const texts = within(activity)
        .getAllByRole('listitem')
        .map((li) => li.firstElementChild?.textContent);
      expect(texts).toEqual([
        'Signed in from Firefox on Linux, 203.0.113.7',
        'Failed sign-in attempt from Chrome on Windows, 198.51.100.9',
        'Password changed',
        'Failed email change: wrong password',
        'Email changed',
        'Signed out',
        'Signed out another device',
        'Signed out all other devices',
      ]);
      expect(server.to('GET', '/api/gatehouse/security-events')).not.toHaveLength(0);
      const url = vi
        .mocked(fetch)
        .mock.calls.find(([input]) =>
          String(input).includes('/api/gatehouse/security-events'),
        )?.[0];
      expect(new URL(String(url), 'http://localhost').searchParams.get('perPage')).toBe('20');
    });

    it('says when there is no activity', async () => {
      await openSettings({ 'GET /api/gatehouse/security-events': () => list([]) });
      expect(await screen.findByText('No recent activity.')).toBeInTheDocument();
    });

    it('says when the activity cannot be loaded', async () => {
      await openSettings({
        'GET /api/gatehouse/security-events': () => new Response('', { status: 500 }),
      });
      await findAnnounced("We couldn't load your recent activity. Please try again later.");
    });
  });

  describe('Your Data', () => {
    let saved: { name: string; blob: Blob }[];
    beforeEach(() => {
      saved = [];
      let blob: Blob | undefined;
      vi.stubGlobal(
        'URL',
        Object.assign(URL, {
          createObjectURL: (b: Blob) => {
            blob = b;
            return 'blob:export';
          },
          revokeObjectURL: () => undefined,
        }),
      );
      vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
        this: HTMLAnchorElement,
      ) {
        if (blob) saved.push({ name: this.download, blob });
      });
    });

    it('Download My Data fetches the export with the token and saves gatehouse-export-{id}.json', async () => {
      const exported = { exported: '2026-11-23T10:00:00.000Z', record: alice, inviteCodes: [] };
      const answer = held(() => json(200, exported));
      const { user, server, token } = await openSettings({
        'GET /api/gatehouse/export': answer.handler,
      });
      await user.click(screen.getByRole('button', { name: 'Download My Data' }));
      expect(await screen.findByRole('button', { name: 'Preparing...' })).toBeDisabled();
      await act(async () => answer.release());
      await waitFor(() => expect(saved).toHaveLength(1));
      expect(saved[0]?.name).toBe(`gatehouse-export-${alice.id}.json`);
      expect(JSON.parse(await saved[0]!.blob.text())).toEqual(exported);
      expect(server.to('GET', '/api/gatehouse/export')[0]?.headers.get('Authorization')).toBe(
        token,
      );
      expect(screen.getByRole('button', { name: 'Download My Data' })).toBeEnabled();
    });

    it('says so when the download fails', async () => {
      const { user } = await openSettings({
        'GET /api/gatehouse/export': () =>
          pbError(500, 'Something went wrong while processing your request.'),
      });
      await user.click(screen.getByRole('button', { name: 'Download My Data' }));
      await findAnnounced('Something went wrong. Please try again.');
      expect(saved).toHaveLength(0);
    });
  });

  describe('a session ended elsewhere', () => {
    it('a 401 on the next request ends the local session and shows the login screen', async () => {
      const { user, router } = await openSettings({
        'DELETE /api/gatehouse/sessions/sess-phone': () =>
          pbError(401, 'The request requires valid record authorization token.'),
      });
      const phone = (await screen.findByText('Safari on iOS')).closest('li') as HTMLElement;
      await user.click(within(phone).getByRole('button', { name: 'Sign Out' }));
      expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
      expect(router.state.location.pathname).toBe('/');
      expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    });

    it('on opening Settings, the first refused list ends it', async () => {
      signedIn({
        'GET /api/gatehouse/sessions': () =>
          pbError(401, 'The request requires valid record authorization token.'),
      });
      const { router } = renderApp('/settings');
      expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
      expect(router.state.location.pathname).toBe('/');
      expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    });
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});
