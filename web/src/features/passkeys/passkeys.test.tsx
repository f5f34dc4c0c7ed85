import { screen, waitFor, within } from '@testing-library/react';
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

/**
 * The browser's WebAuthn at its boundary: `PublicKeyCredential` and `navigator.credentials`, whose
 * `create`/`get` the tests answer (a made passkey, a chosen one, or the member closing the prompt).
 * `@simplewebauthn/browser` and the app's code run for real.
 */
const bytes = (text: string) => new TextEncoder().encode(text).buffer;
const b64url = (text: string) =>
  btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

function madePasskey() {
  return {
    id: b64url('cred-1'),
    rawId: bytes('cred-1'),
    type: 'public-key',
    authenticatorAttachment: 'platform',
    getClientExtensionResults: () => ({}),
    response: {
      clientDataJSON: bytes('{"type":"webauthn.create"}'),
      attestationObject: bytes('attestation'),
      getTransports: () => ['internal'],
    },
  };
}

function chosenPasskey() {
  return {
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
  };
}

function closedPrompt() {
  return new DOMException('The operation either timed out or was not allowed.', 'NotAllowedError');
}

type Get = (options: CredentialRequestOptions) => Promise<unknown>;
type Create = (options: CredentialCreationOptions) => Promise<unknown>;

function browserWebAuthn(options: { autofill?: boolean; create?: Create; get?: Get } = {}) {
  const PublicKeyCredential = Object.assign(function PublicKeyCredential() {}, {
    isConditionalMediationAvailable: () => Promise.resolve(options.autofill ?? false),
  });
  vi.stubGlobal('PublicKeyCredential', PublicKeyCredential);
  const create = vi.fn<Create>(options.create ?? (() => Promise.resolve(madePasskey())));
  const get = vi.fn<Get>(options.get ?? (() => Promise.resolve(chosenPasskey())));
  Object.defineProperty(navigator, 'credentials', {
    configurable: true,
    value: { create, get },
  });
  return { create, get };
}

afterEach(() => {
  Reflect.deleteProperty(navigator, 'credentials');
});

const alice = makeUser({ id: 'a1b2c3d4e5f6g7h', email: 'alice@example.com' });

const workLaptop = {
  id: 'pk1',
  name: 'Work laptop',
  created: '2026-11-20 08:00:00.000Z',
  lastUsed: '2026-11-22 18:30:00.000Z',
};
const phone = { id: 'pk2', name: 'Phone', created: '2026-11-21 09:00:00.000Z', lastUsed: null };

const OPTIONS = 'POST /api/gatehouse/passkeys/options';
const ADD = 'POST /api/gatehouse/passkeys';
const LIST = 'GET /api/gatehouse/passkeys';

const creationOptions = {
  rp: { name: 'Gatehouse', id: 'localhost' },
  user: { id: b64url(alice.id), name: alice.email, displayName: alice.email },
  challenge: b64url('challenge-1'),
  pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
  timeout: 300000,
  attestation: 'none',
  authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  excludeCredentials: [],
};

function held(answer: () => Response) {
  let release!: () => void;
  const handler: Handler = () =>
    new Promise<Response>((resolve) => {
      release = () => resolve(answer());
    });
  return { handler, release: () => release() };
}

async function openCard(routes: Record<string, Handler>) {
  const token = storeSession(alice);
  const server = fakeServer({
    'POST /api/collections/users/auth-refresh': () => json(200, { token, record: alice }),
    'GET /changelog.json': changelogOk(),
    'GET /api/gatehouse/sessions': () => json(200, { items: [] }),
    'GET /api/gatehouse/security-events': () => json(200, { items: [] }),
    'GET /api/gatehouse/totp': () => json(200, { enabled: false, recoveryCodesLeft: 0 }),
    ...routes,
  });
  const view = renderApp('/settings');
  await screen.findByRole('heading', { level: 1, name: 'Settings' });
  const card = screen.getByRole('region', { name: 'Passkeys' });
  return { ...view, server, card };
}

// Each test renders the whole app; a busy machine needs more than the default 5 s.
const SLOW = { timeout: 30_000 };

describe('Settings → Passkeys', SLOW, () => {
  beforeEach(() => {
    browserWebAuthn();
  });

  it('lists each passkey: name, added, last used (Never before its first sign-in), Rename and Remove', async () => {
    const { card } = await openCard({ [LIST]: () => json(200, { items: [phone, workLaptop] }) });
    const rows = within(
      await within(card).findByRole('list', { name: 'Your passkeys' }),
    ).getAllByRole('listitem');
    expect(rows).toHaveLength(2);
    const [first, second] = rows as [HTMLElement, HTMLElement];
    expect(first).toHaveTextContent('Phone');
    expect(first).toHaveTextContent('AddedNov 21, 2026');
    expect(first).toHaveTextContent('Last usedNever');
    expect(second).toHaveTextContent('Last usedNov 22, 2026');
    // Each row's buttons say which passkey they act on.
    expect(within(first).getByRole('button', { name: 'Rename' })).toHaveAccessibleDescription(
      'Phone',
    );
    expect(within(second).getByRole('button', { name: 'Remove' })).toHaveAccessibleDescription(
      'Work laptop',
    );
    expect(within(card).getByRole('button', { name: 'Add a Passkey' })).toBeEnabled();
  });

  it('says when there is none', async () => {
    const { card } = await openCard({ [LIST]: () => json(200, { items: [] }) });
    expect(await within(card).findByText('You have no passkeys yet.')).toBeInTheDocument();
  });

  it('says when the list cannot be loaded', async () => {
    const { card } = await openCard({ [LIST]: () => pbError(500, 'Something went wrong.') });
    expect(
      await within(card).findByText("We couldn't load your passkeys. Please try again later."),
    ).toHaveAttribute('role', 'alert');
  });

  it('Add a Passkey (Adding...): the options, the browser prompt, then the answer with a name', async () => {
    const added = { id: 'pk3', name: 'x', created: '2026-11-23 10:00:00.000Z', lastUsed: null };
    let items: unknown[] = [];
    const save = held(() => {
      items = [added];
      return json(200, added);
    });
    const webauthn = browserWebAuthn();
    const { card, user, server } = await openCard({
      [LIST]: () => json(200, { items }),
      [OPTIONS]: () => json(200, creationOptions),
      [ADD]: save.handler,
    });
    await within(card).findByText('You have no passkeys yet.');
    await user.click(within(card).getByRole('button', { name: 'Add a Passkey' }));
    expect(await within(card).findByRole('button', { name: 'Adding...' })).toBeDisabled();
    await waitFor(() => expect(server.to('POST', '/api/gatehouse/passkeys')).toHaveLength(1));
    const publicKey = webauthn.create.mock.calls[0]?.[0]?.publicKey;
    expect(publicKey?.rp.id).toBe('localhost');
    const body = server.to('POST', '/api/gatehouse/passkeys')[0]?.body as {
      name: string;
      response: Record<string, unknown>;
    };
    expect(body.name.length).toBeGreaterThan(0);
    expect(body.name.length).toBeLessThanOrEqual(64);
    expect(body.response).toMatchObject({
      id: b64url('cred-1'),
      rawId: b64url('cred-1'),
      type: 'public-key',
      response: { transports: ['internal'] },
    });
    save.release();
    await findAnnounced('Passkey added as "x". You can now sign in with it.', 'status');
    expect(await within(card).findByText('x')).toBeInTheDocument();
  });

  it('a closed browser prompt is said calmly, and nothing is sent', async () => {
    browserWebAuthn({ create: () => Promise.reject(closedPrompt()) });
    const { card, user, server } = await openCard({
      [LIST]: () => json(200, { items: [] }),
      [OPTIONS]: () => json(200, creationOptions),
    });
    await within(card).findByText('You have no passkeys yet.');
    await user.click(within(card).getByRole('button', { name: 'Add a Passkey' }));
    await findAnnounced('No passkey was added. You can try again at any time.', 'status');
    expect(server.to('POST', '/api/gatehouse/passkeys')).toHaveLength(0);
    expect(within(card).getByRole('button', { name: 'Add a Passkey' })).toBeEnabled();
  });

  it('says when the server does not take the new passkey', async () => {
    const { card, user } = await openCard({
      [LIST]: () => json(200, { items: [] }),
      [OPTIONS]: () => json(200, creationOptions),
      [ADD]: () =>
        pbError(400, 'Failed to validate.', {
          response: {
            code: 'validation_invalid_passkey',
            message: 'Invalid or expired passkey response.',
          },
        }),
    });
    await within(card).findByText('You have no passkeys yet.');
    await user.click(within(card).getByRole('button', { name: 'Add a Passkey' }));
    await findAnnounced('The passkey could not be added. Please try again.');
  });

  it('Rename: the name field takes focus, a name is required, Save (Saving...) sends it trimmed', async () => {
    let items = [workLaptop];
    const rename = held(() => {
      items = [{ ...workLaptop, name: 'Home desktop' }];
      return json(200, items[0]);
    });
    const { card, user, server } = await openCard({
      [LIST]: () => json(200, { items }),
      'PATCH /api/gatehouse/passkeys/pk1': rename.handler,
    });
    await user.click(await within(card).findByRole('button', { name: 'Rename' }));
    const field = within(card).getByLabelText('Passkey Name');
    await expectFocus(field);
    expect(field).toHaveValue('Work laptop');
    await user.clear(field);
    await user.click(within(card).getByRole('button', { name: 'Save' }));
    await findAnnounced('Please enter a name.');
    await expectFocus(field);
    expect(server.to('PATCH', '/api/gatehouse/passkeys/pk1')).toHaveLength(0);

    await user.type(field, '  Home desktop  ');
    await user.keyboard('{Enter}');
    expect(await within(card).findByRole('button', { name: 'Saving...' })).toBeDisabled();
    expect(server.to('PATCH', '/api/gatehouse/passkeys/pk1')[0]?.body).toEqual({
      name: 'Home desktop',
    });
    rename.release();
    await findAnnounced('Passkey renamed to "Home desktop".', 'status');
    await expectFocus(within(card).findByRole('button', { name: 'Rename' }));
  });

  it("Rename: the server's word on the name; Cancel goes back without sending", async () => {
    const { card, user } = await openCard({
      [LIST]: () => json(200, { items: [workLaptop] }),
      'PATCH /api/gatehouse/passkeys/pk1': () =>
        pbError(400, 'Failed to validate.', {
          name: { code: 'validation_max_text_constraint', message: 'Must be at most 64.' },
        }),
    });
    await user.click(await within(card).findByRole('button', { name: 'Rename' }));
    await user.click(within(card).getByRole('button', { name: 'Save' }));
    await findAnnounced('Must be at most 64.');
    await user.click(within(card).getByRole('button', { name: 'Cancel' }));
    expect(within(card).queryByLabelText('Passkey Name')).toBeNull();
    await expectFocus(within(card).getByRole('button', { name: 'Rename' }));
  });

  it('Remove asks first (Yes, Remove / Cancel), then removes it (Removing...)', async () => {
    let items = [workLaptop];
    const remove = held(() => {
      items = [];
      return noContent();
    });
    const { card, user, server } = await openCard({
      [LIST]: () => json(200, { items }),
      'DELETE /api/gatehouse/passkeys/pk1': remove.handler,
    });
    await user.click(await within(card).findByRole('button', { name: 'Remove' }));
    await expectFocus(within(card).getByText(/It will no longer sign you in\./));
    await user.click(within(card).getByRole('button', { name: 'Cancel' }));
    expect(server.to('DELETE', '/api/gatehouse/passkeys/pk1')).toHaveLength(0);

    await user.click(within(card).getByRole('button', { name: 'Remove' }));
    await user.click(within(card).getByRole('button', { name: 'Yes, Remove' }));
    expect(await within(card).findByRole('button', { name: 'Removing...' })).toBeDisabled();
    remove.release();
    await findAnnounced('Work laptop was removed.', 'status');
    expect(await within(card).findByText('You have no passkeys yet.')).toBeInTheDocument();
    await expectFocus(within(card).getByRole('button', { name: 'Add a Passkey' }));
  });

  it("the last way in stays: the server's refusal shows under the row, and the passkey is kept", async () => {
    const lastWayIn =
      'This is your only way to sign in. Set a password (Forgot password on the login screen) or connect another way first.';
    const { card, user } = await openCard({
      [LIST]: () => json(200, { items: [workLaptop] }),
      'DELETE /api/gatehouse/passkeys/pk1': () =>
        json(400, { data: {}, message: lastWayIn, status: 400 }),
    });
    await user.click(await within(card).findByRole('button', { name: 'Remove' }));
    await user.click(within(card).getByRole('button', { name: 'Yes, Remove' }));
    expect(await within(card).findByText(lastWayIn)).toBeInTheDocument();
    expect(within(card).getByText('Work laptop')).toBeInTheDocument();
  });

  it('says a browser without passkeys cannot add one', async () => {
    vi.stubGlobal('PublicKeyCredential', undefined);
    const { card } = await openCard({ [LIST]: () => json(200, { items: [] }) });
    await within(card).findByText('You have no passkeys yet.');
    expect(
      within(card).getByText('This browser cannot make passkeys. Try another browser or device.'),
    ).toBeInTheDocument();
    expect(within(card).queryByRole('button', { name: 'Add a Passkey' })).toBeNull();
  });
});

describe('Login: Sign in with a passkey', SLOW, () => {
  const LOGIN_OPTIONS = 'POST /api/gatehouse/passkey-login/options';
  const PASSKEY = 'POST /api/gatehouse/auth-with-passkey';
  const requestOptions = {
    rpId: 'localhost',
    challenge: b64url('challenge-2'),
    timeout: 300000,
    userVerification: 'required',
    allowCredentials: [],
  };

  function loginServer(routes: Record<string, Handler>) {
    return fakeServer({
      [LOGIN_OPTIONS]: () => json(200, requestOptions),
      'GET /changelog.json': changelogOk([]),
      ...routes,
    });
  }

  it('is not offered by a browser without passkeys', async () => {
    fakeServer({});
    renderApp('/');
    await screen.findByRole('heading', { level: 1, name: 'Welcome back' });
    expect(screen.queryByRole('button', { name: 'Sign in with a passkey' })).toBeNull();
    expect(screen.getByLabelText('Email')).toHaveAttribute('autocomplete', 'username webauthn');
  });

  it('signs in with the chosen passkey (Signing in...), no password, then Home', async () => {
    browserWebAuthn();
    const answer = held(() => json(200, { token: makeToken(alice.id), record: alice }));
    const server = loginServer({ [PASSKEY]: answer.handler });
    const { user, router } = renderApp('/');
    await user.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));
    expect(await screen.findByRole('button', { name: 'Signing in...' })).toBeDisabled();
    await waitFor(() =>
      expect(server.to('POST', '/api/gatehouse/auth-with-passkey')).toHaveLength(1),
    );
    expect(server.to('POST', '/api/gatehouse/auth-with-passkey')[0]?.body).toMatchObject({
      response: {
        id: b64url('cred-1'),
        response: { signature: b64url('signature'), userHandle: b64url('user-1') },
      },
    });
    answer.release();
    await waitFor(() => expect(router.state.location.pathname).toBe('/home'));
    expect(readStoredSession().record?.email).toBe('alice@example.com');
  });

  it('says calmly when no passkey was used (the prompt was closed, or there is none)', async () => {
    browserWebAuthn({ get: () => Promise.reject(closedPrompt()) });
    const server = loginServer({});
    const { user } = renderApp('/');
    await user.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));
    await findAnnounced(
      'No passkey was used. If you have not added a passkey to your account yet, sign in with your password.',
      'status',
    );
    expect(server.to('POST', '/api/gatehouse/auth-with-passkey')).toHaveLength(0);
    expect(screen.getByRole('button', { name: 'Sign in with a passkey' })).toBeEnabled();
    expect(screen.getByRole('heading', { level: 1, name: 'Welcome back' })).toBeInTheDocument();
  });

  it('says when the server refuses the passkey, or there were too many attempts', async () => {
    browserWebAuthn();
    let refusals = 0;
    loginServer({
      [PASSKEY]: () =>
        ++refusals === 1
          ? pbError(400, 'Failed to validate.', {
              response: {
                code: 'validation_invalid_passkey',
                message: 'Invalid or expired passkey response.',
              },
            })
          : pbError(429, 'Too many requests.'),
    });
    const { user } = renderApp('/');
    await user.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));
    await findAnnounced(
      'This passkey cannot sign you in. It may have been removed from your account. Please sign in with your password.',
    );
    await user.click(screen.getByRole('button', { name: 'Sign in with a passkey' }));
    await findAnnounced('Too many sign-in attempts. Please wait a minute and try again.');
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  it('follows the server: its 401 with an mfaId asks for the second step', async () => {
    browserWebAuthn();
    loginServer({
      [PASSKEY]: () =>
        json(401, { data: {}, message: 'Second step.', status: 401, mfaId: 'mfa123456789012' }),
    });
    const { user } = renderApp('/');
    await user.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));
    await expectFocus(screen.findByRole('heading', { level: 1, name: 'Two-Step Verification' }));
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  it('an unverified account gets no session and the Email Not Verified notice', async () => {
    browserWebAuthn();
    const bob = makeUser({ email: 'bob@example.com', verified: false });
    loginServer({ [PASSKEY]: () => json(200, { token: makeToken(bob.id), record: bob }) });
    const { user } = renderApp('/');
    await user.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));
    expect(await screen.findByRole('heading', { name: 'Email Not Verified' })).toBeInTheDocument();
    expect(screen.getByText('bob@example.com')).toBeInTheDocument();
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  describe('autofill', () => {
    it('offers passkeys in the email field as the screen shows; a chosen one signs in', async () => {
      let choose!: (credential: unknown) => void;
      const webauthn = browserWebAuthn({
        autofill: true,
        get: () => new Promise((resolve) => (choose = resolve)),
      });
      loginServer({
        [PASSKEY]: () => json(200, { token: makeToken(alice.id), record: alice }),
      });
      const { router } = renderApp('/');
      await waitFor(() => expect(webauthn.get).toHaveBeenCalledTimes(1));
      expect(webauthn.get.mock.calls[0]?.[0]).toMatchObject({ mediation: 'conditional' });
      choose(chosenPasskey());
      await waitFor(() => expect(router.state.location.pathname).toBe('/home'));
    });

    it('is ended while the password form sends, and when the screen is left', async () => {
      const signals: AbortSignal[] = [];
      const webauthn = browserWebAuthn({
        autofill: true,
        get: (options) =>
          new Promise((_, reject) => {
            const signal = options.signal;
            if (!signal) return;
            signals.push(signal);
            signal.addEventListener('abort', () => reject(signal.reason as Error));
          }),
      });
      const password = held(() => pbError(400, 'Failed to authenticate.'));
      loginServer({ 'POST /api/collections/users/auth-with-password': password.handler });
      const { user, router } = renderApp('/');
      await waitFor(() => expect(webauthn.get).toHaveBeenCalledTimes(1));
      await user.type(screen.getByLabelText('Email'), 'alice@example.com');
      await user.type(screen.getByLabelText('Password'), 'wrong password');
      await user.click(screen.getByRole('button', { name: 'Sign In' }));
      await waitFor(() => expect(signals[0]?.aborted).toBe(true));
      password.release();
      await findAnnounced('Invalid email or password. Please try again.');
      // The password attempt is over: passkeys are offered again.
      await waitFor(() => expect(webauthn.get).toHaveBeenCalledTimes(2));
      await user.click(screen.getByRole('link', { name: 'Sign up' }));
      await waitFor(() => expect(router.state.location.pathname).toBe('/signup'));
      await waitFor(() => expect(signals[1]?.aborted).toBe(true));
    });
  });
});
