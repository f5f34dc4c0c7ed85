import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { chooseLanguage } from '../../lib/i18n';
import { changelogOk, fakeServer, json, makeUser, signedInServer } from '../../test/fake-server';
import { renderApp } from '../../test/render-app';

/** Where an app's sign-in lands: its heading while the sign-in is under way. */
const UID = 'interaction-uid-1';
const DETAILS = `GET /api/oidc/interactions/${UID}/details`;
const never = () => new Promise<Response>(() => undefined);

describe('Sign in to an app (/authorize/$uid)', () => {
  it('says it is signing in to the app while it reads which app, in German too', async () => {
    fakeServer({ [DETAILS]: never, 'GET /changelog.json': changelogOk([]) });
    renderApp(`/authorize/${UID}`);
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Signing in to the app…' }),
    ).toBeInTheDocument();
    await chooseLanguage('de');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Anmeldung bei der App …' }),
    ).toBeInTheDocument();
  });

  it('names the app while a member who may use it goes on to it, in German too', async () => {
    const alice = makeUser();
    signedInServer(alice, {
      [DETAILS]: () =>
        json(200, {
          uid: UID,
          prompt: 'login',
          app: { id: 'notes', name: 'Notes' },
          scopes: ['openid', 'profile'],
          group: 'members',
          allowed: true,
        }),
      [`POST /api/oidc/interactions/${UID}/login`]: never,
    });
    await chooseLanguage('de');
    renderApp(`/authorize/${UID}`);
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Anmeldung bei Notes …' }),
    ).toBeInTheDocument();
  });
});
