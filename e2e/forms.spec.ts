import { expect, test, type Page } from '@playwright/test';
import { serverWithInitial, signUpVerified } from './support/api';
import { checkScreen } from './support/checks';
import { expectHomeScreen, expectLoginScreen, logInThroughUi } from './support/ui';

/**
 * Show / Hide on the sign-in password, and "On this page" on Settings, with the keyboard alone, at
 * laptop width and at 360 px, light and dark.
 */

const { origin: ORIGIN, spareCode } = serverWithInitial('settings');
test.use({ baseURL: ORIGIN });

test('the sign-in password shows and hides what was typed, keyboard only, without signing in', async ({
  page,
}) => {
  const member = await signUpVerified(ORIGIN, await spareCode(), 'reveal');
  let signIns = 0;
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().includes('/auth-with-password')) signIns++;
  });
  await page.goto('/');
  await expectLoginScreen(page);
  await page.getByLabel('Email', { exact: true }).fill(member.email);
  await page.keyboard.press('Tab');
  const password = page.getByLabel('Password', { exact: true });
  await expect(password).toBeFocused();
  await page.keyboard.type(member.password);
  await expect(password).toHaveAttribute('type', 'password');
  await expect(password).toHaveAttribute('aria-keyshortcuts', 'Alt+F8');

  await page.keyboard.press('Alt+F8');
  await expect(password).toHaveAttribute('type', 'text');
  await expect(password).toHaveValue(member.password);
  await expect(page.getByRole('button', { name: 'Hide', exact: true })).toBeVisible();
  await expect(password).toBeFocused();
  // The caret stayed at the end: what is typed next goes after the password.
  await page.keyboard.type('!');
  await expect(password).toHaveValue(`${member.password}!`);
  await page.keyboard.press('Backspace');
  await checkScreen(page, 'Sign in, password shown');

  await page.keyboard.press('Alt+F8');
  await expect(password).toHaveAttribute('type', 'password');
  await expect(page.getByRole('button', { name: 'Show', exact: true })).toBeVisible();
  await expect(loginHeadingStill(page)).toBeVisible();
  expect(signIns).toBe(0);

  // The button is a 44 px target beside the field, and a click keeps focus in the field.
  const show = page.getByRole('button', { name: 'Show', exact: true });
  const box = await show.boundingBox();
  expect(box?.height).toBeGreaterThanOrEqual(44);
  expect(box?.width).toBeGreaterThanOrEqual(44);
  await show.click();
  await expect(password).toHaveAttribute('type', 'text');
  await expect(password).toBeFocused();
  expect(signIns).toBe(0);

  // Enter still signs in, with the password as typed.
  await page.keyboard.press('Enter');
  await expectHomeScreen(page);
});

function loginHeadingStill(page: Page) {
  return page.getByRole('heading', { level: 1, name: 'Welcome back' });
}

for (const [width, height] of [
  [1280, 800],
  [360, 740],
] as const) {
  test(`Settings: "On this page" moves focus to a section's heading, at ${width} px`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height });
    const member = await signUpVerified(ORIGIN, await spareCode(), `sections${width}`);
    await logInThroughUi(page, member.email, member.password);
    await page.goto('/settings');
    await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeFocused();

    const nav = page.getByRole('navigation', { name: 'On this page' });
    await expect(nav.getByRole('link', { name: 'Signed-In Devices' })).toBeVisible();
    // At 1280 px the list is beside the cards; at 360 px it is above them.
    const navBox = (await nav.boundingBox())!;
    const firstCard = (await page.getByRole('region', { name: 'Profile' }).boundingBox())!;
    if (width === 1280) expect(navBox.x + navBox.width).toBeLessThanOrEqual(firstCard.x);
    else expect(navBox.y + navBox.height).toBeLessThanOrEqual(firstCard.y);

    // By keyboard: Tab into the list, to "Signed-In Devices", Enter.
    const link = nav.getByRole('link', { name: 'Signed-In Devices' });
    for (let i = 0; i < 40 && !(await link.evaluate((el) => el === document.activeElement)); i++) {
      await page.keyboard.press('Tab');
    }
    await expect(link).toBeFocused();
    await page.keyboard.press('Enter');
    const devices = page.getByRole('region', { name: 'Signed-In Devices' });
    await expect(devices).toHaveAttribute('id', 'signed-in-devices');
    await expect(devices.getByRole('heading', { name: 'Signed-In Devices' })).toBeFocused();
    await expect(devices.getByRole('heading', { name: 'Signed-In Devices' })).toBeInViewport();
    await expect(page).toHaveURL((url) => url.hash === '#signed-in-devices');
    await expect(link).toHaveAttribute('aria-current', 'true');
    if (width === 1280) await expect(nav).toBeInViewport();
    await checkScreen(page, `Settings with "On this page" at ${width} px`, { every: true });
  });
}
