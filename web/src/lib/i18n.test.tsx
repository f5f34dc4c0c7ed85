import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../test/render-app';
import { chooseLanguage, preferredLanguage } from './i18n';

describe('the language', () => {
  it("is the first of the browser's languages the app speaks, unless this device chose one", () => {
    vi.stubGlobal('navigator', { ...navigator, languages: ['fr-FR', 'de-AT', 'en-US'] });
    expect(preferredLanguage()).toBe('de');
    vi.stubGlobal('navigator', { ...navigator, languages: ['fr-FR', 'es'] });
    expect(preferredLanguage()).toBe('en');
    localStorage.setItem('gatehouse.language', 'de');
    expect(preferredLanguage()).toBe('de');
  });

  it('puts the login screen and its checks in German, with <html lang="de">', async () => {
    await chooseLanguage('de');
    const { user } = renderApp('/');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Willkommen zurück' }),
    ).toBeInTheDocument();
    expect(document.documentElement.lang).toBe('de');
    expect(document.title).toBe('Anmelden · Gatehouse');
    expect(screen.queryByText('Welcome back')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Anmelden' }));
    expect(await screen.findByText('Bitte geben Sie Ihre E-Mail-Adresse ein.')).toBeInTheDocument();
  });

  it('switches a screen that is showing, and back', async () => {
    renderApp('/forgot-password');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Forgot Password' }),
    ).toBeInTheDocument();
    await chooseLanguage('de');
    await waitFor(() =>
      expect(
        screen.getByRole('heading', { level: 1, name: 'Passwort vergessen' }),
      ).toBeInTheDocument(),
    );
    await chooseLanguage('en');
    await waitFor(() =>
      expect(
        screen.getByRole('heading', { level: 1, name: 'Forgot Password' }),
      ).toBeInTheDocument(),
    );
  });
});
