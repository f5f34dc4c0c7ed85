import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  authRefreshOk,
  changelogOk,
  fakeServer,
  type Handler,
  json,
  makeUser,
  noContent,
  pbError,
  signedInServer,
  settingsAnswer,
  storeSession,
} from '../../test/fake-server';
import { expectFocus, findAnnounced, renderApp } from '../../test/render-app';

const alice = makeUser({ isInitialUser: true });

/** The initial user, an operator, with the settings routes answered as the server would. */
function onSettings(routes: Record<string, Handler> = {}, answer = settingsAnswer()) {
  return signedInServer(
    alice,
    { 'GET /api/settings': () => json(200, answer), ...routes },
    { operator: true },
  );
}

function section(name: string) {
  return screen.getByRole('region', { name });
}

// The screen loads on first use (a lazy route): room for that on a busy machine.
describe('the console’s Settings', { timeout: 15_000 }, () => {
  it('shows each section with the values in force, links to them, and fields the environment sets read-only with their variable', async () => {
    onSettings();
    const { user, router } = renderApp('/admin');
    const nav = await screen.findByRole('navigation', { name: 'Operator console' });
    await user.click(within(nav).getByRole('link', { name: 'Settings' }));
    await expectFocus(screen.findByRole('heading', { level: 1, name: 'App Settings' }));
    expect(router.state.location.pathname).toBe('/admin/settings');
    expect(document.title).toBe('App Settings · Gatehouse');

    const links = within(await screen.findByRole('navigation', { name: 'Settings sections' }));
    for (const [name, id] of [
      ['Application', 'application'],
      ['Mail Server', 'mail-server'],
      ['Members', 'members'],
      ['Retention', 'retention'],
      ['Backup Schedule', 'backup-schedule'],
      ['Batch Requests', 'batch'],
    ]) {
      expect(links.getByRole('link', { name })).toHaveAttribute('href', `#${id}`);
      expect(await screen.findByRole('region', { name })).toHaveAttribute('id', id);
    }

    const app = section('Application');
    expect(within(app).getByLabelText('App name')).toHaveValue('Gatehouse');
    expect(within(app).getByLabelText('App name')).not.toHaveAttribute('readonly');
    const mail = section('Mail Server');
    const host = within(mail).getByLabelText('Host');
    expect(host).toHaveValue('smtp.example.com');
    expect(host).toHaveAttribute('readonly');
    expect(host).toHaveAccessibleDescription(/Set by the server's environment \(SMTP_URL\)\./);
    expect(within(mail).getByLabelText('Send mail through this SMTP server')).toBeDisabled();
    // Nothing of the section can change here: no save button.
    expect(within(mail).queryByRole('button', { name: 'Save Mail Server' })).toBeNull();
    expect(within(section('Members')).getByLabelText('Session length (days)')).toHaveValue('30');
    expect(within(section('Retention')).getByLabelText('Request log (days)')).toHaveValue('5');
  });

  it('Save sends only the fields that changed, and says so; nothing changed sends nothing', async () => {
    const server = onSettings({
      'PATCH /api/settings': (req) =>
        json(200, settingsAnswer({ meta: (req.body as { meta: object }).meta })),
    });
    const { user } = renderApp('/admin/settings');
    await screen.findByRole('region', { name: 'Application' });
    const app = section('Application');

    await user.click(within(app).getByRole('button', { name: 'Save Application' }));
    expect(await findAnnounced('Nothing to save: no field was changed.', 'status')).toBeVisible();
    expect(server.to('PATCH', '/api/settings')).toHaveLength(0);

    const name = within(app).getByLabelText('App name');
    await user.clear(name);
    await user.type(name, '  Harbour ');
    await user.click(within(app).getByRole('button', { name: 'Save Application' }));
    expect(await findAnnounced('Application settings saved.', 'status')).toBeVisible();
    expect(server.to('PATCH', '/api/settings').map((r) => r.body)).toEqual([
      { meta: { appName: 'Harbour' } },
    ]);
    expect(name).toHaveValue('Harbour');
  });

  it("shows the server's field errors next to their fields and focuses the first", async () => {
    const server = onSettings(
      {
        'PATCH /api/settings': () =>
          pbError(400, 'An error occurred while saving the new settings.', {
            backups: {
              cron: {
                code: 'validation_invalid_cron',
                message:
                  'Invalid cron expression - must be a valid macro or to have exactly 5 space separated segments.',
              },
            },
          }),
      },
      settingsAnswer({ lockedByEnv: [] }),
    );
    const { user } = renderApp('/admin/settings');
    const schedule = await screen.findByRole('region', { name: 'Backup Schedule' });
    const cron = within(schedule).getByLabelText('Schedule (cron expression, UTC)');
    await user.type(cron, 'every day');
    await user.click(within(schedule).getByRole('button', { name: 'Save Schedule' }));
    expect(
      await findAnnounced(
        'Enter a schedule such as 0 3 * * * (minute, hour, day, month, weekday).',
      ),
    ).toBeVisible();
    await expectFocus(cron);
    expect(cron).toBeInvalid();
    expect(
      await findAnnounced('Nothing was saved. Check the fields marked below.'),
    ).toBeInTheDocument();
    expect(server.to('PATCH', '/api/settings').map((r) => r.body)).toEqual([
      { backups: { cron: 'every day' } },
    ]);
  });

  it('Batch Requests: turned on with a limit of 0, the server says why under the field, and nothing else is sent', async () => {
    const server = onSettings({
      'PATCH /api/settings': (req) => {
        const batch = (req.body as { batch: { enabled?: boolean; maxRequests?: number } }).batch;
        if (batch.maxRequests === 0) {
          return pbError(400, 'An error occurred while saving the new settings.', {
            batch: {
              maxRequests: { code: 'validation_required', message: 'Cannot be blank.' },
            },
          });
        }
        return json(200, settingsAnswer({ batch: { enabled: true, ...batch } }));
      },
    });
    const { user } = renderApp('/admin/settings');
    const batch = await screen.findByRole('region', { name: 'Batch Requests' });
    const allow = within(batch).getByLabelText('Allow batch requests');
    expect(allow).not.toBeChecked();
    const most = within(batch).getByLabelText('Most requests in one batch');
    expect(most).toHaveValue('50');
    expect(within(batch).getByLabelText('Time limit (seconds)')).toHaveValue('3');
    expect(within(batch).getByLabelText('Largest batch (bytes)')).toHaveAccessibleDescription(
      /0 allows up to 128 MiB\./,
    );

    await user.click(allow);
    await user.clear(most);
    await user.type(most, '0');
    await user.click(within(batch).getByRole('button', { name: 'Save Batch Requests' }));
    expect(await findAnnounced('Enter a number greater than 0.')).toBeVisible();
    await expectFocus(most);
    expect(most).toBeInvalid();

    await user.clear(most);
    await user.type(most, '20');
    await user.click(within(batch).getByRole('button', { name: 'Save Batch Requests' }));
    expect(await findAnnounced('Batch request settings saved.', 'status')).toBeVisible();
    expect(server.to('PATCH', '/api/settings').map((r) => r.body)).toEqual([
      { batch: { enabled: true, maxRequests: 0 } },
      { batch: { enabled: true, maxRequests: 20 } },
    ]);
  });

  it('a number field takes whole numbers only, checked before anything is sent', async () => {
    const server = onSettings();
    const { user } = renderApp('/admin/settings');
    const members = await screen.findByRole('region', { name: 'Members' });
    const codes = within(members).getByLabelText('Invite codes per new member');
    await user.clear(codes);
    await user.type(codes, 'five');
    await user.click(within(members).getByRole('button', { name: 'Save Members' }));
    expect(await findAnnounced('Enter a whole number.')).toBeVisible();
    await expectFocus(codes);
    expect(server.to('PATCH', '/api/settings')).toHaveLength(0);
  });

  it('the SMTP password is written only: empty keeps it, a new one is sent, and it can be removed', async () => {
    const server = onSettings(
      { 'PATCH /api/settings': () => json(200, settingsAnswer({ lockedByEnv: [] })) },
      settingsAnswer({ lockedByEnv: [] }),
    );
    const { user } = renderApp('/admin/settings');
    const mail = await screen.findByRole('region', { name: 'Mail Server' });
    const password = within(mail).getByLabelText('Password');
    expect(password).toHaveValue('');
    expect(password).toHaveAttribute('placeholder', 'Unchanged');
    const save = within(mail).getByRole('button', { name: 'Save Mail Server' });

    await user.clear(within(mail).getByLabelText('Port'));
    await user.type(within(mail).getByLabelText('Port'), '2525');
    await user.click(save);
    await findAnnounced('Mail server settings saved.', 'status');

    await user.type(password, 'n3w-smtp-secret');
    await user.click(save);
    await waitFor(() => expect(server.to('PATCH', '/api/settings')).toHaveLength(2));
    // Saved: the field is empty again.
    await waitFor(() => expect(password).toHaveValue(''));

    await user.click(within(mail).getByLabelText('Remove the saved password'));
    await user.click(save);
    await waitFor(() => expect(server.to('PATCH', '/api/settings')).toHaveLength(3));
    expect(server.to('PATCH', '/api/settings').map((r) => r.body)).toEqual([
      { smtp: { port: 2525 } },
      { smtp: { password: 'n3w-smtp-secret' } },
      { smtp: { password: '' } },
    ]);
  });

  it('sends a test email of the chosen kind to the address given', async () => {
    const server = onSettings({ 'POST /api/settings/test/email': () => noContent() });
    const { user } = renderApp('/admin/settings');
    const mail = await screen.findByRole('region', { name: 'Mail Server' });
    const test = within(mail).getByRole('form', { name: 'Send a Test Email' });
    const to = within(test).getByLabelText('Send to');
    expect(to).toHaveValue(alice.email);
    await user.clear(to);
    await user.click(within(test).getByRole('button', { name: 'Send Test Email' }));
    expect(await findAnnounced('Enter an email address.')).toBeVisible();
    expect(server.to('POST', '/api/settings/test/email')).toHaveLength(0);

    await user.type(to, 'desk@example.org');
    await user.selectOptions(within(test).getByLabelText('Which mail'), 'Password reset');
    await user.click(within(test).getByRole('button', { name: 'Send Test Email' }));
    expect(
      await findAnnounced(
        'Test email queued to desk@example.org. It should arrive in a moment.',
        'status',
      ),
    ).toBeVisible();
    expect(server.to('POST', '/api/settings/test/email').map((r) => r.body)).toEqual([
      { email: 'desk@example.org', template: 'password-reset', collection: 'users' },
    ]);
  });

  it('a member who is not an operator sees Not Allowed, and the settings are not asked for', async () => {
    storeSession(alice);
    const server = fakeServer({
      'POST /api/collections/users/auth-refresh': authRefreshOk(alice),
      'GET /changelog.json': changelogOk(),
      'GET /api/gatehouse/me': () =>
        json(200, { id: alice.id, email: alice.email, isInitialUser: false, isOperator: false }),
    });
    renderApp('/admin/settings');
    expect(await screen.findByRole('heading', { level: 1, name: 'Not Allowed' })).toBeVisible();
    expect(server.to('GET', '/api/settings')).toHaveLength(0);
  });
});
