import { expect, test, type Page } from '@playwright/test';
import { serverWithInitial, signUpUnverified, signUpVerified } from './support/api';
import { de } from './support/catalogue';
import { expectGerman } from './support/german';

/**
 * The app in German, chosen by the browser's language (de-DE): every screen a visitor, a member
 * and an operator can reach shows no English text of the catalogues, no text cut off at 360 px,
 * and passes axe in light and dark; the Menu switches to English and back. The screens an app
 * sends a member to (an app's sign-in, its consent question, the gate) are in oidc.spec.ts, which
 * runs a server with an app and a gate.
 */

const { origin: ORIGIN, initial, spareCode } = serverWithInitial('polish');
test.use({ baseURL: ORIGIN, locale: 'de-DE' });

const h1 = (page: Page, english: string) =>
  page.getByRole('heading', { level: 1, name: de(english) });

async function signIn(page: Page, email: string, password: string) {
  await page.goto('/');
  await page.getByLabel(de('Email'), { exact: true }).fill(email);
  await page.getByLabel(de('Password'), { exact: true }).fill(password);
  await page.getByRole('button', { name: de('Sign In'), exact: true }).click();
  await expect(h1(page, 'Welcome!')).toBeVisible();
}

test('a visitor: every guest screen in German', async ({ page }) => {
  test.setTimeout(240_000);
  await page.goto('/');
  await expect(h1(page, 'Welcome back')).toBeVisible();
  await expectGerman(page, 'login');

  const unverified = await signUpUnverified(ORIGIN, await spareCode(), 'german-unverified');
  await page.getByLabel(de('Email'), { exact: true }).fill(unverified.email);
  await page.getByLabel(de('Password'), { exact: true }).fill(unverified.password);
  await page.getByRole('button', { name: de('Sign In'), exact: true }).click();
  await expect(page.getByText(de('Email Not Verified'))).toBeVisible();
  await expectGerman(page, 'login, email not verified');

  await page.goto(`/signup?code=${await spareCode()}`);
  await expect(page.getByText(de("Welcome! You've been invited."))).toBeVisible();
  await expectGerman(page, 'sign-up with a code');
  // The form's own checks speak German too.
  await page.getByRole('button', { name: de('Sign Up'), exact: true }).click();
  await expect(page.getByRole('alert').first()).toBeVisible();
  await expectGerman(page, 'sign-up, empty form sent');

  for (const [path, english, screen] of [
    ['/forgot-password', 'Forgot Password', 'forgot password'],
    ['/verify-email?token=not-a-real-token', 'Verification Failed', 'verify email, bad link'],
    ['/nowhere', 'Not Found', 'not found'],
  ] as const) {
    await page.goto(path);
    await expect(h1(page, english)).toBeVisible();
    await expectGerman(page, screen);
  }
  await page.goto('/reset-password?token=not-a-real-token');
  await expect(page.getByRole('button', { name: de('Request a New Link') })).toBeVisible();
  await expectGerman(page, 'reset password, bad link');

  await page.goto('/whats-new');
  await expect(h1(page, "What's New")).toBeVisible();
  await expectGerman(page, "What's New, signed out");
});

test('a member: Home, Profile, Settings, What’s New in German; the Menu switches to English and back', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const member = await signUpVerified(ORIGIN, await spareCode(), 'german-member');
  await signIn(page, member.email, member.password);
  const banner = page.getByRole('banner');
  await expect(banner.getByRole('button', { name: de('Menu') })).toBeVisible();
  await expectGerman(page, 'Home');

  const nav = page.getByRole('navigation', { name: de('Main') });
  for (const [place, heading] of [
    ['Profile', 'Profile'],
    ['Settings', 'Settings'],
    ["What's New", "What's New"],
  ] as const) {
    await nav.getByRole('link', { name: de(place) }).click();
    await expect(h1(page, heading)).toBeVisible();
    await expectGerman(page, place);
  }
  await page.goto('/confirm-email-change?token=not-a-real-token');
  await expect(h1(page, 'Confirm New Email')).toBeVisible();
  await expectGerman(page, 'confirm new email');

  // The choice is the member's: English from the Menu, whatever the browser says, and back.
  await page.goto('/home');
  await banner.getByRole('button', { name: de('Menu') }).click();
  const language = banner.getByRole('group', { name: de('Language') });
  await language.getByText('English', { exact: true }).click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(page.getByRole('heading', { level: 1, name: 'Welcome!' })).toBeVisible();
  await expect(banner.getByRole('link', { name: 'Profile' }).first()).toBeAttached();
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await banner.getByRole('button', { name: 'Menu' }).click();
  await banner
    .getByRole('group', { name: 'Language' })
    .getByText('Deutsch', { exact: true })
    .click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'de');
  await expect(banner.getByRole('link', { name: de('Profile') }).first()).toBeAttached();
});

test("an operator: the console's screens in German", async ({ page }) => {
  test.setTimeout(300_000);
  const member = await signUpVerified(ORIGIN, await spareCode(), 'german-console');
  await signIn(page, initial.email, initial.password);
  // The initial user's Home has the console's first steps, in the console's catalogue.
  await page.waitForLoadState('networkidle');
  await expectGerman(page, "the initial user's Home");
  await page.goto('/admin');
  await expect(h1(page, 'Members')).toBeVisible();
  await expectGerman(page, 'console: members');

  await page.goto(`/admin/members/${member.id}`);
  await expect(page.getByRole('heading', { level: 1, name: member.email })).toBeVisible();
  await expectGerman(page, 'console: a member');

  for (const path of [
    '/admin/tree',
    '/admin/security-log',
    '/admin/apps',
    '/admin/backups',
    '/admin/crons',
    '/admin/logs',
    '/admin/mail',
    '/admin/settings',
  ]) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expectGerman(page, `console: ${path}`);
  }
});
