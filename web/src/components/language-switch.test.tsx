import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseLanguage } from '../lib/i18n';
import {
  authRefreshOk,
  changelogOk,
  fakeServer,
  json,
  makeUser,
  storeSession,
} from '../test/fake-server';
import { renderApp } from '../test/render-app';

const alice = makeUser({ email: 'alice@example.com' });

afterEach(async () => {
  window.localStorage.clear();
  await chooseLanguage('en');
  window.localStorage.clear();
});

const placesIn = (nav: HTMLElement) =>
  within(nav)
    .getAllByRole('link')
    .map((l) => l.textContent);

describe('the language in the Menu', () => {
  it('a member picks Deutsch with the keyboard and the app speaks German, then English again', async () => {
    storeSession(alice);
    fakeServer({
      'POST /api/collections/users/auth-refresh': authRefreshOk(alice),
      'GET /changelog.json': changelogOk(),
      'GET /api/invite-codes': () => json(200, { codes: [] }),
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
    expect(english).toHaveFocus();

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
  }, 20_000);
});
