import { expect, test, type Page } from '@playwright/test';
import { logIn, newPassword, serverWithInitial, signUpVerified } from './support/api';
import { checkScreen } from './support/checks';
import { expectHomeScreen, expectLoginScreen, logInThroughUi } from './support/ui';

/**
 * The header a signed-in member gets (docs/decisions/0032): every place, Admin for operators
 * only, the Menu with the theme, the same at 360 px behind Menu; a brand-new member's first Home
 * (decision 0066); and the sign-in screen saying why a device was signed out (0024).
 */

// The polish spec's server: these tests bring their own members and need nothing untouched.
const { origin: ORIGIN, initial, spareCode } = serverWithInitial('polish');
test.use({ baseURL: ORIGIN });

const PLACES = [
  { name: 'Home', path: '/home', heading: 'Welcome!' },
  { name: 'Profile', path: '/profile', heading: 'Profile' },
  { name: 'Settings', path: '/settings', heading: 'Settings' },
  { name: "What's New", path: '/whats-new', heading: "What's New" },
  { name: 'Admin', path: '/admin', heading: 'Members' },
];

const mainNav = (page: Page) => page.getByRole('banner').getByRole('navigation', { name: 'Main' });

async function isDark(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.classList.contains('dark'));
}

test('an operator reaches every place from the header, the current one marked, by mouse and keyboard', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await logInThroughUi(page, initial.email, initial.password);
  const nav = mainNav(page);
  await expect(nav.getByRole('link')).toHaveText(PLACES.map((p) => p.name));
  for (const place of PLACES) {
    await nav.getByRole('link', { name: place.name, exact: true }).click();
    await expect(page).toHaveURL((url) => url.pathname === place.path);
    await expect(page.getByRole('heading', { level: 1, name: place.heading })).toBeVisible();
    const current = nav.locator('[aria-current="page"]');
    await expect(current).toHaveCount(1);
    await expect(current).toHaveText(place.name);
  }
  await checkScreen(page, 'the header on the console');

  // Keyboard: from the skip link, Tab reaches the wordmark, then the places in order.
  await page.goto('/home');
  await expectHomeScreen(page);
  // The header's places load in a chunk of their own, which may arrive after Home's content.
  await expect(nav.getByRole('link', { name: 'Home', exact: true })).toBeVisible();
  await page.getByRole('link', { name: 'Skip to content' }).focus();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('banner').getByRole('link', { name: 'Gatehouse' })).toBeFocused();
  for (const place of PLACES) {
    await page.keyboard.press('Tab');
    await expect(nav.getByRole('link', { name: place.name, exact: true })).toBeFocused();
  }
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Members' })).toBeFocused();

  // Home keeps the spec's own buttons; the header's links of the same names are the navigation's.
  await page.goto('/home');
  const main = page.getByRole('main');
  await expect(main.getByRole('button', { name: "What's New" })).toBeVisible();
  await expect(main.getByRole('button', { name: 'Log Out' })).toBeVisible();
  await expect(main.getByRole('link', { name: 'Admin' })).toHaveCount(0);
});

test('a member who is not an operator has no Admin; a first visit has no New Update banner', async ({
  page,
}) => {
  const member = await signUpVerified(ORIGIN, await spareCode(), 'shell-plain');
  await logInThroughUi(page, member.email, member.password);
  const nav = mainNav(page);
  await expect(nav.getByRole('link')).toHaveText(['Home', 'Profile', 'Settings', "What's New"]);
  await expect(page.getByRole('link', { name: 'Admin' })).toHaveCount(0);
  // Decision 0066: nothing is new to someone who just arrived.
  await expect(page.getByRole('region', { name: 'New Update' })).toHaveCount(0);
  await expect
    .poll(() => page.evaluate(() => localStorage.getItem('gatehouse.lastViewedChangelogVersion')))
    .not.toBeNull();
  await page.reload();
  await expectHomeScreen(page);
  await expect(page.getByRole('region', { name: 'New Update' })).toHaveCount(0);
});

test('the theme: Dark is remembered and there from the first paint; System follows the device; Light stays light', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const member = await signUpVerified(ORIGIN, await spareCode(), 'shell-theme');
  await logInThroughUi(page, member.email, member.password);
  const banner = page.getByRole('banner');
  const menu = banner.getByRole('button', { name: 'Menu' });
  const theme = banner.getByRole('group', { name: 'Theme' });

  await menu.click();
  await expect(theme.getByRole('radio', { name: 'System' })).toBeChecked();
  expect(await isDark(page)).toBe(false);
  // By keyboard: the arrow keys move through the choices.
  await theme.getByRole('radio', { name: 'System' }).focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(theme.getByRole('radio', { name: 'Dark' })).toBeChecked();
  expect(await isDark(page)).toBe(true);
  await checkScreen(page, 'the Menu in the Dark theme');

  // Remembered, and applied before the app's own code runs (no light flash).
  await page.reload({ waitUntil: 'commit' });
  await page.waitForFunction(() => document.body !== null);
  expect(await isDark(page)).toBe(true);
  await expectHomeScreen(page);

  // Light wins over a dark device; System follows it.
  await menu.click();
  // A click on the choice's label, as a person does (the radio itself is visually hidden).
  await theme.getByText('Light', { exact: true }).click();
  await expect(theme.getByRole('radio', { name: 'Light' })).toBeChecked();
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await isDark(page)).toBe(false);
  await theme.getByText('System', { exact: true }).click();
  await expect(theme.getByRole('radio', { name: 'System' })).toBeChecked();
  await expect.poll(() => isDark(page)).toBe(true);
  await page.emulateMedia({ colorScheme: 'light' });
  await expect.poll(() => isDark(page)).toBe(false);
  await page.keyboard.press('Escape');
  await expect(theme).toHaveCount(0);
  await expect(menu).toBeFocused();
});

test('at 360 px the places are under Menu, with who is signed in, the theme and Log Out', async ({
  page,
}) => {
  await page.setViewportSize({ width: 360, height: 740 });
  const member = await signUpVerified(ORIGIN, await spareCode(), 'shell-phone');
  await logInThroughUi(page, member.email, member.password);
  const banner = page.getByRole('banner');
  await expect(banner.getByRole('navigation')).toHaveCount(0);
  const menu = banner.getByRole('button', { name: 'Menu' });
  await expect(menu).toHaveText(/Menu/);
  await menu.click();
  const nav = banner.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Home' })).toHaveAttribute('aria-current', 'page');
  await expect(banner.getByText(member.email, { exact: true })).toBeVisible();
  await checkScreen(page, 'Menu open at 360 px', { every: true });
  await nav.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  await expect(banner.getByRole('group', { name: 'Theme' })).toHaveCount(0);
  await menu.click();
  await banner.getByRole('button', { name: 'Log Out' }).click();
  await expectLoginScreen(page);
  await expect(page.getByText('You have been signed out.')).toBeVisible();
});

test.describe('the sign-in screen says why a device was signed out', () => {
  test('signed out from another device', async ({ page }) => {
    const member = await signUpVerified(ORIGIN, await spareCode(), 'shell-elsewhere');
    await logInThroughUi(page, member.email, member.password);
    // Another device ends every other session.
    const other = await logIn(ORIGIN, member);
    const res = await fetch(`${ORIGIN}/api/gatehouse/sessions`, {
      method: 'DELETE',
      headers: { Authorization: other },
    });
    expect(res.status).toBe(204);
    await expectLoginScreen(page);
    await expect(
      page.getByText('You were signed out on this device from another device.'),
    ).toBeVisible();
    await checkScreen(page, 'Login: signed out from another device');
  });

  test('password changed elsewhere', async ({ page }) => {
    const member = await signUpVerified(ORIGIN, await spareCode(), 'shell-password');
    await logInThroughUi(page, member.email, member.password);
    const other = await logIn(ORIGIN, member);
    const password = newPassword();
    const res = await fetch(`${ORIGIN}/api/collections/users/records/${member.id}`, {
      method: 'PATCH',
      headers: { Authorization: other, 'Content-Type': 'application/json' },
      body: JSON.stringify({ oldPassword: member.password, password, passwordConfirm: password }),
    });
    expect(res.status).toBe(200);
    await expectLoginScreen(page);
    await expect(
      page.getByText('You were signed out because your password or email was changed.'),
    ).toBeVisible();
  });

  test('disabled by an operator', async ({ page }) => {
    const member = await signUpVerified(ORIGIN, await spareCode(), 'shell-disabled');
    await logInThroughUi(page, member.email, member.password);
    const operator = await logIn(ORIGIN, initial);
    const res = await fetch(`${ORIGIN}/api/admin/members/${member.id}/disable`, {
      method: 'POST',
      headers: { Authorization: operator },
    });
    expect(res.status).toBe(200);
    await expectLoginScreen(page);
    await expect(
      page.getByText('You were signed out because an operator disabled your account.'),
    ).toBeVisible();
  });
});
