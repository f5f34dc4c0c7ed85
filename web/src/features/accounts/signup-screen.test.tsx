import { act, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import {
  fakeServer,
  fieldErrors,
  json,
  makeUser,
  noContent,
  pbError,
  type Handler,
} from '../../test/fake-server';
import { chooseLanguage } from '../../lib/i18n';
import { expectFocus, findAnnounced, renderApp } from '../../test/render-app';

const CREATE = 'POST /api/collections/users/records';
const REQUEST_VERIFICATION = 'POST /api/collections/users/request-verification';

type User = ReturnType<typeof renderApp>['user'];

/** The form's labels and its button, in each language. */
const ENGLISH = {
  email: 'Email',
  inviteCode: 'Invite Code',
  password: 'Password',
  confirm: 'Confirm Password',
  submit: 'Sign Up',
};
const GERMAN: typeof ENGLISH = {
  email: 'E-Mail',
  inviteCode: 'Einladungscode',
  password: 'Passwort',
  confirm: 'Passwort bestätigen',
  submit: 'Registrieren',
};

async function fill(
  user: User,
  values: { email?: string; inviteCode?: string; password?: string; confirm?: string },
  labels = ENGLISH,
) {
  if (values.email) await user.type(await screen.findByLabelText(labels.email), values.email);
  if (values.inviteCode) {
    await user.type(screen.getByLabelText(labels.inviteCode), values.inviteCode);
  }
  if (values.password) await user.type(screen.getByLabelText(labels.password), values.password);
  if (values.confirm) await user.type(screen.getByLabelText(labels.confirm), values.confirm);
  await user.click(screen.getByRole('button', { name: labels.submit }));
}

const valid = {
  email: 'carol@example.com',
  inviteCode: 'ABCD-EFGH',
  password: 'long enough pw',
  confirm: 'long enough pw',
};

describe('Sign-up (/signup)', () => {
  it('shows the form with every field labelled and the page title', async () => {
    fakeServer({});
    renderApp('/signup');
    await expectFocus(screen.findByRole('heading', { level: 1 }));
    expect(document.title).toBe('Sign up · Gatehouse');
    expect(screen.getByLabelText('Email')).toHaveAttribute('type', 'email');
    expect(screen.getByLabelText('Invite Code')).toHaveValue('');
    expect(screen.getByLabelText('Password')).toHaveAttribute('minlength', '8');
    expect(screen.getByLabelText('Confirm Password')).toHaveAttribute('minlength', '8');
    for (const label of ['Email', 'Invite Code', 'Password', 'Confirm Password']) {
      expect(screen.getByLabelText(label)).toBeRequired();
    }
    expect(screen.queryByText(/You've been invited/)).not.toBeInTheDocument();
  });

  it('has an optional Name after the spec’s fields, sent when filled in', async () => {
    const server = fakeServer({
      [CREATE]: () => json(200, makeUser({ verified: false, name: 'Carol' })),
      [REQUEST_VERIFICATION]: () => noContent(),
    });
    const { user } = renderApp('/signup');
    const name = await screen.findByLabelText('Name');
    expect(name).not.toBeRequired();
    expect(name).toHaveAttribute('autocomplete', 'name');
    const labels = [...document.querySelectorAll('form[aria-label="Sign up"] label')].map(
      (l) => l.textContent,
    );
    expect(labels).toEqual(['Email', 'Invite Code', 'Password', 'Confirm Password', 'Name']);
    await user.type(name, ' Carol ');
    await fill(user, valid);
    expect(
      await screen.findByRole('heading', { name: 'Account created successfully' }),
    ).toBeInTheDocument();
    expect(server.to('POST', '/api/collections/users/records')[0]?.body).toMatchObject({
      email: 'carol@example.com',
      name: 'Carol',
      language: 'en',
    });
  });

  it('sends the language the app speaks, the language of the member’s mail', async () => {
    await chooseLanguage('de');
    const server = fakeServer({
      [CREATE]: () => json(200, makeUser({ verified: false, language: 'de' })),
      [REQUEST_VERIFICATION]: () => noContent(),
    });
    const { user } = renderApp('/signup');
    await fill(user, valid, GERMAN);
    expect(
      await screen.findByRole('heading', { name: 'Konto erfolgreich erstellt' }),
    ).toBeInTheDocument();
    expect(server.to('POST', '/api/collections/users/records')[0]?.body).toMatchObject({
      email: 'carol@example.com',
      language: 'de',
    });
  }, 20_000);

  it('checks the name’s length after the spec’s checks, and says the server’s refusal of it', async () => {
    const server = fakeServer({
      [CREATE]: () =>
        pbError(400, 'Failed to create record.', {
          name: { code: 'validation_invalid_format', message: 'Invalid value format.' },
        }),
    });
    const { user } = renderApp('/signup');
    await user.click(await screen.findByLabelText('Name'));
    await user.paste('n'.repeat(101));
    await fill(user, { ...valid, confirm: 'something else' });
    await findAnnounced('Passwords do not match');
    await user.clear(screen.getByLabelText('Confirm Password'));
    await user.type(screen.getByLabelText('Confirm Password'), valid.confirm);
    await user.click(screen.getByRole('button', { name: 'Sign Up' }));
    await findAnnounced('The name can be at most 100 characters.');
    await expectFocus(screen.getByLabelText('Name'));
    expect(server.to('POST', '/api/collections/users/records')).toHaveLength(0);
    await user.clear(screen.getByLabelText('Name'));
    await user.type(screen.getByLabelText('Name'), 'Carol');
    await user.click(screen.getByRole('button', { name: 'Sign Up' }));
    await findAnnounced(
      'The name has characters that cannot be used (control or text-direction characters). Please remove them.',
    );
  }, 15_000);

  it('prefills the invite code from ?code= and welcomes the visitor with it', async () => {
    fakeServer({});
    renderApp('/signup?code=7QX2M9KD4RTW');
    expect(await screen.findByLabelText('Invite Code')).toHaveValue('7QX2M9KD4RTW');
    expect(screen.getByText(/You've been invited/)).toBeInTheDocument();
    expect(screen.getByText('7QX2M9KD4RTW')).toBeInTheDocument();
  });

  describe('the invite code is looked at before the rest of the form is filled', () => {
    const CHECK = 'POST /api/gatehouse/invite-codes/check';
    const refused = () =>
      pbError(
        400,
        'An error occurred while validating the submitted data.',
        fieldErrors({ inviteCode: 'Invalid or already used invite code.' }),
      );

    it('a code from the link that no longer works is said at once, under the field', async () => {
      const server = fakeServer({ [CHECK]: refused });
      renderApp('/signup?code=USED-CODE');
      await findAnnounced('Invalid or already used invite code.');
      expect(screen.getByLabelText('Invite Code')).toHaveAttribute('aria-invalid', 'true');
      expect(server.to('POST', '/api/gatehouse/invite-codes/check')[0]?.body).toEqual({
        inviteCode: 'USED-CODE',
      });
    });

    it('a refused link drops the welcome and says the link no longer works', async () => {
      fakeServer({ [CHECK]: refused });
      renderApp('/signup?code=USED-CODE');
      await findAnnounced('Invalid or already used invite code.');
      expect(screen.getByText('This invite link no longer works.')).toBeInTheDocument();
      expect(screen.queryByText(/Welcome!/)).not.toBeInTheDocument();
      expect(screen.getByText('USED-CODE')).toBeInTheDocument();
    });

    it('the printed setup link says its holder is setting up the community', async () => {
      fakeServer({ [CHECK]: () => json(200, { initialUser: true }) });
      renderApp('/signup?code=FIRST-CODE');
      expect(
        await screen.findByText("Welcome! You're setting up Gatehouse.", undefined, {
          timeout: 10_000,
        }),
      ).toBeInTheDocument();
      expect(screen.queryByText(/You've been invited/)).not.toBeInTheDocument();
      expect(screen.getByText('FIRST-CODE')).toBeInTheDocument();
      expect(screen.getByLabelText('Invite Code')).not.toHaveAttribute('aria-invalid');
    });

    it('a typed code is looked at when the field is left; editing it clears the message', async () => {
      fakeServer({ [CHECK]: refused });
      const { user } = renderApp('/signup');
      await user.type(await screen.findByLabelText('Invite Code'), 'NOPE');
      await user.tab();
      await findAnnounced('Invalid or already used invite code.');
      await user.type(screen.getByLabelText('Invite Code'), 'X');
      expect(screen.queryByText('Invalid or already used invite code.')).toBeNull();
    });

    it('a usable code says nothing', async () => {
      const server = fakeServer({ [CHECK]: () => noContent() });
      renderApp('/signup?code=GOOD-CODE');
      await waitFor(() =>
        expect(server.to('POST', '/api/gatehouse/invite-codes/check')).toHaveLength(1),
      );
      expect(screen.getByLabelText('Invite Code')).not.toHaveAttribute('aria-invalid');
      expect(screen.getByText(/You've been invited/)).toBeInTheDocument();
    });
  });

  it('keeps an all-digit code as written (a string, not a number)', async () => {
    fakeServer({});
    renderApp('/signup?code=00123456789012345678');
    expect(await screen.findByLabelText('Invite Code')).toHaveValue('00123456789012345678');
  });

  describe('client validation, in the order docs/product.md gives', () => {
    it('Invite code is required', async () => {
      const server = fakeServer({});
      const { user } = renderApp('/signup');
      await fill(user, { ...valid, inviteCode: '   ' });
      await findAnnounced('Invite code is required');
      await expectFocus(screen.getByLabelText('Invite Code'));
      expect(server.to('POST', '/api/collections/users/records')).toHaveLength(0);
    });

    it('Passwords do not match (checked before the length)', async () => {
      const server = fakeServer({});
      const { user } = renderApp('/signup');
      await fill(user, { ...valid, password: 'short1', confirm: 'short2' });
      await findAnnounced('Passwords do not match');
      expect(server.to('POST', '/api/collections/users/records')).toHaveLength(0);
    });

    it('a shorter confirmation that does not match is marked on its field once submitted', async () => {
      fakeServer({});
      const { user } = renderApp('/signup');
      await fill(user, { ...valid, confirm: 'long enough' });
      await findAnnounced('Passwords do not match');
      const confirm = screen.getByLabelText('Confirm Password');
      await expectFocus(confirm);
      expect(confirm).toHaveAttribute('aria-invalid', 'true');
      expect(confirm).toHaveAccessibleDescription('This does not match the password above.');
      // Once they match the note goes (the field stays marked until the next Sign Up).
      await user.type(confirm, ' pw');
      expect(screen.queryByText('This does not match the password above.')).toBeNull();
    }, 15_000);

    it('a confirmation that does not match is marked on its field as it is typed', async () => {
      fakeServer({});
      const { user } = renderApp('/signup');
      await user.type(await screen.findByLabelText('Password'), 'long enough pw');
      const confirm = screen.getByLabelText('Confirm Password');
      await user.type(confirm, 'long enough');
      expect(confirm).not.toHaveAttribute('aria-invalid');
      await user.type(confirm, ' px');
      expect(confirm).toHaveAttribute('aria-invalid', 'true');
      expect(confirm).toHaveAccessibleDescription('This does not match the password above.');
      await user.type(confirm, '{Backspace}w');
      expect(confirm).not.toHaveAttribute('aria-invalid');
      expect(screen.queryByText('This does not match the password above.')).toBeNull();
    }, 15_000);

    it('shows and hides each password with Show (or Alt+F8), without a new Tab stop', async () => {
      fakeServer({});
      const { user } = renderApp('/signup');
      const password = await screen.findByLabelText('Password');
      const confirm = screen.getByLabelText('Confirm Password');
      const [showPassword, showConfirm] = screen.getAllByRole('button', { name: 'Show' });
      await user.type(password, 'long enough pw');
      await user.click(showPassword!);
      expect(password).toHaveAttribute('type', 'text');
      expect(password).toHaveValue('long enough pw');
      expect(confirm).toHaveAttribute('type', 'password');
      await user.click(screen.getByRole('button', { name: 'Hide' }));
      expect(password).toHaveAttribute('type', 'password');
      expect(showConfirm).toBeInTheDocument();
      confirm.focus();
      await user.keyboard('{Alt>}{F8}{/Alt}');
      expect(confirm).toHaveAttribute('type', 'text');
      // Tab goes from one field to the next, as before.
      password.focus();
      await user.tab();
      await expectFocus(confirm);
    }, 15_000);

    it('Password must be at least 8 characters long', async () => {
      const server = fakeServer({});
      const { user } = renderApp('/signup');
      await fill(user, { ...valid, password: 'short12', confirm: 'short12' });
      await findAnnounced('Password must be at least 8 characters long');
      expect(server.to('POST', '/api/collections/users/records')).toHaveLength(0);
    });

    it('counts the password in characters, as the server does: an emoji is one', async () => {
      const server = fakeServer({
        [CREATE]: () => json(200, makeUser({ email: '', verified: false })),
        [REQUEST_VERIFICATION]: () => noContent(),
      });
      const { user } = renderApp('/signup');
      // Typed as text, not keys: one emoji is two UTF-16 units.
      const paste = async (label: string, text: string) => {
        await user.clear(screen.getByLabelText(label));
        await user.click(screen.getByLabelText(label));
        await user.paste(text);
      };
      await user.type(await screen.findByLabelText('Email'), valid.email);
      await user.type(screen.getByLabelText('Invite Code'), valid.inviteCode);
      // 4 characters, 8 UTF-16 units: too short.
      await paste('Password', '🦊🌲🏔🌊');
      await paste('Confirm Password', '🦊🌲🏔🌊');
      await user.click(screen.getByRole('button', { name: 'Sign Up' }));
      await findAnnounced('Password must be at least 8 characters long');
      await expectFocus(screen.getByLabelText('Password'));
      expect(server.to('POST', '/api/collections/users/records')).toHaveLength(0);

      // 8 characters: enough.
      await paste('Password', '🦊🌲🏔🌊🦉🍄🌙🔥');
      await paste('Confirm Password', '🦊🌲🏔🌊🦉🍄🌙🔥');
      await user.click(screen.getByRole('button', { name: 'Sign Up' }));
      await screen.findByRole('heading', { name: 'Account created successfully' });
      expect(server.to('POST', '/api/collections/users/records')[0]?.body).toMatchObject({
        password: '🦊🌲🏔🌊🦉🍄🌙🔥',
      });
    });

    it('an invalid email', async () => {
      fakeServer({});
      const { user } = renderApp('/signup');
      await fill(user, { ...valid, email: 'carol' });
      await findAnnounced('Please enter a valid email address.');
    });
  });

  it('creates the account, requests the verification email, counts down 5 s, then shows login', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let release!: () => void;
    const server = fakeServer({
      [CREATE]: () =>
        new Promise<Response>((resolve) => {
          release = () => resolve(json(200, makeUser({ email: '', verified: false })));
        }),
      [REQUEST_VERIFICATION]: () => noContent(),
    });
    const { user, router } = renderApp('/signup?code=ABCD-EFGH', { fakeTimers: true });
    await fill(user, { ...valid, inviteCode: undefined });
    expect(await screen.findByRole('button', { name: 'Creating account...' })).toBeDisabled();
    await act(async () => release());

    const heading = await screen.findByRole('heading', { name: 'Account created successfully' });
    await waitFor(() => expect(heading).toHaveFocus());
    expect(screen.getByText(/check your inbox and spam folder/i)).toBeInTheDocument();
    expect(screen.getByText('Opening the sign-in screen in 5 seconds...')).toBeInTheDocument();
    expect(server.to('POST', '/api/collections/users/records')[0]?.body).toEqual({
      email: 'carol@example.com',
      password: 'long enough pw',
      passwordConfirm: 'long enough pw',
      inviteCode: 'ABCD-EFGH',
      language: 'en',
    });
    expect(server.to('POST', '/api/collections/users/request-verification')[0]?.body).toEqual({
      email: 'carol@example.com',
    });

    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(screen.getByText('Opening the sign-in screen in 4 seconds...')).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(3000));
    expect(screen.getByText('Opening the sign-in screen in 1 second...')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/signup');
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
  });

  it('offers Back to Login after creating the account', async () => {
    fakeServer({
      [CREATE]: () => json(200, makeUser({ verified: false })),
      [REQUEST_VERIFICATION]: () => noContent(),
    });
    const { user, router } = renderApp('/signup');
    await fill(user, valid);
    await user.click(await screen.findByRole('button', { name: 'Back to Login' }));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
  });

  it('still reports success when the verification email request fails', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    fakeServer({
      [CREATE]: () => json(200, makeUser({ verified: false })),
      [REQUEST_VERIFICATION]: () => pbError(429, 'Too Many Requests.'),
    });
    const { user } = renderApp('/signup');
    await fill(user, valid);
    expect(
      await screen.findByRole('heading', { name: 'Account created successfully' }),
    ).toBeInTheDocument();
  });

  describe('server errors, in priority order', () => {
    const cases: Array<[string, Handler, string]> = [
      [
        'email first',
        () =>
          pbError(
            400,
            'Failed to create record.',
            fieldErrors({
              email: 'Value must be unique.',
              password: 'Must be at least 8 character(s).',
              inviteCode: 'Invalid or already used invite code.',
            }),
          ),
        'Email: Value must be unique.',
      ],
      [
        'an address in use, in plain words',
        () =>
          pbError(400, 'Failed to create record.', {
            email: { code: 'validation_not_unique', message: 'Value must be unique.' },
          }),
        'Email: This email address is already in use.',
      ],
      [
        'then password',
        () =>
          pbError(
            400,
            'Failed to create record.',
            fieldErrors({
              password: 'This password is too common. Choose one that is harder to guess.',
              inviteCode: 'Cannot be blank.',
            }),
          ),
        'Password: This password is too common. Choose one that is harder to guess.',
      ],
      [
        'then invite code',
        () =>
          pbError(
            400,
            'Failed to create record.',
            fieldErrors({ inviteCode: 'Invalid or already used invite code.' }),
          ),
        'Invite code: Invalid or already used invite code.',
      ],
      [
        'then the error message',
        () => pbError(429, 'Too Many Requests.'),
        'Too many attempts. Please wait a moment and try again.',
      ],
      [
        'else the default',
        () => new Response('not json', { status: 500 }),
        'Failed to create account. Please try again.',
      ],
    ];
    it.each(cases)('%s', async (_name, handler, message) => {
      fakeServer({ [CREATE]: handler });
      const { user } = renderApp('/signup');
      await fill(user, valid);
      await findAnnounced(message);
      expect(screen.getByRole('button', { name: 'Sign Up' })).toBeEnabled();
    });

    it('a network failure shows the default', async () => {
      vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
      const { user } = renderApp('/signup');
      await fill(user, valid);
      await findAnnounced('Failed to create account. Please try again.');
    });
  });
});
