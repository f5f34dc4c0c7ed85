import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import {
  authRefreshOk,
  changelogOk,
  fakeServer,
  json,
  makeUser,
  pbError,
  storeSession,
} from '../test/fake-server';
import { expectFocus, renderApp } from '../test/render-app';

const alice = makeUser({ email: 'alice@example.com' });
const RECORD = `PATCH /api/collections/users/records/${alice.id}`;

const placesIn = (nav: HTMLElement) =>
  within(nav)
    .getAllByRole('link')
    .map((l) => l.textContent);

describe('the language in the Menu', () => {
  it('a member picks Deutsch with the keyboard and the app speaks German, then English again', async () => {
    storeSession(alice);
    const server = fakeServer({
      'POST /api/collections/users/auth-refresh': authRefreshOk(alice),
      'GET /changelog.json': changelogOk(),
      'GET /api/invite-codes': () => json(200, { codes: [] }),
      // The member's record takes the language: their mail follows it.
      [RECORD]: (req) => json(200, { ...alice, ...(req.body as object) }),
    });
    const { user } = renderApp('/profile');
    await screen.findByRole('heading', { level: 1, name: 'Profile' });
    const nav = await within(screen.getByRole('banner')).findByRole('navigation', { name: 'Main' });
    expect(placesIn(nav)).toEqual(['Home', 'Profile', 'Settings', "What's New"]);

    // The Menu opens with Enter; Tab goes past the theme to the language, English chosen.
    const menu = screen.getByRole('button', { name: 'Menu' });
    menu.focus();
    await user.keyboard('{Enter}');
    const languages = screen.getByRole('group', { name: 'Language' });
    const english = within(languages).getByRole('radio', { name: 'English' });
    const deutsch = within(languages).getByRole('radio', { name: 'Deutsch' });
    expect(english).toBeChecked();
    expect(english.closest('label')).toHaveAttribute('lang', 'en');
    expect(deutsch.closest('label')).toHaveAttribute('lang', 'de');
    // (jsdom applies no styles: the places a narrow screen shows in the Menu come first.)
    for (let i = 0; i < 10 && document.activeElement !== english; i++) await user.tab();
    await expectFocus(english);

    // The arrow key picks Deutsch: the header's places in German, the page's language German, and
    // the Menu stays open with focus on the choice.
    await user.keyboard('{ArrowRight}');
    // (The German catalogues load first: a while in a test, where each is compiled on first use.)
    // The screens are rendered anew (the Menu too, whose places a narrow screen shows come second).
    const banner = () => within(screen.getByRole('banner'));
    const germanNav = await waitFor(
      () => banner().getAllByRole('navigation', { name: 'Hauptnavigation' })[0]!,
      { timeout: 10_000 },
    );
    expect(placesIn(germanNav)).toEqual(['Startseite', 'Profil', 'Einstellungen', 'Neuigkeiten']);
    expect(document.documentElement.lang).toBe('de');
    expect(window.localStorage.getItem('gatehouse.language')).toBe('de');
    const sprachen = screen.getByRole('group', { name: 'Sprache' });
    expect(within(sprachen).getByRole('radio', { name: 'Deutsch' })).toBeChecked();
    await waitFor(() =>
      expect(within(sprachen).getByRole('radio', { name: 'Deutsch' })).toHaveFocus(),
    );
    // Each language keeps its own name.
    expect(within(sprachen).getByRole('radio', { name: 'English' })).not.toBeChecked();
    // The member's record says German now: their mail will be German.
    await waitFor(() =>
      expect(server.to('PATCH', `/api/collections/users/records/${alice.id}`)).toHaveLength(1),
    );
    expect(server.to('PATCH', `/api/collections/users/records/${alice.id}`)[0]!.body).toEqual({
      language: 'de',
    });

    // And back to English.
    await user.keyboard('{ArrowLeft}');
    const englishNav = await waitFor(
      () => banner().getAllByRole('navigation', { name: 'Main' })[0]!,
      { timeout: 10_000 },
    );
    expect(placesIn(englishNav)).toEqual(['Home', 'Profile', 'Settings', "What's New"]);
    await waitFor(() => expect(document.documentElement.lang).toBe('en'));
    expect(
      within(screen.getByRole('group', { name: 'Language' })).getByRole('radio', {
        name: 'English',
      }),
    ).toBeChecked();
    await waitFor(() =>
      expect(server.to('PATCH', `/api/collections/users/records/${alice.id}`)).toHaveLength(2),
    );
    expect(server.to('PATCH', `/api/collections/users/records/${alice.id}`)[1]!.body).toEqual({
      language: 'en',
    });
  }, 20_000);

  it('the screens switch even when the record cannot take the language', async () => {
    storeSession(alice);
    const server = fakeServer({
      'POST /api/collections/users/auth-refresh': authRefreshOk(alice),
      'GET /changelog.json': changelogOk(),
      'GET /api/invite-codes': () => json(200, { codes: [] }),
      [RECORD]: () =>
        pbError(503, 'The service is temporarily unavailable. Please try again shortly.'),
    });
    const failed = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const { user } = renderApp('/profile');
      await screen.findByRole('heading', { level: 1, name: 'Profile' });
      // (The Menu may be open already: a change of language keeps it open until it closes.)
      if (!screen.queryByRole('group', { name: 'Language' })) {
        await user.click(screen.getByRole('button', { name: 'Menu' }));
      }
      await user.click(
        within(screen.getByRole('group', { name: 'Language' })).getByRole('radio', {
          name: 'Deutsch',
        }),
      );
      await waitFor(() => expect(document.documentElement.lang).toBe('de'), { timeout: 10_000 });
      await waitFor(() => expect(failed).toHaveBeenCalled());
      expect(server.to('PATCH', `/api/collections/users/records/${alice.id}`)).toHaveLength(1);
      // Nothing is said, and the screens stay German.
      for (const alert of screen.queryAllByRole('alert')) expect(alert).toBeEmptyDOMElement();
      expect(
        within(screen.getByRole('group', { name: 'Sprache' })).getByRole('radio', {
          name: 'Deutsch',
        }),
      ).toBeChecked();
      expect(await screen.findByRole('heading', { level: 1, name: 'Profil' })).toBeInTheDocument();
    } finally {
      failed.mockRestore();
    }
  }, 20_000);
});
