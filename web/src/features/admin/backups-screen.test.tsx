import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type Handler,
  json,
  makeUser,
  noContent,
  pbError,
  signedInServer,
} from '../../test/fake-server';
import { expectFocus, findAnnounced, renderApp } from '../../test/render-app';
import { formatSize } from './backups-api';

const alice = makeUser({ isInitialUser: true });
const NIGHTLY = '@auto_pb_backup_gatehouse_20261124030000.zip';
const BEFORE = 'before_the_move.zip';

function backupsList(keys: string[]) {
  return keys.map((key, i) => ({
    key,
    size: i === 0 ? 5_400_000 : 48_128,
    modified: `2026-11-2${4 - i} 03:00:00.000Z`,
  }));
}

/** The initial user, an operator, on Backups; the list is `keys` until a test changes it. */
function onBackups(routes: Record<string, Handler> = {}, keys = [NIGHTLY, BEFORE]) {
  const state = { keys };
  const server = signedInServer(
    alice,
    {
      'GET /api/backups': () => json(200, backupsList(state.keys)),
      'GET /api/settings': () =>
        json(200, {
          smtp: {
            enabled: false,
            port: 0,
            host: '',
            username: '',
            authMethod: '',
            tls: false,
            localName: '',
          },
          backups: { cron: '0 3 * * *', cronMaxKeep: 3 },
          meta: {
            appName: 'Gatehouse',
            appURL: 'https://gate.example.com',
            senderName: 'Gatehouse',
            senderAddress: 'no-reply@gate.example.com',
          },
          logs: { maxDays: 5 },
          gatehouse: { invitesPerMember: 5, sessionMaxDays: 30, auditRetentionDays: 90 },
          lockedByEnv: [],
        }),
      ...routes,
    },
    { operator: true },
  );
  return { server, state };
}

function row(name: string) {
  const list = screen.getByRole('list', { name: 'Backups' });
  return within(list)
    .getAllByRole('listitem')
    .find((item) => within(item).queryByText(name, { exact: true }))!;
}

afterEach(() => {
  vi.restoreAllMocks();
});

// The screen loads on first use (a lazy route): room for that on a busy machine.
describe('the console’s Backups', { timeout: 15_000 }, () => {
  it('lists every backup with its size and date, and shows the schedule', async () => {
    onBackups();
    const { user, router } = renderApp('/admin');
    const nav = await screen.findByRole('navigation', { name: 'Operator console' });
    await user.click(within(nav).getByRole('link', { name: 'Backups' }));
    await expectFocus(screen.findByRole('heading', { level: 1, name: 'Backups' }));
    expect(router.state.location.pathname).toBe('/admin/backups');
    expect(document.title).toBe('Backups · Gatehouse');
    await screen.findByRole('list', { name: 'Backups' });
    expect(row(NIGHTLY)).toHaveTextContent('5.1 MB · Nov 24, 2026');
    expect(row(BEFORE)).toHaveTextContent('47 KB · Nov 23, 2026');
    expect(within(row(BEFORE)).getByRole('button', { name: 'Delete' })).toHaveAccessibleDescription(
      BEFORE,
    );
    const schedule = await screen.findByRole('region', { name: 'Backup Schedule' });
    expect(within(schedule).getByLabelText('Schedule (cron expression, UTC)')).toHaveValue(
      '0 3 * * *',
    );
    expect(within(schedule).getByLabelText('Scheduled backups to keep')).toHaveValue('3');
  });

  it('says when there are none', async () => {
    onBackups({}, []);
    renderApp('/admin/backups');
    expect(await screen.findByText('No backups yet. Create one, or upload one.')).toBeVisible();
  });

  it('creates a backup, with the name given or none; a refused name is said under the field', async () => {
    const { server, state } = onBackups({
      'POST /api/backups': (req) => {
        const { name } = req.body as { name: string };
        if (name === 'Before Move.zip') {
          return pbError(400, 'An error occurred while validating the submitted data.', {
            name: { code: 'validation_match_invalid', message: 'Must be in a valid format.' },
          });
        }
        state.keys = [name || 'pb_backup_gatehouse_20261125101500.zip', ...state.keys];
        return noContent();
      },
    });
    const { user } = renderApp('/admin/backups');
    const create = await screen.findByRole('region', { name: 'Create a Backup' });
    const name = within(create).getByLabelText('Name (optional)');
    await user.type(name, 'Before Move.zip');
    await user.click(within(create).getByRole('button', { name: 'Create Backup' }));
    expect(
      await findAnnounced(
        'Use a name ending in .zip, made of letters, digits, dots, dashes and underscores.',
      ),
    ).toBeVisible();
    await expectFocus(name);

    await user.clear(name);
    await user.type(name, 'before_move.zip');
    await user.click(within(create).getByRole('button', { name: 'Create Backup' }));
    expect(await findAnnounced('Backup before_move.zip created.', 'status')).toBeVisible();
    expect(await screen.findByText('before_move.zip')).toBeVisible();
    expect(name).toHaveValue('');

    await user.click(within(create).getByRole('button', { name: 'Create Backup' }));
    expect(await findAnnounced('Backup created.', 'status')).toBeVisible();
    expect(server.to('POST', '/api/backups').map((r) => r.body)).toEqual([
      { name: 'Before Move.zip' },
      { name: 'before_move.zip' },
      { name: '' },
    ]);
  });

  it('uploads a .zip through the file field', async () => {
    const { server, state } = onBackups({
      'POST /api/backups/upload': () => {
        state.keys = ['copied_in.zip', ...state.keys];
        return noContent();
      },
    });
    const { user } = renderApp('/admin/backups');
    const upload = await screen.findByRole('region', { name: 'Upload a Backup' });
    await user.click(within(upload).getByRole('button', { name: 'Upload Backup' }));
    expect(await findAnnounced('Choose a backup file (.zip) first.')).toBeVisible();
    expect(server.to('POST', '/api/backups/upload')).toHaveLength(0);

    const file = new File(['PK\u0003\u0004'], 'copied_in.zip', { type: 'application/zip' });
    await user.upload(within(upload).getByLabelText('Backup file'), file);
    await user.click(within(upload).getByRole('button', { name: 'Upload Backup' }));
    expect(await findAnnounced('Backup copied_in.zip uploaded.', 'status')).toBeVisible();
    const sent = server.to('POST', '/api/backups/upload')[0]!.body as FormData;
    expect((sent.get('file') as File).name).toBe('copied_in.zip');
    expect(await screen.findByText('copied_in.zip')).toBeVisible();
  });

  it('Delete asks first, naming the file; Cancel keeps it, Yes deletes it', async () => {
    const { server, state } = onBackups({
      [`DELETE /api/backups/${encodeURIComponent(BEFORE)}`]: () => {
        state.keys = [NIGHTLY];
        return noContent();
      },
    });
    const { user } = renderApp('/admin/backups');
    await screen.findByRole('list', { name: 'Backups' });
    await user.click(within(row(BEFORE)).getByRole('button', { name: 'Delete' }));
    let dialog = await screen.findByRole('dialog', { name: `Delete ${BEFORE}?` });
    expect(dialog).toHaveAccessibleDescription(/This cannot be undone/);
    await expectFocus(within(dialog).getByRole('button', { name: 'Cancel' }));
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(server.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);

    await user.click(within(row(BEFORE)).getByRole('button', { name: 'Delete' }));
    dialog = await screen.findByRole('dialog', { name: `Delete ${BEFORE}?` });
    await user.click(within(dialog).getByRole('button', { name: 'Yes, Delete' }));
    expect(await findAnnounced(`Backup ${BEFORE} has been deleted.`, 'status')).toBeVisible();
    await waitFor(() => expect(screen.queryByText(BEFORE, { exact: true })).toBeNull());
  });

  it('Download asks for a file token and hands the browser the backup’s address with it', async () => {
    const clicked: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      clicked.push(this.href);
    });
    const { server } = onBackups({
      'GET /api/gatehouse/reauth': () =>
        json(200, { fresh: true, freshUntil: '2026-11-25 10:10:00.000Z', methods: ['password'] }),
      'POST /api/files/token': () => json(200, { token: 'file-token-1' }),
    });
    const { user } = renderApp('/admin/backups');
    await screen.findByRole('list', { name: 'Backups' });
    await user.click(within(row(NIGHTLY)).getByRole('button', { name: 'Download' }));
    expect(await findAnnounced(`Downloading ${NIGHTLY}.`, 'status')).toBeVisible();
    expect(server.to('POST', '/api/files/token')).toHaveLength(1);
    expect(clicked).toHaveLength(1);
    const url = new URL(clicked[0]!);
    expect(url.pathname).toBe(`/api/backups/${encodeURIComponent(NIGHTLY)}`);
    expect(url.searchParams.get('token')).toBe('file-token-1');
  });

  it('Restore wants the backup’s name typed, says what is lost, and ends on the sign-in screen with a note', async () => {
    const restore = `POST /api/backups/${encodeURIComponent(BEFORE)}/restore`;
    const { server } = onBackups({
      [restore]: () => noContent(),
      // The session ended with the restore.
      'POST /api/gatehouse/logout': () =>
        pbError(401, 'The request requires valid record authorization token.'),
    });
    const { user, router } = renderApp('/admin/backups');
    await screen.findByRole('list', { name: 'Backups' });
    await user.click(within(row(BEFORE)).getByRole('button', { name: 'Restore' }));
    const dialog = await screen.findByRole('dialog', { name: `Restore ${BEFORE}?` });
    expect(dialog).toHaveAccessibleDescription(
      /Everything added or changed since then is lost\. Everyone is signed out, you too/,
    );
    const typed = within(dialog).getByLabelText(`Type ${BEFORE} to confirm`);
    await expectFocus(typed);
    await user.type(typed, 'before_the_move');
    await user.click(within(dialog).getByRole('button', { name: 'Yes, Restore' }));
    expect(await findAnnounced(`Type the backup's name exactly: ${BEFORE}`)).toBeVisible();
    expect(server.to('POST', `/api/backups/${encodeURIComponent(BEFORE)}/restore`)).toHaveLength(0);

    await user.type(typed, '.zip');
    await user.click(within(dialog).getByRole('button', { name: 'Yes, Restore' }));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeVisible();
    expect(router.state.location.pathname).toBe('/');
    expect(
      await findAnnounced(
        'The backup was restored and everyone was signed out. Sign in again.',
        'status',
      ),
    ).toBeVisible();
    expect(server.to('POST', `/api/backups/${encodeURIComponent(BEFORE)}/restore`)).toHaveLength(1);
  });

  it('a failed restore is said in the dialog, and nothing else happens', async () => {
    onBackups({
      [`POST /api/backups/${encodeURIComponent(BEFORE)}/restore`]: () =>
        pbError(400, 'Failed to restore the backup.', {
          key: {
            code: 'validation_invalid_backup',
            message: 'Not a Gatehouse backup: the archive has no gatehouse.db.',
          },
        }),
    });
    const { user, router } = renderApp('/admin/backups');
    await screen.findByRole('list', { name: 'Backups' });
    await user.click(within(row(BEFORE)).getByRole('button', { name: 'Restore' }));
    const dialog = await screen.findByRole('dialog', { name: `Restore ${BEFORE}?` });
    await user.type(within(dialog).getByLabelText(`Type ${BEFORE} to confirm`), BEFORE);
    await user.click(within(dialog).getByRole('button', { name: 'Yes, Restore' }));
    expect(await findAnnounced("The backup couldn't be restored.")).toBeVisible();
    expect(router.state.location.pathname).toBe('/admin/backups');
  });
});

describe('backup sizes in words', () => {
  it('counts bytes, then KB, MB and GB', () => {
    expect(formatSize(812)).toBe('812 bytes');
    expect(formatSize(48 * 1024)).toBe('48 KB');
    expect(formatSize(1.25 * 1024 * 1024)).toBe('1.3 MB');
    expect(formatSize(3 * 1024 ** 3)).toBe('3 GB');
  });
});
