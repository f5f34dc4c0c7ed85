import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readStoredSession, type UserRecord } from '../../lib/session';
import {
  changelogOk,
  fakeServer,
  json,
  makeUser,
  pbError,
  storeSession,
  type Handler,
} from '../../test/fake-server';
import { expectFocus, findAnnounced, renderApp } from '../../test/render-app';

const alice = makeUser({ id: 'a1b2c3d4e5f6g7h', email: 'alice@example.com' });
const PATCH = `PATCH /api/collections/users/records/${alice.id}`;

function openSettings(user: UserRecord, routes: Record<string, Handler> = {}) {
  const token = storeSession(user);
  const server = fakeServer({
    'POST /api/collections/users/auth-refresh': () => json(200, { token, record: user }),
    'GET /changelog.json': changelogOk(),
    'GET /api/gatehouse/sessions': () => json(200, { items: [] }),
    'GET /api/gatehouse/security-events': () =>
      json(200, { page: 1, perPage: 20, totalItems: -1, totalPages: -1, items: [] }),
    'GET /api/gatehouse/totp': () => json(200, { enabled: false, recoveryCodesLeft: 0 }),
    'GET /api/gatehouse/passkeys': () => json(200, { items: [] }),
    'POST /api/files/token': () => json(200, { token: 'file-token-1' }),
    ...routes,
  });
  const view = renderApp('/settings');
  return { ...view, server };
}

async function profileCard() {
  return screen.findByRole('region', { name: 'Profile' });
}

/** The hidden file input behind Choose Photo, given files as the browser's picker would. */
function choose(card: HTMLElement, file: File) {
  const input = card.querySelector<HTMLInputElement>('input[type="file"]');
  if (!input) throw new Error('No file input');
  fireEvent.change(input, { target: { files: [file] } });
}

const png = (name = 'me.png', bytes = 64) =>
  new File([new Uint8Array(bytes)], name, { type: 'image/png' });

describe('Settings → Profile', () => {
  const created: string[] = [];
  beforeEach(() => {
    // jsdom has no object URLs: the preview gets a stand-in.
    Object.assign(URL, {
      createObjectURL: vi.fn(() => {
        created.push(`blob:preview-${created.length + 1}`);
        return created[created.length - 1];
      }),
      revokeObjectURL: vi.fn(),
    });
  });
  afterEach(() => {
    created.length = 0;
  });

  it('shows the name and the initials when there is no photo', async () => {
    openSettings({ ...alice, name: 'Alice Liddell' });
    const card = await profileCard();
    expect(within(card).getByRole('heading', { level: 2, name: 'Profile' })).toBeInTheDocument();
    expect(within(card).getByLabelText('Name')).toHaveValue('Alice Liddell');
    const initials = within(card).getByRole('img', { name: 'No photo: your initials' });
    expect(initials).toHaveTextContent('AL');
    expect(within(card).getByRole('button', { name: 'Choose Photo' })).toBeEnabled();
    expect(within(card).queryByRole('button', { name: 'Remove Photo' })).toBeNull();
  });

  it('saves a name: the record update, then the message, and the menu shows it', async () => {
    const { user, server } = openSettings(alice, {
      [PATCH]: (req) =>
        json(200, { ...alice, name: (req.body as { name: string }).name, updated: 'x' }),
    });
    const card = await profileCard();
    await user.type(within(card).getByLabelText('Name'), '  Ada Lovelace ');
    await user.click(within(card).getByRole('button', { name: 'Save Profile' }));
    await findAnnounced('Your profile has been saved.', 'status');
    expect(server.to('PATCH', `/api/collections/users/records/${alice.id}`)[0]?.body).toEqual({
      name: 'Ada Lovelace',
    });
    expect(within(card).getByLabelText('Name')).toHaveValue('Ada Lovelace');
    expect(readStoredSession().record?.name).toBe('Ada Lovelace');
    await user.click(await screen.findByRole('button', { name: 'Menu' }));
    expect(await screen.findByText('Ada Lovelace')).toBeInTheDocument();
  });

  it('a chosen photo shows at once and goes as a file on Save; then the saved one shows with a file token', async () => {
    const saved = { ...alice, avatar: 'me_k2j4h5g6f7.png' };
    const { user, server } = openSettings(alice, { [PATCH]: () => json(200, saved) });
    const card = await profileCard();
    choose(card, png('me.png'));
    const preview = within(card).getByRole('img', { name: 'The photo you chose (not saved yet)' });
    expect(preview).toHaveAttribute('src', 'blob:preview-1');
    expect(within(card).getByText('Chosen: me.png. Save Profile to use it.')).toBeInTheDocument();
    await user.click(within(card).getByRole('button', { name: 'Save Profile' }));
    await findAnnounced('Your profile has been saved.', 'status');

    const body = server.to('PATCH', `/api/collections/users/records/${alice.id}`)[0]?.body;
    expect(body).toBeInstanceOf(FormData);
    const form = body as FormData;
    expect(form.get('name')).toBe('');
    expect((form.get('avatar') as File).name).toBe('me.png');
    await waitFor(() =>
      expect(within(card).getByRole('img', { name: 'Your photo' })).toHaveAttribute(
        'src',
        `/api/files/users/${alice.id}/me_k2j4h5g6f7.png?thumb=200x200&token=file-token-1`,
      ),
    );
    expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:preview-1');
    expect(within(card).getByRole('button', { name: 'Change Photo' })).toBeEnabled();
  });

  it('Remove Photo removes it on Save', async () => {
    const withPhoto = { ...alice, avatar: 'me_k2j4h5g6f7.png' };
    const { user, server } = openSettings(withPhoto, {
      [PATCH]: () => json(200, { ...withPhoto, avatar: '' }),
    });
    const card = await profileCard();
    await waitFor(() =>
      expect(within(card).getByRole('img', { name: 'Your photo' }).tagName).toBe('IMG'),
    );
    await user.click(within(card).getByRole('button', { name: 'Remove Photo' }));
    expect(within(card).getByRole('img', { name: 'No photo: your initials' })).toHaveTextContent(
      'A',
    );
    await expectFocus(within(card).getByRole('button', { name: 'Choose Photo' }));
    await user.click(within(card).getByRole('button', { name: 'Save Profile' }));
    await findAnnounced('Your profile has been saved.', 'status');
    expect(server.to('PATCH', `/api/collections/users/records/${alice.id}`)[0]?.body).toEqual({
      name: '',
      avatar: '',
    });
  });

  it('refuses a file that is not a photo, or too large, before sending anything', async () => {
    const { server } = openSettings(alice);
    const card = await profileCard();
    choose(card, new File(['%PDF-1.7'], 'cv.pdf', { type: 'application/pdf' }));
    await findAnnounced('Please choose a JPEG, PNG, WebP or GIF image.');
    choose(card, png('huge.png', 5 * 1024 * 1024 + 1));
    await findAnnounced('The photo can be at most 5 MB. Please choose a smaller one.');
    expect(within(card).getByRole('img', { name: 'No photo: your initials' })).toBeInTheDocument();
    expect(server.to('PATCH', `/api/collections/users/records/${alice.id}`)).toHaveLength(0);
  });

  it('says in words what the server refused, and checks the name’s length first', async () => {
    const { user, server } = openSettings(alice, {
      [PATCH]: () =>
        pbError(400, 'Failed to update record.', {
          avatar: {
            code: 'validation_invalid_mime_type',
            message:
              '"me.png" mime type must be one of: image/jpeg, image/png, image/gif, image/webp.',
          },
        }),
    });
    const card = await profileCard();
    const name = within(card).getByLabelText('Name');
    await user.click(name);
    await user.paste('x'.repeat(101));
    await user.click(within(card).getByRole('button', { name: 'Save Profile' }));
    await findAnnounced('The name can be at most 100 characters.');
    await expectFocus(name);
    expect(server.to('PATCH', `/api/collections/users/records/${alice.id}`)).toHaveLength(0);

    await user.clear(name);
    // 100 emoji are 100 characters (200 UTF-16 units): allowed.
    await user.paste('🦊'.repeat(100));
    choose(card, png('me.png'));
    await user.click(within(card).getByRole('button', { name: 'Save Profile' }));
    await findAnnounced(
      'That file is not a photo we can use. Please choose a JPEG, PNG, WebP or GIF image.',
    );
    await waitFor(() =>
      expect(server.to('PATCH', `/api/collections/users/records/${alice.id}`)).toHaveLength(1),
    );
  });
});
