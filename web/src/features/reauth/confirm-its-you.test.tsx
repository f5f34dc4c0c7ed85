import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAuth } from '../../lib/auth';
import {
  changelogOk,
  fakeServer,
  json,
  makeUser,
  noContent,
  pbError,
  storeSession,
  type FakeRequest,
  type Handler,
} from '../../test/fake-server';
import { expectFocus, findAnnounced, renderApp } from '../../test/render-app';

/**
 * "Confirm it's you": whatever action the server refuses with 403 `Confirm it's you to
 * continue.` opens the dialog; once the member confirmed, the action is sent again by itself.
 * The whole app runs against a fake server at the HTTP boundary (test/fake-server.ts).
 */

const alice = makeUser({ id: 'a1b2c3d4e5f6g7h', email: 'alice@example.com' });
const confirmFirst = () => pbError(403, "Confirm it's you to continue.");
const REAUTH = 'POST /api/gatehouse/reauth';
const STATUS = 'GET /api/gatehouse/reauth';
const END_OTHERS = 'DELETE /api/gatehouse/sessions';
const EXPORT = 'GET /api/gatehouse/export';
const RAW_PASSWORD_MESSAGE = 'Missing or invalid auth record password.';

const devices = [
  {
    id: 'here',
    created: '2026-11-23 09:00:00.000Z',
    lastSeen: '2026-11-23 10:15:00.000Z',
    ip: '203.0.113.7',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
    current: true,
  },
  {
    id: 'phone',
    created: '2026-11-20 08:00:00.000Z',
    lastSeen: '2026-11-22 18:30:00.000Z',
    ip: '198.51.100.23',
    userAgent:
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    current: false,
  },
];

/**
 * A server whose session is stale until a right proof (`right`) comes: until then every
 * sensitive action in `sensitive` answers the 403, afterwards the action's own answer.
 */
function staleServer(options: {
  methods: string[];
  right?: Record<string, unknown>;
  sensitive: Record<string, Handler>;
  routes?: Record<string, Handler>;
  /** The answer to a proof; `confirm()` makes the session fresh. */
  proof?: (req: FakeRequest, confirm: () => void) => Response;
}) {
  let fresh = false;
  const token = storeSession(alice);
  const guarded = Object.fromEntries(
    Object.entries(options.sensitive).map(([route, handler]) => [
      route,
      ((req) => (fresh ? handler(req) : confirmFirst())) as Handler,
    ]),
  );
  const server = fakeServer({
    'POST /api/collections/users/auth-refresh': () => json(200, { token, record: alice }),
    'GET /changelog.json': changelogOk(),
    'GET /api/invite-codes': () => json(200, { codes: [] }),
    'GET /api/gatehouse/sessions': () => json(200, { items: devices }),
    'GET /api/gatehouse/security-events': () => json(200, { items: [] }),
    'GET /api/gatehouse/totp': () => json(200, { enabled: false, recoveryCodesLeft: 0 }),
    'GET /api/gatehouse/passkeys': () => json(200, { items: [] }),
    [STATUS]: () =>
      json(200, { fresh, freshUntil: '2026-11-25 09:10:00.000Z', methods: options.methods }),
    [REAUTH]: (req) => {
      if (options.proof) return options.proof(req, () => (fresh = true));
      {
        const body = req.body as Record<string, unknown>;
        const [field, value] = Object.entries(body)[0] ?? [];
        if (field && options.right && options.right[field] === value) {
          fresh = true;
          return json(200, { fresh: true, freshUntil: '2026-11-25 10:10:00.000Z' });
        }
        const code = field === 'code' ? 'validation_invalid_code' : 'validation_invalid_password';
        return pbError(400, 'Failed to authenticate.', {
          [field ?? 'password']: { code, message: RAW_PASSWORD_MESSAGE },
        });
      }
    },
    ...guarded,
    ...options.routes,
  });
  return { server, confirmNow: () => (fresh = true) };
}

async function openSettings() {
  const view = renderApp('/settings');
  await screen.findByRole('heading', { level: 1, name: 'Settings' });
  return view;
}

function dialog() {
  return screen.findByRole('dialog', { name: "Confirm it's you" });
}

/** Cancel's note: announced politely, in neither the alert region nor the error's red. */
async function findQuietNote() {
  const note = await findAnnounced('Cancelled. Nothing was changed.', 'status');
  expect(note.closest('[role="alert"]')).toBeNull();
  expect(note.className).not.toMatch(/red/);
  return note;
}

// Each test renders the whole app; a busy machine needs more than the default 5 s.
const SLOW = { timeout: 30_000 };

describe("Confirm it's you", SLOW, () => {
  it('opens on the 403; the password confirms, and the action is sent again and done', async () => {
    const { server } = staleServer({
      methods: ['password'],
      right: { password: 'correct horse' },
      sensitive: { [END_OTHERS]: () => noContent() },
    });
    const { user } = await openSettings();
    await screen.findByText('Safari on iOS');
    await user.click(screen.getByRole('button', { name: 'Sign Out All Other Devices' }));

    const box = await dialog();
    const password = await within(box).findByLabelText('Password');
    expect(box).toHaveAccessibleDescription(
      "For your security, enter your password to continue. You won't be asked again for a few minutes.",
    );
    expect(password).toHaveAttribute('type', 'password');
    expect(password).toHaveAttribute('autocomplete', 'current-password');
    await waitFor(() => expect(password).toHaveFocus());
    // Only the proofs this member has.
    expect(within(box).queryByRole('button', { name: 'Use a passkey' })).toBeNull();
    expect(within(box).queryByText(/authenticator app/)).toBeNull();

    await user.type(password, 'correct horse');
    await user.click(within(box).getByRole('button', { name: 'Confirm' }));

    await findAnnounced('All other devices have been signed out.', 'status');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(server.to('POST', '/api/gatehouse/reauth').map((r) => r.body)).toEqual([
      { password: 'correct horse' },
    ]);
    // Refused once, then sent again after the confirmation.
    expect(server.to('DELETE', '/api/gatehouse/sessions')).toHaveLength(2);
  });

  it('a wrong password is said in plain words under the field; too many tries, for the dialog', async () => {
    let tries = 0;
    const { server } = staleServer({
      methods: ['password'],
      sensitive: { [END_OTHERS]: () => noContent() },
      proof: () =>
        ++tries < 2
          ? pbError(400, 'Failed to authenticate.', {
              password: { code: 'validation_invalid_password', message: RAW_PASSWORD_MESSAGE },
            })
          : pbError(429, 'Too many requests.'),
    });
    const { user } = await openSettings();
    await user.click(await screen.findByRole('button', { name: 'Sign Out All Other Devices' }));
    const box = await dialog();
    const password = await within(box).findByLabelText('Password');

    // Nothing typed: nothing is sent.
    await user.click(within(box).getByRole('button', { name: 'Confirm' }));
    await findAnnounced('Enter your password.');
    expect(server.to('POST', '/api/gatehouse/reauth')).toHaveLength(0);

    await user.type(password, 'wrong one');
    await user.click(within(box).getByRole('button', { name: 'Confirm' }));
    await findAnnounced("That password isn't right.");
    expect(password).toHaveAccessibleDescription("That password isn't right.");
    await expectFocus(password);
    expect(screen.queryByText(RAW_PASSWORD_MESSAGE)).toBeNull();

    await user.click(within(box).getByRole('button', { name: 'Confirm' }));
    await findAnnounced('Too many tries. Wait a few minutes and try again.');
    expect(screen.getByRole('dialog', { name: "Confirm it's you" })).toBeInTheDocument();
    // The action was not sent again.
    expect(server.to('DELETE', '/api/gatehouse/sessions')).toHaveLength(1);
  });

  it('Cancel closes it and changes nothing: a quiet note, no error', async () => {
    const { server } = staleServer({
      methods: ['password'],
      sensitive: { [END_OTHERS]: () => noContent() },
    });
    const { user } = await openSettings();
    const endOthers = await screen.findByRole('button', { name: 'Sign Out All Other Devices' });
    await user.click(endOthers);
    const box = await dialog();
    await within(box).findByLabelText('Password');
    await user.click(within(box).getByRole('button', { name: 'Cancel' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await findQuietNote();
    expect(screen.queryByText("Confirm it's you to continue.")).toBeNull();
    expect(screen.queryByText(/Failed to sign out/)).toBeNull();
    expect(server.to('DELETE', '/api/gatehouse/sessions')).toHaveLength(1);
    expect(server.to('POST', '/api/gatehouse/reauth')).toHaveLength(0);
    // Focus is back on the button that asked, and it works again.
    await waitFor(() => expect(endOthers).toHaveFocus());
    expect(endOthers).toBeEnabled();

    // Escape cancels too.
    await user.click(endOthers);
    await dialog();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(server.to('DELETE', '/api/gatehouse/sessions')).toHaveLength(2);
  });

  it('Cancel of a form: its note is quiet too, and the form works again', async () => {
    const { server } = staleServer({
      methods: ['password'],
      right: { password: 'correct horse' },
      sensitive: { 'POST /api/collections/users/request-email-change': () => noContent() },
    });
    const { user } = await openSettings();
    const email = screen.getByRole('form', { name: 'Change your email' });
    await user.type(within(email).getByLabelText('New Email'), 'alice@new.example');
    await user.click(within(email).getByRole('button', { name: 'Send Confirmation Link' }));
    const box = await dialog();
    await within(box).findByLabelText('Password');
    await user.click(within(box).getByRole('button', { name: 'Cancel' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await findQuietNote();
    expect(screen.queryByText(/Failed to send/)).toBeNull();
    expect(server.to('POST', '/api/collections/users/request-email-change')).toHaveLength(1);

    await user.click(within(email).getByRole('button', { name: 'Send Confirmation Link' }));
    const again = await dialog();
    await user.type(await within(again).findByLabelText('Password'), 'correct horse');
    await user.click(within(again).getByRole('button', { name: 'Confirm' }));
    await findAnnounced('Check alice@new.example for a confirmation link.', 'status');
    expect(screen.queryByText('Cancelled. Nothing was changed.')).toBeNull();
  });

  describe('Download My Data', () => {
    let saved: string[];
    beforeEach(() => {
      saved = [];
      vi.stubGlobal(
        'URL',
        Object.assign(URL, {
          createObjectURL: () => 'blob:export',
          revokeObjectURL: () => undefined,
        }),
      );
      vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
        this: HTMLAnchorElement,
      ) {
        saved.push(this.download);
      });
    });

    it('a code from the authenticator app or a recovery code confirms; the download goes on', async () => {
      const { server } = staleServer({
        methods: ['password', 'code'],
        right: { code: '123456' },
        sensitive: { [EXPORT]: () => json(200, { record: alice }) },
      });
      const { user } = await openSettings();
      await user.click(screen.getByRole('button', { name: 'Download My Data' }));
      const box = await dialog();
      await within(box).findByLabelText('Password');
      await user.click(
        within(box).getByRole('button', {
          name: 'Use a code from your authenticator app or a recovery code',
        }),
      );
      const code = within(box).getByLabelText('Authentication Code');
      expect(code).toHaveAttribute('autocomplete', 'one-time-code');
      await waitFor(() => expect(code).toHaveFocus());
      expect(within(box).queryByLabelText('Password')).toBeNull();
      expect(box).toHaveAccessibleDescription(
        "For your security, enter a code from your authenticator app or a recovery code to continue. You won't be asked again for a few minutes.",
      );

      await user.type(code, '000000');
      await user.click(within(box).getByRole('button', { name: 'Confirm' }));
      await findAnnounced("That code isn't right or has expired.");

      await user.clear(code);
      await user.type(code, ' 123456 ');
      await user.click(within(box).getByRole('button', { name: 'Confirm' }));
      await waitFor(() => expect(saved).toEqual([`gatehouse-export-${alice.id}.json`]));
      expect(screen.queryByRole('dialog')).toBeNull();
      expect(server.to('POST', '/api/gatehouse/reauth').map((r) => r.body)).toEqual([
        { code: '000000' },
        { code: '123456' },
      ]);
      expect(server.to('GET', '/api/gatehouse/export')).toHaveLength(2);
    });
  });

  describe('a member whose only way in is a provider', () => {
    afterEach(() => {
      document.head.querySelectorAll('meta[name="sign-in-providers"]').forEach((m) => m.remove());
    });

    it('sees Continue with {Provider}, which signs in with it again and lets the action go on', async () => {
      const { server, confirmNow } = staleServer({
        methods: [],
        sensitive: { [END_OTHERS]: () => noContent() },
        routes: {
          'GET /api/gatehouse/providers': () =>
            json(200, {
              passwordSet: false,
              items: [
                {
                  name: 'oidc',
                  displayName: 'Acme ID',
                  created: '2026-11-20 08:00:00.000Z',
                  canDisconnect: false,
                },
              ],
            }),
        },
      });
      // The provider's popup is the SDK's (e2e/providers.spec.ts walks it); here its end is
      // what the server does with it: the session is confirmed.
      const real = createAuth();
      const confirmWithProvider = vi.fn(async () => {
        confirmNow();
      });
      const { user } = renderApp('/settings', { auth: { ...real, confirmWithProvider } });
      await user.click(await screen.findByRole('button', { name: 'Sign Out All Other Devices' }));
      const box = await dialog();
      const go = await within(box).findByRole('button', { name: 'Continue with Acme ID' });
      expect(box).toHaveAccessibleDescription(
        "For your security, sign in with Acme ID again to continue. You won't be asked again for a few minutes.",
      );
      expect(within(box).queryByLabelText('Password')).toBeNull();
      await user.click(go);
      await findAnnounced('All other devices have been signed out.', 'status');
      expect(confirmWithProvider).toHaveBeenCalledWith('oidc');
      expect(screen.queryByRole('dialog')).toBeNull();
      expect(server.to('DELETE', '/api/gatehouse/sessions')).toHaveLength(2);
    });
  });

  describe('a member with a passkey', () => {
    const bytes = (text: string) => new TextEncoder().encode(text).buffer;
    const b64url = (text: string) =>
      btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const requestOptions = {
      challenge: b64url('challenge-1'),
      rpId: 'localhost',
      allowCredentials: [{ id: b64url('cred-1'), type: 'public-key' }],
      userVerification: 'required',
      timeout: 300000,
    };
    let get: ReturnType<typeof vi.fn>;

    /** The browser's WebAuthn at its boundary: `get` answers the prompt. */
    beforeEach(() => {
      vi.stubGlobal(
        'PublicKeyCredential',
        Object.assign(function PublicKeyCredential() {}, {
          isConditionalMediationAvailable: () => Promise.resolve(false),
        }),
      );
      get = vi.fn();
      Object.defineProperty(navigator, 'credentials', {
        configurable: true,
        value: { get, create: vi.fn() },
      });
    });
    afterEach(() => {
      Reflect.deleteProperty(navigator, 'credentials');
    });

    it('Use a passkey confirms with it; a closed prompt is said calmly', async () => {
      get
        .mockRejectedValueOnce(new DOMException('Not allowed.', 'NotAllowedError'))
        .mockResolvedValueOnce({
          id: b64url('cred-1'),
          rawId: bytes('cred-1'),
          type: 'public-key',
          authenticatorAttachment: 'platform',
          getClientExtensionResults: () => ({}),
          response: {
            authenticatorData: bytes('auth-data'),
            clientDataJSON: bytes('{"type":"webauthn.get"}'),
            signature: bytes('signature'),
            userHandle: bytes('user-1'),
          },
        });
      const { server } = staleServer({
        methods: ['password', 'response'],
        sensitive: { [END_OTHERS]: () => noContent() },
        routes: {
          'POST /api/gatehouse/reauth/passkey-options': () => json(200, requestOptions),
        },
        proof: (req, confirm) => {
          const id = (req.body as { response?: { id?: string } }).response?.id;
          if (id !== b64url('cred-1')) return pbError(400, 'Failed to authenticate.');
          confirm();
          return json(200, { fresh: true, freshUntil: '2026-11-25 10:10:00.000Z' });
        },
      });
      const { user } = await openSettings();
      await user.click(await screen.findByRole('button', { name: 'Sign Out All Other Devices' }));
      const box = await dialog();
      const usePasskey = await within(box).findByRole('button', { name: 'Use a passkey' });
      // The password is offered too, first.
      expect(within(box).getByLabelText('Password')).toBeInTheDocument();

      await user.click(usePasskey);
      await findAnnounced('No passkey was used. You can try again.', 'status');
      expect(server.to('POST', '/api/gatehouse/reauth')).toHaveLength(0);

      await user.click(usePasskey);
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
      expect(get.mock.calls[1]?.[0]?.publicKey?.rpId).toBe('localhost');
      expect(server.to('POST', '/api/gatehouse/reauth')[0]?.body).toMatchObject({
        response: { id: b64url('cred-1'), type: 'public-key' },
      });
      expect(server.to('DELETE', '/api/gatehouse/sessions')).toHaveLength(2);
    });
  });

  it('two actions refused at once ask once, and both go on', async () => {
    const { server } = staleServer({
      methods: ['password'],
      right: { password: 'correct horse' },
      sensitive: {
        [END_OTHERS]: () => noContent(),
        'POST /api/collections/users/request-email-change': () => noContent(),
      },
    });
    const { user } = await openSettings();
    await user.click(await screen.findByRole('button', { name: 'Sign Out All Other Devices' }));
    await within(await dialog()).findByLabelText('Password');
    const email = screen.getByRole('form', { name: 'Change your email' });
    // The page behind is inert in a browser; here the form is reached directly.
    await user.type(within(email).getByLabelText('New Email'), 'alice@new.example');
    within(email)
      .getByRole('button', { name: 'Send Confirmation Link' })
      .closest('form')
      ?.requestSubmit();
    await waitFor(() =>
      expect(server.to('POST', '/api/collections/users/request-email-change')).toHaveLength(1),
    );
    expect(screen.getAllByRole('dialog')).toHaveLength(1);
    const box = screen.getByRole('dialog', { name: "Confirm it's you" });
    await user.type(within(box).getByLabelText('Password'), 'correct horse');
    await user.click(within(box).getByRole('button', { name: 'Confirm' }));
    await findAnnounced('All other devices have been signed out.', 'status');
    await findAnnounced('Check alice@new.example for a confirmation link.', 'status');
    expect(server.to('POST', '/api/gatehouse/reauth')).toHaveLength(1);
  });
});
