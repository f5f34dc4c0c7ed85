import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { inviteCodeSource, signUpUnverified, signUpVerified, type Member } from './support/api';
import { e2eEnv } from './support/env';
import {
  fillLogin,
  logInThroughUi,
  openConsole,
  openConsoleMember,
  openConsoleSection,
} from './support/ui';

/**
 * Writes docs/screens/<screen>-<width>-<scheme>.png: every screen at 1280×800 and 360×740, light
 * and dark. Only with SCREENSHOTS=1 (`npm run screenshots`), so the suite does not rewrite them.
 */

test.skip(!process.env.SCREENSHOTS, 'SCREENSHOTS=1 writes docs/screens (npm run screenshots)');

const server = e2eEnv().servers.polish;
const ORIGIN = server.url;
test.use({ baseURL: ORIGIN });
const OUT = path.resolve(import.meta.dirname, '..', 'docs', 'screens');

const SIZES = [
  { name: '1280', width: 1280, height: 800 },
  { name: '360', width: 360, height: 740 },
] as const;

async function shoot(page: Page, screen: string) {
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
      // No caret or focus ring in the pictures.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      // Buttons fade their colours (transition-colors): end the fades that the new scheme or the
      // blur started, or the picture catches them half-way between dark and light.
      await page.evaluate(() => document.getAnimations().forEach((a) => a.finish()));
      await page.screenshot({ path: path.join(OUT, `${screen}-${size.name}-${scheme}.png`) });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
}

test('every screen, at both widths, light and dark', async ({ page, context }) => {
  test.setTimeout(600_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ORIGIN });
  const initial: Member = server.initial!;
  const spareCode = inviteCodeSource(ORIGIN, initial);
  const heading = (name: string) => page.getByRole('heading', { level: 1, name });

  await page.goto('/');
  await expect(heading('Welcome back')).toBeVisible();
  await shoot(page, 'login');

  const unverified = await signUpUnverified(ORIGIN, await spareCode(), 'pictures');
  await fillLogin(page, unverified.email, unverified.password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(page.getByText('Email Not Verified')).toBeVisible();
  await shoot(page, 'login-email-not-verified');

  await page.goto(`/signup?code=${await spareCode()}`);
  await expect(page.getByText("Welcome! You've been invited.")).toBeVisible();
  await shoot(page, 'signup');

  await page.goto('/forgot-password');
  await expect(heading('Forgot Password')).toBeVisible();
  await shoot(page, 'forgot-password');

  await page.goto('/reset-password?token=not-a-real-token');
  await expect(page.getByRole('button', { name: 'Request a New Link' })).toBeVisible();
  await shoot(page, 'reset-password-link-failed');

  await page.goto('/verify-email?token=not-a-real-token');
  await expect(heading('Verification Failed')).toBeVisible();
  await shoot(page, 'verify-email-failed');

  await page.goto('/nowhere');
  await expect(heading('Not Found')).toBeVisible();
  await shoot(page, 'not-found');

  const member = await signUpVerified(ORIGIN, await spareCode(), 'pictures');
  await page.goto('/');
  await fillLogin(page, member.email, member.password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(heading('Welcome!')).toBeVisible();
  // The header's places and Home's cards load after Home itself.
  await expect(page.getByRole('banner').getByRole('button', { name: 'Menu' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Your Invites' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Protect Your Account' })).toBeVisible();
  await shoot(page, 'home');

  await page.getByRole('banner').getByRole('button', { name: 'Menu' }).click();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: path.join(OUT, `menu-${size.name}-${scheme}.png`) });
    }
  }
  await page.keyboard.press('Escape');

  await page.goto('/profile');
  await expect(heading('Profile')).toBeVisible();
  await page.getByRole('button', { name: 'Copy Invite' }).first().click();
  await expect(page.getByText('Link copied')).toBeVisible();
  await shoot(page, 'profile');

  await page.goto('/settings');
  await expect(heading('Settings')).toBeVisible();
  await expect(page.getByText('This device')).toBeVisible();
  await shoot(page, 'settings');

  await page.goto('/whats-new');
  await expect(page.getByText('Latest', { exact: true })).toBeVisible();
  await shoot(page, 'whats-new');

  await page.goto('/confirm-email-change?token=not-a-real-token');
  await expect(heading('Confirm New Email')).toBeVisible();
  await shoot(page, 'confirm-new-email');
});

test("the operator console's screens, at both widths, light and dark", async ({ page }) => {
  test.setTimeout(300_000);
  const initial: Member = server.initial!;
  const spareCode = inviteCodeSource(ORIGIN, initial);
  const member = await signUpVerified(ORIGIN, await spareCode(), 'console');
  await logInThroughUi(page, initial.email, initial.password);
  await openConsole(page);
  /** Nothing on the shown screen is still loading. */
  const loaded = () => expect(page.getByText(/^Loading/)).toHaveCount(0);
  await loaded();
  await shoot(page, 'admin-members');

  await openConsoleMember(page, member.email);
  await loaded();
  await shoot(page, 'admin-member');

  for (const [name, screen] of [
    ['Invite Tree', 'admin-invite-tree'],
    ['Mail', 'admin-mail'],
    ['Security Log', 'admin-security-log'],
  ] as const) {
    await openConsoleSection(page, name);
    await loaded();
    await shoot(page, screen);
  }
});
