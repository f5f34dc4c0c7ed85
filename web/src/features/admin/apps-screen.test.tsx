import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { App } from '../../../../contract/oidc';
import {
  type Handler,
  json,
  makeUser,
  noContent,
  pbError,
  signedInServer,
} from '../../test/fake-server';
import { expectFocus, findAnnounced, renderApp } from '../../test/render-app';

const alice = makeUser({ isInitialUser: true });
const ISSUER = 'https://gate.example.com/oidc';
const INVALID = 'The app could not be saved: check the fields.';

function anApp(fields: Partial<App> = {}): App {
  return {
    id: 'wikiclient0000000000000a',
    name: 'Team Wiki',
    redirectUris: ['https://wiki.example.org/oauth/callback'],
    postLogoutRedirectUris: [],
    backchannelLogoutUri: '',
    type: 'confidential',
    authMethod: 'client_secret_post',
    group: 'members',
    created: '2026-11-27 10:00:00.000Z',
    updated: '2026-11-27 10:00:00.000Z',
    ...fields,
  };
}

/** The initial user, an operator, with the console's Apps answered from `state.apps`. */
function onApps(routes: Record<string, Handler> = {}, apps: App[] = [anApp()]) {
  const state = { apps };
  const server = signedInServer(
    alice,
    { 'GET /api/admin/apps': () => json(200, { issuer: ISSUER, items: state.apps }), ...routes },
    { operator: true },
  );
  return { server, state };
}

function row(name: string) {
  const list = screen.getByRole('list', { name: 'Apps' });
  return within(list)
    .getAllByRole('listitem')
    .find((item) => within(item).queryByText(name, { exact: true }))!;
}

// The screen loads on first use (a lazy route): room for that on a busy machine.
describe('the console’s Apps', { timeout: 15_000 }, () => {
  it('is in the console’s navigation and lists each app with what it may do', async () => {
    onApps({}, [
      anApp(),
      anApp({
        id: 'grafanaclient00000000000',
        name: 'Grafana',
        type: 'public',
        authMethod: 'none',
        group: 'operators',
      }),
    ]);
    const { user, router } = renderApp('/admin');
    const nav = await screen.findByRole('navigation', { name: 'Operator console' });
    await user.click(within(nav).getByRole('link', { name: 'Apps' }));
    await expectFocus(screen.findByRole('heading', { level: 1, name: 'Apps' }));
    expect(router.state.location.pathname).toBe('/admin/apps');
    expect(document.title).toBe('Apps · Gatehouse');
    await screen.findByRole('list', { name: 'Apps' });
    expect(screen.getByText(ISSUER)).toBeVisible();
    expect(row('Team Wiki')).toHaveTextContent('wikiclient0000000000000a');
    expect(row('Team Wiki')).toHaveTextContent('https://wiki.example.org/oauth/callback');
    expect(row('Team Wiki')).toHaveTextContent('Confidential (has a secret)');
    expect(row('Grafana')).toHaveTextContent('Public (no secret, PKCE)');
    expect(row('Grafana')).toHaveTextContent('Operators only');
    // A public app has no secret to renew.
    expect(within(row('Grafana')).queryByRole('button', { name: 'New Secret' })).toBeNull();
    expect(
      within(row('Team Wiki')).getByRole('button', { name: 'Remove' }),
    ).toHaveAccessibleDescription('Team Wiki');
  });

  it('registers an app: the server’s words under their fields, then the secret shown once', async () => {
    const { server, state } = onApps(
      {
        'POST /api/admin/apps': (req) => {
          const body = req.body as { name: string; redirectUris: string[] };
          if (!body.name) {
            return pbError(400, INVALID, {
              name: { code: 'validation_required', message: 'Cannot be blank.' },
              redirectUris: {
                code: 'validation_invalid_url',
                message: 'Must start with https:// (http:// only for this machine).',
              },
            });
          }
          const app = anApp({ id: 'notesclient0000000000000', name: body.name });
          state.apps = [...state.apps, app];
          return json(200, { app, secret: 'the-one-time-secret' });
        },
      },
      [],
    );
    const { user } = renderApp('/admin/apps');
    expect(await screen.findByText(/^No apps yet\./)).toBeVisible();
    const form = screen.getByRole('form', { name: 'Register an App' });
    const addresses = within(form).getByLabelText('Return addresses');
    await user.type(addresses, 'http://notes.example.org/cb');
    await user.click(within(form).getByRole('button', { name: 'Register App' }));
    expect(await findAnnounced('Please fill this in.')).toBeVisible();
    const name = within(form).getByLabelText('Name');
    await expectFocus(name);
    expect(name).toHaveAccessibleDescription(/Please fill this in\.$/);
    expect(addresses).toHaveAccessibleDescription(
      /Must start with https:\/\/ \(http:\/\/ only for this machine\)\.$/,
    );
    expect(addresses).toHaveAttribute('aria-invalid', 'true');

    await user.type(name, 'Notes');
    await user.clear(addresses);
    await user.type(
      addresses,
      ' https://notes.example.org/cb {Enter}{Enter}https://notes.example.org/cb2',
    );
    await user.click(within(form).getByRole('radio', { name: /^Operators only/ }));
    await user.click(within(form).getByRole('button', { name: 'Register App' }));
    const card = await screen.findByRole('region', { name: 'Notes Is Registered' });
    await expectFocus(within(card).getByRole('heading', { name: 'Notes Is Registered' }));
    expect(card).toHaveTextContent('the-one-time-secret');
    expect(card).toHaveTextContent('notesclient0000000000000');
    expect(card).toHaveTextContent('The secret will not be shown again.');
    expect(server.to('POST', '/api/admin/apps').map((r) => r.body)[1]).toEqual({
      name: 'Notes',
      redirectUris: ['https://notes.example.org/cb', 'https://notes.example.org/cb2'],
      postLogoutRedirectUris: [],
      backchannelLogoutUri: '',
      type: 'confidential',
      group: 'operators',
    });
    expect(name).toHaveValue('');

    await user.click(within(card).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByText('the-one-time-secret')).toBeNull());
    expect(row('Notes')).toBeDefined();
  });

  it('Remove asks first, naming the app; Cancel keeps it, Yes removes it', async () => {
    const { server, state } = onApps({
      'DELETE /api/admin/apps/wikiclient0000000000000a': () => {
        state.apps = [];
        return noContent();
      },
    });
    const { user } = renderApp('/admin/apps');
    await screen.findByRole('list', { name: 'Apps' });
    await user.click(within(row('Team Wiki')).getByRole('button', { name: 'Remove' }));
    let dialog = await screen.findByRole('dialog', { name: 'Remove Team Wiki?' });
    expect(dialog).toHaveAccessibleDescription(/This cannot be undone/);
    await expectFocus(within(dialog).getByRole('button', { name: 'Cancel' }));
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(server.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);

    await user.click(within(row('Team Wiki')).getByRole('button', { name: 'Remove' }));
    dialog = await screen.findByRole('dialog', { name: 'Remove Team Wiki?' });
    await user.click(within(dialog).getByRole('button', { name: 'Yes, Remove' }));
    expect(
      await findAnnounced('Team Wiki has been removed. It can no longer sign anyone in.', 'status'),
    ).toBeVisible();
    expect(await screen.findByText(/^No apps yet\./)).toBeVisible();
  });

  it('Edit saves an app’s settings with the same checks, keeping how it sends its secret', async () => {
    const { server, state } = onApps(
      {
        'PATCH /api/admin/apps/wikiclient0000000000000a': (req) => {
          const body = req.body as { redirectUris: string[] };
          if (body.redirectUris.length === 0) {
            return pbError(400, INVALID, {
              redirectUris: { code: 'validation_required', message: 'Cannot be blank.' },
            });
          }
          const app = anApp({ redirectUris: body.redirectUris, authMethod: 'client_secret_basic' });
          state.apps = [app];
          return json(200, { app, secret: '' });
        },
      },
      [anApp({ authMethod: 'client_secret_basic' })],
    );
    const { user } = renderApp('/admin/apps');
    await screen.findByRole('list', { name: 'Apps' });
    await user.click(within(row('Team Wiki')).getByRole('button', { name: 'Edit' }));
    const form = screen.getByRole('form', { name: 'Edit Team Wiki' });
    await expectFocus(within(form).getByLabelText('Name'));
    const addresses = within(form).getByLabelText('Return addresses');
    expect(addresses).toHaveValue('https://wiki.example.org/oauth/callback');
    await user.clear(addresses);
    await user.click(within(form).getByRole('button', { name: 'Save Changes' }));
    expect(await findAnnounced('Please fill this in.')).toBeVisible();
    await expectFocus(addresses);

    await user.type(addresses, 'https://wiki.example.org/new-callback');
    await user.click(within(form).getByRole('button', { name: 'Save Changes' }));
    expect(await findAnnounced('Team Wiki has been saved.', 'status')).toBeVisible();
    await waitFor(() =>
      expect(row('Team Wiki')).toHaveTextContent('https://wiki.example.org/new-callback'),
    );
    const sent = server.to('PATCH', '/api/admin/apps/wikiclient0000000000000a');
    expect(sent.map((r) => r.body)[1]).toEqual({
      name: 'Team Wiki',
      redirectUris: ['https://wiki.example.org/new-callback'],
      postLogoutRedirectUris: [],
      backchannelLogoutUri: '',
      type: 'confidential',
      authMethod: 'client_secret_basic',
      group: 'members',
    });
  });
});
